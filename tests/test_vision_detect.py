"""Ball detection on rendered frames (rack, cushions, jaws) and on real ground truth."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer
from scipy.optimize import linear_sum_assignment

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector
from luza.vision.detections import Detections

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _layout():
    L, W = PROFILE.size_mm
    pk = PROFILE.pockets()
    # 15 touching ivory balls
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions())]
    balls.append(("Y", L / 4, W / 2))
    balls.append(("16", 600.0, R))  # ivory, against the left cushion
    balls.append(("17", 1500.0, W - R))  # against the right cushion
    balls.append(("18", R, 700.0))  # against the head cushion
    mc = np.array(pk["middle-left"].mouth_centre)
    balls.append(("19", mc[0], mc[1] + 0.6 * R))  # in the middle pocket's jaws
    fr = pk["foot-right"]
    p = np.array(fr.mouth_centre) - np.array(fr.inward) * 0.9 * R
    balls.append(("20", p[0], p[1]))  # in the corner jaws
    return balls


@pytest.fixture(scope="module")
def scene():
    cam = pyramid_camera(PROFILE, (1280, 720))
    table = renderer(cam, PROFILE, seed=3)
    balls = _layout()
    img = table.render(poses(balls), t=5.0)
    return cam, table, balls, img


def _match(det: Detections, truth: np.ndarray):
    d = np.linalg.norm(det.xy_mm[:, None] - truth[None], axis=2)
    r, c = linear_sum_assignment(d)
    return d[r, c], len(det) - len(r)


def test_every_ball_found_with_parallax_corrected_centres(scene):
    cam, _, balls, img = scene
    det = BallDetector(cam, PROFILE).detect(img)
    truth = np.array([(x, y) for _, x, y in balls])
    err, extra = _match(det, truth)
    assert len(det) == len(balls), "one detection per ball, none extra"
    assert extra == 0
    # 720p: ~3.4 mm a pixel; within a pixel, the rack's touching balls included
    assert np.median(err) < 3.4
    assert err.max() < 8.0
    # table mm are the image centres unprojected at ball-centre height (parallax)
    back = cam.project(det.xy_mm, R)
    assert np.allclose(back, det.xy_px, atol=1e-3)
    on_bed = cam.unproject(det.xy_px, 0.0)
    assert np.median(np.linalg.norm(on_bed - det.xy_mm, axis=1)) > 1.0


def test_the_rack_is_fifteen_separate_balls(scene):
    cam, _, balls, img = scene
    det = BallDetector(cam, PROFILE).detect(img)
    rack = np.array(PROFILE.rack_positions())
    d = np.linalg.norm(det.xy_mm[:, None] - rack[None], axis=2)
    assert (d.min(axis=0) < 0.25 * R).all(), "each rack ball has its own detection"
    assert ((d < 0.5 * R).sum(axis=0) == 1).all(), "and only one"


def test_empty_table_has_no_detections(scene):
    cam, table, _, _ = scene
    img = table.render({}, t=9.0)
    det = BallDetector(cam, PROFILE).detect(img)
    assert len(det) == 0


def test_regions_find_the_same_balls(scene):
    cam, _, balls, img = scene
    detector = BallDetector(cam, PROFILE)
    full = detector.detect(img)
    detector.set_background(img)
    # a box around the rack only
    rack_px = cam.project(np.array(PROFILE.rack_positions()), R)
    lo, hi = rack_px.min(0) - 20, rack_px.max(0) + 20
    part = detector.detect_regions(img, [detector.work_box((*lo, *hi))])
    assert len(part) == 15
    d = np.linalg.norm(part.xy_mm[:, None] - full.xy_mm[None], axis=2).min(axis=1)
    assert d.max() < 1.5
    # skipping known balls leaves them out
    part2 = detector.detect_regions(img, [detector.work_box((*lo, *hi))], skip_px=part.xy_px[:5])
    assert len(part2) == 10


def test_detections_type_selects_and_merges():
    d = Detections(3, 0.1, [[1, 2], [3, 4]], [[10, 20], [30, 40]], [5, 6], [0.9, 0.8])
    assert len(d) == 2 and d.labels == ["", ""]
    one = d[np.array([False, True])]
    assert one.xy_mm.tolist() == [[30, 40]] and one.frame == 3
    both = Detections.merge([one, d])
    assert len(both) == 3 and both.score.tolist() == [0.8, 0.9, 0.8]
    d.classes, d.cls_prob = ("a", "b"), np.array([[0.2, 0.8], [0.7, 0.3]])
    assert d.labels == ["b", "a"]
    # selecting no row keeps the classes, so merging keeps everyone's classes
    none = d[np.array([False, False])]
    assert none.classes == ("a", "b") and none.cls_prob.shape == (0, 2)
    merged = Detections.merge([d, none])
    assert merged.classes == ("a", "b") and merged.labels == ["b", "a"]


def test_real_ground_truth_precision_recall():
    """LukasSeglias/billiard-ai GT images (skipped without the real data)."""
    import importlib.util
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_detect_real.py"
    spec = importlib.util.spec_from_file_location("bench_detect_real", bench)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not mod.GT_DIR.exists():
        pytest.skip("real footage absent")
    import cv2

    cases = mod.load_cases()
    det = BallDetector(mod.fit_camera(cases), load_profile("snooker-lukasseglias"))
    det.inward_edges = False  # snooker has a black ball
    tp = fp = fn = 0
    for path, gt, _ in cases:
        d = det.detect(cv2.imread(str(path)))
        pairs, _ = mod.match(d.xy_px, gt)
        tp += len(pairs)
        fp += len(d) - len(pairs)
        fn += len(gt) - len(pairs)
    assert tp / (tp + fp) >= 0.98
    assert tp / (tp + fn) >= 0.98


def test_core_median_with_a_floor_is_the_median_wherever_it_can_reach_it(scene):
    # the shaded-support test reads only medians at or above SHADED_CORE_REL: cores
    # whose brightest pixel is below it give that pixel instead, and nothing else moves
    cam = scene[0]
    detector = BallDetector(cam, PROFILE)
    rng = np.random.default_rng(3)
    rel = rng.uniform(0.6, 1.05, (60, 80)).astype(np.float32)  # cloth: below the floor
    rel[15:45, 20:60] += 0.4  # a lit patch: some cores reach the floor, some straddle it
    pts = np.column_stack([rng.uniform(0, 79, 300), rng.uniform(0, 59, 300)])  # edges too
    plain = detector._core_rel(rel, pts, np.median)
    floored = detector._core_rel(rel, pts, np.median, floor=1.12)
    reach = plain >= 1.12
    assert 10 < reach.sum() < len(pts) - 10
    np.testing.assert_array_equal(floored[reach], plain[reach])
    assert (floored[~reach] < 1.12).all()
    assert (floored[~reach] >= plain[~reach]).all()  # the brightest pixel, not the median
    assert (floored[~reach] > plain[~reach]).any()
