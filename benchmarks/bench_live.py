"""``luza live`` benchmark on the bundled clips (or any clip with a ``.truth.json``).

For each clip, tracks it once with its true camera, then feeds the frames to the
live runner's :class:`IncrementalEvents` as a camera would and prints:

- tracking speed (frames/s, one core) against the clip's own frame rate (live needs >= 1x);
- windows cut, and the time a cut takes (``extract_events`` on the window, ms);
- whether the incremental stream has the same strokes, first contacts, pots and
  hand events as ``extract_events`` on the whole clip, and the same contacts (each
  within 0.05 s);
- the delay from a stroke's ``shot_end`` to the cut that delivers its ruling
  (source seconds: ``QUIET_S`` plus what the extractor needs to confirm the rest);
- the time to rescore the whole stream at the last cut (``score_items``, ms).

    .venv/bin/python benchmarks/bench_live.py [CLIP.mp4 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from app_helpers import CLIPS, stroke_summary, true_camera, unmatched_contacts  # noqa: E402

from luza.app.live_runner import IncrementalEvents  # noqa: E402
from luza.rules.engine import Item  # noqa: E402
from luza.rules.record import score_items  # noqa: E402
from luza.vision.events import extract_events, frames_from_tracker  # noqa: E402
from luza.vision.pipeline import VisionPipeline  # noqa: E402
from luza.vision.sources import open_source  # noqa: E402


def same_contacts(a, b, tol_s: float = 0.05) -> bool:
    """Every contact of one stream has one of the same kind within ``tol_s`` in the other."""
    return not unmatched_contacts(a, b, tol_s) and not unmatched_contacts(b, a, tol_s)


def bench(clip: Path) -> dict:
    game = json.loads(clip.with_suffix("").with_suffix(".truth.json").read_text())["game"]
    cam, profile = true_camera(clip, game)
    pipe = VisionPipeline(cam, profile, game)
    obs = []
    with open_source(clip) as src:
        fps = src.fps
        t0 = time.perf_counter()
        for fr in src:
            obs.extend(frames_from_tracker([pipe.process(fr).tracked]))
        track_s = time.perf_counter() - t0
    whole = extract_events(obs, profile, game)
    inc = IncrementalEvents(profile, game)
    got, cut_ms, delays = [], [], []
    for o in obs:
        t0 = time.perf_counter()
        new = inc.feed(o)
        if new is not None:
            cut_ms.append(1000 * (time.perf_counter() - t0))
            delays += [o.t - e.t for e in new if e.type == "shot_end"]
            got += new
    got += inc.flush()
    t0 = time.perf_counter()
    score_items([Item(e, f"live:{i}") for i, e in enumerate(got)], game)
    score_ms = 1000 * (time.perf_counter() - t0)
    return {
        "clip": clip.name,
        "frames": len(obs),
        "track_fps": len(obs) / track_s,
        "realtime_x": len(obs) / track_s / fps,
        "cuts": len(cut_ms),
        "cut_ms_max": max(cut_ms, default=0.0),
        "same_strokes": stroke_summary(got) == stroke_summary(whole),
        "same_contacts": same_contacts(got, whole),
        "strokes": sum(1 for s in stroke_summary(whole) if s[0] == "shot"),
        "delay_s": max(delays, default=float("nan")),
        "score_ms": score_ms,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="*", type=Path)
    args = ap.parse_args()
    clips = args.clips or sorted(CLIPS.glob("*.mp4"))
    head = (
        f"{'clip':32} {'frames':>6} {'track/s':>7} {'x real':>6} {'cuts':>4} {'cut ms':>6} "
        f"{'strokes':>7} {'same':>5} {'contacts':>8} {'delay s':>7} {'score ms':>8}"
    )
    print(head)
    for clip in clips:
        r = bench(clip)
        print(
            f"{r['clip']:32} {r['frames']:6d} {r['track_fps']:7.0f} {r['realtime_x']:6.2f} "
            f"{r['cuts']:4d} {r['cut_ms_max']:6.0f} {r['strokes']:7d} "
            f"{'yes' if r['same_strokes'] else 'NO':>5} {'yes' if r['same_contacts'] else 'NO':>8} "
            f"{r['delay_s']:7.2f} {r['score_ms']:8.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
