"""A still ball hidden under something the colour of the cloth (a sleeve) reads as gone
once its spot looks bare -- but it left only if its spot's pixels changed lately: a
streak-shaped fist on the cue, far off on a line through its spot, is not that ball
struck (fp-pots_s10207_720p60, frame 215)."""

from __future__ import annotations

import numpy as np
from track_helpers import ivory_and_streak

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0
SPOT = np.array([3050.0, 475.0])  # the ball that goes under the sleeve
OTHER = np.array([2000.0, 1200.0])
FIST = SPOT + [-168.0, 16.0]  # a streak-like blob on a line through the spot


def dets(frame: int, pts, half_mm: float | None = None) -> Detections:
    """Round balls at ``pts``; the last one a streak of that half length along x."""
    return ivory_and_streak(frame, pts, FPS, half_mm)


def hidden_a_second(tr: BallTracker) -> tuple[str, int]:
    """The ball at SPOT and one other seen for five frames, then SPOT's out of view for
    sixty (a second): its id and the next frame's index."""
    for f in range(5):
        tr.update(dets(f, [SPOT, OTHER]))
    ball = next(k for k, t in tr.tracks.items() if np.allclose(t.xy, SPOT, atol=1))
    f = 5
    for _ in range(60):
        tr.update(dets(f, [OTHER]))
        f += 1
    assert tr.tracks[ball].state == "hidden"
    return ball, f


def fist_after_a_long_hide(changed_lately: bool):
    """Two still balls; one goes out of view for a second under a sleeve the cloth's
    colour; then its spot reads bare (unchanged but for a shade), and a streak-shaped
    blob lies on a line through its spot.  ``changed_lately``: what the pipeline says of the spot's
    pixels in the last few frames."""
    tr = BallTracker(PROFILE, "free-pyramid")
    bare = [False]  # the sleeve reads as something over it ...
    tr.occluded = lambda xy: not bare[0]
    tr.bare = lambda xy: bare[0]
    tr.spot_changed = lambda xy: False
    tr.spot_changed_lately = lambda xy: changed_lately
    ball, f = hidden_a_second(tr)
    bare[0] = True  # ... until the arm shifts a little and it reads as cloth
    out = tr.update(dets(f, [OTHER, FIST], half_mm=-42.0))
    return tr, ball, out


def test_a_ball_whose_spot_did_not_change_is_not_taken_by_a_far_streak():
    tr, ball, out = fist_after_a_long_hide(changed_lately=False)
    assert ball not in out.visible
    assert np.allclose(tr.tracks[ball].xy, SPOT, atol=1)


def test_a_ball_whose_spot_changed_lately_continues_into_the_streak():
    tr, ball, out = fist_after_a_long_hide(changed_lately=True)
    assert ball in out.visible
    assert np.allclose(out.positions[ball], FIST, atol=1)


def fist_over_the_spot(cue_ahead):
    """fp-pots_s10207_720p60 frame 222: the ball long under the sleeve; the fist on the
    cue passes over its spot (its pixels change) and reads as a streak starting there.
    ``cue_ahead(end, u)``: what the pipeline sees past the streak's far end."""
    tr = BallTracker(PROFILE, "free-pyramid")
    tr.occluded = lambda xy: True
    tr.bare = lambda xy: False
    tr.spot_changed = lambda xy: True
    tr.spot_changed_lately = lambda xy: True
    tr.cue_ahead = cue_ahead
    ball, f = hidden_a_second(tr)
    fist = SPOT + [-64.0, 13.0]  # its near end at the spot
    out = tr.update(dets(f, [OTHER, fist], half_mm=40.0))
    return tr, ball, out, fist


def test_a_streak_with_a_cue_running_on_past_its_far_end_is_not_the_ball_struck():
    asked = []

    def cue_ahead(end, u):
        asked.append((np.array(end), np.array(u)))
        return True

    tr, ball, out, fist = fist_over_the_spot(cue_ahead)
    assert ball not in out.visible
    assert np.allclose(tr.tracks[ball].xy, SPOT, atol=1)
    # it looked past the end away from the spot, in the direction away from it
    end, u = asked[0]
    assert np.allclose(end, fist + [-40.0, 0.0], atol=1)
    assert u @ (fist - SPOT) > 0


def test_a_streak_with_bare_cloth_past_its_far_end_is_the_ball_struck():
    tr, ball, out, fist = fist_over_the_spot(lambda end, u: False)
    assert ball in out.visible
    assert np.allclose(out.positions[ball], fist, atol=1)
