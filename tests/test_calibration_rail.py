"""Where the cloth ends: a narrow rail in front of a frame that differs from the cloth more.

The rail is found where the cloth colour ends, and the nose up to ~2 cushion widths inside
it.  When the rail differs from the cloth only a little (red cloth, mahogany), the biggest
colour change is the floor a rail width further out; the real LukasSeglias clip video_12
(and three of its six siblings) showed the other case: a red-brown rail 0.2-0.27 from the
cloth in rgb chromaticity but only ~1.3 cushion widths wide in view, then a near-black red
edge 0.84 away.  The biggest change was taken for the rail, the nose looked for on the rail,
and the table refused (rms 15.5 px).  Rendered here: a teal cloth, a narrow mahogany rail
(60 mm for the profile's 130) and a dark red floor.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from render_helpers import renderer, table_frame

import luza.calibration.find_table as find_table
from luza.calibration.calib import CalibrationError, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.cli import main
from luza.samples.look import CLOTH_COLOURS, WOOD_COLOURS, Look

PYR = load_profile("pyramid-12ft")
NARROW_RAIL_MM = 60.0
DARK_RED_FLOOR = (0.03, 0.0, 0.0)  # linear rgb
CAM = CameraModel.looking_down(
    PYR.size_mm,
    (1280, 720),
    height_mm=2900,
    tilt_deg=(1.0, -0.5),
    dist=(-0.05, 0.0, 0.0, 0.0, 0.0),
    fill=0.93,
)


@pytest.fixture(scope="module")
def narrow_rail_frames() -> list[np.ndarray]:
    look = Look(
        cloth_rgb=CLOTH_COLOURS["teal"],
        wood_rgb=WOOD_COLOURS["mahogany"],
        floor_rgb=DARK_RED_FLOOR,
        apron_rgb=DARK_RED_FLOOR,
    )
    r = renderer(CAM, dataclasses.replace(PYR, rail_width_mm=NARROW_RAIL_MM), look=look)
    rng = np.random.default_rng(1)
    L, W = PYR.size_mm
    return [
        table_frame(
            r,
            balls=[(rng.uniform(100, L - 100), rng.uniform(100, W - 100)) for _ in range(4)],
            arm=True,
            seed=i,
        )
        for i in range(2)
    ]


def test_a_narrow_rail_before_a_dark_red_floor_is_the_rail(narrow_rail_frames):
    cal = calibrate(narrow_rail_frames, PYR)  # the profile's own rail width: a guess
    q = cal.quality
    assert q["edge_rms_px"] < 0.5, q["edge_rms_px"]
    # every side keeps most of its points (the nose, not the rail, was found on each)
    assert min(q["edge_points"].values()) >= 25, q["edge_points"]
    hn = PYR.cushion_nose_height_mm
    corners = [
        np.linalg.norm(np.array(cal.image_points["bed_corners"][k]) - CAM.project(np.array(v), hn))
        for k, v in PYR.bed_corners().items()
    ]
    assert max(corners) < 1.0, corners


def test_a_refused_fit_is_drawn_when_an_overlay_is_asked_for(
    narrow_rail_frames, tmp_path, monkeypatch, capsys
):
    """Without the clear-rail rule (the old behaviour) one frame of the view gives a camera
    23 m above the table (edge rms 2 px: it used to be returned), now refused; the overlay
    asked for then shows the refused fit, and the error says where it is."""
    monkeypatch.setattr(find_table, "RAIL_CHROMA_CLEAR", 10.0)
    img, ov = tmp_path / "view.png", tmp_path / "check.png"
    cv2.imwrite(str(img), narrow_rail_frames[0])
    args = ["calibrate", str(img), "--table", "pyramid-12ft", "-o", str(tmp_path / "c.json")]
    assert main([*args, "--overlay", str(ov)]) == 2
    err = capsys.readouterr().err
    assert "wrong edge" in err and f"the refused fit is drawn in {ov}" in err
    drawn = cv2.imread(str(ov))
    assert drawn is not None and drawn.shape == narrow_rail_frames[0].shape
    assert not (tmp_path / "c.json").exists()


def test_a_camera_far_above_the_table_is_refused():
    """A nose taken on the wrong edge can be absorbed by a telephoto camera far away and a
    wild lens (a real clip: focal 6854 px, 11.4 m above a 1.9 m table, k2 -236, edge rms
    0.47 px); such a camera is refused, not returned."""
    far = CameraModel.looking_down(PYR.size_mm, (1280, 720), height_mm=5.0 * PYR.length_mm)
    near = CameraModel.looking_down(PYR.size_mm, (1280, 720), height_mm=3000.0)
    for cam in (far, near):
        q = {
            "camera": {"tilt_deg": 0.0, "height_mm": float(-cam.centre_world[2])},
            "edge_rms_px": 0.4,
        }
        if cam is far:
            with pytest.raises(CalibrationError, match="wrong edge"):
                find_table._sanity(cam, PYR, q)
        else:
            find_table._sanity(cam, PYR, q)
