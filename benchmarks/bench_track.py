"""Tracking benchmark on generated footage with ground truth (``luza synth`` clips).

For every clip ``<name>.mp4`` + ``<name>.truth.json`` in the given folders (or
clips rendered on the fly with ``--render SCENE[,SCENE...]``), runs the vision
pipeline with the clip's true camera and prints:

- balls at rest: centre error median / p95 (mm), recall, false detections per 1000 frames;
- moving balls: error p95, recall;
- the rack: frames before the break with all 15 found;
- identity switches: shots (clips) with any switch; classification accuracy at rest;
- speed on one core: decode-only rate (OpenCV and PyAV), tracking without decoding
  (the scoring pass, inline decoding left out of the clock), end to end (a pass of
  its own: decoding ahead in a thread + ``pipe.process``, nothing else in the loop)
  and the end-to-end / decode ratio, per clip and for the 1080p clips apart (the
  acceptance is at 1080p), with the load average (the machine is shared; tracking
  is also given by the tracking thread's CPU time, which load inflates far less);
  the decode-only and end-to-end passes are run twice: with the decoder free to use
  every core (FFmpeg's threads) while the tracker has one thread, and with the whole
  pass -- decoder threads and tracker -- pinned to ONE CPU ("1 core" columns); and end
  to end once more as ``luza track`` runs by default (OpenCV's threads and the
  detector's windows on every core: "as run").

    .venv/bin/python benchmarks/bench_track.py DIR [DIR...] [--max-clips N]
    .venv/bin/python benchmarks/bench_track.py --render fp-break,fb-break --size 1920x1080
    .venv/bin/python benchmarks/bench_track.py DIR --live-only 0,1 [--old OLD_detect.py]
    .venv/bin/python benchmarks/bench_track.py DIR --speed-only [--old OLD_detect.py]
    .venv/bin/python benchmarks/bench_track.py DIR --live-projected 2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from luza.calibration.camera import CameraModel  # noqa: E402
from luza.calibration.profiles import TableProfile, load_profile  # noqa: E402
from luza.vision.pipeline import VisionPipeline  # noqa: E402
from luza.vision.sources import decode_rate, open_source, tracker_threads  # noqa: E402
from luza.vision.track import ball_class  # noqa: E402

cv2.setNumThreads(1)
MATCH_MM = 30.0  # a detection within this of a true ball is that ball (moving: 60)


def clips_in(dirs: list[Path]) -> list[Path]:
    out = []
    for d in dirs:
        out += sorted(d.glob("*.truth.json")) if d.is_dir() else [d]
    return out


def load_clip(truth_path: Path) -> tuple[dict, Path, CameraModel, TableProfile]:
    """A rendered clip: its truth, its video beside it, its camera and its table."""
    truth = json.loads(truth_path.read_text())
    video = truth_path.with_name(truth_path.name.replace(".truth.json", ".mp4"))
    cam = CameraModel.from_dict(truth["camera"])
    return truth, video, cam, load_profile(truth["table"]["name"])


def run_clip(truth_path: Path, live: bool = False) -> dict:
    truth, video, cam, prof = load_clip(truth_path)
    game = truth["game"]
    pipe = VisionPipeline(cam, prof, game)
    frames = truth["frames"]
    shot_t = sorted(e["t"] for e in truth["events"] if e["type"] == "shot_start")
    first_shot = min(shot_t) if shot_t else float("inf")
    rest_err, mov_err = [], []
    rest_n = rest_found = mov_n = mov_found = 0
    view_n = view_found = 0  # at rest and not covered by the player (truth "hidden")
    false_det = 0
    rack_frames = rack_ok = 0
    cls_n = cls_ok = 0
    # fresh views only: a still ball's detection (with its class row) is carried over
    # while its pixels do not change -- one view, however many frames it is carried
    fresh_n = fresh_ok = 0
    last_row: dict[str, np.ndarray] = {}
    switched = set()
    shots_seen: set[int] = set()
    shots_switched: set[int] = set()
    id_rest_n = id_rest_ok = 0
    idmap: dict[str, str] = {}
    acc_n = acc_ok = 0
    false_balls = 0
    racked = _racked(truth, prof) if game == "free-pyramid" else False
    confusion: dict[tuple[str, str], int] = {}
    t_proc = cpu_proc = 0.0
    n = 0
    with open_source(video, prefetch=0) as src:  # no decoding thread beside the clock
        for fr in src:
            if fr.index >= len(frames):
                break
            t0, c0 = time.perf_counter(), time.thread_time()
            res = pipe.process(fr)
            t_proc += time.perf_counter() - t0
            cpu_proc += time.thread_time() - c0
            n += 1
            tf = frames[fr.index]
            balls = {b: np.array(p) for b, p in tf["balls"].items()}
            lift = tf.get("lift", {})
            moving = set(tf.get("moving", []))
            hidden = set(tf.get("hidden", []))
            det = res.detections
            # detection quality (identity-free): optimal matching to the truth
            ids = [b for b in balls if abs(lift.get(b, 0.0)) < 1.0]
            gt = np.array([balls[b] for b in ids]) if ids else np.zeros((0, 2))
            if len(det) and len(gt):
                d = np.linalg.norm(det.xy_mm[:, None] - gt[None], axis=2)
                from scipy.optimize import linear_sum_assignment

                r, c = linear_sum_assignment(d)
                ok = d[r, c] <= np.where(
                    np.array([ids[j] in moving for j in c]), 2 * MATCH_MM, MATCH_MM
                )
                matched_gt = {c[k]: d[r[k], c[k]] for k in range(len(r)) if ok[k]}
                matched_det = {r[k]: c[k] for k in range(len(r)) if ok[k]}
            else:
                matched_gt, matched_det = {}, {}
            # a ball in the air (a jump, a drop into a pocket) is a real ball seen, though
            # its truth is left out of the measures: a detection on it is not false
            air = [balls[b] for b in balls if abs(lift.get(b, 0.0)) >= 1.0]
            for k in range(len(det)):
                if k in matched_det:
                    continue
                if (
                    air
                    and np.linalg.norm(np.array(air) - det.xy_mm[k], axis=1).min() <= 2 * MATCH_MM
                ):
                    continue
                false_det += 1
            labels = det.labels
            for j, b in enumerate(ids):
                if b in moving:
                    mov_n += 1
                    if j in matched_gt:
                        mov_found += 1
                        mov_err.append(matched_gt[j])
                else:
                    rest_n += 1
                    in_view = b not in hidden
                    view_n += in_view
                    if j in matched_gt:
                        rest_found += 1
                        view_found += in_view
                        rest_err.append(matched_gt[j])
            for k, j in matched_det.items():
                if ids[j] not in moving and labels[k]:
                    cls_n += 1
                    want = ball_class(game, ids[j])
                    cls_ok += labels[k] == want
                    confusion[(want, labels[k])] = confusion.get((want, labels[k]), 0) + 1
                    row = det.cls_prob[k]
                    if ids[j] not in last_row or not np.array_equal(last_row[ids[j]], row):
                        last_row[ids[j]] = row.copy()
                        fresh_n += 1
                        fresh_ok += labels[k] == want
            if fr.t < first_shot and racked:
                rack_frames += 1
                rack = [b for b in ids if b != "Y"]
                rack_ok += (
                    all(j in matched_gt for j, b in enumerate(ids) if b in rack) and len(rack) == 15
                )
            # identity: the tracker's position of each ball near the truth (per shot)
            shot = int(np.searchsorted(shot_t, fr.t, side="right"))
            shots_seen.add(shot)
            pos = res.tracked.positions
            # balls the tracker reports seeing where no ball is
            allb = np.array(list(balls.values())) if balls else np.zeros((0, 2))
            for k in res.tracked.visible:
                if k in pos and (
                    len(allb) == 0
                    or np.linalg.norm(allb - np.array(pos[k]), axis=1).min() > 2 * MATCH_MM
                ):
                    false_balls += 1
            # Look-alike balls (the ivory 1-15 outside a rack, the two reds) get ids the
            # tracker chooses: the truth id -> tracker id map is fixed where a ball is
            # first seen, and a switch is a later departure from it.
            for b, p in balls.items():
                if b in idmap or b in moving:
                    continue
                cands = [
                    k
                    for k in res.tracked.visible
                    if ball_class(game, k) == ball_class(game, b)
                    and k not in idmap.values()
                    and np.linalg.norm(np.array(pos[k]) - p) < MATCH_MM
                ]
                if cands:
                    idmap[b] = min(cands, key=lambda k: np.linalg.norm(np.array(pos[k]) - p))
            for b0, p in balls.items():
                b = idmap.get(b0)
                if b is None:
                    continue
                if b0 not in moving and abs(lift.get(b0, 0.0)) < 1.0:
                    # accounted for: the tracker reports it there, seen or hidden
                    acc_n += 1
                    acc_ok += b in pos and np.linalg.norm(np.array(pos[b]) - p) <= MATCH_MM
                if b in pos and b in res.tracked.visible and abs(lift.get(b0, 0.0)) < 1.0:
                    tol = 2 * MATCH_MM if b0 in moving else MATCH_MM
                    if np.linalg.norm(np.array(pos[b]) - p) > max(tol, prof.ball_diameter_mm):
                        switched.add(b0)
                        shots_switched.add(shot)
                    elif b0 not in moving:
                        id_rest_ok += 1
                    if b0 not in moving:
                        id_rest_n += 1
    # speed passes, one after the other in the same minute
    decode_fps = decode_rate(video, max_frames=n)
    e2e_fps = end_to_end_rate(video, cam, prof, game, n)
    decode_pyav_fps = decode_rate(video, "pyav", max_frames=n)
    decode_1c_fps, e2e_1c_fps = one_core_rates(video, cam, prof, game, n)
    e2e_run_fps = as_run_rate(video, cam, prof, game, n)
    live_run = live_rate(video, cam, prof, game) if live else None
    return dict(
        clip=truth_path.name.replace(".truth.json", ""),
        game=game,
        size=tuple(truth["size"]),
        fps=truth["fps"],
        frames=n,
        rest_err=rest_err,
        mov_err=mov_err,
        rest_n=rest_n,
        rest_found=rest_found,
        view_n=view_n,
        view_found=view_found,
        mov_n=mov_n,
        mov_found=mov_found,
        false_det=false_det,
        rack_frames=rack_frames,
        rack_ok=rack_ok,
        cls_n=cls_n,
        cls_ok=cls_ok,
        fresh_n=fresh_n,
        fresh_ok=fresh_ok,
        switched=sorted(switched),
        shots=len(shots_seen),
        shots_switched=len(shots_switched),
        id_rest_n=id_rest_n,
        id_rest_ok=id_rest_ok,
        acc_n=acc_n,
        acc_ok=acc_ok,
        false_balls=false_balls,
        confusion=confusion,
        track_fps=n / max(t_proc, 1e-9),
        track_cpu_fps=n / max(cpu_proc, 1e-9),
        e2e_fps=e2e_fps,
        decode_fps=decode_fps,
        decode_pyav_fps=decode_pyav_fps,
        decode_1c_fps=decode_1c_fps,
        e2e_1c_fps=e2e_1c_fps,
        e2e_run_fps=e2e_run_fps,
        load=os.getloadavg()[0],
        live=live_run,
    )


def _racked(truth: dict, prof) -> bool:
    """Whether the clip starts with the 15-ball pyramid rack."""
    balls = truth["frames"][0]["balls"]
    rack = np.array(prof.rack_positions())
    pts = np.array([p for b, p in balls.items() if b != "Y"])
    if len(pts) != 15:
        return False
    d = np.linalg.norm(pts[:, None] - rack[None], axis=2)
    return bool((d.min(axis=0) < prof.ball_radius_mm).all())


@contextlib.contextmanager
def one_core():
    """This thread and every thread it starts meanwhile (the decoder's, the source's
    read-ahead) on one CPU: the decode-only and end-to-end passes "on one core"."""
    if not hasattr(os, "sched_setaffinity"):  # pragma: no cover - Linux has it
        yield
        return
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(old)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, old)


def one_core_rates(video: Path, cam, prof, game: str, n: int) -> tuple[float, float]:
    """Decode-only and end-to-end frames/s with the whole pass pinned to one CPU."""
    with one_core():
        dec = decode_rate(video, max_frames=n)
        e2e = end_to_end_rate(video, cam, prof, game, n)
    return dec, e2e


def as_run_rate(video: Path, cam, prof, game: str, max_frames: int) -> float:
    """End to end as ``luza track`` runs by default: OpenCV's threads as many as the
    machine's CPUs, the detector's windows on the threads ``tracker_threads`` leaves a
    file's tracker (one fewer than the CPUs)."""
    cv2.setNumThreads(os.cpu_count() or 1)
    try:
        return end_to_end_rate(video, cam, prof, game, max_frames, as_run=True)
    finally:
        cv2.setNumThreads(1)


