"""``luza live``'s web API: pages, state, WebSocket pushes, the operator token and input checks.

No video here: the runner takes up a match stored from the rules' Five Ball example,
so every input is judged against a real game state.
"""

from __future__ import annotations

import pytest
from app_helpers import camera_runner, example_events
from fastapi.testclient import TestClient

from luza.app.live_server import Hub, create_app
from luza.app.records import MatchStore
from luza.errors import LuzaError

TOKEN = "s3cret-token"


@pytest.fixture()
def live(tmp_path):
    store = MatchStore(tmp_path / "m.sqlite")
    hub = Hub()
    first = example_events("five_ball_game", 1)
    runner = camera_runner(store, "five-ball", first, on_state=hub.publish)
    hub.state = runner.state()
    app = create_app(hub, TOKEN, runner.submit_input)
    with TestClient(app) as client:
        yield client, runner, store, hub
    store.close()


def test_pages_and_static_files_are_served(live):
    client, *_ = live
    for path, marker in (
        ("/", 'id="table"'),
        ("/operator", 'id="token-form"'),
        ("/static/scoreboard.js", "WebSocket"),
        ("/static/table.js", "TableView"),
        ("/static/luza.css", ".points"),
    ):
        r = client.get(path)
        assert r.status_code == 200, path
        assert marker in r.text, path
    assert client.get("/static/nothing.js").status_code == 404


def test_state_is_the_taken_up_match(live):
    client, runner, *_ = live
    s = client.get("/api/state").json()
    want = runner.rulings[-1]
    assert runner.resumed and s["resumed"]
    assert s["game"] == "five-ball"
    assert s["players"] == ["Aino", "Berit"]
    assert s["score"] == want["score"] and s["turn"] == want["next"]
    assert s["shots"] == 1
    assert s["last_ruling"]["rules"] == want["rules"]
    assert s["last_ruling"]["text"].startswith("shot 1: Aino")
    assert set(s["table"]["pockets"]) == {
        "head-left",
        "head-right",
        "middle-left",
        "middle-right",
        "foot-left",
        "foot-right",
    }


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}, {"Authorization": "Bearer "}],
)
def test_input_needs_the_token(live, headers):
    client, runner, *_ = live
    n = len(runner.items)
    r = client.post("/api/input", json={"type": "foul", "kind": "push"}, headers=headers)
    assert r.status_code == 403
    assert "token" in r.json()["error"]
    assert len(runner.items) == n


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ({"type": "shot_start", "cue_ball": "W1"}, "not an operator input"),
        ({"type": "foul"}, "missing field 'kind'"),
        ({"type": "call", "ball": "X9", "pocket": "foot-left"}, "unknown ball id"),
        ({"type": "call", "ball": "K", "pocket": "side"}, "unknown pocket"),
        ({"type": "players", "names": ["Ann"]}, "two different names"),
        (["not", "an", "object"], "JSON object"),
    ],
)
def test_bad_inputs_are_refused_with_the_reason(live, payload, reason):
    client, runner, *_ = live
    n = len(runner.items)
    r = client.post("/api/input", json=payload, headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 400
    assert reason in r.json()["error"]
    assert len(runner.items) == n


def test_body_that_is_not_json_is_refused(live):
    client, *_ = live
    r = client.post("/api/input", content=b"{oops", headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 400 and "JSON" in r.json()["error"]


def test_a_foul_is_stored_rescored_and_pushed(live):
    client, runner, store, hub = live
    before = client.get("/api/state").json()
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "state" and first["score"] == before["score"]
        r = client.post(
            "/api/input",
            json={"type": "foul", "kind": "push"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        assert r.status_code == 200, r.text
        stored = r.json()["input"]
        assert stored["type"] == "foul" and stored["t"] >= runner.items[-2].t
        pushed = ws.receive_json()
        while pushed["type"] != "state":
            pushed = ws.receive_json()
    # the foul after the first stroke's shot_end makes it a foul (FB-10.6): no points
    ruling = pushed["last_ruling"]
    assert ruling["foul"] and any("FB-10.6" in f["rule"] for f in ruling["fouls"])
    assert sum(pushed["score"].values()) < sum(before["score"].values())
    items, _rulings, _resume = store.match_state(runner.match_id)
    assert items[-1].type == "foul" and items[-1]["kind"] == "push"


def test_websocket_sends_the_state_on_connect_and_on_publish(live):
    client, runner, _store, hub = live
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "state"
        runner.balls = {"K": [1775.0, 887.5]}
        runner._publish()
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["balls"] == {"K": [1775.0, 887.5]}


def test_a_won_game_finishes_the_match_and_refuses_more_inputs(tmp_path):
    """The Free Pyramid example taken up before its last stroke; the stroke arrives as a cut."""
    events = example_events("free_pyramid_game")
    last_start = max(i for i, e in enumerate(events) if e.type == "shot_start")
    store = MatchStore(tmp_path / "m.sqlite")
    states: list[dict] = []
    runner = camera_runner(store, "free-pyramid", events[:last_start], "cam-fp", states.append)
    mid = runner.match_id
    assert runner.resumed and not runner.finished
    runner._take(events[last_start:])
    s = states[-1]
    assert s["winner"] == "Bob" and s["finished"] and s["final"]["winner"] == "Bob"
    assert store.get(mid).status == "finished"
    with pytest.raises(LuzaError, match="the match is over"):
        runner.submit_input({"type": "foul", "kind": "push"})
    # the next session on this camera starts a new match
    assert store.open_match("cam-fp") is None
    store.close()


def test_an_input_before_the_camera_saw_the_table_waits_for_it(tmp_path):
    events = [e for e in example_events("free_pyramid_game") if e.type != "players"]
    first_end = next(i for i, e in enumerate(events) if e.type == "shot_end")
    store = MatchStore(tmp_path / "m.sqlite")
    runner = camera_runner(store, "free-pyramid", source="cam-new")
    assert not runner.resumed and runner.items == []
    got = runner.submit_input({"type": "players", "names": ["Ann", "Bob"]})
    assert got["type"] == "players"
    assert store.match_state(runner.match_id)[0] == []  # held, not stored yet
    runner._take(events[: first_end + 1])  # the first cut: the table and the break
    items, _, _ = store.match_state(runner.match_id)
    assert [e.type for e in items][:2] == ["players", "table_state"]
    assert list(runner.state()["score"]) == ["Ann", "Bob"]
    assert runner.state()["last_ruling"]["player"] == "Ann"
    store.close()
