"""Per-frame registration of a moving camera onto the reference frame."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.vision.register import FrameRegistrar, RegistrationError, rails_mask

CLIP = "fp-penalty_s0_720p30"


@pytest.fixture(scope="module")
def scene():
    clips = Path(str(resources.files("luza.samples") / "clips"))
    truth = json.loads((clips / f"{CLIP}.truth.json").read_text())
    cam = CameraModel.from_dict(truth["camera"])
    prof = load_profile(truth["table"]["name"])
    cap = cv2.VideoCapture(str(clips / f"{CLIP}.mp4"))
    ok, img = cap.read()
    cap.release()
    assert ok
    corners = prof.bed_corners()
    order = ("head-left", "head-right", "foot-right", "foot-left")
    bed = cam.project(np.array([corners[k] for k in order], float), 0.0)
    return img, bed


def test_a_moved_camera_is_registered_back(scene):
    img, bed = scene
    h, w = img.shape[:2]
    reg = FrameRegistrar(img, rails_mask((w, h), bed, 50.0))
    # the camera drifts: shift 14 px, rotate 1.5 degrees, zoom 2 %
    c = (w / 2, h / 2)
    M = cv2.getRotationMatrix2D(c, 1.5, 1.02)
    M[:, 2] += (14.0, -9.0)
    moved = cv2.warpAffine(img, M, (w, h), borderMode=cv2.BORDER_REPLICATE)
    r = reg.register(moved)
    # the homography maps the moved frame's bed corners back onto the reference's
    moved_bed = cv2.transform(bed[None], M)[0]
    back = cv2.perspectiveTransform(moved_bed[None], r.H)[0]
    assert np.abs(back - bed).max() < 1.0
    assert r.inliers >= 25
    # and the warped frame shows the bed where the reference does (pixel by pixel)
    out = reg.warp(moved, r.H)
    c0 = bed.mean(axis=0)
    inner = np.zeros((h, w), np.uint8)
    cv2.fillPoly(inner, [np.round(c0 + 0.9 * (bed - c0)).astype(np.int32)], 1)
    diff = cv2.absdiff(out, img).max(axis=2)[inner > 0]
    assert np.percentile(diff, 90) < 12
    unregistered = cv2.absdiff(moved, img).max(axis=2)[inner > 0]
    assert np.percentile(unregistered, 90) > np.percentile(diff, 90)


def test_a_featureless_frame_is_a_clear_error(scene):
    img, bed = scene
    h, w = img.shape[:2]
    reg = FrameRegistrar(img, rails_mask((w, h), bed, 50.0))
    with pytest.raises(RegistrationError):
        reg.register(np.full_like(img, 90))
