"""White 1 (one dot) vs white 2 (two dots): the CNN on rendered balls, marks near the limb."""

from __future__ import annotations

import numpy as np
import pytest
from identify_helpers import model_identifier
from render_helpers import pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.models.train_ball_classifier import random_rotation
from luza.physics.state import BallPose
from luza.vision.detect import BallDetector
from luza.vision.identify import ball_crop, crop_pixels, normalise_crop

PROFILE = load_profile("pyramid-12ft")
# Where the whites stand: the middle of the bed, near a cushion, near a corner.
SPOTS_MM = [(700.0, 400.0), (1300.0, 1400.0), (1900.0, 300.0), (2500.0, 1000.0), (3100.0, 1500.0)]


def test_crop_is_the_normalised_crop_pixels():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (120, 160, 3), dtype=np.uint8)
    px = crop_pixels(img, (70.3, 50.8), 14.2)
    assert px.dtype == np.uint8 and px.shape[2] == 3
    assert np.array_equal(normalise_crop(px), ball_crop(img, (70.3, 50.8), 14.2))


@pytest.fixture(scope="module")
def whites_1080p():
    ident = model_identifier("five-ball")
    cam = pyramid_camera(PROFILE, (1920, 1080))
    rend = renderer(cam, PROFILE, game="five-ball", seed=11)
    det = BallDetector(cam, PROFILE)
    return ident, rend, det


def test_cnn_tells_white_1_from_white_2_at_1080p(whites_1080p):
    ident, rend, detector = whites_1080p
    rng = np.random.default_rng(2026)
    rotate = random_rotation
    right = total = 0
    for k in range(3):
        # W1 on one spot, W2 on the next, swapped each render
        pos = {b: SPOTS_MM[(i + k) % len(SPOTS_MM)] for i, b in enumerate(("W1", "W2", "R1", "K"))}
        poses = {b: BallPose(x, y, 0.0, rotate(rng)) for b, (x, y) in pos.items()}
        img = rend.render(poses, t=float(k))
        det = ident.identify(img, detector.detect(img))
        for b in ("W1", "W2"):
            i = int(np.argmin(np.linalg.norm(det.xy_mm - np.array(pos[b]), axis=1)))
            assert np.linalg.norm(det.xy_mm[i] - pos[b]) < 10.0, "the ball is found"
            p = det.cls_prob[i]
            total += 1
            right += det.classes[int(np.argmax(p[:2]))] == b  # W1 vs W2, as the tracker
    assert right == total, f"{right}/{total} whites told apart"
