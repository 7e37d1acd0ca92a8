"""When a stroke started: a cue ball the cue hid at the strike, first seen on its way."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import frame_at

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0


frame = frame_at(FPS)


def test_a_cue_ball_hidden_at_the_strike_and_seen_once_before_a_hit_started_when_it_left():
    # the cue covers the white from frame 30; it is struck at frame 39 at 3 m/s, seen
    # once 100 mm on (frame 40), and hits the red half a frame later: its first piece
    # is that one sample, and the piece after it is the slow way on after the hit
    speed_mm_s = 3000.0
    t_strike = 39 / FPS
    white0, red0 = (1000.0, 900.0), (1000.0 + 150.0 + 2 * R, 900.0)
    t_hit = t_strike + 150.0 / speed_mm_s
    hit_at = (red0[0] - 2 * R, red0[1])
    frames = [frame(k, {"Y": white0, "2": red0}) for k in range(30)]
    frames += [frame(k, {"2": red0}, hidden={"Y"}) for k in range(30, 40)]
    frames.append(frame(40, {"Y": (white0[0] + 100.0, white0[1]), "2": red0}))
    for k in range(41, 100):
        s = min(k / FPS - t_hit, 0.8)
        white = (hit_at[0] + 100.0 * s - 60.0 * s * s, hit_at[1] + 300.0 * s - 180.0 * s * s)
        red = (red0[0] + 2800.0 * s - 1700.0 * s * s, red0[1])
        frames.append(frame(k, {"Y": white, "2": red}))
    ev = extract_events(frames, PROFILE, "free-pyramid")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["Y"]
    # before: the last sample at rest (frame 29, ten frames early)
    assert abs(starts[0].t - t_strike) <= 1.0 / FPS
    assert [(e["a"], e["b"]) for e in ev if e.type == "collision"] == [("Y", "2")]


@pytest.mark.parametrize("seed", range(5))
def test_a_glancing_touch_of_a_nose_is_timed_at_the_touch_not_at_the_bend(seed):
    # (fb-rally/397) a ball rolling along the right-head cushion meets it at 40 mm/s
    # across and leaves at 15 mm/s, the cushion's grip taking 60 mm/s off its roll:
    # the bend is so small that the path's break falls frames after the touch, and
    # the piece before it, followed on, reaches the nose late.  The gap to the nose
    # falls, then rises: the touch is timed where the two meet.
    rng = np.random.default_rng(seed)
    y_touch = PROFILE.width_mm - R
    t_strike, t_touch, vy_in, vy_out = 1.0, 2.0, 40.0, -15.0
    y0 = y_touch - vy_in * (t_touch - t_strike)
    x_touch = 1500.0 - 400.0 + 100.0
    frames = []
    for k in range(150):
        t = k / FPS
        if t <= t_touch:
            s = max(t - t_strike, 0.0)  # rolling, slowing down at 200 mm/s2
            x, y = 1500.0 - 400.0 * s + 100.0 * s * s, y0 + vy_in * s
        else:
            s = min(t - t_touch, 0.7)  # 140 mm/s left after the touch, to rest
            x, y = x_touch - 140.0 * s + 100.0 * s * s, y_touch + vy_out * s
        jitter = rng.normal(0.0, 1.0, 2) if t > t_strike else (0.0, 0.0)
        frames.append(frame(k, {"Y": (x + jitter[0], y + jitter[1])}))
    ev = extract_events(frames, PROFILE, "free-pyramid")
    touches = [e for e in ev if e.type == "cushion"]
    assert [e["cushion"] for e in touches] == ["right-head"]
    # within the benchmark's 2 frames (before: 3-4 frames late)
    assert abs(touches[0].t - t_touch) <= 2.0 / FPS
