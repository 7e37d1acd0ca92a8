"""The event contract between vision (or the simulator) and the rules engines.

Names and fields follow ``DESIGN.md``; keep them stable -- recorded matches,
tests and other tools read them.  An :class:`Event` is one JSON line: the
common fields ``type``, ``t`` (seconds), ``frame`` and ``confidence`` plus the
type's own fields.  Operator inputs (``call``, ``foul``, ``choice``,
``players``) travel in the same stream format.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luza.errors import LuzaError
from luza.output_files import atomic_file

GAMES = ("free-pyramid", "five-ball")

FREE_PYRAMID_BALLS: tuple[str, ...] = ("Y", *(str(i) for i in range(1, 16)))
FIVE_BALL_BALLS: tuple[str, ...] = ("W1", "W2", "R1", "R2", "K")
BALLS_BY_GAME: dict[str, tuple[str, ...]] = {
    "free-pyramid": FREE_PYRAMID_BALLS,
    "five-ball": FIVE_BALL_BALLS,
}

POCKETS = ("head-left", "head-right", "middle-left", "middle-right", "foot-left", "foot-right")
CUSHIONS = ("head", "foot", "left-head", "left-foot", "right-head", "right-foot")
JAWS = tuple(f"jaw:{p}" for p in POCKETS)
LINES = ("centre", "house", "axis")

# type -> required fields (besides type, t, frame, confidence).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "table_state": ("game", "positions"),
    "shot_start": ("cue_ball",),
    "collision": ("a", "b", "pos"),
    "cushion": ("ball", "cushion", "pos"),
    "pocket": ("ball", "pocket"),
    "off_table": ("ball",),
    "line_cross": ("ball", "line", "direction"),
    "shot_end": ("positions",),
    "ball_placed": ("ball", "pos"),
    "ball_removed": ("ball",),
    "bounce_out": ("ball", "pocket"),
    "hang": ("ball", "pocket"),
    "hang_fall": ("ball", "pocket"),
    "ball_moved": ("ball", "pos"),
}
OPERATOR_FIELDS: dict[str, tuple[str, ...]] = {
    "call": ("ball", "pocket"),
    "foul": ("kind",),
    "choice": ("kind",),
    "players": ("names",),
}
COMMON_FIELDS = ("type", "t", "frame", "confidence")


class EventError(LuzaError, ValueError):
    """A malformed event or stream; the message names the line where it can."""


@dataclass(frozen=True)
class Event:
    """One event or operator input.  ``data`` holds the type's own fields."""

    type: str
    t: float
    frame: int | None = None
    confidence: float = 1.0
    data: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    @property
    def is_operator_input(self) -> bool:
        return self.type in OPERATOR_FIELDS

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type, "t": round(float(self.t), 6)}
        if self.frame is not None:
            d["frame"] = int(self.frame)
        d["confidence"] = round(float(self.confidence), 4)
        d.update(self.data)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(", ", ": "))

    @classmethod
    def from_dict(cls, d: Any, where: str = "") -> Event:
        """Validate and build an event; errors name ``where`` (e.g. ``file:12``)."""
        pre = f"{where}: " if where else ""
        if not isinstance(d, dict):
            raise EventError(f"{pre}an event is a JSON object, got {type(d).__name__}")
        typ = d.get("type")
        if not isinstance(typ, str):
            raise EventError(f"{pre}missing or non-string 'type'")
        required = EVENT_FIELDS.get(typ) or OPERATOR_FIELDS.get(typ)
        if required is None and typ not in ("ruling", "final"):
            known = ", ".join([*EVENT_FIELDS, *OPERATOR_FIELDS])
            raise EventError(f"{pre}unknown event type '{typ}' (known: {known})")
        t = d.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
            raise EventError(f"{pre}'{typ}' event needs a finite number 't', got {t!r}")
        frame = d.get("frame")
        if frame is not None and (not isinstance(frame, int) or isinstance(frame, bool)):
            raise EventError(f"{pre}'frame' must be an integer, got {frame!r}")
        conf = d.get("confidence", 1.0)
        if not isinstance(conf, (int, float)) or not 0.0 <= float(conf) <= 1.0:
            raise EventError(f"{pre}'confidence' must be a number in [0, 1], got {conf!r}")
        for k in required or ():
            if k not in d:
                raise EventError(f"{pre}'{typ}' event is missing field '{k}'")
        for k in ("pos",):
            if k in d and not _is_xy(d[k]):
                raise EventError(f"{pre}'{k}' must be [x_mm, y_mm], got {d[k]!r}")
        if "positions" in d:
            pos = d["positions"]
            if not isinstance(pos, dict) or not all(_is_xy(v) for v in pos.values()):
                raise EventError(f"{pre}'positions' must be {{ball: [x_mm, y_mm]}}")
        data = {k: v for k, v in d.items() if k not in COMMON_FIELDS}
        return cls(typ, float(t), frame, float(conf), data)


def _is_xy(v: Any) -> bool:
    return (
        isinstance(v, (list, tuple))
        and len(v) == 2
        and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in v)
        and all(math.isfinite(c) for c in v)
    )


def make(
    type_: str, t: float, frame: int | None = None, confidence: float = 1.0, **data: Any
) -> Event:
    """Shorthand constructor: ``make("pocket", 1.2, 72, ball="3", pocket="foot-left")``."""
    return Event(type_, float(t), frame, float(confidence), dict(data))


def parse_jsonl(lines: Iterable[str], source: str = "<stream>") -> Iterator[Event]:
    """Parse JSON lines into events; blank lines and ``#`` comments are skipped."""
    for i, line in enumerate(lines, start=1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            d = json.loads(s)
        except json.JSONDecodeError as e:
            raise EventError(f"{source}:{i}: not valid JSON ({e.msg})") from None
        yield Event.from_dict(d, f"{source}:{i}")


def read_jsonl(path: str | Path) -> list[Event]:
    """Read an event stream file, with clear errors for a missing or malformed file."""
    p = Path(path)
    if not p.is_file():
        raise EventError(f"event stream not found: {p}")
    with p.open(encoding="utf-8") as f:
        return list(parse_jsonl(f, str(p)))


def write_jsonl(events: Iterable[Event], path: str | Path) -> None:
    """Write events one per line, whole or not at all (``luza.output_files.atomic_file``:
    :class:`~luza.output_files.OutputError` when it cannot be written)."""
    with atomic_file(path) as tmp, tmp.open("w", encoding="utf-8") as f:
        for e in events:
            f.write(e.to_json() + "\n")
