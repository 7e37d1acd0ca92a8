"""`luza matches`, `luza show`, `luza export`, `luza import`: the match database from a shell.

The database is ``--db PATH``, else ``$LUZA_DB``, else ``~/.luza/matches.sqlite``
(``luza.app.records``).  ``luza export`` writes the portable match record that
``luza replay`` checks; ``luza import`` replays a record before storing it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from luza.app.common import add_db_argument, open_store
from luza.app.records import MatchInfo, MatchStore, RecordsError


def _store(args: argparse.Namespace) -> MatchStore:
    return open_store(args.db)


def _match_id(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise RecordsError(
            f"a match is named by its number (see `luza matches`), got {text!r}"
        ) from None
    if n < 1:
        raise RecordsError(f"match numbers start at 1, got {n}")
    return n


def players_text(info: MatchInfo) -> str:
    names = [n if n == label else f"{n} ({label})" for label, n in info.players.items()]
    return " v ".join(names) if names else "-"


def score_text(score: dict[str, int]) -> str:
    return " ".join(f"{k} {v}" for k, v in score.items()) if score else "-"


def _date(iso: str) -> str:
    return iso.replace("T", " ")[:16]


def table_text(rows: list[list[str]], head: list[str]) -> str:
    """A plain text table, columns padded to their widest cell."""
    cols = [head, *rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(head))]
    out = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cols]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)


def ruling_text(d: dict[str, Any]) -> str:
    """A stored ruling as `luza score` prints it."""
    from luza.rules.engine import Foul, Respot, Ruling

    r = Ruling(
        shot=int(d.get("shot", 0)),
        player=d.get("player"),
        cue_ball=d.get("cue_ball"),
        points=int(d.get("points") or 0),
        foul=bool(d.get("foul")),
        fouls=[Foul(str(f.get("rule")), str(f.get("why"))) for f in d.get("fouls") or []],
        rules=list(d.get("rules") or []),
        next=d.get("next"),
        respots=[Respot(str(r["ball"]), tuple(r["pos"])) for r in d.get("respots") or []],
        notes=list(d.get("notes") or []),
        score=dict(d.get("score") or {}),
    )
    return r.to_text()


def cmd_matches(args: argparse.Namespace) -> int:
    with _store(args) as st:
        infos = st.list_matches()
        where = st.path
    if args.json:
        print(json.dumps([i.to_dict() for i in infos], indent=2))
        return 0
    if not infos:
        print(f"no matches in {where} yet (`luza analyze`, `luza live` or `luza import` add them)")
        return 0
    rows = [
        [
            str(i.id),
            _date(i.started),
            i.game,
            players_text(i),
            score_text(i.score),
            i.winner or "-",
            str(i.n_shots),
            i.status,
        ]
        for i in infos
    ]
    head = ["id", "date (UTC)", "game", "players", "score", "winner", "shots", "status"]
    print(table_text(rows, head))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    mid = _match_id(args.match)
    with _store(args) as st:
        info = st.get(mid)
        _, rulings, _ = st.match_state(mid)
        final = None
        lines = st.record_lines(mid)
    last = json.loads(lines[-1])
    if isinstance(last, dict) and last.get("type") == "final":
        final = last
    if args.json:
        print(json.dumps({"match": info.to_dict(), "rulings": rulings, "final": final}, indent=2))
        return 0
    print(
        f"match {info.id}: {info.game} on {info.table} | {players_text(info)} | "
        f"{_date(info.started)} UTC | {info.status}"
    )
    print(f"source: {info.source or '-'}")
    for r in rulings:
        print(ruling_text(r))
    if final is not None:
        end = f"winner {final['winner']}" if final.get("winner") is not None else "game unfinished"
        print(f"final: {score_text(final.get('score') or {})} | {end}")
    else:
        stored = f" (stored up to t={info.resume_t:.2f} s)" if info.resume_t is not None else ""
        print(f"in progress: {score_text(info.score)}{stored}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    mid = _match_id(args.match)
    with _store(args) as st:
        if args.output == "-":
            sys.stdout.write("\n".join(st.record_lines(mid)) + "\n")
            return 0
        st.export_jsonl(mid, args.output)
    print(f"match {mid} written to {args.output} (check it with `luza replay`)", file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    with _store(args) as st:
        mid = st.import_jsonl(args.record)
        info = st.get(mid)
        where = st.path
    print(
        f"imported {args.record} as match {mid} in {where}: {info.game}, "
        f"{score_text(info.score)}, {info.n_shots} shots"
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "matches",
        help="list the matches in the match database",
        description="List every stored match: id, date, game, players, score, winner, shots, "
        "status (open = a live match still being played or interrupted).",
    )
    add_db_argument(p)
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p.set_defaults(func=cmd_matches)

    s = sub.add_parser(
        "show",
        help="show one stored match: every ruling and the final score",
        description="Print a stored match's header, one ruling per shot (as `luza score` "
        "prints them) and the final line.",
    )
    s.add_argument("match", help="match number (see `luza matches`)")
    add_db_argument(s)
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_show)

    e = sub.add_parser(
        "export",
        help="write a stored match as a JSON-lines match record",
        description="Write a stored match as the portable match record (header, events, "
        "rulings, final) that `luza replay` checks and `luza import` reads.",
    )
    e.add_argument("match", help="match number (see `luza matches`)")
    e.add_argument("-o", "--output", required=True, metavar="FILE.jsonl", help="'-' = stdout")
    add_db_argument(e)
    e.set_defaults(func=cmd_export)

    i = sub.add_parser(
        "import",
        help="store a JSON-lines match record in the match database",
        description="Read a match record (from `luza score --record`, `luza analyze` or "
        "`luza export`), replay it to check its rulings, and store it as a new match.",
    )
    i.add_argument("record", help="match record (JSON lines)")
    add_db_argument(i)
    i.set_defaults(func=cmd_import)
