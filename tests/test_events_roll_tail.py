"""A ball creeping to a stop looks still for a moment, then moves on a few mm the way it
rolled: the tail of its own roll, not a ball moved by nothing (LukasSeglias video_12's
white: a false ``ball_moved`` flagged for the referee).  A still ball that sets off
another way a moment later is still flagged."""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
START = np.array([800.0, 500.0])
WAY = np.array([0.6, 0.8])  # the white's heading
OTHER = (2500.0, 1200.0)  # a ball at rest far away


def scene(tail_way: np.ndarray, tail_mm: float = 6.0) -> list[FrameObs]:
    """The white struck at frame 10 (800 mm/s, slowing at 400 mm/s^2), creeping 1 mm a
    frame-pair near its end, 0.3 s all but still, then ``tail_mm`` on along ``tail_way``
    in two frames, then still."""
    frames = []
    v0, decel = 800.0, 400.0
    t_stop = v0 / decel
    k_stop = 10 + int(t_stop * FPS)
    end = START + WAY * (v0 * t_stop - 0.5 * decel * t_stop**2)
    for k in range(k_stop + 60):
        if k < 10:
            p = START
        elif k <= k_stop:
            t = (k - 10) / FPS
            p = START + WAY * (v0 * t - 0.5 * decel * t * t)
        elif k <= k_stop + 9:
            p = end + WAY * 0.3 * (k - k_stop)  # all but still: 9 mm/s
        elif k == k_stop + 10:
            p = end + WAY * 2.7 + tail_way * tail_mm / 2
        else:
            p = end + WAY * 2.7 + tail_way * tail_mm
        frames.append(FrameObs(k, k / FPS, {"Y": (float(p[0]), float(p[1])), "2": OTHER}))
    return frames


def _moved(ev) -> list:
    return [e for e in ev if e.type == "ball_moved"]


def test_a_roll_going_on_the_same_way_is_no_ball_moved():
    ev = extract_events(scene(WAY), PROFILE, "free-pyramid")
    assert not _moved(ev)
    assert [e.type for e in ev].count("shot_start") == 1


def test_a_still_ball_setting_off_sideways_is_flagged():
    side = np.array([-WAY[1], WAY[0]])
    ev = extract_events(scene(-side), PROFILE, "free-pyramid")
    assert [e["ball"] for e in _moved(ev)] == ["Y"]
