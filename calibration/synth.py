"""A tiny table renderer for calibration tests and development.

It draws only what calibration looks at -- floor, rails, cushions, the bed,
pocket holes, spots, the house line, a few balls and an optional "arm" -- with
the exact :class:`CameraModel` projection (lens distortion and parallax
included), so the ground truth is known to the pixel.  The project's full
renderer lives in ``luza.samples.render``; this one has no dependency on it.

Why it is still here (the calibration tests were ported to the project renderer
where they can be): on ``luza.samples.render`` frames the calibrator does not yet meet
two tests' figures, so these cases still render with this module --

* ``tests/test_calibration_find.py``, the strong-lens 720p camera (k1 = -0.25, 2.7 m up):
  the bed corners come out 2.7-13 px off (tests: 2.0 / 2.5 px) and bed points up to
  17-75 mm off (test: 8 mm), for the bed test and for the cloth-colour tests on it;
* ``tests/test_calibration_monitor.py``, the knocked camera: the monitor recalibrates
  from the median of several frames, i.e. the clean, empty cloth, which
  ``find_table.segment_cloth`` refuses as "no table in view" (k-means splits an evenly
  lit cloth into three similar clusters, none over 35 %).

Both renderer cases are in the tests as strict xfails (``test_clean_cloth_is_a_table``
and the monitor test's ``real=True`` case); once the calibrator passes them, port the
remaining cases and delete this module.
"""

from __future__ import annotations

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile

SHIFT = 4  # sub-pixel bits for cv2 drawing
SS = 3  # supersampling: polygons are filled exactly at 3x, then area-averaged
_SCALE = float(1 << SHIFT)


def _poly(cam: CameraModel, pts_mm: np.ndarray, height_mm: float, ss: int = 1) -> np.ndarray:
    """Project a closed polygon densely (so distortion bends its edges)."""
    pts = np.asarray(pts_mm, dtype=float)
    dense = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        n = max(2, int(np.linalg.norm(b - a) / 20.0))
        t = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
        dense.append(a + (b - a) * t)
    px = (cam.project(np.concatenate(dense), height_mm) + 0.5) * ss - 0.5
    return np.round(px * _SCALE).astype(np.int32)


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=float)


def _circle(cx: float, cy: float, r: float, n: int = 40) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def render_table(
    profile: TableProfile,
    cam: CameraModel,
    cloth_bgr: tuple[int, int, int] = (60, 140, 40),
    rail_bgr: tuple[int, int, int] = (30, 50, 90),
    floor_bgr: tuple[int, int, int] = (90, 100, 110),
    balls: list[tuple[float, float]] | None = None,
    arm: bool = False,
    noise: float = 2.0,
    brightness: float = 1.0,
    seed: int = 0,
    markings: bool = True,
) -> np.ndarray:
    """Render one BGR uint8 view of ``profile`` through ``cam``."""
    rng = np.random.default_rng(seed)
    w, h = cam.image_size
    img = np.empty((h * SS, w * SS, 3), np.uint8)
    img[:] = floor_bgr
    L, W = profile.length_mm, profile.width_mm
    hn = profile.cushion_nose_height_mm
    cw, rw = profile.cushion_width_mm, profile.rail_width_mm
    cloth = np.array(cloth_bgr, float)

    def col(scale: float, add: float = 0.0) -> tuple[int, ...]:
        return tuple(int(c) for c in np.clip(cloth * scale + add, 0, 255))

    rail = _poly(cam, _rect(-cw - rw, -cw - rw, L + cw + rw, W + cw + rw), hn + 10, SS)
    cv2.fillPoly(img, [rail], rail_bgr, cv2.LINE_8, SHIFT)
    # the bed (cloth at height 0) with its markings
    cv2.fillPoly(img, [_poly(cam, _rect(0, 0, L, W), 0.0, SS)], col(1.0), cv2.LINE_8, SHIFT)
    if markings:
        for name in profile.marked_lines:
            (x0, y0), (x1, y1) = profile.lines[name]
            d = np.array([x1 - x0, y1 - y0]) / max(1e-9, np.hypot(x1 - x0, y1 - y0))
            n = np.array([-d[1], d[0]]) * 1.5  # a 3 mm chalk line
            quad = np.array([[x0, y0] + n, [x1, y1] + n, [x1, y1] - n, [x0, y0] - n])
            cv2.fillPoly(img, [_poly(cam, quad, 0.0, SS)], col(0.55, 110), cv2.LINE_8, SHIFT)
        for name in profile.marked_spots:
            x, y = profile.spots[name]
            spot = _poly(cam, _circle(x, y, 12.0, 24), 0.0, SS)
            cv2.fillPoly(img, [spot], (235, 235, 235), cv2.LINE_8, SHIFT)
    # the cushions' vertical faces under the nose, where the camera can see them
    C = cam.centre_world
    t = np.linspace(0.0, 1.0, 60)[:, None]
    faces = (
        (((0, 0), (0, W)), C[0] > 0),
        (((L, 0), (L, W)), C[0] < L),
        (((0, 0), (L, 0)), C[1] > 0),
        (((0, W), (L, W)), C[1] < W),
    )
    for (a, b), visible in faces:
        if not visible:
            continue
        line = np.array(a, float) + (np.array(b, float) - np.array(a, float)) * t
        poly = np.concatenate([cam.project(line, 0.0), cam.project(line[::-1], hn)])
        poly = np.round(((poly + 0.5) * SS - 0.5) * _SCALE).astype(np.int32)
        cv2.fillPoly(img, [poly], col(0.55), cv2.LINE_8, SHIFT)
    # cushion tops: a ring at the nose height, a little darker than the bed
    ring = [
        _poly(cam, _rect(-cw, -cw, L + cw, W + cw), hn, SS),
        _poly(cam, _rect(0, 0, L, W), hn, SS),
    ]
    cv2.fillPoly(img, ring, col(0.85), cv2.LINE_8, SHIFT)
    # pocket holes
    for p in profile.pockets().values():
        hole = _poly(cam, _circle(*p.centre, p.spec.drop_radius_mm), hn, SS)
        cv2.fillPoly(img, [hole], (12, 12, 12), cv2.LINE_8, SHIFT)
    R = profile.ball_radius_mm
    for bx, by in balls or []:
        c = (cam.project(np.array([bx, by]), R) + 0.5) * SS - 0.5
        rad = R / cam.mm_per_px((bx, by), R) * SS
        shade = (230, 230, 225) if rng.random() < 0.7 else (40, 200, 230)
        cv2.circle(
            img,
            tuple(np.round(c * _SCALE).astype(int)),
            int(rad * _SCALE),
            shade,
            -1,
            cv2.LINE_8,
            SHIFT,
        )
    if arm:  # a sleeve reaching in over a long cushion
        x = rng.uniform(0.2, 0.8) * L
        side = rng.choice([-1.0, 1.0])
        y0 = -cw - rw - 300 if side < 0 else W + cw + rw + 300
        y1 = rng.uniform(0.25, 0.45) * W if side < 0 else rng.uniform(0.55, 0.75) * W
        quad = np.array([[x - 60, y0], [x + 60, y0], [x + 40, y1], [x - 40, y1]])
        cv2.fillPoly(img, [_poly(cam, quad, 400.0, SS)], (40, 40, 70), cv2.LINE_8, SHIFT)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    out = img.astype(np.float32) * brightness
    if noise > 0:
        out += rng.normal(0.0, noise, out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)
