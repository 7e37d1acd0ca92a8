"""Read an event stream (+ operator inputs), check it is possible, group it into shot records.

Checks, each an error naming the line (``file:12: ...``): JSON and fields
(``luza.events``), times going backwards, a stream for another game, unknown
ball / pocket / cushion / line names, an event for a ball that is not on the
table (a ball pocketed twice, a collision with a pocketed ball...), a
``shot_start`` while a stroke is running, stroke events outside a stroke, a
hand on the table during a stroke, a ``shot_end`` whose positions disagree
with the balls on the table, a stream that ends inside a stroke.

Conventions (also in ``rules/REFEREE.md``):

* A **lag** (GR-8) is two ``shot_start`` events with ``"lag": true`` (each with
  its ``player`` and ``cue_ball``) before one ``shot_end``; it becomes one
  record with ``lag=True``.  When the rack's ``table_state`` follows, the lag's
  record is handed over after it, at the break, so a ``choice`` entered after
  racking (GR-8.4) still belongs to the lag.
* A stroke struck **before the previous one ended** (GR-15.2): the tracker
  closes the running stroke with a ``shot_end`` carrying ``"at_rest": false``
  (or marks the new ``shot_start`` with ``"before_rest": true``).
* ``ruling`` / ``final`` / ``match`` lines (a match record) are skipped, so a
  record can be scored again.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from pathlib import Path

from luza.events import CUSHIONS, JAWS, LINES, POCKETS, Event, EventError
from luza.rules.engine import XY, Item, Setup, ShotRecord, rule_error

RECORD_TYPES = ("ruling", "final", "match")
STROKE_TYPES = ("collision", "cushion", "off_table", "line_cross", "bounce_out")
HAND_TYPES = ("ball_placed", "ball_removed")


def parse_items(lines: Iterable[str], source: str) -> Iterator[Item]:
    """Parse JSON lines into items that remember ``source:line``."""
    for i, line in enumerate(lines, start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        where = f"{source}:{i}"
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise EventError(f"{where}: not valid JSON ({e.msg})") from None
        if isinstance(d, dict) and d.get("type") in RECORD_TYPES:
            continue
        yield Item(Event.from_dict(d, where), where)


def read_items(path: str | Path) -> list[Item]:
    p = Path(path)
    if not p.is_file():
        raise EventError(f"event stream not found: {p}")
    try:
        with p.open(encoding="utf-8") as f:
            return list(parse_items(f, str(p)))
    except UnicodeDecodeError as e:
        raise EventError(f"{p}: not a JSON-lines text file (byte {e.start} is not UTF-8)") from None


def check_times(items: list[Item]) -> None:
    last: Item | None = None
    for it in items:
        if last is not None and it.t < last.t:
            raise rule_error(
                it.where, f"time goes backwards: t={it.t:g} s after t={last.t:g} s ({last.where})"
            )
        last = it


def merge_inputs(stream: list[Item], inputs: list[Item]) -> list[Item]:
    """Merge an operator-input file into a stream by ``t`` (stream first on equal times)."""
    for it in inputs:
        if not it.event.is_operator_input:
            raise rule_error(
                it.where, f"an inputs file holds operator inputs only, not '{it.type}' events"
            )
    check_times(stream)
    check_times(inputs)
    out: list[Item] = []
    j = 0
    for it in stream:
        while j < len(inputs) and inputs[j].t < it.t:
            out.append(inputs[j])
            j += 1
        out.append(it)
    out.extend(inputs[j:])
    return out


def load_stream(path: str | Path, inputs: str | Path | None = None) -> list[Item]:
    items = read_items(path)
    if inputs is not None:
        return merge_inputs(items, read_items(inputs))
    return items


class StreamChecker:
    """Walks a stream, tracks which balls are on the table, and yields records."""

    def __init__(self, game: str, balls: Iterable[str]):
        self.game = game
        self.balls = tuple(balls)
        self.positions: dict[str, XY] = {}
        self.gone: dict[str, str] = {}  # ball -> where it left the table
        self.started = False  # a table_state has been seen
        self.stroke: ShotRecord | None = None
        self.pending: Setup | ShotRecord | None = None
        self.lag_pending: ShotRecord | None = None  # a lag record held over the rack
        self.pre_inputs: list[Item] = []
        self.n = 0
        self.last: Item | None = None
        self.cut_short = False  # the last shot_end said at_rest: false

    # -- small checks -------------------------------------------------
    def _ball(self, it: Item, key: str = "ball", on_table: bool = True) -> str:
        b = it.get(key)
        if not isinstance(b, str) or b not in self.balls:
            raise rule_error(
                it.where,
                f"unknown ball id {b!r} in '{it.type}' for {self.game} "
                f"(balls: {', '.join(self.balls)})",
            )
        if on_table and b not in self.positions:
            left = self.gone.get(b)
            why = f" (it left the table at {left})" if left else ""
            raise rule_error(it.where, f"'{it.type}' for ball {b}, which is not on the table{why}")
        return b

    def _name(self, it: Item, key: str, allowed: tuple[str, ...]) -> None:
        v = it.get(key)
        if v not in allowed:
            raise rule_error(
                it.where, f"unknown {key} {v!r} in '{it.type}' (known: {', '.join(allowed)})"
            )

    def _positions(self, it: Item) -> dict[str, XY]:
        pos = it["positions"]
        for b in pos:
            if b not in self.balls:
                raise rule_error(it.where, f"unknown ball id {b!r} in positions for {self.game}")
        return {b: (float(v[0]), float(v[1])) for b, v in pos.items()}

    def _flush(self, by: Item | None = None) -> Iterator[Setup | ShotRecord]:
        if self.lag_pending is not None:
            # the lag's record waited over the rack's table_state: the GR-8.4 choice
            # entered after the rack still belongs to it
            lag, self.lag_pending = self.lag_pending, None
            if isinstance(self.pending, Setup):
                moved = [i for i in self.pending.inputs if i.type == "choice"]
                lag.inputs.extend(moved)
                self.pending.inputs = [i for i in self.pending.inputs if i.type != "choice"]
            lag.following = by
            yield lag
        if self.pending is not None:
            self.pending.after = dict(self.positions)
            if isinstance(self.pending, ShotRecord):
                self.pending.following = by
            yield self.pending
            self.pending = None

    def _attach(self, it: Item, inputs: bool) -> None:
        target = self.stroke if self.stroke is not None else self.pending
        if target is None:
            if inputs:
                self.pre_inputs.append(it)
                return
            raise rule_error(it.where, f"'{it.type}' before the stream's table_state")
        if isinstance(target, ShotRecord):
            if inputs:
                target.inputs.append(it)
            elif target is self.stroke:
                target.events.append(it)
            else:
                target.between.append(it)
        else:
            (target.inputs if inputs else target.hands).append(it)

    # -- the walk -----------------------------------------------------
    def feed(self, it: Item) -> Iterator[Setup | ShotRecord]:
        if self.last is not None and it.t < self.last.t:
            raise rule_error(
                it.where,
                f"time goes backwards: t={it.t:g} s after t={self.last.t:g} s ({self.last.where})",
            )
        self.last = it
        typ = it.type
        if it.event.is_operator_input:
            self._check_input(it)
            self._attach(it, inputs=True)
            return
        if typ == "table_state":
            if self.stroke is not None:
                raise rule_error(it.where, "table_state during a stroke (no shot_end yet)")
            if it["game"] != self.game:
                raise rule_error(
                    it.where,
                    f"this stream is for game '{it['game']}', not '{self.game}' "
                    f"(use --game {it['game']})",
                )
            pos = self._positions(it)
            if isinstance(self.pending, ShotRecord) and self.pending.lag and not self.lag_pending:
                self.pending.after = dict(self.positions)
                held, self.pending = self.pending, None
                self.lag_pending = held  # handed over at the next stroke, after this rack
            else:
                yield from self._flush(it)
            self.positions = pos
            self.gone = {b: it.where for b in self.balls if b not in pos}
            self.started = True
            self.pending = Setup(it, dict(pos), inputs=self.pre_inputs)
            self.pre_inputs = []
            return
        if not self.started:
            raise rule_error(it.where, f"'{typ}' before the stream's table_state")
        if typ == "shot_start":
            lag = bool(it.get("lag", False))
            cue = self._ball(it, "cue_ball")
            if self.stroke is not None:
                s = self.stroke
                if lag and s.lag and len(s.starts) == 1 and cue != s.cue_ball:
                    s.starts.append(it)
                    return
                raise rule_error(
                    it.where,
                    f"shot_start while the stroke started at {s.start.where} is still running "
                    "(no shot_end)",
                )
            yield from self._flush(it)
            if lag:
                n = 0
            else:
                self.n += 1
                n = self.n
            self.stroke = ShotRecord(
                n=n,
                starts=[it],
                events=[],
                end=it,
                before=dict(self.positions),
                at_rest={},
                after={},
                lag=lag,
                before_rest=self.cut_short or bool(it.get("before_rest", False)),
            )
            self.cut_short = False
            return
        if typ == "shot_end":
            s = self.stroke
            if s is None:
                raise rule_error(it.where, "shot_end with no stroke running")
            pos = self._positions(it)
            extra = [b for b in pos if b not in self.positions]
            if extra:
                b = extra[0]
                raise rule_error(
                    it.where,
                    f"shot_end lists ball {b}, which left the table at {self.gone.get(b, '?')}",
                )
            missing = [b for b in self.positions if b not in pos]
            if missing:
                raise rule_error(
                    it.where,
                    f"shot_end has no position for ball {missing[0]}, which is on the table "
                    "(no pocket/off_table event for it)",
                )
            s.events.append(it)
            s.end = it
            s.at_rest = dict(pos)
            self.positions = dict(pos)
            self.cut_short = it.get("at_rest", True) is False
            self.stroke = None
            self.pending = s
            return
        if typ in STROKE_TYPES:
            if self.stroke is None:
                raise rule_error(it.where, f"'{typ}' outside a stroke (no shot_start before it)")
            if typ == "collision":
                a = self._ball(it, "a")
                b = self._ball(it, "b")
                if a == b:
                    raise rule_error(it.where, f"collision of ball {a} with itself")
            else:
                self._ball(it)
            if typ == "cushion":
                self._name(it, "cushion", CUSHIONS + JAWS)
            elif typ == "line_cross":
                self._name(it, "line", LINES)
            elif typ == "bounce_out":
                self._name(it, "pocket", POCKETS)
            elif typ == "off_table":
                self._leave(it)
            self._attach(it, inputs=False)
            return
        if typ in ("pocket", "hang", "hang_fall"):
            self._ball(it)
            self._name(it, "pocket", POCKETS)
            if typ != "hang":
                self._leave(it)
            self._attach(it, inputs=False)
            return
        if typ in HAND_TYPES:
            if self.stroke is not None:
                raise rule_error(
                    it.where,
                    f"'{typ}' (a hand on the table) during the stroke started at "
                    f"{self.stroke.start.where}",
                )
            if typ == "ball_placed":
                b = self._ball(it, on_table=False)
                self.positions[b] = (float(it["pos"][0]), float(it["pos"][1]))
                self.gone.pop(b, None)
            else:
                self._ball(it)
                self._leave(it)
            self._attach(it, inputs=False)
            return
        if typ == "ball_moved":
            b = self._ball(it)
            self.positions[b] = (float(it["pos"][0]), float(it["pos"][1]))
            self._attach(it, inputs=False)
            return
        raise rule_error(it.where, f"'{typ}' events are not expected in a stream")

    def _leave(self, it: Item) -> None:
        b = str(it["ball"])
        del self.positions[b]
        self.gone[b] = it.where

    def _check_input(self, it: Item) -> None:
        typ = it.type
        if typ == "players":
            names = it["names"]
            if (
                not isinstance(names, list)
                or len(names) != 2
                or not all(isinstance(n, str) and n for n in names)
                or names[0] == names[1]
            ):
                raise rule_error(it.where, "'players' needs 'names': two different names")
        elif typ in ("foul", "choice"):
            if not isinstance(it["kind"], str):
                raise rule_error(it.where, f"'{typ}' needs a string 'kind'")
        elif typ == "call":
            self._ball(it, on_table=False)
            self._name(it, "pocket", POCKETS)

    def finish(self) -> Iterator[Setup | ShotRecord]:
        if self.stroke is not None:
            raise rule_error(
                self.last.where if self.last else "",
                f"the stream ends inside the stroke started at {self.stroke.start.where} "
                "(no shot_end)",
            )
        if not self.started:
            raise EventError("the stream has no table_state (a stream starts with one)")
        yield from self._flush()


def group(items: Iterable[Item], game: str, balls: Iterable[str]) -> Iterator[Setup | ShotRecord]:
    """Check a stream and yield its setups and shot records in order."""
    chk = StreamChecker(game, balls)
    for it in items:
        yield from chk.feed(it)
    yield from chk.finish()


def distance_mm(a: XY, b: XY) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
