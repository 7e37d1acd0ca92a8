"""Tracker: a ball struck into a pocket's jaws that comes straight back keeps its id.

fp-rally_s10629_720p30 (the twenty-fourth round's report set, diagnosed after it was
measured): the cue ball, at 3 m/s, struck ball 12 lying by the foot corner's mouth;
12 ran on into the mouth at 1.3 m/s, hit the jaw and came straight back.  The motion
model has no jaws: it carried 12 on into the mouth, 74 mm past its view, beyond its
gate, and the cue ball -- 43 mm from 12's view, 47 from its own -- took 12's for a
frame.  The views below are the tracker's own detections of those frames.
"""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
CLASSES = ("ivory", "Y", "none")
IVORY = [1.0, 0.0, 0.0]
# the striker: at rest, then rolling at ~3 m/s to the foot-left corner; it hits 12 at
# frame 13 and is sent back by 12's return at frame 14
CUE = [(2684.0, 392.0)] * 6 + [
    (2746, 367), (2842, 324), (2944, 279), (3043, 234), (3153, 184), (3251, 142),
    (3359, 94), (3405, 70), (3388, 71), (3330, 82), (3271, 93),
]  # fmt: skip
# ball 12 at rest by the mouth (the foot-left mouth's centre is at 3524, 26), struck
# into it at frame 13, thrown back out by the jaw at frame 14
STRUCK = [(3465.0, 43.0)] * 13 + [(3509, 45), (3478, 51), (3480, 48), (3483, 46)]
THIRD = (900.0, 900.0)  # another ball, far off


def _dist(p, q) -> float:
    return float(np.hypot(*np.subtract(p, q)))


def test_a_ball_thrown_back_by_the_jaws_keeps_its_id_and_the_striker_its_own():
    tr = BallTracker(PROFILE, "free-pyramid")
    ids = {}
    for f, (a, b) in enumerate(zip(CUE, STRUCK, strict=True)):
        xy = np.array([a, b, THIRD], float)
        rows = np.array([IVORY] * 3)
        out = tr.update(
            Detections(f, f / FPS, 0.5 * xy, xy, np.full(3, 10.0), np.ones(3), rows, CLASSES)
        )
        if f == 0:
            for name, p in (("cue", a), ("struck", b)):
                ids[name] = min(out.positions, key=lambda k: _dist(out.positions[k], p))
            assert ids["cue"] != ids["struck"]
        for name, p in (("cue", a), ("struck", b)):
            k = ids[name]
            assert k in out.visible, (f, name)
            assert _dist(out.positions[k], p) < 5.0, (f, name, out.positions[k])
