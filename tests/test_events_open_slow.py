"""A slow hit on a ball at rest found once, on time (vision/events.py): the struck
ball creeps off at ~50 mm/s, so the pair's gap rises slowly after the touch
(``PAIR_FIT_MIN_RISE_MM_S``: the retiming fit took only gaps rising at 25 mm/s and
left the hit where the struck ball's first moving sample put it, 3-7 frames late);
and a touch found again a few frames later by another rule, the balls never parted
in between, is the same touch (``_unparted_repeats``)."""

from __future__ import annotations

import pytest
from test_events_open_retime import _glancing_hit

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_a_slow_hit_is_found_once_and_on_time(fps):
    # ball 9 at 90 mm/s meets ball 13 at rest, the line of centres 53 degrees off its
    # way; before: at 30 fps 7 of 8 on time with 6 more found 3-4 frames late, at 60
    # fps 4 of 8 on time with 4 late ones
    on_time = late = 0
    for seed in range(8):
        frames, t_hit = _glancing_hit(fps, seed, 90.0, 0.6)
        ev = extract_events(frames, PROFILE, "free-pyramid")
        offs = [abs(e.t - t_hit) * fps for e in ev if e.type == "collision"]
        good = [x for x in offs if x <= 2.0]
        on_time += bool(good)
        late += len(offs) - min(len(good), 1)
    assert on_time >= 7
    assert late <= 1
