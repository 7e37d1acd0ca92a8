"""FB-12 respotting and FB-4 opening layout; FB-14 clock, last innings, decider."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from luza.calibration.profiles import load_profile
from luza.rules.five_ball_clock import (
    ClockError,
    MatchClock,
    PenaltyDecider,
    decider_layout,
    last_innings,
)
from luza.rules.five_ball_respot import (
    check_opening,
    check_placement,
    kaisa_return_hint,
    opening_layout,
    respot_hints,
    spots,
)

P12 = load_profile("pyramid-12ft")
P10 = load_profile("kaisa-10ft")


@pytest.mark.parametrize("profile", [P12, P10], ids=["pyramid-12ft", "kaisa-10ft"])
def test_fb_12_1_first_free_spot_in_order(profile):
    """FB-12.1: red -> head-line spot first; kaisa -> centre first."""
    sp = spots(profile)
    h = respot_hints(["R1", "K"], {"W1": (100.0, 100.0)}, profile)
    assert [(x.ball, x.spot) for x in h] == [("K", "fb-centre"), ("R1", "fb-head-line")]
    assert h[0].pos == sp["fb-centre"] and h[1].pos == sp["fb-head-line"]


def test_fb_12_3_occupied_is_judged_from_real_positions():
    """FB-12.3: a ball within one diameter of a spot makes it occupied; a bit further is free."""
    sp = spots(P12)
    D = P12.ball_diameter_mm
    x, y = sp["fb-head-line"]
    near = {"W2": (x + D - 1.0, y)}
    far = {"W2": (x + D + 3.0, y)}
    assert respot_hints(["R2"], near, P12)[0].spot == "fb-foot-line"
    assert respot_hints(["R2"], far, P12)[0].spot == "fb-head-line"


def test_fb_12_1_red_order_all_the_way_down():
    sp = spots(P12)
    blockers = {
        "W1": sp["fb-head-line"],
        "W2": sp["fb-foot-line"],
        "K": sp["fb-head-end"],
        "R1": sp["fb-foot-end"],
    }
    assert respot_hints(["R2"], blockers, P12)[0].spot == "fb-centre"


def test_fb_12_5_kaisa_first_then_reds_take_the_next_free_spots():
    """FB-12.5: several balls -> the kaisa first; two reds do not share a spot."""
    sp = spots(P12)
    h = respot_hints(["R2", "R1", "K"], {"W1": sp["fb-centre"]}, P12)
    assert [x.ball for x in h] == ["K", "R1", "R2"]
    assert h[0].spot == "fb-head-line" and h[0].kaisa_displaced
    assert h[1].spot == "fb-foot-line" and h[2].spot == "fb-head-end"


def test_fb_12_whites_are_not_spotted():
    """FB-12.1: a white goes to ball in hand, never to a spot."""
    assert respot_hints(["W1", "W2"], {}, P12) == []


def test_fb_12_2_kaisa_returns_to_centre_when_free_and_untouched():
    sp = spots(P12)
    blocked = {"K": sp["fb-head-line"], "W2": sp["fb-centre"]}
    free = {"K": sp["fb-head-line"], "W2": (3000.0, 300.0)}
    assert kaisa_return_hint(True, False, blocked, P12) is None
    h = kaisa_return_hint(True, False, free, P12)
    assert h is not None and h.pos == sp["fb-centre"] and h.rule == "FB-12.2"
    assert kaisa_return_hint(True, True, free, P12) is None  # touched since: no return
    assert kaisa_return_hint(False, False, free, P12) is None


def test_fb_12_check_placement():
    h = respot_hints(["R1"], {}, P12)[0]
    assert check_placement(h, h.pos) is None
    note = check_placement(h, (h.pos[0] + 40.0, h.pos[1]))
    assert note is not None and "40 mm" in note


def test_fb_4_opening_layout_and_warnings():
    """FB-4.1 / FB-4.2 / FB-4.3 / FB-4.4 / FB-4.5: kaisa centre, reds on the head-line and
    foot-line spots, white 1 behind the head line; white 2 must leave the lines."""
    lay = opening_layout(P12)
    L, W = P12.length_mm, P12.width_mm
    good = {**lay, "W1": (400.0, 600.0), "W2": (2900.0, 250.0)}
    assert check_opening(good, P12) == []
    # On the line from the centre spot to the foot-right corner pocket.
    on_line = {**good, "W2": (L / 2 + 0.5 * (L / 2), W / 2 + 0.5 * (W / 2))}
    warn = check_opening(on_line, P12)
    assert [r for r, _ in warn] == ["FB-4.4"] and "foot-right" in warn[0][1]
    short = {**good, "W2": (L / 2 - 100.0, 200.0)}
    assert ("FB-4.4", "white 2 is not beyond the centre line") in check_opening(short, P12)
    red_off = {**good, "R1": (1000.0, 300.0)}
    assert [r for r, _ in check_opening(red_off, P12)] == ["FB-4.2"]
    red_off2 = {**good, "R2": (2000.0, 300.0)}
    assert [r for r, _ in check_opening(red_off2, P12)] == ["FB-4.3"]
    moved = {**good, "K": (L / 2 + 50.0, W / 2), "W1": (1000.0, 300.0)}
    assert {r for r, _ in check_opening(moved, P12)} == {"FB-4.1", "FB-4.5"}


# ---------------------------------------------------------------- FB-14 clock
def test_fb_14_1_clock_warning_and_time_up():
    c = MatchClock(t0_s=10.0)
    assert c.status(10.0 + 3000.0) == "running"
    assert c.status(10.0 + 3301.0) == "warning"
    assert c.status(10.0 + 3600.0) == "time-up"


def test_fb_14_9_one_break_each_added_to_playing_time():
    c = MatchClock(t0_s=0.0)
    c.start_break("A", 1000.0)
    assert c.on_break(1100.0) == "A"
    assert c.end_break("A", 1300.0) == 0.0
    with pytest.raises(ClockError):
        c.start_break("A", 2000.0)
    c.start_break("B", 2000.0)
    over = c.end_break("B", 2000.0 + 420.0)  # 7 min: 2 min over the allowance
    assert over == pytest.approx(120.0)
    # 60 + 5 + 5 = 70 min of wall time at most: 5 + 5 min of the breaks are not play.
    assert c.remaining(4200.0) == pytest.approx(0.0)
    assert c.status(4199.0) == "warning"


def test_fb_14_1_last_innings_ball2_player_last():
    """FB-14.1 / AMB-12: one more inning each, the ball-2 player last."""
    assert last_innings("A", ball1_player="A", ball2_player="B") == ["B"]
    assert last_innings("B", ball1_player="A", ball2_player="B") == ["A", "B"]


def test_fb_14_7_decider_higher_total_after_5_innings_at_actual_value():
    d = PenaltyDecider("A", "B", {"A": 50, "B": 64})
    for _ in range(5):
        d.add(6)
        assert d.end_inning() == "B"
        d.end_inning()
    assert d.done and d.result == "A"
    assert d.final_scores() == {"A": 80, "B": 64}


def test_fb_14_7_decider_first_to_100_wins_and_second_does_not_shoot():
    d = PenaltyDecider("A", "B", {"A": 90, "B": 95})
    d.add(6)
    d.add(6)
    assert d.done and d.result == "A"
    assert d.final_scores() == {"A": 100, "B": 95}


def test_fb_14_8_level_after_5_continues_inning_by_inning():
    d = PenaltyDecider("A", "B", {"A": 50, "B": 50})
    for _ in range(5):
        d.end_inning()
        d.end_inning()
    assert not d.done and d.current == "A"
    d.add(6)
    assert d.end_inning() == "B"  # the second shooter gets his equalising chance
    d.add(6)
    d.end_inning()
    assert not d.done
    d.end_inning()
    d.add(12)
    d.end_inning()
    assert d.done and d.result == "B" and d.final_scores() == {"A": 56, "B": 68}


def test_fb_14_3_decider_layouts():
    assert decider_layout(P12, "kaisa")["K"] == P12.spots["fb-centre"]
    assert decider_layout(P12, "luikka")["K"] == P12.spots["fb-foot-end"]
    with pytest.raises(ValueError):
        decider_layout(P12, "red")


def _apart(points: list[tuple[float, float]], d_mm: float) -> bool:
    return all(
        (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 >= d_mm**2
        for i, a in enumerate(points)
        for b in points[i + 1 :]
    )


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from([P12, P10]),
    st.lists(st.sampled_from(["K", "R1", "R2"]), min_size=1, max_size=3, unique=True),
    st.lists(st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)), max_size=4),
    st.lists(st.integers(0, 4), max_size=4),
)
def test_fb_12_6_a_spot_is_always_free(profile, todo, fractions, on_spot):
    """FB-12.6: with the other balls anywhere (some right on spots), every red or kaisa to be
    respotted finds one of the five named spots -- never a fallback -- and none overlap."""
    sp = list(spots(profile).values())
    L, W, D = profile.length_mm, profile.width_mm, profile.ball_diameter_mm
    others = [b for b in ("W1", "W2", "K", "R1", "R2") if b not in todo]
    pts = [(D / 2 + f[0] * (L - D), D / 2 + f[1] * (W - D)) for f in fractions]
    pts = [sp[k] for k in on_spot] + pts
    placed: dict[str, tuple[float, float]] = {}
    for b in others:  # greedily put each other ball at the next candidate that does not overlap
        while pts and not _apart([*placed.values(), pts[0]], D):
            pts.pop(0)
        if pts:
            placed[b] = pts.pop(0)
    hints = respot_hints(todo, placed, profile)
    assert sorted(h.ball for h in hints) == sorted(todo)
    assert all(h.rule == "FB-12.1" and h.pos in sp for h in hints)
    assert _apart([*placed.values(), *(h.pos for h in hints)], D)
