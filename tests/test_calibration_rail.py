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

import numpy as np
from render_helpers import renderer, table_frame

from luza.calibration.calib import calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.samples.look import CLOTH_COLOURS, WOOD_COLOURS, Look

PYR = load_profile("pyramid-12ft")
NARROW_RAIL_MM = 60.0
DARK_RED_FLOOR = (0.03, 0.0, 0.0)  # linear rgb


def test_a_narrow_rail_before_a_dark_red_floor_is_the_rail():
    cam = CameraModel.looking_down(
        PYR.size_mm,
        (1280, 720),
        height_mm=2900,
        tilt_deg=(1.0, -0.5),
        dist=(-0.05, 0.0, 0.0, 0.0, 0.0),
        fill=0.93,
    )
    look = Look(
        cloth_rgb=CLOTH_COLOURS["teal"],
        wood_rgb=WOOD_COLOURS["mahogany"],
        floor_rgb=DARK_RED_FLOOR,
        apron_rgb=DARK_RED_FLOOR,
    )
    r = renderer(cam, dataclasses.replace(PYR, rail_width_mm=NARROW_RAIL_MM), look=look)
    rng = np.random.default_rng(1)
    L, W = PYR.size_mm
    frames = [
        table_frame(
            r,
            balls=[(rng.uniform(100, L - 100), rng.uniform(100, W - 100)) for _ in range(4)],
            arm=True,
            seed=i,
        )
        for i in range(2)
    ]
    cal = calibrate(frames, PYR)  # the profile's own rail width: the real one is a guess
    q = cal.quality
    assert q["edge_rms_px"] < 0.5, q["edge_rms_px"]
    # every side keeps most of its points (the nose, not the rail, was found on each)
    assert min(q["edge_points"].values()) >= 25, q["edge_points"]
    hn = PYR.cushion_nose_height_mm
    corners = [
        np.linalg.norm(np.array(cal.image_points["bed_corners"][k]) - cam.project(np.array(v), hn))
        for k, v in PYR.bed_corners().items()
    ]
    assert max(corners) < 1.0, corners
