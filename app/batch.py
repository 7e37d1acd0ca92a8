"""`luza batch`: analyze many recorded matches on all local cores or on a Dask cluster.

One job per video: ``luza.app.analyze.analyze_video(video, OUT/<stem>/, ...)``.
Without ``--scheduler`` a ``dask.distributed.LocalCluster`` runs one
single-threaded worker process per core; with ``--scheduler tcp://HOST:PORT``
the jobs go to that cluster (its workers must see the videos and OUT at the
same paths, e.g. a shared file system, and have luza installed).

Resuming: a job is done when ``OUT/<stem>/done.json`` exists.  The worker
writes it last, atomically, holding the analysis summary, so a stopped batch
(Ctrl-C, a crash, a lost machine) started again skips what is done and runs
the rest.  A video that fails is reported with its message and the batch goes
on.  The match records go into the match database (``--db``, else the
default one; ``--no-db`` for none) from this (the client) side, one video at
a time as results come back, so workers never write the same SQLite file at
once; a restart stores each record once (a match of the same video holding
the same record is not stored again).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import inspect
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luza.app.common import add_db_argument, open_store, resolve_db
from luza.errors import LuzaError
from luza.events import GAMES
from luza.output_files import writable_dir

VIDEO_SUFFIXES = (".mp4", ".mkv", ".avi", ".mov", ".webm", ".m4v", ".mpg", ".mpeg", ".ts")
DONE_NAME = "done.json"
RECORD_NAMES = ("record.jsonl", "match.jsonl")
CONNECT_TIMEOUT_S = 10.0  # how long to try a --scheduler address before giving up
ANALYZE = "luza.app.analyze:analyze_video"


class BatchError(LuzaError):
    """The batch cannot start (no videos, a scheduler not reachable, bad options)."""


@dataclass
class Job:
    video: Path
    out_dir: Path
    calibration: str
    inputs: str | None = None

    @property
    def stem(self) -> str:
        return self.out_dir.name

    @property
    def done_path(self) -> Path:
        return self.out_dir / DONE_NAME


@dataclass
class Outcome:
    """What became of one video in this run."""

    job: Job
    status: str  # "done" (analyzed now) | "skipped" (done before) | "failed"
    summary: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    seconds: float = 0.0
    match_id: int | None = None


# -- finding the videos ----------------------------------------------------------
def find_videos(spec: str) -> list[Path]:
    """The videos of a folder (not recursive) or a glob pattern (``**`` allowed), sorted."""
    p = Path(spec).expanduser()
    if p.is_dir():
        found = [f for f in p.iterdir() if f.is_file() and f.suffix.lower() in VIDEO_SUFFIXES]
    elif p.is_file():
        found = [p]
    elif any(c in spec for c in "*?["):
        found = [
            Path(f)
            for f in glob.glob(os.path.expanduser(spec), recursive=True)
            if Path(f).is_file() and Path(f).suffix.lower() in VIDEO_SUFFIXES
        ]
    else:
        raise BatchError(f"no such folder or file: {spec}")
    if not found:
        kinds = ", ".join(VIDEO_SUFFIXES)
        raise BatchError(f"no videos matched {spec!r} (looked for {kinds})")
    return sorted(found)


def calibration_for(template: str, video: Path) -> str:
    """``auto``, one calibration file for every video, or a template with ``{stem}``,
    ``{dir}``, ``{name}`` (e.g. ``'{dir}/{stem}.truth.json'``)."""
    if template == "auto":
        return template
    try:
        spec = template.format(stem=video.stem, dir=str(video.parent), name=video.name)
    except (KeyError, IndexError, ValueError) as e:
        raise BatchError(
            f"--calibration {template!r}: a template may use {{stem}}, {{dir}}, {{name}} ({e})"
        ) from None
    return spec


def inputs_for(template: str | None, video: Path) -> str | None:
    """Operator inputs: one file for every video, or a template (``{stem}``, ``{dir}``,
    ``{name}``) whose file a video may lack (then it has none)."""
    if not template:
        return None
    if not any(f"{{{k}}}" in template for k in ("stem", "dir", "name")):
        if not Path(template).is_file():
            raise BatchError(f"operator inputs not found: {template}")
        return template
    spec = calibration_for(template, video)
    return spec if Path(spec).is_file() else None


def plan_jobs(
    videos: list[Path], out: Path, calibration: str, inputs: str | None = None
) -> list[Job]:
    by_stem: dict[str, Path] = {}
    jobs = []
    for v in videos:
        if v.stem in by_stem:
            raise BatchError(
                f"two videos would write to {out / v.stem}: {by_stem[v.stem]} and {v} "
                "(rename one, or run them as two batches)"
            )
        by_stem[v.stem] = v
        cal = calibration_for(calibration, v)
        jobs.append(Job(Path(os.path.abspath(v)), out / v.stem, cal, inputs_for(inputs, v)))
    return jobs


def read_done(job: Job) -> dict[str, Any] | None:
    """The summary of a finished job, or None when it is not done (or its marker is torn)."""
    try:
        d = json.loads(job.done_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return d if isinstance(d, dict) else None


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    from luza.output_files import atomic_file

    text = json.dumps(data, indent=2, default=str) + "\n"
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def check_shared_inputs(game: str, calibration: str, table: str | None, jobs: list[Job]) -> None:
    """What every video would refuse the same way is refused once, before any work: an
    unknown table profile, a calibration file (not a template) that is missing or garbled."""
    from luza.calibration.profiles import load_profile

    if table:
        load_profile(table)
    if calibration != "auto" and jobs and all(j.calibration == calibration for j in jobs):
        from luza.app.match import camera_for

        camera_for(calibration, game, table, [])


def cpu_share(n_processes: int) -> int:
    """Cores each of ``n_processes`` worker processes on this machine may use (at least 1)."""
    return max(1, (os.cpu_count() or 1) // max(1, n_processes))


# -- the job a worker runs ----------------------------------------------------------
def _analyzer(spec: str) -> Callable[..., dict]:
    import importlib

    mod, _, name = spec.partition(":")
    return getattr(importlib.import_module(mod), name)


def run_job(
    video: str,
    out_dir: str,
    game: str,
    calibration: str = "auto",
    table: str | None = None,
    inputs: str | None = None,
    video_out: bool = True,
    analyze: str = ANALYZE,
    cv_threads: int | None = None,
) -> dict[str, Any]:
    """Analyze one video into ``out_dir`` and write its ``done.json`` last (runs on a worker).

    ``cv_threads``: OpenCV's (and so the ball detector's) threads in this worker process --
    a local cluster runs a process per core, and a process that also split each frame over
    every core would only make the processes wait on each other.

    Never raises for a bad video: returns ``{"ok": False, "error": message}``."""
    t0 = time.perf_counter()
    if cv_threads is not None:
        import cv2

        cv2.setNumThreads(max(1, int(cv_threads)))
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fn = _analyzer(analyze)
        kw: dict[str, Any] = {}
        if "store" in inspect.signature(fn).parameters:
            kw["store"] = False  # the client stores records: workers never share the SQLite
        summary = fn(
            video,
            out,
            game,
            calibration=calibration,
            table=table,
            inputs=inputs,
            players=None,
            db=None,
            video_out=video_out,
            progress=False,
            **kw,
        )
    except LuzaError as e:
        return {"ok": False, "error": str(e), "seconds": time.perf_counter() - t0}
    except Exception as e:  # noqa: BLE001 - a batch reports a video's failure and goes on
        import traceback

        with contextlib.suppress(OSError), (out / "error.txt").open("w", encoding="utf-8") as f:
            traceback.print_exc(file=f)
        return {
            "ok": False,
            "error": f"{type(e).__name__}: {e} (details in {out / 'error.txt'})",
            "seconds": time.perf_counter() - t0,
        }
    done = {
        "video": str(video),
        "game": game,
        "calibration": calibration,
        "seconds": round(time.perf_counter() - t0, 3),
        "host": socket.gethostname(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "summary": summary if isinstance(summary, dict) else {},
    }
    write_json_atomic(out / DONE_NAME, done)
    return {"ok": True, "done": done, "seconds": done["seconds"]}


# -- storing the records (client side) -----------------------------------------------
def record_path(job: Job, done: dict[str, Any]) -> Path | None:
    summary = done.get("summary") or {}
    files = summary.get("files") if isinstance(summary, dict) else None
    for v in (files.get("record") if isinstance(files, dict) else None, summary.get("record")):
        if isinstance(v, str):
            p = Path(v)
            if p.is_file():
                return p
    for name in RECORD_NAMES:
        if (job.out_dir / name).is_file():
            return job.out_dir / name
    return None


def store_record(job: Job, done: dict[str, Any], db: Path) -> int:
    """Import the job's match record into ``db`` once: a match of this video holding the
    same record already is reused (a stop may fall between storing it and the next run)."""
    from luza.app.records import MatchStore

    rec = record_path(job, done)
    if rec is None:
        raise BatchError(f"{job.out_dir}: the analysis wrote no match record to store")
    with MatchStore(db) as st:
        return st.import_jsonl(rec, source=str(job.video), once=True)


# -- running ------------------------------------------------------------------------
def _fmt_s(s: float) -> str:
    s = max(0, int(round(s)))
    h, r = divmod(s, 3600)
    m, sec = divmod(r, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _score(summary: dict[str, Any]) -> tuple[str, str, str]:
    """(score, winner, shots) for the summary table, from what analyze_video returned."""
    final = summary.get("final") if isinstance(summary.get("final"), dict) else summary
    score = final.get("score") if isinstance(final, dict) else None
    score_s = " ".join(f"{k} {v}" for k, v in score.items()) if isinstance(score, dict) else "-"
    winner = final.get("winner") if isinstance(final, dict) else None
    shots = summary.get("shots", summary.get("n_shots"))
    if isinstance(shots, list):
        shots = len(shots)
    return score_s, str(winner) if winner is not None else "-", "-" if shots is None else str(shots)


def _connect(scheduler: str | None, workers: int, n_jobs: int, timeout_s: float):
    """(client, cluster or None): a LocalCluster sized for the jobs, or the given scheduler."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout=f"{timeout_s}s")
        except (OSError, TimeoutError) as e:
            raise BatchError(
                f"cannot reach the Dask scheduler at {scheduler} within "
                f"{timeout_s:g} s ({e.__class__.__name__}): is it running, and is the "
                "address host:port right?"
            ) from None
        except (ValueError, TypeError) as e:
            raise BatchError(
                f"--scheduler {scheduler!r} is not a Dask scheduler address (tcp://HOST:PORT): {e}"
            ) from None
        return client, None
    n = max(1, min(workers, n_jobs))
    with warnings.catch_warnings(), _workers_ignore_ctrl_c():
        # its HTTP routes move off a busy port 8787 by themselves: nothing for a user to do
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            scheduler_port=0,
            dashboard_address=None,
            memory_limit=0,  # a job's memory is its video's, not dask data: no pausing/killing
            silence_logs=logging.CRITICAL,  # jobs report their own errors; a stop is no error
        )
    return Client(cluster), cluster


