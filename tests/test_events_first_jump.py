"""The cue ball struck at 3.5 m/s into a ball lying 18 mm beyond touching, then on
into a third ball within the same frame (vision/events.py, ``_bent_off_anchor``):
both balls leave their anchors between two frames, and the cue ball's first piece
-- samples after both hits, slowed and turned -- run back, passes far from its rest,
so it was followed back to a late start and the struck ball, leaving earlier, was
named the cue ball.  Its first sample left its rest straight and fast (40 mm in a
frame): a piece of its own, that gives the start (dev fp-rally/1426, 30 and 60 fps)."""

from __future__ import annotations

import pytest
from events_helpers import sampled_plain

from luza.calibration.profiles import load_profile
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")

# the layout and the stroke of fp-rally/1426 at t 30.57 s
LAYOUT = {"5": (2782.745, 898.195), "6": (2818.212, 976.327), "3": (2720.668, 983.679)}


def _double_hit(fps: float, seed: int, phase_s: float):
    """The stroke ``phase_s`` after a frame (4.3 ms on 1426), with its spin."""
    tl = Timeline(PROFILE, LAYOUT, seed=seed)
    tl.wait(1.0 + phase_s)
    tl.strike(Strike("5", 3450.0, 1.9355, 0.408, -0.171, 0.0), at_t=1.0 + phase_s)
    return sampled_plain(tl, fps, seed)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("phase_s", [0.001, 0.003, 0.0043])
@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_the_cue_ball_that_hit_two_balls_in_its_first_frame_stays_the_cue_ball(fps, phase_s, seed):
    frames, truth = _double_hit(fps, seed, phase_s)
    # the physics: 5 hit 6, then 3, both within the frame of the strike
    hits = [e for e in truth if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in hits[:2]] == [("5", "6"), ("5", "3")]
    assert hits[1].t - 1.0 - phase_s < 1.0 / fps
    ev = extract_events(frames, PROFILE, "free-pyramid")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["5"]
    cols = [e for e in ev if e.type == "collision"]
    assert cols and cols[0]["a"] == "5"
    assert {c["b"] for c in cols if c["a"] == "5"} >= {"6", "3"}
