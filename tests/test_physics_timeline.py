"""Timeline: strokes and hand actions in time order, poses at any time, merged events."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luza import events as ev
from luza.calibration.profiles import load_profile
from luza.physics.engine import PhysicsError
from luza.physics.sim import STRIKE_PAUSE_S, Timeline
from luza.physics.state import Strike

PROFILE = load_profile("pyramid-12ft")
L, W = PROFILE.length_mm, PROFILE.width_mm


def scene(seed: int = 0) -> Timeline:
    tl = Timeline(PROFILE, {"Y": (800.0, W / 2), "1": (2000.0, W / 2 + 10)}, seed=seed)
    tl.strike(Strike("Y", 2500.0, math.atan2(10.0, 1200.0), follow=0.2))
    tl.wait(0.5)
    tl.remove("1", at_t=tl.now + 0.2)
    tl.place("1", PROFILE.spots["rear"], at_t=tl.now + 1.0)
    tl.strike(Strike("Y", 1500.0, math.pi / 2))
    return tl


def test_actions_in_time_order_with_merged_events() -> None:
    tl = scene()
    evs = tl.events
    assert [e.t for e in evs] == sorted(e.t for e in evs)
    types = [e.type for e in evs]
    assert types.count("shot_start") == 2 and types.count("shot_end") == 2
    i_rm, i_pl = types.index("ball_removed"), types.index("ball_placed")
    assert types.index("shot_end") < i_rm < i_pl < len(types) - 1 - types[::-1].index("shot_start")
    placed = evs[i_pl]
    assert placed["ball"] == "1" and placed["pos"] == list(PROFILE.spots["rear"])
    # every event passes the contract's validation
    for e in evs:
        ev.Event.from_dict(e.to_dict())
    assert len(tl.shots) == 2
    assert tl.duration_s == pytest.approx(tl.shots[-1].t_end)
    # a strike with at_t None comes a short pause after everything is at rest
    assert tl.shots[1].t_start == pytest.approx(evs[i_pl].t + STRIKE_PAUSE_S)


def test_pose_at_any_time() -> None:
    tl = scene()
    first, second = tl.shots
    t_rm = next(e.t for e in tl.events if e.type == "ball_removed")
    t_pl = next(e.t for e in tl.events if e.type == "ball_placed")
    before = tl.pose_at(0.0)
    assert before["1"].on_table and (before["1"].x_mm, before["1"].y_mm) == (2000.0, W / 2 + 10)
    t_mid = (first.t_start + first.t_end) / 2
    mid, direct = tl.pose_at(t_mid), first.pose_at(t_mid)
    assert all((mid[b].x_mm, mid[b].y_mm) == (direct[b].x_mm, direct[b].y_mm) for b in mid)
    assert (mid["Y"].x_mm, mid["Y"].y_mm) != (800.0, W / 2)  # it is moving then
    gone = tl.pose_at((t_rm + t_pl) / 2)
    assert not gone["1"].on_table and gone["Y"].on_table
    back = tl.pose_at(t_pl + 0.01)
    assert back["1"].on_table and (back["1"].x_mm, back["1"].y_mm) == PROFILE.spots["rear"]
    # between shots a resting ball keeps the orientation it rolled into
    rest = tl.pose_at(first.t_end + 0.1)["Y"]
    assert np.allclose(rest.rotation, first.pose_at(first.t_end)["Y"].rotation)
    assert not np.allclose(rest.rotation, np.eye(3))
    end = tl.pose_at(tl.duration_s + 5.0)
    assert set(end) == {"Y", "1"}


def test_timeline_is_deterministic() -> None:
    a, b = scene(3), scene(3)
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]


def test_actions_before_rest_are_refused() -> None:
    tl = Timeline(PROFILE, {"Y": (800.0, W / 2)})
    res = tl.strike(Strike("Y", 2000.0, 0.0), at_t=0.0)
    with pytest.raises(PhysicsError):
        tl.place("2", (300.0, 300.0), at_t=res.t_end - 0.5)
    with pytest.raises(PhysicsError):
        tl.place("2", tl.positions["Y"])  # on top of Y
    with pytest.raises(PhysicsError):
        tl.remove("7")
    with pytest.raises(PhysicsError):
        tl.strike(Strike("Q", 1000.0, 0.0))


def test_new_ball_placed_later_is_reported_off_table_before() -> None:
    tl = Timeline(PROFILE, {"Y": (800.0, W / 2)})
    tl.place("K", (L / 2, W / 2), at_t=2.0)
    assert not tl.pose_at(1.0)["K"].on_table
    assert tl.pose_at(2.5)["K"].on_table
    tl.strike(Strike("Y", 3000.0, 0.0))
    assert "K" in tl.shots[0].balls


def test_a_stroke_has_the_same_outcome_whenever_and_however_often_it_is_run() -> None:
    # what a scene planner tries with one Simulator is what the Timeline replays later
    from luza.physics.sim import Simulator

    pk = PROFILE.pockets()["middle-left"]
    mu = 0.012 * 9810.0
    start = (pk.mouth_centre[0], 300.0)
    strike = Strike("1", math.sqrt(2 * mu * (300.0 - 8.5)), -math.pi / 2, follow=0.4)
    sim = Simulator(PROFILE, seed=5)
    first = sim.run({"1": start}, strike)
    for _ in range(3):
        sim.run({"1": (1000.0, 500.0)}, Strike("1", 2000.0, 1.0))  # other strokes between
    again = sim.run({"1": start}, strike, t0=42.0)
    shift = [(e.type, round(e.t - 42.0, 9)) for e in again.events]
    assert shift == [(e.type, round(e.t, 9)) for e in first.events]
    assert any(e.type == "hang" for e in first.events)


def test_bad_strokes_are_refused_with_a_luza_error() -> None:
    from luza.errors import LuzaError
    from luza.physics.sim import Simulator

    sim = Simulator(PROFILE)
    for bad in (
        Strike("Y", float("nan"), 0.0),
        Strike("Y", -5.0, 0.0),
        Strike("Y", 100.0, float("inf")),
    ):
        with pytest.raises(LuzaError):
            sim.run({"Y": (500.0, 500.0)}, bad)
    with pytest.raises(LuzaError):
        sim.run({"Y": (10.0, 500.0)}, Strike("Y", 100.0, 0.0))  # off the bed
    with pytest.raises(LuzaError):
        sim.run({"Y": (500.0, 500.0), "1": (530.0, 500.0)}, Strike("Y", 100.0, 0.0))


def test_a_hanging_ball_that_drops_after_the_end_is_gone_in_the_timeline() -> None:
    pk = PROFILE.pockets()["middle-left"]
    mu = 0.012 * 9810.0
    start = (pk.mouth_centre[0], 300.0)
    strike = Strike("1", math.sqrt(2 * mu * (300.0 - 8.5)), -math.pi / 2, follow=0.4)
    for seed in range(20):
        tl = Timeline(PROFILE, {"1": start, "Y": (2500.0, 900.0)}, seed=seed)
        res = tl.strike(strike)
        if res.events_of("hang_fall"):
            break
    else:
        raise AssertionError("no seed let the hanging ball drop")
    fall = res.events_of("hang_fall")[0]
    assert fall.t > res.t_end and tl.now >= res.t_settled > fall.t
    assert "1" not in tl.positions
    assert tl.pose_at(res.t_end + 0.01)["1"].on_table  # still hanging after the end
    assert not tl.pose_at(tl.now + 0.1)["1"].on_table
    assert [e.type for e in tl.events][-1] == "hang_fall"


def test_a_ball_still_spinning_after_the_shot_keeps_turning_smoothly() -> None:
    # a stun shot with heavy side into a ball frozen to the foot cushion: the cue ball
    # stops dead and goes on spinning on the spot after everything else is still
    pos = {"Y": (L - 34.0 - 68.0 - 300.0, W / 2), "1": (L - 34.0, W / 2)}
    tl = Timeline(PROFILE, pos)
    res = tl.strike(Strike("Y", 1500.0, 0.0, follow=0.0, side=0.8))
    t_end = res.t_end
    wz = res.state_at("Y", t_end)[2][2]
    assert abs(wz) > 1.0  # still spinning when the shot has ended
    r_end = tl.pose_at(t_end - 1e-6)["Y"].rotation
    r_after = tl.pose_at(t_end + 1e-6)["Y"].rotation
    assert np.allclose(r_end, r_after, atol=1e-4)  # no jump where the hold begins
    later = tl.pose_at(t_end + 0.2)["Y"].rotation
    assert not np.allclose(later, r_after, atol=1e-3)  # and it goes on turning
    much_later = tl.pose_at(t_end + 30.0)["Y"].rotation
    assert np.allclose(much_later, tl.pose_at(t_end + 31.0)["Y"].rotation)  # then stops
