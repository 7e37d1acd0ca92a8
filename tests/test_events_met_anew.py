"""A pair that touched, parted and touched again at nearly the same spot 74 ms later
is two collisions, not one found twice (vision/events.py ``_dedupe`` with
``_met_anew``).

Dev fb-rally/2930 at 30 fps: W2 struck the kaisa K at 48.916 s; K ran 50 mm on into
W1 (48.949 s), came back and struck W2 again at 49.003 s, 12 mm from the first
contact's midpoint. The same-spot rule of ``_dedupe`` (one contact whose bend two
rules located frames apart) took the second for the first found again; the pair's
own gap says otherwise: 30 mm apart on the two frames between, 2 mm at the second.

Samples: fb-rally/2930 at 30 fps, 46.5-50.5 s, all balls as the tracker gives them,
with the physics' own events."""

from __future__ import annotations

import pytest
from events_helpers import false_pairs, pairs_found, recorded_events, recorded_pairs


@pytest.fixture(scope="module")
def scene():
    return recorded_events("met_anew_2930.json.gz")


def test_both_w2_k_touches_found(scene):
    d, ev = scene
    want = [(t, p) for t, p in recorded_pairs(d) if p == {"W2", "K"}]
    assert len(want) == 2
    assert pairs_found(d, ev, want) == 2  # before: 1 (the second taken for the first)


def test_every_pair_found_none_false(scene):
    d, ev = scene
    assert pairs_found(d, ev, recorded_pairs(d)) == len(recorded_pairs(d))
    assert false_pairs(d, ev) == []
