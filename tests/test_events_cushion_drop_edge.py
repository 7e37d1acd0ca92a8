"""A ball over a pocket's drop hole: one creeping into it is pocketed, one stopped on
its lip hangs (the drop hole reaches past the mouth line, towards the bed)."""

from __future__ import annotations

from events_helpers import other_ball

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
OTHER = (1000.0, 900.0)

# the black of the scene fb-ball-in-hand (seed 306) at 30 fps as the tracker gives it
# (noise of events_truth): it rolls slowly into the foot-left pocket's jaw (physics:
# 10.096 s, 10.302 s) and creeps on at ~15 mm/s -- within a rest's spread -- over the
# drop hole's edge, 2.6 mm short of the mouth line, until it drops (pocket, 10.450 s)
CREEP = [
    (3428.3, 89.3), (3435.7, 86.0), (3440.0, 84.1), (3445.2, 79.0), (3447.0, 76.2),
    (3453.6, 73.3), (3459.1, 72.0), (3464.2, 67.7), (3469.1, 65.0), (3471.0, 62.6),
    (3476.3, 61.4), (3480.4, 58.0), (3486.4, 55.3), (3487.3, 55.5), (3491.0, 53.8),
    (3493.2, 50.7), (3497.9, 47.0), (3503.0, 46.6), (3505.8, 43.2), (3508.8, 41.1),
    (3510.8, 39.7), (3516.8, 38.3), (3518.4, 36.8), (3518.9, 33.1), (3518.1, 34.1),
    (3519.5, 31.7), (3521.9, 28.9), (3520.6, 29.7), (3521.3, 27.9), (3520.4, 25.8),
    (3521.1, 25.0), (3522.8, 26.3), (3523.1, 24.2), (3523.4, 25.6),
]  # fmt: skip

# W2 of the scene fb-ball-in-hand (seed 2669) at 30 fps: it rolls into the foot-left
# jaw (physics: 8.975 s), stops short of the drop hole at 9.03 s and creeps over its
# edge at ~35 mm/s, 50 degrees off the way to the hole's centre, until it drops
# (pocket, 9.252 s)
SLANT = [
    (3331.3, 125.2), (3343.3, 120.0), (3353.8, 116.4), (3364.8, 110.1), (3373.5, 105.0),
    (3383.1, 101.2), (3392.6, 98.1), (3401.2, 91.4), (3410.9, 88.3), (3419.7, 84.8),
    (3430.3, 76.9), (3439.9, 76.0), (3449.4, 70.3), (3455.9, 65.6), (3467.0, 61.6),
    (3474.4, 58.6), (3482.8, 53.1), (3494.6, 49.0), (3502.1, 46.5), (3507.5, 41.2),
    (3517.2, 38.2), (3517.6, 32.5), (3519.3, 27.2), (3522.6, 28.9), (3523.2, 28.9),
    (3523.4, 28.9), (3523.3, 25.6), (3524.6, 24.5), (3521.5, 23.0),
]  # fmt: skip

# ball 4 of the scene fp-pots (seed 82) at 30 fps: it rattles in the foot-right jaws
# and stops on the lip (physics: hang, 5.016 s); here 1 mm further in than there, at
# (3524.9, 1747.1): 1.3 mm short of the mouth line, 1.7 mm over the drop hole's edge
LIP = (3524.9, 1747.1)
RATTLE = [
    (3510.5, 1680.8), (3512.0, 1694.6), (3515.5, 1701.5), (3514.6, 1712.9),
    (3515.2, 1720.9), (3517.8, 1730.8), (3517.9, 1740.4), (3518.3, 1748.8),
    (3523.9, 1744.0), (3521.7, 1748.3), (3519.2, 1748.6), (3522.2, 1748.7),
    (3523.6, 1747.2), (3521.3, 1746.2), (3524.5, 1746.1), (3523.3, 1746.0),
]  # fmt: skip
JITTER = [(0.4, -0.3), (-0.6, 0.2), (0.1, 0.7), (-0.2, -0.5), (0.5, 0.4), (-0.3, -0.1)]


def _frames(ball: str, rest, way, tail: list) -> list[FrameObs]:
    frames = [FrameObs(k, k / FPS, {ball: rest, other_ball(ball): OTHER}) for k in range(40)]
    for i, p in enumerate(way + tail):  # a position, "hidden" or None (gone)
        still = {other_ball(ball): OTHER}
        seen = {ball: p, **still} if isinstance(p, tuple) else still
        hidden = frozenset({ball}) if p == "hidden" else frozenset()
        frames.append(FrameObs(40 + i, (40 + i) / FPS, seen, hidden))
    return frames


def test_a_ball_creeping_over_the_drop_edge_and_gone_was_pocketed():
    tail = ["hidden"] * 8 + [None] * 40  # the tracker keeps it hidden 0.25 s, then gone
    ev = extract_events(_frames("K", (3420.0, 92.5), CREEP, tail), PROFILE, "five-ball")
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("K", "foot-left")]
    # before: it came to rest at 10.2 s and a hand took it away
    assert not [e for e in ev if e.type == "ball_removed"]
    t_gone = (40 + len(CREEP)) / FPS
    pot = next(e for e in ev if e.type == "pocket")
    assert t_gone - 2.0 / FPS <= pot.t <= t_gone
    end = next(e for e in ev if e.type == "shot_end")
    assert end.t >= pot.t and "K" not in end["positions"]


def test_a_ball_creeping_in_slantwise_was_pocketed():
    """Before: only a creep within 45 degrees of the way to the hole's centre was a pot;
    this one was a hang at 9.03 s, a shot end with W2 on the table, and a hang_fall."""
    tail = ["hidden"] * 8 + [None] * 40
    ev = extract_events(_frames("W2", (3320.0, 130.0), SLANT, tail), PROFILE, "five-ball")
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("W2", "foot-left")]
    assert not [e for e in ev if e.type in ("hang", "hang_fall", "ball_removed")]
    pot = next(e for e in ev if e.type == "pocket")
    t_gone = (40 + len(SLANT)) / FPS
    assert t_gone - 2.0 / FPS <= pot.t <= t_gone
    end = next(e for e in ev if e.type == "shot_end")
    assert end.t >= pot.t and "W2" not in end["positions"]


def test_a_ball_stopped_on_the_lip_of_the_drop_hole_hangs():
    still = [(LIP[0] + dx, LIP[1] + dy) for dx, dy in JITTER * 10]
    ev = extract_events(_frames("4", (3509.8, 1672.7), RATTLE, still), PROFILE, "free-pyramid")
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "hang"] == [("4", "foot-right")]
    assert not [e for e in ev if e.type in ("pocket", "hang_fall")]


def test_a_ball_stopped_by_a_pocket_but_clear_of_its_drop_hole_does_not_hang():
    near = (LIP[0] - 4.0, LIP[1] - 4.0)  # 3.9 mm clear of the drop hole: on the bed
    still = [(near[0] + dx, near[1] + dy) for dx, dy in JITTER * 10]
    way = [(x - 4.0, y - 4.0) for x, y in RATTLE]
    ev = extract_events(_frames("4", (3505.8, 1668.7), way, still), PROFILE, "free-pyramid")
    assert not [e for e in ev if e.type in ("hang", "pocket", "hang_fall")]
