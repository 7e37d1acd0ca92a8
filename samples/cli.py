"""``luza synth``, ``luza synth-set`` and ``luza demo``: synthetic footage with ground truth."""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from concurrent.futures import ProcessPoolExecutor
from importlib import resources
from pathlib import Path

from luza.errors import LuzaError
from luza.output_files import writable_dir

# Seeds 0..TUNING_SEEDS-1 are for tuning; benchmarks report on seeds from REPORT_SEED_START.
TUNING_SEEDS = 1000
REPORT_SEED_START = 1000
SET_SIZES = ((1280, 720), (1920, 1080))
SET_FPS = (30.0, 60.0)


def _size(s: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)x(\d+)", s)
    if not m:
        raise argparse.ArgumentTypeError(f"size is WxH, e.g. 1920x1080, not {s!r}")
    return int(m.group(1)), int(m.group(2))


def _seeds(s: str) -> list[int]:
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", s)
    if not m:
        raise argparse.ArgumentTypeError(f"seeds are N or A-B, not {s!r}")
    a = int(m.group(1))
    b = int(m.group(2) or a)
    if b < a:
        raise argparse.ArgumentTypeError(f"empty seed range {s!r}")
    return list(range(a, b + 1))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("synth", help="render a scene to an H.264 clip with <clip>.truth.json")
    p.add_argument("--scene", help="scene name (see --list)")
    p.add_argument("--out", default="out/synth", help="output folder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--size", type=_size, default=(1280, 720), help="WxH (default 1280x720)")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--table", help="table profile (default: the scene's)")
    p.add_argument("--camera", choices=("random", "nominal"), default="random")
    p.add_argument("--look", choices=("random", "nominal"), default="random")
    p.add_argument("--list", action="store_true", help="list the scenes and exit")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser(
        "synth-set",
        help="regenerate a benchmark set (outside git): varied poses, lenses, looks, formats",
    )
    p.add_argument("--out", default="bench-data", help="output folder")
    p.add_argument(
        "--seeds",
        type=_seeds,
        default=_seeds(f"{REPORT_SEED_START}-{REPORT_SEED_START + 31}"),
        help=f"seed range A-B (tune on 0-{TUNING_SEEDS - 1}, report on {REPORT_SEED_START}+)",
    )
    p.add_argument("--scenes", help="comma-separated scenes (default: all, in turn)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.set_defaults(func=cmd_synth_set)

    p = sub.add_parser("demo", help="show the bundled sample clips with their ground truth")
    p.add_argument("--out", default="out/demo", help="where to write the contact sheets")
    p.set_defaults(func=cmd_demo)


def cmd_synth(args: argparse.Namespace) -> int:
    from luza.samples.scenes import SCENES
    from luza.samples.synth import ClipConfig, make_clip

    if args.list or not args.scene:
        for name, spec in sorted(SCENES.items()):
            print(f"{name:18s} {spec.game:13s} {spec.description}")
        return 0 if args.list else 2
    cfg = ClipConfig(args.scene, args.seed, args.size, args.fps, args.table, args.camera, args.look)
    writable_dir(args.out)  # said before the scene is played and rendered
    res = make_clip(cfg, args.out, progress=True)
    print(
        f"{res.video} ({res.n_frames} frames, {res.duration_s:.1f} s, {res.bytes / 1e6:.2f} MB, "
        f"rendered at {res.n_frames / res.render_s:.1f} frames/s)\n{res.truth}"
    )
    return 0


def set_configs(seeds: list[int], scenes: list[str]) -> list:
    """The benchmark set: each seed picks a scene, a format and a frame rate in turn."""
    from luza.samples.synth import ClipConfig

    out = []
    for s in seeds:
        scene = scenes[s % len(scenes)]
        size = SET_SIZES[(s // len(scenes)) % len(SET_SIZES)]
        fps = SET_FPS[(s // (len(scenes) * len(SET_SIZES))) % len(SET_FPS)]
        out.append(ClipConfig(scene, s, size, fps))
    return out


def _make(cfg_out):
    from luza.samples.synth import make_clip

    cfg, out = cfg_out
    try:
        r = make_clip(cfg, out)
        return cfg.name, None, r.n_frames, r.render_s, r.bytes
    except LuzaError as e:
        return cfg.name, str(e), 0, 0.0, 0


def cmd_synth_set(args: argparse.Namespace) -> int:
    from luza.samples.scenes import SCENES

    scenes = args.scenes.split(",") if args.scenes else sorted(SCENES)
    unknown = [s for s in scenes if s not in SCENES]
    if unknown:
        raise LuzaError(f"unknown scene(s): {', '.join(unknown)}")
    out = writable_dir(args.out)
    todo = []
    for cfg in set_configs(args.seeds, scenes):
        if (out / f"{cfg.name}.truth.json").exists():
            continue  # already made: a stopped run resumes
        todo.append((cfg, out))
    print(f"{len(todo)} clip(s) to make in {out} ({len(args.seeds) - len(todo)} already there)")
    t0 = time.perf_counter()
    failed = 0
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for name, err, n, rs, nb in ex.map(_make, todo):
            if err:
                failed += 1
                print(f"  {name}: FAILED: {err}")
            else:
                print(f"  {name}: {n} frames, {n / max(rs, 1e-9):.1f} frames/s, {nb / 1e6:.2f} MB")
    print(f"done in {time.perf_counter() - t0:.0f} s, {failed} failed")
    return 1 if failed else 0


def bundled_clips() -> list[Path]:
    root = resources.files("luza.samples") / "clips"
    return sorted(Path(str(p)) for p in root.iterdir() if p.name.endswith(".truth.json"))


def cmd_demo(args: argparse.Namespace) -> int:
    from luza.samples.sheet import contact_sheet
    from luza.samples.synth import load_truth

    clips = bundled_clips()
    if not clips:
        raise LuzaError("no bundled sample clips found in samples/clips")
    out = writable_dir(args.out)
    for truth_path in clips:
        truth = load_truth(truth_path)
        video = truth_path.with_name(truth_path.name.replace(".truth.json", ".mp4"))
        sheet = out / video.name.replace(".mp4", ".sheet.png")
        contact_sheet(video, truth, sheet)
        counts: dict[str, int] = {}
        for e in truth["events"]:
            counts[e["type"]] = counts.get(e["type"], 0) + 1
        print(f"{video.name}: {truth['game']}, {truth['description']}")
        print(
            f"  {truth['size'][0]}x{truth['size'][1]} at {truth['fps']:g} fps, "
            f"{truth['n_frames']} frames; events: "
            + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )
        for e in truth["events"]:
            if e["type"] in ("pocket", "off_table", "ball_placed", "ball_removed", "shot_start"):
                fields = {
                    k: v for k, v in e.items() if k not in ("type", "t", "frame", "confidence")
                }
                when = f"frame {e['frame']:5d}  t={e['t']:7.3f}"
                print(f"    {when}  {e['type']:13s} {json.dumps(fields)}")
        print(f"  contact sheet with the truth drawn on the frames: {sheet}")
    return 0
