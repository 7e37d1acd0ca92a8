"""Two rolling balls colliding with a frame taken at the touch (vision/events.py,
``_gap_vertex`` with ``skip_closest`` in ``_pair_reversals``): the pair's gap falls
and rises around its smallest sample, which sits on the corner; with it on either
line the two lines met a hair outside that split's gap (dev fp-rally/1596 at 60 fps:
3 at 290 mm/s into 7 at 230 mm/s, the sample 0.1 ms before the touch; by 0.1 ms),
and the contact, bending both paths too little for a break, was missed."""

from __future__ import annotations

import numpy as np
import pytest

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _crossing(fps: float, seed: int, phase: float):
    """7 rolls off at t = 0.3 s at 230 mm/s, 3 at t = 0.5 s at 287 mm/s square to it;
    they touch at frame 60 + ``phase`` (in frames) at (230, 810), 3 full on (the line
    of centres from 3 to 7 at 137 degrees, along its way): 3 stops dead there (its move
    ends at rest, no break to look at) and 7 goes off with its speed added."""
    rng = np.random.default_rng(seed)
    t_c = (60 + phase) / fps
    n = np.array([-0.734, 0.681])
    n /= np.linalg.norm(n)
    mid = np.array([230.0, 810.0])
    c3, c7 = mid - R * n, mid + R * n
    v3, v7 = 287.0 * n, 230.0 * np.array([n[1], -n[0]])
    dv = float((v3 - v7) @ n) * n
    v3b, v7b = v3 - dv, v7 + dv
    a3, a7 = c3 - v3 * (t_c - 0.5), c7 - v7 * (t_c - 0.3)

    def at(a, c, v, vb, t0, t):
        if t < t0:
            return a
        return a + v * (t - t0) if t < t_c else c + vb * (t - t_c)

    frames = []
    for k in range(int((t_c + 1.0) * fps)):
        t = k / fps
        p = {"3": at(a3, c3, v3, v3b, 0.5, t), "7": at(a7, c7, v7, v7b, 0.3, t)}
        p = {b: x + rng.normal(0, 1.2, 2) for b, x in p.items()}
        frames.append(FrameObs(k, t, {b: tuple(x) for b, x in p.items()}))
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
