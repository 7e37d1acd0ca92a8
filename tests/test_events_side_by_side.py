"""Two balls rolling side by side a few mm apart: their gap jitters through a V over
three samples a side, closing and parting at 100 mm/s, while over six samples a side
they were not closing at all.  That is the noise of a flat gap, not a touch
(vision/events.py ``_wide_fit_not_closing``).

Dev fp-rally/2786 at 60 fps, 2.5-5.6 s: 10 and the yellow 5-10 mm apart for 0.15 s
around 5.1 s, never touching; a false 10-Y was read at 5.119 s.

Samples: all balls of that scene as the tracker gives them (the noise of
``vision/events_truth.py``), with the physics' own contacts in that window."""

from __future__ import annotations

import pytest
from events_helpers import pairs_found, recorded_events, recorded_pairs


@pytest.fixture(scope="module")
def scene():
    return recorded_events("side_by_side_2786.json.gz")


def test_balls_rolling_side_by_side_do_not_collide(scene):
    d, ev = scene
    assert not [p for _, p in recorded_pairs(d) if p == {"10", "Y"}]  # the physics: none
    found = [round(e.t, 3) for e in ev if e.type == "collision" and {e["a"], e["b"]} == {"10", "Y"}]
    assert found == []  # before: 10-Y at 5.119 s


def test_the_open_tables_touches_are_still_found(scene):
    d, ev = scene
    # the rack broken at 3.03 s, then four touches of balls rolling apart (a fifth,
    # 13-5 at 5.57 s, lies too near the window's end to be seen parting)
    wave = min(t for t, _ in recorded_pairs(d))
    t_last = d["t0"] + d["frames"][-1][0]
    later = [(t, p) for t, p in recorded_pairs(d) if wave + 0.05 < t < t_last - 0.1]
    assert len(later) == 4
    assert pairs_found(d, ev, later) == len(later)
