"""Identification: colour rules, the CNN crop, and the class mapping per game."""

from __future__ import annotations

import numpy as np
import pytest
from identify_helpers import model_identifier
from render_helpers import poses, pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector
from luza.vision.identify import (
    CNN_CLASSES,
    CROP_SIZE_PX,
    GAME_CLASSES,
    BallIdentifier,
    ball_crop,
)

PROFILE = load_profile("pyramid-12ft")


@pytest.fixture(scope="module")
def frame():
    cam = pyramid_camera(PROFILE, (1280, 720))
    # an ivory numbered ball, the coloured (yellow) ball, a red, a white with dots
    balls = [("7", 900, 500), ("Y", 1500, 900), ("R1", 2100, 1300), ("W1", 2700, 600)]
    img = renderer(cam, PROFILE, seed=4).render(poses(balls), t=1.0)
    det = BallDetector(cam, PROFILE).detect(img)
    order = np.argsort(det.xy_mm[:, 0])
    return img, det[order]


def test_colour_rules_free_pyramid(frame):
    img, det = frame
    out = BallIdentifier("free-pyramid", use_model=False).identify(img, det)
    assert out.classes == GAME_CLASSES["free-pyramid"]
    assert out.labels == ["ivory", "Y", "Y", "ivory"], "red or yellow: the coloured ball"
    assert np.allclose(out.cls_prob.sum(axis=1), 1.0)


def test_colour_rules_five_ball(frame):
    img, det = frame
    out = BallIdentifier("five-ball", use_model=False).identify(img, det)
    lab = out.labels
    assert lab[1] == "K" and lab[2] == "red"
    # the whites: colour cannot tell 1 from 2
    for i in (0, 3):
        assert out.cls_prob[i, 0] == pytest.approx(out.cls_prob[i, 1])
        assert out.cls_prob[i, 0] + out.cls_prob[i, 1] > 0.8


def test_crop_is_normalised_and_centred(frame):
    img, det = frame
    c = ball_crop(img, det.xy_px[1], det.radius_px[1])
    assert c.shape == (3, CROP_SIZE_PX, CROP_SIZE_PX) and c.dtype == np.float32
    assert abs(float(c.mean())) < 1e-3 and float(c.std()) == pytest.approx(1.0, abs=0.01)
    # the ball (bright, centred) vs the crop's corners (cloth)
    centre = c[:, 16:24, 16:24].mean()
    corner = c[:, :4, :4].mean()
    assert centre > corner


def test_cnn_mapping_sums_to_one():
    for game in GAME_CLASSES:
        ident = BallIdentifier(game, use_model=False)
        assert ident._map.shape == (len(CNN_CLASSES), len(GAME_CLASSES[game]))
        assert np.allclose(ident._map.sum(axis=1), 1.0), "each CNN class lands once"


def test_cnn_model_when_installed(frame):
    ident = model_identifier("free-pyramid")
    img, det = frame
    p = ident.cnn_probabilities(img, det.xy_px, det.radius_px)
    assert p.shape == (len(det), len(CNN_CLASSES))
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)
    out = ident.identify(img, det)
    assert out.labels[1] == "Y" and out.labels[2] == "Y"
