"""Which repeated contacts the physics logs as events (the truth every event benchmark
scores against): a fast re-touch is a new collision, a push or a roll is not."""

from __future__ import annotations

from luza.calibration.profiles import load_profile
from luza.physics.engine import CHATTER_S
from luza.physics.sim import Simulator
from luza.physics.state import Strike

PROFILE = load_profile("pyramid-12ft")
L, W, R = PROFILE.length_mm, PROFILE.width_mm, PROFILE.ball_radius_mm


def pair_hits(gap_mm: float, speed_mm_s: float, follow: float, cushion_gap_mm: float | None):
    """Times of the collisions of Y struck straight at 1, ``gap_mm`` apart; 1 lies
    ``cushion_gap_mm`` from the foot cushion (None: mid-table)."""
    x1 = L / 2 if cushion_gap_mm is None else L - R - cushion_gap_mm
    pos = {"Y": (x1 - 2 * R - gap_mm, W / 2), "1": (x1, W / 2)}
    res = Simulator(PROFILE, seed=0).run(pos, Strike("Y", speed_mm_s, 0.0, follow=follow))
    return [e.t for e in res.events if e.type == "collision"]


def test_a_double_kiss_off_the_cushion_is_two_collisions() -> None:
    # 1 lies 40 mm off the foot cushion; Y follows through after hitting it, 1 comes
    # back off the cushion and meets Y again 31 ms later at over 1 m/s: a second hit,
    # which the physics used to swallow as "the same contact" (CHATTER_S)
    hits = pair_hits(600.0, 3000.0, 0.4, 40.0)
    assert len(hits) == 2
    assert 0.01 < hits[1] - hits[0] < CHATTER_S


def test_a_ball_pushing_another_is_one_collision() -> None:
    # nearly frozen balls, the cue ball's follow driving it on into the object ball:
    # one contact, however long the push
    assert len(pair_hits(0.5, 500.0, 0.5, None)) == 1
    assert len(pair_hits(10.0, 800.0, 0.6, None)) == 1
