"""Tracker: an id a provisional first-frame blob held goes, once it is given up, to the
ball that reads as its class.

LukasSeglias video_13 (real footage, a projector drawing rings on the table and the
player's arm): the first frame's red ball read red 0.79 / yellow 0.20, and the player's
red hair gave two blobs reading red 0.77 and 0.80.  One assignment over every row gave
the hair both red ids and the red the yellow's; the hair's blobs moved and were
dropped, and the red stayed "K" -- its pot was the yellow's.
"""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
CLASSES = ("W1", "W2", "red", "K", "none")
WHITE = [0.96, 0.02, 0.01, 0.005, 0.005]
RED = [0.0, 0.0, 0.79, 0.20, 0.01]
HAIR = [0.0, 0.01, 0.80, 0.14, 0.05]
W1_XY, RED_XY = (1575.0, 620.0), (1711.0, 768.0)


def _dets(f: int, pts, rows) -> Detections:
    xy = np.asarray(pts, float).reshape(-1, 2)
    return Detections(
        f, f / FPS, 0.5 * xy, xy, np.full(len(xy), 10.0), np.full(len(xy), 0.9),
        np.asarray(rows, float).reshape(len(xy), len(CLASSES)), CLASSES,
    )  # fmt: skip


def _play(red_rows):
    tr = BallTracker(PROFILE, "five-ball")
    tr.in_arm = lambda xy: False
    hair = [(1261.0, 154.0), (1278.0, 122.0)]
    pts = [W1_XY, RED_XY, *hair]
    rows = [WHITE, red_rows, HAIR, HAIR]
    # the red and the hair are doubtful on the first frame (near the player)
    tr.update(_dets(0, pts, rows), np.array([False, True, True, True]))
    out = None
    rng = np.random.default_rng(0)
    for f in range(1, 40):
        # the head moves away, out of view, at once; the balls lie still (each view,
        # and what the classifier reads of it, a little different)
        jit = rng.normal(0.0, 0.3, (2, 2))
        row = np.clip(np.add(red_rows, rng.normal(0.0, 0.01, len(CLASSES))), 1e-3, None)
        out = tr.update(_dets(f, np.add([W1_XY, RED_XY], jit), [WHITE, row / row.sum()]))
    return tr, out


def test_the_red_takes_a_red_id_the_hair_gave_up():
    tr, out = _play(RED)
    at_red = [
        b for b, p in out.positions.items() if np.hypot(p[0] - RED_XY[0], p[1] - RED_XY[1]) < 5
    ]
    assert len(at_red) == 1 and at_red[0] in ("R1", "R2"), out.positions
    assert tr.tracks["K"].state == "off"


def test_a_yellow_that_reads_yellow_keeps_its_id():
    yellow = [0.0, 0.0, 0.10, 0.89, 0.01]
    tr, out = _play(yellow)
    assert np.hypot(*np.subtract(out.positions["K"], RED_XY)) < 5
