"""calib.json: save/load round trip, what it holds, and the luza calibrate command."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from render_helpers import renderer, table_frame

from luza.calibration.calib import Calibration, CalibrationError, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.cli import main

PYR = load_profile("pyramid-12ft")
CAM = CameraModel.looking_down(
    PYR.size_mm, (1280, 720), height_mm=3000, tilt_deg=(3.0, -2.0), dist=(-0.1, 0, 0, 0, 0)
)


@pytest.fixture(scope="module")
def cal() -> Calibration:
    return calibrate([table_frame(renderer(CAM), seed=i) for i in range(2)], PYR)


def test_save_load_round_trip(cal, tmp_path):
    path = tmp_path / "calib.json"
    cal.save(path)
    d = json.loads(path.read_text())
    ip = d["image_points"]
    assert set(ip["bed_corners"]) == {"head-left", "head-right", "foot-right", "foot-left"}
    assert set(ip["pockets"]) == set(PYR.pockets())
    assert {"centre", "front", "rear"} <= set(ip["spots"])
    assert d["profile"]["length_mm"] == PYR.length_mm and "camera" in d and "quality" in d
    back = Calibration.load(path)
    px = np.array([[400.0, 300.0], [900.0, 500.0]])
    for h in (0.0, PYR.ball_radius_mm):
        np.testing.assert_allclose(back.to_table(px, h), cal.to_table(px, h), atol=1e-6)
    assert back.profile.spots == cal.profile.spots
    assert back.quality == cal.quality


def test_maps_both_ways(cal):
    xy = np.array([[100.0, 100.0], [1775.0, 887.5], [3400.0, 1700.0]])
    for h in (0.0, 34.0, 42.0):
        np.testing.assert_allclose(cal.to_table(cal.to_image(xy, h), h), xy, atol=1e-3)
    # the stored bed corners are the nose rectangle at the nose height
    hl = np.array(cal.image_points["bed_corners"]["head-left"])
    np.testing.assert_allclose(cal.to_table(hl, PYR.cushion_nose_height_mm), [0, 0], atol=0.05)


def test_load_refuses_garbage(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        Calibration.load(bad)
    bad.write_text('{"hello": 1}')
    with pytest.raises(CalibrationError, match="not a luza calibration"):
        Calibration.load(bad)
    with pytest.raises(CalibrationError, match="not found"):
        Calibration.load(tmp_path / "missing.json")


def test_cli_calibrate_writes_json_and_overlay(tmp_path, capsys):
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), table_frame(renderer(CAM), seed=4))
    out, ov = tmp_path / "calib.json", tmp_path / "check.png"
    rc = main(
        ["calibrate", str(img), "--table", "pyramid-12ft", "-o", str(out), "--overlay", str(ov)]
    )
    assert rc == 0
    assert Calibration.load(out).profile.name == "pyramid-12ft"
    over = cv2.imread(str(ov))
    assert over is not None and over.shape == (720, 1280, 3)
    assert "head cushion at the image left (decided by markings)" in capsys.readouterr().out


def test_cli_refusal_is_a_clear_error(tmp_path, capsys):
    img = tmp_path / "black.png"
    cv2.imwrite(str(img), np.zeros((480, 640, 3), np.uint8))
    rc = main(["calibrate", str(img), "--table", "pyramid-12ft", "-o", str(tmp_path / "c.json")])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("luza calibrate: error:") and "too dark" in err
    assert not (tmp_path / "c.json").exists()
