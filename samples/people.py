"""People at the table: the cue and arms of a player, hands placing and taking balls.

Everything here is plain 3-D geometry in table millimetres (``x, y`` on the bed as in
DESIGN.md, ``h`` = height above the cloth).  The renderer ray-casts the primitives
(tapered capsules and ellipsoids) per pixel, so they occlude balls and the table
with the right perspective, and casts their soft shadows onto the cloth.

The two entry points the scene writer calls:

* :func:`cue_for_strike` -- the cue lying along the stroke line behind the cue ball,
  the bridge hand and forearm, the grip hand; feathering before the stroke, the
  final back-swing, contact at ``t_strike`` and the follow-through;
* :func:`hand_at` -- a hand reaching in from the nearest rail to ``pos`` (placing
  or taking a ball) between ``t0`` and ``t1``.

Both return a list of :data:`Occluder` (empty when nothing is in view at ``t``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luza.calibration.profiles import TableProfile

Vec3 = tuple[float, float, float]  # (x_mm, y_mm, height_mm)


@dataclass(frozen=True)
class Capsule:
    """A tapered capsule (sphere-swept segment) from ``p0`` (radius ``r0_mm``) to ``p1``."""

    p0: Vec3
    p1: Vec3
    r0_mm: float
    r1_mm: float
    rgb: tuple[float, float, float]
    gloss: float = 0.0  # 0 matte (skin, cloth) .. 1 varnished wood
    kind: str = ""  # surface detail the renderer adds: "cloth" (folds), "hair", "" (plain)


@dataclass(frozen=True)
class Ellipsoid:
    """An ellipsoid with semi-axes ``radii_mm`` (along, across, up), turned by ``yaw_rad``."""

    centre: Vec3
    radii_mm: tuple[float, float, float]
    yaw_rad: float
    rgb: tuple[float, float, float]
    gloss: float = 0.0
    kind: str = ""


Occluder = Capsule | Ellipsoid

# Colours (linear RGB) of a pyramid cue.
CUE_TIP_RGB = (0.06, 0.12, 0.30)  # chalked leather
CUE_FERRULE_RGB = (0.75, 0.72, 0.62)
CUE_SHAFT_RGB = (0.62, 0.46, 0.26)  # maple
CUE_JOINT_RGB = (0.55, 0.42, 0.15)  # brass
CUE_BUTT_RGB = (0.06, 0.025, 0.015)  # ebony / rosewood
CUE_WRAP_RGB = (0.02, 0.02, 0.02)

CUE_LENGTH_MM = 1600.0
MAX_LEAN_MM = 450.0  # how far a player's head reaches over the bed from the cushion nose
REST_RGB = (0.04, 0.035, 0.03)  # the rest (mechanical bridge) for balls out of reach
SKIN_RGB = (0.55, 0.32, 0.22)
SLEEVE_RGB = (0.05, 0.05, 0.06)
HAIR_RGB = (0.035, 0.025, 0.018)


def _lerp(a: float, b: float, u: float) -> float:
    return a + (b - a) * u


def _smooth(u: float) -> float:
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def cue_stick(tip: Vec3, direction: np.ndarray, elevation_deg: float) -> list[Occluder]:
    """A cue whose tip is at ``tip``, pointing along ``direction`` (table xy, unit).

    The cue rises towards the butt at ``elevation_deg``.
    """
    d = np.asarray(direction, float)
    d = d / (np.linalg.norm(d) or 1.0)
    el = math.radians(elevation_deg)
    back = np.array([-d[0] * math.cos(el), -d[1] * math.cos(el), math.sin(el)])
    t0 = np.array(tip, float)

    def at(s_mm: float) -> Vec3:
        p = t0 + back * s_mm
        return (float(p[0]), float(p[1]), float(p[2]))

    parts = [
        # (from_mm, to_mm, r_from, r_to, colour, gloss)
        (0.0, 11.0, 6.3, 6.5, CUE_TIP_RGB, 0.0),
        (11.0, 32.0, 6.5, 6.6, CUE_FERRULE_RGB, 0.5),
        (32.0, 780.0, 6.6, 10.0, CUE_SHAFT_RGB, 0.6),
        (780.0, 805.0, 10.2, 10.4, CUE_JOINT_RGB, 0.9),
        (805.0, 1180.0, 10.6, 13.2, CUE_BUTT_RGB, 0.7),
        (1180.0, 1520.0, 13.4, 14.6, CUE_WRAP_RGB, 0.1),
        (1520.0, CUE_LENGTH_MM, 14.8, 15.0, CUE_BUTT_RGB, 0.7),
    ]
    return [Capsule(at(a), at(b), ra, rb, c, g) for a, b, ra, rb, c, g in parts]


def _hand(
    wrist: np.ndarray,
    fwd: np.ndarray,
    height_mm: float,
    skin: tuple[float, float, float],
    spread_mm: float = 0.0,
    curl_mm: float = 0.0,
) -> list[Occluder]:
    """A hand: palm ellipsoid ahead of ``wrist`` along ``fwd``, four fingers and a thumb.

    ``curl_mm`` bends the fingertips down (a hand holding a ball), ``spread_mm`` opens
    them sideways (a bridge).
    """
    f = fwd / (np.linalg.norm(fwd) or 1.0)
    side = np.array([-f[1], f[0]])
    yaw = math.atan2(f[1], f[0])
    palm_c = wrist + f * 48.0
    out: list[Occluder] = [
        Ellipsoid((palm_c[0], palm_c[1], height_mm), (52.0, 42.0, 17.0), yaw, skin)
    ]
    for i, off in enumerate((-27.0, -9.0, 9.0, 27.0)):
        length = (62.0, 74.0, 70.0, 56.0)[i]
        base = palm_c + f * 42.0 + side * off * 0.8
        tip = base + f * length + side * off * spread_mm / 60.0
        out.append(
            Capsule(
                (base[0], base[1], height_mm + 4.0),
                (tip[0], tip[1], height_mm - curl_mm),
                9.0,
                7.5,
                skin,
            )
        )
    tb = palm_c + side * 36.0 - f * 5.0
    tt = tb + side * 30.0 + f * 38.0
    out.append(Capsule((tb[0], tb[1], height_mm), (tt[0], tt[1], height_mm - curl_mm), 11, 8, skin))
    return out


def _arm(
    wrist: Vec3, elbow: Vec3, shoulder: Vec3, skin: tuple, sleeve: tuple, bare_mm: float = 120.0
) -> list[Occluder]:
    """Forearm (bare skin near the wrist, then sleeve) and upper arm."""
    w, e, s = (np.array(p, float) for p in (wrist, elbow, shoulder))
    fl = np.linalg.norm(e - w) or 1.0
    cut = w + (e - w) * min(1.0, bare_mm / fl)
    return [
        Capsule(tuple(w), tuple(cut), 27.0, 31.0, skin),
        Capsule(tuple(cut), tuple(e), 36.0, 42.0, sleeve, kind="cloth"),
        Capsule(tuple(e), tuple(s), 44.0, 52.0, sleeve, kind="cloth"),
    ]


UPPER_ARM_MM = 310.0
FOREARM_MM = 290.0  # wrist to elbow


def _elbow(shoulder: np.ndarray, wrist: np.ndarray, bend: np.ndarray) -> np.ndarray:
    """Two-link arm: the elbow between ``shoulder`` and ``wrist`` (3-D, height up),
    bent towards ``bend``.  A wrist out of reach is pulled back along the arm."""
    v = wrist - shoulder
    D = float(np.linalg.norm(v)) or 1.0
    u = v / D
    D = min(D, UPPER_ARM_MM + FOREARM_MM - 1.0)
    a = (UPPER_ARM_MM**2 - FOREARM_MM**2 + D * D) / (2.0 * D)
    h = math.sqrt(max(UPPER_ARM_MM**2 - a * a, 0.0))
    n = bend - u * float(bend @ u)
    n = n / (np.linalg.norm(n) or 1.0)
    return shoulder + u * a + n * h


def _reach(shoulder: np.ndarray, wrist: np.ndarray) -> np.ndarray:
    """The wrist, pulled towards the shoulder when the arm cannot reach it."""
    v = wrist - shoulder
    dist = float(np.linalg.norm(v))
    lim = UPPER_ARM_MM + FOREARM_MM - 5.0
    return wrist if dist <= lim else shoulder + v * (lim / dist)


def _body(
    shoulders_mid: np.ndarray,
    back_dir: np.ndarray,
    head_dir: np.ndarray,
    hair: tuple,
    sleeve: tuple,
) -> list[Occluder]:
    """Head and back of a player leaning over the table.

    ``shoulders_mid``: point between the shoulders (x, y, height); ``back_dir``: unit
    table-xy direction from the shoulders towards the hips; ``head_dir``: where the
    head is, from the shoulders (unit xy).
    """
    yaw = math.atan2(back_dir[1], back_dir[0])
    m = shoulders_mid
    back_c = (m[0] + back_dir[0] * 230.0, m[1] + back_dir[1] * 230.0, m[2] + 40.0)
    head_c = (m[0] + head_dir[0] * 150.0, m[1] + head_dir[1] * 150.0, m[2] + 60.0)
    neck_c = (m[0] + head_dir[0] * 70.0, m[1] + head_dir[1] * 70.0, m[2] + 30.0)
    return [
        Ellipsoid(back_c, (300.0, 205.0, 120.0), yaw, sleeve, kind="cloth"),
        Capsule(neck_c, head_c, 55.0, 60.0, (0.5, 0.3, 0.2)),
        Ellipsoid(
            head_c, (110.0, 82.0, 95.0), math.atan2(head_dir[1], head_dir[0]), hair, kind="hair"
        ),
    ]


def _stroke_gap_mm(t: float, t_strike: float) -> float | None:
    """Distance from the cue tip to the ball's back (negative after contact) at ``t``.

    Before the strike the player feathers (three short strokes), draws back, and
    pushes through; after it the cue follows through and stays, then is lifted away.
    ``None`` when the cue is not in view.
    """
    dt = t - t_strike
    if dt < -2.6 or dt > 1.2:
        return None
    if dt < -0.9:  # feathering: three slow strokes between 15 and 90 mm
        ph = (dt + 2.6) / 1.7 * 3.0
        return 15.0 + 75.0 * 0.5 * (1.0 - math.cos(2.0 * math.pi * ph))
    if dt < -0.25:  # final draw-back to ~200 mm, then a pause
        return _lerp(15.0, 200.0, _smooth((dt + 0.9) / 0.45))
    if dt <= 0.0:  # accelerating forward to contact
        u = (dt + 0.25) / 0.25
        return 200.0 * (1.0 - u * u)
    if dt < 0.15:  # follow-through
        return -140.0 * _smooth(dt / 0.15)
    return -140.0


def cue_for_strike(
    profile: TableProfile,
    cue_ball_pos: tuple[float, float],
    angle_rad: float,
    t_strike: float,
    t: float,
    elevation_deg: float = 6.0,
    skin_rgb: tuple[float, float, float] = SKIN_RGB,
    sleeve_rgb: tuple[float, float, float] = SLEEVE_RGB,
    with_player: bool = True,
) -> list[Occluder]:
    """The cue (and the player's hands and arms) for a stroke at ``t_strike``.

    The cue lies along the stroke line behind the cue ball at ``cue_ball_pos`` (its
    position *before* the stroke), pointing along ``angle_rad`` (table coordinates,
    0 = +x), its tip at the ball's centre height.  Visible from 2.6 s before the
    strike to 1.2 s after it.
    """
    gap = _stroke_gap_mm(t, t_strike)
    if gap is None:
        return []
    R = profile.ball_radius_mm
    d = np.array([math.cos(angle_rad), math.sin(angle_rad)])
    side = np.array([-d[1], d[0]])
    ball = np.asarray(cue_ball_pos, float)
    tip_xy = ball - d * (R + gap)
    # A cue stroke lifted off after the follow-through.
    lift = 0.0
    if t - t_strike > 0.75:
        lift = 250.0 * _smooth((t - t_strike - 0.75) / 0.45)
    tip_h = R + 2.0 + lift
    out = cue_stick((tip_xy[0], tip_xy[1], tip_h), d, elevation_deg)
    if not with_player:
        return out
    el = math.radians(elevation_deg)
    # Bridge: the hand rests ~230 mm behind the ball, on the cloth or on the rail.
    bridge_xy = ball - d * (R + 230.0)
    on_bed = profile.in_bed(bridge_xy, margin_mm=-5.0)
    base_h = 0.0 if on_bed else profile.cushion_nose_height_mm + 8.0
    dist_to_bridge = R + 230.0 - (R + gap)  # from tip to the bridge along the cue
    cue_h_at_bridge = tip_h + max(dist_to_bridge, 0.0) * math.tan(el)
    palm_h = max(base_h + 20.0, cue_h_at_bridge - 14.0) + lift * 0.8
    # The player stands at the rail: the head may lean at most MAX_LEAN_MM over the
    # bed. For a ball far from the rail the bridge hand cannot reach: a rest takes it.
    head_s = max(330.0, _run_to_edge(profile, bridge_xy, -d) - MAX_LEAN_MM)
    use_rest = head_s > 330.0 + 150.0
    wrist = bridge_xy - d * 40.0 - side * 25.0
    if use_rest:
        rest_head = (bridge_xy[0], bridge_xy[1], cue_h_at_bridge - 12.0)
        out.append(Ellipsoid(rest_head, (28.0, 60.0, 16.0), angle_rad, REST_RGB))
        butt = bridge_xy - d * (head_s + 150.0) + side * 160.0
        out.append(Capsule(rest_head, (butt[0], butt[1], palm_h + 380.0), 8.0, 11.0, REST_RGB, 0.4))
        wrist = bridge_xy - d * (head_s + 20.0) + side * 150.0
        palm_h = palm_h + 300.0
    out += _hand(wrist, d + side * 0.35, palm_h, skin_rgb, spread_mm=12.0, curl_mm=14)
    # The player: chin over the cue ~0.35 m behind the bridge, shoulders either side.
    head_xy = bridge_xy - d * head_s
    mid_xy = head_xy - d * 100.0
    mid = np.array([mid_xy[0], mid_xy[1], palm_h + 280.0 + lift])
    side3 = np.array([side[0], side[1], 0.0])
    bridge_sh = mid + side3 * 185.0
    grip_sh = mid - side3 * 170.0
    w3 = _reach(bridge_sh, np.array([wrist[0], wrist[1], palm_h + 10.0]))
    out += _arm(
        tuple(w3),
        tuple(_elbow(bridge_sh, w3, np.array([0.0, 0.0, 1.0]) + side3)),
        tuple(bridge_sh),
        skin_rgb,
        sleeve_rgb,
    )
    # Grip hand on the butt, the forearm hanging down to it from the elbow.
    grip_s = min(CUE_LENGTH_MM - 60.0, max(1330.0, head_s + 230.0 + (R + gap) + 330.0))
    grip_xy = tip_xy - d * grip_s * math.cos(el)
    grip_h = tip_h + grip_s * math.sin(el)
    g3 = _reach(grip_sh, np.array([grip_xy[0], grip_xy[1], grip_h + 30.0]))
    out.append(Ellipsoid((g3[0], g3[1], g3[2] - 20.0), (50.0, 38.0, 38.0), angle_rad, skin_rgb))
    out += _arm(
        tuple(g3),
        tuple(_elbow(grip_sh, g3, np.array([-d[0], -d[1], 0.6]))),
        tuple(grip_sh),
        skin_rgb,
        sleeve_rgb,
    )
    out += _body(mid, -d, d, HAIR_RGB, sleeve_rgb)
    return out


def _run_to_edge(profile: TableProfile, p: np.ndarray, u: np.ndarray) -> float:
    """How far from ``p`` along the unit vector ``u`` the bed ends (cushion nose lines)."""
    L, W = profile.length_mm, profile.width_mm
    ts = []
    for k, lim in ((0, L), (1, W)):
        if u[k] > 1e-9:
            ts.append((lim - p[k]) / u[k])
        elif u[k] < -1e-9:
            ts.append(-p[k] / u[k])
    return max(0.0, min(ts)) if ts else 0.0


def nearest_rail_direction(profile: TableProfile, pos: tuple[float, float]) -> np.ndarray:
    """Unit vector (table xy) from ``pos`` towards the nearest cushion (where a person stands)."""
    x, y = pos
    L, W = profile.length_mm, profile.width_mm
    cands = [
        (x, np.array([-1.0, 0.0])),
        (L - x, np.array([1.0, 0.0])),
        (y, np.array([0.0, -1.0])),
        (W - y, np.array([0.0, 1.0])),
    ]
    return min(cands, key=lambda c: c[0])[1]


def hand_at(
    profile: TableProfile,
    pos: tuple[float, float],
    t0: float,
    t1: float,
    t: float,
    skin_rgb: tuple[float, float, float] = SKIN_RGB,
    sleeve_rgb: tuple[float, float, float] = SLEEVE_RGB,
) -> list[Occluder]:
    """A hand reaching in from the nearest rail to ``pos`` between ``t0`` and ``t1``.

    It arrives over ``pos`` at 40 % of the interval, holds the ball (fingers around
    it) until 60 %, and withdraws; so a ball placed by hand should appear on the
    table at ``t0 + 0.5 (t1 - t0)`` and a ball taken away should vanish then.
    """
    if not (t0 <= t <= t1) or t1 <= t0:
        return []
    u = (t - t0) / (t1 - t0)
    reach = _smooth(u / 0.4) if u < 0.5 else _smooth((1.0 - u) / 0.4)
    D = profile.ball_diameter_mm
    out_dir = nearest_rail_direction(profile, pos)
    p = np.asarray(pos, float)
    # Where the person stands: 450 mm beyond the nearest cushion nose line.
    L, W = profile.length_mm, profile.width_mm
    edge = p.copy()
    if out_dir[0] < 0:
        edge[0] = 0.0
    elif out_dir[0] > 0:
        edge[0] = L
    elif out_dir[1] < 0:
        edge[1] = 0.0
    else:
        edge[1] = W
    # The person stands 250 mm beyond the rail and leans in; the shoulder follows the
    # hand in so the arm (310 + 290 mm) can reach, down to lying over the table.
    stand = edge + out_dir * (profile.cushion_width_mm + profile.rail_width_mm + 250.0)
    start = edge + out_dir * 200.0
    hand_xy = start + (p - start) * reach
    hand_h = _lerp(300.0, D + 18.0, reach)
    to_stand = stand - hand_xy
    dist = float(np.linalg.norm(to_stand)) or 1.0
    back = to_stand / dist
    lean = min(1.0, max(0.0, (dist - 400.0) / 600.0))
    sh_h = _lerp(520.0, 330.0, lean)
    horiz = math.sqrt(max(560.0**2 - (sh_h - hand_h) ** 2, 100.0**2))
    sh_xy = hand_xy + back * min(dist, horiz)
    side = np.array([-back[1], back[0]])
    mid_xy = sh_xy - side * 170.0  # the reaching (right) shoulder is 170 mm off the middle
    mid = np.array([mid_xy[0], mid_xy[1], sh_h])
    shoulder = np.array([sh_xy[0], sh_xy[1], mid[2]])
    fwd = -back
    wrist = hand_xy - fwd * 60.0
    w3 = _reach(shoulder, np.array([wrist[0], wrist[1], hand_h + 8.0]))
    out = _hand(w3[:2], fwd, w3[2] - 8.0, skin_rgb, spread_mm=18.0, curl_mm=30.0 * reach)
    out += _arm(
        tuple(w3),
        tuple(_elbow(shoulder, w3, np.array([side[0], side[1], 0.8]))),
        tuple(shoulder),
        skin_rgb,
        sleeve_rgb,
    )
    out += _body(mid, back, fwd * 0.6 - side * 0.8, HAIR_RGB, sleeve_rgb)
    return out


def flatten(occluders) -> list[Occluder]:
    """Nested lists / tuples of occluders -> one flat list."""
    out: list[Occluder] = []
    for o in occluders or ():
        if isinstance(o, (Capsule, Ellipsoid)):
            out.append(o)
        else:
            out.extend(flatten(o))
    return out
