"""Example frames of the renderer, to look at (and for the README).

    .venv/bin/python -m luza.samples.render_examples [--out /tmp/render_look]

Writes three PNGs: a Free Pyramid rack with the cue about to break (green cloth,
1080p), the Five Ball opening layout (blue cloth, 720p), and a mid-game with a
player reaching in, another bridging, and two balls rolling under motion blur
(1080p).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, load_profile
from luza.physics.state import BallPose
from luza.samples import people
from luza.samples.look import BLUE, CLOTH_COLOURS, Look
from luza.samples.render import Renderer


def _rot(rng: np.random.Generator) -> np.ndarray:
    return cv2.Rodrigues(rng.normal(0, 2.0, 3))[0]


def _view(image_size: tuple[int, int], **camera) -> tuple[TableProfile, CameraModel]:
    """The 12 ft pyramid table and a camera above it (``CameraModel.looking_down`` args)."""
    pr = load_profile("pyramid-12ft")
    return pr, CameraModel.looking_down(pr.size_mm, image_size, **camera)


def _save(out: Path, name: str, img: np.ndarray) -> Path:
    path = out / name
    cv2.imwrite(str(path), img)
    return path


def free_pyramid_break(out: Path) -> Path:
    pr, cam = _view(
        (1920, 1080), height_mm=3000, dist=(-0.10, 0.02, 0, 0, 0), tilt_deg=(2, 1.5), roll_deg=1.0
    )
    r = Renderer(pr, cam, Look(), seed=1)
    rng = np.random.default_rng(5)
    poses = {
        str(i + 1): BallPose(x, y, 0, _rot(rng)) for i, (x, y) in enumerate(pr.rack_positions())
    }
    poses["Y"] = BallPose(pr.length_mm * 0.2, pr.width_mm * 0.38)
    apex = pr.rack_positions()[0]
    ang = math.atan2(apex[1] - poses["Y"].y_mm, apex[0] - poses["Y"].x_mm)
    occ = people.cue_for_strike(pr, (poses["Y"].x_mm, poses["Y"].y_mm), ang, 1.0, 0.8)
    return _save(out, "free_pyramid_break_1080p.png", r.render(poses, occ))


def five_ball_opening(out: Path) -> Path:
    pr, cam = _view(
        (1280, 720), height_mm=2800, dist=(-0.16, 0.03, 0, 0, 0), tilt_deg=(-1.5, 2), roll_deg=-1.5
    )
    r = Renderer(pr, cam, BLUE, game="five-ball", seed=2)
    sp, (L, W) = pr.spots, pr.size_mm
    rng = np.random.default_rng(7)
    poses = {
        "K": BallPose(*sp["fb-centre"], 0, _rot(rng)),
        "R1": BallPose(*sp["fb-foot-line"], 0, _rot(rng)),
        "R2": BallPose(*sp["fb-foot-end"], 0, _rot(rng)),
        "W2": BallPose(*sp["fb-head-line"], 0, _rot(rng)),
        "W1": BallPose(L * 0.16, W * 0.62, 0, _rot(rng)),
    }
    return _save(out, "five_ball_opening_720p.png", r.render(poses))


def mid_game(out: Path) -> Path:
    pr, cam = _view(
        (1920, 1080), height_mm=3200, dist=(-0.13, 0.03, 0, 0, 0), tilt_deg=(1, -2), roll_deg=0.7
    )
    r = Renderer(pr, cam, Look(cloth_rgb=CLOTH_COLOURS["tournament-green"]), seed=3)
    rng = np.random.default_rng(11)
    L, W = pr.size_mm
    still = {
        str(i): BallPose(
            float(rng.uniform(150, L - 150)), float(rng.uniform(150, W - 150)), 0, _rot(rng)
        )
        for i in range(1, 10)
    }

    def pose_fn(t: float) -> dict[str, BallPose]:
        d = dict(still)
        v = np.array([2600.0, 900.0])
        p = np.array([L * 0.55, W * 0.25]) + v * t
        axis = np.array([-v[1], v[0], 0.0]) / np.linalg.norm(v)
        d["Y"] = BallPose(p[0], p[1], 0, cv2.Rodrigues(axis * np.linalg.norm(v) * t / 34.0)[0])
        d["10"] = BallPose(
            L * 0.8 - 1500 * t,
            W * 0.7 + 400 * t,
            0,
            cv2.Rodrigues(np.array([0.3, -1.0, 0]) * t * 40)[0],
        )
        return d

    def occ_fn(t: float) -> list:
        hand = people.hand_at(pr, (still["3"].x_mm, still["3"].y_mm), 0.0, 1.0, 0.35)
        return hand + people.cue_for_strike(pr, (L * 0.3, W * 0.75), -0.4, 5.0, 4.2)

    img = r.render_exposure(pose_fn, 0.05, 1 / 60, n_sub=8, occluders_fn=occ_fn)
    return _save(out, "mid_game_arm_blur_1080p.png", img)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/render_look")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for fn in (free_pyramid_break, five_ball_opening, mid_game):
        print(fn(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
