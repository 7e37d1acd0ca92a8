"""A striker fast enough to cross the whole slack of the striker search between two
of its looks still struck the ball it crossed (vision/events.py ``_striker``,
``_reached_at``).

Held-out fp-rally/3058 at 30 fps (set 3000-3099, looked at after its run): the cue
ball came into the rack's apex, 1, at 6 m/s. The search looks at the striker's way
every 8.6 ms; it was 27 mm off two radii from 1, then 26 mm inside them, both beyond
the 25 mm slack. No striker was found, and 1, struck at the break, was flagged as
moved by nothing (``ball_moved``) for the referee.

Samples: all balls of that scene, 2-7 s (the break), as the tracker gives them (the
noise of ``vision/events_truth.py``), with the physics' own events in that window."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("fast_striker_3058.json.gz")


def test_the_struck_apex_is_not_flagged_as_moved(scene):
    _, ev = scene
    assert [e.get("ball") for e in ev if e.type == "ball_moved"] == []  # before: "1"


def test_the_cue_ball_struck_the_apex_in_time(scene):
    d, ev = scene
    (want,) = [e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"Y", "1"}]
    got = [e for e in ev if e.type == "collision" and {e.get("a"), e.get("b")} == {"Y", "1"}]
    assert len(got) == 1
    assert abs(got[0].t - want["t"]) <= 2 / d["fps"]
