"""A rack seen by a low camera through a wide lens: every ball in it is a ball, fitted.

The clutter test (is a peak a finger in a hand?) reads a ring 1.6 radii around each
peak.  It drew that ring with the bed's *smallest* ball radius, the far corners'; a
camera 2.5 m up through a strongly barrel-distorted lens sees a ball in the middle of
the bed ~30 % larger, so the ring lay on the ball's own rim and in the gaps of the
rack: 8 and 12 of the 15 rack balls read as cluttered in fp-break_s10603_1080p60 and
fp-break_s10621_720p30, were left without a rim fit, and sat 3-6 mm off for the whole
pre-break (those clips' rest p95 5.7 and 4.7 mm).  The ring is now drawn with the
ball's own radius where it lies.
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.physics.state import BallPose
from luza.vision.detect import REFINE_MIN_SCORE, BallDetector

PYR = load_profile("pyramid-12ft")


@pytest.fixture(scope="module")
def low_rack():
    cam = pyramid_camera(PYR, (1280, 720), height_mm=2540.0, dist=(-0.3, 0.03, 0.0, 0.0, 0.0))
    rack = {str(k + 1): p for k, p in enumerate(PYR.rack_positions())}
    pos = {**rack, "Y": (PYR.length_mm / 4, PYR.width_mm / 2 + 150.0)}
    poses = {b: BallPose(x, y, 0.0, np.eye(3)) for b, (x, y) in pos.items()}
    img = renderer(cam, PYR, seed=5).render(poses, t=1.0)
    return cam, pos, img


def test_the_case_a_rack_ball_looks_far_larger_than_the_smallest(low_rack):
    cam, pos, _ = low_rack
    det = BallDetector(cam, PYR)
    wxy = det._to_work(cam.project(np.array([pos["5"]]), det.R_mm))
    assert det._radius_rel(wxy)[0] > 1.2


def test_no_rack_ball_reads_as_clutter_and_each_is_fitted(low_rack):
    """Measured: every ball scores 1.0; centres median 1.25, largest 2.17 mm (before:
    four rack balls at 0.3, unfitted; median 1.54, largest 3.91 mm)."""
    cam, pos, img = low_rack
    det = BallDetector(cam, PYR).detect(img)
    err = []
    for b, p in pos.items():
        d = np.linalg.norm(det.xy_mm - np.array(p), axis=1)
        i = int(np.argmin(d))
        assert d[i] < 15.0, b
        assert det.score[i] >= REFINE_MIN_SCORE, (b, det.score[i])
        err.append(d[i])
    err = np.array(err)
    assert np.median(err) < 1.45 and err.max() < 3.0, err.round(2)


def test_the_radius_map_is_the_expected_radius_where_it_is_read(low_rack):
    """``_radius_rel`` reads a map made once: the per-point arithmetic to the last bits
    (sums over many rows at once may round differently; the pipeline's outputs on four
    clips were bit-identical when the map replaced the per-call sums)."""
    cam, _, _ = low_rack
    det = BallDetector(cam, PYR)
    h, w = det._xy_mm_map.shape[:2]
    rng = np.random.default_rng(1)
    wxy = np.column_stack([rng.uniform(-3, w + 3, 50), rng.uniform(-3, h + 3, 50)])
    ix = np.clip(np.rint(wxy[:, 0]).astype(int), 0, w - 1)
    iy = np.clip(np.rint(wxy[:, 1]).astype(int), 0, h - 1)
    want = det.expected_radius_px(det._xy_mm_map[iy, ix]) * det.scale / det.r_work
    assert np.allclose(det._radius_rel(wxy), want, rtol=1e-12, atol=0.0)
