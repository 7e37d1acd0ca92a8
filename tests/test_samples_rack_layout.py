"""The Free Pyramid rack of the rendered scenes: a fraction of a millimetre of play, and
never two balls sunk into each other past what the physics takes (about one rack in
120 was: `luza synth --scene fp-multi --seed 9951` failed with "balls 8 and 13 overlap").
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from luza.calibration.profiles import load_profile
from luza.physics.engine import PLACE_SLACK_MM
from luza.physics.sim import Timeline
from luza.samples.scenes import fp_rack_layout

PROFILE = load_profile("pyramid-12ft")
D = PROFILE.ball_diameter_mm
OVERLAPPING_DRAW = 54  # default_rng(54): its first 0.2 mm jitter puts two balls 66.94 mm apart


def closest_mm(pos: dict) -> float:
    return min(math.dist(a, b) for a, b in itertools.combinations(pos.values(), 2))


def plain_jitter(rng: np.random.Generator) -> dict:
    """The layout as it was drawn before: the jitter once, then the coloured ball."""
    L, W = PROFILE.size_mm
    pos = {
        str(i + 1): (x + float(rng.normal(0, 0.2)), y + float(rng.normal(0, 0.2)))
        for i, (x, y) in enumerate(PROFILE.rack_positions())
    }
    pos["Y"] = (float(rng.uniform(L * 0.08, L * 0.22)), float(rng.uniform(W * 0.3, W * 0.7)))
    return pos


def test_the_jitter_is_drawn_again_where_balls_would_overlap():
    assert closest_mm(plain_jitter(np.random.default_rng(OVERLAPPING_DRAW))) < D - PLACE_SLACK_MM
    pos = fp_rack_layout(PROFILE, np.random.default_rng(OVERLAPPING_DRAW))
    assert closest_mm({b: p for b, p in pos.items() if b != "Y"}) >= D - PLACE_SLACK_MM
    Timeline(PROFILE, pos, seed=0)  # the physics takes it (it raised PhysicsError)


def test_a_rack_that_fitted_is_the_same_as_before():
    """The scenes of every seed that could be played before are unchanged."""
    for seed in range(5):
        pos = fp_rack_layout(PROFILE, np.random.default_rng(seed))
        assert pos == plain_jitter(np.random.default_rng(seed))
