"""Motion laws of one ball on the cloth, and the impulses of collisions.

Frame: table x, y in mm on the bed, world z DOWN (right-handed: x towards the foot,
y to the left-to-right across, z into the bed).  Angular velocity ``w`` is a 3-vector
in that frame (rad/s).  The ball's contact point with the bed is at ``+R z`` from its
centre, so its slip velocity is ``u = v + w x (R z) = (vx + R wy, vy - R wx)``.

* rolling without slipping: ``w = (vy, -vx, wz) / R``  (= v x z_hat / R with z down);
* sliding: friction ``-mu_slide m g u_hat`` slows ``u`` at 7/2 mu_slide g until it
  vanishes (Leckie & Greenspan 2005; pooltool ``evolve_slide_state``);
* rolling: deceleration ``mu_roll g`` along ``-v_hat``; side spin ``wz`` decays at
  5 mu_spin g / (2R) in every state on the bed.

Between events every quantity is a polynomial in time (position quadratic, spin
linear, ``wz`` clipped-linear), which is what lets the simulator solve for event times.
"""

from __future__ import annotations

import math

import numpy as np

from luza.physics.params import G_MM_S2, Params

STAT, SLIDE, ROLL, AIR, GONE = 0, 1, 2, 3, 4
STATE_NAMES = {STAT: "stationary", SLIDE: "sliding", ROLL: "rolling", AIR: "airborne", GONE: "gone"}

EPS_V_MM_S = 1e-6  # speeds below this are zero
INELASTIC_BELOW_MM_S = 20.0  # ball-ball closing speed below which there is no bounce
EPS_U_MM_S = 1e-2  # slip below this ends at once (as the sliding phase would end it)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3-D cross product (np.cross is slow for single vectors)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def classify(v: np.ndarray, w: np.ndarray, p: Params) -> tuple[int, np.ndarray, np.ndarray, float]:
    """State of a ball on the bed from (v, w); returns (state, accel, dw_xy/dt, duration_s).

    May snap ``v``/``w`` in place to the exact rolling / rest values.
    """
    R = p.R
    u = np.array([v[0] + R * w[1], v[1] - R * w[0]])
    un = math.hypot(u[0], u[1])
    speed = math.hypot(v[0], v[1])
    if un > EPS_U_MM_S:
        uh = u / un
        a = -p.mu_slide * G_MM_S2 * uh
        k = 5.0 * p.mu_slide * G_MM_S2 / (2.0 * R)
        al = np.array([k * uh[1], -k * uh[0]])
        return SLIDE, a, al, 2.0 * un / (7.0 * p.mu_slide * G_MM_S2)
    if un > 0:
        # end the tiny slip as sliding friction would: v loses 2/7 of the slip
        v[0] -= 2.0 / 7.0 * u[0]
        v[1] -= 2.0 / 7.0 * u[1]
        speed = math.hypot(v[0], v[1])
    if speed > EPS_V_MM_S:
        w[0], w[1] = v[1] / R, -v[0] / R
        vh = v / speed
        a = -p.mu_roll * G_MM_S2 * vh
        al = np.array([a[1] / R, -a[0] / R])
        return ROLL, a, al, speed / (p.mu_roll * G_MM_S2)
    v[:] = 0.0
    w[0] = w[1] = 0.0
    return STAT, np.zeros(2), np.zeros(2), math.inf


def end_slide(v: np.ndarray, w: np.ndarray, p: Params) -> None:
    """End a slide at once, in place, as cloth friction would: v loses 2/7 of the slip.

    (Friction conserves angular momentum about the contact point; this is its end state,
    so it removes exactly the energy the slide would have.)
    """
    R = p.R
    u = np.array([v[0] + R * w[1], v[1] - R * w[0]])
    v[0] -= 2.0 / 7.0 * u[0]
    v[1] -= 2.0 / 7.0 * u[1]
    w[0], w[1] = v[1] / R, -v[0] / R


def strike_velocity(
    speed_mm_s: float, angle_rad: float, follow: float, side: float, elevation_deg: float, p: Params
) -> tuple[np.ndarray, np.ndarray, float]:
    """Velocity, spin and upward speed of a ball just after the cue tip leaves it.

    ``speed_mm_s`` is the horizontal speed.  The tip meets the ball ``follow * R`` above
    and ``side * R`` right of its centre (offsets are clipped to 0.8 R, a miscue limit);
    the impulse along the stroke gives ``w = -(5 v / 2R) (side z_hat + follow right)``,
    so ``follow = 0.4`` is a natural roll, 0 a stun, negative a draw.  A steep cue
    also drives the ball into the bed, which throws it up with ``e_table``.
    """
    d = np.array([math.cos(angle_rad), math.sin(angle_rad)])
    right = np.array([-d[1], d[0]])  # z_down x d: to the right of travel seen from above
    a, b = float(side), float(follow)
    off = math.hypot(a, b)
    if off > 0.8:
        a, b = a * 0.8 / off, b * 0.8 / off
    v = speed_mm_s * d
    k = 5.0 * speed_mm_s / (2.0 * p.R)
    w = np.array([-k * b * right[0], -k * b * right[1], -k * a])
    el = math.radians(max(0.0, min(89.0, float(elevation_deg))))
    vz_up = p.e_table * speed_mm_s * math.tan(el)
    if vz_up * vz_up / (2 * G_MM_S2) < p.jump_min_height_mm:
        vz_up = 0.0
    return v, w, vz_up


