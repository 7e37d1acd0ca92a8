"""A striker's contact with a rack ball that is both seen (on the striker's bend) and
held by the rack's replay is timed as the replay has it (vision/events.py
``_not_before_wave``): the replay puts all the striker's contacts on one clock.

Held-out fp-multi/3616 at 30 fps (set 3600-3699, looked at after its run): a break
from the side. The yellow met 4, then 7 0.4 ms later. The replay (vision/rack_wave.py)
had Y-4 then Y-7, 0.5 ms apart; Y-7 was also seen on Y's bend, timed 2.4 ms before the
replay's Y-4, and kept there as a thin first hit the replay missed, so the shot's first
contact read 7.

Samples: all balls of that scene, 0.0-4.5 s (the rack's rest before the break sets its
anchors; the window needs Y's way after the wave for the bend to be seen), as the
tracker gives them (the noise of ``vision/events_truth.py``), with the physics' own
events in that window."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("side_break_3616.json.gz")


def _yellow_hits(ev) -> list:
    return sorted(
        (e for e in ev if e.type == "collision" and "Y" in (e["a"], e["b"])), key=lambda e: e.t
    )


def test_the_yellow_first_met_4(scene):
    d, ev = scene
    first = [e for e in d["truth"] if e["type"] == "collision" and "Y" in (e["a"], e["b"])][0]
    assert {first["a"], first["b"]} == {"Y", "4"}
    assert [{e["a"], e["b"]} - {"Y"} for e in _yellow_hits(ev)[:2]] == [
        {"4"},
        {"7"},
    ]  # before: 7, 4


def test_the_seen_touch_on_7_keeps_its_confidence_and_meets_the_truth(scene):
    d, ev = scene
    (want,) = [e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"Y", "7"}]
    (got,) = [e for e in _yellow_hits(ev) if "7" in (e["a"], e["b"])]
    assert abs(got.t - want["t"]) <= 2 / d["fps"]
    assert got.confidence > 0.9  # seen on the bend, not only inferred
