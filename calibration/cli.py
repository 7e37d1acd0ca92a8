"""``luza calibrate`` and ``luza calibrate-camera``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from luza.calibration.calib import CalibrationError, calibrate
from luza.calibration.lens import calibrate_camera, load_camera, save_camera
from luza.calibration.profiles import load_profile
from luza.output_files import writable_file, write_image

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
MAX_FRAMES = 60  # frames read from a video for the median background


def read_source(source: str, max_frames: int = MAX_FRAMES, seconds: float = 5.0) -> list:
    """Frames from an image file, a folder of images or a video (the first ``seconds``)."""
    p = Path(source)
    if not p.exists():
        raise CalibrationError(f"source not found: {source}")
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
        frames = [cv2.imread(str(f)) for f in files[:max_frames]]
        frames = [f for f in frames if f is not None]
        if not frames:
            raise CalibrationError(f"no images in folder {source}")
        return frames
    if p.suffix.lower() in IMAGE_SUFFIXES:
        img = cv2.imread(str(p))
        if img is None:
            raise CalibrationError(f"cannot read image {source}")
        return [img]
    cap = cv2.VideoCapture(str(p))
    if not cap.isOpened():
        raise CalibrationError(f"cannot open video {source}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) or int(fps * seconds)
    n_avail = min(total, int(fps * seconds))
    wanted = set(np.linspace(0, max(0, n_avail - 1), min(max_frames, 15)).astype(int).tolist())
    frames = []
    i = 0
    while i < n_avail:
        ok, f = cap.read()
        if not ok:
            break
        if i in wanted:
            frames.append(f)
        i += 1
    cap.release()
    if not frames:
        raise CalibrationError(f"no frames could be decoded from {source}")
    return frames


def cmd_calibrate(args: argparse.Namespace) -> int:
    from luza.calibration.overlay import draw_overlay

    profile = load_profile(args.table)
    writable_file(args.output, "the calibration")  # said before the work, not after
    if args.overlay:
        if Path(args.overlay).suffix.lower() not in IMAGE_SUFFIXES:
            raise CalibrationError(
                f"--overlay wants an image file ({' '.join(sorted(IMAGE_SUFFIXES))}), "
                f"got {args.overlay}"
            )
        writable_file(args.overlay, "the overlay image")
    frames = read_source(args.source, seconds=args.seconds)
    hint = load_camera(args.camera) if args.camera else None
    try:
        cal = calibrate(frames, profile, camera_hint=hint, head=args.head)
    except CalibrationError as e:
        if args.overlay and _draw_refused(frames, profile, hint, args.head, args.overlay):
            raise CalibrationError(f"{e} (the refused fit is drawn in {args.overlay})") from None
        raise
    cal.save(args.output)
    q = cal.quality
    print(f"calibration written to {args.output}")
    print(
        f"  edge residual {q['edge_rms_mm']} mm ({q['edge_rms_px']} px), "
        f"camera height {q['camera']['height_mm'] / 1000:.2f} m, "
        f"focal {q['camera']['focal_px']:.0f} px, k1 {q['camera']['k1']}"
    )
    found = ", ".join(q["markings"]["found"]) or "none"
    print(f"  markings found: {found}")
    if q["markings"]["missing"]:
        print(f"  markings missing (profile geometry used): {', '.join(q['markings']['missing'])}")
    print(f"  pockets found: {len(q['pockets']['found'])}/6")
    he = q["head_end"]
    print(f"  head cushion at the image {he['image_side']} (decided by {he['decided_by']})")
    if he["decided_by"] == "assumed":
        print("  warning: no marking tells the head from the foot; pass --head to decide")
    print(f"  confidence {q['confidence']}")
    if args.overlay:
        write_image(args.overlay, draw_overlay(frames[0], cal), "the overlay image")
        print(f"overlay written to {args.overlay}")
    return 0


def _draw_refused(frames, profile, hint, head, path) -> bool:
    """The fit a calibration was refused for, drawn with its located nose points (blue),
    so a person can see which edge was taken; False when it did not get that far."""
    from luza.calibration.calib import Calibration
    from luza.calibration.find_table import find_table
    from luza.calibration.overlay import draw_overlay

    try:
        fit = find_table(frames, profile, camera_hint=hint, head=head, check=False)
    except CalibrationError:
        return False
    cal = Calibration(fit.camera, profile, {**fit.quality, "confidence": "REFUSED"})
    write_image(path, draw_overlay(frames[0], cal, edge_points=fit.edge_points), "the overlay")
    return True


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    writable_file(args.output, "the camera file")
    cols, rows = (int(v) for v in args.squares.lower().split("x"))
    cam, report = calibrate_camera(
        args.images,
        board=args.board,
        squares=(cols, rows),
        square_mm=args.square_mm,
        marker_mm=args.marker_mm,
        dictionary=args.dictionary,
    )
    save_camera(cam, report, args.output)
    print(f"camera written to {args.output}")
    print(
        f"  RMS {report['rms_px']:.3f} px over {report['images_used']} images; "
        f"focal {cam.K[0, 0]:.1f} px; dist {json.dumps(np.round(cam.dist, 4).tolist())}"
    )
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "calibrate",
        help="find the table, its pockets, markings and the camera in a video or image",
        description="Find the table automatically and write calib.json (plus an overlay).",
    )
    p.add_argument("source", help="video file, image file or folder of images")
    p.add_argument("--table", required=True, help="table profile name or profile .json")
    p.add_argument("-o", "--output", required=True, help="calibration JSON to write")
    p.add_argument("--overlay", help="PNG to write with the fitted table drawn over a frame")
    p.add_argument("--camera", help="camera.json from `luza calibrate-camera` (fixes the lens)")
    p.add_argument(
        "--head",
        choices=["left", "right", "top", "bottom"],
        help="where the head cushion is in the image, when no marking tells",
    )
    p.add_argument("--seconds", type=float, default=5.0, help="video seconds to use")
    p.set_defaults(func=cmd_calibrate)

    c = sub.add_parser(
        "calibrate-camera",
        help="lens intrinsics and distortion from ChArUco/chessboard photos",
        description="Calibrate a camera's lens from photos of a ChArUco board or chessboard.",
    )
    c.add_argument("images", nargs="+", help="photos of the board")
    c.add_argument("-o", "--output", required=True, help="camera JSON to write")
    c.add_argument("--board", choices=["charuco", "chessboard"], default="charuco")
    c.add_argument("--squares", default="6x8", help="board squares COLSxROWS (chessboard: inner)")
    c.add_argument("--square-mm", type=float, default=34.0)
    c.add_argument("--marker-mm", type=float, default=27.0)
    c.add_argument("--dictionary", default="DICT_4X4_50")
    c.set_defaults(func=cmd_calibrate_camera)
