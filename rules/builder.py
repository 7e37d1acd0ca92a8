"""Write event streams by hand or from code (tests, examples): a tiny fluent builder.

    b = StreamBuilder()
    b.rack()                                   # table_state: 15 racked + yellow in the house
    b.strike("Y").hit("Y", "1").cushion("3", "foot").cushion("5", "right-foot")
    b.pocket("7", "foot-left").end()           # shot_end with every ball's position
    text = b.jsonl()                           # JSON lines for `luza score`

Times advance by ``dt`` seconds an event; positions are tracked so ``end()``
writes a consistent ``shot_end``.  Nothing here judges anything.
"""

from __future__ import annotations

import json
from typing import Any

from luza.calibration.profiles import TableProfile, load_profile
from luza.events import Event
from luza.rules.engine import XY, Item


class StreamBuilder:
    def __init__(
        self,
        profile: TableProfile | None = None,
        game: str = "free-pyramid",
        fps: float = 60.0,
        dt: float = 0.1,
    ):
        self.profile = profile or load_profile("pyramid-12ft")
        self.game = game
        self.fps = fps
        self.dt = dt
        self.t = 0.0
        self.pos: dict[str, XY] = {}
        self.lines: list[dict[str, Any]] = []
        self._parsed: dict[str, list[Item]] = {}

    # -- plumbing --------------------------------------------------------------
    def add(self, type_: str, dt: float | None = None, **fields: Any) -> StreamBuilder:
        self.t = round(self.t + (self.dt if dt is None else dt), 6)
        d = {"type": type_, "t": self.t, "frame": int(round(self.t * self.fps))}
        d["confidence"] = fields.pop("confidence", 1.0)
        d.update(fields)
        self.lines.append(d)
        return self

    def jsonl(self) -> str:
        return "".join(json.dumps(d) + "\n" for d in self.lines)

    def items(self, source: str = "gen") -> list[Item]:
        """The stream as checked items (``source:line``); parsed once per line."""
        cache = self._parsed.setdefault(source, [])
        for i in range(len(cache), len(self.lines)):
            where = f"{source}:{i + 1}"
            cache.append(Item(Event.from_dict(self.lines[i], where), where))
        return list(cache)

    @staticmethod
    def _xy(p: XY) -> list[float]:
        return [round(float(p[0]), 2), round(float(p[1]), 2)]

    # -- the table ---------------------------------------------------------------
    def rack_positions(self, cue_pos: XY | None = None) -> dict[str, XY]:
        prof = self.profile
        pos = {str(i + 1): p for i, p in enumerate(prof.rack_positions(5))}
        pos["Y"] = cue_pos or (prof.length_mm / 8.0, prof.width_mm / 2.0)
        return pos

    def table_state(self, positions: dict[str, XY], **extra: Any) -> StreamBuilder:
        self.pos = dict(positions)
        return self.add(
            "table_state",
            game=self.game,
            positions={b: self._xy(p) for b, p in positions.items()},
            **extra,
        )

    def rack(self, cue_pos: XY | None = None, **extra: Any) -> StreamBuilder:
        return self.table_state(self.rack_positions(cue_pos), **extra)

    # -- a stroke ----------------------------------------------------------------
    def strike(self, cue: str, player: str | None = None, **extra: Any) -> StreamBuilder:
        if player is not None:
            extra["player"] = player
        return self.add("shot_start", cue_ball=cue, **extra)

    def hit(self, a: str, b: str, **extra: Any) -> StreamBuilder:
        pa, pb = self.pos[a], self.pos[b]
        mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
        return self.add("collision", a=a, b=b, pos=self._xy(mid), **extra)

    def cushion(self, ball: str, cushion: str, **extra: Any) -> StreamBuilder:
        return self.add(
            "cushion", ball=ball, cushion=cushion, pos=self._xy(self.pos[ball]), **extra
        )

    def cross(self, ball: str, line: str, direction: str = "+", **extra: Any) -> StreamBuilder:
        return self.add("line_cross", ball=ball, line=line, direction=direction, **extra)

    def pocket(self, ball: str, pocket: str, **extra: Any) -> StreamBuilder:
        self.pos.pop(ball)
        return self.add("pocket", ball=ball, pocket=pocket, **extra)

    def off(self, ball: str, **extra: Any) -> StreamBuilder:
        self.pos.pop(ball)
        return self.add("off_table", ball=ball, **extra)

    def bounce_out(self, ball: str, pocket: str, **extra: Any) -> StreamBuilder:
        return self.add("bounce_out", ball=ball, pocket=pocket, **extra)

    def hang(self, ball: str, pocket: str, **extra: Any) -> StreamBuilder:
        return self.add("hang", ball=ball, pocket=pocket, **extra)

    def hang_fall(self, ball: str, pocket: str, dt: float | None = None) -> StreamBuilder:
        self.pos.pop(ball)
        return self.add("hang_fall", dt=dt, ball=ball, pocket=pocket)

    def end(self, moves: dict[str, XY] | None = None, **extra: Any) -> StreamBuilder:
        self.pos.update(moves or {})
        return self.add(
            "shot_end", positions={b: self._xy(p) for b, p in self.pos.items()}, **extra
        )

    # -- hands and alarms ------------------------------------------------------------
    def place(self, ball: str, pos: XY, **extra: Any) -> StreamBuilder:
        self.pos[ball] = (float(pos[0]), float(pos[1]))
        return self.add("ball_placed", ball=ball, pos=self._xy(pos), **extra)

    def remove(self, ball: str, **extra: Any) -> StreamBuilder:
        self.pos.pop(ball)
        return self.add("ball_removed", ball=ball, **extra)

    def moved(self, ball: str, pos: XY, **extra: Any) -> StreamBuilder:
        self.pos[ball] = (float(pos[0]), float(pos[1]))
        return self.add("ball_moved", ball=ball, pos=self._xy(pos), **extra)

    # -- operator inputs ---------------------------------------------------------------
    def foul(self, kind: str, **extra: Any) -> StreamBuilder:
        return self.add("foul", kind=kind, **extra)

    def choice(self, kind: str, **extra: Any) -> StreamBuilder:
        return self.add("choice", kind=kind, **extra)

    def players(self, *names: str, **extra: Any) -> StreamBuilder:
        return self.add("players", names=list(names), **extra)
