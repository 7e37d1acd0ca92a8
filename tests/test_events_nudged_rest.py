"""A ball nudged less than ``START_MM`` lies where it was pushed to: when the noise
later takes two samples running past ``START_MM`` from its old rest, the samples all
around are still, so it did not move then (vision/ball_paths.py ``split_motion``,
``still_around``).

Dev fp-break/2932 at 60 fps (a held-out scene of 2900-2999, looked at after its run):
the cue ball rolled back into 2 at 4.53 s and pushed it 3.5 mm. In the whole scene 2
was read as set moving at 10.65 s and struck by the cue ball lying against it (a false
collision); in this window, which ends at 12 s, as a stroke of its own at 11.52 s.

Samples: all balls of that scene, 2-12 s, as the tracker gives them (the noise of
``vision/events_truth.py``), with the physics' own events in that window; the rack's
replays are off (they do not touch a rest)."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("nudged_rest_2932.json.gz", replay_racks=False)


def test_the_nudged_ball_sets_off_no_stroke(scene):
    d, ev = scene
    want = [e["cue_ball"] for e in d["truth"] if e["type"] == "shot_start"]
    got = [e["cue_ball"] for e in ev if e.type == "shot_start"]
    assert len(want) == 1
    assert got == want  # before: the break's cue ball, then "2" at 11.517 s


def test_nothing_touches_it_after_the_nudge(scene):
    d, ev = scene
    (nudge,) = [
        e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"Y", "2"}
    ]
    later = [
        e.type
        for e in ev
        if e.t > nudge["t"] + 0.1
        and e.type in ("collision", "ball_moved", "shot_start")
        and "2" in (e.get("a"), e.get("b"), e.get("ball"), e.get("cue_ball"))
    ]
    assert later == []
