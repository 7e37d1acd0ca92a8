"""calibrate() refuses clearly when it cannot work."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import renderer, table_frame

from luza.calibration.calib import CalibrationError, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.errors import LuzaError
from luza.samples.look import Look

PYR = load_profile("pyramid-12ft")
CAM = CameraModel.looking_down(PYR.size_mm, (1280, 720), height_mm=3000, tilt_deg=(2.0, 1.0))
# A lamp turned almost off: the renderer's exposure is linear light, 0.08 of the
# encoded level is ~0.08 ** 2.2 of it.
DIM = Look(brightness=0.8 * 0.08**2.2)


def test_black_image():
    with pytest.raises(CalibrationError, match="too dark"):
        calibrate(np.zeros((720, 1280, 3), np.uint8), PYR)


def test_dim_table_is_too_dark():
    img = table_frame(renderer(CAM, look=DIM))
    with pytest.raises(CalibrationError, match="too dark"):
        calibrate(img, PYR)


def test_no_table_in_view():
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (720, 1280, 3), dtype=np.uint8)
    with pytest.raises(CalibrationError, match="no table"):
        calibrate(img, PYR)


def test_table_cut_off():
    img = table_frame(renderer(CAM))
    with pytest.raises(CalibrationError, match="cut off"):
        calibrate(img[:, 300:1000], PYR)


def test_wrong_profile():
    squat = load_profile("pyramid-12ft", width_mm=2600.0)  # 1.37:1 instead of 2:1
    img = table_frame(renderer(CAM))
    with pytest.raises(CalibrationError, match="profile"):
        calibrate(img, squat)


def test_errors_are_luza_errors():
    assert issubclass(CalibrationError, LuzaError)
    with pytest.raises(CalibrationError):
        calibrate([], PYR)
