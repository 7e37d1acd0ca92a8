"""The cue ball of a stroke into a ball it (nearly) touches (vision/events.py,
``_cue_first``): both leave their anchors within the frame, so which left first is
the camera's noise; the struck ball leaves along the line of centres, away from
the striker, and the striker keeps its way across that line."""

from __future__ import annotations

import math

import numpy as np
import pytest
from events_helpers import rolled

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _near_frozen_cut(fps: float, seed: int, gap_mm: float, cut_deg: float):
    """Ball 5 struck at t = 1.0 s at 1.9 m/s into ball 3, ``gap_mm`` away (fp-rally/1188:
    4.6 mm, the hit 2.4 ms after the strike); the line of centres ``cut_deg`` off 5's
    way.  3 leaves along it with 5's velocity component there, 5 keeps the rest (equal
    masses); both slow down at 300 mm/s^2.  Positions jittered like the tracker's."""
    rng = np.random.default_rng(seed)
    t_strike, speed, accel = 1.0, 1900.0, 300.0
    a0 = np.array([2786.0, 887.0])
    th = math.radians(cut_deg)
    u = np.array([-math.cos(0.2), -math.sin(0.2)])  # 5's way
    # the line of centres at the touch: u turned by the cut angle
    n = np.array(
        [u[0] * math.cos(th) - u[1] * math.sin(th), u[0] * math.sin(th) + u[1] * math.cos(th)]
    )
    # 5 touches 3 after travelling s_hit; 3 stands 2R along n from there
    b0 = None
    for s_hit in np.linspace(0.0, 3 * gap_mm + 5, 400):
        c = a0 + s_hit * u + 2 * R * n
        if abs(float(np.linalg.norm(c - a0)) - (2 * R + gap_mm)) < 0.05:
            b0 = c
            break
    assert b0 is not None
    t_hit = t_strike + s_hit / speed
    a_hit = a0 + s_hit * u
    v5 = speed * u
    vn = float(v5 @ n)
    v5_out, v3_out = v5 - vn * n, vn * n

    frames = []
    for k in range(int(3.0 * fps)):
        t = k / fps
        if t <= t_strike:
            a = a0
        elif t <= t_hit:
            a = a0 + v5 * (t - t_strike)
        else:
            a = rolled(a_hit, v5_out, t - t_hit, accel)
        b = b0 if t <= t_hit else rolled(b0, v3_out, t - t_hit, accel)
        sa = 0.7 if t <= t_strike else 2.0
        sb = 0.7 if t <= t_hit else 2.0
        a = a + rng.normal(0, sa, 2)
        b = b + rng.normal(0, sb, 2)
        frames.append(FrameObs(k, t, {"5": tuple(a), "3": tuple(b)}, frozenset()))
    return frames, t_strike


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fps", [30.0, 60.0])
@pytest.mark.parametrize("cut_deg", [40.0, 60.0])
def test_the_striker_of_a_near_frozen_ball_is_the_cue_ball(fps, seed, cut_deg):
    frames, t_strike = _near_frozen_cut(fps, seed, 4.6, cut_deg)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["5"]
    assert abs(starts[0].t - t_strike) <= 1.0 / fps
    cols = [e for e in ev if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in cols] == [("5", "3")]
