"""A ball crawling into a ball at rest and stopping against it (vision/events.py,
``_pushed_at_end``): the struck ball sets off at ~60 mm/s and is seen leaving its
rest only when it is 5 mm away, 80-120 ms after the striker came to rest -- after
the stroke seemed over.  It set off from where a ball of that stroke came to rest
against it, slowly: still that stroke, not a new one (dev fp-pots/1340 at 60 fps: the
7 crawling into the 6 at rest split the stroke in two)."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import rolled

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm


def _crawl(fps: float, seed: int, push_mm_s: float):
    """7 struck at t = 1 s at 230 mm/s (slowing at 150 mm/s^2) towards 6, touching it
    as it stops (t = 1 + 230/150 s); 6 leaves at ``push_mm_s`` along the line of
    centres, slowing at 150 mm/s^2.  Positions jittered like the tracker's."""
    rng = np.random.default_rng(seed)
    t0, v0, accel = 1.0, 230.0, 150.0
    u = np.array([-0.70, -0.714])
    u = u / np.linalg.norm(u)
    a0 = np.array([3388.0, 358.0])
    t_hit = t0 + v0 / accel
    a_hit = rolled(a0, v0 * u, t_hit - t0, accel)
    b0 = a_hit + 2 * R * u
    frames = []
    for k in range(int((t_hit + 2.0) * fps)):
        t = k / fps
        a = a0 if t <= t0 else rolled(a0, v0 * u, t - t0, accel)
        b = b0 if t <= t_hit else rolled(b0, push_mm_s * u, t - t_hit, accel)
        sa = 0.7 if t <= t0 or t > t_hit else 1.0
        sb = 0.7 if t <= t_hit or t > t_hit + push_mm_s / accel else 1.0
        a = a + rng.normal(0, sa, 2)
        b = b + rng.normal(0, sb, 2)
        frames.append(FrameObs(k, t, {"7": tuple(a), "6": tuple(b)}, frozenset()))
    return frames, t_hit


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("fps", [30.0, 60.0])
@pytest.mark.parametrize("push_mm_s", [70.0, 90.0])
def test_a_ball_crawling_into_another_is_one_stroke(fps, seed, push_mm_s):
    frames, t_hit = _crawl(fps, seed, push_mm_s)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [e["cue_ball"] for e in ev if e.type == "shot_start"] == ["7"]
    cols = [e for e in ev if e.type == "collision"]
    assert [(e["a"], e["b"]) for e in cols] == [("7", "6")]
    # (a crawl's touch is not timed to a frame: the last 0.3 mm take 60 ms)
    assert abs(cols[0].t - t_hit) <= 0.1
