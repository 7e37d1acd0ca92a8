"""A cushion touch whose gap lines (``_cushion_reversals``) meet just past the closest
sample: the falling line over the samples before the touch and the rising one over
those after meet a fraction of a frame on the far side of the sample at the touch
(the noise of that one sample), and the touch was dropped as "no vertex between the
two sides".  Lines meeting within ``REVERSAL_SNAP_FRAC`` of the sample interval past
it met at that sample.  Samples: balls of development scenes as the tracker gives
them (the noise of ``vision/events_truth.py``)."""

from __future__ import annotations

import numpy as np
from events_helpers import other_ball, rest_way_rest

from luza.calibration.profiles import load_profile
from luza.vision import events
from luza.vision.events import extract_events
from luza.vision.gap_series import gap_vertex

PROFILE = load_profile("pyramid-12ft")
OTHER_AT = (1000.0, 300.0)  # a ball at rest far from everything
N_REST = 30


def _touches(frames, ball: str):
    ev = extract_events(frames, PROFILE, "free-pyramid")
    return [e for e in ev if e.type == "cushion" and e["ball"] == ball]


# ball Y of fp-miss (seed 1575) at 30 fps from 2.7667 s: struck under the cue (hidden
# two frames) straight into the head nose at 0.8 m/s, 47 mm away (truth 2.8703 s: the
# sample at 2.8667 s is 0.8 mm off the nose); the break puts that sample with the way
# out, and the gap's lines meet 1 ms before it
FPS_Y = 30.0
REST_Y = (81.5, 408.2)
WAY_Y = [
    None, None, (60.5, 396.2), (34.8, 386.5), (48.5, 378.1), (66.1, 370.9), (73.3, 364.5),
    (88.8, 355.9), (98.7, 347.9), (111.6, 341.4), (124.5, 335.3), (133.1, 326.0),
    (142.6, 319.4), (155.1, 314.8), (164.9, 305.1), (175.8, 297.7), (186.6, 294.0),
    (195.3, 285.1), (207.9, 280.5), None, (226.5, 267.0), (237.5, 260.0), (246.4, 254.4),
    (257.0, 247.2), (265.3, 239.6), (277.0, 232.3), (284.4, 228.4), (294.5, 222.7),
    (305.9, 216.2), (313.1, 210.8), (323.9, 208.0), (330.7, 197.2),
]  # fmt: skip
T_Y = N_REST / FPS_Y + 2.8703 - 2.7667

# ball 3 of fp-rally (seed 1562) at 60 fps from 5.15 s: a slow ball (160 mm/s across
# the right-foot nose) touching it (truth 5.2067 s, 0.4 of a frame after the closest
# sample, 0.3 mm off the nose) and rolling off at 80 mm/s: its gap to the nose (mm),
# one sample a frame; the lines fitted either side of the closest sample meet 0.13 of
# a frame past it (on either split), and the touch was missed
GAP_3 = np.array([9.0, 7.3, 3.6, 0.3, 2.4, 1.3, 3.7, 3.7, 5.1, 7.7, 8.7, 10.0])
TS_3 = 5.15 + np.arange(len(GAP_3)) / 60.0


def test_a_touch_whose_gap_lines_meet_just_past_the_closest_sample_is_found():
    frames = rest_way_rest("Y", REST_Y, WAY_Y, {other_ball("Y"): OTHER_AT}, FPS_Y, N_REST, 30)
    touches = _touches(frames, "Y")
    assert [e["cushion"] for e in touches] == ["head"]
    assert abs(touches[0].t - T_Y) <= 2.0 / FPS_Y
    hit = gap_vertex(TS_3, GAP_3, 3, snap_frac=events.REVERSAL_SNAP_FRAC)
    assert hit is not None and abs(hit[0] - 5.2067) <= 2.0 / 60.0


def _reversals_of_y() -> list:
    """What ``_cushion_reversals`` (the rule under test) finds on Y's move alone (since
    794506b the whole extraction also finds Y's touch another way: the bend after its
    lone first sample, its way from the rest unseen)."""
    frames = rest_way_rest("Y", REST_Y, WAY_Y, {other_ball("Y"): OTHER_AT}, FPS_Y, N_REST, 30)
    x = events.EventExtractor(PROFILE, "free-pyramid")
    x.extract(frames)
    (mv,) = x.data["Y"].moves
    return [c for c in x._cushion_reversals(mv) if c.type == "cushion"]


def test_without_the_snap_the_touches_are_missed(monkeypatch):
    assert gap_vertex(TS_3, GAP_3, 3) is None
    assert [c.data["cushion"] for c in _reversals_of_y()] == ["head"]
    monkeypatch.setattr(events, "REVERSAL_SNAP_FRAC", 0.0)
    assert _reversals_of_y() == []
