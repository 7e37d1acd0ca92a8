"""Shared set-up for tests that need rendered frames: the project renderer, cached.

Building a :class:`luza.samples.render.Renderer` (rays, table maps, shaded background)
costs a second or two per camera, so renderers are kept in a small cache keyed by
everything that changes them; a test module asks for the same one as often as it
likes.  Cameras come from :meth:`CameraModel.looking_down`.
"""

from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict
from importlib import resources
from pathlib import Path

import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, load_profile
from luza.physics.state import BallPose
from luza.samples.look import CLOTH_COLOURS, Look, random_look
from luza.samples.people import hand_at
from luza.samples.render import Renderer
from luza.samples.synth import random_camera

PYR = load_profile("pyramid-12ft")
CACHE_SIZE = 4  # renderers kept (a 1080p one holds ~0.3 GB of maps)
_CACHE: OrderedDict[str, Renderer] = OrderedDict()
# Ids given to anonymous calibration-test balls: mostly ivory, some coloured.
ANON_IDS = ("1", "2", "Y", "3", "4", "5", "6", "7", "8", "9", "10", "11")


def pyramid_camera(
    profile: TableProfile = PYR, image_size: tuple[int, int] = (1280, 720), **kw
) -> CameraModel:
    """A typical overhead camera for tests: 3 m up, slight tilt, mild barrel distortion."""
    kw.setdefault("height_mm", 3000.0)
    kw.setdefault("tilt_deg", (1.0, -0.5))
    kw.setdefault("dist", (-0.05, 0.01, 0.0, 0.0, 0.0))
    return CameraModel.looking_down(profile.size_mm, image_size, **kw)


def unmarked(profile: TableProfile) -> TableProfile:
    """The same table with no spots or lines drawn on the cloth."""
    return dataclasses.replace(profile, marked_spots=(), marked_lines=())


def cloth_look(name: str, **changes) -> Look:
    """The default look with a named cloth colour (``samples.look.CLOTH_COLOURS``)."""
    return Look(cloth_rgb=CLOTH_COLOURS[name], **changes)


def renderer(
    camera: CameraModel,
    profile: TableProfile = PYR,
    look: Look | None = None,
    game: str = "free-pyramid",
    seed: int = 0,
) -> Renderer:
    """A (cached) renderer of ``profile`` through ``camera``."""
    key = json.dumps(
        [
            camera.to_dict(),
            repr(profile),
            repr(look or Look()),
            game,
            seed,
        ],
        sort_keys=True,
        default=str,
    )
    r = _CACHE.get(key)
    if r is None:
        r = Renderer(profile, camera, look=look, game=game, seed=seed)
        _CACHE[key] = r
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return r


def synth_view(
    seed: int, image_size: tuple[int, int], profile: TableProfile = PYR
) -> tuple[CameraModel, Look]:
    """The camera and look ``luza synth --seed SEED --size WxH`` renders with (drawn as
    :func:`luza.samples.synth.make_clip` draws them)."""
    rng = np.random.default_rng([seed, 7919])
    cam = random_camera(profile, image_size, rng)
    return cam, random_look(rng)


def poses(balls) -> dict[str, BallPose]:
    """``[(id, x_mm, y_mm), ...]`` -> ``{id: BallPose}`` (at rest on the cloth)."""
    return {b: BallPose(float(x), float(y)) for b, x, y in balls}


def table_frame(
    r: Renderer,
    balls: list[tuple[float, float]] | None = None,
    arm: bool = False,
    seed: int = 0,
    noise: bool = True,
) -> np.ndarray:
    """A calibration-test view: anonymous balls at ``balls`` (table mm), optionally a
    player's arm and hand reaching in from the nearest rail to a random place."""
    rng = np.random.default_rng(seed)
    pz = poses((ANON_IDS[i % len(ANON_IDS)], x, y) for i, (x, y) in enumerate(balls or []))
    occ = []
    if arm:
        L, W = r.profile.size_mm
        target = (float(rng.uniform(0.2, 0.8) * L), float(rng.uniform(0.25, 0.75) * W))
        occ = hand_at(r.profile, target, 0.0, 1.0, 0.45)
    return r.render(pz, occ, t=float(seed), noise=noise)


