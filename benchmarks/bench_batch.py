"""Benchmark of `luza batch` (issue 8): throughput of a local Dask cluster against one by one.

N videos (links to one bundled clip under N names, tracked with its truth camera,
no annotated video) are analyzed three ways: in this process one after the
other, by ``run_batch`` with 1 worker, and with W workers.  Prints wall time,
videos per minute, the speed-up, and how many match records are the same
bytes as the one-by-one run's.

    nice .venv/bin/python benchmarks/bench_batch.py --videos 4 --workers 2
    nice .venv/bin/python benchmarks/bench_batch.py --clip fb-kaisa-middle_s0_720p30 \\
        --game five-ball --videos 6 --workers 2

On a shared machine the figures follow its load (printed with them).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from luza.app.analyze import analyze_video
from luza.app.batch import find_videos, run_batch

CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", default="fp-break_s0_720p30")
    ap.add_argument("--game", default="free-pyramid")
    ap.add_argument("--videos", type=int, default=4)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        d = Path(tmp) / "videos"
        d.mkdir()
        for i in range(args.videos):
            (d / f"v{i:02d}.mp4").symlink_to(CLIPS / f"{args.clip}.mp4")
            (d / f"v{i:02d}.truth.json").symlink_to(CLIPS / f"{args.clip}.truth.json")
        videos = find_videos(str(d))
        load0 = os.getloadavg()[0]

        t0 = time.perf_counter()
        for v in videos:
            analyze_video(
                str(v),
                Path(tmp) / "one" / v.stem,
                args.game,
                calibration=str(v.with_suffix(".truth.json")),
                video_out=False,
                progress=False,
                store=False,
            )
        rows = [("one by one (this process)", time.perf_counter() - t0, len(videos))]
        ref = {v.stem: (Path(tmp) / "one" / v.stem / "record.jsonl").read_bytes() for v in videos}

        for w in sorted({1, args.workers}):
            out = Path(tmp) / f"batch{w}"
            t0 = time.perf_counter()
            outcomes = run_batch(
                str(d),
                out,
                args.game,
                workers=w,
                calibration="{dir}/{stem}.truth.json",
                video_out=False,
                log=lambda s: None,
            )
            dt = time.perf_counter() - t0
            bad = [o.job.stem for o in outcomes if o.status != "done"]
            if bad:
                raise SystemExit(f"batch with {w} worker(s): failed {bad}")
            same = sum((out / s / "record.jsonl").read_bytes() == ref[s] for s in ref)
            rows.append((f"luza batch, {w} worker process(es)", dt, same))

    base = rows[0][1]
    print(f"{args.videos} x {args.clip} ({args.game}), {os.cpu_count()} cores, load {load0:.1f}")
    print(f"{'run':<34} {'wall s':>7} {'videos/min':>10} {'speed-up':>8} {'same records':>12}")
    for name, dt, same in rows:
        print(
            f"{name:<34} {dt:7.1f} {args.videos / dt * 60:10.1f} {base / dt:8.2f} "
            f"{same:>7d}/{args.videos}"
        )


if __name__ == "__main__":
    main()
