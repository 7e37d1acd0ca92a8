"""The pieces of ``luza analyze`` on small hand-made streams and tracks (no video)."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from luza.app import scoresheet, stats
from luza.app.analyze import operator_inputs
from luza.app.annotate import event_text, overlay_plan
from luza.app.common import ArgumentError, parse_players, parse_start_score
from luza.app.match import MatchError, named_score, score_run, start_note, taken_up
from luza.calibration.profiles import load_profile
from luza.events import Event, make
from luza.rules.builder import StreamBuilder
from luza.rules.engine import RuleError
from luza.vision.events import FrameObs

PROFILE = load_profile("pyramid-12ft")


def events_of(b: StreamBuilder) -> list[Event]:
    return [it.event for it in b.items()]


def two_strokes() -> StreamBuilder:
    """A break that pots nothing, then B pots ball 7 after a cushion of the yellow."""
    b = StreamBuilder(PROFILE)
    b.rack()
    b.strike("Y").hit("Y", "1").cushion("Y", "foot").cushion("4", "left-foot").end()
    b.strike("Y").cushion("Y", "head").hit("Y", "7").pocket("7", "foot-left").end()
    return b


def test_score_sheet_rows_follow_the_rulings_and_the_events(tmp_path):
    scored = score_run(events_of(two_strokes()), "free-pyramid", "pyramid-12ft")
    rows = scoresheet.shot_rows(scored)
    assert [r.shot for r in rows] == [r.shot for r in scored.rulings] == [1, 2]
    first, second = rows
    assert first.first_contact == "1" and first.pots == [] and first.cue_cushions == 1
    assert first.cushions == 2
    assert second.first_contact == "7" and second.pots == [("7", "foot-left")]
    assert second.cue_cushions == 1
    for row, r in zip(rows, scored.rulings, strict=True):
        assert row.player == r.player and row.score == r.score and row.rules == r.rules
        assert row.points == r.points and row.next == r.next
    text = scoresheet.sheet_text(rows, scored.final, {"game": "free-pyramid"})
    assert "Y hits 7; potted 7 in foot-left; 1 cushion" in text
    for r in scored.rulings:
        assert ", ".join(r.rules) in text
    assert scoresheet.final_text(scored.final) in text
    scoresheet.write_csv(tmp_path / "s.csv", rows)
    with open(tmp_path / "s.csv", newline="") as f:
        got = list(csv.DictReader(f))
    assert [g["shot"] for g in got] == ["1", "2"]
    assert got[1]["pots"] == "7:foot-left" and got[1]["first_contact"] == "7"
    assert got[1]["score"] == " ".join(f"{k} {v}" for k, v in scored.rulings[1].score.items())


def test_score_sheet_of_a_foul_names_its_rule():
    b = StreamBuilder(PROFILE)
    b.rack()
    b.strike("Y").end()  # the break touches nothing: a foul
    scored = score_run(events_of(b), "free-pyramid", "pyramid-12ft")
    (row,) = scoresheet.shot_rows(scored)
    assert row.foul and row.first_contact is None
    assert row.ruling_text().startswith("FOUL ")
    assert all(rule in row.ruling_text() for rule, _ in row.fouls)
    assert "Y hits nothing" in row.happened()


def rolling_frames(fps=50.0, speed=1000.0, t_move=(0.5, 1.5), n=100, seed=0):
    """Y rolls along x at ``speed`` between the times of ``t_move``; ball 1 sits still
    with 1 mm of jitter.  Returns the frames and the rolling distance."""
    rng = np.random.default_rng(seed)
    frames = []
    x0 = 800.0
    for i in range(n):
        t = i / fps
        moving = min(max(t, t_move[0]), t_move[1]) - t_move[0]
        y = (x0 + speed * moving, 600.0)
        one = (2000.0 + rng.normal(0, 1.0), 900.0 + rng.normal(0, 1.0))
        frames.append(FrameObs(i, t, {"Y": y, "1": one}))
    return frames, speed * (t_move[1] - t_move[0])


def rolling_events(frames, t0=0.5, t1=1.6):
    pos0 = {b: list(p) for b, p in frames[0].seen.items()}
    pos1 = {b: list(p) for b, p in frames[-1].seen.items()}
    return [
        make("table_state", 0.0, 0, game="free-pyramid", positions=pos0, score={"A": 7, "B": 7}),
        make("shot_start", t0, 25, cue_ball="Y"),
        make("shot_end", t1, 80, positions=pos1),
    ]


def test_stats_speed_and_distance_of_a_rolling_ball():
    frames, dist = rolling_frames()
    st = stats.match_stats(frames, rolling_events(frames), "free-pyramid", PROFILE, 50.0)
    (shot,) = st["shots"]
    assert shot["cue_ball"] == "Y"
    assert shot["cue_peak_speed_mm_s"] == pytest.approx(1000.0, rel=0.02)
    assert shot["cue_mean_speed_mm_s"] == pytest.approx(1000.0, rel=0.02)
    assert shot["cue_distance_mm"] == pytest.approx(dist, rel=0.03)
    assert "1" not in shot["distance_mm"]  # jitter on a still ball is no travel
    assert st["totals"]["cue_distance_mm"] == shot["cue_distance_mm"]
    # the heat map holds the cue ball's samples of the stroke, and only those
    in_shot = sum(1 for f in frames if 0.5 <= f.t <= 1.6)
    assert st["heatmap"]["samples"] == in_shot
    assert sum(c[2] for c in st["heatmap"]["cells"]) == in_shot


def test_stats_ignore_a_single_wrong_sample_and_a_long_gap():
    frames, dist = rolling_frames()
    # one sample of Y far away (a wrong detection), and Y unseen for 0.4 s
    k = 60
    bad = FrameObs(k, frames[k].t, {**frames[k].seen, "Y": (3000.0, 1500.0)})
    frames[k] = bad
    frames = [f for f in frames if not (0.9 < f.t < 1.3)] + []
    st = stats.match_stats(frames, rolling_events(frames), "free-pyramid", PROFILE, 50.0)
    (shot,) = st["shots"]
    assert shot["cue_peak_speed_mm_s"] == pytest.approx(1000.0, rel=0.05)
    # the 0.4 s gap is not joined: its 400 mm are missing from the distance
    assert shot["cue_distance_mm"] == pytest.approx(dist - 400.0, abs=60.0)


def test_stats_picture_is_written(tmp_path):
    frames, _ = rolling_frames()
    ev = rolling_events(frames)
    st = stats.match_stats(frames, ev, "free-pyramid", PROFILE, 50.0)
    stats.write_json(tmp_path / "s.json", st)
    stats.render_png(tmp_path / "s.png", st, frames, ev, PROFILE)
    import json

    import cv2

    assert json.loads((tmp_path / "s.json").read_text())["shots"][0]["cue_ball"] == "Y"
    img = cv2.imread(str(tmp_path / "s.png"))
    tv = stats.TopView(PROFILE)
    assert img is not None and img.shape[1] == tv.w and img.shape[0] > tv.h
    # the heat is brightest where Y rested longest (its end), not on the far cushion
    end = tv.px(frames[-1].seen["Y"])
    far = tv.px((PROFILE.length_mm - 100, PROFILE.width_mm - 100))
    assert img[end[1], end[0]].sum() > img[far[1], far[0]].sum()


def test_overlay_plan_banners_scores_and_respots():
    scored = score_run(events_of(two_strokes()), "free-pyramid", "pyramid-12ft")
    plan = overlay_plan(scored)
    words = [b.text for b in plan.banners]
    assert "Y hits 1" in words and "7 potted in foot-left" in words
    ends = [it.t for it in scored.items if it.type == "shot_end"]
    for t, r in zip(ends, scored.rulings, strict=True):
        st = plan.state_at(t + 1e-6)
        assert st.score == r.score and st.turn == r.next and st.shot == r.shot
    assert plan.state_at(0.0).score == {"A": 0, "B": 0}
    starts = [it.t for it in scored.items if it.type == "shot_start"]
    for t, r in zip(starts, scored.rulings, strict=True):  # during a stroke: its player
        assert plan.in_stroke(t + 1e-6) and plan.state_at(t + 1e-6).turn == r.player
    assert not plan.in_stroke(ends[-1] + 1e-6)
    # a banner shows from its event's time for a while, then goes
    pot = next(b for b in plan.banners if b.text == "7 potted in foot-left")
    assert pot in plan.banners_at(pot.t0) and pot not in plan.banners_at(pot.t1 + 0.01)
    # every respot of a ruling is drawn from its stroke's end
    for t, r in zip(ends, scored.rulings, strict=True):
        want = {(x.ball, (float(x.pos[0]), float(x.pos[1]))) for x in r.respots}
        assert want <= set(plan.respots_at(t + 1e-6))


def test_event_texts():
    assert event_text(make("collision", 1, a="Y", b="3", pos=[1, 1])) == "Y hits 3"
    assert event_text(make("pocket", 1, ball="5", pocket="foot-left")) == "5 potted in foot-left"
    jaw = make("cushion", 1, ball="K", cushion="jaw:middle-left", pos=[1, 1])
    assert event_text(jaw) == "K off the middle-left jaw"
    assert event_text(make("line_cross", 1, ball="K", line="centre", direction="+")) is None
    low = make("pocket", 1, 1, 0.4, ball="5", pocket="foot-left", uncertain=True)
    assert event_text(low).endswith("(?)")


def taken_up_stream() -> list[Event]:
    """A Free Pyramid game met with balls 3, 8 and 11 already off the table: one stroke."""
    b = StreamBuilder(PROFILE)
    pos = b.rack_positions()
    for gone in ("3", "8", "11"):
        pos.pop(gone)
    b.table_state(pos)
    b.strike("Y").hit("Y", "1").cushion("1", "foot").end()
    return events_of(b)


def test_a_free_pyramid_game_taken_up_mid_way_is_scored_from_a_split_score():
    ev = taken_up_stream()
    assert taken_up(ev, "free-pyramid", PROFILE) == {"score": {"A": 2, "B": 1}, "take_up": True}
    scored = score_run(ev, "free-pyramid", "pyramid-12ft")
    assert scored.rulings[0].score == {"A": 2, "B": 1}
    assert start_note([it.event for it in scored.items]).startswith("game taken up mid-way")
    # a full rack is a game from the start
    b2 = StreamBuilder(PROFILE)
    b2.rack()
    assert taken_up(events_of(b2), "free-pyramid", PROFILE) is None
    # Five Ball: balls anywhere but the break set-up -> 0-0, taken up
    fb = {"W1": (1200.0, 800.0), "K": (1700.0, 1500.0), "R1": (2500.0, 900.0)}
    ev5 = [make("table_state", 0.0, 0, game="five-ball", positions=fb)]
    assert taken_up(ev5, "five-ball", PROFILE) == {"score": {"A": 0, "B": 0}, "take_up": True}


def test_a_score_given_for_a_game_taken_up_replaces_the_placeholder():
    ev = taken_up_stream()
    assert parse_start_score("0:3") == {"A": 0, "B": 3}
    scored = score_run(ev, "free-pyramid", "pyramid-12ft", start_score={"A": 0, "B": 3})
    assert scored.rulings[0].score == {"A": 0, "B": 3}  # not the placeholder 2-1
    note = start_note([it.event for it in scored.items])
    assert "A 0 - B 3" in note and "--start-score" in note
    # with players the given score follows their names
    ops = [make("players", 0.0, names=["Ann", "Bob"])]
    named = score_run(ev, "free-pyramid", "pyramid-12ft", None, ops, {"A": 0, "B": 3})
    assert named.rulings[0].score == {"Ann": 0, "Bob": 3}
    # three balls are off the table: a score that does not add up is refused by the rules
    with pytest.raises(RuleError, match="must add up to 16"):
        score_run(ev, "free-pyramid", "pyramid-12ft", start_score={"A": 5, "B": 3})
    # a video that starts a game takes no start score
    b2 = StreamBuilder(PROFILE)
    b2.rack()
    b2.strike("Y").hit("Y", "1").end()
    with pytest.raises(MatchError, match="starts a game"):
        score_run(events_of(b2), "free-pyramid", "pyramid-12ft", start_score={"A": 1, "B": 0})
    for bad in ("3", "a:b", "-1:2", "1:2:3"):
        with pytest.raises(ArgumentError, match="--start-score"):
            parse_start_score(bad)


def test_players_rename_a_placeholder_score():
    ev = [make("table_state", 0.0, 0, game="five-ball", positions={}, score={"A": 0, "B": 3})]
    got = named_score(ev, ["Ann", "Bob"])
    assert got[0]["score"] == {"Ann": 0, "Bob": 3}
    assert named_score(ev, ["A", "B"])[0]["score"] == {"A": 0, "B": 3}


def test_players_and_inputs(tmp_path):
    assert parse_players("Ann, Bob") == ["Ann", "Bob"]
    for bad in ("Ann", "Ann,Ann", "Ann,", "Ann,Bob,Cy"):
        with pytest.raises(ArgumentError, match="--players needs two different names"):
            parse_players(bad)
    ev = [make("table_state", 0.5, 0, game="five-ball", positions={})]
    f = tmp_path / "in.jsonl"
    f.write_text('{"type": "foul", "t": 3.0, "kind": "push"}\n')
    ops = operator_inputs(ev, str(f), ["Ann", "Bob"])
    assert [o.type for o in ops] == ["players", "foul"] and ops[0].t == 0.5
    f.write_text('{"type": "collision", "t": 3.0, "a": "W1", "b": "K", "pos": [1, 1]}\n')
    with pytest.raises(MatchError, match="operator inputs only"):
        operator_inputs(ev, str(f), None)
    with pytest.raises(MatchError, match="not found"):
        operator_inputs(ev, str(tmp_path / "nope.jsonl"), None)


def test_distance_is_never_below_the_straight_line():
    rng = np.random.default_rng(3)
    pts = np.cumsum(rng.normal(0, 20, (60, 2)), axis=0) + 1000
    tr = stats.Track(np.arange(60) / 30.0, pts)
    d = stats.distance_mm(tr)
    straight = math.dist(np.median(pts[:3], axis=0), np.median(pts[-3:], axis=0))
    assert d >= straight - 40.0


def test_progress_bar_only_on_a_terminal(monkeypatch):
    import io
    import sys

    from luza.app.analyze import Bar

    class Tty(io.StringIO):
        def isatty(self):
            return True

    for tty, enabled, shown in ((True, True, True), (False, True, False), (True, False, False)):
        err = Tty() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        bar = Bar("tracking", enabled)
        for i in range(1, 11):
            bar(i, 10)
        bar.close()
        assert ("tracking" in err.getvalue() and "10" in err.getvalue()) == shown
