"""Tracker: a ball lost from view whose prediction bounces off a pocket's jaws is a
pot candidate.

A development clip of this round (fb-rally, seed 5103, 720p30, red cloth): a red
kissed towards the foot-right corner went unseen (red on red) 0.3 s before it
dropped; rolled on in the prediction, it met the foot cushion 43 mm from the mouth's
centre -- just outside it -- and bounced back onto the bed, where it froze: no pot,
a ball kept hidden in the middle of the table (later 'off_table', a foul where a
pot was).  At a pocket's mouth a few degrees of heading decide jaw or hole, so a
ball unseen that the prediction bounces there is a pot candidate.  Bounced off a
cushion away from the pockets, it is not.
"""

from __future__ import annotations

import numpy as np
from track_helpers import class_row, detections

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import POCKET_NEAR_RADII, BallTracker, MotionModel

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0
OTHERS = {"W1": [1200.0, 860.0], "W2": [1170.0, 240.0], "K": [800.0, 1400.0], "R2": [600.0, 500.0]}
CLASS_OF = {"W1": "W1", "W2": "W2", "K": "K", "R2": "red", "R1": "red"}
START = np.array([2700.0, 1100.0])
SPEED_MM_S = 2500.0
SEEN_TO_MM = 300.0  # seen rolling until this far from the cushion, then lost from view


def _dets(f: int, pts, rows) -> Detections:
    return detections(f, pts, rows, FPS)


def _roll_unseen_into(hit_y_mm: float):
    """A red at rest, struck towards the foot cushion at ``hit_y_mm``, seen rolling
    until ``SEEN_TO_MM`` before the cushion, then never again; -> the events and
    the red's track."""
    motion = MotionModel(PROFILE)
    aim = np.array([PROFILE.length_mm - R, hit_y_mm])
    u = (aim - START) / np.linalg.norm(aim - START)
    tr = BallTracker(PROFILE, "five-ball")
    tr.occluded = lambda xy: False
    tr.in_arm = lambda xy: False
    events = []
    p, v = START.copy(), np.zeros(2)
    red = None
    lost = False
    for f in range(60):
        if f == 5:
            v = SPEED_MM_S * u  # struck
        elif f > 5:
            p, v = motion.predict(p, v, 1 / FPS)
        names = list(OTHERS)
        pts = [OTHERS[b] for b in names]
        rows = [class_row(CLASS_OF[b]) for b in names]
        lost = lost or (f > 5 and (PROFILE.length_mm - R - p[0]) / u[0] <= SEEN_TO_MM)
        if not lost:
            pts.append(p)
            rows.append(class_row("red"))
        out = tr.update(_dets(f, pts, rows))
        if f == 0:
            red = min(("R1", "R2"), key=lambda b: np.linalg.norm(tr.tracks[b].xy - START))
        events += out.events
    return events, tr.tracks[red]


def test_a_ball_unseen_bouncing_off_a_pockets_jaws_in_the_prediction_is_pocketed():
    mouth = PROFILE.pockets()["foot-right"].mouth_centre
    # the cushion met 60 mm from the mouth's centre: outside it (no hole), near it
    hit_y = mouth[1] - 60.0
    assert POCKET_NEAR_RADII * R > 60.0
    events, red = _roll_unseen_into(hit_y)
    pots = [e for e in events if e.type == "pocket" and e.data.get("ball") == red.ball]
    assert [e.data["pocket"] for e in pots] == ["foot-right"]
    assert red.state == "pocketed"


def test_a_ball_unseen_bouncing_off_a_cushion_away_from_pockets_is_not():
    events, red = _roll_unseen_into(PROFILE.width_mm / 2 + 100.0)
    assert not [e for e in events if e.type == "pocket"]
    assert red.state in ("hidden", "off")  # kept where the prediction left it, or gone