@contextlib.contextmanager
def _workers_ignore_ctrl_c():
    """Start worker processes with SIGINT ignored (they inherit it): a terminal's Ctrl-C
    reaches the whole process group, and only this process should act on it (it closes the
    cluster); else every worker prints its own KeyboardInterrupt traceback.  Ctrl-C while
    the workers start is ignored too (a few seconds)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def run_batch(
    spec: str,
    out: str | Path,
    game: str,
    scheduler: str | None = None,
    workers: int | None = None,
    calibration: str = "auto",
    table: str | None = None,
    inputs: str | None = None,
    db: str | Path | None = None,
    video_out: bool = True,
    log: Callable[[str], None] | None = None,
    analyze: str = ANALYZE,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
) -> list[Outcome]:
    """Analyze every video of ``spec`` into ``out``; returns one :class:`Outcome` per video."""
    if game not in GAMES:
        raise BatchError(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    say = log or (lambda s: print(s, file=sys.stderr, flush=True))
    out_dir = Path(out).expanduser().resolve()  # workers may run elsewhere: absolute paths
    jobs = plan_jobs(find_videos(spec), out_dir, calibration, inputs)
    check_shared_inputs(game, calibration, table, jobs)
    writable_dir(out_dir)  # a file in its place, a read-only folder: said before any work
    try:
        _analyzer(analyze)  # the same code runs on the workers: fail here, not once per video
    except (ImportError, AttributeError) as e:
        raise BatchError(f"cannot load the analysis {analyze}: {e}") from None
    db_path = Path(db).expanduser() if db else None
    if db_path is not None:
        open_store(db_path, write=True).close()  # a locked / damaged database: said now

    outcomes: dict[str, Outcome] = {}
    todo: list[Job] = []
    for j in jobs:
        d = read_done(j)
        if d is not None and d.get("game", game) != game:
            say(f"batch: {j.stem} was analyzed as {d.get('game')}, not {game}: analyzing again")
            d = None
        if d is None:
            todo.append(j)
        else:
            outcomes[j.stem] = Outcome(j, "skipped", d.get("summary") or {}, seconds=0.0)
    total = len(jobs)
    finished = total - len(todo)
    say(f"batch: {total} video(s), {finished} already done, {len(todo)} to analyze -> {out_dir}")

    def store(o: Outcome, done: dict[str, Any]) -> None:
        if db_path is None:
            return
        try:
            o.match_id = store_record(o.job, done, db_path)
        except LuzaError as e:
            o.status, o.error = "failed", f"analyzed, but storing the record failed: {e}"

    for o in outcomes.values():  # done before: stored into this db once (a stop may have
        store(o, {"summary": o.summary})  # come between done.json and storing it)

    if todo:
        n_workers = workers or os.cpu_count() or 1
        client, cluster = _connect(scheduler, n_workers, len(todo), connect_timeout_s)
        # a local cluster shares this machine's cores out; a remote one's machines are its own
        cv_threads = None if cluster is None else cpu_share(len(cluster.workers))
        futures: dict[Any, Job] = {}
        try:
            where = scheduler or f"a local cluster of {len(cluster.workers)} worker process(es)"
            say(f"batch: running on {where}")
            if scheduler and not client.scheduler_info().get("workers"):
                say("batch: the scheduler has no workers yet; the jobs wait for some to join")
            from dask.distributed import as_completed

            for j in todo:
                f = client.submit(
                    run_job,
                    str(j.video),
                    str(j.out_dir),
                    game,
                    j.calibration,
                    table,
                    j.inputs,
                    video_out,
                    analyze,
                    cv_threads,
                    key=f"luza-batch-{j.stem}-{time.time_ns()}",
                    pure=False,
                    retries=0,
                )
                futures[f] = j
            t0 = time.perf_counter()
            for n_run, f in enumerate(as_completed(futures), start=1):
                j = futures[f]
                try:
                    res = f.result()
                except Exception as e:  # noqa: BLE001 - a lost worker, a pickling failure
                    res = {"ok": False, "error": f"the worker failed: {type(e).__name__}: {e}"}
                finished += 1
                secs = float(res.get("seconds") or 0.0)
                if res.get("ok"):
                    done = res["done"]
                    o = Outcome(j, "done", done.get("summary") or {}, seconds=secs)
                    store(o, done)
                else:
                    o = Outcome(j, "failed", error=str(res.get("error")), seconds=secs)
                outcomes[j.stem] = o
                elapsed = time.perf_counter() - t0
                eta = elapsed / n_run * (len(todo) - n_run)
                what = f"done in {secs:.1f} s" if o.status == "done" else f"FAILED: {o.error}"
                say(
                    f"[{finished}/{total}] {j.stem}: {what} | elapsed {_fmt_s(elapsed)}, "
                    f"ETA {_fmt_s(eta)}"
                )
        except KeyboardInterrupt:
            # stopped: the running jobs are dropped (their done.json is never written)
            with contextlib.suppress(Exception):  # a scheduler gone away: nothing to cancel
                client.cancel(list(futures), force=True)
            raise
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    return [outcomes[j.stem] for j in jobs]


def summary_text(outcomes: list[Outcome]) -> str:
    from luza.app.records_cli import table_text

    rows = []
    for o in outcomes:
        score, winner, shots = _score(o.summary) if o.status != "failed" else ("-", "-", "-")
        rows.append(
            [
                o.job.stem,
                o.status,
                shots,
                score,
                winner,
                f"{o.seconds:.1f}" if o.status == "done" else "-",
                str(o.match_id) if o.match_id is not None else "-",
            ]
        )
    head = ["video", "status", "shots", "score", "winner", "time (s)", "match"]
    text = table_text(rows, head)
    failed = [o for o in outcomes if o.status == "failed"]
    for o in failed:
        text += f"\n{o.job.stem}: {o.error}"
    n = {s: sum(1 for o in outcomes if o.status == s) for s in ("done", "skipped", "failed")}
    text += f"\n{n['done']} analyzed, {n['skipped']} already done, {n['failed']} failed"
    return text


def cmd_batch(args: argparse.Namespace) -> int:
    if args.workers is not None and args.workers < 1:
        raise BatchError(f"--workers wants a positive number, got {args.workers}")
    # `kill` (SIGTERM) stops like Ctrl-C: the cluster is closed, done.json files stay
    old = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        outcomes = run_batch(
            args.videos,
            args.out,
            args.game,
            scheduler=args.scheduler,
            workers=args.workers,
            calibration=args.calibration,
            table=args.table,
            inputs=args.inputs,
            db=None if args.no_db else resolve_db(args.db),
            video_out=not args.no_video,
            connect_timeout_s=args.connect_timeout,
        )
    finally:
        signal.signal(signal.SIGTERM, old)
    print(summary_text(outcomes))
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "batch",
        help="analyze many recorded matches on all local cores or a Dask cluster",
        description="Run `luza analyze` on every video of a folder or glob, one job per video "
        "into OUT/<video stem>/, on a local Dask cluster (one worker process per core) or on "
        "the cluster of --scheduler.  Videos with OUT/<stem>/done.json are skipped, so a "
        "stopped batch resumes; a video that fails is reported and the batch goes on "
        "(exit 1 at the end).",
    )
    p.add_argument("videos", metavar="DIR_OR_GLOB", help="a folder of videos, or a glob pattern")
    p.add_argument("-o", "--out", required=True, metavar="OUT", help="output folder")
    p.add_argument("--game", required=True, choices=sorted(GAMES), help="the game played")
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="a running Dask scheduler (workers must see the videos and OUT at the same paths)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        default=CONNECT_TIMEOUT_S,
        metavar="S",
        help=f"give up on --scheduler after S seconds (default {CONNECT_TIMEOUT_S:g})",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: one per core); ignored with --scheduler",
    )
    p.add_argument(
        "--calibration",
        default="auto",
        help="'auto' (find the table in each video), a calibration file for all, or a "
        "template such as '{dir}/{stem}.truth.json'",
    )
    p.add_argument("--table", default=None, help="table profile name or .json path")
    p.add_argument(
        "--inputs",
        default=None,
        help="operator inputs (JSON lines): one file for every video, or a template such as "
        "'{dir}/{stem}.inputs.jsonl' (a video without that file has none)",
    )
    add_db_argument(p)
    p.add_argument("--no-db", action="store_true", help="do not store the match records")
    p.add_argument("--no-video", action="store_true", help="skip the annotated videos")
    p.set_defaults(func=cmd_batch)
