"""Two fast balls that glance off each other: the gap between them falls to zero and
opens again, their relative velocity along the line of centres turns by some 400 mm/s,
yet read along the centres' line at the gap's smallest sample (a fraction of a frame
before the touch, while they pass each other at over 1 m/s) their parting still reads
as closing.  Two balls rolling by each other keep their velocities; a turn that large,
over both the wide and the narrow fit, is a touch (vision/events.py ``_pair_glanced``).

Dev fp-rally/2837 at 60 fps, 2.5-5.4 s: 11 and 6, both at ~1 m/s, glance at 4.875 s
(each velocity changed by 250 mm/s).  No path break shows it (each bend fits the
pieces 2-3 frames later, the balls 20 mm apart by then); it was missed.

Samples: all balls of that scene as the tracker gives them (the noise of
``vision/events_truth.py``), with the physics' own contacts in that window."""

from __future__ import annotations

import pytest
from events_helpers import false_pairs, pairs_found, recorded_events, recorded_pairs


@pytest.fixture(scope="module")
def scene():
    return recorded_events("glanced_pair_2837.json.gz")


def test_a_glancing_touch_of_two_fast_balls_is_found(scene):
    d, ev = scene
    truth = [(t, p) for t, p in recorded_pairs(d) if p == {"11", "6"}]
    assert len(truth) == 1
    assert pairs_found(d, ev, truth) == 1  # before: missed


def test_no_collision_where_the_physics_has_none(scene):
    d, ev = scene
    assert [e for e in ev if e.type == "collision"]
    assert false_pairs(d, ev) == []
