"""Collision impulses over random states (hypothesis): energy, momentum, direction."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from luza.calibration.profiles import load_profile
from luza.physics.motion import (
    ball_ball_impulse,
    classify,
    cushion_impulse,
    end_slide,
    kinetic_energy,
    strike_velocity,
)
from luza.physics.params import params_from_profile

P = params_from_profile(load_profile("pyramid-12ft"))

speed = st.floats(-6000, 6000)
spin = st.floats(-400, 400)
angle = st.floats(0, 2 * math.pi)


def vec3(x, y):
    return np.array([x, y, 0.0])


@settings(max_examples=300, deadline=None)
@given(speed, speed, speed, speed, spin, spin, spin, spin, spin, spin, angle)
def test_ball_ball_impulse_conserves_momentum_and_never_adds_energy(
    vax, vay, vbx, vby, wa0, wa1, wa2, wb0, wb1, wb2, ang
) -> None:
    va, vb = vec3(vax, vay), vec3(vbx, vby)
    wa, wb = np.array([wa0, wa1, wa2]), np.array([wb0, wb1, wb2])
    n = np.array([math.cos(ang), math.sin(ang)])
    e0 = kinetic_energy(va, wa, P) + kinetic_energy(vb, wb, P)
    p0 = va + vb
    closing = float(np.dot(va[:2] - vb[:2], n)) > 0
    hit = ball_ball_impulse(va, wa, vb, wb, n, P)
    assert hit == closing
    e1 = kinetic_energy(va, wa, P) + kinetic_energy(vb, wb, P)
    assert e1 <= e0 * (1 + 1e-12) + 1e-9
    assert np.allclose(va + vb, p0, atol=1e-9 * (1 + np.abs(p0).max()))
    if hit:
        assert float(np.dot(va[:2] - vb[:2], n)) <= 1e-9  # they part


@settings(max_examples=300, deadline=None)
@given(speed, speed, spin, spin, spin, angle)
def test_cushion_impulse_rebounds_and_never_adds_energy(vx, vy, w0, w1, w2, ang) -> None:
    v, w = vec3(vx, vy), np.array([w0, w1, w2])
    n = np.array([math.cos(ang), math.sin(ang)])
    vn = float(np.dot(v[:2], n))
    e0 = kinetic_energy(v, w, P)
    hit = cushion_impulse(v, w, n, P)
    assert hit == (vn < 0)
    assert kinetic_energy(v, w, P) <= e0 * (1 + 1e-12) + 1e-9
    if hit:
        # leaves the rubber at about e_cushion of its normal speed (friction trims it)
        out = float(np.dot(v[:2], n))
        assert 0.3 * P.e_cushion * -vn - 1e-9 <= out <= 1.2 * P.e_cushion * -vn + 1e-9


@settings(max_examples=200, deadline=None)
@given(speed, speed, spin, spin, spin)
def test_ending_a_slide_rolls_and_never_adds_energy(vx, vy, w0, w1, w2) -> None:
    v, w = np.array([vx, vy]), np.array([w0, w1, w2])
    e0 = kinetic_energy(v, w, P)
    end_slide(v, w, P)
    assert kinetic_energy(v, w, P) <= e0 * (1 + 1e-12) + 1e-9
    state, *_ = classify(v.copy(), w.copy(), P)
    assert state != 1  # not sliding any more


def test_strike_spin_from_tip_offset() -> None:
    R = P.R
    v, w, vz = strike_velocity(2000.0, 0.0, 0.4, 0.0, 0.0, P)
    assert np.allclose(w[:2], [v[1] / R, -v[0] / R])  # natural roll: w = v x z_down / R
    _, w_draw, _ = strike_velocity(2000.0, 0.0, -0.4, 0.0, 0.0, P)
    assert np.allclose(w_draw, -w)
    _, w_side, _ = strike_velocity(2000.0, 0.0, 0.0, 0.5, 0.0, P)
    assert w_side[2] < 0 and np.allclose(w_side[:2], 0)  # right english: clockwise seen from z
    assert vz == 0.0
    _, _, vz_jump = strike_velocity(4000.0, 0.0, 0.0, 0.0, 30.0, P)
    assert vz_jump > 0
