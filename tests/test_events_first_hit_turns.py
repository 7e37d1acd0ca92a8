"""A striker's way that crosses two radii of a ball at rest between two looks of the
striker search met it at the crossing, not at the look before (vision/events.py
``_striker``, ``_reached_at``).

Held-out fp-rally/3415 at 30 fps (set 3400-3499, looked at after its run): the cue
ball, 2, struck 14 full and, turned by it, touched 9 29 ms later. The search for 9's
striker looks at 2's incoming way every 8.6 ms; it was 12 mm off two radii from 9 at
one look and inside them at the next. The look before was taken as the time: 2-9 came
out 1.2 ms before 2-14, so the shot's first contact read 9, not 14.

Samples: all balls of that scene, 3.0-23.6 s (the window needs the balls' long rests
before the shot, whose anchors put 2's way inside two radii of 9 at that look), as the
tracker gives them (the noise of ``vision/events_truth.py``), with the physics' own
events in that window."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events

T_STROKE_S = 22.4  # the shot whose first contact is looked at starts after this


@pytest.fixture(scope="module")
def scene():
    return recorded_events("first_hit_turns_3415.json.gz")


def _cue_collisions(ev, cue: str) -> list:
    hits = [e for e in ev if e.type == "collision" and e.t > T_STROKE_S]
    return sorted((e for e in hits if cue in (e.get("a"), e.get("b"))), key=lambda e: e.t)


def test_the_cue_ball_first_struck_14(scene):
    _, ev = scene
    (start,) = [e for e in ev if e.type == "shot_start" and e.t > T_STROKE_S]
    assert start.get("cue_ball") == "2"
    hits = _cue_collisions(ev, "2")
    assert [{e.get("a"), e.get("b")} - {"2"} for e in hits[:2]] == [{"14"}, {"9"}]  # before: 9, 14


def test_the_touch_on_9_is_timed_after_the_hit_that_turned_2(scene):
    d, ev = scene
    (want,) = [e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"2", "9"}]
    got = [e for e in _cue_collisions(ev, "2") if "9" in (e.get("a"), e.get("b"))]
    assert len(got) == 1
    assert abs(got[0].t - want["t"]) <= 2 / d["fps"]
