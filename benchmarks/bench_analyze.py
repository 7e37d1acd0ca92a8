"""``luza analyze`` on clips with ground truth: how long each stage takes, and how the
score sheet compares with the truth.

For every ``<name>.mp4`` + ``<name>.truth.json`` (the bundled ``samples/clips/`` by
default) runs :func:`luza.app.analyze.analyze_video` (``--calibration auto`` unless
``--truth-camera``) into a temporary folder and prints per clip:

- frames, seconds per stage (track = calibrate + track + events, score = rules + score
  sheet + stats, annotate = the H.264 video), end-to-end frames/s, and the process CPU
  seconds (the machine may be shared: CPU time is the steadier figure);
- strokes found / true, pots found / true (by pocket: the ivory balls' numbers are
  identities the tracker assigns), the cue ball and its first contact per stroke.

    .venv/bin/python benchmarks/bench_analyze.py [CLIP.mp4 ...] [--truth-camera] [--no-video]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from luza.app.analyze import analyze_video
from luza.events import read_jsonl

CLIPS = Path(__file__).resolve().parent.parent / "samples" / "clips"


def strokes(events: list[dict]) -> list[dict]:
    """Per stroke: cue ball, its first contact, the pockets balls fell into."""
    out: list[dict] = []
    cur: dict | None = None
    for e in events:
        typ = e["type"]
        if typ == "shot_start" and not e.get("lag"):
            cur = {"cue": e["cue_ball"], "first": None, "pockets": []}
            out.append(cur)
        elif cur is None:
            continue
        elif typ == "collision" and cur["first"] is None and cur["cue"] in (e["a"], e["b"]):
            cur["first"] = e["b"] if e["a"] == cur["cue"] else e["a"]
        elif typ in ("pocket", "hang_fall"):
            cur["pockets"].append(e["pocket"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clips", nargs="*", help="clips with a .truth.json (default: bundled)")
    ap.add_argument("--truth-camera", action="store_true", help="the clip's true camera")
    ap.add_argument("--no-video", action="store_true", help="skip the annotated video")
    args = ap.parse_args(argv)
    clips = [Path(c) for c in args.clips] or sorted(CLIPS.glob("*.mp4"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for clip in clips:
            truth_p = clip.with_suffix(".truth.json")
            truth = json.loads(truth_p.read_text())
            game = truth["game"]
            cal = str(truth_p) if args.truth_camera else "auto"
            c0 = time.process_time()
            s = analyze_video(
                str(clip), Path(tmp) / clip.stem, game, calibration=cal,
                video_out=not args.no_video, progress=False, store=False,
            )  # fmt: skip
            cpu = time.process_time() - c0
            ours = strokes([e.to_dict() for e in read_jsonl(s["files"]["events"])])
            want = strokes(truth["events"])
            pots_ok = sum((Counter(p for x in ours for p in x["pockets"])
                           & Counter(p for x in want for p in x["pockets"])).values())  # fmt: skip
            n_pots = sum(len(x["pockets"]) for x in want)
            same = sum(
                1
                for a, b in zip(ours, want, strict=False)
                if a["cue"] == b["cue"] and (game == "free-pyramid" or a["first"] == b["first"])
            )
            sec = s["seconds"]
            rows.append(
                (clip.stem, s["n_frames"], sec.get("track", 0), sec.get("score", 0),
                 sec.get("annotate", 0), s["n_frames"] / max(sec["total"], 1e-9), cpu,
                 f"{len(ours)}/{len(want)}", f"{pots_ok}/{n_pots}", f"{same}/{len(want)}",
                 " ".join(f"{k} {v}" for k, v in s["score"].items()))
            )  # fmt: skip
            for a, b in zip(ours, want, strict=False):
                print(f"  {clip.stem}: ours {a}  truth {b}", file=sys.stderr)
    head = ("clip", "frames", "track s", "score s", "video s", "fps", "cpu s",
            "strokes", "pots", "cue ok", "score")  # fmt: skip
    print(" | ".join(head))
    for r in rows:
        print(
            f"{r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.1f} | {r[4]:.1f} | {r[5]:.1f} | {r[6]:.1f}"
            f" | {r[7]} | {r[8]} | {r[9]} | {r[10]}"
        )
    print(f"calibration: {'truth camera' if args.truth_camera else 'auto'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
