"""Balls of the cloth's own hue: red balls on a red cloth (found by their shading)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer, synth_view
from scipy.optimize import linear_sum_assignment

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _balls():
    # where seed 25 has them (the reds near the rails, out of the lamps' brightest light)
    return [
        ("R1", 3205.1, 1665.6),
        ("R2", 2759.8, 260.0),
        ("W1", 2809.7, 1597.5),
        ("K", 833.8, 1329.6),
        ("W2", 2759.8, 260.0 + 2 * R + 1.0),  # touching R2
    ]


@pytest.fixture(scope="module")
def red_cloth():
    # the camera and look of ``luza synth --seed 25`` (720p): a red cloth whose red
    # balls differ from it only by their shading (no colour cue, little brightness)
    cam, look = synth_view(25, (1280, 720), PROFILE)
    assert look.cloth_rgb[0] > 5 * look.cloth_rgb[1]  # red
    return cam, renderer(cam, PROFILE, look=look, game="five-ball", seed=5)


def test_red_balls_on_red_cloth_are_found_without_extras(red_cloth):
    cam, table = red_cloth
    balls = _balls()
    img = table.render(poses(balls), t=2.0)
    det = BallDetector(cam, PROFILE).detect(img)
    truth = np.array([(x, y) for _, x, y in balls])
    d = np.linalg.norm(det.xy_mm[:, None] - truth[None], axis=2)
    r, c = linear_sum_assignment(d)
    assert len(det) == len(balls), f"{len(det)} detections for {len(balls)} balls"
    assert d[r, c].max() < 8.0  # 720p: ~3.4 mm a pixel
    reds = [i for i, (b, _, _) in enumerate(balls) if b.startswith("R")]
    assert set(reds) <= set(c[d[r, c] < 8.0].tolist())


def test_a_red_ball_in_the_lamps_light_on_a_red_cloth_is_found_where_it_is():
    """Seed 10108's 1080p camera and look (a red cloth under four lamps): its R2 lies in
    the lamps' light, so its lower limb is in its own shade and its rim votes peak ~2
    work pixels above its centre, where the ring 1.6 radii out misses most of its
    shadow.  Its shading contrast reads 1.21 there: at the old threshold (1.22) it was
    never found.  Found by its shading, it scores below the rim fit's minimum (its
    foreground is weak, not its rim) and kept the vote peak's centre, 7.5 mm off; it is
    fitted now (3.1 mm)."""
    cam, look = synth_view(10108, (1920, 1080), PROFILE)
    assert look.cloth_rgb[0] > 5 * look.cloth_rgb[1]  # red
    table = renderer(cam, PROFILE, look=look, game="five-ball", seed=10108)
    balls = [
        ("K", 189.6, 1269.2),
        ("W1", 122.4, 396.3),
        ("W2", 1485.2, 1406.1),
        ("R1", 514.5, 1248.2),
        ("R2", 1608.8, 1522.7),
    ]
    det = BallDetector(cam, PROFILE).detect(table.render(poses(balls), t=0.0))
    truth = np.array([(x, y) for _, x, y in balls])
    d = np.linalg.norm(det.xy_mm[:, None] - truth[None], axis=2)
    assert len(det) == len(balls), f"{len(det)} detections for {len(balls)} balls"
    assert d.min(axis=0).max() < 5.0  # 1080p: ~2 mm a pixel


def test_empty_red_cloth_with_chalk_has_no_detection(red_cloth):
    cam, table = red_cloth
    img = table.render({}, t=3.0)
    det = BallDetector(cam, PROFILE).detect(img)
    assert len(det) == 0, det.xy_mm


def test_pocket_cup_over_the_hole_is_not_a_ball_but_a_bright_ball_there_is():
    """A real table's middle-pocket cup (grey plastic with a highlight) sits over the
    drop hole, ball-sized and round: not a ball.  A bright ball there (falling) is."""
    cam = pyramid_camera(PROFILE, (1280, 720))
    table = renderer(cam, PROFILE, seed=3)
    pk = PROFILE.pockets()["middle-right"]
    img = table.render({}, t=1.0).copy()
    c = cam.project(np.array([pk.centre]), R)[0]
    r_px = float(BallDetector(cam, PROFILE).expected_radius_px(np.array([pk.centre]))[0])
    ci = (int(round(c[0])), int(round(c[1])))
    # about as bright as the cloth (a dark cup and its highlights), neutral in colour
    cv2.circle(img, ci, int(round(r_px)), (28, 28, 28), -1, lineType=cv2.LINE_AA)
    cv2.circle(img, (ci[0] - 3, ci[1] - 3), 2, (110, 110, 110), -1, lineType=cv2.LINE_AA)
    det = BallDetector(cam, PROFILE).detect(img)
    assert len(det) == 0 or np.linalg.norm(det.xy_mm - pk.centre, axis=1).min() > 2 * R
    img = table.render(poses([("1", *pk.centre)]), t=1.0)
    det = BallDetector(cam, PROFILE).detect(img)
    assert len(det) == 1
    assert np.linalg.norm(det.xy_mm[0] - pk.centre) < 8.0
