"""Free Pyramid over streams from the physics simulator (luza.physics): real event timing.

The simulator plays a break from the rack and a few aimed strokes; the engine must
accept its streams and rule them consistently with their events: a stroke whose
cue ball touches nothing is a GR-6.2 foul; on a legal stroke every pocket event is
a point (FP-5.5); balls are conserved.
"""

from __future__ import annotations

import math

import pytest

from luza.calibration.profiles import load_profile
from luza.events import make
from luza.rules.engine import Item
from luza.rules.record import score_items

physics = pytest.importorskip("luza.physics.sim")

P = load_profile("pyramid-12ft")


def _clear(a, b, balls, skip, D):
    """No ball (but ``skip``) within a diameter of the segment a-b."""
    ax, ay, bx, by = *a, *b
    L2 = (bx - ax) ** 2 + (by - ay) ** 2
    for k, (px, py) in balls.items():
        if k in skip:
            continue
        t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / L2))
        if math.hypot(ax + t * (bx - ax) - px, ay + t * (by - ay) - py) < D + 2.0:
            return False
    return True


def potting_stroke(tl, speed: float):
    """The straightest ghost-ball pot on the table: (cue, object ball, pocket) -> Strike."""
    from luza.physics.state import Strike

    pos, D = tl.positions, P.ball_diameter_mm
    best = None
    for cue, c in pos.items():
        for obj, o in pos.items():
            if obj == cue:
                continue
            for pk in P.pockets().values():
                m = pk.mouth_centre if not callable(pk.mouth_centre) else pk.mouth_centre()
                ux, uy = m[0] - o[0], m[1] - o[1]
                n = math.hypot(ux, uy)
                ghost = (o[0] - D * ux / n, o[1] - D * uy / n)
                vx, vy = ghost[0] - c[0], ghost[1] - c[1]
                cut = math.acos(max(-1.0, min(1.0, (vx * ux + vy * uy) / (math.hypot(vx, vy) * n))))
                if not (_clear(c, ghost, pos, {cue, obj}, D) and _clear(o, m, pos, {cue, obj}, D)):
                    continue
                score = cut + (math.hypot(vx, vy) + n) / 20000.0
                if best is None or score < best[0]:
                    best = (score, Strike(cue, speed, math.atan2(vy, vx), follow=0.1))
    return best[1]


def test_simulated_break_and_strokes_are_ruled_from_their_events():
    rack = {str(i + 1): p for i, p in enumerate(P.rack_positions())}
    rack["Y"] = (600.0, P.width_mm / 2 + 4.0)
    tl = physics.Timeline(P, rack, seed=3)
    from luza.physics.state import Strike

    tl.strike(Strike("Y", 9000.0, 0.0, follow=0.2))
    for k in range(4):
        tl.strike(potting_stroke(tl, 2200.0 + 400.0 * k))
    # a stroke too soft to reach anything (GR-6.2), then the opponent's penalty ball (FP-7)
    pos = tl.positions
    lone = max(pos, key=lambda b: min(math.dist(pos[b], q) for k, q in pos.items() if k != b))
    tl.strike(Strike(lone, 150.0, 0.0))
    tl.remove(min(tl.positions))
    head = make(
        "table_state",
        0.0,
        0,
        1.0,
        game="free-pyramid",
        positions={b: list(p) for b, p in rack.items()},
    )
    items = [Item(e, f"sim:{i + 1}") for i, e in enumerate([head, *tl.events])]
    s = score_items(items)
    assert len(s.rulings) == 6
    assert s.rulings[-1].fouls[0].rule == "GR-6.2"
    assert sum(r.points for r in s.rulings) >= 1  # the aimed pots do pot
    total = sum(r.points for r in s.rulings) + 1  # + the penalty ball
    assert sum(s.final["score"].values()) == total
    starts = [i for i, it in enumerate(items) if it.type == "shot_start"] + [len(items)]
    for r, a, b in zip(s.rulings, starts, starts[1:], strict=False):
        evs = items[a:b]
        cue = evs[0]["cue_ball"]
        touched = any(e.type == "collision" and cue in (e["a"], e["b"]) for e in evs)
        pockets = [e["ball"] for e in evs if e.type == "pocket"]
        assert r.cue_ball == cue
        if not touched:
            assert "GR-6.2" in [f.rule for f in r.fouls]
        if not r.foul:
            assert r.points == len(pockets)
        else:
            assert r.points == 0 and sorted(x.ball for x in r.respots) == sorted(
                pockets + [e["ball"] for e in evs if e.type == "off_table"]
            )
    acc = s.game.accounting()
    n = len(acc["table"]) + sum(map(len, acc["shelves"].values())) + len(acc["awaiting"])
    assert n + len(acc["held"]) == 16
