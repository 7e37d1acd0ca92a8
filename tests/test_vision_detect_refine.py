"""The full-resolution rim fit: the batched and the one-ball paths agree, and both
bring a displaced centre back onto the ball (rack, cushions, lone balls)."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector, _limb_stretch

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


def test_a_ball_off_the_cameras_axis_has_a_stretched_silhouette():
    # the limb ellipse of the detector's grid against a sphere's surface projected
    cam = pyramid_camera(PROFILE, (1280, 720))
    det = BallDetector(cam, PROFILE)
    grid_mm = det._rad_grid[0]
    axis = np.argmin(np.linalg.norm(grid_mm - cam.centre_world[:2], axis=1))
    corner = int(np.argmax(np.linalg.norm(grid_mm - cam.centre_world[:2], axis=1)))
    stretch = {}
    for i in (int(axis), corner):
        c = grid_mm[i]
        th, ph = np.meshgrid(np.linspace(0, np.pi, 200), np.linspace(0, 2 * np.pi, 400))
        pts = np.stack([c[0] + R * np.sin(th) * np.cos(ph), c[1] + R * np.sin(th) * np.sin(ph)], -1)
        px = cam.project(pts.reshape(-1, 2), (R + R * np.cos(th)).reshape(-1))
        centre = cam.project(c[None], R)[0]
        r_exp = det.expected_radius_px(c[None])[0]
        shape, mean = det._limb_shape(centre[None])
        for ang in np.radians([0.0, 45.0, 90.0, 135.0]):
            u = np.array([np.cos(ang), np.sin(ang)])
            extent = 0.5 * (np.ptp((px - centre) @ u))  # the silhouette's half width along u
            model = r_exp * _limb_stretch(shape[0], u[0], u[1])
            assert abs(model - extent) < 0.02 * extent
        a = np.linspace(0, 2 * np.pi, 64, endpoint=False)
        stretch[i] = _limb_stretch(shape[0], np.cos(a), np.sin(a))
    assert np.ptp(stretch[int(axis)]) < 0.02  # round under the camera
    assert np.ptp(stretch[corner]) > 0.08  # an ellipse in a corner


def test_the_racks_touching_balls_are_fitted_with_their_silhouettes_shape():
    # a rack's balls show only the arcs of their rims facing no neighbour: fitted with a
    # round radius, the stretched silhouette off the camera's axis pulled each centre
    # towards its free arc by about half a pixel, and a neighbour in front (nearer the
    # camera) lent its own rim to the far ball's side
    L, W = PROFILE.size_mm
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions())]
    balls.append(("Y", L / 4, W / 2))
    xy = np.array([(x, y) for _, x, y in balls])
    for size in ((1280, 720), (1920, 1080)):
        cam = pyramid_camera(PROFILE, size)
        img = renderer(cam, PROFILE, seed=5).render(poses(balls), t=2.0)
        truth_px = cam.project(xy, R)
        det = BallDetector(cam, PROFILE)
        radius = det.expected_radius_px(xy)
        for _ in range(3):  # the lone ball's full rim: the edge radius factor learnt
            det.refine_full(img, truth_px[-1:].copy(), radius[-1:])
        fine = det.refine_full(img, truth_px.copy(), radius, np.array([[5.0, 5.0]]))
        err_mm = np.linalg.norm(cam.unproject(fine[:15], R) - xy[:15], axis=1)
        assert err_mm.mean() < 1.85 and err_mm.max() < 2.6
