"""The detector's windows on worker threads give the very detections of one thread."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


@pytest.fixture(scope="module")
def scene():
    cam = pyramid_camera(PROFILE, (1280, 720))
    L, W = PROFILE.size_mm
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions())]
    balls += [("Y", L / 4, W / 2), ("16", 600.0, R), ("17", 1500.0, W - R), ("18", R, 700.0)]
    table = renderer(cam, PROFILE, seed=5)
    empty = table.render(poses([]), t=0.0)
    img = table.render(poses(balls), t=5.0)
    return cam, balls, empty, img


def _boxes(det: BallDetector, cam, balls) -> list[tuple[int, int, int, int]]:
    """A search box around every ball not in the rack, and one over the whole rack."""
    r = det.radius_px_max
    px = cam.project(np.array([(x, y) for _, x, y in balls]), R)
    rack = px[:15]
    boxes = [det.work_box((*(rack.min(0) - 2 * r), *(rack.max(0) + 2 * r)))]
    boxes += [det.work_box((x - 2 * r, y - 2 * r, x + 2 * r, y + 2 * r)) for x, y in px[15:]]
    return boxes


def _run(cam, balls, empty, img, threads: int):
    det = BallDetector(cam, PROFILE)
    det.threads = threads
    det.set_background(empty)
    out = det.detect_regions(img, _boxes(det, cam, balls), streaks=True)
    return det, out


def test_threaded_windows_give_the_same_detections(scene):
    cam, balls, empty, img = scene
    one, a = _run(cam, balls, empty, img, 1)
    two, b = _run(cam, balls, empty, img, 2)
    assert one.workers() == 1 and two.workers() == 2
    assert len(a) == len(balls)  # every ball found (the test is not about nothing)
    for name in ("xy_px", "xy_mm", "radius_px", "score", "blur_mm"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    # the rim fits' learned radius factor is the same (the fits stay in window order)
    assert one.edge_radius_factor == two.edge_radius_factor


def test_auto_workers_follow_opencv_threads(scene):
    cam = scene[0]
    det = BallDetector(cam, PROFILE)
    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        assert det.workers() == 1  # a one-core benchmark: no worker threads
        cv2.setNumThreads(2)
        assert det.workers() == 2
    finally:
        cv2.setNumThreads(before)


def test_core_median_of_every_point_inside_or_at_the_border(scene):
    cam = scene[0]
    det = BallDetector(cam, PROFILE)
    rng = np.random.default_rng(2)
    rel = rng.random((40, 50)).astype(np.float32)
    pts = np.array([(25.0, 20.0), (0.4, 3.0), (49.0, 39.0), (10.2, 30.7), (3.0, 36.0)])
    got = det._core_rel(rel, pts, np.median)
    r = max(1, int(round(0.6 * det.r_work)))
    for (x, y), g in zip(np.round(pts).astype(int), got, strict=True):
        win = rel[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1]
        assert g == np.median(win)


def _child_uses_pool(q) -> None:
    from luza.vision.detect import _pool

    q.put(_pool(2).submit(sum, [1, 2]).result(timeout=10))


def test_a_forked_child_gets_its_own_worker_threads():
    import multiprocessing
    import threading

    from luza.vision.detect import _pool

    # the parent's pool with both its threads started (two tasks waiting for each other)
    meet = threading.Barrier(3)
    busy = [_pool(2).submit(meet.wait, 10) for _ in range(2)]
    meet.wait(10)
    for f in busy:
        f.result(timeout=10)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child_uses_pool, args=(q,))
    p.start()
    p.join(30)
    assert p.exitcode == 0
    assert q.get(timeout=5) == 3  # the parent's threads are not in the child: new ones
