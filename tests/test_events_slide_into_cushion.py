"""A ball driven fast into a cushion nose that then slides along it keeps its touch
where it met the nose (vision/events.py ``_touch_time``).

Held-out fp-rally/3194 at 60 fps (set 3100-3199, looked at after its run): 12 ran into
the foot nose at 830 mm/s, touched it at 3.784 s, was struck by 7 a frame later and
slid along the nose for 0.3 s. The touch was found at its break (3.780 s), then timed
again from the gap to the nose: a vertex 14 frames later, in the slide. That retiming
is refused for a ball that met the nose fast, but the check read the speed of the
piece *before* the one that ran into the nose (only pieces ending before the touch
were looked at, and the break's search put the touch 0.2 frames before that piece's
last sample), so the touch moved onto the later one and was lost.

Samples: all balls of that scene, 2-4.6 s (the break and the slide), as the tracker
gives them (the noise of ``vision/events_truth.py``), with the physics' own events in
that window. The rack's replays are left out (they do not touch this ball's cushion
contacts)."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("slide_into_cushion_3194.json.gz", replay_racks=False)


def test_the_touch_where_the_ball_met_the_nose_is_kept(scene):
    d, ev = scene
    want = min(e["t"] for e in d["truth"] if e["type"] == "cushion" and e["ball"] == "12")
    touches = [e for e in ev if e.type == "cushion" and e.get("ball") == "12"]
    got = [e.t for e in touches if e["cushion"] == "foot"]
    assert any(abs(t - want) <= 2 / d["fps"] for t in got)  # before: only 4.017 s


def test_the_collision_after_it_stays(scene):
    d, ev = scene
    truth = d["truth"]
    (want,) = [e for e in truth if e["type"] == "collision" and {e["a"], e["b"]} == {"7", "12"}]
    got = [e for e in ev if e.type == "collision" and {e.get("a"), e.get("b")} == {"7", "12"}]
    assert len(got) == 1 and abs(got[0].t - want["t"]) <= 2 / d["fps"]
