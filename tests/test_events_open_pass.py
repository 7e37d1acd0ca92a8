"""A ball rolling past a ball at rest, a few millimetres clear of it, did not hit it
(vision/events.py, ``_pair_reversals`` / ``_rests_through``): the pair's gap falls
near zero and rises again, and the camera's noise can turn the relative velocity
along the line of centres; but a ball hit moves, and this one stays at rest."""

from __future__ import annotations

import numpy as np
import pytest

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _close_pass(fps: float, seed: int, clear_mm: float):
    """(fp-penalty/1084) the yellow rolls at ~240 mm/s (slowing at 60 mm/s^2)
    past ball 8 at rest, its path ``clear_mm`` clear of touching."""
    rng = np.random.default_rng(seed)
    b8 = np.array([2303.0, 215.5])
    t0, accel = 0.5, 60.0
    u = np.array([-0.977, 0.213])  # the yellow's way
    nrm = np.array([u[1], -u[0]])  # towards ball 8 from the path (it passes on this side)
    v0 = 330.0
    # the closest point of the path to ball 8: 2R + clear_mm from its centre, at t = 2 s
    s_close = v0 * (2.0 - t0) - 0.5 * accel * (2.0 - t0) ** 2
    p_close = b8 - (2 * R + clear_mm) * nrm
    p0 = p_close - s_close * u
    frames = []
    for k in range(int(4.0 * fps)):
        t = k / fps
        s = 0.0 if t <= t0 else v0 * (t - t0) - 0.5 * accel * (t - t0) ** 2
        moving = t0 < t < t0 + v0 / accel
        s = min(s, v0 * v0 / (2 * accel))
        y = p0 + s * u
        sy = 1.2 if moving else 0.7
        y = y + rng.normal(0, sy, 2)
        b = b8 + rng.normal(0, 0.7, 2)
        frames.append(FrameObs(k, t, {"Y": tuple(y), "8": tuple(b)}, frozenset()))
    return frames


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_ball_rolling_close_past_a_ball_at_rest_hits_nothing(fps, seed):
    ev = extract_events(_close_pass(fps, seed, 3.9), PROFILE, "free-pyramid")
    assert [e["cue_ball"] for e in ev if e.type == "shot_start"] == ["Y"]
    assert [e for e in ev if e.type == "collision"] == []
    assert [e for e in ev if e.type == "ball_moved"] == []
