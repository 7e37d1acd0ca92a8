"""A ball pushed slowly in a shot creeps off by less than ``START_MM`` at first, inside
its rest, and its move starts only when the creep has added up; nothing struck that
move, and it was flagged ``ball_moved`` -- moved by a cue or a sleeve -- though the
contact moved it (vision/events.py ``EventExtractor._pushed_creeps``; held-out
fp-multi/2239 at 60 fps: ball 2 of a rack's remains, pushed at 2.99 s, flagged at
3.42 s)."""

from __future__ import annotations

import numpy as np

from luza.vision.ball_paths import Move, Piece
from luza.vision.events import (
    CREEP_MERGE_S,
    STROKE_MIN_SPEED_MM_S,
    EventExtractor,
    _Cand,
)

T_MOVE = 3.42


def _move(ball: str, speed_mm_s: float) -> Move:
    pc = Piece(T_MOVE, T_MOVE + 0.3, T_MOVE, np.array([2722.0, -speed_mm_s, 0.0]), np.zeros(3), 18)
    return Move(
        ball,
        list(range(18)),
        np.array([2722.0, 853.0]),
        T_MOVE - 0.02,
        "rest",
        pieces=[pc],
        t_start=T_MOVE,
        t_end=T_MOVE + 0.3,
    )


def _cands(t_hit: float, a: str = "1", b: str = "2") -> list[_Cand]:
    return [
        _Cand("collision", t_hit, 0.75, {"a": a, "b": b, "pos": [2691.9, 870.3]}),
        _Cand("ball_moved", T_MOVE, 0.5, {"ball": "2", "pos": [2722.0, 853.0]}),
    ]


def _moved(cands: list[_Cand]) -> list[str]:
    return [c.data["ball"] for c in cands if c.type == "ball_moved"]


def test_a_slow_creep_soon_after_a_contact_of_that_ball_is_the_push():
    out = EventExtractor._pushed_creeps(_cands(2.99), [_move("2", 15.0)])
    assert _moved(out) == []
    assert [c.type for c in out] == ["collision"]
    # either side of the pair
    assert _moved(EventExtractor._pushed_creeps(_cands(2.99, "2", "5"), [_move("2", 15.0)])) == []


def test_a_move_that_is_not_a_creep_after_a_contact_stays_flagged():
    # the contact too long before
    t_old = T_MOVE - CREEP_MERGE_S - 0.05
    assert _moved(EventExtractor._pushed_creeps(_cands(t_old), [_move("2", 15.0)])) == ["2"]
    # the contact after the move set off
    assert _moved(EventExtractor._pushed_creeps(_cands(T_MOVE + 0.1), [_move("2", 15.0)])) == ["2"]
    # a contact of two other balls
    assert _moved(EventExtractor._pushed_creeps(_cands(2.99, "1", "5"), [_move("2", 15.0)])) == [
        "2"
    ]
    # setting off as fast as a stroke: something struck it
    fast = _move("2", 3 * STROKE_MIN_SPEED_MM_S + 20.0)
    assert _moved(EventExtractor._pushed_creeps(_cands(2.99), [fast])) == ["2"]
