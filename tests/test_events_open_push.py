"""A slow ball pushing a ball at rest a few millimetres (vision/events.py,
``_rest_nudges`` timed by ``_pair_touch_time``): the struck ball never leaves its
rest, the striker slows through the touch, so its way in, fitted through samples
near the touch, reaches the ball frames late; the pair's gap, falling to zero and
rising again as they part, times the touch (dev fp-multi/1100 at 60 fps: 13 at
143 mm/s into 3, found 2 frames late: a miss and an extra)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from events_helpers import sampled_plain

from luza.calibration.profiles import load_profile
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _push(fps: float, seed: int, cut_deg: float, speed_mm_s: float):
    """13 struck at t = 1 s at ``speed_mm_s`` along +x into 3, 300 mm on, the line of
    centres ``cut_deg`` off its way: it arrives slowly and pushes 3 a little."""
    a0 = np.array([1500.0, 600.0])
    th = math.radians(cut_deg)
    b0 = a0 + np.array([300.0, 0.0]) + 2 * R * np.array([math.cos(th), math.sin(th)])
    tl = Timeline(PROFILE, {"13": tuple(a0), "3": tuple(b0)}, seed=seed)
    tl.wait(1.0)
    tl.strike(Strike("13", speed_mm_s, 0.0, 0.0, 0.0, 0.0), at_t=1.0)
    return sampled_plain(tl, fps, seed)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fps", [30.0, 60.0])
# (at 66 degrees -- 3 pushed 4 mm -- 2 of these 8 draws are still found ~0.11 s late:
# the gap's vertex fit refuses the touch and the way in's time stands)
@pytest.mark.parametrize("cut_deg", [70.0])
def test_a_slow_push_of_a_ball_at_rest_is_timed_by_the_pair_gap(fps, seed, cut_deg):
    frames, truth = _push(fps, seed, cut_deg, 395.0)
    hits = [e for e in truth if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in hits] == [("13", "3")]
    ev = extract_events(frames, PROFILE, "free-pyramid")
    cols = [e for e in ev if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in cols] == [("13", "3")]
    assert abs(cols[0].t - hits[0].t) <= 2.0 / fps


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_push_that_lies_against_the_ball_is_timed_by_the_way_in(fps):
    """13 arrives at ~80 mm/s, its way 60 degrees off the line of centres, and lies
    against 3 for frames as it pushes it ~4 mm (a nudge: 3 never leaves its rest).  The
    nearest of 13's samples to 3 comes frames after the touch; the way in fitted back
    from there was its way out (dev fp-multi/2290 at 30 fps: found 0.28 s early).  Over
    eight noise draws at least seven are timed within the benchmark's 2 frames, none
    beyond 4 (before: 3 of 8 at either rate, the worst 8 frames early at 30 fps, 11 late
    at 60)."""
    off = []
    for seed in range(8):
        frames, truth = _push(fps, seed, 60.0, 380.0)
        hits = [e for e in truth if e.type == "collision"]
        assert [(e["a"], e["b"]) for e in hits] == [("13", "3")]
        cols = [e for e in extract_events(frames, PROFILE, "free-pyramid") if e.type == "collision"]
        assert [(e["a"], e["b"]) for e in cols] == [("13", "3")]
        off.append(abs(cols[0].t - hits[0].t) * fps)
    assert sum(f <= 2.0 for f in off) >= 7, off
    assert max(off) <= 4.0, off
