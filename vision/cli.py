"""``luza track``: follow every ball of a video (or a live camera / stream).

    luza track VIDEO --calibration FILE|auto --game free-pyramid|five-ball \\
        -o events.jsonl --positions positions.csv [--overlay out.mp4]

``VIDEO`` is a file, a camera index (``0``) or a stream URL.  ``--calibration``
is a calibration JSON (``luza calibrate``), a synthetic clip's ``.truth.json``
(its true camera), or ``auto`` (find the table in the first frames).
``positions.csv`` has a row per ball on the table per frame: ``frame,t,ball,x_mm,y_mm``.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from luza.calibration.calib import Calibration, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, load_profile
from luza.errors import LuzaError
from luza.events import GAMES, write_jsonl
from luza.output_files import writable_file

from .events import FrameObs, extract_events, frames_from_tracker
from .pipeline import VisionPipeline
from .sources import Frame, open_source, tracker_threads

AUTO_CALIBRATION_FRAMES = 10


def calibration_images(source, first: list[Frame]) -> list[np.ndarray]:
    """The images '--calibration auto' finds the table in: for a video file the ones
    ``luza calibrate`` reads (15 spread over its first 5 s), so a player at the table
    in the first frames has moved on from some of them; for a camera or a stream (no
    rewinding) its first ``AUTO_CALIBRATION_FRAMES`` frames, ``first``.  With only the
    first ten frames, three of the five bundled clips (a player placing balls, leaning
    over the rack) gave a camera 16-18 m up that the calibration rightly refuses."""
    from luza.calibration.cli import read_source

    path = Path(str(source))
    if path.is_file():
        try:
            return read_source(str(path))
        except LuzaError:
            pass  # not readable that way: the frames already decoded
    return [f.image for f in first]


DEFAULT_TABLE = {"free-pyramid": "pyramid-12ft", "five-ball": "pyramid-12ft"}


class TrackError(LuzaError):
    """The track command cannot run (bad calibration, unknown game...)."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "track",
        help="find, identify and follow every ball of a video",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("video", help="video file, camera index (0) or stream URL")
    p.add_argument(
        "--calibration", required=True, help="calibration JSON, a clip's .truth.json, or 'auto'"
    )
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--table", help="table profile (default: the calibration's, else pyramid-12ft)")
    p.add_argument("-o", "--events", required=True, help="events output (JSON lines)")
    p.add_argument("--positions", help="per-frame positions CSV (frame,t,ball,x_mm,y_mm)")
    p.add_argument("--overlay", help="write a video with the tracked balls drawn")
    p.add_argument("--max-frames", type=int, default=0, help="stop after this many frames")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_track)


def load_camera(
    spec: str, table: str | None, game: str, frames: list[np.ndarray] | None
) -> tuple[CameraModel, TableProfile]:
    """(camera, profile) from a calibration file, a truth file, or automatic calibration."""
    if spec == "auto":
        if not frames:
            raise TrackError("--calibration auto needs frames from the video")
        profile = load_profile(table or DEFAULT_TABLE[game])
        return calibrate(frames, profile).camera, profile
    p = Path(spec)
    if not p.exists():
        raise TrackError(f"calibration file not found: {p}")
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise TrackError(f"{p}: not a JSON calibration ({e})") from None
    if not isinstance(d, dict):
        raise TrackError(f"{p}: not a calibration object")
    if "frames" in d and "camera" in d:  # a synthetic clip's truth: its true camera
        cam = CameraModel.from_dict(d["camera"])
        return cam, load_profile(table or d.get("table", {}).get("name", DEFAULT_TABLE[game]))
    if "profile" not in d and "camera" in d:  # a bare camera model: the default table
        try:
            return CameraModel.from_dict(d["camera"]), load_profile(table or DEFAULT_TABLE[game])
        except (KeyError, TypeError, ValueError) as e:
            raise TrackError(f"{p}: not a calibration ({e})") from None
    cal = Calibration.from_dict(d, str(p))  # CalibrationError names the file
    return cal.camera, load_profile(table) if table else cal.profile


def draw_overlay(img: np.ndarray, camera: CameraModel, R: float, tracked) -> np.ndarray:
    out = img.copy()
    for b, (x, y) in tracked.positions.items():
        px = camera.project(np.array([x, y]), R)
        c = (0, 255, 0) if b in tracked.visible else (0, 165, 255)
        p = (int(round(px[0])), int(round(px[1])))
        cv2.circle(out, p, 6, c, 1, cv2.LINE_AA)
        cv2.putText(out, b, (p[0] + 7, p[1] - 7), cv2.FONT_HERSHEY_SIMPLEX, 0.4, c, 1, cv2.LINE_AA)
    return out


def cmd_track(args: argparse.Namespace) -> int:
    # outputs that cannot be written are said now, not after minutes of tracking
    writable_file(args.events, "the events file")
    if args.positions:
        writable_file(args.positions, "the positions file")
    if args.overlay:
        writable_file(args.overlay, "the overlay video")
    src = open_source(args.video, for_tracking=True)
    try:
        first: list[Frame] = []
        it = iter(src)
        if args.calibration == "auto":
            for fr in it:
                first.append(fr)
                if len(first) >= AUTO_CALIBRATION_FRAMES:
                    break
        images = calibration_images(args.video, first) if args.calibration == "auto" else []
        cam, profile = load_camera(args.calibration, args.table, args.game, images or None)
        if tuple(cam.image_size) != tuple(src.size):
            raise TrackError(
                f"the calibration is for {cam.image_size[0]}x{cam.image_size[1]} images, "
                f"the video is {src.size[0]}x{src.size[1]}"
            )
        pipe = VisionPipeline(cam, profile, args.game, threads=tracker_threads(src))
        observed: list[FrameObs] = []
        writer = None
        if args.overlay:
            writer = cv2.VideoWriter(
                args.overlay, cv2.VideoWriter.fourcc(*"mp4v"), src.fps, tuple(src.size)
            )
            if not writer.isOpened():
                raise TrackError(f"cannot write the overlay video {args.overlay}")
        pos_f = open(args.positions, "w", newline="") if args.positions else None  # noqa: SIM115
        try:
            pos_w = csv.writer(pos_f) if pos_f else None
            if pos_w:
                pos_w.writerow(["frame", "t", "ball", "x_mm", "y_mm"])
            n = 0
            t0 = time.perf_counter()

            def frames():
                yield from first
                yield from it

            for fr in frames():
                res = pipe.process(fr)
                observed.extend(frames_from_tracker([res.tracked]))
                if pos_w:
                    for b, (x, y) in sorted(res.tracked.positions.items()):
                        pos_w.writerow([fr.index, f"{fr.t:.4f}", b, f"{x:.1f}", f"{y:.1f}"])
                if writer is not None:
                    writer.write(draw_overlay(fr.image, cam, profile.ball_radius_mm, res.tracked))
                n += 1
                if args.max_frames and n >= args.max_frames:
                    break
            dt = time.perf_counter() - t0
        finally:
            if pos_f:
                pos_f.close()
            if writer is not None:
                writer.release()
        # The event stage reads the tracks (it never looks at the video): the stream
        # is the DESIGN.md contract that `luza score` consumes.
        events = extract_events(observed, profile, args.game)
        write_jsonl(events, args.events)
        if not args.quiet:
            print(
                f"luza track: {n} frames in {dt:.1f} s ({n / max(dt, 1e-9):.0f} frames/s), "
                f"{len(events)} events -> {args.events}",
                file=sys.stderr,
            )
        return 0
    finally:
        src.close()
