"""Tracker: what counts as evidence of a ball's class, and which ball a slot goes to."""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0
FB_CLASSES = ("W1", "W2", "red", "K")


def five_ball(frame: int, pts, probs) -> Detections:
    pts = np.asarray(pts, float).reshape(-1, 2)
    n = len(pts)
    d = Detections(frame, frame / FPS, np.zeros_like(pts), pts, np.full(n, 10.0), np.ones(n))
    d.classes = FB_CLASSES
    d.cls_prob = np.asarray(probs, float).reshape(n, len(FB_CLASSES))
    return d


def onehot(c: str) -> list[float]:
    return [1.0 if k == c else 0.0 for k in FB_CLASSES]


def test_a_still_white_re_read_the_wrong_way_many_times_does_not_swap_the_whites():
    """fb-break_s2003: a still white 1 whose (blurred) view reads W2 0.72, re-read every
    time its pixels flicker, must not pile up evidence until the whites swap: looks at
    the same still ball on the same spot are not independent views."""
    tr = BallTracker(PROFILE, "five-ball")
    w1, w2 = np.array([800.0, 600.0]), np.array([2500.0, 1100.0])
    red, red2, k = np.array([1500.0, 300.0]), np.array([600.0, 1300.0]), [3000.0, 900.0]
    v_red = np.array([900.0, 0.0])  # a red rolls on meanwhile: frames are never unchanged
    rng = np.random.default_rng(11)
    out = None
    for f in range(300):
        pts = [w1, w2, red, red2 + v_red * (f % 60) / FPS, k]
        jit = np.array(pts) + rng.normal(0, 0.3, (5, 2))
        if f == 0:
            rows = [onehot("W1"), [0.3, 0.7, 0, 0], onehot("red"), onehot("red"), onehot("K")]
        else:  # fresh numbers every frame (a flicker), each read W2 0.72 for white 1
            p = float(np.clip(0.72 + rng.normal(0, 0.02), 0.6, 0.8))
            rows = [
                [1 - p, p, 0, 0],
                [0.5 + rng.normal(0, 0.02), 0.5, 0, 0],
                onehot("red"),
                onehot("red"),
                onehot("K"),
            ]
        out = tr.update(five_ball(f, jit, rows))
    assert np.allclose(out.positions["W1"], w1, atol=3)
    assert np.allclose(out.positions["W2"], w2, atol=3)


def test_a_rolling_white_read_the_other_way_round_is_still_swapped():
    """Views of a ball in motion are fresh, each one: the whites given the wrong way
    round at the break are swapped once one of them rolls and its dots say so."""
    tr = BallTracker(PROFILE, "five-ball")
    a0, b = np.array([800.0, 600.0]), np.array([2500.0, 1100.0])  # a is W1, b is W2
    red, red2, k = [1500.0, 300.0], [600.0, 1300.0], [3000.0, 900.0]
    v = np.array([600.0, 0.0])
    tr.update(
        five_ball(
            0,
            [a0, b, red, red2, k],
            # a soft misread of both whites at the break
            [[0.4, 0.6, 0, 0], [0.6, 0.4, 0, 0], onehot("red"), onehot("red"), onehot("K")],
        )
    )
    assert np.allclose(tr.tracks["W1"].xy, b)
    rng = np.random.default_rng(2)
    out = None
    for f in range(1, 60):
        a = a0 + v * f / FPS
        p = float(0.8 + rng.normal(0, 0.01))
        q = float(0.5 + rng.normal(0, 0.02))  # the still white 2: undecided looks
        rows = [[p, 1 - p, 0, 0], [q, 1 - q, 0, 0], onehot("red"), onehot("red"), onehot("K")]
        out = tr.update(five_ball(f, [a, b, red, red2, k], rows))
    assert np.linalg.norm(np.array(out.positions["W1"]) - (a0 + v * 59 / FPS)) < 10
    assert np.allclose(out.positions["W2"], b, atol=3)


def test_one_white_read_as_the_other_does_not_swap_both_when_the_other_disagrees():
    """fb-break_s2003 (720p60): a rolling white 1's blurred crops read W2 (0.99+ at
    times) while the other white reads W2 too: a swap renames both balls, so one ball's
    reads alone, however sure, must not do it."""
    tr = BallTracker(PROFILE, "five-ball")
    a0, b = np.array([600.0, 1400.0]), np.array([2400.0, 1500.0])  # a is W1, b is W2
    red, red2, k = [1500.0, 300.0], [600.0, 300.0], [3000.0, 900.0]
    first = [[0.7, 0.3, 0, 0], [0.3, 0.7, 0, 0], onehot("red"), onehot("red"), onehot("K")]
    tr.update(five_ball(0, [a0, b, red, red2, k], first))
    v = np.array([700.0, -200.0])
    rng = np.random.default_rng(7)
    out = None
    for f in range(1, 15):
        a = a0 + v * f / FPS
        p = 0.999 if f % 3 == 0 else 0.3 + rng.normal(0, 0.01)  # 4 sure misreads of 14
        q = 0.7 + rng.normal(0, 0.01)  # fresh views of the still white 2, read right
        rows = [[1 - p, p, 0, 0], [1 - q, q, 0, 0], onehot("red"), onehot("red"), onehot("K")]
        out = tr.update(five_ball(f, [a, b, red, red2, k], rows))
    assert np.linalg.norm(np.array(out.positions["W1"]) - (a0 + v * 14 / FPS)) < 10
    assert np.allclose(out.positions["W2"], b, atol=3)
