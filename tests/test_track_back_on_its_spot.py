"""Tracker: a ball given up at rest and seen again on its own spot takes its own id back.

fp-rally_s9102_720p60: the player's dark sleeve, the colour of the cloth, lay over ball 9
for 3.7 s.  The spot read as plain cloth, so after ``GONE_CONFIRM_S`` at rest 9 counted as
taken by a hand (``ball_removed``, state 'off').  When the arm left, 9 lay crisp on its
spot; a new ball takes a free id of its class -- and the first free ivory id was 7, potted
a shot earlier.  Ball 9 was reported as 7 for 750 frames (and 7 on the table when it was
in a pocket).  A ball that was removed while still and reappears exactly where it lay is
that ball: its id comes before any other free id of the class.
"""

from __future__ import annotations

import numpy as np
from track_helpers import class_row, detections

from luza.calibration.profiles import load_profile
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
STILL = {"W1": [1000.0, 900.0], "W2": [1170.0, 240.0], "K": [800.0, 1400.0]}
CLASS_OF = {"W1": "W1", "W2": "W2", "K": "K"}
RED_A = np.array([2000.0, 1100.0])  # rolls into the foot-right pocket
RED_B = np.array([2700.0, 500.0])  # covered at rest, then seen again where it lay
SPEED_MM_S = 1500.0


def _frames():
    """One red rolls into the foot-right pocket; the other, at rest, is covered by a
    sleeve that reads as cloth (frames 90-219), given up, and seen again on its spot
    -> (tracker, events, potted id, covered id)."""
    mouth = np.asarray(PROFILE.pockets()["foot-right"].mouth_centre, float)
    u = (mouth - RED_A) / np.linalg.norm(mouth - RED_A)
    tr = BallTracker(PROFILE, "five-ball")
    tr.occluded = lambda xy: False  # the sleeve reads as cloth
    tr.in_arm = lambda xy: False
    events, potted, covered = [], None, None
    for f in range(300):
        t = f / FPS
        pts = [STILL[b] for b in STILL]
        rows = [class_row(CLASS_OF[b]) for b in STILL]
        p = RED_A + SPEED_MM_S * max(0.0, t - 5 / FPS) * u
        if float((mouth - p) @ u) > PROFILE.ball_radius_mm:  # seen until in the mouth
            pts.append(p)
            rows.append(class_row("red"))
        if not 90 <= f < 220:  # under the sleeve from frame 90 to 220
            pts.append(RED_B)
            rows.append(class_row("red"))
        out = tr.update(detections(f, pts, rows, FPS))
        events += out.events
        if f == 0:
            at_a = min(("R1", "R2"), key=lambda b: np.linalg.norm(tr.tracks[b].xy - RED_A))
            at_b = "R2" if at_a == "R1" else "R1"
            potted, covered = at_a, at_b
    return tr, events, potted, covered


def test_the_scene_gives_up_the_covered_ball_and_pots_the_other():
    tr, events, potted, covered = _frames()
    assert [e.data["ball"] for e in events if e.type == "pocket"] == [potted]
    assert [e.data["ball"] for e in events if e.type == "ball_removed"] == [covered]
    # the potted id is the class's first free one: the scene tests which id is taken
    assert list(tr.tracks).index(potted) < list(tr.tracks).index(covered)


def test_a_ball_seen_again_on_its_own_spot_takes_its_own_id_back():
    tr, events, potted, covered = _frames()
    placed = [e.data["ball"] for e in events if e.type == "ball_placed"]
    assert placed == [covered]
    assert tr.tracks[covered].state == "table"
    assert np.linalg.norm(tr.tracks[covered].xy - RED_B) < 1.0
    assert tr.tracks[potted].state == "pocketed"
