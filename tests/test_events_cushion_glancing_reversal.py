"""A glancing touch of a nose found by the gap's reversal, timed by the gap's V.

A ball rolling at a nose at a shallow angle (here 60 mm/s across it, 18 mm/s off it
after) turns its gap so little that the smallest sample near the nose falls frames
after the touch: the reversal's lines, fitted over three samples each side of that
sample, met 6.5 frames late at 60 fps (dev fp-rally/2633, ball 11 along the
left-foot nose, truth 27.241 s, found 27.348 s). The V over the whole run of samples
near the nose (``_touch_time``, used already for touches found at a break) puts the
touch at 27.219 s.

Samples: ball 11 of fp-rally (seed 2633) at 60 fps from 26.617 s as the tracker gives
it (the noise of ``vision/events_truth.py``), started from rest where it was seen at
26.600 s; the other balls are left out."""

from __future__ import annotations

from events_helpers import other_ball, rest_way_rest

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0
N_REST = 60
REST = (3317.1, 76.7)
WAY = [
    (3323.8, 73.4), (3322.5, 73.3), (3326.3, 70.9), (3328.6, 70.2), (3330.6, 71.4),
    (3333.0, 66.7), (3338.7, 66.9), (3340.1, 67.9), (3343.6, 66.4), (3349.3, 64.0),
    (3351.3, 61.6), (3355.1, 63.3), (3360.8, 59.6), (3363.8, 60.9), (3365.0, 58.6),
    (3370.3, 58.2), (3373.6, 56.4), (3376.6, 50.9), (3381.0, 53.3), (3382.2, 54.6),
    (3385.1, 53.0), (3387.8, 51.7), (3391.8, 49.0), (3396.4, 48.6), (3399.8, 46.8),
    (3401.3, 45.5), (3405.9, 45.8), (3408.3, 42.7), (3412.7, 42.9), (3415.2, 43.3),
    (3418.3, 41.6), (3420.7, 40.1), (3422.6, 39.2), (3427.0, 38.0), (3430.9, 36.1),
    (3433.1, 34.5), (3435.9, 34.4), (3438.4, 35.9), (3440.5, 35.1), (3443.1, 34.8),
    (3446.0, 35.9), (3448.2, 35.7), (3447.8, 36.8), (3451.4, 34.3), (3455.2, 35.0),
    (3456.5, 35.2), (3461.6, 38.8), (3460.2, 37.6), (3464.0, 36.5), (3467.2, 38.3),
    (3467.4, 36.7), (3469.3, 38.1), (3470.7, 36.8), (3475.8, 37.9), (3474.6, 37.6),
    (3477.6, 38.4), (3481.2, 40.1), (3483.0, 39.3), (3483.3, 40.1), (3485.9, 42.3),
    (3488.8, 40.3), (3488.5, 42.2), (3490.0, 40.4), (3493.9, 41.2), (3493.4, 41.2),
    (3496.6, 41.8), (3498.1, 40.8), (3497.2, 40.7), (3498.2, 42.2), (3500.6, 42.9),
    (3504.2, 42.4), (3505.0, 40.4), (3504.3, 43.0), (3507.6, 41.2), (3508.4, 43.8),
    (3508.3, 43.8), (3510.3, 43.0), (3513.0, 43.3),
]  # fmt: skip
T0 = 26.6167  # the scene's time of WAY[0]
TOUCH_S = N_REST / FPS + 27.2408 - T0  # the truth's touch of the left-foot nose


def test_a_glancing_touch_found_by_the_reversal_is_timed_by_the_gaps_v():
    frames = rest_way_rest("11", REST, WAY, {other_ball("11"): (1000.0, 300.0)}, FPS, N_REST, 60)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    touches = [e.t for e in ev if e.type == "cushion" and e["cushion"] == "left-foot"]
    assert len(touches) == 1, touches
    assert abs(touches[0] - TOUCH_S) <= 2.0 / FPS, (touches, TOUCH_S)
