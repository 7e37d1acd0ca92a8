"""Motion laws: roll-out distances, follow / draw / stun, rotation, jumps, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luza.calibration.profiles import load_profile
from luza.physics.params import G_MM_S2, params_from_profile
from luza.physics.sim import FreePredictor, Simulator, predict_free
from luza.physics.state import Strike

PROFILE = load_profile("pyramid-12ft")
P = params_from_profile(PROFILE)
R = PROFILE.ball_radius_mm
W = PROFILE.width_mm


def test_documented_friction_values_are_published_ones() -> None:
    # Published: mu_roll 0.005-0.015, mu_slide 0.15-0.25 (Alciatore; pooltool 0.01 / 0.2).
    assert 0.005 <= P.mu_roll <= 0.015
    assert 0.15 <= P.mu_slide <= 0.25


def test_natural_roll_stops_after_v2_over_2_mu_g() -> None:
    # a long imaginary table so no cushion interferes: 2 m/s rolls about 17 m
    long = load_profile("pyramid-12ft", length_mm=30000.0)
    res = Simulator(long, seed=0).run({"Y": (200.0, W / 2)}, Strike("Y", 2000.0, 0.0, follow=0.4))
    x_end = res.final_positions["Y"][0]
    expected = 2000.0**2 / (2 * P.mu_roll * G_MM_S2)
    assert 3000 < expected < 20000
    assert x_end - 200.0 == pytest.approx(expected, rel=1e-6)
    assert res.t_end == pytest.approx(2000.0 / (P.mu_roll * G_MM_S2), rel=1e-6)
    assert [e.type for e in res.events if e.type != "line_cross"] == ["shot_start", "shot_end"]


def test_stun_stroke_slides_then_rolls_at_five_sevenths() -> None:
    long = load_profile("pyramid-12ft", length_mm=30000.0)
    v0 = 3000.0
    res = Simulator(long, seed=0).run({"Y": (200.0, W / 2)}, Strike("Y", v0, 0.0, follow=0.0))
    tau = 2 * v0 / (7 * P.mu_slide * G_MM_S2)
    slide = v0 * tau - 0.5 * P.mu_slide * G_MM_S2 * tau * tau
    v1 = 5.0 / 7.0 * v0
    _, v, w, _ = res.state_at("Y", tau + 1e-6)
    assert v[0] == pytest.approx(v1, rel=1e-3)
    assert w[1] == pytest.approx(-v[0] / R, rel=1e-6)  # rolling: w = v x z_down / R
    total = slide + v1 * v1 / (2 * P.mu_roll * G_MM_S2)
    assert res.final_positions["Y"][0] - 200.0 == pytest.approx(total, rel=1e-4)


def _full_ball(follow: float, speed: float = 2500.0, gap: float = 400.0):
    sim = Simulator(PROFILE, seed=0)
    pos = {"Y": (1000.0, W / 2), "1": (1000.0 + gap, W / 2)}
    res = sim.run(pos, Strike("Y", speed, 0.0, follow=follow))
    first = res.events_of("collision")[0]
    assert {first["a"], first["b"]} == {"Y", "1"}
    cue_at_hit = res.state_at("Y", first.t)[0][0]
    # where the cue ball is when the object ball first reaches a cushion (before any return)
    t_c = next(e.t for e in res.events if e.type == "cushion")
    return res, cue_at_hit, t_c


def test_draw_brings_the_cue_ball_back() -> None:
    res, x_hit, t_c = _full_ball(-0.5)
    _, v, _, _ = res.state_at("Y", t_c)
    assert v[0] < -100  # coming back
    assert res.final_positions["Y"][0] < x_hit - 300


def test_follow_goes_on_through() -> None:
    res, x_hit, t_c = _full_ball(0.5)
    x_then = res.state_at("Y", t_c)[0][0]
    assert x_then > x_hit + 300


def test_stun_stops_the_cue_ball() -> None:
    res, x_hit, _ = _full_ball(0.0, speed=3000.0, gap=200.0)
    # only the (1 - e_ball) / 2 share of its speed and a trace of roll are left
    assert abs(res.state_at("Y", res.events_of("collision")[0].t + 1.0)[0][0] - x_hit) < 100
    res_f, x_hit_f, _ = _full_ball(0.4, speed=3000.0, gap=200.0)
    t_f = res_f.events_of("collision")[0].t + 1.0
    assert res_f.state_at("Y", t_f)[0][0] - x_hit_f > 500


def test_side_spin_decays_and_changes_cushion_rebound() -> None:
    sim = Simulator(PROFILE, seed=0)
    outs = []
    for side in (-0.5, 0.0, 0.5):
        res = sim.run({"Y": (1000.0, W / 2)}, Strike("Y", 1500.0, math.pi / 2, side=side))
        c = res.events_of("cushion")[0]
        _, v, _, _ = res.state_at("Y", c.t + 1e-6)
        outs.append(math.atan2(v[0], -v[1]))  # rebound angle off the right cushion
    assert outs[0] * outs[2] < 0  # left and right english throw the rebound opposite ways
    assert abs(outs[1]) < 1e-6


def test_rotation_follows_rolling_direction() -> None:
    long = load_profile("pyramid-12ft", length_mm=30000.0)
    res = Simulator(long, seed=0).run({"Y": (200.0, W / 2)}, Strike("Y", 1000.0, 0.0, follow=0.4))
    # time at which the ball has rolled a quarter turn (pi R / 2)
    target = math.pi * R / 2
    a = P.mu_roll * G_MM_S2
    t = (1000.0 - math.sqrt(1000.0**2 - 2 * a * target)) / a
    pose = res.pose_at(t)["Y"]
    top_body = np.array([0.0, 0.0, -1.0])  # the point on top (world z is down) at t = 0
    assert np.allclose(pose.rotation @ top_body, [1.0, 0.0, 0.0], atol=1e-6)
    assert np.allclose(pose.rotation @ pose.rotation.T, np.eye(3), atol=1e-9)


def test_jump_lifts_the_ball_and_lands() -> None:
    sim = Simulator(PROFILE, seed=0)
    res = sim.run({"Y": (1000.0, 400.0)}, Strike("Y", 3000.0, math.pi / 2, elevation_deg=20.0))
    lifts = [res.pose_at(t)["Y"].lift_mm for t in np.linspace(0, 0.3, 61)]
    assert max(lifts) > 5.0
    assert min(lifts) >= -1e-9
    assert "off_table" not in [e.type for e in res.events]
    assert "Y" in res.final_positions


def test_steep_fast_stroke_leaves_the_table() -> None:
    sim = Simulator(PROFILE, seed=0)
    res = sim.run({"Y": (1000.0, W - 500.0)}, Strike("Y", 5000.0, math.pi / 2, elevation_deg=35.0))
    off = res.events_of("off_table")
    assert [e["ball"] for e in off] == ["Y"]
    assert "Y" not in res.final_positions
    t = off[0].t
    just_after = res.pose_at(t + 0.05)["Y"]
    assert just_after.on_table and just_after.y_mm > W - R  # shown flying out over the rail
    assert not res.pose_at(t + 1.0)["Y"].on_table


def test_predict_free_matches_simulator_and_reflects() -> None:
    pred = FreePredictor(PROFILE)
    v = (0.0, -1200.0)
    s = pred.predict((1000.0, 300.0), v, None, 0.6)
    assert s.vel[1] > 0  # came back off the left cushion
    res = Simulator(PROFILE).run({"Y": (1000.0, 300.0)}, Strike("Y", 1200.0, -math.pi / 2, 0.4))
    r = res.state_at("Y", 0.6)[0]
    assert np.allclose(s.pos, r, atol=1e-6)
    s2 = predict_free((1000.0, 300.0), v, None, 0.6, PROFILE)
    assert s2 == s


def test_deterministic_for_a_seed() -> None:
    def run():
        sim = Simulator(PROFILE, seed=11)
        rack = PROFILE.rack_positions()
        pos = {str(k + 1): xy for k, xy in enumerate(rack)}
        pos["Y"] = (PROFILE.length_mm / 4, W / 2 + 100)
        ang = math.atan2(rack[0][1] - pos["Y"][1], rack[0][0] - pos["Y"][0])
        return sim.run(pos, Strike("Y", 8000.0, ang, follow=0.2, side=0.1))

    a, b = run(), run()
    assert [e.to_json() for e in a.events] == [e.to_json() for e in b.events]
    for t in np.linspace(0, a.t_end, 17):
        pa, pb = a.pose_at(float(t)), b.pose_at(float(t))
        for k in pa:
            assert pa[k].x_mm == pb[k].x_mm and pa[k].y_mm == pb[k].y_mm
            assert np.array_equal(pa[k].rotation, pb[k].rotation)


@pytest.mark.parametrize("speed", [8000.0, 10000.0])
def test_rack_break_comes_to_rest(speed: float) -> None:
    sim = Simulator(PROFILE, seed=0)
    rack = PROFILE.rack_positions()
    pos = {str(k + 1): xy for k, xy in enumerate(rack)}
    pos["Y"] = (PROFILE.length_mm / 4 - 100, W / 2)
    ang = math.atan2(rack[0][1] - pos["Y"][1], rack[0][0] - pos["Y"][0])
    res = sim.run(pos, Strike("Y", speed, ang, follow=0.1))
    assert res.t_end < 60.0  # settled by itself, not cut off
    assert len(res.events_of("collision")) >= 15
    moved = [
        b
        for b in pos
        if b not in res.final_positions or math.dist(pos[b], res.final_positions[b]) > 50
    ]
    assert len(moved) >= 12  # the rack really broke
    for b, xy in res.final_positions.items():
        assert np.linalg.norm(res.state_at(b, res.t_end)[1]) < 1e-6, (b, xy)
