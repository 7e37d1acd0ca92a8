"""The CNN on crowded and foreign balls: a full rack is all balls at 1080p, 720p and 540p,
raw, H.264- or MPEG-4-coded (a retrain on H.264 frames only read rack balls as 'none'
in raw and mp4v frames: reverted, acd81fd), and pool balls (which the pyramid games
have no class for) should be balls, not clutter -- the committed model still calls
some 'none' (xfail)."""

from __future__ import annotations

import numpy as np
import pytest
from identify_helpers import model_identifier
from render_helpers import pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.models.train_ball_classifier_candidate import (
    CLASSES,
    TARGETS,
    _alias_renderer,
    _pool_ids,
    _target,
    h264_roundtrip,
    mpeg4_roundtrip,
    random_rotation,
)
from luza.physics.state import BallPose
from luza.samples.look import CLOTH_COLOURS, Look
from luza.samples.synth import nominal_camera
from luza.vision.detect import BallDetector

PYR = load_profile("pyramid-12ft")
POOL = load_profile("pool-uk-7ft")
NONE_DROP = 0.5  # vision/pipeline.py: a detection is no ball from this P(none) on
CODEC_CRF = 23  # what luza synth writes
CODECS = {
    "raw": lambda img: img,  # a live camera's frame
    "h264": lambda img: h264_roundtrip(img, CODEC_CRF),  # luza synth's clips
    "mp4v": mpeg4_roundtrip,  # OpenCV's mp4v writer (tests/test_vision_cli.py)
}


def kept_as_balls(det) -> np.ndarray:
    """What the pipeline keeps (``_balls_only``): P(none) below NONE_DROP and not above
    the most likely ball class."""
    k = det.classes.index("none")
    balls = np.delete(det.cls_prob, k, axis=1)
    return (det.cls_prob[:, k] < NONE_DROP) & (det.cls_prob[:, k] <= balls.max(axis=1))


def test_pool_targets_are_balls_with_a_colour():
    none = CLASSES.index("none")
    assert np.allclose(TARGETS.sum(axis=1), 1.0)
    for ball in ("P.red.0.1", "P.black.0.8", "S.blue.1.10", "P.white.0.0", "S.yellow.1.9"):
        assert TARGETS[_target(ball), none] == 0.0, ball
    assert CLASSES[int(np.argmax(TARGETS[_target("P.white.0.0")]))] == "ivory"
    assert CLASSES[int(np.argmax(TARGETS[_target("P.red.0.3")]))] == "red"
    assert CLASSES[int(np.argmax(TARGETS[_target("W2.3")]))] == "W2"


@pytest.fixture(scope="module")
def free_pyramid():
    ident = model_identifier("free-pyramid")
    return ident


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (960, 540)])
@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("codec", list(CODECS))
def test_every_rack_ball_is_a_ball(free_pyramid, size, turned, codec):
    cam = pyramid_camera(PYR, size)
    rng = np.random.default_rng(size[1] + turned)
    rack = {str(k + 1): p for k, p in enumerate(PYR.rack_positions())}
    pos = {**rack, "Y": (PYR.length_mm / 4, PYR.width_mm / 2 + 150.0)}
    rot = (lambda: random_rotation(rng)) if turned else (lambda: np.eye(3))
    poses = {b: BallPose(x, y, 0.0, rot()) for b, (x, y) in pos.items()}
    img = CODECS[codec](renderer(cam, PYR, seed=5).render(poses, t=1.0))
    det = free_pyramid.identify(img, BallDetector(cam, PYR).detect(img))
    kept = kept_as_balls(det)
    for b, p in pos.items():
        d = np.linalg.norm(det.xy_mm - np.array(p), axis=1)
        i = int(np.argmin(d))
        assert d[i] < 10.0, f"{b} found"
        assert kept[i], f"{b} kept as a ball (P = {np.round(det.cls_prob[i], 2)})"
    assert det.labels[int(np.argmin(np.linalg.norm(det.xy_mm - pos["Y"], axis=1)))] == "Y"


@pytest.mark.xfail(
    strict=True,
    reason="the committed classifier never saw pool balls; the candidate retrain "
    "(models/train_ball_classifier_candidate.py) passes this but was not committed",
)
def test_pool_balls_on_a_red_cloth_are_balls(free_pyramid):
    cam = nominal_camera(POOL, (1280, 720))
    look = Look(cloth_rgb=CLOTH_COLOURS["red"])
    rend = _alias_renderer()(POOL, cam, look, game="five-ball", seed=3)
    rng = np.random.default_rng(4)
    ids = _pool_ids(rng, 16)
    pos = {b: p for b, p in zip(ids[1:], POOL.rack_positions(), strict=False)}
    pos[ids[0]] = (0.2 * POOL.length_mm, 0.5 * POOL.width_mm)
    poses = {b: BallPose(x, y, 0.0, random_rotation(rng)) for b, (x, y) in pos.items()}
    img = h264_roundtrip(rend.render(poses, t=1.0), CODEC_CRF)
    det = free_pyramid.identify(img, BallDetector(cam, POOL).detect(img))
    kept = kept_as_balls(det)
    found = 0
    for p in pos.values():
        d = np.linalg.norm(det.xy_mm - np.array(p), axis=1)
        i = int(np.argmin(d))
        if d[i] < 10.0:
            found += 1
            assert kept[i], f"a pool ball kept as a ball (P = {np.round(det.cls_prob[i], 2)})"
    assert found >= 14, "the detector finds the pool rack"
