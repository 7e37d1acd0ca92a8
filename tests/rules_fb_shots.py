"""Test helper: a tiny notation for Five Ball strokes (not a test module).

``shot("W1", "W1-K K|right-foot K>middle-left W1-R1")`` is a stroke with cue
ball W1: W1 meets K, K meets the right-foot cushion, K drops into the
middle-left pocket, W1 meets R1.  ``X^`` is X leaving the table.  Each token
takes the next 0.1 s.
"""

from __future__ import annotations

from luza.rules.five_ball_calls import ShotObs, observe

from luza.events import Event, make


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
