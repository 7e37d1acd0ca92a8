"""Lens distortion: plumb-line from the rails' straightness, and ChArUco/checkerboard.

The radial model is OpenCV's ``(k1, k2)``.  For the plumb-line estimate the
focal length is not known yet, so coefficients are expressed for a *reference*
focal length ``f_ref`` (normalised coordinates ``(u - cx) / f_ref``); with the
real focal ``f`` they become ``k1 = kk1 (f / f_ref)^2``, ``k2 = kk2 (f / f_ref)^4``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import least_squares

from luza.calibration.camera import CameraModel
from luza.errors import LuzaError
from luza.output_files import atomic_file

UNDISTORT_ITERATIONS = 30


class LensError(LuzaError):
    """Camera calibration from images failed."""


def undistort_norm(xd: np.ndarray, yd: np.ndarray, k1: float, k2: float) -> tuple:
    """Invert the radial model on normalised coordinates (fixed iterations: smooth in k)."""
    x, y = xd, yd
    for _ in range(UNDISTORT_ITERATIONS):
        r2 = x * x + y * y
        rad = 1.0 + k1 * r2 + k2 * r2 * r2
        x = xd / rad
        y = yd / rad
    return x, y


def _line_residuals(pts: np.ndarray) -> np.ndarray:
    """Distances of points to their total-least-squares line."""
    c = pts.mean(axis=0)
    q = pts - c
    _, _, vt = np.linalg.svd(q, full_matrices=False)
    nrm = vt[1] if vt[1][np.argmax(np.abs(vt[1]))] > 0 else -vt[1]  # a stable sign
    return q @ nrm


def plumb_line(
    lines_px: Sequence[np.ndarray],
    image_size: tuple[int, int],
    f_ref: float,
    k2: bool = True,
) -> tuple[float, float, float]:
    """Radial distortion ``(kk1, kk2)`` for ``f_ref`` that makes each point set straight.

    ``lines_px``: points (distorted pixels) known to lie on straight lines in the
    world, e.g. the four cushion noses.  Returns ``(kk1, kk2, rms_px)``.
    """
    w, h = image_size
    cx, cy = w / 2.0, h / 2.0
    sets = [np.asarray(p, float) for p in lines_px if len(p) >= 3]
    if len(sets) < 2:
        raise LensError("plumb-line needs at least two lines of points")

    def res(k: np.ndarray) -> np.ndarray:
        kk1, kk2 = (k[0], k[1]) if k2 else (k[0], 0.0)
        out = []
        for p in sets:
            x, y = undistort_norm((p[:, 0] - cx) / f_ref, (p[:, 1] - cy) / f_ref, kk1, kk2)
            out.append(_line_residuals(np.column_stack([x, y])) * f_ref)
        out.append(np.array([kk2 / 0.5]))  # weak prior: k2 is second order
        return np.concatenate(out)

    # a coarse search over k1 first: the cost is not convex far from the answer
    grid = np.linspace(-0.7, 0.35, 43)
    costs = []
    for g in grid:
        r = res(np.array([g, 0.0]) if k2 else np.array([g]))[:-1]
        costs.append(float(np.sum(np.minimum(r**2, 25.0))))
    x0 = np.zeros(2 if k2 else 1)
    x0[0] = grid[int(np.argmin(costs))]
    sol = least_squares(res, x0, loss="huber", f_scale=1.0, x_scale="jac")
    kk1 = float(sol.x[0])
    kk2 = float(sol.x[1]) if k2 else 0.0
    r = res(sol.x)[:-1]
    return kk1, kk2, float(np.sqrt(np.mean(r**2)))


# -------------------------------------------------------------- ChArUco / chessboard
def _read_images(paths: Sequence[str | Path]) -> list[tuple[str, np.ndarray]]:
    out = []
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise LensError(f"cannot read image: {p}")
        out.append((str(p), img))
    if not out:
        raise LensError("no images given")
    sizes = {im.shape for _, im in out}
    if len(sizes) > 1:
        raise LensError(f"images differ in size: {sorted(sizes)}")
    return out


def calibrate_camera(
    paths: Sequence[str | Path],
    board: str = "charuco",
    squares: tuple[int, int] = (6, 8),
    square_mm: float = 34.0,
    marker_mm: float = 27.0,
    dictionary: str = "DICT_4X4_50",
) -> tuple[CameraModel, dict]:
    """Intrinsics and distortion from photos of a ChArUco board or a chessboard.

    ``squares`` is (columns, rows) of board squares (for a chessboard: inner corners).
    Returns a :class:`CameraModel` (identity pose) and a report with the RMS
    reprojection error in pixels and the number of corners used per image.
    """
    imgs = _read_images(paths)
    h, w = imgs[0][1].shape
    obj_pts, img_pts, used = [], [], {}
    if board == "charuco":
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        cb = cv2.aruco.CharucoBoard(tuple(squares), square_mm, marker_mm, d)
        det = cv2.aruco.CharucoDetector(cb)
        for name, img in imgs:
            corners, ids, _, _ = det.detectBoard(img)
            n = 0 if ids is None else len(ids)
            used[name] = n
            if n < 6:
                continue
            o, i = cb.matchImagePoints(corners, ids)
            obj_pts.append(o.astype(np.float32))
            img_pts.append(i.astype(np.float32))
    elif board == "chessboard":
        pattern = tuple(squares)
        grid = np.zeros((pattern[0] * pattern[1], 3), np.float32)
        grid[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2) * square_mm
        for name, img in imgs:
            ok, corners = cv2.findChessboardCorners(img, pattern)
            used[name] = 0
            if not ok:
                continue
            corners = cv2.cornerSubPix(
                img,
                corners,
                (5, 5),
                (-1, -1),
                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-3),
            )
            used[name] = len(corners)
            obj_pts.append(grid.copy())
            img_pts.append(corners)
    else:
        raise LensError(f"unknown board type '{board}' (charuco or chessboard)")
    if len(obj_pts) < 3:
        raise LensError(
            f"the board was found in {len(obj_pts)} of {len(imgs)} images; need at least 3 "
            f"(board {board} {squares[0]}x{squares[1]}, {dictionary})"
        )
    rms, K, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, (w, h), None, None)
    cam = CameraModel(K, dist.ravel()[:5], np.zeros(3), np.array([0.0, 0.0, 1000.0]), (w, h))
    report = {"rms_px": float(rms), "images_used": len(obj_pts), "corners": used}
    return cam, report


def save_camera(cam: CameraModel, report: dict, path: str | Path) -> None:
    import json

    d = {"format": "luza-camera/1", "camera": cam.to_dict(), "report": report}
    with atomic_file(path) as tmp:
        tmp.write_text(json.dumps(d, indent=2) + "\n", encoding="utf-8")


def load_camera(path: str | Path) -> CameraModel:
    import json

    p = Path(path)
    if not p.exists():
        raise LensError(f"camera file not found: {p}")
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
        return CameraModel.from_dict(d.get("camera", d))
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise LensError(f"{p}: not a luza camera file ({e})") from None