def ball_ball_impulse(
    va: np.ndarray, wa: np.ndarray, vb: np.ndarray, wb: np.ndarray, n2: np.ndarray, p: Params
) -> bool:
    """Collide two equal balls in place; ``n2`` is the unit line of centres from a to b.

    Normal: Newton restitution ``e_ball`` (equal masses, momentum conserved).
    Tangential: Coulomb friction (speed-dependent ``Params.mu_ball``) against the slip
    of the contact points -- including the vertical slip that follow or draw adds,
    which is why a rolling cue ball throws less -- capped at the impulse that stops
    the slip, so it can only dissipate.  The bed absorbs the vertical part of the
    friction impulse (the ball stays on the cloth); its torque is kept.
    """
    n = np.array([n2[0], n2[1], 0.0])
    R, m, inertia = p.R, p.m, p.inertia
    vrel_n = float(np.dot(va - vb, n))
    if vrel_n <= 0:
        return False
    # below a few mm/s a contact is inelastic: stops endless micro-bounces (Zeno)
    e = p.e_ball if vrel_n > INELASTIC_BELOW_MM_S else 0.0
    jn = m * (1.0 + e) / 2.0 * vrel_n
    va -= jn / m * n
    vb += jn / m * n
    u = (va + _cross(wa, R * n)) - (vb + _cross(wb, -R * n))
    ut = u - np.dot(u, n) * n
    s = float(np.linalg.norm(ut))
    if s > 1e-9 and e > 0:  # no friction in gentle pushes (it only makes spin noise)
        th = ut / s
        jt = min(p.mu_ball(s) * jn, m * s / 7.0)
        dv = jt / m * th
        dv[2] = 0.0
        va -= dv
        vb += dv
        dw = _cross(R * n, -jt * th) / inertia
        wa += dw
        wb += dw
    return True


def cushion_impulse(v: np.ndarray, w: np.ndarray, n2: np.ndarray, p: Params) -> bool:
    """Rebound of a ball from a cushion nose (or a jaw) in place; False if not closing.

    ``n2``: unit normal from the cushion towards the ball centre (horizontal).  The
    rubber nose is ``d = h - R`` above the ball's centre, so it touches the ball at
    ``r_c = -R cos(a) n - R sin(a) up`` with ``sin(a) = d / R`` (Han 2005 geometry).
    The normal force passes through the centre (no torque); its downward part goes
    into the bed, so the centre's normal speed reverses with restitution
    ``e_cushion``.  Coulomb friction ``mu_cushion`` (bounded by the normal impulse and
    by the impulse that stops the slip, so it only dissipates) acts against the slip
    of the contact point in the two directions of the tangent plane: along the
    cushion (side spin bends the rebound, the ball throws along the rail) and up the
    rubber (top or back spin is trimmed).  The bed takes every vertical impulse: the
    ball stays on the cloth.
    """
    n = np.array([n2[0], n2[1], 0.0])
    vn = float(np.dot(v, n))
    if vn >= 0:
        return False
    m, inertia, R = p.m, p.inertia, p.R
    d = max(0.0, min(p.nose_height_mm - R, 0.9 * R))
    sa = d / R
    ca = math.sqrt(1.0 - sa * sa)
    up = np.array([0.0, 0.0, -1.0])
    rc = -R * ca * n + R * sa * up
    jn = -(1.0 + p.e_cushion) * m * vn  # horizontal part of the normal impulse
    v += jn / m * n
    if p.mu_cushion <= 0:
        return True
    ns = -rc / R  # unit normal at the contact, into the ball
    t = np.array([-n[1], n[0], 0.0])  # along the cushion
    s = _cross(ns, t)  # up/down the rubber, in the vertical plane
    u = v + _cross(w, rc)
    jn_full = jn / ca  # the normal impulse along ns (its vertical part is in the bed)
    imp = []
    for e in (t, s):
        e_h = np.array([e[0], e[1], 0.0])
        rxe = _cross(rc, e)
        k = float(np.dot(e_h, e_h)) / m + float(np.dot(rxe, rxe)) / inertia
        imp.append((e, e_h, -float(np.dot(u, e)) / k))
    mag = math.hypot(imp[0][2], imp[1][2])
    scale = min(1.0, p.mu_cushion * jn_full / mag) if mag > 0 else 0.0
    for e, e_h, j in imp:
        j *= scale
        v += j / m * e_h
        w += _cross(rc, j * e) / inertia
    return True


def rotvec_matrix(theta: np.ndarray) -> np.ndarray:
    """Rotation matrix of the rotation vector ``theta`` (Rodrigues)."""
    ang = float(np.linalg.norm(theta))
    if ang < 1e-12:
        return np.eye(3)
    k = theta / ang
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(ang) * kx + (1 - math.cos(ang)) * (kx @ kx)


def spin_z(wz0: float, dec: float, dt: float) -> tuple[float, float]:
    """Side spin after ``dt`` decaying at ``dec`` (clipped at zero) and its integral."""
    if dec <= 0 or wz0 == 0:
        return wz0, wz0 * dt
    ts = abs(wz0) / dec
    te = min(dt, ts)
    s = math.copysign(1.0, wz0)
    wz = s * (abs(wz0) - dec * te)
    integ = s * (abs(wz0) * te - 0.5 * dec * te * te)
    return wz, integ


def kinetic_energy(v: np.ndarray, w: np.ndarray, p: Params, vz: float = 0.0) -> float:
    """Translational + rotational energy of one ball (kg mm^2/s^2)."""
    return 0.5 * p.m * (float(np.dot(v[:2], v[:2])) + vz * vz) + 0.5 * p.inertia * float(
        np.dot(w, w)
    )
