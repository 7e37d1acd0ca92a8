"""Tracker: a ball rolling slowly under a hand does not take a blob of that hand.

fp-rally_s7003_720p60 (report set of the seventh session, diagnosed after it was
measured): a player's hand rests on the cloth over two balls while one of them, just
kissed, rolls on under it at 0.16 m/s.  On a frame where the rolling ball had no
detection of its own, the hand over the other (still) ball showed as a weak blob
(score 0.47, no crisp rim) 57 mm off the rolling ball's way.  The still ball may not
take such a blob (a hand moves no ball); the rolling one took it through the wide
gate, whose reach is the fastest ball's while another ball is lost nearby.  The jump
became a speed of 1.9 m/s that nothing gave the ball, its lost reach grew to half a
metre, and it went on to take a fingertip 300 mm away: an identity switch and three
false balls.  In the wide pass a weak blob in a player's arm is the hand's.
"""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 60.0
CLASSES = ("ivory", "Y", "none")
IVORY = np.array([0.98, 0.01, 0.01])

ROLL_FROM = np.array([2640.0, 1050.0])  # the ball kissed at frame 0 ...
ROLL_V = np.array([160.0, 0.0])  # ... rolls on at 0.16 m/s
STILL = np.array([2850.0, 1100.0])  # the ball the hand rests over
OTHER = np.array([1310.0, 1634.0])  # a ball far away
HAND_FROM = 20  # the hand covers STILL's spot from this frame on
BLOB_FRAME = 31  # the rolling ball unseen, the hand's weak blob beside STILL instead


def _rolling_at(f: int) -> np.ndarray:
    return ROLL_FROM + ROLL_V * f / FPS


def _blob() -> np.ndarray:
    u = _rolling_at(BLOB_FRAME) - STILL
    return STILL + 27.0 * u / np.linalg.norm(u)


def _run(blob_score: float) -> tuple[BallTracker, list, str]:
    tr = BallTracker(PROFILE, "free-pyramid")
    frame = {"f": 0}

    def under_hand(xy) -> bool:
        near = float(np.linalg.norm(np.asarray(xy) - STILL)) < 60.0
        return frame["f"] >= HAND_FROM and near

    tr.in_arm = under_hand
    tr.occluded = under_hand
    outs = []
    for f in range(-10, 45):  # frames before 0: all still
        frame["f"] = f
        xy, score = [OTHER], [0.95]
        if f != BLOB_FRAME:
            xy.append(_rolling_at(max(f, 0)))
            score.append(0.95)
        else:
            xy.append(_blob())
            score.append(blob_score)
        if f < HAND_FROM:
            xy.append(STILL)
            score.append(0.95)
        a = np.array(xy, float)
        rows = np.tile(IVORY, (len(a), 1))
        det = Detections(f + 10, (f + 10) / FPS, 0.5 * a, a, np.full(len(a), 9.0),
                         np.array(score), rows, CLASSES)  # fmt: skip
        outs.append(tr.update(det))
    pos = outs[0].positions
    ball = min(pos, key=lambda b: np.linalg.norm(np.subtract(pos[b], ROLL_FROM)))
    return tr, outs, ball


def test_a_ball_rolling_under_a_hand_does_not_take_the_hands_weak_blob():
    tr, outs, ball = _run(blob_score=0.47)
    at_blob = outs[BLOB_FRAME + 10]
    assert ball not in at_blob.visible
    # it keeps to its own way and speed: no jump, no speed nothing gave it
    assert np.linalg.norm(np.subtract(at_blob.positions[ball], _rolling_at(BLOB_FRAME))) < 5.0
    assert tr.tracks[ball].speed < 2 * np.hypot(*ROLL_V)
    # seen again on its way the next frame, and to the end
    for f in range(BLOB_FRAME + 1, 45):
        out = outs[f + 10]
        assert ball in out.visible
        assert np.linalg.norm(np.subtract(out.positions[ball], _rolling_at(f))) < 5.0, f


def test_a_crisp_rim_there_is_still_a_ball_the_rolling_one_may_be():
    # the rule is about a hand's weak blobs: a crisp rim in the arm may be the ball
    # kissed off its way by the one lost beside it
    tr, outs, ball = _run(blob_score=0.9)
    assert ball in outs[BLOB_FRAME + 10].visible
