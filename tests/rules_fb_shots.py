"""Test helper: a tiny notation for Five Ball strokes (not a test module).

``shot("W1", "W1-K K|right-foot K>middle-left W1-R1")`` is a stroke with cue
ball W1: W1 meets K, K meets the right-foot cushion, K drops into the
middle-left pocket, W1 meets R1.  ``X^`` is X leaving the table.  Each token
takes the next 0.1 s.
"""

from __future__ import annotations

from luza.events import Event, make
from luza.rules.five_ball_calls import ShotObs, observe


def events(text: str, t0: float = 0.0) -> list[Event]:
    out = []
    t = t0
    for tok in text.split():
        t += 0.1
        if "-" in tok and not tok.startswith("jaw") and "|" not in tok and ">" not in tok:
            a, b = tok.split("-", 1)
            out.append(make("collision", t, a=a, b=b, pos=[0.0, 0.0]))
        elif "|" in tok:
            ball, cushion = tok.split("|", 1)
            out.append(make("cushion", t, ball=ball, cushion=cushion, pos=[0.0, 0.0]))
        elif ">" in tok:
            ball, pocket = tok.split(">", 1)
            out.append(make("pocket", t, ball=ball, pocket=pocket))
        elif tok.endswith("^"):
            out.append(make("off_table", t, ball=tok[:-1]))
        else:
            raise ValueError(f"bad token {tok!r}")
    return out


def shot(cue: str, text: str) -> ShotObs:
    return observe(cue, events(text))


# ---------------------------------------------------------------- whole streams
L_MM, W_MM = 3550.0, 1775.0  # pyramid-12ft
OPENING = {
    "K": (1775.0, 887.5),
    "R1": (887.5, 887.5),
    "R2": (2662.5, 887.5),
    "W2": (2300.0, 1500.0),
    "W1": (500.0, 400.0),
}
CUSHION_X = {"head": 0.0, "foot": L_MM}
CUSHION_Y = {"left": 0.0, "right": W_MM}


class Stream:
    """Builds a Five Ball event stream stroke by stroke, keeping positions consistent.

    ``stroke("W1", "W1~house W1-K K>foot-left", rest={"W1": (2000, 900)})``: the
    stroke notation of :func:`events` plus ``X~line`` (a line crossing); a
    collision's position is the midpoint of the two balls, a cushion's the
    ball's position projected onto that cushion, unless the token ends in
    ``@x,y`` (``W2|left-foot@2000,0``).
    """

    def __init__(self, positions=None, players=None, score=None, t0: float = 0.0, brk=True):
        self.t = t0
        self.lines: list[dict] = []
        self.pos = {b: tuple(p) for b, p in (positions or OPENING).items()}
        if players:
            self._add("players", names=list(players))
        ts = {"game": "five-ball", "positions": {b: list(p) for b, p in self.pos.items()}}
        if score:
            ts["score"] = dict(score)
        if not brk:
            ts["break"] = False
        self._add("table_state", **ts)

    def _add(self, typ: str, dt: float = 0.1, **kw) -> None:
        self.t = round(self.t + dt, 3)
        self.lines.append({"type": typ, "t": self.t, **kw})

    def wait(self, seconds: float) -> Stream:
        self.t = round(self.t + seconds, 3)
        return self

    def call(self, ball: str, pocket: str, **route) -> Stream:
        full = {"cushions": [], "cue_cushions": [], "via": None, "combination": None, "jaw": False}
        full.update(route)
        self._add("call", ball=ball, pocket=pocket, route=full)
        return self

    def foul(self, kind: str, **kw) -> Stream:
        self._add("foul", kind=kind, **kw)
        return self

    def choice(self, kind: str, **kw) -> Stream:
        self._add("choice", kind=kind, **kw)
        return self

    def place(self, ball: str, pos) -> Stream:
        self.pos[ball] = tuple(pos)
        self._add("ball_placed", ball=ball, pos=list(pos))
        return self

    def remove(self, ball: str) -> Stream:
        self.pos.pop(ball)
        self._add("ball_removed", ball=ball)
        return self

    def _cushion_pos(self, ball: str, cushion: str) -> list[float]:
        x, y = self.pos.get(ball, (L_MM / 2, W_MM / 2))
        if cushion.startswith("jaw:"):
            return [x, y]
        if cushion in CUSHION_X:
            return [CUSHION_X[cushion], y]
        return [x, CUSHION_Y[cushion.split("-")[0]]]

    def stroke(self, cue: str, text: str = "", rest=None, player=None, **start) -> Stream:
        kw = {"cue_ball": cue, **start}
        if player is not None:
            kw["player"] = player
        self._add("shot_start", dt=1.0, **kw)
        for tok in text.split():
            at = None
            if "@" in tok:
                tok, xy = tok.split("@")
                at = [float(v) for v in xy.split(",")]
            if "~" in tok:
                ball, line = tok.split("~")
                self._add("line_cross", ball=ball, line=line, direction="+x")
            elif "|" in tok:
                ball, cushion = tok.split("|", 1)
                self._add(
                    "cushion",
                    ball=ball,
                    cushion=cushion,
                    pos=at or self._cushion_pos(ball, cushion),
                )
                if at:
                    self.pos[ball] = (at[0], at[1])
            elif ">" in tok:
                ball, pocket = tok.split(">", 1)
                self._add("pocket", ball=ball, pocket=pocket)
                self.pos.pop(ball)
            elif tok.endswith("^"):
                self._add("off_table", ball=tok[:-1])
                self.pos.pop(tok[:-1])
            else:
                a, b = tok.split("-", 1)
                pa, pb = self.pos[a], self.pos[b]
                mid = at or [(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2]
                self._add("collision", a=a, b=b, pos=mid)
        for b, p in (rest or {}).items():
            self.pos[b] = tuple(p)
        self._add("shot_end", dt=1.0, positions={b: list(p) for b, p in self.pos.items()})
        return self

    def jsonl(self) -> list[str]:
        import json

        return [json.dumps(d) for d in self.lines]

    def items(self):
        from luza.rules.stream import parse_items

        return list(parse_items(self.jsonl(), "test"))

    def score(self, **options):
        from luza.rules.record import score_items

        return score_items(self.items(), "five-ball", "pyramid-12ft", options)
