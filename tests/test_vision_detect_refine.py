"""The full-resolution rim fit: the batched and the one-ball paths agree, and both
bring a displaced centre back onto the ball (rack, cushions, lone balls)."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


@pytest.fixture(scope="module")
def scene():
    L, W = PROFILE.size_mm
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions())]
    balls += [("Y", L / 4, W / 2), ("16", 600.0, R), ("17", 1200.0, 900.0)]
    cam = pyramid_camera(PROFILE, (1280, 720))
    img = renderer(cam, PROFILE, seed=5).render(poses(balls), t=2.0)
    truth_px = cam.project(np.array([(x, y) for _, x, y in balls]), R)
    det = BallDetector(cam, PROFILE)
    radius = det.expected_radius_px(np.array([(x, y) for _, x, y in balls]))
    # coarse centres: the true ones moved by up to a pixel and a half
    rng = np.random.default_rng(7)
    coarse = truth_px + rng.uniform(-1.5, 1.5, truth_px.shape)
    return cam, img, truth_px, coarse, radius


def test_batched_and_one_ball_refits_are_the_same(scene):
    cam, img, _, coarse, radius = scene
    det = BallDetector(cam, PROFILE)
    det.edge_radius_factor = 0.97  # the partial rims' radius is used, not only full ones
    nbr = np.vstack([coarse, coarse[:3] + 40.0])
    batch, batch_ratios = det._refine_batch(img, coarse, radius, nbr)
    one = np.array([det._refine_one(img, coarse[i], float(radius[i]), nbr)[0] for i in range(15)])
    one_ratios = [
        r for i in range(len(coarse)) for r in det._refine_one(img, coarse[i], radius[i], nbr)[1]
    ]
    assert np.abs(batch[:15] - one).max() < 1e-9
    assert (
        np.abs(
            batch
            - np.array(
                [det._refine_one(img, c, r, nbr)[0] for c, r in zip(coarse, radius, strict=True)]
            )
        ).max()
        < 1e-9
    )
    assert np.allclose(batch_ratios, one_ratios, atol=1e-9) and len(batch_ratios) >= 1
    assert not np.array_equal(batch, coarse)  # it did move them


def test_refit_brings_centres_back_to_the_balls(scene):
    cam, img, truth_px, coarse, radius = scene
    for others in (None, np.array([[5.0, 5.0]])):  # the one-by-one and the batched path
        det = BallDetector(cam, PROFILE)
        fine = det.refine_full(img, coarse, radius, others)
        before = np.linalg.norm(coarse - truth_px, axis=1)
        after = np.linalg.norm(fine - truth_px, axis=1)
        assert np.median(after) < 0.6 * np.median(before)
        assert after.max() < 1.0  # pixels; the rack's touching balls included
        assert after[-3:].max() < 0.35  # the balls alone (a full rim) closer still
    # a lone ball measured its free rim: the edge radius factor is learnt from it
    det = BallDetector(cam, PROFILE)
    for _ in range(3):
        det.refine_full(img, coarse[-1:], radius[-1:])
    assert det.edge_radius_factor != 1.0 and abs(det.edge_radius_factor - 1.0) < 0.15
