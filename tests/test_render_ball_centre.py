"""A rendered ball appears where the camera model says its centre projects (issue 2).

Truth (documented in ``samples/render.py``): the centre of the ball's silhouette,
which for these cameras is within 0.1 px of ``camera.project([x, y], R + lift)`` (the
perspective ellipse's centre offset).  Checked two ways: the renderer's own
silhouette (independent of the shading), and the blob a simple detector finds in the
rendered image.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.physics.state import BallPose
from luza.samples.look import Look
from luza.samples.render import Renderer

PROFILE = load_profile("pyramid-12ft")
L, W = PROFILE.size_mm
R = PROFILE.ball_radius_mm
# Centre, all four corners (strong distortion there), near a middle pocket, in the air.
POSITIONS = [
    (L / 2, W / 2, 0.0),
    (110.0, 110.0, 0.0),
    (L - 110.0, W - 110.0, 0.0),
    (L - 110.0, 120.0, 0.0),
    (130.0, W - 110.0, 0.0),
    (L / 2 + 150.0, 110.0, 0.0),
    (L * 0.3, W * 0.7, 60.0),
    (L * 0.8, W * 0.25, 25.0),
]
# A flat, even look: the detector measures the silhouette, not the shading.
EVEN = Look(shadow_strength=0.0, noise=0.0, noise_floor=0.0, ambient=3.0, blur_px=0.5)


def _camera(size):
    return CameraModel.looking_down(
        PROFILE.size_mm,
        size,
        height_mm=2700.0,
        dist=(-0.24, 0.07, 0.0, 0.0, 0.0),
        tilt_deg=(4.0, -3.0),
        roll_deg=2.5,
        principal_offset_px=(12.0, -9.0),
    )


@pytest.fixture(scope="module", params=[(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
def renderer(request):
    return Renderer(PROFILE, _camera(request.param), EVEN, seed=3)


def _rot(seed: int) -> np.ndarray:
    return cv2.Rodrigues(np.random.default_rng(seed).normal(0, 1.0, 3))[0]


@pytest.mark.parametrize("pos", POSITIONS)
def test_silhouette_centre_is_the_projected_centre(renderer, pos):
    x, y, lift = pos
    y0, x0, a = renderer.ball_coverage(BallPose(x, y, lift))
    yy, xx = np.mgrid[0 : a.shape[0], 0 : a.shape[1]]
    centre = np.array([(a * xx).sum() / a.sum() + x0, (a * yy).sum() / a.sum() + y0])
    truth = renderer.camera.project(np.array([x, y]), R + lift)
    assert np.linalg.norm(centre - truth) <= 0.15
    # And its size is the ball's: about the image of its great circle facing the camera.
    S = np.array([x, y, -(R + lift)])
    view = S - renderer.camera.centre_world
    e1 = np.cross(view, [0.0, 0.0, 1.0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(view / np.linalg.norm(view), e1)
    ang = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    ring = S + R * (np.cos(ang)[:, None] * e1 + np.sin(ang)[:, None] * e2)
    poly = renderer.camera.project(ring[:, :2], -ring[:, 2]).astype(np.float32)
    assert 0.95 < a.sum() / cv2.contourArea(poly) < 1.08


@pytest.mark.parametrize("ball", ["7", "W2", "R1"])
@pytest.mark.parametrize("pos", POSITIONS)
def test_detected_blob_centre_within_half_a_pixel(renderer, pos, ball):
    x, y, lift = pos
    bg = renderer.background().astype(np.int16)
    img = renderer.render({ball: BallPose(x, y, lift, _rot(int(x)))}, noise=False)
    diff = np.abs(img.astype(np.int16) - bg).sum(axis=2).astype(np.float32)
    peak = float(np.percentile(diff[diff > 0], 99)) if (diff > 0).any() else 0.0
    assert peak > 60, "the ball is not visible"
    mask = (diff > 0.25 * peak).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    c = max(cnts, key=cv2.contourArea)
    (ex, ey), _, _ = cv2.fitEllipse(c)
    truth = renderer.camera.project(np.array([x, y]), R + lift)
    assert np.linalg.norm(np.array([ex, ey]) - truth) <= 0.5
