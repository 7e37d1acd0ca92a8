"""The scoreboard in a real headless browser (Debian's Chromium driven by Playwright).

``luza live`` replays a bundled clip as if from a camera; the page must show the
balls moving and the score changing over the WebSocket, and end on the score a
whole-clip analysis gives.  Skipped without /usr/bin/chromium unless ``CI`` is set.
``LUZA_SCREENSHOT=path.png`` also saves a screenshot of the page after the stroke.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from app_helpers import (
    CLIPS,
    camera_runner,
    example_events,
    live_cmd,
    score_events,
    track_clip,
    true_camera,
)

from luza.vision.events import extract_events

CHROMIUM = Path("/usr/bin/chromium")
CLIP = CLIPS / "fb-kaisa-middle_s0_720p30.mp4"
GAME = "five-ball"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and importlib.util.find_spec("playwright")) and not os.environ.get("CI"),
    reason="needs Debian's Chromium at /usr/bin/chromium and Playwright (the test extra)",
)


def _expected_score() -> list[int]:
    """The whole clip tracked and scored at once (points in playing order)."""
    _cam, profile = true_camera(CLIP, GAME)
    events = extract_events(track_clip(CLIP, GAME)[0], profile, GAME)
    return list(score_events(events, GAME).final["score"].values())


@pytest.fixture()
def server(tmp_path):
    cmd = live_cmd(CLIP, tmp_path / "m.sqlite", "--players", "Ann,Bob", "--speed", "1")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = None
    err: list[str] = []
    for line in p.stderr:
        err.append(line)
        m = re.search(r"scoreboard (http://\S+/)", line)
        if m:
            url = m.group(1)
            break
    assert url, "".join(err)
    threading.Thread(target=lambda: err.extend(p.stderr), daemon=True).start()
    yield url
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def test_scoreboard_follows_the_match_live(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(server)
            page.wait_for_function(
                "document.querySelectorAll('#balls [data-ball]').length >= 4", timeout=60_000
            )
            first = [page.inner_text("#p0 .points"), page.inner_text("#p1 .points")]
            assert page.inner_text("#p0 .name").endswith("Ann")
            # count ball moves and score changes as the page receives them
            page.evaluate(
                """() => {
                  window.ballMoves = 0; window.scoreTexts = [];
                  new MutationObserver((m) => { window.ballMoves += m.length; })
                    .observe(document.getElementById('balls'), {attributes: true, subtree: true});
                  new MutationObserver(() => window.scoreTexts.push(
                      document.querySelector('#p0 .points').textContent))
                    .observe(document.querySelector('#p0 .points'),
                             {childList: true, characterData: true, subtree: true});
                }"""
            )
            page.wait_for_function(
                "window.luzaState && window.luzaState.shots >= 1", timeout=90_000
            )
            if os.environ.get("LUZA_SCREENSHOT"):
                page.wait_for_timeout(300)
                page.screenshot(path=os.environ["LUZA_SCREENSHOT"])
            page.wait_for_function("window.luzaState && window.luzaState.finished", timeout=90_000)
            page.wait_for_timeout(200)
            shown = [int(page.inner_text("#p0 .points")), int(page.inner_text("#p1 .points"))]
            moves = page.evaluate("window.ballMoves")
            via_socket = page.evaluate("window.luzaSocketStates")
            status = page.inner_text("#status")
            ruling = page.inner_text("#ruling-head")
            chips = page.locator("#ruling-rules .chip").all_inner_texts()
            # both scores stay on screen whatever the ruling's notes say
            inside = page.evaluate(
                """() => ['p0', 'p1'].every((id) => {
                  const r = document.getElementById(id).getBoundingClientRect();
                  return r.left >= 0 && r.right <= window.innerWidth;
                })"""
            )
        finally:
            browser.close()
    assert first == ["0", "0"]
    assert inside
    assert shown == _expected_score()
    assert shown != [0, 0]  # the score changed while the page watched
    assert moves > 10  # the balls moved on the page
    assert via_socket > 10  # the updates came over the WebSocket
    assert status.startswith("live") and "ended" in status
    assert ruling.startswith("Shot 1: Ann")
    assert chips and all(re.fullmatch(r"(FB|GR|FP|AMB)-[\w.()]+", c) for c in chips)


@pytest.fixture()
def operator_server(tmp_path):
    """An in-process server whose runner took up the Five Ball example after its first stroke."""
    import socket
    import time

    import uvicorn

    from luza.app.live_server import Hub, create_app
    from luza.app.records import MatchStore

    store = MatchStore(tmp_path / "m.sqlite")
    hub = Hub()
    first = example_events("five_ball_game", 1)
    runner = camera_runner(store, GAME, first, source="cam-op", on_state=hub.publish)
    mid = runner.match_id
    hub.state = runner.state()
    app = create_app(hub, "op-token", runner.submit_input)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
    th = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and th.is_alive()
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}", store, mid, runner
    runner.stop()
    server.should_exit = True
    th.join(timeout=10)
    sock.close()
    store.close()


def test_operator_panel_enters_a_call_and_a_foul_with_the_token(operator_server):
    from playwright.sync_api import sync_playwright

    url, store, mid, _runner = operator_server
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(url + "/operator")
            page.wait_for_function("document.querySelectorAll('#call-ball option').length == 5")
            # a wrong token is refused
            page.fill("#token", "not-it")
            page.click("#token-form button[type=submit]")
            page.select_option("#foul-kind", "push")
            page.click("#foul-form button[type=submit]")
            page.wait_for_selector("#log li.err")
            assert "wrong operator token" in page.inner_text("#log li.err")
            # the right one: a call, then a foul
            page.fill("#token", "op-token")
            page.click("#token-form button[type=submit]")
            page.select_option("#call-ball", "K")
            page.select_option("#call-pocket", "middle-right")
            page.click("#call-form button[type=submit]")
            page.wait_for_function("document.querySelectorAll('#log li.ok').length >= 2")
            page.click("#foul-form button[type=submit]")
            page.wait_for_function("document.querySelectorAll('#log li.ok').length >= 3")
            page.wait_for_function(
                "document.getElementById('op-ruling').textContent.includes('FB-10.6')"
            )
        finally:
            browser.close()
    items, _, _ = store.match_state(mid)
    call, foul = items[-2], items[-1]
    assert call.type == "call" and call["ball"] == "K" and call["pocket"] == "middle-right"
    assert call["route"]["via"] is None and call["route"]["jaw"] is False
    assert foul.type == "foul" and foul["kind"] == "push"


def test_scoreboard_says_when_the_camera_is_lost(operator_server, monkeypatch):
    """A camera that gives no frames: the page says so (and the match stays on screen)."""
    from playwright.sync_api import sync_playwright

    monkeypatch.setattr("luza.app.live_runner.RECONNECT_FIRST_S", 0.05)
    url, _store, _mid, runner = operator_server
    runner.start()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(url + "/")
            page.wait_for_function(
                "document.getElementById('status').textContent.includes('camera lost')"
            )
            assert page.evaluate("document.body.classList.contains('camera-lost')")
            assert "reconnecting" in page.inner_text("#status")
            assert page.inner_text("#p0 .name").endswith("Aino")
            assert int(page.inner_text("#p0 .points")) == runner.rulings[-1]["score"]["Aino"]
        finally:
            browser.close()
