"""The ball that set a ball at rest moving lies behind the way it left: a struck ball
leaves along the line of centres, away from its striker (vision/events.py
``_striker``, ``STRIKER_MIN_COS``).

Held-out fp-multi/3616 at 30 fps (set 3600-3699, looked at after its run), after a
break from the side: 4 passed 9 within a millimetre (its samples inside two radii in
the noise) 34 ms before 13 struck 9. 9 left towards where 4 had passed, and the
striker search, taking the closest way in, named 4: 4-9 stood in for 13-9.

Samples: the same window as ``test_events_side_break_first.py`` (all balls of that
scene, 0.0-4.5 s, as the tracker gives them, with the physics' own events)."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("side_break_3616.json.gz")


def _set_off_9(ev) -> list:
    return [e for e in ev if e.type == "collision" and "9" in (e["a"], e["b"]) and 3.4 < e.t < 3.6]


def test_13_not_4_struck_9(scene):
    d, ev = scene
    (want,) = [
        e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"13", "9"}
    ]
    got = _set_off_9(ev)
    assert [{e["a"], e["b"]} for e in got] == [{"13", "9"}]  # before: {4, 9}
    assert abs(got[0].t - want["t"]) <= 2 / d["fps"]
