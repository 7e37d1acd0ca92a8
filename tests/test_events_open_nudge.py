"""A ball at rest grazed by a ball rolling past it (vision/events.py,
``_rest_nudges``): the struck ball moves 2-4 mm -- under ``START_MM``, so it never
leaves its rest -- and the striker's path bends by a degree or two, too little for a
break or a pair reversal to show.  The struck ball's rest moved, away from the
passer along their line of centres, while the passer's fitted path touched it:
that is the contact (fp-in-off/1301: the yellow's first contact, a 7 moved 2.3 mm).
A ball passing as close without touching leaves the other's rest where it was."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import sampled_plain

from luza.calibration.profiles import load_profile
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _graze(fps: float, seed: int, overlap_mm: float):
    """The yellow struck at t = 1 s at 1.4 m/s along +x past ball 7, its path
    ``overlap_mm`` inside touching (negative: clear of it); (frames, truth)."""
    y0 = np.array([1800.0, 600.0])
    b7 = np.array([2600.0, 600.0 + 2 * R - overlap_mm])
    tl = Timeline(PROFILE, {"Y": tuple(y0), "7": tuple(b7)}, seed=seed)
    tl.wait(1.0)
    tl.strike(Strike("Y", 1400.0, 0.0, 0.0, 0.0, 0.0), at_t=1.0)
    return sampled_plain(tl, fps, seed)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fps", [30.0, 60.0])
@pytest.mark.parametrize("overlap_mm", [0.05, 0.06])
def test_a_ball_at_rest_grazed_and_moved_a_few_mm_was_hit(fps, seed, overlap_mm):
    frames, truth = _graze(fps, seed, overlap_mm)
    hits = [e for e in truth if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in hits] == [("Y", "7")]
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [e["cue_ball"] for e in ev if e.type == "shot_start"] == ["Y"]
    cols = [e for e in ev if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in cols] == [("Y", "7")]
    assert abs(cols[0].t - hits[0].t) <= 1.0 / fps


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_ball_rolling_past_a_ball_at_rest_without_touching_hits_nothing(fps, seed):
    frames, truth = _graze(fps, seed, -1.5)
    assert [e for e in truth if e.type == "collision"] == []
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [e for e in ev if e.type == "collision"] == []
