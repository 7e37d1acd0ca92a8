"""Detection on real footage: LukasSeglias/billiard-ai ground-truth images (176 balls).

Prints precision, recall and centre error (px) within a match radius of 8 px, and
the time per image.  Skips (exit 0, a message) when the real data is absent.

    .venv/bin/python benchmarks/bench_detect_real.py [--save-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.vision.detect import BallDetector

REAL = Path("/work/shared/realdata/LukasSeglias__billiard-ai")
GT_DIR = REAL / "test/billiard_detection/resources/test_detection/with_projector_on/without_halo"
MATCH_PX = 8.0


def load_cases() -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """(image path, GT pixels (N,2), GT table mm in profile coordinates (N,2))."""
    prof = load_profile("snooker-lukasseglias")
    L, W = prof.length_mm, prof.width_mm
    d = json.loads((GT_DIR / "testcases.json").read_text())
    out = []
    for c in d["cases"]:
        px = np.array([[b["pixelX"], b["pixelY"]] for b in c["balls"]], float)
        # testcases.json: origin at the table centre, +y towards the image top.
        mm = np.array([[b["x"] + L / 2, W / 2 - b["y"]] for b in c["balls"]], float)
        out.append((GT_DIR / Path(c["image"]).name, px, mm))
    return out


def fit_camera(cases) -> CameraModel:
    """A pinhole camera fitted to the GT pairs (ball centres at height R)."""
    prof = load_profile("snooker-lukasseglias")
    R = prof.ball_radius_mm
    obj = np.concatenate([np.column_stack([mm, np.full(len(mm), -R)]) for _, _, mm in cases])
    img = np.concatenate([px for _, px, _ in cases])
    K0 = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
    flags = (
        cv2.CALIB_USE_INTRINSIC_GUESS
        | cv2.CALIB_FIX_PRINCIPAL_POINT
        | cv2.CALIB_FIX_ASPECT_RATIO
        | cv2.CALIB_ZERO_TANGENT_DIST
        | cv2.CALIB_FIX_K1
        | cv2.CALIB_FIX_K2
        | cv2.CALIB_FIX_K3
    )
    _, K, dist, rv, tv = cv2.calibrateCamera(
        [obj.astype(np.float32)],
        [img.astype(np.float32)],
        (1280, 720),
        K0,
        np.zeros(5),
        flags=flags,
    )
    return CameraModel(K, dist, rv[0], tv[0], (1280, 720))


def match(det: np.ndarray, gt: np.ndarray, radius: float = MATCH_PX):
    """Optimal one-to-one matching within ``radius``: (pairs, distances)."""
    if len(det) == 0 or len(gt) == 0:
        return [], np.zeros(0)
    d = np.linalg.norm(det[:, None] - gt[None], axis=2)
    r, c = linear_sum_assignment(np.where(d <= radius, d, 1e6))
    ok = d[r, c] <= radius
    return list(zip(r[ok], c[ok], strict=True)), d[r[ok], c[ok]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--save-dir", type=Path, help="write annotated images here")
    args = ap.parse_args(argv)
    if not GT_DIR.exists():
        print(f"real data absent ({GT_DIR}); nothing measured")
        return 0
    cases = load_cases()
    cam = fit_camera(cases)
    det = BallDetector(cam, load_profile("snooker-lukasseglias"))
    det.inward_edges = False  # snooker has a black ball (darker than the cloth)
    tp = fp = fn = 0
    errs = []
    times = []
    for path, gt, _ in cases:
        img = cv2.imread(str(path))
        det.detect(img)  # warm-up
        t0 = time.perf_counter()
        d = det.detect(img)
        times.append(time.perf_counter() - t0)
        pairs, dist = match(d.xy_px, gt)
        tp += len(pairs)
        fp += len(d) - len(pairs)
        fn += len(gt) - len(pairs)
        errs.extend(dist)
        print(f"{path.name:>7}: gt {len(gt):3d} det {len(d):3d} matched {len(pairs):3d}")
        if args.save_dir:
            args.save_dir.mkdir(parents=True, exist_ok=True)
            vis = img.copy()
            for x, y in gt:
                cv2.circle(vis, (int(round(x)), int(round(y))), 3, (0, 255, 0), -1)
            for (x, y), r in zip(d.xy_px, d.radius_px, strict=True):
                cv2.circle(vis, (int(round(x)), int(round(y))), int(round(r)), (255, 0, 255), 1)
            cv2.imwrite(str(args.save_dir / path.name), vis)
    prec = tp / max(1, tp + fp)
    rec = tp / max(1, tp + fn)
    e = np.array(errs)
    print(
        f"LukasSeglias GT: {tp + fn} balls, precision {prec:.3f}, recall {rec:.3f} "
        f"(within {MATCH_PX:.0f} px), centre error median {np.median(e):.2f} px "
        f"p95 {np.percentile(e, 95):.2f} px, {1000 * np.median(times):.1f} ms/image"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
