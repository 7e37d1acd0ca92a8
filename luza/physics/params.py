"""Physical constants and the table geometry the simulator collides against.

Everything is in table millimetres and seconds (DESIGN.md coordinates: ``x`` along
the table from the head cushion nose, ``y`` across from the left one; world ``z``
points down into the bed, as in ``calibration.camera``).

Friction model (documented values, overridable per table in ``profile.physics``):

* ``mu_slide`` 0.2 -- sliding (cloth) friction; published 0.15-0.25 (Alciatore,
  pooltool's ``u_s`` = 0.2).
* ``mu_roll`` 0.012 -- rolling resistance; published 0.005-0.015 (pooltool 0.01).
  A ball rolling at 2 m/s stops after v^2 / (2 mu_roll g) = 17 m.
* ``mu_spin`` 0.044 -- spinning friction: side spin decays at 5 mu_spin g / (2R) rad/s^2
  (the same form as pooltool's ``u_sp``).
* ``e_ball`` 0.93 -- ball-ball restitution.  Ball-ball friction (throw) follows
  Alciatore's fit to measured throw (TP A-14): ``mu = mu_ball_a + mu_ball_b
  exp(-mu_ball_c s)`` with the contact slip speed ``s`` in m/s (0.01, 0.108, 1.088),
  so a slow stun cut throws about 4 deg and a fast or rolling one less.
* ``e_cushion`` 0.55 (TB-2: "rebound elasticity 55 %"), ``mu_cushion`` 0.2.
* ``e_table`` 0.5 -- bed restitution for jumped balls.
* ``pocket_commit_mm`` 6 -- a ball whose centre is over the drop hole falls once it
  has had time to sink this far (sqrt(2 h / g) = 35 ms); a fast ball can reach a
  jaw in that time and rattle out.
* ``hang_margin_mm`` 3, ``hang_speed_mm_s`` 60 -- a slow ball whose centre is only
  just over the drop edge teeters; if it stops there it ``hang``s, and with
  probability ``hang_fall_prob`` (seeded) drops 0.3-1.5 s later (``hang_fall``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luza.calibration.profiles import TableProfile

G_MM_S2 = 9810.0

DEFAULTS: dict[str, float] = {
    "mu_slide": 0.2,
    "mu_roll": 0.012,
    "mu_spin": 0.044,
    "e_ball": 0.93,
    "mu_ball_a": 9.951e-3,
    "mu_ball_b": 0.108,
    "mu_ball_c": 1.088,
    "e_cushion": 0.55,
    "mu_cushion": 0.2,
    "e_table": 0.5,
    "pocket_commit_mm": 6.0,
    "jump_min_height_mm": 1.0,  # a bed rebound lower than this is no jump
    "pocket_fall_s": 0.15,  # how long a pocketed ball is shown sinking
    "fly_out_s": 0.5,  # how long a ball that left the table is shown flying
    "hang_fall_prob": 0.3,  # chance that a ball hanging in a mouth drops later
    "hang_margin_mm": 3.0,  # a slow ball this close to the drop edge teeters on the lip
    "hang_speed_mm_s": 60.0,
}


@dataclass(frozen=True)
class Params:
    R: float  # ball radius, mm
    m: float  # ball mass, kg (only ratios matter)
    mu_slide: float
    mu_roll: float
    mu_spin: float
    e_ball: float
    mu_ball_a: float
    mu_ball_b: float
    mu_ball_c: float
    e_cushion: float
    mu_cushion: float
    e_table: float
    pocket_commit_mm: float
    jump_min_height_mm: float
    pocket_fall_s: float
    fly_out_s: float
    hang_fall_prob: float
    hang_margin_mm: float
    hang_speed_mm_s: float
    nose_height_mm: float

    def mu_ball(self, slip_mm_s: float) -> float:
        """Ball-ball friction at a contact slip speed (Alciatore's fit)."""
        return self.mu_ball_a + self.mu_ball_b * math.exp(-self.mu_ball_c * slip_mm_s / 1000.0)

    @property
    def inertia(self) -> float:
        return 0.4 * self.m * self.R * self.R

    @property
    def spin_decel(self) -> float:
        """Side-spin deceleration on the bed, rad/s^2."""
        return 5.0 * self.mu_spin * G_MM_S2 / (2.0 * self.R)

    @property
    def commit_s(self) -> float:
        return math.sqrt(2.0 * self.pocket_commit_mm / G_MM_S2)


def params_from_profile(profile: TableProfile) -> Params:
    vals = dict(DEFAULTS)
    for k, v in profile.physics.items():
        if k in vals:
            vals[k] = float(v)
    return Params(
        R=profile.ball_radius_mm,
        m=profile.ball_mass_kg,
        nose_height_mm=profile.cushion_nose_height_mm,
        **vals,
    )


@dataclass(frozen=True)
class Geometry:
    """Everything a ball can hit or cross, as flat numpy arrays.

    ``seg_*``: straight contact lines (cushion noses between the jaw roundings, and
    the jaw facings inside the pockets): a ball touches one when its centre is R
    from the line on the ``seg_n`` side, with the foot of the perpendicular within
    ``[0, seg_len]`` of ``seg_a`` along ``seg_d``.
    ``circ_*``: the rounded jaw noses (a ball touches when centres are R + r apart).
    ``drop_*``: the drop holes; ``mouth_*``: the mouth lines (jaw nose to jaw nose).
    """

    L: float
    W: float
    seg_a: np.ndarray  # (S, 2)
    seg_d: np.ndarray  # (S, 2) unit direction
    seg_n: np.ndarray  # (S, 2) unit normal towards the ball side
    seg_len: np.ndarray  # (S,)
    seg_name: tuple[str, ...]
    circ_c: np.ndarray  # (C, 2)
    circ_r: np.ndarray  # (C,)
    circ_name: tuple[str, ...]
    pocket_names: tuple[str, ...]
    drop_c: np.ndarray  # (P, 2)
    drop_r: np.ndarray  # (P,)
    drop_depth: np.ndarray  # (P,) mouth line to drop centre
    mouth_c: np.ndarray  # (P, 2) mouth centre
    mouth_in: np.ndarray  # (P, 2) unit, from the bed into the pocket
    mouth_half: np.ndarray  # (P,) half the mouth width
    lines: tuple[tuple[str, int, float], ...]  # (name, axis 0=x 1=y, value)


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def _rot(v: np.ndarray, ang: float) -> np.ndarray:
    c, s = math.cos(ang), math.sin(ang)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def build_geometry(profile: TableProfile) -> Geometry:
    """Cushions, jaws, drop holes and mouth lines from the profile.

    Jaw model: at each jaw nose point P the cushion nose line meets the jaw facing.
    The facing leaves P into the pocket at ``jaw_angle_deg`` from the cushion line
    (measured from the cushion line continued into the pocket, turning away from the
    bed); an angle that would make the pocket narrower behind the mouth than at it
    is clamped to a facing parallel to the pocket axis (a channel), which is what the
    shipped profiles give.  The nose is rounded with a circle of ``jaw_radius_mm``
    inscribed in the rubber wedge at P, so the mouth (P to P) is the narrowest gap.
    """
    L, W = profile.length_mm, profile.width_mm
    pockets = profile.pockets()
    cushions = profile.cushions()
    seg_a, seg_d, seg_n, seg_len, seg_name = [], [], [], [], []
    circ_c, circ_r, circ_name = [], [], []
    # tangent points where each cushion's straight nose hands over to a jaw rounding
    cushion_ends: dict[tuple[str, int], np.ndarray] = {}
    pnames = tuple(pockets)
    for pname in pnames:
        p = pockets[pname]
        inward = _unit(p.inward)
        mc = np.array(p.mouth_centre)
        rj = p.spec.jaw_radius_mm
        for jaw in (p.jaw_a, p.jaw_b):
            P = np.array(jaw, dtype=float)
            # the cushion that ends at this jaw
            cname, end = None, None
            for c in cushions.values():
                if np.allclose(c.a, P):
                    cname, end = c.name, 0
                elif np.allclose(c.b, P):
                    cname, end = c.name, 1
            assert cname is not None
            cu = cushions[cname]
            n_c = np.array(cu.normal, dtype=float)
            other = np.array(cu.b if end == 0 else cu.a, dtype=float)
            t_dir = _unit(P - other)  # along the cushion line, into the pocket
            out = -n_c
            # signed angle turning t_dir towards `out`
            sgn = 1.0 if (t_dir[0] * out[1] - t_dir[1] * out[0]) > 0 else -1.0
            axis_ang = math.acos(max(-1.0, min(1.0, float(np.dot(t_dir, inward)))))
            ang = max(math.radians(p.spec.jaw_angle_deg), axis_ang)
            f_dir = _rot(t_dir, sgn * ang)  # facing direction from P into the pocket
            # wedge between the ray back along the cushion (-t_dir) and the facing
            back = -t_dir
            wedge = math.acos(max(-1.0, min(1.0, float(np.dot(back, f_dir)))))
            bis = _unit(back + f_dir)
            C = P + bis * rj / math.sin(wedge / 2.0)
            circ_c.append(C)
            circ_r.append(rj)
            circ_name.append(f"jaw:{pname}")
            cushion_ends[(cname, end)] = C + n_c * rj  # tangent point on the nose line
            # facing: from its tangent point into the pocket, normal towards the axis
            T = P + f_dir * float(np.dot(C - P, f_dir))
            fn = np.array([-f_dir[1], f_dir[0]])
            if np.dot(fn, mc - P) < 0:
                fn = -fn
            flen = p.spec.drop_depth_mm + p.spec.drop_radius_mm + 2 * profile.ball_radius_mm
            seg_a.append(T)
            seg_d.append(f_dir)
            seg_n.append(fn)
            seg_len.append(flen)
            seg_name.append(f"jaw:{pname}")
    for cname, cu in cushions.items():
        a = cushion_ends[(cname, 0)]
        b = cushion_ends[(cname, 1)]
        d = b - a
        ln = float(np.linalg.norm(d))
        seg_a.append(a)
        seg_d.append(d / ln)
        seg_n.append(np.array(cu.normal, dtype=float))
        seg_len.append(ln)
        seg_name.append(cname)
    return Geometry(
        L=L,
        W=W,
        seg_a=np.array(seg_a),
        seg_d=np.array(seg_d),
        seg_n=np.array(seg_n),
        seg_len=np.array(seg_len),
        seg_name=tuple(seg_name),
        circ_c=np.array(circ_c),
        circ_r=np.array(circ_r),
        circ_name=tuple(circ_name),
        pocket_names=pnames,
        drop_c=np.array([pockets[p].centre for p in pnames], dtype=float),
        drop_r=np.array([pockets[p].spec.drop_radius_mm for p in pnames]),
        drop_depth=np.array([pockets[p].spec.drop_depth_mm for p in pnames]),
        mouth_c=np.array([pockets[p].mouth_centre for p in pnames], dtype=float),
        mouth_in=np.array([_unit(pockets[p].inward) for p in pnames]),
        mouth_half=np.array([pockets[p].spec.mouth_mm / 2.0 for p in pnames]),
        lines=(("centre", 0, L / 2.0), ("house", 0, L / 4.0), ("axis", 1, W / 2.0)),
    )
