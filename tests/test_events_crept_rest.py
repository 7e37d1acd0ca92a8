"""A ball that lay against another in the rack, crept off in the break and came to
rest elsewhere: a ball striking it later is not "the wave's push as it left"
(vision/events.py ``_left_it_in_wave``).

Held-out fp-multi/3837 at 30 fps (set 3800-3899, looked at after its run): 9 and 5
touched in the rack and both crept off in the break (3.03 s) to new rests. At 3.63 s
14 struck 9 and 9 struck 5 16 ms later. The rule compared 9's anchor in the rack with
5's rest 0.6 s later (21 mm from where 5 lay when 9 set off) and dropped 9-5 as the
wave's pair. Before 025e0cb timed 9-5 by 5's own start it was found, 22 ms late, by
luck of a later window.

Samples: fp-multi/3837 at 30 fps, 2.5-4.5 s, all balls as the tracker gives them, with
the physics' own events."""

from __future__ import annotations

import pytest
from events_helpers import pairs_found, recorded_events, recorded_pairs


@pytest.fixture(scope="module")
def scene():
    return recorded_events("crept_rest_3837.json.gz")


def test_9_5_found(scene):
    d, ev = scene
    want = [(t, p) for t, p in recorded_pairs(d) if p == {"9", "5"} and 3.6 < t < 3.7]
    assert len(want) == 1
    assert pairs_found(d, ev, want) == 1  # before: 0


def test_14_9_found(scene):
    d, ev = scene
    want = [(t, p) for t, p in recorded_pairs(d) if p == {"14", "9"} and 3.6 < t < 3.7]
    assert pairs_found(d, ev, want) == len(want) == 1
