"""A contact between two balls of one broken cluster, inside the cluster's quiet time,
is the wave's jam -- unless one of the two was struck anew in between by a ball seen
meeting it on the open table (vision/events.py ``EventExtractor._struck_anew``).  Dev
fp-multi/1950 at 60 fps: ball 13 came back off the foot cushion into 14 0.30 s after
the break; 14 ran on into 6 and 10 a frame later, and both contacts were dropped as
the rack's jam."""

from __future__ import annotations

from luza.vision.events import EventExtractor, _Cand

BREAK_S = 3.02
LIM_S = 2.5 / 60.0  # CLUSTER_DT_FRAMES at 60 fps
CLUSTERS = {b: (0, BREAK_S) for b in ("6", "10", "14", "Y")}  # 13 left the rack at once


def _col(t: float, a: str, b: str, **extra) -> _Cand:
    return _Cand("collision", t, 0.9, {"a": a, "b": b, "pos": [0.0, 0.0], **extra})


JAM = _col(3.350, "6", "14")


def test_a_jam_after_a_ball_came_back_into_one_of_the_pair_is_a_new_contact():
    found = [_col(3.318, "13", "14")]  # 13, back off the cushion, into 14
    assert EventExtractor._struck_anew(JAM, found, CLUSTERS, LIM_S)


def test_a_jam_with_no_new_hit_stays_the_wave():
    assert not EventExtractor._struck_anew(JAM, [], CLUSTERS, LIM_S)
    # the pair's own earlier contact brings no new energy from outside
    assert not EventExtractor._struck_anew(JAM, [_col(3.2, "14", "6")], CLUSTERS, LIM_S)
    # a contact of a third pair touches neither ball
    assert not EventExtractor._struck_anew(JAM, [_col(3.3, "13", "9")], CLUSTERS, LIM_S)


def test_the_wave_itself_is_no_new_hit():
    # the replayed wave's contacts (inferred) and the break's own frames are the wave
    wave = [_col(3.021, "Y", "14", inferred=True), _col(BREAK_S + 0.5 * LIM_S, "13", "14")]
    assert not EventExtractor._struck_anew(JAM, wave, CLUSTERS, LIM_S)
    # a hit after the jam it would explain does not explain it
    assert not EventExtractor._struck_anew(JAM, [_col(3.36, "13", "14")], CLUSTERS, LIM_S)


def test_a_pair_outside_any_broken_cluster_is_left_alone():
    assert not EventExtractor._struck_anew(_col(3.35, "7", "8"), [_col(3.3, "13", "7")], {}, LIM_S)
