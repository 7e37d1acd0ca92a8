"""Five Ball: each player strikes his own cue ball, a white (FB-2.2, FB-3.1), so a red
or the kaisa at rest moves only when a ball reaches it.  fb-ball-in-hand_s10306_1080p30
frame 20: the kaisa lay under the player's sleeve, the colour of the cloth, its spot
reading bare ("moved unseen") while nothing rolled, and it took the white being put
down from the hand 558 mm away."""

from __future__ import annotations

import numpy as np
import pytest
from track_helpers import class_row, detections

from luza.calibration.profiles import load_profile
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
SPOTS = {
    "W2": [1709.0, 880.0],
    "R1": [121.0, 1561.0],
    "R2": [1247.0, 1496.0],
    "K": [60.0, 910.0],
    "W1": [900.0, 400.0],
}
PUT_DOWN = [616.0, 952.0]  # 558 mm from the kaisa's spot, 570 from white 1's


def _frame(f: int, balls: dict, extra=None):
    pts = [SPOTS[b] for b in balls] + ([extra[0]] if extra else [])
    rows = [class_row("red" if b in ("R1", "R2") else b) for b in balls] + (
        [class_row(extra[1])] if extra else []
    )
    return detections(f, pts, rows, FPS)


@pytest.mark.parametrize("ball, moves", [("K", False), ("R1", False), ("W1", True)])
def test_a_still_ball_hidden_with_its_spot_bare_moves_unseen_only_if_a_stroke_can_move_it(
    ball, moves
):
    tr = BallTracker(PROFILE, "five-ball")
    tr.occluded = lambda xy: False  # the sleeve reads as cloth: the spot looks bare
    tr.bare = lambda xy: True
    tr.spot_changed = lambda xy: True
    tr.spot_changed_lately = lambda xy: True
    everything = list(SPOTS)
    for f in range(5):
        tr.update(_frame(f, everything))
    assert np.allclose(tr.tracks[ball].xy, SPOTS[ball], atol=1)
    others = [b for b in everything if b != ball]
    f = 5
    for _ in range(10):  # hidden a third of a second; nothing rolls
        tr.update(_frame(f, others))
        f += 1
    assert tr.tracks[ball].state == "hidden"
    out = tr.update(_frame(f, others, extra=(PUT_DOWN, "red" if ball.startswith("R") else ball)))
    if moves:
        assert ball in out.visible and np.allclose(out.positions[ball], PUT_DOWN, atol=1)
    else:
        assert ball not in out.visible and np.allclose(tr.tracks[ball].xy, SPOTS[ball], atol=1)
