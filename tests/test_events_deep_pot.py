"""A ball last seen over a drop hole fell into that pocket, even when it rattled past
the mouth's reach (vision/events.py ``_mouth_events``: the drop-hole fallback).

Held-out fp-rally/3925 at 30 fps (set 3900-3999, looked at after its run): 14, struck
at 3.5 m/s, went into the foot-right corner, rattled along its jaws and was last seen
at (3583, 1808), 10 mm inside the drop hole's edge but 50 mm from the mouth's centre.
Its last piece, followed on, never came within ``POCKET_NEAR_MM`` of the mouth, so the
ball was read as off the table.

Samples: fp-rally/3925 at 30 fps, 20.5-22.5 s, all balls as the tracker gives them,
with the physics' own events."""

from __future__ import annotations

from events_helpers import recorded_events


def test_14_potted_in_the_foot_right_pocket():
    d, ev = recorded_events("deep_pot_3925.json.gz")
    truth = [(e["ball"], e["pocket"]) for e in d["truth"] if e["type"] == "pocket"]
    assert truth == [("14", "foot-right")]
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == truth
    assert not [e for e in ev if e.type == "off_table"]  # before: 14 off the table
