"""A cue ball hidden at the strike that cut a ball and met a cushion right after its
first sample: its way out of the hit is the one before that cushion (vision/events.py
``_before_cushion`` in ``_momentum_way``), and the cushion is found between that first
sample and the next piece.

Held-out fp-rally/3840 at 30 fps (set 3800-3899, looked at after its run): 8 was hidden
under the cue at 27.300 s; it cut 11 at 27.283 s and met the foot cushion at 27.339 s,
6 ms after its first sample (27.333 s). The straight way from its anchor to that sample
passes 30 mm off 11 (beyond the striker search's slack), and its momentum with 11's
did not match: its velocity out of the hit was read off the piece after the cushion,
pointing back at its anchor. 11 came out as moved by nothing (a false ``ball_moved``),
the first contact as 13 (the next ball 8 met, 0.8 s later), and the foot cushion was
missed (the one-sample piece before it was left out of the search for bends).

Samples: fp-rally/3840 at 30 fps, 25.5-28.5 s, all balls as the tracker gives them,
with the physics' own events."""

from __future__ import annotations

import pytest
from events_helpers import pairs_found, recorded_events, recorded_pairs


@pytest.fixture(scope="module")
def scene():
    return recorded_events("cut_hidden_3840.json.gz")


def test_8_struck_11_first(scene):
    d, ev = scene
    want = [(t, p) for t, p in recorded_pairs(d) if p == {"8", "11"}]
    assert len(want) == 1
    assert pairs_found(d, ev, want) == 1  # before: 11 moved by nothing
    stroke = next(e for e in ev if e.type == "shot_start")
    assert stroke["cue_ball"] == "8"
    first = min((e for e in ev if e.type == "collision"), key=lambda e: e.t)
    assert {first["a"], first["b"]} == {"8", "11"}  # before: 8-13
    assert not [e for e in ev if e.type == "ball_moved"]


def test_8_foot_cushion_found(scene):
    d, ev = scene
    t_true = next(e["t"] for e in d["truth"] if e["type"] == "cushion" and e["ball"] == "8")
    got = [e.t for e in ev if e.type == "cushion" and e["ball"] == "8" and e["cushion"] == "foot"]
    assert len(got) == 1 and abs(got[0] - t_true) <= 2.0 / d["fps"]  # before: missed
