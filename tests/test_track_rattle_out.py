"""Tracker: a ball that rattles out of a pocket is not pocketed, whatever it reads as.

The james-ecd break (a real pool table, followed as Free Pyramid): a red pool ball the
tracker had as an ivory id ran into the middle pocket's jaws and went from view (a pot
candidate: pocketed), then came back out and lay still 90 mm from the pocket.  Seen
again it read as the coloured ball, whose one id another red held, and a new ball takes
only a free id of its own class: the ball stayed unaccounted for to the end.  A ball
found still beside the pocket a ball went into during the same shot is that ball; it
takes the pocketed id back unless it reads as "none" (a hand).
"""

from __future__ import annotations

import numpy as np
from track_helpers import CLASSES, class_row, detections

from luza.calibration.profiles import load_profile
from luza.vision.track import RATTLE_OUT_RADII, BallTracker

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0
STILL = {"W2": [1170.0, 240.0], "K": [800.0, 1400.0], "R2": [600.0, 500.0]}
CLASS_OF = {"W1": "W1", "W2": "W2", "K": "K", "R2": "red", "R1": "red"}
START = np.array([2700.0, 1100.0])
SPEED_MM_S = 1500.0
W1_START = np.array([1000.0, 900.0])
W1_V = np.array([-150.0, 0.0])  # rolling slowly the whole time: the shot goes on


def _misread_k(p_none: float) -> list[float]:
    """A red that reads as the kaisa (0.7 of what is not "none") -- a misreading."""
    p = np.zeros(len(CLASSES))
    p[CLASSES.index("none")] = p_none
    p[CLASSES.index("K")] = 0.7 * (1 - p_none)
    p[CLASSES.index("red")] = 0.3 * (1 - p_none)
    return list(p)


def _rattle_out(p_none: float, back_mm: float):
    """R1 rolls into the foot-right pocket's mouth and goes from view for 0.5 s, then
    lies still ``back_mm`` in front of the mouth reading as K; -> events, tracker, R1's
    id."""
    pocket = PROFILE.pockets()["foot-right"]
    mouth = np.asarray(pocket.mouth_centre, float)
    u = (mouth - START) / np.linalg.norm(mouth - START)
    back = mouth - back_mm * u
    tr = BallTracker(PROFILE, "five-ball")
    tr.occluded = lambda xy: False
    tr.in_arm = lambda xy: False
    events = []
    red = None
    for f in range(90):
        t = f / FPS
        names = list(STILL)
        pts = [STILL[b] for b in names]
        rows = [class_row(CLASS_OF[b]) for b in names]
        pts.append(W1_START + W1_V * t)
        rows.append(class_row("W1"))
        if f < 5:
            pts.append(START)
            rows.append(class_row("red"))
        else:
            p = START + SPEED_MM_S * (t - 5 / FPS) * u
            if float((mouth - p) @ u) > R:  # seen until it is in the mouth
                pts.append(p)
                rows.append(class_row("red"))
            elif f >= 45:  # back out of the jaws, still
                pts.append(back)
                rows.append(_misread_k(p_none))
        out = tr.update(detections(f, pts, rows, FPS))
        if f == 0:
            red = min(("R1", "R2"), key=lambda b: np.linalg.norm(tr.tracks[b].xy - START))
        events += out.events
    return events, tr, red


def test_a_ball_back_out_of_the_pocket_it_went_into_takes_its_id_back():
    events, tr, red = _rattle_out(p_none=0.1, back_mm=3 * R)
    assert [e.data["ball"] for e in events if e.type == "pocket"] == [red]
    placed = [e for e in events if e.type == "ball_placed"]
    assert [e.data["ball"] for e in placed] == [red]
    assert tr.tracks[red].state == "table"
    assert tr.tracks["K"].state == "table"  # the kaisa kept its own id and place
    assert np.linalg.norm(tr.tracks["K"].xy - STILL["K"]) < 1.0


def test_a_hand_like_blob_at_the_pocket_takes_no_id():
    events, tr, red = _rattle_out(p_none=0.6, back_mm=3 * R)
    assert not [e for e in events if e.type == "ball_placed"]
    assert tr.tracks[red].state == "pocketed"


def test_far_from_the_pocket_it_is_no_rattle_out():
    events, tr, red = _rattle_out(p_none=0.1, back_mm=RATTLE_OUT_RADII * R + 4 * R)
    assert not [e for e in events if e.type == "ball_placed"]
    assert tr.tracks[red].state == "pocketed"
