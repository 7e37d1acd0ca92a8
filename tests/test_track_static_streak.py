"""A streak that lies still is something on the cloth (a cue, a rest's head): no ball
struck unseen continues into it (fp-rally_s9729_720p30, ball 3 under the player)."""

from __future__ import annotations

import numpy as np
from track_helpers import ivory_and_streak

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import STATIC_STREAK_S, BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
SPOT = np.array([700.0, 800.0])  # the ball that goes under the player's body
OTHER = np.array([2000.0, 400.0])
SHAFT = SPOT + [1000.0, 0.0]  # a streak-like thing on the line through its spot


def dets(frame: int, pts, half_mm: float | None = None) -> Detections:
    """Round balls at ``pts``; the last one a streak of that half length along x."""
    return ivory_and_streak(frame, pts, FPS, half_mm)


def hidden_ball_and_a_shaft(shaft_frames: int) -> tuple[BallTracker, str, int]:
    """A table of two still balls; one goes out of view (a body over it) while a
    streak lies ``SHAFT`` for ``shaft_frames`` frames, too short to start at its spot."""
    tr = BallTracker(PROFILE, "free-pyramid")
    for f in range(5):
        tr.update(dets(f, [SPOT, OTHER]))
    ball = next(k for k, t in tr.tracks.items() if np.allclose(t.xy, SPOT, atol=1))
    f = 5
    for _ in range(20):  # hidden long enough to stay put but for a struck streak
        tr.update(dets(f, [OTHER]))
        f += 1
    for _ in range(shaft_frames):
        tr.update(dets(f, [OTHER, SHAFT], half_mm=30.0))
        f += 1
    assert tr.tracks[ball].state == "hidden"
    assert np.allclose(tr.tracks[ball].xy, SPOT, atol=1)
    return tr, ball, f


def test_a_streak_lying_still_does_not_take_a_ball_hidden_on_its_line():
    tr, ball, f = hidden_ball_and_a_shaft(shaft_frames=3)
    # now read a little longer: its far end reaches back far enough to start at the spot
    out = tr.update(dets(f, [OTHER, SHAFT + [10.0, 0.0]], half_mm=45.0))
    assert ball not in out.positions or np.allclose(out.positions[ball], SPOT, atol=1)
    assert tr.tracks[ball].state == "hidden"


def test_a_streak_where_one_lay_long_ago_is_a_struck_ball():
    tr, ball, f = hidden_ball_and_a_shaft(shaft_frames=3)
    for _ in range(int(np.ceil(STATIC_STREAK_S * FPS)) + 1):
        tr.update(dets(f, [OTHER]))  # the thing on the cloth is gone
        f += 1
    out = tr.update(dets(f, [OTHER, SHAFT + [10.0, 0.0]], half_mm=45.0))
    assert np.allclose(out.positions[ball], SHAFT + [10.0, 0.0], atol=1)