def bundled_first_frame(clip: str) -> tuple[dict, np.ndarray]:
    """A bundled clip's truth and its first frame (BGR), as the pipeline gets it."""
    import cv2

    from luza.samples.synth import load_truth

    clips = Path(str(resources.files("luza.samples") / "clips"))
    truth = load_truth(clips / f"{clip}.truth.json")
    cap = cv2.VideoCapture(str(clips / f"{clip}.mp4"))
    ok, img = cap.read()
    cap.release()
    assert ok, f"{clip}.mp4 gives no first frame"
    return truth, img


def bundled_start(clip: str):
    """A bundled clip's (camera, table profile, first frame) from its truth."""
    from luza.calibration.camera import CameraModel
    from luza.calibration.profiles import load_profile

    truth, img = bundled_first_frame(clip)
    return CameraModel.from_dict(truth["camera"]), load_profile(truth["table"]["name"]), img


def started_pipeline(clip: str, game: str = "five-ball"):
    """A bundled clip's (camera, table profile, first frame, pipeline), the pipeline
    having processed that frame (every ball found and tracked)."""
    from luza.vision.pipeline import VisionPipeline
    from luza.vision.sources import Frame

    cam, prof, img = bundled_start(clip)
    pipe = VisionPipeline(cam, prof, game)
    pipe.process(Frame(0, 0.0, img))
    return cam, prof, img, pipe


def open_cloth_point(
    pipe,
    prof: TableProfile,
    clear_radii: float,
    x_fracs: np.ndarray,
    y_fracs: np.ndarray,
    reach_mm: np.ndarray | None = None,
) -> np.ndarray:
    """The first bed point (mm), over ``x_fracs`` of the table's length and, for each,
    ``y_fracs`` of its width, that lies -- with each point ``reach_mm`` (offsets, mm)
    from it -- more than ``clear_radii`` ball radii from every ball the pipeline tracks
    on the table; the test fails when there is none."""
    import pytest

    R = prof.ball_radius_mm
    balls = np.array([t.xy for t in pipe.tracker.tracks.values() if t.on_table])
    reach = np.zeros((1, 2)) if reach_mm is None else np.asarray(reach_mm, float).reshape(-1, 2)
    for x in np.asarray(x_fracs) * prof.length_mm:
        for y in np.asarray(y_fracs) * prof.width_mm:
            p = np.array([x, y])
            if np.linalg.norm((p + reach)[:, None] - balls[None], axis=2).min() > clear_radii * R:
                return p
    pytest.fail("no open cloth in the bundled frame")


def still_table_and_far_view(
    clip: str, game: str, fps: float, cls: str, score: float, p_cls: float
):
    """A bundled clip's first frame through a fresh pipeline for four frames (the table
    still), then the last frame's detections with one more row: a rim scoring ``score``
    the classifier reads as ``cls`` at ``p_cls`` (the rest 'none'), at the bed point
    farthest from every tracked ball (over 300 mm).  (pipeline, detections, that point);
    the tracker has not seen that frame."""
    from luza.vision.pipeline import VisionPipeline
    from luza.vision.sources import Frame

    cam, prof, img = bundled_start(clip)
    pipe = VisionPipeline(cam, prof, game)
    for f in range(4):
        pipe.process(Frame(f, f / fps, img))
    last = pipe._last
    balls = np.array([t.xy for t in pipe.tracker.tracks.values() if t.on_table])
    grid = np.array([(x, y) for x in range(300, 3300, 50) for y in range(300, 1500, 50)], float)
    far = grid[np.argmax(np.min(np.linalg.norm(grid[:, None] - balls[None], axis=2), axis=1))]
    assert np.min(np.linalg.norm(balls - far, axis=1)) > 300.0
    det = last[np.r_[np.arange(len(last)), 0]]
    det.xy_mm = det.xy_mm.copy()
    det.xy_mm[-1] = far
    det.score = np.asarray(det.score, float).copy()
    det.score[-1] = score
    row = np.zeros(len(det.classes))
    row[det.classes.index(cls)] = p_cls
    row[det.classes.index("none")] = 1.0 - p_cls
    det.cls_prob = np.asarray(det.cls_prob, float).copy()
    det.cls_prob[-1] = row
    det.frame, det.t = 4, 4 / fps
    return pipe, det, far