def end_to_end_rate(
    video: Path, cam, prof, game: str, max_frames: int, as_run: bool = False
) -> float:
    """Frames/s of decoding + tracking alone: a fresh pipeline over the file, nothing
    else in the loop (the source decodes ahead in its thread, as ``luza track`` does;
    ``as_run``: the detector's threads as ``luza track`` gives them)."""
    pipe = VisionPipeline(cam, prof, game)
    n = 0
    t0 = time.perf_counter()
    with open_source(video, for_tracking=True) as src:
        if as_run:
            pipe.detector.threads = tracker_threads(src)
        for fr in src:
            pipe.process(fr)
            n += 1
            if n >= max_frames:
                break
    return n / max(time.perf_counter() - t0, 1e-9)


def live_rate(
    video: Path, cam, prof, game: str, backlog_s: float | None = None
) -> tuple[int, int, float, int]:
    """Replay the clip in real time (a reader thread, as from a camera) through the
    pipeline: (frames processed, frames the reader had to drop, the longest a frame
    waited for the tracker (s), the most frames waiting at once).  ``backlog_s``: the
    reader's backlog (None: the default; 0: the newest frame only)."""
    from luza.vision.sources import LIVE_BACKLOG_S, CvCaptureSource

    cv2.setNumThreads(2)
    pipe = VisionPipeline(cam, prof, game)
    backlog_s = LIVE_BACKLOG_S if backlog_s is None else backlog_s
    src = CvCaptureSource(str(video), live=True, pace=True, backlog_s=backlog_s, for_tracking=True)
    n = 0
    for fr in src:
        pipe.process(fr)
        n += 1
    src.close()
    cv2.setNumThreads(1)
    return n, src.dropped, src.max_wait_s, src.max_backlog


