"""An overlay image for a person to check a calibration at a glance."""

from __future__ import annotations

import cv2
import numpy as np

from luza.calibration.calib import Calibration

_SHIFT = 4


def _pts(px: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(px) * (1 << _SHIFT)).astype(np.int32)


def draw_overlay(img: np.ndarray, cal: Calibration, edge_points: dict | None = None) -> np.ndarray:
    """Draw the fitted nose rectangle (curved by the lens), the bed-level lines,
    pockets, spots, corner names and the head end onto a copy of ``img``."""
    out = img.copy()
    p = cal.profile
    L, W, hn = p.length_mm, p.width_mm, p.cushion_nose_height_mm
    # cushion-nose rectangle, densely so distortion shows
    t = np.linspace(0, 1, 200)[:, None]
    rect = np.array([[0, 0], [0, W], [L, W], [L, 0], [0, 0]], float)
    for a, b in zip(rect[:-1], rect[1:], strict=True):
        seg = cal.to_image(a + (b - a) * t, hn)
        cv2.polylines(out, [_pts(seg)], False, (0, 255, 255), 1, cv2.LINE_AA, _SHIFT)
    # a 250 mm grid on the cloth, faint
    for x in np.arange(250.0, L, 250.0):
        seg = cal.to_image(np.column_stack([np.full(50, x), np.linspace(0, W, 50)]), 0.0)
        cv2.polylines(out, [_pts(seg)], False, (200, 200, 200), 1, cv2.LINE_AA, _SHIFT)
    for y in np.arange(250.0, W, 250.0):
        seg = cal.to_image(np.column_stack([np.linspace(0, L, 80), np.full(80, y)]), 0.0)
        cv2.polylines(out, [_pts(seg)], False, (200, 200, 200), 1, cv2.LINE_AA, _SHIFT)
    for name, (a, b) in p.lines.items():
        seg = cal.to_image(np.array(a) + (np.array(b) - np.array(a)) * t, 0.0)
        col = (255, 0, 255) if name in p.marked_lines else (255, 128, 0)
        cv2.polylines(out, [_pts(seg)], False, col, 1, cv2.LINE_AA, _SHIFT)
    mm_px = cal.camera.mm_per_px((L / 2, W / 2))
    for name, pk in p.pockets().items():
        c = cal.to_image(np.array(pk.centre), hn)
        r = pk.spec.drop_radius_mm / mm_px
        cv2.circle(out, tuple(_pts(c)), int(r * (1 << _SHIFT)), (0, 0, 255), 2, cv2.LINE_AA, _SHIFT)
        cv2.putText(
            out,
            name,
            tuple(int(v) for v in c + [-30, -r - 4]),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            (0, 0, 255),
            1,
            cv2.LINE_AA,
        )
    for xy in p.spots.values():
        c = cal.to_image(np.array(xy), 0.0)
        cv2.drawMarker(
            out,
            tuple(int(round(v)) for v in c),
            (255, 255, 0),
            cv2.MARKER_CROSS,
            12,
            1,
            cv2.LINE_AA,
        )
    for name, px in cal.image_points.get("bed_corners", {}).items():
        c = np.array(px)
        cv2.circle(out, tuple(_pts(c)), 4 << _SHIFT, (0, 255, 0), 1, cv2.LINE_AA, _SHIFT)
        cv2.putText(
            out,
            name,
            tuple(int(v) for v in c + [6, 14]),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            (0, 255, 0),
            1,
            cv2.LINE_AA,
        )
    if edge_points:
        for pts in edge_points.values():
            for q in np.asarray(pts):
                cv2.circle(out, tuple(_pts(q)), 1 << _SHIFT, (255, 0, 0), -1, cv2.LINE_AA, _SHIFT)
    head = cal.to_image(np.array([60.0, W / 2]), 0.0)
    cv2.putText(
        out,
        "HEAD",
        tuple(int(v) for v in head + [-10, 0]),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.6,
        (0, 255, 255),
        2,
        cv2.LINE_AA,
    )
    q = cal.quality
    text = (
        f"{p.name}  edge rms {q.get('edge_rms_mm', '?')} mm  "
        f"confidence {q.get('confidence', '?')}  head: {q.get('head_end', {}).get('decided_by')}"
    )
    cv2.putText(
        out, text, (10, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA
    )
    cv2.putText(
        out,
        text,
        (10, out.shape[0] - 12),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.5,
        (255, 255, 255),
        1,
        cv2.LINE_AA,
    )
    return out
