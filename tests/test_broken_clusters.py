"""A touch of two balls of one broken cluster soon after the break is its wave's jam,
not a new contact (vision/broken_clusters.py).  Only a cluster broken by the time of
the touch counts: held-out fp-rally/2378, Y ran into 5 at rest 1.4 s before 13 struck
Y and 5 lying together, and that earlier hit was dropped as the later cluster's jam."""

from __future__ import annotations

import pytest

from luza.vision.broken_clusters import BrokenClusters

OWN_S = 2.5 / 30.0  # a cluster's own frames at 30 fps


def _broken(members, t_break, strikers, late=None, gaps=None) -> BrokenClusters:
    """``gaps``: (a, b) -> the widest gap seen between them (default 2 mm: never apart)."""
    gaps = gaps or {}

    def max_gap(a: str, b: str, t0: float, t1: float) -> float | None:
        if t1 < t0:
            return None  # no frame between
        return gaps.get((a, b), gaps.get((b, a), 2.0))

    return BrokenClusters.build(
        members,
        t_break,
        strikers,
        late or {},
        own_s=OWN_S,
        quiet_s=0.35,
        parted_mm=68.0,
        touch_parted_mm=6.0,
        max_gap=max_gap,
    )


# the break (cluster 0, Y its striker) and, later, Y and 5 lying together struck by 13
RALLY = _broken([["1", "5", "8"], ["Y", "5"]], [3.10, 5.267], [["Y"], ["13"]])


def test_a_contact_before_a_later_cluster_broke_is_no_jam_of_it():
    assert not RALLY.jammed("Y", "5", 3.867)


def test_a_touch_soon_after_the_break_is_the_jam():
    assert RALLY.jammed("Y", "5", 5.40)  # the later cluster, 0.13 s on
    assert RALLY.jammed("5", "8", 3.30)  # the break, 0.2 s on
    # the break's striker with a member (Y in no cluster of its own)
    assert _broken([["1", "5", "8"]], [3.10], [["Y"]]).jammed("Y", "1", 3.20)


def test_the_striker_hit_seen_on_its_way_is_within_the_clusters_own_frames():
    # found on the striker's way, up to a cluster's own frames before the members moved
    assert RALLY.jammed("Y", "5", 5.267 - 0.5 * OWN_S)
    assert not RALLY.jammed("Y", "5", 5.267 - 1.5 * OWN_S)


def test_a_touch_after_the_quiet_time_or_after_parting_is_new():
    assert not RALLY.jammed("5", "8", 3.10 + 0.4)
    parted = _broken([["1", "5", "8"]], [3.10], [["Y"]], gaps={("5", "8"): 90.0})
    assert not parted.jammed("5", "8", 3.30)


def test_a_ball_in_two_clusters_is_checked_against_both():
    # 5 was in the break and in the later cluster; 1 only in the break
    assert RALLY.of_ball["5"] == [0, 1]
    assert RALLY.jammed("1", "5", 3.30)
    assert not RALLY.jammed("1", "5", 5.40)  # 1 was not in the later one


@pytest.mark.parametrize(
    "strikers, expect",
    [
        ([["Y"], ["13"]], {"Y": [1], "13": [1]}),  # Y a member of 1: not the break's
        ([["Y"], ["Y"]], {"Y": [1]}),
        ([["W"], ["W"]], {"W": [0]}),  # the first it broke only
    ],
)
def test_a_striker_belongs_with_the_first_cluster_it_broke_when_in_none(strikers, expect):
    got = _broken([["1", "5", "8"], ["Y", "5"]], [3.10, 5.267], strikers)
    for ball, ks in expect.items():
        assert list(got.of_ball[ball]) == ks


def test_late_leavers_touch_within_a_touch_of_parting():
    late = {"9": {0}}  # 9 lay against the rack and left it late
    got = _broken([["1", "5", "8"]], [3.10], [["Y"]], late=late, gaps={("9", "5"): 4.0})
    assert got.broke_with("9", "5", 3.30)
    assert not got.broke_with("9", "5", 3.10 + 0.5 * OWN_S)  # the wave's own frames
    apart = _broken([["1", "5", "8"]], [3.10], [["Y"]], late=late, gaps={("9", "5"): 10.0})
    assert not apart.broke_with("9", "5", 3.30)


def test_break_times_by_ball():
    assert RALLY.break_times()["5"] == [3.10, 5.267]
    assert RALLY.break_times()["Y"] == [5.267]
