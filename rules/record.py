"""Scoring a stream, and the portable match record that replays it.

A match record is JSON lines:

1. a header ``{"type": "match", "game": ..., "table": ..., "options": {...}, "luza": version}``;
2. every event and operator input of the match in the order the engine read
   them (a separate ``--inputs`` file is merged in by time);
3. each ruling (``{"type": "ruling", ...}``) right after the last line it
   depends on, i.e. just before the stroke that followed it;
4. the final line ``{"type": "final", "score": {...}, "winner": ...}``.

``luza replay RECORD`` scores the events again with the header's game, table
and options and checks that every ruling and the final line come out the
same.  Rulings never name file lines (only times), so a record replays the
same wherever it is stored.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luza import __version__
from luza.calibration.profiles import load_profile
from luza.events import EventError
from luza.output_files import atomic_file
from luza.rules.engine import GAMES, Game, Item, Ruling, ShotRecord, load_game, rule_error
from luza.rules.stream import StreamChecker, parse_items


@dataclass
class Scored:
    """Everything one scoring run produced."""

    game: Game
    items: list[Item]
    rulings: list[Ruling]
    final: dict[str, Any]
    # index into ``items`` before which each ruling was decided (len(items) = at the end)
    at: list[int] = field(default_factory=list)


def stream_game(items: list[Item]) -> str:
    for it in items:
        if it.type == "table_state":
            name = str(it["game"])
            if name not in GAMES:
                raise rule_error(it.where, f"unknown game {name!r} (known: {', '.join(GAMES)})")
            return name
        if not it.event.is_operator_input:
            raise rule_error(it.where, f"'{it.type}' before the stream's table_state")
    raise EventError("the stream has no table_state (a stream starts with one)")


def score_items(
    items: list[Item],
    game: str | None = None,
    table: str = "pyramid-12ft",
    options: dict[str, Any] | None = None,
    observe: Callable[[Game, Ruling], None] | None = None,
) -> Scored:
    """Check and score a stream of items with the named game on the named table profile.

    ``observe(game, ruling)`` is called after every ruling (tests check invariants there)."""
    name = game or stream_game(items)
    g = load_game(name, load_profile(table), options)
    chk = StreamChecker(name, g.balls)
    out = Scored(g, items, [], {})

    def take(blocks, at: int) -> None:
        for b in blocks:
            if isinstance(b, ShotRecord):
                out.rulings.append(g.rule(b))
                out.at.append(at)
                if observe is not None:
                    observe(g, out.rulings[-1])
            else:
                g.setup(b)

    for i, it in enumerate(items):
        take(chk.feed(it), i)
    take(chk.finish(), len(items))
    out.final = g.final()
    return out


def record_lines(scored: Scored, table: str, options: dict[str, Any] | None) -> list[str]:
    head = {
        "type": "match",
        "game": scored.game.name,
        "table": table,
        "options": dict(options or {}),
        "luza": __version__,
    }
    lines = [json.dumps(head)]
    k = 0
    for i, it in enumerate(scored.items):
        while k < len(scored.rulings) and scored.at[k] <= i:
            lines.append(json.dumps(scored.rulings[k].to_dict()))
            k += 1
        lines.append(it.event.to_json())
    for r in scored.rulings[k:]:
        lines.append(json.dumps(r.to_dict()))
    lines.append(json.dumps(scored.final))
    return lines


def write_record(path: str | Path, scored: Scored, table: str, options: dict | None) -> None:
    with atomic_file(path) as tmp:
        tmp.write_text("\n".join(record_lines(scored, table, options)) + "\n", encoding="utf-8")


@dataclass
class Recorded:
    header: dict[str, Any]
    items: list[Item]
    rulings: list[tuple[str, dict[str, Any]]]  # (where, ruling dict)
    final: tuple[str, dict[str, Any]] | None


def read_record(path: str | Path) -> Recorded:
    p = Path(path)
    if not p.is_file():
        raise EventError(f"match record not found: {p}")
    header: dict[str, Any] | None = None
    rulings: list[tuple[str, dict[str, Any]]] = []
    final = None
    event_lines: list[str] = []
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise EventError(
            f"{p} is not a match record (not text: byte {e.start} is not UTF-8)"
        ) from None
    for i, line in enumerate(io.StringIO(text), start=1):
        s = line.strip()
        where = f"{p}:{i}"
        event_lines.append(line)
        if not s or s.startswith("#"):
            continue
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise EventError(f"{where}: not valid JSON ({e.msg})") from None
        typ = d.get("type") if isinstance(d, dict) else None
        if typ == "match":
            if header is not None:
                raise rule_error(where, "a second 'match' header")
            header = d
        elif typ == "ruling":
            rulings.append((where, d))
        elif typ == "final":
            final = (where, d)
    if header is None:
        raise EventError(f'{p}: not a match record (no {{"type": "match"}} header line)')
    items = list(parse_items(event_lines, str(p)))
    return Recorded(header, items, rulings, final)


def replay(path: str | Path) -> tuple[Scored, Recorded]:
    """Score a match record again; raise naming the line of the first ruling that differs."""
    rec = read_record(path)
    h = rec.header
    scored = score_items(
        rec.items, h.get("game"), str(h.get("table", "pyramid-12ft")), h.get("options") or {}
    )
    got = [r.to_dict() for r in scored.rulings]
    for k, (where, want) in enumerate(rec.rulings):
        if k >= len(got):
            raise rule_error(where, "the record has a ruling the replay does not produce")
        if got[k] != want:
            keys = set(want) | set(got[k])
            diff = sorted(key for key in keys if want.get(key) != got[k].get(key))
            raise rule_error(
                where,
                f"replay differs from the recorded ruling for shot {want.get('shot')} "
                f"({', '.join(diff)}): recorded {json.dumps({d: want.get(d) for d in diff})}, "
                f"replayed {json.dumps({d: got[k].get(d) for d in diff})}",
            )
    if len(got) > len(rec.rulings):
        raise EventError(
            f"{path}: the replay produces {len(got)} rulings, the record has {len(rec.rulings)}"
        )
    if rec.final is not None and rec.final[1] != scored.final:
        raise rule_error(
            rec.final[0],
            f"replay final {json.dumps(scored.final)} differs from the record's "
            f"{json.dumps(rec.final[1])}",
        )
    return scored, rec
