"""A pair that touched, parted and touched again at nearly the same spot 74 ms later
(or within ``DEDUPE_MIN_S``, 47 ms later) is two collisions, not one found twice
(vision/events.py ``_dedupe`` with ``_met_anew``).

Dev fb-rally/2930 at 30 fps: W2 struck the kaisa K at 48.916 s; K ran 50 mm on into
W1 (48.949 s), came back and struck W2 again at 49.003 s, 12 mm from the first
contact's midpoint. The same-spot rule of ``_dedupe`` (one contact whose bend two
rules located frames apart) took the second for the first found again; the pair's
own gap says otherwise: 30 mm apart on the two frames between, 2 mm at the second.

Dev fp-rally/2854 at 60 fps: 9 struck 12 (lying by the foot cushion) at 14.681 s; 12
met the cushion and the jaw and came back into 9 at 14.728 s. The pair's gap: 4, 32, 17,
7 mm. Found, but within the 50 ms window of ``_dedupe`` taken for the first touch.

Samples: fb-rally/2930 at 30 fps, 46.5-50.5 s, and fp-rally/2854 at 60 fps, 13.6-15.4
s, all balls as the tracker gives them, with the physics' own events."""

from __future__ import annotations

import numpy as np
import pytest
from events_helpers import false_pairs, pairs_found, recorded_events, recorded_pairs

from luza.vision.events import EventExtractor, _Cand


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


def test_9_12_back_within_the_window_found():
    d, ev = recorded_events("met_anew_2854.json.gz")
    want = recorded_pairs(d)
    assert [p for _, p in want] == [{"9", "12"}, {"9", "12"}]
    assert pairs_found(d, ev, want) == 2  # before: 1
    assert false_pairs(d, ev) == []


class _Gaps:
    """The pair's gap samples only (what ``_met_anew`` reads), at 60 fps."""

    dt = 1 / 60

    def __init__(self, ts, gaps):
        self.ts, self.gaps = np.array(ts), np.array(gaps)

    def _pair_gap(self, a, b, t_c, span_s):
        k = np.abs(self.ts - t_c) <= span_s
        return self.ts[k], self.gaps[k]


def _hit(t: float) -> _Cand:
    return _Cand("collision", t, 0.9, {"a": "W2", "b": "R2", "pos": [0.0, 0.0]})


def _met_anew(ts, gaps, t_first, t_then) -> bool:
    return EventExtractor._met_anew(_Gaps(ts, gaps), _hit(t_first), _hit(t_then))


def test_a_gap_that_opened_and_closed_again_met_anew():
    # dev fb-rally/2607 at 60 fps: W2-R2, R2 away to W1 and the cushion, back 36 ms later
    ts = [26.800, 26.817, 26.833, 26.850, 26.867]
    assert _met_anew(ts, [58.1, 13.9, 42.5, 11.1, 16.0], 26.8167, 26.8578)


def test_a_gap_that_only_fell_after_an_early_finding_is_one_touch():
    # the first finding 3 frames early, the pair still closing at 900 mm/s: one touch
    ts = [26.800, 26.817, 26.833, 26.850, 26.867]
    assert not _met_anew(ts, [60.0, 45.0, 30.0, 15.0, 1.0], 26.809, 26.8578)


def test_a_gap_in_the_noise_did_not_part():
    ts = [26.800, 26.817, 26.833, 26.850, 26.867]
    assert not _met_anew(ts, [3.0, 0.5, 6.0, 1.0, 2.0], 26.8167, 26.8578)