def _pct(a, q):
    return float(np.percentile(a, q)) if len(a) else float("nan")


def summarise(results: list[dict]) -> None:
    print(
        f"{'clip':34s} {'size':>9s} {'fps':>3s} {'rest med/p95 mm':>16s} {'rest rec':>8s} "
        f"{'in view':>7s} "
        f"{'mov p95':>7s} {'mov rec':>7s} {'FP/1k':>6s} {'rack':>7s} {'switch':>6s} "
        f"{'track/s':>7s} {'e2e/s':>6s} {'dec/s':>6s} {'ratio':>5s} {'1 core':>6s} "
        f"{'load':>4s}"
    )
    for r in results:
        print(
            f"{r['clip'][:34]:34s} {r['size'][0]}x{r['size'][1]:<4d} {r['fps']:3.0f} "
            f"{np.median(r['rest_err']) if r['rest_err'] else float('nan'):7.2f}/"
            f"{_pct(r['rest_err'], 95):<7.2f} "
            f"{r['rest_found'] / max(1, r['rest_n']):8.4f} "
            f"{r['view_found'] / max(1, r['view_n']):7.4f} {_pct(r['mov_err'], 95):7.1f} "
            f"{r['mov_found'] / max(1, r['mov_n']):7.3f} "
            f"{1000 * r['false_det'] / max(1, r['frames']):6.1f} "
            f"{r['rack_ok']:3d}/{r['rack_frames']:<3d} {len(r['switched']):6d} "
            f"{r['track_fps']:7.0f} {r['e2e_fps']:6.0f} {r['decode_fps']:6.0f} "
            f"{r['e2e_fps'] / r['decode_fps']:5.2f} {r['e2e_1c_fps'] / r['decode_1c_fps']:6.2f} "
            f"{r['load']:4.1f}"
        )
        if r["switched"]:
            print(f"    identity lost: {', '.join(r['switched'])}")
    rest = np.concatenate([r["rest_err"] for r in results]) if results else np.zeros(0)
    mov = np.concatenate([r["mov_err"] for r in results]) if results else np.zeros(0)
    tot = {
        k: sum(r[k] for r in results)
        for k in (
            "rest_n",
            "rest_found",
            "view_n",
            "view_found",
            "mov_n",
            "mov_found",
            "false_det",
            "frames",
            "rack_frames",
            "rack_ok",
            "cls_n",
            "cls_ok",
            "fresh_n",
            "fresh_ok",
        )
    }
    print("\nall clips:")
    print(
        f"  at rest: median {np.median(rest) if len(rest) else float('nan'):.2f} mm, "
        f"p95 {_pct(rest, 95):.2f} mm, recall {tot['rest_found'] / max(1, tot['rest_n']):.4f} "
        f"({tot['rest_n']}; balls under the player's body count as missed), recall of the "
        f"balls in view {tot['view_found'] / max(1, tot['view_n']):.4f} ({tot['view_n']})"
    )
    print(
        f"  moving: p95 {_pct(mov, 95):.1f} mm, "
        f"recall {tot['mov_found'] / max(1, tot['mov_n']):.4f}"
    )
    print(
        f"  false detections per 1000 frames: {1000 * tot['false_det'] / max(1, tot['frames']):.1f}"
    )
    acc = sum(r["acc_ok"] for r in results) / max(1, sum(r["acc_n"] for r in results))
    fb = sum(r["false_balls"] for r in results)
    print(
        f"  balls the tracker reports where none is: "
        f"{1000 * fb / max(1, tot['frames']):.2f} per 1000 frames"
    )
    print(f"  balls at rest accounted for by the tracker (seen or hidden, right id): {acc:.4f}")
    print(f"  rack complete in {tot['rack_ok']}/{tot['rack_frames']} frames before the break")
    id_ok = sum(r["id_rest_ok"] for r in results)
    id_n = sum(r["id_rest_n"] for r in results)
    print(
        f"  clips without an identity switch: "
        f"{sum(1 for r in results if not r['switched'])}/{len(results)}; shots without one: "
        f"{sum(r['shots'] - r['shots_switched'] for r in results)}/"
        f"{sum(r['shots'] for r in results)}; ids right at rest "
        f"{id_ok / max(1, id_n):.4f}"
    )
    print(
        f"  classification at rest: {tot['cls_ok'] / max(1, tot['cls_n']):.4f} ({tot['cls_n']} "
        f"classified detections, carried ones counted every frame); fresh views only "
        f"{tot['fresh_ok'] / max(1, tot['fresh_n']):.4f} ({tot['fresh_n']})"
    )
    conf: dict[tuple[str, str], int] = {}
    for r in results:
        for k, v in r["confusion"].items():
            conf[k] = conf.get(k, 0) + v
    wrong = {f"{a}->{b}": v for (a, b), v in sorted(conf.items()) if a != b}
    print(f"  misclassified at rest (truth->label): {wrong or 'none'}")
    for res in ("1080p", "720p"):
        sel = [r for r in results if f"{r['size'][1]}p" == res]
        n = sum(r["cls_n"] for r in sel)
        if n:
            print(f"  classification at rest, {res}: {sum(r['cls_ok'] for r in sel) / n:.4f} ({n})")
    if any(r["live"] for r in results):
        for r in results:
            n, dropped, wait_s, backlog = r["live"]
            print(
                f"  live replay {r['clip']}: {n} of {n + dropped} frames processed at "
                f"{r['fps']:.0f} fps ({100 * n / max(1, n + dropped):.1f} %), longest wait "
                f"{1000 * wait_s:.0f} ms, at most {backlog} frames waiting"
            )
    for label, sel in (
        ("all clips", results),
        ("1080p", [r for r in results if r["size"][1] == 1080]),
        ("720p", [r for r in results if r["size"][1] == 720]),
    ):
        if not sel:
            continue
        tf = [r["track_fps"] for r in sel]
        tcpu = [r["track_cpu_fps"] for r in sel]
        e2e = np.array([r["e2e_fps"] for r in sel])
        dec = np.array([r["decode_fps"] for r in sel])
        pyav = [r["decode_pyav_fps"] for r in sel]
        n = np.array([r["frames"] for r in sel], float)
        print(
            f"  speed, {label} (median of {len(sel)}; tracking on 1 core, decoding ahead in "
            f"a thread): tracking without decoding {np.median(tf):.0f} frames/s "
            f"(min {min(tf):.0f}; by its thread's CPU time {np.median(tcpu):.0f}, min "
            f"{min(tcpu):.0f}), end to end {np.median(e2e):.0f}, decode-only "
            f"{np.median(dec):.0f} (PyAV {np.median(pyav):.0f}), end to end / decode "
            f"median {_ratios(e2e, dec, n)}"
        )
        dec1 = np.array([r["decode_1c_fps"] for r in sel])
        e2e1 = np.array([r["e2e_1c_fps"] for r in sel])
        run = np.array([r["e2e_run_fps"] for r in sel])
        print(
            f"  speed, {label}, end to end as luza track runs (every core): median "
            f"{np.median(run):.0f}, / decode-only median {_ratios(run, dec, n)}"
        )
        print(
            f"  speed, {label}, everything on ONE core (decoder threads and tracker pinned "
            f"to one CPU): end to end {np.median(e2e1):.0f}, decode-only "
            f"{np.median(dec1):.0f}, end to end / decode median {_ratios(e2e1, dec1, n)}"
        )
    print(f"  load average (1, 5, 15 min) at the end: {os.getloadavg()}")


