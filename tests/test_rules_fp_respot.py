"""Respot geometry (GR-25 / AMB-17), the incomplete pyramid (GR-9.3 / AMB-19), the house (GR-11)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luza.calibration.profiles import load_profile
from luza.cli import main
from luza.rules.builder import StreamBuilder
from luza.rules.respot import (
    in_house,
    incomplete_pyramid,
    rack_check,
    respot_point,
    respot_spots,
)

P = load_profile("pyramid-12ft")
L, W, D = P.length_mm, P.width_mm, P.ball_diameter_mm
REAR = (0.75 * L, W / 2)


def test_gr_25_1_free_rear_spot():
    assert respot_point(P, [(1000.0, 500.0)]) == REAR


def test_gr_25_2_behind_the_blocking_ball_tight_against_it():
    x, y = respot_point(P, [REAR])
    assert y == W / 2 and x == pytest.approx(REAR[0] + D)


def test_gr_25_2_a_ball_off_the_axis_blocks_less():
    blocker = (REAR[0] + 10.0, W / 2 + 40.0)  # off the line by 40 mm
    x, _ = respot_point(P, [blocker])
    assert x == pytest.approx(blocker[0] + math.sqrt(D**2 - 40.0**2))


def test_gr_25_2_gap_between_blockers_is_used_when_it_fits():
    a = (REAR[0], W / 2)
    c = (REAR[0] + 2 * D + 5.0, W / 2)  # a gap of 5 mm more than a ball
    x, _ = respot_point(P, [a, c])
    assert x == pytest.approx(REAR[0] + D)
    c2 = (REAR[0] + 2 * D - 5.0, W / 2)  # too small a gap: behind the second ball
    x2, _ = respot_point(P, [a, c2])
    assert x2 == pytest.approx(c2[0] + D)


def test_gr_25_4_whole_line_blocked_goes_in_front_of_the_rear_spot():
    line = [(REAR[0] + k * D, W / 2) for k in range(int((L - REAR[0]) // D) + 1)]
    x, y = respot_point(P, line)
    assert y == W / 2 and x == pytest.approx(REAR[0] - D)


def test_gr_25_3_several_balls_one_after_another_against_the_real_rack():
    rack = {str(i + 1): p for i, p in enumerate(P.rack_positions())}
    del rack["1"]  # the apex ball was pocketed: the rear spot is free
    spots = respot_spots(["1", "Y"], rack, P)
    assert spots[0].pos == REAR
    # Y: the respot line behind the apex is blocked by the rack until behind its base
    assert spots[1].pos[0] == pytest.approx(REAR[0] + 4 * D * math.sqrt(3) / 2 + D)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(40, L - 40), st.floats(40, W - 40)), max_size=14),
    st.integers(1, 3),
)
def test_gr_25_respot_points_never_overlap_and_stay_on_the_axis(others, n):
    occ = {f"o{i}": p for i, p in enumerate(others)}
    spots = respot_spots([f"r{i}" for i in range(n)], occ, P)
    placed = list(occ.values())
    for sp in spots:
        assert sp.pos[1] == W / 2 and D / 2 <= sp.pos[0] <= L - D / 2
        clear = all(math.dist(sp.pos, q) >= D - 1e-6 for q in placed)
        # either clear of every ball, or the axis had no room at all (the rear-spot fallback)
        assert clear or sp.pos == REAR
        placed.append(sp.pos)


def test_gr_11_house_line_is_not_in_the_house():
    assert in_house((L / 4 - 0.1, W / 2), P)
    assert not in_house((L / 4, W / 2), P)
    assert not in_house((L / 2, W / 2), P)


def rows_of(points):
    """Row index of each rack point (0 = apex), from its distance behind the rear spot."""
    pitch = D * math.sqrt(3) / 2
    return [round((p[0] - REAR[0]) / pitch) for p in points]


def test_gr_9_3_golden_14_balls_rows_2_to_5_apex_empty():
    pts = incomplete_pyramid(14, P)
    assert sorted(rows_of(pts)) == [1] * 2 + [2] * 3 + [3] * 4 + [4] * 5
    assert REAR not in pts


def test_gr_9_3_13_balls_rows_1_to_4_and_three_in_the_middle_of_the_base():
    pts = incomplete_pyramid(13, P)
    rows = rows_of(pts)
    assert sorted(rows) == [0] + [1] * 2 + [2] * 3 + [3] * 4 + [4] * 3
    base = sorted(p[1] - W / 2 for p, r in zip(pts, rows, strict=True) if r == 4)
    assert base == pytest.approx([-D, 0.0, D])


def test_gr_9_3_7_balls_apex_moves_down():
    pts = incomplete_pyramid(7, P)
    rows = rows_of(pts)
    assert sorted(rows) == [1, 1, 2, 2, 2, 3, 3]
    base = sorted(p[1] - W / 2 for p, r in zip(pts, rows, strict=True) if r == 3)
    assert base == pytest.approx([-D / 2, D / 2])


@pytest.mark.parametrize("n", range(1, 16))
def test_gr_9_3_every_incomplete_pyramid_is_symmetric_and_from_the_rack(n):
    pts = incomplete_pyramid(n, P)
    full = P.rack_positions()
    assert len(pts) == n and len(set(pts)) == n and all(p in full for p in pts)
    ys = sorted(round(p[1] - W / 2, 6) for p in pts)
    assert ys == sorted(-y for y in ys)  # symmetric about the long axis


def test_gr_9_1_rack_check_tolerance():
    pts = P.rack_positions()
    pos = {str(i + 1): p for i, p in enumerate(pts)}
    assert rack_check(pos, pts, 5.0).ok
    pos["15"] = (pts[14][0] + 8.0, pts[14][1])
    res = rack_check(pos, pts, 5.0)
    assert not res.ok and res.strays == ["15"] and res.empty == [pts[14]]
    assert rack_check(pos, pts, 10.0).worst_mm == pytest.approx(8.0)


def test_gr_25_geometry_follows_the_table_profile():
    k = load_profile("kaisa-10ft")
    rear = k.spots["rear"]
    assert respot_point(k, []) == rear
    x, _ = respot_point(k, [rear])
    assert x == pytest.approx(rear[0] + k.ball_diameter_mm)


def test_cli_table_option_selects_the_profile(tmp_path, capsys):
    k = load_profile("kaisa-10ft")
    b = StreamBuilder(profile=k)
    pos = {
        x: (300.0 + (i % 6) * 250.0, 200.0 + (i // 6) * 350.0)
        for i, x in enumerate(["Y", *(str(i) for i in range(1, 16))])
    }
    b.table_state(pos, score={"A": 0, "B": 0})
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    p = tmp_path / "k.jsonl"
    p.write_text(b.jsonl())
    assert main(["score", str(p), "--table", "kaisa-10ft", "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["respots"] == [
        {"ball": "4", "pos": [round(k.spots["rear"][0], 1), round(k.spots["rear"][1], 1)]}
    ]
