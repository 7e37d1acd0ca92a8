"""Synthetic footage with ground truth: a scene, played by the physics, filmed by the renderer.

``make_clip`` writes ``<name>.mp4`` (H.264) and ``<name>.truth.json``:

- ``camera``: intrinsics ``K``, distortion ``dist``, pose ``rvec``/``tvec`` (world ->
  camera, world = table mm with z down, see ``calibration/camera.py``), ``image_size``;
- ``image_points``: pixels (of the distorted image) of the bed corners (the
  cushion-nose rectangle, at the nose height where a camera sees it, and on the cloth),
  the pocket jaws and drop centres, and the spots;
- ``frames``: for every frame its time and every ball on the table in table mm
  (the centre projected on the bed), with the ball's lift, whether it moves and
  whether people hide more than half of it (``hidden``);
- ``events``: every event of the physics, DESIGN.md vocabulary, with time and frame;
- ``actions``: what the people did (strokes with their cue line, hands placing or
  taking balls), ``look``, ``scene``, ``game``, ``seed``, ``fps``.

Frame ``i`` is exposed around ``t = i / fps`` for ``EXPOSURE_FRACTION / fps``
seconds; an event at time ``t`` belongs to frame ``round(t * fps)``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, load_profile
from luza.errors import LuzaError
from luza.samples.look import Look, random_look
from luza.samples.people import cue_for_strike, hand_at
from luza.samples.render import Renderer
from luza.samples.scenes import SCENES, build_scene
from luza.samples.video import VideoWriter

EXPOSURE_FRACTION = 0.5  # shutter open for half the frame period (a 180-degree shutter)
BLUR_STEP_PX = 2.0  # one sub-frame per this many pixels a ball moves during the exposure
MAX_SUBFRAMES = 24
HIDDEN_VISIBILITY = 0.5  # a ball with less than half its silhouette in view is "hidden"
LEAD_IN_S = 0.5  # the clip starts a little before the first person appears
TAIL_S = 0.8

CAMERA_HEIGHT_MM = (2500.0, 3500.0)
CAMERA_TILT_DEG = 3.0
CAMERA_ROLL_DEG = 2.0
DISTORTION_K1 = (-0.32, 0.0)


@dataclass(frozen=True)
class ClipConfig:
    scene: str
    seed: int = 0
    size: tuple[int, int] = (1280, 720)
    fps: float = 30.0
    table: str | None = None  # default: the scene's table
    camera: str = "random"  # "random" (pose, lens) or "nominal" (straight down, no distortion)
    look: str = "random"  # "random" or "nominal"
    crf: int | None = None  # H.264 quality; default: the look's (camera-like variety)

    @property
    def name(self) -> str:
        w, h = self.size
        return f"{self.scene}_s{self.seed}_{h}p{int(round(self.fps))}"


def random_camera(
    profile: TableProfile, size: tuple[int, int], rng: np.random.Generator
) -> CameraModel:
    """A plausible club camera: 2.5-3.5 m above the bed, small tilt and roll, barrel lens."""
    height = float(rng.uniform(*CAMERA_HEIGHT_MM))
    k1 = float(rng.uniform(*DISTORTION_K1))
    return CameraModel.looking_down(
        profile.size_mm,
        size,
        height_mm=height,
        fill=float(rng.uniform(0.86, 0.95)),
        tilt_deg=(
            float(rng.normal(0, CAMERA_TILT_DEG / 2)),
            float(rng.normal(0, CAMERA_TILT_DEG / 2)),
        ),
        roll_deg=float(rng.normal(0, CAMERA_ROLL_DEG / 2)),
        offset_mm=(float(rng.normal(0, 60)), float(rng.normal(0, 40))),
        dist=(k1, 0.3 * k1 * k1, 0.0, 0.0, 0.0),
    )


def nominal_camera(profile: TableProfile, size: tuple[int, int]) -> CameraModel:
    return CameraModel.looking_down(profile.size_mm, size, height_mm=3000.0, fill=0.9)


def image_points(camera: CameraModel, profile: TableProfile) -> dict:
    """Truth pixels of the bed corners, pockets and spots (distorted image)."""
    nose = profile.cushion_nose_height_mm

    def px(xy, h=0.0):
        return [round(float(v), 3) for v in camera.project(np.asarray(xy, float), h)]

    corners = profile.bed_corners()
    return {
        "bed_corners": {k: px(v, nose) for k, v in corners.items()},
        "bed_corners_cloth": {k: px(v, 0.0) for k, v in corners.items()},
        "pockets": {
            k: {"jaw_a": px(p.jaw_a, nose), "jaw_b": px(p.jaw_b, nose), "centre": px(p.centre)}
            for k, p in profile.pockets().items()
        },
        "spots": {k: px(v) for k, v in profile.spots.items()},
    }


def _jsonable(x):
    if dataclasses.is_dataclass(x):
        return {k: _jsonable(v) for k, v in dataclasses.asdict(x).items()}
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (np.floating, float)):
        return round(float(x), 4)
    if isinstance(x, np.integer):
        return int(x)
    return x


@dataclass
class ClipResult:
    video: Path
    truth: Path
    n_frames: int
    duration_s: float
    render_s: float
    bytes: int


def make_clip(cfg: ClipConfig, out_dir: str | Path, progress: bool = False) -> ClipResult:
    """Play the scene, render every frame, write the H.264 clip and its truth."""
    if cfg.scene not in SCENES:
        raise LuzaError(f"unknown scene '{cfg.scene}'; scenes: {', '.join(sorted(SCENES))}")
    if cfg.fps <= 0 or cfg.size[0] < 320 or cfg.size[1] < 240:
        raise LuzaError(f"unusable clip format {cfg.size[0]}x{cfg.size[1]} at {cfg.fps} fps")
    spec = SCENES[cfg.scene]
    profile = load_profile(cfg.table or spec.table)
    rng = np.random.default_rng([cfg.seed, 7919])
    camera = (
        random_camera(profile, cfg.size, rng)
        if cfg.camera == "random"
        else nominal_camera(profile, cfg.size)
    )
    look = random_look(rng) if cfg.look == "random" else Look()
    play = build_scene(cfg.scene, profile, cfg.seed)
    renderer = Renderer(profile, camera, look, game=spec.game, seed=cfg.seed)

    tl = play.timeline
    duration = tl.duration_s + TAIL_S
    fps = float(cfg.fps)
    n_frames = int(math.floor(duration * fps)) + 1
    exposure = EXPOSURE_FRACTION / fps
    mm_per_px = camera.mm_per_px((profile.length_mm / 2, profile.width_mm / 2))

    def occluders(t: float) -> list:
        out: list = []
        for a in play.actions:
            if a.kind == "stroke":
                out += cue_for_strike(profile, a.pos, a.angle_rad, a.t, t)
            elif a.t0 <= t <= a.t1:
                out += hand_at(profile, a.pos, a.t0, a.t1, t)
        return out

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    video = out_dir / f"{cfg.name}.mp4"
    frames_truth = []
    t_render = time.perf_counter()
    crf = cfg.crf if cfg.crf is not None else int(look.crf)
    with VideoWriter(video, fps, cfg.size, crf=crf) as writer:
        for i in range(n_frames):
            t = i / fps
            t0 = t - exposure / 2
            a, b = tl.pose_at(max(0.0, t0)), tl.pose_at(t0 + exposure)
            move_px = (
                max(
                    (math.hypot(a[k].x_mm - b[k].x_mm, a[k].y_mm - b[k].y_mm) for k in a if k in b),
                    default=0.0,
                )
                / mm_per_px
            )
            n_sub = int(min(MAX_SUBFRAMES, max(1, math.ceil(move_px / BLUR_STEP_PX))))
            img = renderer.render_exposure(tl.pose_at, t0, exposure, n_sub, occluders_fn=occluders)
            writer.write(img)
            poses = tl.pose_at(t)
            occ = occluders(t)
            hidden = []
            if occ:
                vis = renderer.visibility({k: p for k, p in poses.items() if p.on_table}, occ)
                hidden = sorted(k for k, v in vis.items() if v < HIDDEN_VISIBILITY)
            frames_truth.append(
                {
                    "frame": i,
                    "t": round(t, 6),
                    "balls": {
                        k: [round(p.x_mm, 3), round(p.y_mm, 3)]
                        for k, p in poses.items()
                        if p.on_table
                    },
                    "lift": {
                        k: round(p.lift_mm, 2) for k, p in poses.items() if p.on_table and p.lift_mm
                    },
                    "hidden": hidden,
                    "moving": sorted(
                        k
                        for k in poses
                        if k in a and k in b and (a[k].x_mm, a[k].y_mm) != (b[k].x_mm, b[k].y_mm)
                    ),
                }
            )
            if progress and i % 30 == 0:
                print(f"\r{cfg.name}: frame {i + 1}/{n_frames}", end="", flush=True)
    render_s = time.perf_counter() - t_render
    if progress:
        print()

    events = []
    for e in tl.events:
        d = e.to_dict()
        d["frame"] = int(round(e.t * fps))
        events.append(d)
    truth = {
        "format": "luza-truth/1",
        "scene": cfg.scene,
        "description": spec.description,
        "game": spec.game,
        "seed": cfg.seed,
        "fps": fps,
        "size": list(cfg.size),
        "n_frames": n_frames,
        "duration_s": round(n_frames / fps, 4),
        "exposure_s": exposure,
        "table": {
            "name": profile.name,
            "length_mm": profile.length_mm,
            "width_mm": profile.width_mm,
            "ball_diameter_mm": profile.ball_diameter_mm,
        },
        "camera": camera.to_dict(),
        "image_points": image_points(camera, profile),
        "look": _jsonable(look),
        "actions": _jsonable(play.actions),
        "notes": play.notes,
        "events": events,
        "frames": frames_truth,
    }
    truth_path = out_dir / f"{cfg.name}.truth.json"
    tmp = truth_path.with_name(truth_path.name + ".tmp")
    tmp.write_text(json.dumps(truth, separators=(",", ":")), encoding="utf-8")
    tmp.replace(truth_path)
    return ClipResult(video, truth_path, n_frames, n_frames / fps, render_s, video.stat().st_size)


def load_truth(path: str | Path) -> dict:
    """Read a ``.truth.json`` with a clear error for a missing or foreign file."""
    p = Path(path)
    if not p.is_file():
        raise LuzaError(f"truth file not found: {p}")
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise LuzaError(f"{p}: not valid JSON ({e.msg})") from None
    if not isinstance(d, dict) or d.get("format") != "luza-truth/1":
        raise LuzaError(f"{p}: not a luza truth file (format luza-truth/1)")
    return d