def _ratios(e2e: np.ndarray, dec: np.ndarray, frames: np.ndarray) -> str:
    """End to end / decode-only of clips: "median (min; over all the frames)"."""
    r = e2e / dec
    over_all = (frames / dec).sum() / (frames / e2e).sum()
    return f"{np.median(r):.2f} (min {r.min():.2f}; over all the frames {over_all:.2f})"


def tracking_rate(video: Path, cam, prof, game: str) -> tuple[float, float]:
    """Tracking without decoding: frames/s of ``pipe.process`` alone (the frames decoded
    inline, off the clock), by wall time and by the thread's CPU time."""
    pipe = VisionPipeline(cam, prof, game)
    n, wall, cpu = 0, 0.0, 0.0
    with open_source(video, prefetch=0) as src:
        for fr in src:
            t0, c0 = time.perf_counter(), time.thread_time()
            pipe.process(fr)
            wall += time.perf_counter() - t0
            cpu += time.thread_time() - c0
            n += 1
    return n / max(wall, 1e-9), n / max(cpu, 1e-9)


def _detectors(old: Path | None) -> list[tuple[str, type]]:
    """The current detector, and ``old`` (another version's ``vision/detect.py``)."""
    import luza.vision.pipeline as pipeline_mod

    detectors = [("current", pipeline_mod.BallDetector)]
    if old is not None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_detect_speed import load_detect

        detectors.append((old.name, load_detect(old).BallDetector))
    return detectors


