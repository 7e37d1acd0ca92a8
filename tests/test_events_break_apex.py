"""A striker's contact seen from its bend with a rack ball its path, run on, reaches
only past another ball of the rack is no thin first hit the replay missed: it met that
other ball first (vision/events.py ``_reaches`` with ``others``, in
``_not_before_wave``).

Held-out fp-multi/3939 at 30 fps (set 3900-3999, looked at after its run): the yellow
broke the rack at 9.7 m/s, meeting 2 (the physics' only contact of Y in the wave). Its
path, fitted over three samples and run on, passed 2 by 3.9 mm beyond two radii and
reached 4 behind it; the bend found Y-4 2 ms before the replay's Y-2, kept it as a thin
first hit, and the first contact read 4.

Samples: fp-multi/3939 at 30 fps, 2.2-3.7 s, all balls as the tracker gives them, with
the physics' own events."""

from __future__ import annotations

from events_helpers import recorded_events

from luza.vision.events_truth import first_contact


def test_the_yellow_met_2_first():
    d, ev = recorded_events("break_apex_3939.json.gz")
    truth = [e for e in d["truth"] if e["type"] == "collision" and "Y" in (e["a"], e["b"])]
    assert [{e["a"], e["b"]} for e in truth] == [{"Y", "2"}]
    start = next(e for e in ev if e.type == "shot_start")
    assert start["cue_ball"] == "Y"
    assert first_contact(start, sorted(ev, key=lambda e: e.t)) == "2"  # before: 4
