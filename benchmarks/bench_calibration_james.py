"""How good is the calibration of the james-ecd break clip's first frames?

``benchmarks/bench_track_real.py`` calibrates the handheld james-ecd clip
(``video-1531832402.mp4``) on its first 8 frames with the ``pool-uk-7ft`` profile.  There
is no ground-truth homography for it, so this prints what the fit itself says (nose
residual, pockets, head end, camera, and how little the view fixes the focal length) and
uses the **racked balls** as a ruler: the 15 object balls stand in a tight triangle
before the break (frames 0-27), so neighbouring centres are one ball diameter apart, the
rows sqrt(3)/2 of that.  Their centres (the detector's, mapped by ``ball_to_table``)
measured in the calibration's millimetres give the calibration's scale against the
balls' real size (UK pool: 2 in, 50.8 mm, the profile's ``ball_diameter_mm``), and rows
along the table against rows across it give its aspect.

    .venv/bin/python benchmarks/bench_calibration_james.py [--frames 0,10,20]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np
from scipy.spatial import cKDTree

from luza.calibration.calib import calibrate
from luza.calibration.profiles import load_profile

CLIP = Path("/work/shared/realdata/james-ecd__pool-ball-tracker/resources/video-1531832402.mp4")
CALIBRATION_FRAMES = 8  # as bench_track_real.py
TOUCHING = 1.25  # neighbours: centres within this many (calibrated) ball diameters


def read_frames(path: Path, n: int) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    frames = []
    while len(frames) < n:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    cap.release()
    return frames


def rack_ruler(cal, frame: np.ndarray) -> dict:
    """The rack's neighbour distances in the calibration's mm (the rack is the cluster
    of balls at the foot end, the image side away from the head)."""
    from luza.vision.detect import BallDetector

    prof = cal.profile
    det = BallDetector(cal.camera, prof).detect(frame)
    mm = cal.ball_to_table(det.xy_px)
    rack = mm[mm[:, 0] > 0.6 * prof.length_mm]  # x from the head nose
    D = prof.ball_diameter_mm
    pairs = np.array(sorted(cKDTree(rack).query_pairs(TOUCHING * 1.2 * D)))
    v = rack[pairs[:, 1]] - rack[pairs[:, 0]]
    d = np.linalg.norm(v, axis=1)
    ang = np.degrees(np.arctan2(np.abs(v[:, 1]), np.abs(v[:, 0])))
    across = d[ang > 75]  # the same row: across the table
    diagonal = d[(ang > 15) & (ang < 45)]  # neighbouring rows: 30 degrees off the axis
    # rows along the table: centres sorted by x fall into 5 groups; the steps between
    # the groups' mean x
    xs = np.sort(rack[:, 0])
    rows = np.split(xs, np.flatnonzero(np.diff(xs) > 0.4 * D) + 1)
    row_steps = np.diff([float(r.mean()) for r in rows])
    return {
        "balls": int(len(mm)),
        "rack_balls": int(len(rack)),
        "rows": len(rows),
        "pairs": int(len(pairs)),
        "neighbour_mm_median": round(float(np.median(d)), 1),
        "across_mm_median": round(float(np.median(across)), 1),
        "diagonal_mm_median": round(float(np.median(diagonal)), 1),
        "row_step_mm_median": round(float(np.median(row_steps)), 1),
        "scale_vs_ball": round(float(np.median(d)) / D, 3),
        # rows along the table against balls across it (1 for a true aspect)
        "aspect_rows_vs_across": round(
            float(np.median(row_steps)) / (float(np.median(across)) * np.sqrt(3) / 2), 3
        ),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", default="0,10,20", help="racked frames to measure")
    a = ap.parse_args(argv)
    if not CLIP.exists():
        print(json.dumps({"skipped": f"{CLIP} not present"}))
        return 0
    which = [int(v) for v in a.frames.split(",")]
    frames = read_frames(CLIP, max(max(which) + 1, CALIBRATION_FRAMES))
    prof = load_profile("pool-uk-7ft")
    cal = calibrate(frames[:CALIBRATION_FRAMES], prof)
    q = cal.quality
    print(
        json.dumps(
            {
                "calibration": {
                    "frames_used": q["frames_used"],
                    "edge_points": q["edge_points"],
                    "edge_rms_px": q["edge_rms_px"],
                    "edge_rms_mm": q["edge_rms_mm"],
                    "pockets_found": len(q["pockets"]["found"]),
                    "head_end": {k: q["head_end"][k] for k in ("image_side", "decided_by")},
                    "camera": q["camera"],
                }
            }
        )
    )
    for i in which:
        print(json.dumps({"frame": i, "rack": rack_ruler(cal, frames[i])}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