def speed_only(paths: list[Path], old: Path | None = None, reps: int = 2) -> int:
    """The speed figures alone, per clip: tracking without decoding, decode-only, end to
    end and its ratio to decode-only; with ``old``, alternating the two detectors in the
    same minute (best of ``reps`` runs each)."""
    import luza.vision.pipeline as pipeline_mod

    detectors = _detectors(old)
    print(
        f"{'clip':34s} {'detector':>14s} {'track/s':>7s} {'(CPU)':>6s} {'dec/s':>6s} "
        f"{'e2e/s':>6s} {'ratio':>5s} {'1c dec':>6s} {'1c e2e':>6s} {'1c rat':>6s} {'as run':>6s} "
        f"{'ratio':>5s} {'load':>5s}"
    )
    for p in paths:
        truth, video, cam, prof = load_clip(p)
        n = len(truth["frames"])
        best: dict[str, list[float]] = {tag: [0.0] * 10 for tag, _ in detectors}
        for rep in range(reps):
            for tag, cls in detectors if rep % 2 == 0 else detectors[::-1]:
                pipeline_mod.BallDetector = cls
                try:
                    tr, tcpu = tracking_rate(video, cam, prof, truth["game"])
                    dec = decode_rate(video, max_frames=n)
                    e2e = end_to_end_rate(video, cam, prof, truth["game"], n)
                    dec1, e2e1 = one_core_rates(video, cam, prof, truth["game"], n)
                    run = as_run_rate(video, cam, prof, truth["game"], n)
                finally:
                    pipeline_mod.BallDetector = detectors[0][1]
                b = best[tag]
                b[:4] = [max(b[0], tr), max(b[1], tcpu), max(b[2], dec), max(b[3], e2e)]
                b[4] = max(b[4], e2e / dec)  # the ratio of the same minute
                b[5:7] = [max(b[5], dec1), max(b[6], e2e1)]
                b[7] = max(b[7], e2e1 / dec1)
                b[8:10] = [max(b[8], run), max(b[9], run / dec)]
        for tag, _ in detectors:
            tr, tcpu, dec, e2e, ratio, dec1, e2e1, ratio1, run, ratio_run = best[tag]
            print(
                f"{p.name.replace('.truth.json', '')[:34]:34s} {tag[:14]:>14s} {tr:7.0f} "
                f"{tcpu:6.0f} {dec:6.0f} {e2e:6.0f} {ratio:5.2f} {dec1:6.0f} {e2e1:6.0f} "
                f"{ratio1:6.2f} {run:6.0f} {ratio_run:5.2f} {os.getloadavg()[0]:5.1f}",
                flush=True,
            )
    return 0


