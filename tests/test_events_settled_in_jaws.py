"""A ball that rolls into a corner pocket's jaws, rattles there and lies still, then
drifts a few millimetres down the jaws' slope, is settling: its own roll, not a ball
moved by a cue or a sleeve (vision/events.py ``_roll_tail``).

Dev fp-rally/2888 at 60 fps: the break sent 15 into the foot-right jaws at 10.01 s; it
touched them four times in 0.15 s, lay still 0.2 s, then drifted 5 mm back towards the
table while the yellow still rolled. The drift went off the way it had rolled, so it
was read as a ``ball_moved`` at 10.40 s.

Samples: all balls of that scene, 2-12.5 s (the break and all of its shot), as the
tracker gives them (the noise of ``vision/events_truth.py``), with the physics' own
events in that window; the rack's replays are off (they do not touch the jaws)."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("settled_in_jaws_2888.json.gz", replay_racks=False)


def test_the_ball_in_the_jaws_is_not_flagged_as_moved(scene):
    _, ev = scene
    assert [e.t for e in ev if e.type == "ball_moved"] == []  # before: 15 at 10.40 s


def test_it_stays_in_the_break_shot(scene):
    d, ev = scene
    want = [e["cue_ball"] for e in d["truth"] if e["type"] == "shot_start"]
    assert [e.get("cue_ball") for e in ev if e.type == "shot_start"] == want == ["Y"]
    (end,) = [e for e in ev if e.type == "shot_end"]
    (true_end,) = [e for e in d["truth"] if e["type"] == "shot_end"]
    assert end.t > 10.4 and abs(end.t - true_end["t"]) < 0.5


def test_the_jaws_that_stopped_it_are_found(scene):
    """15 ran into the jaws at 450 mm/s and lay still from the next frame on, 3 mm off
    one rounding: beyond the contact slack, but no roll stops a ball that fast
    (``_stopped_in_jaws``).  Before, none of its four jaw touches was found."""
    d, ev = scene
    first = min(
        e["t"] for e in d["truth"] if e["type"] == "cushion" and e["ball"] == "15" and e["t"] > 9
    )
    got = [e for e in ev if e.type == "cushion" and e.get("ball") == "15" and e.t > 9]
    assert [e.get("cushion") for e in got] == ["jaw:foot-right"]
    assert abs(got[0].t - first) <= 2 / d["fps"]
    assert got[0].get("uncertain")  # read from where it stopped, not a bend: marked
