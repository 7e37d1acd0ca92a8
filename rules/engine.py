"""The game-agnostic core of the rules engines: shot records in, rulings out.

Like python-chess (a board, a move, an outcome, a portable record) the core is
small and exact:

* :class:`Item` -- one event or operator input with the place it came from
  (``file:line``), so every error can name the line.
* :class:`Setup` -- a ``table_state`` (the start of a game, or a re-rack) with
  the operator inputs and hand events that follow it before the first stroke.
* :class:`ShotRecord` -- one stroke: ``shot_start`` ... ``shot_end``, the ball
  positions before and after it, and everything that happened between its
  ``shot_end`` and the next stroke (hand events, hanging balls dropping,
  operator inputs).  A lag (two balls struck together) is ONE record with
  ``lag=True`` and two ``starts``.  ``rules/stream.py`` builds these from a
  stream and rejects impossible streams.
* :class:`Ruling` -- the verdict on one stroke (DESIGN.md shape, plus the
  running ``score``); :class:`Foul` and :class:`Respot` are its parts.
* :class:`Game` -- the interface a game implements.

Writing a game (e.g. ``rules/five_ball.py``)::

    class FiveBall(Game):
        name = "five-ball"                  # the table_state's ``game``
        balls = FIVE_BALL_BALLS             # the ball ids a stream may use
        OPTIONS = {"kaisa_straight_middle": 12}   # configurable readings (AMB-n)

        def setup(self, setup: Setup) -> None: ...        # a table_state arrived
        def rule(self, shot: ShotRecord) -> Ruling: ...   # judge one stroke
        def score(self) -> dict[str, int]: ...            # {player: points}
        def winner(self) -> str | None: ...               # None while unfinished

    and register it in ``GAMES`` below ("five-ball": "luza.rules.five_ball:FiveBall").

The driver (``luza.rules.record.score_items``, or :func:`run_match` for
ready-made records) calls ``setup`` for every :class:`Setup` and ``rule`` for
every :class:`ShotRecord`, in stream order, then :meth:`Game.final`.  A record
is handed over when the next stroke (or ``table_state``, or the end of the
stream) arrives, so it holds the hand events and operator inputs that followed
it; ``ShotRecord.following`` is that next ``shot_start`` (its ``player``, when
known, tells who struck next).  ``rules/builder.py`` writes streams for tests.

A game raises :class:`RuleError` (a ``LuzaError``) naming
``item.where`` for input it cannot accept (an unknown choice, a stroke after
the game is over).  A game must be deterministic: the same records give the
same rulings (the match record in ``rules/record.py`` relies on it).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError
from luza.events import Event

XY = tuple[float, float]

# Game name -> "module:Class", imported only when that game is asked for.
GAMES: dict[str, str] = {
    "free-pyramid": "luza.rules.free_pyramid:FreePyramid",
    "five-ball": "luza.rules.five_ball:FiveBall",
}


class RuleError(LuzaError, ValueError):
    """A stream the rules cannot accept; the message names the line (``file:12: ...``)."""


def rule_error(where: str, msg: str) -> RuleError:
    return RuleError(f"{where}: {msg}" if where else msg)


@dataclass(frozen=True)
class Item:
    """One event or operator input and where it was read (``file:line``)."""

    event: Event
    where: str = ""

    @property
    def type(self) -> str:
        return self.event.type

    @property
    def t(self) -> float:
        return self.event.t

    @property
    def confidence(self) -> float:
        return self.event.confidence

    def get(self, key: str, default: Any = None) -> Any:
        return self.event.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.event[key]


@dataclass
class Setup:
    """A ``table_state``: the balls on the table at the start of a game or a re-rack."""

    item: Item
    positions: dict[str, XY]
    inputs: list[Item] = field(default_factory=list)  # operator inputs before the first stroke
    hands: list[Item] = field(default_factory=list)  # hand events / alarms before it
    after: dict[str, XY] = field(default_factory=dict)  # positions just before the next stroke

    @property
    def game(self) -> str:
        return str(self.item.get("game"))

    @property
    def score(self) -> dict[str, int] | None:
        s = self.item.get("score")
        return dict(s) if isinstance(s, dict) else None


@dataclass
class ShotRecord:
    """One stroke and what followed it up to the next stroke.

    ``events`` are the stroke's own events after its ``shot_start``(s), up to
    and including ``shot_end``.  ``between`` are the events after ``shot_end``
    and before the next stroke (``ball_placed``, ``ball_removed``,
    ``hang_fall``, ``ball_moved``, ...).  ``inputs`` are the operator inputs
    from the strike up to the next stroke, in time order.
    """

    n: int  # stroke number from 1 (lag records get 0)
    starts: list[Item]  # one shot_start (two for a lag)
    events: list[Item]
    end: Item
    before: dict[str, XY]  # positions at the strike
    at_rest: dict[str, XY]  # shot_end positions
    after: dict[str, XY]  # positions just before the next stroke (after hand events)
    between: list[Item] = field(default_factory=list)
    inputs: list[Item] = field(default_factory=list)
    lag: bool = False
    before_rest: bool = False  # struck before the previous stroke ended (GR-15.2)
    following: Item | None = None  # the shot_start / table_state that closed this record

    @property
    def start(self) -> Item:
        return self.starts[0]

    @property
    def cue_ball(self) -> str:
        return str(self.start["cue_ball"])

    @property
    def player(self) -> str | None:
        p = self.start.get("player")
        return None if p is None else str(p)

    @property
    def t_start(self) -> float:
        return self.start.t

    @property
    def t_end(self) -> float:
        return self.end.t

    def of_type(self, *types: str) -> list[Item]:
        return [i for i in self.events if i.type in types]

    def between_of_type(self, *types: str) -> list[Item]:
        return [i for i in self.between if i.type in types]

    def inputs_of_type(self, *types: str) -> list[Item]:
        return [i for i in self.inputs if i.type in types]

    def pocketed(self) -> list[str]:
        """Balls that dropped during the stroke, in order (``pocket`` and ``hang_fall``)."""
        return [str(i["ball"]) for i in self.events if i.type in ("pocket", "hang_fall")]

    def jumped(self) -> list[str]:
        return [str(i["ball"]) for i in self.events if i.type == "off_table"]

    def contacts(self, ball: str) -> list[Item]:
        """Collisions of ``ball`` with another ball, in time order."""
        return [i for i in self.events if i.type == "collision" and ball in (i["a"], i["b"])]

    def first_contact(self, ball: str) -> tuple[str, Item] | None:
        """The first ball ``ball`` touched, and that collision event."""
        for i in self.contacts(ball):
            other = i["b"] if i["a"] == ball else i["a"]
            return str(other), i
        return None


@dataclass(frozen=True)
class Foul:
    rule: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "why": self.why}


@dataclass(frozen=True)
class Respot:
    ball: str
    pos: XY

    def to_dict(self) -> dict[str, Any]:
        return {"ball": self.ball, "pos": [round(self.pos[0], 1), round(self.pos[1], 1)]}


@dataclass
class Ruling:
    """The verdict on one stroke (DESIGN.md "Rulings"; ``score`` is the running score)."""

    shot: int
    player: str | None
    cue_ball: str | None
    points: int = 0
    foul: bool = False
    fouls: list[Foul] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    next: str | None = None
    respots: list[Respot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    score: dict[str, int] = field(default_factory=dict)

    def add_rule(self, *rule_ids: str) -> None:
        for r in rule_ids:
            if r not in self.rules:
                self.rules.append(r)

    def add_foul(self, rule: str, why: str) -> None:
        self.foul = True
        self.fouls.append(Foul(rule, why))
        self.add_rule(rule)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "ruling",
            "shot": self.shot,
            "player": self.player,
            "cue_ball": self.cue_ball,
            "points": self.points,
            "foul": self.foul,
            "fouls": [f.to_dict() for f in self.fouls],
            "rules": list(self.rules),
            "next": self.next,
            "respots": [r.to_dict() for r in self.respots],
            "notes": list(self.notes),
            "score": dict(self.score),
        }

    def to_text(self) -> str:
        """One human-readable line (plus indented notes) for a referee."""
        who = self.player if self.player is not None else "-"
        head = f"shot {self.shot}: {who}" + (f" with {self.cue_ball}" if self.cue_ball else "")
        if self.shot == 0 and self.player is None:
            head = "lag"
        parts = [head]
        if self.foul:
            parts.append("FOUL " + "; ".join(f"{f.rule} {f.why}" for f in self.fouls))
        parts.append(f"{self.points:+d}")
        parts.append("score " + " ".join(f"{k} {v}" for k, v in self.score.items()))
        parts.append(f"next {self.next if self.next is not None else '-'}")
        lines = [" | ".join(parts) + f"  [{', '.join(self.rules)}]"]
        for r in self.respots:
            lines.append(f"    respot {r.ball} at ({r.pos[0]:.1f}, {r.pos[1]:.1f}) mm")
        lines.extend(f"    note: {n}" for n in self.notes)
        return "\n".join(lines)


def final_dict(score: Mapping[str, int], winner: str | None) -> dict[str, Any]:
    return {"type": "final", "score": dict(score), "winner": winner}


class Game(ABC):
    """A game's rules over shot records; see the module docstring."""

    name: ClassVar[str] = ""
    balls: ClassVar[tuple[str, ...]] = ()
    OPTIONS: ClassVar[dict[str, Any]] = {}

    def __init__(self, profile: TableProfile, options: Mapping[str, Any] | None = None):
        self.profile = profile
        self.options = dict(self.OPTIONS)
        for k, v in (options or {}).items():
            if k not in self.OPTIONS:
                known = ", ".join(sorted(self.OPTIONS)) or "none"
                raise RuleError(f"unknown option '{k}' for {self.name} (known: {known})")
            self.options[k] = coerce_option(v, self.OPTIONS[k], k)

    @abstractmethod
    def setup(self, setup: Setup) -> None:
        """A ``table_state`` arrived (start of the game, or a re-rack)."""

    @abstractmethod
    def rule(self, shot: ShotRecord) -> Ruling:
        """Judge one stroke and apply it to the state."""

    @abstractmethod
    def score(self) -> dict[str, int]:
        """{player: points}, players in playing order."""

    @abstractmethod
    def winner(self) -> str | None:
        """The winner, or None while the game is unfinished."""

    def final(self) -> dict[str, Any]:
        return final_dict(self.score(), self.winner())


def coerce_option(value: Any, default: Any, key: str) -> Any:
    """Turn a command-line string into the type of the option's default."""
    if not isinstance(value, str) or isinstance(default, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise RuleError(f"option {key}={value!r}: expected a {type(default).__name__}") from None
    return value


def load_game(name: str, profile: TableProfile, options: Mapping[str, Any] | None = None) -> Game:
    """Build the game registered as ``name`` in :data:`GAMES`."""
    target = GAMES.get(name)
    if target is None:
        raise RuleError(f"unknown game '{name}' (known: {', '.join(GAMES)})")
    mod_name, cls_name = target.split(":")
    try:
        mod = importlib.import_module(mod_name)
    except ModuleNotFoundError as e:
        if e.name is not None and mod_name.startswith(e.name):
            raise RuleError(f"game '{name}' is not implemented in this build") from None
        raise
    cls = getattr(mod, cls_name)
    return cls(profile, options)


def run_match(blocks: Iterable[Setup | ShotRecord], game: Game) -> Iterator[Ruling]:
    """Feed setups and shot records to ``game``; yield one ruling per stroke."""
    for b in blocks:
        if isinstance(b, Setup):
            game.setup(b)
        else:
            yield game.rule(b)
