"""Shot records from the event stream -- built with the rules engine's own grouping.

The rules engine already owns the shot-record type (:class:`luza.rules.engine.ShotRecord`:
one stroke's events, the positions before and after, the cue ball, what followed
until the next stroke) and the checked grouping of a stream into records
(:func:`luza.rules.stream.group`).  Vision does not duplicate either: it emits a
valid stream (``vision/events.py``) and, where it wants records (the benchmark,
``luza events --shots``), asks the rules for them here.
"""

from __future__ import annotations

from collections.abc import Iterable

from luza.events import BALLS_BY_GAME, Event
from luza.rules.engine import Item, Setup, ShotRecord
from luza.rules.stream import group


def shot_records(events: Iterable[Event], game: str, source: str = "vision") -> list[ShotRecord]:
    """The stroke records of an extracted stream (setups left out).

    Raises the rules' ``RuleError`` (a ``LuzaError``) naming the event's index
    (``vision:12``) when the stream is not one the rules accept -- which would be a
    bug of the extractor, so tests call this on every extracted stream."""
    items = [Item(e, f"{source}:{i}") for i, e in enumerate(events, start=1)]
    return [r for r in group(items, game, BALLS_BY_GAME[game]) if isinstance(r, ShotRecord)]


def setups_and_records(events: Iterable[Event], game: str) -> list[Setup | ShotRecord]:
    """Everything the rules' grouping yields, setups (``table_state``) included."""
    items = [Item(e, f"vision:{i}") for i, e in enumerate(events, start=1)]
    return list(group(items, game, BALLS_BY_GAME[game]))


def describe(rec: ShotRecord) -> str:
    """One line per record for the console: stroke, cue ball, first contact, pots."""
    first = None
    for it in rec.events:
        if it.type == "collision" and rec.cue_ball in (it["a"], it["b"]):
            first = it["b"] if it["a"] == rec.cue_ball else it["a"]
            break
    pots = [f"{it['ball']}->{it['pocket']}" for it in rec.events if it.type == "pocket"]
    cushions = sum(1 for it in rec.events if it.type == "cushion")
    low = sum(1 for it in rec.events if it.confidence < 0.6)
    return (
        f"shot {rec.n}: t={rec.start.t:.2f}-{rec.end.t:.2f} s cue {rec.cue_ball} "
        f"first {first or '-'} cushions {cushions} pots {' '.join(pots) or '-'}"
        + (f" ({low} uncertain)" if low else "")
    )
