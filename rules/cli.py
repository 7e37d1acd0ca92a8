"""`luza score` and `luza replay`: rulings from a stream; replaying a match record."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from luza.rules.engine import GAMES, RuleError


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """``--option KEY=VALUE`` pairs -> a dict (the game checks the keys and values)."""
    out: dict[str, Any] = {}
    for p in pairs or []:
        if "=" not in p:
            raise RuleError(f"--option wants KEY=VALUE, got {p!r}")
        k, v = p.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _print(scored, as_json: bool) -> None:
    for r in scored.rulings:
        print(json.dumps(r.to_dict()) if as_json else r.to_text())
    f = scored.final
    if as_json:
        print(json.dumps(f))
    else:
        score = " ".join(f"{k} {v}" for k, v in f["score"].items())
        end = f"winner {f['winner']}" if f["winner"] is not None else "game unfinished"
        print(f"final: {score} | {end}")


def cmd_score(args: argparse.Namespace) -> int:
    from luza.output_files import writable_file
    from luza.rules.record import score_items, write_record
    from luza.rules.stream import load_stream

    options = parse_options(args.option)
    if args.record:
        writable_file(args.record, "the match record")  # before scoring, not after
    items = load_stream(args.stream, args.inputs)
    scored = score_items(items, args.game, args.table, options)
    _print(scored, args.json)
    if args.record:
        write_record(args.record, scored, args.table, scored.game.options)
        print(f"match record written to {args.record}", file=sys.stderr)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    from luza.rules.record import replay

    scored, rec = replay(args.record)
    _print(scored, args.json)
    print(
        f"replay of {args.record}: {len(rec.rulings)} rulings and the final line match",
        file=sys.stderr,
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="rule every shot of an event stream and print the score",
        description="Read an event stream (JSON lines), check it, and print one ruling per "
        "shot and the final score.  See rules/REFEREE.md.",
    )
    p.add_argument("stream", help="event stream (JSON lines, starting with a table_state)")
    p.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help="game to score (default: the stream's table_state game; an error if they differ)",
    )
    p.add_argument("--inputs", help="operator inputs (JSON lines), merged into the stream by t")
    p.add_argument("--table", default="pyramid-12ft", help="table profile name or .json path")
    p.add_argument("--json", action="store_true", help="JSON lines: rulings, then a final line")
    p.add_argument("--record", metavar="OUT.jsonl", help="also write the replayable match record")
    p.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="a game option (an ambiguity reading, a tolerance); repeatable",
    )
    p.set_defaults(func=cmd_score)

    r = sub.add_parser(
        "replay",
        help="score a match record again and check it gives the same rulings",
        description="Replay a match record written by `luza score --record`: the same game, "
        "table and options; exits 2 naming the line of the first ruling that differs.",
    )
    r.add_argument("record", help="match record (JSON lines)")
    r.add_argument("--json", action="store_true", help="print JSON lines")
    r.set_defaults(func=cmd_replay)
