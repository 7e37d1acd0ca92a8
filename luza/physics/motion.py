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
    """Rebound of a ball from a cushion nose (or a jaw) in place.

    ``n2``: unit normal from the cushion towards the ball centre (horizontal).  The
    rubber touches the ball at the nose height h above the cloth, i.e. ``d = h - R``
    above the centre: contact point ``r_c = -R' n - d z_hat_up`` with
    ``R' = sqrt(R^2 - d^2)``.  A horizontal impulse there with restitution
    ``e_cushion`` on the contact point's normal speed (so the rebound also trims
    top/back spin), then Coulomb friction ``mu_cushion`` along the cushion, capped
    at stopping the slip.  Both parts can only remove energy.  A simplified
    Han (2005)-style model: no vertical impulse, the ball stays on the bed.
    """
    n = np.array([n2[0], n2[1], 0.0])
    m, inertia = p.m, p.inertia
    d = max(0.0, min(p.nose_height_mm - p.R, 0.9 * p.R))
    vn = float(np.dot(v, n))
    if vn >= 0:
        return False
    for lever in (d, 0.0):
        rp = math.sqrt(p.R * p.R - lever * lever)
        rc = -rp * n + np.array([0.0, 0.0, -lever])
        un = float(np.dot(v + _cross(w, rc), n))
        rxn = _cross(rc, n)
        kn = 1.0 / m + float(np.dot(rxn, rxn)) / inertia
        if un < 0:
            jn = -(1.0 + p.e_cushion) * un / kn
            if vn + jn / m > 0.05 * abs(vn) or lever == 0.0:
                break
    else:  # pragma: no cover
        return False
    v += jn / m * n
    w += _cross(rc, jn * n) / inertia
    t = np.array([-n[1], n[0], 0.0])
    ut = float(np.dot(v + _cross(w, rc), t))
    rxt = _cross(rc, t)
    kt = 1.0 / m + float(np.dot(rxt, rxt)) / inertia
    if p.mu_cushion > 0 and abs(ut) > 1e-9:
        jt = -math.copysign(min(p.mu_cushion * jn, abs(ut) / kt), ut)
        v += jt / m * t
        w += _cross(rc, jt * t) / inertia
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
