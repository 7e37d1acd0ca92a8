"""Detector speed against another version of ``vision/detect.py``, and proof of the same results.

Runs the vision pipeline over each clip twice -- with the current detector and with
the one in ``--old`` (a copy of another revision's ``vision/detect.py``) -- and
prints per clip: the detector's and the whole pipeline's CPU time per frame (the
tracking thread's CPU time: steadier than wall time on a shared machine; best of
``--reps`` alternating runs) and the largest difference between the two runs'
tracked positions and detections (mm), with the frames whose ball sets differ.

    git show 64373f3:vision/detect.py > /tmp/detect_old.py
    .venv/bin/python benchmarks/bench_detect_speed.py --old /tmp/detect_old.py \\
        /tmp/bench-vision/*.mp4
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import luza.vision.pipeline as pipeline_mod  # noqa: E402
from luza.calibration.camera import CameraModel  # noqa: E402
from luza.calibration.profiles import load_profile  # noqa: E402
from luza.vision import detect as current  # noqa: E402
from luza.vision.sources import open_source  # noqa: E402

cv2.setNumThreads(1)
TIMED = ("set_background", "detect", "detect_regions", "surroundings", "foreground")


def load_detect(path: Path):
    """Another version of the detector module (its relative imports resolve in luza.vision)."""
    spec = importlib.util.spec_from_file_location("luza.vision._detect_other", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def timed_detector(module):
    """The module's BallDetector, its public calls adding their thread CPU time up."""
    spent = [0.0]

    class Timed(module.BallDetector):
        pass

    def wrap(name):
        base = getattr(module.BallDetector, name)

        def call(self, *a, **kw):
            t0 = time.thread_time()
            try:
                return base(self, *a, **kw)
            finally:
                spent[0] += time.thread_time() - t0

        return call

    for name in TIMED:
        setattr(Timed, name, wrap(name))
    return Timed, spent


def run(clip: Path, max_frames: int, cam, prof, game, module) -> tuple[list, float, float]:
    """(per frame: tracked positions, visible ids, detections), detector CPU s, pipeline CPU s
    (``pipe.process`` alone: the clip is decoded as it goes, in a thread of its own,
    rather than held in memory -- a 1080p60 clip is 4-5 GB of frames)."""
    cls, spent = timed_detector(module)
    pipeline_mod.BallDetector = cls
    try:
        pipe = pipeline_mod.VisionPipeline(cam, prof, game)
        rows = []
        busy = 0.0
        with open_source(clip) as src:
            for fr in src:
                if max_frames and fr.index >= max_frames:
                    break
                t0 = time.thread_time()
                res = pipe.process(fr)
                busy += time.thread_time() - t0
                rows.append(
                    (dict(res.tracked.positions), sorted(res.tracked.visible), res.detections.xy_mm)
                )
        return rows, spent[0], busy
    finally:
        pipeline_mod.BallDetector = current.BallDetector


def compare(a: list, b: list) -> tuple[float, float, int]:
    """Largest tracked / detection difference (mm) and frames whose balls differ."""
    worst_t = worst_d = 0.0
    other = 0
    for (pa, va, da), (pb, vb, db) in zip(a, b, strict=True):
        if set(pa) != set(pb) or va != vb or len(da) != len(db):
            other += 1
            continue
        for k in pa:
            worst_t = max(worst_t, float(np.abs(np.subtract(pa[k], pb[k])).max()))
        if len(da):
            worst_d = max(worst_d, float(np.abs(da - db).max()))
    return worst_t, worst_d, other


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", type=Path, help="<clip>.mp4 with <clip>.truth.json")
    ap.add_argument("--old", type=Path, required=True, help="another version's detect.py")
    ap.add_argument("--frames", type=int, default=0, help="at most this many frames a clip")
    ap.add_argument("--reps", type=int, default=2, help="alternating runs of each (best kept)")
    args = ap.parse_args(argv)
    old = load_detect(args.old)
    print(
        f"{'clip':28s} {'frames':>6s} {'detect ms/frame old -> new':>27s} "
        f"{'pipeline frames/s (CPU) old -> new':>35s} {'max diff mm (tracked / det)':>28s} "
        f"{'frames differing':>16s}"
    )
    for clip in args.clips:
        truth = json.loads(clip.with_name(clip.stem + ".truth.json").read_text())
        cam = CameraModel.from_dict(truth["camera"])
        prof = load_profile(truth["table"]["name"])
        best = {"old": (np.inf, np.inf), "new": (np.inf, np.inf)}
        rows = {}
        for rep in range(max(1, args.reps)):
            order = (("old", old), ("new", current))
            for tag, mod in order if rep % 2 == 0 else order[::-1]:
                rows[tag], det_s, pipe_s = run(clip, args.frames, cam, prof, truth["game"], mod)
                best[tag] = (min(best[tag][0], det_s), min(best[tag][1], pipe_s))
        n = len(rows["new"])
        wt, wd, other = compare(rows["old"], rows["new"])
        print(
            f"{clip.stem[:28]:28s} {n:6d} {1000 * best['old'][0] / n:12.2f} -> "
            f"{1000 * best['new'][0] / n:5.2f} (x{best['old'][0] / best['new'][0]:.2f}) "
            f"{n / best['old'][1]:17.0f} -> {n / best['new'][1]:4.0f} "
            f"(x{best['old'][1] / best['new'][1]:.2f}) {wt:13.1e} / {wd:.1e} {other:16d}",
            flush=True,
        )
        print(f"    load average: {os.getloadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