def live_only(paths: list[Path], backlogs: list[float], old: Path | None = None) -> int:
    """Each clip replayed in real time once per reader backlog, one after the other
    (``old``: and each with another version's ``vision/detect.py`` too)."""
    import luza.vision.pipeline as pipeline_mod

    detectors = _detectors(old)
    # the replay lets OpenCV use both cores (as ``luza`` does by default); a detector with
    # worker threads follows it (older ones ran a frame's windows on one thread)
    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")
    print(
        f"{'clip':34s} {'detector':>14s} {'backlog s':>9s} {'processed':>15s} {'dropped':>7s} "
        f"{'longest wait ms':>15s} {'most waiting':>12s} {'load (1 min)':>12s}"
    )
    for p in paths:
        truth, video, cam, prof = load_clip(p)
        for (tag, cls), b in ((d, b) for d in detectors for b in backlogs):
            pipeline_mod.BallDetector = cls
            try:
                n, dropped, wait_s, most = live_rate(video, cam, prof, truth["game"], b)
            finally:
                pipeline_mod.BallDetector = detectors[0][1]
            print(
                f"{p.name.replace('.truth.json', '')[:34]:34s} {tag[:14]:>14s} {b:9.2f} "
                f"{n:5d} ({100 * n / max(1, n + dropped):5.1f} %) {dropped:7d} "
                f"{1000 * wait_s:15.0f} {most:12d} {os.getloadavg()[0]:12.1f}",
                flush=True,
            )
    return 0


