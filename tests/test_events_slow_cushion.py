"""A slow ball's cushion touch (``_cushion_reversals``): three samples each side of the
touch move by little more than the noise, so the gap's lines through them may not fall
or rise at all; lines through up to ``REVERSAL_SIDE_SAMPLES_SLOW`` samples each side
(within ``REVERSAL_SIDE_S``) then look again."""

from __future__ import annotations

import numpy as np
from events_helpers import rest_way_rest

from luza.calibration.profiles import load_profile
from luza.vision import events, gap_series
from luza.vision.events import extract_events
from luza.vision.gap_series import gap_vertex

PROFILE = load_profile("pyramid-12ft")

# ball 14 of fp-rally (seed 1766) at 60 fps from 6.2 s as the tracker gives it (the noise
# of vision/events_truth.py): rolling at 0.2 m/s into the foot cushion, it touches it at
# 6.4476 s (the sample at 6.45 s reads 0.5 mm into it) and comes back off at 0.1 m/s.
# Its gap to the foot cushion's contact line (mm), one sample a frame.  Three samples
# before the closest: 4.0, 5.6, 3.2 (falling 24 mm/s); three after it: 4.2, 2.7, 3.7
# (falling again): the touch was missed.
GAP_14 = np.array([
    32.9, 28.8, 26.1, 25.2, 22.5, 22.4, 18.0, 15.8, 14.1, 11.0, 10.4, 8.5, 4.0, 5.6, 3.2,
    -0.5, 4.2, 2.7, 3.7, 4.7, 6.1, 5.1, 6.4, 6.5, 7.3, 11.1, 9.6, 10.6,
])  # fmt: skip
TS_14 = 6.2 + np.arange(len(GAP_14)) / 60.0
CLOSEST = int(np.argmin(GAP_14))
TOUCH_T = 6.4476


def test_three_samples_a_side_miss_a_slow_balls_touch():
    snap = events.REVERSAL_SNAP_FRAC
    assert gap_vertex(TS_14, GAP_14, CLOSEST, snap_frac=snap) is None


def test_more_samples_a_side_find_it_at_the_touch():
    hit = gap_vertex(
        TS_14,
        GAP_14,
        CLOSEST,
        snap_frac=events.REVERSAL_SNAP_FRAC,
        side=events.REVERSAL_SIDE_SAMPLES_SLOW,
    )
    assert hit is not None
    t_c, gap0 = hit[:2]
    assert abs(t_c - TOUCH_T) <= 2.0 / 60.0
    assert abs(gap0) <= gap_series.REVERSAL_TOL_MM
    # a ball rolling past the cushion 6 mm off it, as slowly, turns no gap: no touch
    past = 6.0 + 0.1 * np.arange(len(GAP_14))
    assert gap_vertex(TS_14, past, CLOSEST, snap_frac=events.REVERSAL_SNAP_FRAC, side=6) is None


# the same ball's positions from 6.1 s (one a frame), the whole way in and back off:
# seen set off from rest 40 frames in, then at rest where it stopped
WAY_14 = [
    (3468.4, 1645.6), (3471.7, 1648.4), (3473.1, 1648.6), (3476.7, 1648.3), (3479.0, 1650.6),
    (3481.3, 1651.7), (3483.1, 1653.6), (3487.2, 1655.1), (3489.9, 1657.6), (3490.8, 1658.6),
    (3493.5, 1658.5), (3493.6, 1660.8), (3498.0, 1661.2), (3500.2, 1660.9), (3501.9, 1663.7),
    (3505.0, 1662.1), (3505.6, 1665.9), (3507.5, 1666.2), (3512.0, 1669.3), (3510.4, 1668.6),
    (3512.8, 1668.3), (3516.5, 1669.5), (3511.8, 1669.4), (3513.3, 1670.5), (3512.3, 1670.8),
    (3511.3, 1673.1), (3509.9, 1672.9), (3510.9, 1674.1), (3509.6, 1675.1), (3509.5, 1672.8),
    (3508.7, 1674.3), (3504.9, 1674.5), (3506.4, 1675.1), (3505.4, 1676.9), (3506.0, 1679.5),
    (3503.1, 1678.1), (3501.1, 1678.9), (3505.0, 1678.5), (3501.7, 1680.1), (3502.7, 1679.5),
    (3501.0, 1679.1), (3501.3, 1680.6), (3501.0, 1680.7), (3499.8, 1680.8), (3499.1, 1682.1),
]  # fmt: skip
N_REST = 40


def test_a_slow_balls_cushion_touch_is_in_the_event_stream():
    frames = rest_way_rest("14", WAY_14[0], WAY_14, {"3": (1000.0, 900.0)}, 60.0, N_REST, 60)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    touches = [e for e in ev if e.type == "cushion" and e["ball"] == "14"]
    assert [e["cushion"] for e in touches] == ["foot"]  # before: none
    assert abs(touches[0].t - (N_REST / 60.0 + TOUCH_T - 6.1)) <= 2.0 / 60.0
