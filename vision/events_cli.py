"""``luza events``: the event stream from a positions file (any tracker's output).

    luza events positions.csv --game free-pyramid [--table pyramid-12ft] -o events.jsonl
    luza events positions.csv --game five-ball --shots     # also print one line a shot

``positions.csv`` has a row per ball per frame: ``frame,t,ball,x_mm,y_mm`` (table mm,
``luza track --positions`` writes it; every row counts as seen).  The stream is the
DESIGN.md contract ``luza score`` reads (``vision/EVENTS.md``).
"""

from __future__ import annotations

import argparse
import sys

from luza.events import BALLS_BY_GAME, write_jsonl
from luza.output_files import writable_file


def cmd_events(args: argparse.Namespace) -> int:
    from luza.calibration.profiles import load_profile

    from .events import extract_events, read_positions_csv
    from .shots import describe, shot_records

    profile = load_profile(args.table)
    writable_file(args.events, "the events file")  # said before the work, not after
    events = extract_events(read_positions_csv(args.positions), profile, args.game)
    write_jsonl(events, args.events)
    if args.shots:
        for rec in shot_records(events, args.game):
            print(describe(rec))
    print(f"luza events: {len(events)} events -> {args.events}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "events",
        help="event stream (JSON lines) from a per-frame ball positions CSV",
        description="Turn per-frame ball positions (frame,t,ball,x_mm,y_mm in table mm) into "
        "the event stream `luza score` reads.  See vision/EVENTS.md.",
    )
    p.add_argument("positions", help="positions CSV: frame,t,ball,x_mm,y_mm")
    p.add_argument("--game", required=True, choices=sorted(BALLS_BY_GAME))
    p.add_argument("--table", default="pyramid-12ft", help="table profile name or .json path")
    p.add_argument("-o", "--events", required=True, help="events output (JSON lines)")
    p.add_argument("--shots", action="store_true", help="print one line per shot")
    p.set_defaults(func=cmd_events)
