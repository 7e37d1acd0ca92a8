"""A contact sheet: a few frames of a clip with its ground truth drawn on them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.output_files import write_image
from luza.samples.video import read_frames

SHEET_TILE_WIDTH_PX = 960
SHEET_COLUMNS = 2
KEY_EVENTS = ("shot_start", "pocket", "off_table", "ball_placed", "ball_removed", "shot_end")


def pick_frames(truth: dict, n: int = 6) -> list[int]:
    """Frames worth looking at: key events first, then evenly spread ones."""
    last = truth["n_frames"] - 1
    keys = sorted({min(last, e["frame"] + 2) for e in truth["events"] if e["type"] in KEY_EVENTS})
    if len(keys) > n:
        idx = np.linspace(0, len(keys) - 1, n).round().astype(int)
        keys = [keys[i] for i in idx]
    extra = [int(f) for f in np.linspace(0, last, n + 2)[1:-1]]
    out = sorted(set(keys) | set(extra[: max(0, n - len(keys))]))
    return out[:n]


def draw_truth(img: np.ndarray, truth: dict, frame: int) -> np.ndarray:
    """Ball ids at their true image positions (ball centre height), pockets and spots."""
    cam = CameraModel.from_dict(truth["camera"])
    R = truth["table"]["ball_diameter_mm"] / 2
    out = img.copy()
    ip = truth["image_points"]
    corners = np.array(
        [ip["bed_corners"][k] for k in ("head-left", "head-right", "foot-right", "foot-left")]
    )
    cv2.polylines(out, [corners.round().astype(np.int32)], True, (255, 200, 0), 1, cv2.LINE_AA)
    for p in ip["pockets"].values():
        c = tuple(int(round(v)) for v in p["centre"])
        cv2.circle(out, c, 4, (0, 200, 255), 1, cv2.LINE_AA)
    fr = truth["frames"][frame]
    if fr["balls"]:
        ids = list(fr["balls"])
        xy = np.array([fr["balls"][k] for k in ids], dtype=float)
        lift = np.array([fr.get("lift", {}).get(k, 0.0) for k in ids], dtype=float)
        px = cam.project(xy, R + lift)
        r_px = R / cam.mm_per_px(tuple(xy[0]), R)
        for k, (u, v) in zip(ids, px, strict=True):
            c = (int(round(u)), int(round(v)))
            col = (0, 0, 255) if k in fr.get("moving", []) else (0, 255, 0)
            cv2.circle(out, c, int(round(r_px)) + 3, col, 1, cv2.LINE_AA)
            cv2.putText(
                out,
                k,
                (c[0] + int(r_px) + 2, c[1] - int(r_px)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                col,
                1,
                cv2.LINE_AA,
            )
    label = f"frame {frame}  t={fr['t']:.2f}s"
    evs = [e for e in truth["events"] if abs(e["frame"] - frame) <= 2 and e["type"] in KEY_EVENTS]
    if evs:
        label += "  " + ", ".join(
            e["type"] + ":" + str(e.get("ball", e.get("cue_ball", ""))) for e in evs
        )
    cv2.putText(out, label, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(
        out, label, (12, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA
    )
    return out


def contact_sheet(video: str | Path, truth: dict, out_png: str | Path, n: int = 6) -> Path:
    wanted = set(pick_frames(truth, n))
    tiles = []
    for i, img in enumerate(read_frames(video)):
        if i in wanted:
            t = draw_truth(img, truth, i)
            s = SHEET_TILE_WIDTH_PX / t.shape[1]
            tiles.append(cv2.resize(t, None, fx=s, fy=s, interpolation=cv2.INTER_AREA))
        if len(tiles) == len(wanted):
            break
    if not tiles:
        raise ValueError(f"{video}: no frames could be read")
    while len(tiles) % SHEET_COLUMNS:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i : i + SHEET_COLUMNS]) for i in range(0, len(tiles), SHEET_COLUMNS)]
    sheet = np.vstack(rows)
    out_png = Path(out_png)
    write_image(out_png, sheet, "the contact sheet")
    return out_png
