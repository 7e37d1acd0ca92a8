"""luza analyze: a recorded match in, everything a club, referee or analyst wants out.

    luza analyze VIDEO --game free-pyramid|five-ball -o DIR [--calibration auto|FILE]
        [--table NAME] [--inputs OPERATOR.jsonl] [--players "Ann,Bob"] [--db PATH]
        [--no-db] [--no-video] [--quiet]

Calibrates the camera (or loads ``--calibration``), tracks every ball, extracts the
events, scores them with the rules, and writes into DIR:

- ``events.jsonl``     the event log (DESIGN.md stream, table_state first)
- ``record.jsonl``     the match record (``luza replay DIR/record.jsonl`` checks it)
- ``scoresheet.txt``   per stroke: player, cue ball, what happened, the ruling with
  ``scoresheet.csv``   its rule numbers, the running score
- ``stats.json``       per stroke: cue-ball peak / mean speed, cushions, distances;
  ``stats.png``        totals; a heat map of the cue ball on a top view of the table
- ``annotated.mp4``    H.264: ball ids, trails, events, score, respot hints
- ``calibration.json`` the camera found by ``--calibration auto``
- ``summary.json``     what was written and the result (written last: a finished run)

and stores the match in the SQLite match database (``--db``, else ``$LUZA_DB``, else
``~/.luza/matches.sqlite``; ``--no-db`` skips it).  ``--inputs`` are operator inputs
(calls, referee fouls, choices; JSON lines) merged into the stream by time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from luza.calibration.profiles import load_profile
from luza.events import GAMES, Event, EventError, make, write_jsonl
from luza.output_files import atomic_file, part_path, remove_file, writable_dir
from luza.rules.cli import parse_options
from luza.rules.engine import Item, RuleError, load_game
from luza.rules.record import write_record
from luza.vision.cli import DEFAULT_TABLE

from . import scoresheet, stats
from .common import (
    ArgumentError,
    add_db_argument,
    is_live_source,
    open_store,
    parse_players,
    parse_start_score,
)
from .match import MatchError, check_game, read_input_items, score_run, start_note, track_video

FILES = {
    "events": "events.jsonl",
    "record": "record.jsonl",
    "scoresheet": "scoresheet.txt",
    "scoresheet_csv": "scoresheet.csv",
    "stats": "stats.json",
    "stats_png": "stats.png",
    "video": "annotated.mp4",
    "calibration": "calibration.json",
    "summary": "summary.json",
}


class Bar:
    """A tqdm progress bar with ETA on stderr, only when asked and stderr is a terminal."""

    def __init__(self, desc: str, enabled: bool):
        self.desc = desc
        self.enabled = enabled and sys.stderr.isatty()
        self._bar = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total or None, desc=self.desc, unit="frame", file=sys.stderr, leave=False
            )
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def operator_inputs(
    events: list[Event], inputs: str | None, players: list[str] | None
) -> list[Item]:
    """The operator inputs: the players (at the start of the stream) and the inputs file."""
    out: list[Item] = []
    if players:
        t0 = events[0].t if events else 0.0
        out.append(Item(make("players", t0, None, 1.0, names=list(players)), "--players"))
    if inputs:
        got = read_input_items(inputs)
        if players and any(it.type == "players" for it in got):
            raise MatchError(f"{inputs} names the players already: leave out --players")
        out.extend(got)
    out.sort(key=lambda it: it.t)  # stable: the players line stays first
    return out


def analyze_video(
    video: str,
    out_dir: str | Path,
    game: str,
    calibration: str = "auto",
    table: str | None = None,
    inputs: str | None = None,
    players: str | list[str] | None = None,
    db: str | None = None,
    video_out: bool = True,
    progress: bool = True,
    store: bool = True,
    max_frames: int = 0,
    options: dict[str, Any] | None = None,
    start_score: str | dict[str, int] | None = None,
) -> dict[str, Any]:
    """Analyse one video into ``out_dir``; returns a JSON-able summary (paths written,
    n_frames, n_shots, final score, winner, seconds).  Deterministic: the same input
    gives the same files (only ``summary.json``'s times and the database's ids vary).

    ``store=False`` leaves the match database alone; ``options`` are the game's options
    (``luza score --option``: ambiguity readings, tolerances); ``start_score`` (``"3:2"``,
    breaker first) is the score of a game the video takes up mid-way."""
    t_all = time.perf_counter()
    check_game(game)
    names = parse_players(players)
    start = parse_start_score(start_score)
    # an unknown table, option or a bad inputs file is said before minutes of tracking
    profile = load_profile(table or DEFAULT_TABLE[game])
    if options:
        load_game(game, profile, options)
    if inputs:
        read_input_items(inputs)
    # the database: a locked or damaged file is said before minutes of tracking (and
    # before an earlier run in DIR is touched)
    ms = open_store(db, write=True) if store else None
    try:
        out = writable_dir(out_dir)  # a file in its place, no permission: said now
        # summary.json marks a finished run: an earlier one's must not outlive a failed rerun
        remove_file(out / FILES["summary"])
        return _analyze(
            video, out, game, calibration, table, inputs, names, ms, video_out, progress,
            max_frames, t_all, options, start,
        )  # fmt: skip
    finally:
        if ms is not None:
            ms.close()


def _analyze(
    video: str,
    out: Path,
    game: str,
    calibration: str,
    table: str | None,
    inputs: str | None,
    names: list[str] | None,
    ms: Any,  # a records.MatchStore, or None
    video_out: bool,
    progress: bool,
    max_frames: int,
    t_all: float,
    game_options: dict[str, Any] | None = None,
    start_score: dict[str, int] | None = None,
) -> dict[str, Any]:
    paths = {k: out / v for k, v in FILES.items()}
    written: dict[str, str] = {}
    seconds: dict[str, float] = {}
    notes: list[str] = []
    bar = Bar("tracking", progress)
    try:
        run = track_video(video, game, calibration, table, progress=bar, max_frames=max_frames)
    finally:
        bar.close()
    seconds["track"] = round(run.track_s, 2)
    notes.extend(run.notes)
    # what an earlier run left here goes: the folder holds this run's files only (an old
    # annotated video next to new records would pass for this run's)
    for f in paths.values():
        remove_file(f)
        remove_file(part_path(f))  # left by a run killed outright (SIGKILL, a lost worker)

    def put(key: str, write: Callable[[Path], object]) -> None:
        """Write one output whole or not at all (an interrupted run leaves no torn file)."""
        with atomic_file(paths[key]) as tmp:
            write(tmp)
        written[key] = str(paths[key])

    put("events", lambda p: write_jsonl(run.events, p))  # before scoring: kept if refused
    if run.calibration is not None and calibration == "auto":
        cal_text = json.dumps(run.calibration.to_dict(), indent=1) + "\n"
        put("calibration", lambda p: p.write_text(cal_text, encoding="utf-8"))

    t0 = time.perf_counter()
    table_name = run.table
    ops = operator_inputs(run.events, inputs, names)
    try:
        scored = score_run(run.events, game, table_name, game_options, ops, start_score)
    except (RuleError, EventError) as e:
        raise MatchError(
            f"the rules cannot score this match: {e} (the event log is in "
            f"{paths['events']}; `luza score` it to see more)"
        ) from None
    options = scored.game.options
    put("record", lambda p: write_record(p, scored, table_name, options))
    rows = scoresheet.shot_rows(scored)
    header = {
        "game": game,
        "table": table_name,
        "source": str(video),
        "players": ", ".join(names) if names else "",
        "frames": f"{run.n_frames} at {run.fps:g} fps ({run.n_frames / (run.fps or 30):.1f} s)",
        "calibration": calibration,
        "start": start_note([it.event for it in scored.items]) or "",
    }
    put("scoresheet", lambda p: scoresheet.write_text(p, rows, scored.final, header))
    put("scoresheet_csv", lambda p: scoresheet.write_csv(p, rows))
    items = [it.event for it in scored.items]
    st = stats.match_stats(run.frames, items, game, run.profile, run.fps)
    put("stats", lambda p: stats.write_json(p, st))
    title = f"{Path(str(video)).name}: {game} on {table_name}"
    put("stats_png", lambda p: stats.render_png(p, st, run.frames, items, run.profile, title))
    seconds["score"] = round(time.perf_counter() - t0, 2)

    live = is_live_source(str(video))
    if video_out and live:
        # the overlay is drawn on a second pass over the frames: a camera or a stream
        # cannot be read twice (``luza live`` shows a live one)
        notes.append("no annotated video for a camera or a stream (it cannot be read twice)")
    elif video_out:
        from .annotate import write_annotated

        t0 = time.perf_counter()
        bar = Bar("annotating", progress)
        try:
            put("video", lambda p: write_annotated(video, p, run, scored, progress=bar))
        finally:
            bar.close()
        seconds["annotate"] = round(time.perf_counter() - t0, 2)

    match_id = None
    if ms is not None:
        who = dict(zip(("A", "B"), names, strict=True)) if names else None
        match_id = ms.save_scored(scored, table_name, options, who, str(video))

    seconds["total"] = round(time.perf_counter() - t_all, 2)
    final = dict(scored.final)
    summary = {
        "video": str(video),
        "out_dir": str(out),
        "game": game,
        "table": table_name,
        "files": written,
        "n_frames": run.n_frames,
        "fps": run.fps,
        "size": list(run.size),
        "n_events": len(run.events),
        "n_shots": len(scored.rulings),
        "score": final.get("score", {}),
        "winner": final.get("winner"),
        "db": str(ms.path) if ms is not None else None,
        "match_id": match_id,
        "seconds": seconds,
        "notes": notes,
    }
    written["summary"] = str(paths["summary"])
    text = json.dumps(summary, indent=1) + "\n"
    put("summary", lambda p: p.write_text(text, encoding="utf-8"))  # last: a finished run
    return summary


def summary_line(s: dict[str, Any]) -> str:
    score = " ".join(f"{k} {v}" for k, v in s["score"].items())
    end = f"winner {s['winner']}" if s["winner"] is not None else "game unfinished"
    db = f", match {s['match_id']} in {s['db']}" if s.get("match_id") is not None else ""
    return (
        f"luza analyze: {s['n_frames']} frames, {s['n_shots']} strokes, {score} ({end}) "
        f"in {s['seconds']['total']:.1f} s -> {s['out_dir']}{db}"
    )


def cmd_analyze(args: argparse.Namespace) -> int:
    if args.max_frames < 0:
        raise ArgumentError(f"--max-frames wants 0 (all) or more, got {args.max_frames}")
    s = analyze_video(
        args.video,
        args.out,
        args.game,
        calibration=args.calibration,
        table=args.table,
        inputs=args.inputs,
        players=args.players,
        db=args.db,
        video_out=not args.no_video,
        progress=not args.quiet,
        store=not args.no_db,
        max_frames=args.max_frames,
        options=parse_options(args.option),
        start_score=args.start_score,
    )
    for n in s["notes"]:
        print(f"luza analyze: note: {n}", file=sys.stderr)
    print(summary_line(s), file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "analyze",
        help="calibrate, track and score a recorded match: score sheet, stats, annotated video",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("video", help="video file (or a camera index / stream URL)")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("-o", "--out", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--calibration",
        default="auto",
        metavar="auto|FILE",
        help="'auto' (find the table in the first frames), a calibration JSON "
        "(luza calibrate) or a synthetic clip's .truth.json",
    )
    p.add_argument(
        "--table",
        metavar="NAME",
        help="table profile (default: the calibration's, else pyramid-12ft)",
    )
    p.add_argument("--inputs", metavar="OPERATOR.jsonl", help="operator inputs, merged by time")
    p.add_argument("--players", metavar="'Ann,Bob'", help="the two players, breaker first")
    p.add_argument(
        "--start-score",
        metavar="N:M",
        help="the score when the video takes a game up mid-way (breaker first); "
        "without it such a game starts from a placeholder score",
    )
    add_db_argument(p)
    p.add_argument("--no-db", action="store_true", help="do not store the match in a database")
    p.add_argument("--no-video", action="store_true", help="skip the annotated video")
    p.add_argument(
        "--max-frames", type=int, default=0, metavar="N", help="stop after this many frames"
    )
    p.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="a game option (an ambiguity reading, a tolerance; see luza score); repeatable",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_analyze)
