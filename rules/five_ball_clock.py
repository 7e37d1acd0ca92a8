"""Timed Five Ball matches (RULES.en.md FB-14): clock, last innings, breaks, decider.

* :class:`MatchClock` -- the playing time (60 min by default), the warning at
  5 minutes left, and one break of up to 5 minutes per player that is added to
  the playing time (FB-14.1, FB-14.9).  Times are the stream's seconds.
* :func:`last_innings` -- who still plays after the time is up (FB-14.1,
  AMB-12: one more inning each, the ball-2 player last).
* :class:`PenaltyDecider` -- the penalty-shot decider (FB-14.2 .. FB-14.8):
  5 innings each, first to 100, else the higher total at its actual value,
  level -> inning by inning; the second shooter always gets his equalising
  inning unless the first reached 100.
* :func:`decider_layout` -- its start positions (FB-14.3, FB-14.5).

All of it is plain state over numbers; ``rules/five_ball.py`` feeds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError

XY = tuple[float, float]

GAME_S = 3600.0  # FB-14.1: 60 min unless the competition says otherwise
WARNING_S = 300.0  # FB-14.1: the referee warns at 5 min remaining
BREAK_S = 300.0  # FB-14.9: one break of up to 5 min per player
DECIDER_INNINGS = 5  # FB-14.2
DECIDER_START_POINTS = 6  # FB-14.3


class ClockError(LuzaError, ValueError):
    """An impossible clock input (a second break, a break that never started...)."""


@dataclass
class MatchClock:
    """The match clock of a timed game (FB-14.1, FB-14.9)."""

    t0_s: float
    game_s: float = GAME_S
    warning_s: float = WARNING_S
    break_s: float = BREAK_S
    breaks: dict[str, tuple[float, float | None]] = field(default_factory=dict)

    def start_break(self, player: str, t_s: float) -> None:
        if player in self.breaks:
            raise ClockError(f"{player} has already taken his break (FB-14.9: one per player)")
        if any(end is None for _, end in self.breaks.values()):
            raise ClockError("a break is already running")
        self.breaks[player] = (t_s, None)

    def end_break(self, player: str, t_s: float) -> float:
        """End ``player``'s break; returns how many seconds it ran over 5 minutes."""
        b = self.breaks.get(player)
        if b is None or b[1] is not None:
            raise ClockError(f"{player} has no break running")
        self.breaks[player] = (b[0], t_s)
        return max(0.0, (t_s - b[0]) - self.break_s)

    def on_break(self, t_s: float) -> str | None:
        for p, (s, e) in self.breaks.items():
            if s <= t_s and (e is None or t_s < e):
                return p
        return None

    def break_time(self, t_s: float) -> float:
        """Seconds of break (each capped at its 5 minutes) up to ``t_s``: not playing time."""
        total = 0.0
        for s, e in self.breaks.values():
            end = t_s if e is None else min(e, t_s)
            total += max(0.0, min(end - s, self.break_s))
        return total

    def played(self, t_s: float) -> float:
        return max(0.0, t_s - self.t0_s - self.break_time(t_s))

    def remaining(self, t_s: float) -> float:
        return self.game_s - self.played(t_s)

    def status(self, t_s: float) -> str:
        """``running``, ``warning`` (5 min or less left) or ``time-up``."""
        left = self.remaining(t_s)
        if left <= 0:
            return "time-up"
        if left <= self.warning_s:
            return "warning"
        return "running"


def last_innings(at_table: str, ball1_player: str, ball2_player: str) -> list[str]:
    """Innings still to play after the one running when time ran out (FB-14.1, AMB-12).

    Each player gets one last inning and the ball-2 player shoots last: when
    time runs out during the ball-1 player's inning, that inning is his last
    and the ball-2 player has one more; during the ball-2 player's inning, it
    is finished, then each plays one more, ball 1 first.
    """
    if at_table == ball1_player:
        return [ball2_player]
    if at_table == ball2_player:
        return [ball1_player, ball2_player]
    raise ValueError(f"{at_table!r} is neither player")


@dataclass
class PenaltyDecider:
    """The penalty-shot decider (FB-14.2 .. FB-14.8) over game scores.

    ``scores`` start at the game's scores and grow by each inning's points.
    Call :meth:`add` for every scoring stroke and :meth:`end_inning` when the
    player fails (or his illegal own-ball pocketing ends the inning).
    """

    first: str
    second: str
    scores: dict[str, int]
    target: int = 100
    innings_each: int = DECIDER_INNINGS
    played: dict[str, int] = field(default_factory=dict)
    current: str = ""
    inning_points: int = 0
    done: bool = False
    result: str | None = None  # the winner once decided

    def __post_init__(self) -> None:
        self.current = self.current or self.first
        self.played = self.played or {self.first: 0, self.second: 0}

    @property
    def inning_start(self) -> bool:
        """The next stroke opens an inning (FB-14.3's start shot)."""
        return self.inning_points == 0

    def add(self, points: int) -> None:
        if self.done:
            raise ClockError("the decider is over")
        self.scores[self.current] += points
        self.inning_points += points
        if self.current == self.first and self.scores[self.first] >= self.target:
            self._finish(self.first)  # FB-14.7: first to 100 wins
        elif self.current == self.second and self.scores[self.second] >= self.target:
            self._finish(self.second)

    def end_inning(self) -> str | None:
        """Close the current inning; returns who plays next (``None`` when decided)."""
        if self.done:
            return None
        self.played[self.current] += 1
        self.inning_points = 0
        if self.current == self.first:
            self.current = self.second  # FB-14.8: the second always gets his inning
            return self.current
        rounds = self.played[self.second]
        if rounds >= self.innings_each and self.scores[self.first] != self.scores[self.second]:
            self._finish(max((self.first, self.second), key=lambda p: self.scores[p]))
            return None
        self.current = self.first
        return self.current

    def _finish(self, winner: str) -> None:
        self.done = True
        self.result = winner

    def final_scores(self) -> dict[str, int]:
        """FB-14.7: recorded at actual values; a total over 100 is capped (FB-13.6)."""
        return {p: min(v, self.target) for p, v in self.scores.items()}


def decider_layout(profile: TableProfile, start: str = "kaisa") -> dict[str, XY]:
    """FB-14.3 start positions: ``kaisa`` -> kaisa on the centre spot, ``luikka`` ->
    kaisa on the foot-end spot.  The cue ball is in hand behind the head line."""
    if start == "kaisa":
        return {"K": profile.spots["fb-centre"]}
    if start == "luikka":
        return {"K": profile.spots["fb-foot-end"]}
    raise ValueError(f"decider start is 'kaisa' or 'luikka', got {start!r}")
