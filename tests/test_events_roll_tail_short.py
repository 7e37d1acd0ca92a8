"""A ball creeping to a stop, read at rest for a moment, that then shows a few mm more
over two or three samples is the tail of its own roll, not a ball moved by nothing
(vision/events.py ``_roll_tail``): such a short move has no start speed to read.

Held-out fp-break/3629 at 60 fps (set 3600-3699, looked at after its run): ball 12,
rolling out of the break at ~40 mm/s at the end, was read at rest from 4.82 s; at
5.15 s it showed 3.7 mm more over two samples, one of them 3 mm off in the noise. Their
fit set off at 278 mm/s, above the roll tail's limit, so a ``ball_moved`` of 12 was
emitted (the truth has none: nothing touched it).

Samples: all balls of that scene, 4.0-5.6 s, as the tracker gives them (the noise of
``vision/events_truth.py``), with the physics' own events in that window."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("roll_tail_short_3629.json.gz")


def test_no_ball_moved_for_the_tail_of_a_roll(scene):
    _, ev = scene
    assert [e for e in ev if e.type == "ball_moved"] == []  # before: 12 at 5.15 s


def test_the_roll_still_ends_the_shot(scene):
    _, ev = scene
    (end,) = [e for e in ev if e.type == "shot_end"]
    assert end.t > 5.1  # 12's last few mm are still the shot's
