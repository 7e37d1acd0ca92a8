"""Automatic calibration on rendered views: corners, bed mapping, head/foot, parallax.

Every view comes from the project renderer (``luza.samples.render``, via
``tests/render_helpers.py``): the 1080p mild-lens camera, upright and turned, with and
without markings, cloth colours, and the strong-lens 720p camera (the bed test and the
cloth colours).  A faint house line (a worn pencil line, a few grey levels) still tells
the head from the foot.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import cloth_look, renderer, table_frame, unmarked

from luza.calibration.calib import calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.find_table import (
    _rot_about_table,
    median_background,
    nose_edge_points,
    rough_quad,
    segment_cloth,
    still_frames,
)
from luza.calibration.profiles import load_profile
from luza.samples.look import CLOTH_COLOURS, random_look

PYR = load_profile("pyramid-12ft")


def _view(
    cam: CameraModel, seed: int, n: int = 2, profile=PYR, look=None, markings: bool = True
) -> list[np.ndarray]:
    """``n`` frames with six balls and an arm from the project renderer with ``look``
    (``markings=False`` draws no spots or lines)."""
    rng = np.random.default_rng(seed)
    L, W = profile.size_mm
    balls = [
        [(rng.uniform(60, L - 60), rng.uniform(60, W - 60)) for _ in range(6)] for _ in range(n)
    ]
    r = renderer(cam, profile if markings else unmarked(profile), look=look)
    return [table_frame(r, balls=balls[i], arm=True, seed=seed * 10 + i) for i in range(n)]


def _corner_errors(cal, cam, profile=PYR) -> np.ndarray:
    hn = profile.cushion_nose_height_mm
    return np.array(
        [
            np.linalg.norm(
                np.array(cal.image_points["bed_corners"][k]) - cam.project(np.array(v), hn)
            )
            for k, v in profile.bed_corners().items()
        ]
    )


def _bed_errors(cal, cam, profile=PYR, height=0.0) -> np.ndarray:
    L, W = profile.size_mm
    gx, gy = np.meshgrid(np.linspace(0, L, 9), np.linspace(0, W, 5))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    return np.linalg.norm(cal.to_table(cam.project(grid, height), height) - grid, axis=1)


CAMS = {
    "1080p-tilted-mild-lens": CameraModel.looking_down(
        PYR.size_mm,
        (1920, 1080),
        height_mm=3100,
        tilt_deg=(5.0, -4.0),
        roll_deg=2.0,
        dist=(-0.08, 0, 0, 0, 0),
    ),
    "720p-strong-lens": CameraModel.looking_down(
        PYR.size_mm,
        (1280, 720),
        height_mm=2700,
        tilt_deg=(-3.0, 2.0),
        roll_deg=-3.0,
        dist=(-0.25, 0, 0, 0, 0),
    ),
}


@pytest.mark.parametrize("name", ["1080p-tilted-mild-lens", "720p-strong-lens"])
def test_calibration_finds_the_bed_corners_and_maps_the_bed(name):
    cam = CAMS[name]
    cal = calibrate(_view(cam, seed=len(name)), PYR)
    corners = _corner_errors(cal, cam)
    assert corners.max() < 2.0, corners
    bed = _bed_errors(cal, cam)
    assert np.median(bed) < 3.0 and bed.max() < 8.0, (np.median(bed), bed.max())
    assert cal.quality["head_end"]["decided_by"] == "markings"
    assert "line:house" in cal.quality["markings"]["found"]
    assert len(cal.quality["pockets"]["found"]) == 6


@pytest.mark.parametrize("look_seed", [9, 10])
def test_nose_edge_points_lie_on_the_rendered_nose_line(look_seed):
    """The located edge is the nose line itself (the outer end of the shaded face under
    the nose, less the blur's half-width): no systematic offset over the four sides, and
    no side off by a pixel (the half-maximum alone would be ~1.1 px outside)."""
    cam = CAMS["1080p-tilted-mild-lens"]
    look = random_look(np.random.default_rng(look_seed))
    img = median_background(_view(cam, seed=11, n=2, look=look))
    quad = rough_quad(*segment_cloth(img))
    L, W = PYR.size_mm
    hn = PYR.cushion_nose_height_mm
    mm_per_px = L / np.linalg.norm(
        cam.project(np.array([[L, W / 2]]), hn) - cam.project(np.array([[0.0, W / 2]]), hn)
    )
    offsets_px = []
    for pts in nose_edge_points(img, quad, PYR).values():
        assert len(pts) > 20
        xy = cam.unproject(pts, hn)
        # the side this is: the table line its points are nearest to (signed, inwards)
        cand = [xy[:, 0], L - xy[:, 0], xy[:, 1], W - xy[:, 1]]
        inward_mm = min(cand, key=lambda v: abs(float(np.median(v))))
        offsets_px.append(float(np.median(inward_mm)) / mm_per_px)
    assert len(offsets_px) == 4
    assert abs(np.mean(offsets_px)) < 0.4, offsets_px
    assert max(abs(v) for v in offsets_px) < 0.8, offsets_px


def test_head_is_found_from_the_house_line_when_the_table_is_turned():
    cam = _rot_about_table(CAMS["1080p-tilted-mild-lens"], *PYR.size_mm)  # head at the right
    cal = calibrate(_view(cam, seed=3, n=2), PYR)
    assert cal.quality["head_end"]["image_side"] == "right"
    assert _corner_errors(cal, cam).max() < 2.0


def test_faint_house_line_tells_the_head():
    """A worn house line, a little darker than the cloth (about one grey level, like
    the baulk line of the james-ecd footage), is too faint to measure but still found
    by the matched filter at one end and not at the other."""
    cam = _rot_about_table(CAMS["1080p-tilted-mild-lens"], *PYR.size_mm)  # head at the right
    worn = tuple(0.8 * c for c in CLOTH_COLOURS["green"])
    cal = calibrate(_view(cam, seed=3, look=cloth_look("green", marking_rgb=worn)), PYR)
    head = cal.quality["head_end"]
    assert head["decided_by"] == "faint markings"
    assert head["image_side"] == "right"
    faint = head["faint_lines"]
    assert faint["head"]["contrast"] < 0 and abs(faint["head"]["contrast"]) < 3.0
    assert faint["head"]["significance"] > 2 * faint["foot"]["significance"]
    assert _corner_errors(cal, cam).max() < 2.0


def test_ball_centres_map_with_their_parallax():
    cam = CAMS["1080p-tilted-mild-lens"]
    cal = calibrate(_view(cam, seed=5, n=2), PYR)
    R = PYR.ball_radius_mm
    near_rail = np.array([[200.0, 150.0], [3400.0, 1650.0], [1775.0, 100.0]])
    px = cam.project(near_rail, R)  # where a ball centre is seen
    right = np.linalg.norm(cal.ball_to_table(px) - near_rail, axis=1)
    flat = np.linalg.norm(cal.to_table(px, 0.0) - near_rail, axis=1)
    assert right.max() < 6.0
    assert flat.min() > right.max()  # ignoring the height would be worse everywhere


def test_no_markings_falls_back_to_profile_and_head_hint():
    cam = CAMS["1080p-tilted-mild-lens"]
    frames = _view(cam, seed=7, n=2, markings=False)
    cal = calibrate(frames, PYR)
    q = cal.quality
    assert q["head_end"]["decided_by"] == "assumed"
    assert set(q["markings"]["missing"]) == {"line:house", "spot:centre", "spot:front", "spot:rear"}
    assert q["markings"]["fallback"] == "profile geometry"
    turned = calibrate(frames, PYR, head="right")
    assert turned.quality["head_end"] == {**turned.quality["head_end"], "decided_by": "hint"}
    assert turned.quality["head_end"]["image_side"] == "right"
    a = np.array(cal.image_points["bed_corners"]["head-left"])
    b = np.array(turned.image_points["bed_corners"]["foot-right"])
    assert np.linalg.norm(a - b) < 3.0  # the same corner, named from the other end


@pytest.mark.parametrize(
    "cloth",
    [
        "blue",
        "red",
        # a dark grey cloth under a dim lamp through the strong lens: the head end's
        # corners and half of one long nose are not found, the fit bends the lens
        # (focal 397 px for 787, corners 3-8 px off)
        pytest.param("grey", marks=pytest.mark.xfail(strict=True, reason="known weak case")),
    ],
)
def test_cloth_colours_strong_lens(cloth):
    cam = CAMS["720p-strong-lens"]
    cal = calibrate(_view(cam, seed=11, look=cloth_look(cloth)), PYR)
    assert _corner_errors(cal, cam).max() < 2.5


@pytest.mark.parametrize("cloth", ["blue", "red", "grey"])
def test_cloth_colours_rendered(cloth):
    """Cloth colours at 1080p."""
    cam = CAMS["1080p-tilted-mild-lens"]
    cal = calibrate(_view(cam, seed=11, n=2, look=cloth_look(cloth)), PYR)
    assert _corner_errors(cal, cam).max() < 2.5


def test_clean_cloth_is_a_table():
    """An evenly lit, empty cloth is one cloth, not three near-identical k-means
    clusters none of which dominates (it used to be refused as 'no table in view')."""
    cam = CAMS["1080p-tilted-mild-lens"]
    cal = calibrate(renderer(cam).render({}), PYR)
    assert _corner_errors(cal, cam).max() < 2.0


def test_720p_camera_height_from_the_parallax_maps_the_bed_ends():
    """A 720p view with no lens distortion, nearly straight down: the long noses show a
    narrow band of the face under them, the short ones a wide band, and the edge is
    located a little differently on each.  Corrected for it (``edge_offset_px``), the
    camera height comes from the markings' parallax and the bed ends map within a few
    mm (uncorrected: height 11 % high, 5.2 mm off at the ends)."""
    cam = CameraModel.looking_down(
        PYR.size_mm, (1280, 720), height_mm=2750, tilt_deg=(0.5, 1.0), roll_deg=3.0
    )
    cal = calibrate(_view(cam, seed=4), PYR)
    height = -cal.camera.centre_world[2]
    assert abs(height / 2750 - 1) < 0.07, height
    bed = _bed_errors(cal, cam)
    assert bed.max() < 4.0, bed.max()


def test_frames_from_a_moved_camera_are_left_out():
    """A handheld or knocked camera: frames shifted from the first are not medianed into
    the background (balls and an arm moving over a still table are kept)."""
    frames = _view(CAMS["1080p-tilted-mild-lens"], seed=5)
    moved = cv2.warpAffine(frames[1], np.float32([[1, 0, 9.0], [0, 1, -6.0]]), (1920, 1080))
    kept = still_frames([frames[0], frames[1], moved])
    assert len(kept) == 2 and kept[1] is frames[1]
