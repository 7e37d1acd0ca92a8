"""Two balls that broke out of one cluster and meet again within ``CLUSTER_QUIET_S``,
after flying apart, collided anew: the quiet time only covers a jam, a pair that never
parted (vision/events.py ``same_cluster_soon``, ``CLUSTER_PARTED_MM``).  Dev
fp-multi/1950 at 30 fps: ball 13 out of the rack, back off the foot cushion into 8
0.28 s after the break, was dropped as "the rack's wave"."""

from __future__ import annotations

import math

import pytest
from events_helpers import sampled_plain

from luza.calibration.profiles import load_profile
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.vision.events import CLUSTER_QUIET_S, extract_events


def _pair_back_off_the_cushion(fps: float):
    """Balls 1 and 2 touching in a line 150 mm off the foot cushion; the coloured ball
    at 3 m/s into 1 sends 2 to the cushion and back into 1 ~0.15 s later."""
    profile = load_profile("pyramid-12ft")
    L, W, R = profile.length_mm, profile.width_mm, profile.ball_radius_mm
    y = 0.4 * W
    two = (L - R - 150.0, y)
    one = (two[0] - 2 * R - 0.2, y)
    cue = (L - 1200.0, y + 3.0)
    tl = Timeline(profile, {"Y": cue, "1": one, "2": two, "3": (1000.0, 300.0)}, seed=3)
    tl.wait(1.0)
    angle = math.atan2(one[1] - cue[1], one[0] - cue[0])
    tl.strike(Strike("Y", 3000.0, angle, 0.0, 0.0, 0.0), at_t=1.0)
    frames, truth = sampled_plain(tl, fps, 3)
    return profile, frames, truth


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_pair_that_flew_apart_and_met_again_collided(fps):
    profile, frames, truth = _pair_back_off_the_cushion(fps)
    pair = [e for e in truth if e.type == "collision" and {e["a"], e["b"]} == {"1", "2"}]
    assert len(pair) == 2  # the wave, then 2 back off the cushion
    wave, back = pair
    assert back.t - wave.t < CLUSTER_QUIET_S  # inside the quiet time
    ev = extract_events(frames, profile, "free-pyramid")
    found = [e.t for e in ev if e.type == "collision" and {e["a"], e["b"]} == {"1", "2"}]
    tol = 2.0 / fps
    assert any(abs(t - back.t) <= tol for t in found), (back.t, found)
    # and the wave's own contact once, not again while the two part
    assert all(min(abs(t - wave.t), abs(t - back.t)) <= tol for t in found), found
