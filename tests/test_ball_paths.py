"""The per-ball path stage on its own (vision/ball_paths.py): one ball's samples cut
into rests and moves, and a striker's incoming path, from plain arrays."""

from __future__ import annotations

import numpy as np

from luza.vision.ball_paths import (
    REST_SPREAD_MM,
    START_MM,
    BallData,
    incoming_piece,
    split_motion,
)

FPS = 60.0
DT = 1 / FPS


def _ball(ts: np.ndarray, xy: np.ndarray) -> BallData:
    return BallData("1", ts, xy, np.arange(len(ts)), None, float(ts[-1]), float(ts[0]))


def _rest_move_rest(seed: int = 0) -> tuple[BallData, float, float]:
    """At rest at (1000, 500) for 1 s, rolling +x at 1.5 m/s for 0.4 s, at rest again
    for 1 s; 0.7 mm of jitter on every sample."""
    rng = np.random.default_rng(seed)
    ts = np.arange(0.0, 2.4, DT)
    t_go, t_stop = 1.0, 1.4
    x = 1000.0 + 1500.0 * np.clip(ts - t_go, 0.0, t_stop - t_go)
    xy = np.column_stack([x, np.full_like(x, 500.0)]) + rng.normal(0.0, 0.7, (len(ts), 2))
    return _ball(ts, xy), t_go, t_stop


def test_a_roll_between_two_rests_is_one_move_with_both_anchors():
    bd, t_go, t_stop = _rest_move_rest()
    split_motion(bd, DT)
    assert len(bd.rests) == 2 and len(bd.moves) == 1
    mv = bd.moves[0]
    assert mv.end == "rest"
    assert np.linalg.norm(mv.anchor0 - (1000.0, 500.0)) < 1.0
    assert np.linalg.norm(mv.anchor1 - (1600.0, 500.0)) < 1.0
    # the move is seen from the first sample past START_MM (1.5 m/s: within a frame)
    assert t_go <= bd.ts[mv.idx[0]] <= t_go + START_MM / 1500.0 + DT
    assert bd.rests[0].t1 < bd.ts[mv.idx[0]] and bd.rests[1].t0 >= t_stop - DT


def test_jitter_alone_is_rest():
    rng = np.random.default_rng(1)
    ts = np.arange(0.0, 2.0, DT)
    xy = np.array([800.0, 300.0]) + rng.normal(0.0, REST_SPREAD_MM / 6, (len(ts), 2))
    bd = _ball(ts, xy)
    split_motion(bd, DT)
    assert bd.moves == [] and len(bd.rests) == 1


def test_incoming_piece_follows_the_way_in_and_needs_three_samples():
    bd, t_go, t_stop = _rest_move_rest(seed=2)
    t_in = 1.3  # rolling: the way in to a contact at this time
    pc = incoming_piece(bd, t_in)
    assert pc is not None
    assert np.linalg.norm(pc.vel(t_in) - (1500.0, 0.0)) < 100.0
    assert np.linalg.norm(pc.at(t_in) - (1000.0 + 1500.0 * (t_in - t_go), 500.0)) < 3.0
    assert incoming_piece(bd, bd.ts[1]) is None  # two samples fix no path
