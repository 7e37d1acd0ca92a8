"""The cue ball struck fast into a ball lying a few millimetres beyond touching
(vision/events.py, ``_cue_first``): at 3 m/s the striker closes a 6.6 mm gap in
2 ms, so both leave their anchors within the frame, and the struck ball -- slowed
hard while it slides -- is followed back to its anchor earlier than the striker.
The order is told by the ways they leave, as for touching balls: the gap a stroke
closes within one frame is no reason to give up on it (fp-rally/1392, 30 fps: the
struck 11 named the cue ball)."""

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


def _thin_cut_from_a_gap(fps: float, seed: int, gap_mm: float, speed_mm_s: float):
    """13 struck at t = 1 s at ``speed_mm_s`` into 11, lying ``gap_mm`` beyond touching
    across 13's way (the line of centres 77 degrees off it, as on fp-rally/1392)."""
    c13 = np.array([3457.0, 864.0])
    way = math.atan2(-341.0, -2998.0)  # 13's way on 1392
    u = np.array([math.cos(way), math.sin(way)])
    cut = math.radians(77.0)
    n = np.array(
        [u[0] * math.cos(cut) - u[1] * math.sin(cut), u[0] * math.sin(cut) + u[1] * math.cos(cut)]
    )
    # 13 touches 11 after travelling s; 11 lies 2R along n from there, 2R + gap from 13
    s = next(
        s
        for s in np.linspace(0.0, 4 * gap_mm + 10.0, 4000)
        if np.linalg.norm(s * u + 2 * R * n) >= 2 * R + gap_mm
    )
    c11 = c13 + s * u + 2 * R * n
    tl = Timeline(PROFILE, {"13": tuple(c13), "11": tuple(c11)}, seed=seed)
    tl.wait(1.0)
    tl.strike(Strike("13", speed_mm_s, way, 0.0, 0.0, 0.0), at_t=1.0)
    frames, truth = sampled_plain(tl, fps, seed)
    return frames, truth


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_the_cue_ball_struck_fast_across_a_small_gap_stays_the_cue_ball(fps, seed):
    frames, truth = _thin_cut_from_a_gap(fps, seed, 6.6, 3000.0)
    # the physics: 13 hit 11 within a frame of the strike
    hits = [e for e in truth if e.type == "collision"]
    assert {hits[0]["a"], hits[0]["b"]} == {"13", "11"}
    assert hits[0].t - 1.0 < 1.0 / fps
    ev = extract_events(frames, PROFILE, "free-pyramid")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["13"]
    cols = [e for e in ev if e.type == "collision"]
    assert cols and (cols[0]["a"], cols[0]["b"]) == ("13", "11")
