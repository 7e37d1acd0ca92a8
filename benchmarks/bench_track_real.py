"""Real footage with a moving camera: the james-ecd break clip, registered frame by frame.

The camera of ``james-ecd__pool-ball-tracker/resources/video-1531832402.mp4`` is a
handheld phone: the bed drifts by up to ~65 px over the 4.9 s.  This harness
calibrates on the first frames (``pool-uk-6ft``: the racked balls measure 2 in
there), registers every frame onto the first on the rails band
(:mod:`luza.vision.register`), runs the vision pipeline on the registered frames
and prints, every few frames, the registration (how far the bed corners moved,
the ECC correlation), the detections and what the tracker
holds.  There is no ground truth: "every ball accounted for at rest" means 16
balls on the table (seen) once the table is still.  An overlay of the last frame
is written with ``--overlay``.  For the last frame it also prints what the
detector alone finds there on a whole-frame pass (its own cloth model, no
classifier, no tracker; also the ``alone`` column), so a ball the detector finds
but the pipeline drops shows as the difference; ``--model`` runs another ball classifier (.onnx).

    .venv/bin/python benchmarks/bench_track_real.py [--every 10] [--overlay last.png]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from luza.calibration.calib import calibrate  # noqa: E402
from luza.calibration.profiles import load_profile  # noqa: E402
from luza.vision.cli import draw_overlay  # noqa: E402
from luza.vision.detect import BallDetector  # noqa: E402
from luza.vision.identify import BallIdentifier  # noqa: E402
from luza.vision.pipeline import VisionPipeline  # noqa: E402
from luza.vision.register import FrameRegistrar, rails_mask  # noqa: E402
from luza.vision.sources import Frame  # noqa: E402

REAL = Path("/work/shared/realdata")
CLIP = REAL / "james-ecd__pool-ball-tracker/resources/video-1531832402.mp4"
N_BALLS = 16  # 7 red, 7 yellow, black, white
RAILS_BAND_PX = 60.0
CORNERS = ("head-left", "head-right", "foot-right", "foot-left")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", type=Path, default=CLIP)
    ap.add_argument("--every", type=int, default=10, help="print every N-th frame")
    ap.add_argument("--refine", action="store_true", help="ECC-refine every registration")
    ap.add_argument("--overlay", type=Path, help="write the last registered frame, annotated")
    ap.add_argument("--model", type=Path, help="ball classifier .onnx (default: installed)")
    ap.add_argument("--table", default="pool-uk-6ft", help="table profile (default: %(default)s)")
    args = ap.parse_args(argv)
    if not args.clip.exists():
        print(f"skipped: {args.clip} not present")
        return 0
    cv2.setNumThreads(1)
    cap = cv2.VideoCapture(str(args.clip))
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    frames = []
    while True:
        ok, f = cap.read()
        if not ok:
            break
        frames.append(f)
    prof = load_profile(args.table)
    cal = calibrate(frames[:8], prof)
    bed = np.array([cal.image_points["bed_corners"][k] for k in CORNERS], float)
    h, w = frames[0].shape[:2]
    reg = FrameRegistrar(frames[0], rails_mask((w, h), bed, RAILS_BAND_PX))
    game = "free-pyramid"
    ident = BallIdentifier(game, model_path=args.model) if args.model else None
    pipe = VisionPipeline(cal.camera, prof, game, identifier=ident)
    print(f"{args.clip.name}: {len(frames)} frames at {fps:.0f} fps, {w}x{h}")
    print(
        f"{'frame':>5s} {'drift px':>8s} {'inliers':>7s} {'ecc':>5s} "
        f"{'det':>4s} {'table':>5s} {'seen':>4s} {'alone':>5s}"
    )
    alone_det = BallDetector(cal.camera, prof)  # whole-frame passes, per-frame cloth model
    t_reg = t_pipe = 0.0
    res = warped = None
    drift_max = 0.0
    for i, f in enumerate(frames):
        t0 = time.perf_counter()
        r = reg.register(f, refine=args.refine)
        warped = reg.warp(f, r.H)
        t1 = time.perf_counter()
        res = pipe.process(Frame(i, i / fps, warped))
        t_pipe += time.perf_counter() - t1
        t_reg += t1 - t0
        moved = cv2.perspectiveTransform(bed[None], np.linalg.inv(r.H))[0]
        drift = float(np.linalg.norm(moved - bed, axis=1).max())
        drift_max = max(drift_max, drift)
        if i % args.every == 0 or i == len(frames) - 1:
            ecc = f"{r.ecc:5.3f}" if r.ecc is not None else "    -"
            print(
                f"{i:5d} {drift:8.1f} {r.inliers:7d} {ecc} {len(res.detections):4d} "
                f"{len(res.tracked.positions):5d} {len(res.tracked.visible):4d} "
                f"{len(alone_det.detect(warped)):5d}"
            )
    n = len(frames)
    print(
        f"\ncamera drift (bed corners vs frame 0): up to {drift_max:.1f} px; registration "
        f"{1000 * t_reg / n:.0f} ms/frame, pipeline {1000 * t_pipe / n:.0f} ms/frame"
    )
    seen = len(res.tracked.visible)
    print(
        f"last frame: {len(res.detections)} detections, {seen} balls seen of {N_BALLS} "
        f"({'all accounted for' if seen == N_BALLS else 'NOT all accounted for'})"
    )
    alone = alone_det.detect(warped)
    print(
        f"last frame, the detector alone (whole frame): {len(alone)} detections, "
        f"{int((alone.score >= 0.5).sum())} scoring >= 0.5"
    )
    if args.overlay is not None:
        cv2.imwrite(
            str(args.overlay), draw_overlay(warped, cal.camera, prof.ball_radius_mm, res.tracked)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
