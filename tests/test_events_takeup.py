"""Streams that start mid-game: the event stage marks a take-up the rules can score."""

from __future__ import annotations

from pathlib import Path

import pytest

from luza.calibration.profiles import load_profile
from luza.cli import main as luza_main
from luza.events import read_jsonl
from luza.rules.record import score_items
from luza.rules.stream import parse_items
from luza.vision.events import FrameObs, extract_events, is_break_setup, take_up_score

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0
CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"


def one_stroke(still: dict[str, tuple[float, float]], cue: str) -> list[FrameObs]:
    """Every ball at rest for 1 s, then ``cue`` rolls 400 mm along +y and stops."""
    out = []
    x0, y0 = still[cue]
    for k in range(int(3.0 * FPS)):
        t = k / FPS
        seen = dict(still)
        if t > 1.0:
            s = min(t - 1.0, 0.4) / 0.4
            seen[cue] = (x0, y0 + 400.0 * (2 * s - s * s))  # decelerating to rest
        out.append(FrameObs(k, t, seen))
    return out


def stream_of(events):
    return list(parse_items((e.to_json() for e in events), "test"))


def test_a_mid_game_table_gets_a_score_the_rules_accept():
    still = {"Y": (800.0, 400.0), "3": (2000.0, 900.0), "7": (3000.0, 300.0)}
    ev = extract_events(one_stroke(still, "Y"), PROFILE, "free-pyramid")
    ts = ev[0]
    assert ts.type == "table_state" and ts["take_up"] is True
    assert sum(ts["score"].values()) == 16 - 3  # every ball off the table is a point
    scored = score_items(stream_of(ev), None, "pyramid-12ft", {})
    assert [r.cue_ball for r in scored.rulings] == ["Y"]
    assert sum(scored.rulings[0].score.values()) == 13


def test_a_break_rack_is_left_a_break():
    rack = PROFILE.rack_positions(5)
    still = {str(i + 1): p for i, p in enumerate(rack)}
    still["Y"] = (PROFILE.length_mm / 8, PROFILE.width_mm / 2)
    assert is_break_setup(still, PROFILE, "free-pyramid")
    ev = extract_events(one_stroke(still, "Y"), PROFILE, "free-pyramid")
    assert "score" not in ev[0].data and "take_up" not in ev[0].data
    # one ball nudged off its rack point by more than a radius: no longer the rack
    moved = dict(still, **{"5": (rack[4][0] + 1.5 * R, rack[4][1])})
    assert not is_break_setup(moved, PROFILE, "free-pyramid")


def test_take_up_scores_add_up():
    for n in range(2, 17):
        s = take_up_score(n, "free-pyramid")
        assert sum(s.values()) == 16 - n and abs(s["A"] - s["B"]) <= 1
    assert take_up_score(5, "five-ball") == {"A": 0, "B": 0}


def test_five_ball_set_up_and_a_game_in_play():
    sp = PROFILE.spots
    setup = {
        "K": sp["fb-centre"],
        "R1": sp["fb-head-line"],
        "R2": sp["fb-foot-line"],
        "W2": sp["fb-foot-end"],
        "W1": (300.0, 700.0),
    }
    assert is_break_setup(setup, PROFILE, "five-ball")
    in_play = dict(setup, K=(1200.0, 500.0))
    assert not is_break_setup(in_play, PROFILE, "five-ball")
    ev = extract_events(one_stroke(in_play, "W1"), PROFILE, "five-ball")
    assert ev[0]["score"] == {"A": 0, "B": 0} and ev[0]["take_up"] is True
    score_items(stream_of(ev), None, "pyramid-12ft", {})


@pytest.mark.parametrize("clip", ["fp-penalty_s0_720p30", "fp-pots_s0_1080p60"])
def test_track_then_score_a_clip_that_starts_mid_game(clip, tmp_path, capsys):
    video = CLIPS / f"{clip}.mp4"
    if not video.is_file():
        pytest.skip("bundled clip missing")
    out = tmp_path / "events.jsonl"
    args = ["track", str(video), "--calibration", str(CLIPS / f"{clip}.truth.json")]
    rc = luza_main([*args, "--game", "free-pyramid", "-o", str(out), "--quiet"])
    assert rc == 0
    ev = read_jsonl(out)
    assert ev[0]["take_up"] is True
    assert luza_main(["score", str(out)]) == 0
    assert "final:" in capsys.readouterr().out


def test_a_profile_without_five_ball_spots_uses_the_rule_fractions():
    snooker = load_profile("snooker-lukasseglias")
    L, W = snooker.length_mm, snooker.width_mm
    setup = {"K": (L / 2, W / 2), "R1": (L / 4, W / 2), "R2": (3 * L / 4, W / 2)}
    setup.update(W1=(100.0, 100.0), W2=(200.0, 100.0))
    assert is_break_setup(setup, snooker, "five-ball")
    assert not is_break_setup(dict(setup, K=(L / 3, W / 3)), snooker, "five-ball")
