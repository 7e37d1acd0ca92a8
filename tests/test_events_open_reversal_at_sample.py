"""Two rolling balls colliding with a frame taken at the touch (vision/events.py,
``gap_series.gap_vertex`` with ``skip_closest`` in ``_pair_reversals``): the pair's
gap falls and rises around its smallest sample, which sits on the corner; with it on
either line the two lines met a hair outside that split's gap (dev fp-rally/1596 at 60 fps:
3 at 290 mm/s into 7 at 230 mm/s, the sample 0.1 ms before the touch; by 0.1 ms),
and the contact, bending both paths too little for a break, was missed."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import bent_at_contact

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _crossing(fps: float, seed: int, phase: float):
    """7 rolls off at t = 0.3 s at 230 mm/s, 3 at t = 0.5 s at 287 mm/s square to it;
    they touch at frame 60 + ``phase`` (in frames) at (230, 810), 3 full on (the line
    of centres from 3 to 7 at 137 degrees, along its way): 3 stops dead there (its move
    ends at rest, no break to look at) and 7 goes off with its speed added."""
    t_c = (60 + phase) / fps
    n = np.array([-0.734, 0.681])
    n /= np.linalg.norm(n)
    mid = np.array([230.0, 810.0])
    c3, c7 = mid - R * n, mid + R * n
    v3, v7 = 287.0 * n, 230.0 * np.array([n[1], -n[0]])
    dv = float((v3 - v7) @ n) * n
    paths = {"3": (0.5, c3, v3, v3 - dv), "7": (0.3, c7, v7, v7 + dv)}
    frames = bent_at_contact(paths, t_c, fps, seed, 1.0)
    return frames, t_c


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("phase", [-0.02, 0.0, 0.02])
@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_touch_sampled_at_its_vertex_is_found(fps, phase, seed):
    frames, t_c = _crossing(fps, seed, phase)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    cols = [e for e in ev if e.type == "collision"]
    assert [frozenset((e["a"], e["b"])) for e in cols] == [frozenset(("3", "7"))]
    assert abs(cols[0].t - t_c) <= 2.0 / fps
