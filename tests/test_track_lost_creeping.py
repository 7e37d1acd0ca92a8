"""A ball lost while rolling slowly is not found again as a fast ball's smear far off
while other balls roll, none of which can have reached it: nothing sped it up (no
stroke is played while balls roll).  fp-rally_s10329_720p30 frame 454: ball 1, still
but read 26 mm/s as an arm covered part of it, was lost "rolling" and took a streak
1.8 m away while ball 11 rolled far off."""

from __future__ import annotations

import numpy as np
import pytest
from track_helpers import ivory_and_streak

from luza.calibration.profiles import load_profile
from luza.vision.track import REST_SPEED_MM_S, BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
CREEPER = np.array([1900.0, 300.0])
OTHER = np.array([3000.0, 1200.0])
STREAK = np.array([3450.0, 300.0])  # 1.5 m on along the creeper's way


def _lost_creeping(other_rolls: bool):
    tr = BallTracker(PROFILE, "free-pyramid")
    tr.occluded = lambda xy: True  # an arm over the creeper's spot
    f = 0
    for _ in range(5):
        tr.update(ivory_and_streak(f, [CREEPER, OTHER], FPS))
        f += 1
    ball = next(k for k, t in tr.tracks.items() if np.allclose(t.xy, CREEPER, atol=1))
    other_xy = OTHER.copy()
    a = CREEPER.copy()
    for _ in range(8):  # it creeps at 60 mm/s; the other ball rolls at 600 mm/s, or lies still
        a = a + [2.0, 0.0]
        if other_rolls:
            other_xy = other_xy + [-20.0, 0.0]
        tr.update(ivory_and_streak(f, [a, other_xy], FPS))
        f += 1
    for _ in range(4):  # then the arm covers it
        if other_rolls:
            other_xy = other_xy + [-20.0, 0.0]
        tr.update(ivory_and_streak(f, [other_xy], FPS))
        f += 1
    t = tr.tracks[ball]
    assert t.state == "hidden" and t.lost_moving and t.lost_speed > REST_SPEED_MM_S
    if other_rolls:
        other_xy = other_xy + [-20.0, 0.0]
    out = tr.update(ivory_and_streak(f, [other_xy, STREAK], FPS, half_mm=40.0))
    return ball, out


@pytest.mark.parametrize("other_rolls, taken", [(True, False), (False, True)])
def test_a_ball_lost_creeping_takes_a_far_smear_only_if_a_stroke_may_be_played(other_rolls, taken):
    ball, out = _lost_creeping(other_rolls)
    at_streak = ball in out.visible and np.allclose(out.positions[ball], STREAK, atol=1)
    assert at_streak is taken
