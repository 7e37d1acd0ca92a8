"""Rendering speed: frames per second of the overhead renderer on one core.

    .venv/bin/python -m luza.samples.bench_render [--frames N] [--sizes 1280x720,1920x1080]

Prints, per resolution: the set-up time of a Renderer (static table, rays), and
frames/s for a Free Pyramid rack + cue ball (16 balls) with noise, the same with the
player's cue and arms, and a Five Ball frame with three balls moving under motion
blur (8 sub-frames).  OpenCV is held to one thread so the figures are per core; the
rates are computed from the process's CPU time (``time.process_time``), so a busy
machine does not distort them (wall-clock rates are printed too).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.physics.state import BallPose
from luza.samples.look import Look
from luza.samples.people import cue_for_strike
from luza.samples.render import Renderer


def _rack_poses(profile) -> dict[str, BallPose]:
    rng = np.random.default_rng(0)
    poses = {
        str(i + 1): BallPose(x, y, 0.0, cv2.Rodrigues(rng.normal(0, 1, 3))[0])
        for i, (x, y) in enumerate(profile.rack_positions())
    }
    poses["Y"] = BallPose(profile.length_mm * 0.2, profile.width_mm * 0.45)
    return poses


def bench(size: tuple[int, int], frames: int) -> dict:
    profile = load_profile("pyramid-12ft")
    cam = CameraModel.looking_down(
        profile.size_mm,
        size,
        height_mm=3000.0,
        dist=(-0.12, 0.02, 0, 0, 0),
        tilt_deg=(2.0, 1.0),
        roll_deg=1.0,
    )
    t0 = time.process_time()
    r = Renderer(profile, cam, Look(), seed=0)
    setup_s = time.process_time() - t0
    poses = _rack_poses(profile)
    r.render(poses)  # warm caches (glyphs)

    def rate(fn: Callable[[int], object]) -> tuple[float, float]:
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(frames):
            fn(i)
        return frames / (time.process_time() - c0), frames / (time.perf_counter() - w0)

    rack_fps = rate(lambda i: r.render(poses, t=i / 30))
    cb = (poses["Y"].x_mm, poses["Y"].y_mm)
    apex = profile.rack_positions()[0]
    ang = math.atan2(apex[1] - cb[1], apex[0] - cb[0])
    cue_fps = rate(
        lambda i: r.render(poses, occluders=cue_for_strike(profile, cb, ang, 2.0, 1.0 + i / 30))
    )
    L, W = profile.size_mm

    def moving(t: float) -> dict[str, BallPose]:
        return {
            "W1": BallPose(600 + 3000 * t, 500 + 800 * t),
            "R1": BallPose(2000 - 1500 * t, 1200.0),
            "K": BallPose(L / 2, 300 + 2000 * t),
            "W2": BallPose(L * 0.75, W / 2),
            "R2": BallPose(L * 0.875, W / 2),
        }

    blur_fps = rate(lambda i: r.render_exposure(moving, i / 60, 1 / 120, n_sub=8))
    return {"setup_s": setup_s, "rack_fps": rack_fps, "cue_fps": cue_fps, "blur_fps": blur_fps}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--sizes", default="1280x720,1920x1080")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print(f"{'size':>10} {'set-up s':>9} {'rack fps':>13} {'+cue fps':>13} {'blur fps':>13}")
    print(f"{'':>10} {'(cpu)':>9} {'cpu (wall)':>13} {'cpu (wall)':>13} {'cpu (wall)':>13}")
    for s in args.sizes.split(","):
        w, h = (int(v) for v in s.lower().split("x"))
        b = bench((w, h), args.frames)
        cells = " ".join(
            f"{b[k][0]:6.1f} ({b[k][1]:4.1f})" for k in ("rack_fps", "cue_fps", "blur_fps")
        )
        print(f"{w}x{h:<5} {b['setup_s']:9.2f} {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