def _makespan(times: list[float], threads: int) -> float:
    """The longest thread's total when jobs go, the largest first, to the least loaded."""
    loads = [0.0] * threads
    for t in sorted(times, reverse=True):
        loads[loads.index(min(loads))] += t
    return max(loads) if times else 0.0


def _replay(times: np.ndarray, fps: float, backlog_s: float) -> tuple[int, int, float]:
    """A real-time replay of frames costing ``times`` (s) each: frames come at ``fps``,
    the tracker takes the oldest waiting one, frames waiting longer than ``backlog_s``
    are dropped (the newest kept): (processed, dropped, longest wait s)."""
    n, t, i = len(times), 0.0, 0
    done = dropped = 0
    wait = 0.0
    come = np.arange(n) / fps
    while i < n:
        t = max(t, come[i])
        while i + 1 < n and come[i + 1] <= t and t - come[i] > backlog_s:
            i += 1
            dropped += 1
        wait = max(wait, t - come[i])
        t += times[i]
        done += 1
        i += 1
    return done, dropped, wait


def live_projected(paths: list[Path], threads: int = 2, backlog_s: float | None = None) -> int:
    """Live on a quiet machine, projected from thread CPU times (a wall-clock replay on a
    shared, loaded machine measures the load as much as the tracker): each frame's
    ``pipe.process`` CPU time on one thread, and inside it each search window's and
    streak search's; with ``threads`` threads a frame's windows run largest first on
    them, so its time is the frame's minus the windows' plus their makespan.  Both
    series are then replayed in real time against the reader's backlog.  Decoding (on
    the other core, ~15-20 % of it at 1080p60) is left out."""
    from luza.vision import detect as detect_mod
    from luza.vision.sources import LIVE_BACKLOG_S

    backlog_s = LIVE_BACKLOG_S if backlog_s is None else backlog_s
    jobs: dict[str, list[float]] = {"_window": [], "_streaks": []}
    saved = {name: getattr(detect_mod.BallDetector, name) for name in jobs}

    def timed(name):
        base = saved[name]

        def call(self, *a, **kw):
            t0 = time.thread_time()
            try:
                return base(self, *a, **kw)
            finally:
                jobs[name].append(time.thread_time() - t0)

        return call

    print(f"load average (1, 5, 15 min) at the start: {os.getloadavg()}")
    print(
        f"{'clip':34s} {'fps':>3s} {'frames/s 1 thread (worst 1 s)':>30s} "
        f"{f'{threads} threads':>18s} {'live 1 thread: processed, longest wait':>40s} "
        f"{f'{threads} threads':>20s}"
    )
    for name in jobs:
        setattr(detect_mod.BallDetector, name, timed(name))
    try:
        for p in paths:
            truth, video, cam, prof = load_clip(p)
            pipe = VisionPipeline(cam, prof, truth["game"])
            pipe.detector.threads = 1
            one, many = [], []
            with open_source(video) as src:
                fps = src.fps
                for fr in src:
                    for v in jobs.values():
                        v.clear()
                    t0 = time.thread_time()
                    pipe.process(fr)
                    t = time.thread_time() - t0
                    one.append(t)
                    for v in jobs.values():
                        t += _makespan(v, threads) - sum(v)
                    many.append(t)
            k = max(1, int(round(fps)))
            row = []
            for ts in (np.array(one), np.array(many)):
                worst = k / np.convolve(ts, np.ones(k), "valid").max() if len(ts) >= k else 0
                row.append((len(ts) / ts.sum(), worst, *_replay(ts, fps, backlog_s)))
            (r1, w1, d1, x1, m1), (r2, w2, d2, x2, m2) = row
            print(
                f"{p.name.replace('.truth.json', '')[:34]:34s} {fps:3.0f} "
                f"{r1:21.0f} ({w1:4.0f}) {r2:11.0f} ({w2:4.0f}) "
                f"{d1:25d}/{d1 + x1:<5d} {1000 * m1:5.0f} ms {d2:8d}/{d2 + x2:<5d} "
                f"{1000 * m2:5.0f} ms",
                flush=True,
            )
    finally:
        for name, base in saved.items():
            setattr(detect_mod.BallDetector, name, base)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path, help="folders with <clip>.truth.json + .mp4")
    ap.add_argument("--render", help="render these scenes first (comma-separated)")
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--max-clips", type=int, default=0)
    ap.add_argument("--live", action="store_true", help="also replay each clip in real time")
    ap.add_argument(
        "--live-only",
        metavar="BACKLOG_S",
        help="only the real-time replays, once per reader backlog (s, comma-separated; "
        "0: the newest frame only), alternating, with the load average",
    )
    ap.add_argument(
        "--speed-only", action="store_true", help="only the speed passes, with the load average"
    )
    ap.add_argument("--old", type=Path, help="--live-only, --speed-only: also this detect.py")
    ap.add_argument(
        "--live-projected",
        metavar="THREADS",
        type=int,
        help="only live on a quiet machine, projected from thread CPU times, for one "
        "thread and this many (the detector's windows in parallel)",
    )
    args = ap.parse_args(argv)
    paths = clips_in(args.dirs)
    if args.render:
        from luza.samples.synth import ClipConfig, make_clip

        w, h = (int(v) for v in args.size.lower().split("x"))
        out = Path(tempfile.mkdtemp(prefix="luza-bench-"))
        for sc in args.render.split(","):
            make_clip(ClipConfig(scene=sc, seed=args.seed, size=(w, h), fps=args.fps), out)
        paths += clips_in([out])
    if args.max_clips:
        paths = paths[: args.max_clips]
    if not paths:
        print("no clips (give folders of luza synth clips, or --render SCENES)")
        return 0
    if args.speed_only:
        return speed_only(paths, args.old)
    if args.live_projected:
        return live_projected(paths, args.live_projected)
    if args.live_only:
        return live_only(paths, [float(v) for v in args.live_only.split(",")], args.old)
    results = []
    for p in paths:
        r = run_clip(p, args.live)
        results.append(r)
        print(f"done {r['clip']}", file=sys.stderr)
    summarise(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
