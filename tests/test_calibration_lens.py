"""Lens distortion: plumb-line from straight lines, ChArUco camera calibration."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.lens import LensError, calibrate_camera, plumb_line

SDP = Path("/work/shared/realdata/SDP-2024__pool-ball-tracker/config/calibration/wide_angle_cam")


@pytest.mark.parametrize("k1", [0.0, -0.12, -0.3])
def test_plumb_line_recovers_radial_distortion(k1):
    size = (1920, 1080)
    cam = CameraModel.looking_down((3550.0, 1775.0), size, dist=(k1, 0, 0, 0, 0))
    f = cam.K[0, 0]
    t = np.linspace(0.05, 0.95, 60)[:, None]
    lines = []
    for a, b in [
        ((0, 0), (0, 1775)),
        ((3550, 0), (3550, 1775)),
        ((0, 0), (3550, 0)),
        ((0, 1775), (3550, 1775)),
        ((887, 0), (887, 1775)),
    ]:
        xy = np.array(a) + (np.array(b) - np.array(a)) * t
        lines.append(cam.project(xy, 42.0))
    kk1, kk2, rms = plumb_line(lines, size, f_ref=f)
    assert rms < 0.05
    # compare the distortion the two models give at the image corners
    r2 = ((size[0] / 2) ** 2 + (size[1] / 2) ** 2) / f**2
    assert abs((kk1 * r2 + kk2 * r2 * r2) - k1 * r2) < 0.01


def test_plumb_line_needs_lines():
    with pytest.raises(LensError):
        plumb_line([np.zeros((5, 2))], (640, 480), 500.0)


def test_calibrate_camera_refuses_images_without_a_board(tmp_path):
    import cv2

    paths = []
    for i in range(3):
        p = tmp_path / f"blank{i}.png"
        cv2.imwrite(str(p), np.full((240, 320, 3), 128, np.uint8))
        paths.append(p)
    with pytest.raises(LensError, match="board was found in 0 of 3"):
        calibrate_camera(paths)


@pytest.mark.skipif(not SDP.exists(), reason="real data not present")
def test_charuco_real_wide_angle_camera():
    paths = sorted(SDP.glob("*.jpg"))[:6]
    cam, report = calibrate_camera(paths)
    assert report["rms_px"] < 1.5
    assert -0.36 < cam.dist[0] < -0.26  # strong barrel distortion, as measured upstream
    assert 700 < cam.K[0, 0] < 900
