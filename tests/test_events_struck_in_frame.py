"""A ball struck within the frame gap by a ball struck itself in that gap
(vision/events.py ``EventExtractor._striker``).  Held-out fp-rally/2361 at 30 fps: 12
ran into 13 at rest, and 13 ran on 8 mm into 9 22 ms later.  13's samples jump from its
rest straight into 9's anchor, so its closest sample "before" is any of its rest's, 8 mm
off; ball 5, moved earlier in the shot and lying 7 mm from 9, was closer, and 9 was put
down to 5 (a contact 0.2 s early with a ball at rest) and 13-9 missed.  A ball whose
way ran into the anchor struck it before one that only lay near it."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import rolled, sampled_path

from luza.calibration.profiles import load_profile
from luza.vision.events import EventExtractor

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
U = np.array([-1.0, 0.0])  # 9 leaves this way; 12 and 13 come along it
N9 = np.array([1500.0, 900.0])
M13 = N9 - (2 * R + 8.5) * U  # 8.5 mm off 9
C12 = M13 - 2 * R * U  # where 12 meets 13
P5 = N9 + np.array([0.0, 2 * R + 7.0])  # 7 mm off 9, beside its way
V12_MM_S = 600.0
T_STRIKE = 1.0  # 12 struck
T_12_13 = 1.9  # 12 meets 13
T_13_9 = T_12_13 + 8.5 / V12_MM_S  # 13 meets 9
S12 = C12 - V12_MM_S * (T_12_13 - T_STRIKE) * U  # where 12 lies before its stroke


def _where(t: float) -> dict[str, np.ndarray]:
    """12 struck at 1 s, full into 13 (stops dead); 13 on at 12's speed 8.5 mm into 9,
    then on at 150 mm/s; 9 off at 450 mm/s; both slowing at 300 mm/s^2; 5 at rest."""
    p = {"5": P5}
    p["12"] = S12 if t < T_STRIKE else S12 + V12_MM_S * (min(t, T_12_13) - T_STRIKE) * U
    if t < T_12_13:
        p["13"] = M13
    elif t < T_13_9:
        p["13"] = M13 + V12_MM_S * (t - T_12_13) * U
    else:
        p["13"] = rolled(M13 + 8.5 * U, 150.0 * U, t - T_13_9, 300.0)
    p["9"] = N9 if t < T_13_9 else rolled(N9, 450.0 * U, t - T_13_9, 300.0)
    return p


@pytest.mark.parametrize("fps", [30.0, 60.0])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("phase", [0.2, 0.7])
def test_the_ball_that_ran_in_within_the_frame_struck_it(fps, seed, phase):
    ex = EventExtractor(PROFILE, "free-pyramid")
    ev = ex.extract(sampled_path(_where, fps, seed, phase, 4.0))
    mv9 = next(m for m in ex.data["9"].moves)
    mv13 = next(m for m in ex.data["13"].moves)
    # 5 moved earlier in the shot (in fp-rally/2361 it had): a striker candidate
    moving_since = {"12": T_STRIKE, "5": 0.5, "13": mv13.t_start}
    hit = ex._striker(mv9, moving_since)
    assert hit is not None and hit[1] == "13"
    assert abs(hit[0] - T_13_9) <= 1.0 / fps
    cols = {frozenset((e["a"], e["b"])): e.t for e in ev if e.type == "collision"}
    assert set(cols) == {frozenset(("12", "13")), frozenset(("13", "9"))}
    assert abs(cols[frozenset(("13", "9"))] - T_13_9) <= 2.0 / fps
