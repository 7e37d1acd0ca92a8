"""The frame -> work shrink runs at a whole-number ratio where the ball size allows.

OpenCV's area mean (INTER_AREA) has a fast path only at a whole-number ratio: at a
1080p ball of 14.02 px the plain scale, 7 / 14.02 = 0.4992, took the general path, ~10
times the 2:1 mean's cost, in every searched window of every frame.  The detector
takes the scale as 1/k when it is within ``WORK_SCALE_SNAP_FRACTION`` of it and widens
its region of interest to whole k-pixel steps, so every window is an exact k:1 mean.
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer
from scipy.optimize import linear_sum_assignment

from luza.calibration.profiles import load_profile
from luza.vision.detect import (
    WORK_RADIUS_PX,
    WORK_SCALE_SNAP_FRACTION,
    BallDetector,
    _snapped_scale,
    _whole_steps,
)

PROFILE = load_profile("pyramid-12ft")


def test_a_scale_near_one_half_is_one_half_and_others_are_kept():
    assert _snapped_scale(WORK_RADIUS_PX / 14.02) == 0.5  # a 1080p ball
    assert _snapped_scale(WORK_RADIUS_PX / 11.46) == 0.5  # a small 1080p ball (0.61)
    assert _snapped_scale(WORK_RADIUS_PX / 27.0) == 0.25  # 4K
    # up only by a rounding's worth: a real 720p clip's 15.1 px ball keeps 0.4628 (its
    # struck white's streaks were lost with a work radius 8 % larger)
    assert _snapped_scale(WORK_RADIUS_PX / 15.13) == pytest.approx(WORK_RADIUS_PX / 15.13)
    s720 = WORK_RADIUS_PX / 9.35  # a 720p ball: 0.75, no whole ratio near
    assert _snapped_scale(s720) == pytest.approx(s720)
    assert _snapped_scale(2.0) == 1.0  # a small image is not enlarged
    far = (1.0 + WORK_SCALE_SNAP_FRACTION) / 2.0 + 0.02  # beyond the reach of 1/2
    assert _snapped_scale(far) == pytest.approx(far)


def test_a_span_is_widened_to_whole_steps_inside_the_image():
    assert _whole_steps(131, 1781, 1920, 0.5) == (131, 1781)  # already even
    assert _whole_steps(131, 1782, 1920, 0.5) == (131, 1783)
    assert _whole_steps(100, 1920, 1920, 0.5) == (100, 1920)
    assert _whole_steps(101, 1920, 1920, 0.5) == (100, 1920)  # shifted back from the edge
    a, b = _whole_steps(7, 1000, 1080, 0.25)
    assert (b - a) % 4 == 0 and a <= 7 and b >= 1000 and b <= 1080
    assert _whole_steps(10, 21, 100, 0.7) == (10, 21)  # no whole ratio: unchanged


@pytest.fixture(scope="module")
def scene_1080p():
    cam = pyramid_camera(PROFILE, (1920, 1080), fill=0.8)  # a 12.6 px ball: 0.55 -> 0.5
    table = renderer(cam, PROFILE, seed=5)
    L, W = PROFILE.size_mm
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions())]
    balls += [("Y", L / 4, W / 2), ("16", 900.0, 300.0)]
    return cam, balls, table.render(poses(balls), t=5.0)


def test_at_1080p_the_work_image_is_the_exact_two_to_one_mean(scene_1080p):
    cam, _, img = scene_1080p
    det = BallDetector(cam, PROFILE)
    assert det.scale == 0.5
    x0, y0, x1, y1 = det.roi
    assert (x1 - x0, y1 - y0) == (2 * det.work_size[0], 2 * det.work_size[1])
    crop = img[y0:y1, x0:x1].astype(np.int32)
    mean = (crop[0::2, 0::2] + crop[1::2, 0::2] + crop[0::2, 1::2] + crop[1::2, 1::2] + 2) // 4
    assert np.abs(det.work_image(img).astype(np.int32) - mean).max() <= 1


def test_at_1080p_every_ball_is_found(scene_1080p):
    cam, balls, img = scene_1080p
    det = BallDetector(cam, PROFILE).detect(img)
    truth = np.array([(x, y) for _, x, y in balls])
    d = np.linalg.norm(det.xy_mm[:, None] - truth[None], axis=2)
    r, c = linear_sum_assignment(d)
    assert len(det) == len(balls)
    # 1080p: ~2.3 mm a pixel; the rack's touching balls within 1.6 px (as unsnapped)
    assert np.median(d[r, c]) < 2.3 and d[r, c].max() < 4.0
