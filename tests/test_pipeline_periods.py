"""The pipeline's periodic work falls due by the clock, not by the frame count.

Re-classifying every tracked ball and re-looking at balls that just stopped ran every
6th and every 4th frame: at 60 fps twice the work per second of play of 30 fps, for no
more evidence (a ball's class, a ball settling, do not change faster at 60 fps).
At 30 fps the schedule is the one it was.
"""

from __future__ import annotations

import pytest

from luza.vision.pipeline import RECLASSIFY_EVERY_S, SETTLE_EVERY_S, _period_crossed


def _due_frames(fps: float, period_s: float, n: int, step: int = 1) -> list[int]:
    due, prev = [], None
    for i in range(0, n, step):
        t = i / fps
        if _period_crossed(prev, t, period_s):
            due.append(i)
        prev = t
    return due


@pytest.mark.parametrize(("period_s", "every"), [(RECLASSIFY_EVERY_S, 6), (SETTLE_EVERY_S, 4)])
def test_at_30_fps_the_old_every_nth_frame(period_s, every):
    assert _due_frames(30.0, period_s, 3000) == list(range(0, 3000, every))


@pytest.mark.parametrize(("period_s", "every"), [(RECLASSIFY_EVERY_S, 12), (SETTLE_EVERY_S, 8)])
def test_at_60_fps_half_as_many_frames(period_s, every):
    assert _due_frames(60.0, period_s, 6000) == list(range(0, 6000, every))


def test_a_due_time_skipped_by_dropped_frames_falls_on_the_next_frame():
    # live, every 5th frame of 60 fps kept: 0.2 s multiples fall between kept frames
    due = _due_frames(60.0, 0.2, 600, step=5)
    times = [i / 60.0 for i in due]
    assert due[0] == 0
    # once per period, on the first kept frame at or after each multiple
    assert len(due) == 600 // 12
    for k, t in enumerate(times[1:], start=1):
        assert 0.2 * k - 1e-9 <= t < 0.2 * k + 5 / 60.0
