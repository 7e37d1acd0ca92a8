"""Contacts no path break shows: slow cushion touches, corner touches, jaw fly-bys."""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
L, W = PROFILE.length_mm, PROFILE.width_mm


def frames_of(paths: dict, t_end: float, fps: float, jitter_mm: float = 0.0, seed: int = 0):
    """paths: ball -> f(t) giving (x, y); seen every frame, with Gaussian jitter."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(int(t_end * fps) + 1):
        t = k / fps
        seen = {}
        for b, f in paths.items():
            p = np.asarray(f(t), float) + rng.normal(0, jitter_mm, 2)
            seen[b] = (float(p[0]), float(p[1]))
        out.append(FrameObs(k, t, seen))
    return out


def bounce_path(p0, v0, t0, t_hit, normal, e=0.7, decel_mm_s2=150.0):
    """A ball set moving at ``t0`` from ``p0`` with ``v0`` (mm/s), slowing by
    ``decel_mm_s2`` along its path; at ``t_hit`` the velocity component along
    ``normal`` reverses (times ``e``); it stops where its speed runs out."""
    p0, v0, n = (np.asarray(a, float) for a in (p0, v0, normal))

    def run(p, v, dt):
        s = float(np.linalg.norm(v))
        if s == 0.0:
            return p, v
        t_stop = s / decel_mm_s2
        dt = min(dt, t_stop)
        u = v / s
        return p + u * (s * dt - 0.5 * decel_mm_s2 * dt * dt), u * (s - decel_mm_s2 * dt)

    p_hit, v_hit = run(p0, v0, t_hit - t0)
    vn = float(v_hit @ n)
    v_out = v_hit - (1 + e) * vn * n

    def f(t):
        if t <= t0:
            return p0
        if t <= t_hit:
            return run(p0, v0, t - t0)[0]
        return run(p_hit, v_out, t - t_hit)[0]

    return f, p_hit


def path_to_foot(p_hit, v0, t_hit, t0=0.5, decel_mm_s2=150.0):
    """A :func:`bounce_path` set moving at ``t0`` so that it reaches ``p_hit`` at ``t_hit``
    and bounces off the foot cushion there."""
    v0 = np.asarray(v0, float)
    s = float(np.linalg.norm(v0))
    dt = t_hit - t0
    back = (s * dt - 0.5 * decel_mm_s2 * dt * dt) * v0 / s
    return bounce_path(np.asarray(p_hit, float) - back, v0, t0, t_hit, (1.0, 0.0), 0.7, decel_mm_s2)


def _cushions(ev, ball):
    return [e for e in ev if e.type == "cushion" and e["ball"] == ball]


def test_a_slow_touch_whose_bend_fits_one_piece_is_found():
    # ball 14 at ~190 mm/s meets the foot cushion at a shallow angle and comes off at
    # ~140 mm/s: the whole move fits one piece of constant acceleration within the
    # tolerance, so no path break shows the touch; the gap to the nose falls to zero
    # and rises again
    fps = 30.0
    t_hit = 1.2 + 0.6 / fps * 0.37  # between two frames
    v0 = np.array([120.0, -150.0])
    # start where the path reaches the nose (one radius off it) at t_hit
    p_hit_want = np.array([L - R, 1000.0])
    # back out the start (decelerating along the path)
    path, p_hit = path_to_foot(p_hit_want, v0, t_hit)
    assert abs(p_hit[0] - (L - R)) < 1e-6
    ev = extract_events(
        frames_of({"14": path, "Y": lambda t: (800.0, 300.0)}, 4.0, fps, 1.0, seed=3),
        PROFILE,
        "free-pyramid",
    )
    cush = _cushions(ev, "14")
    assert [c["cushion"] for c in cush] == ["foot"]
    assert abs(cush[0].t - t_hit) <= 2 / fps
    assert abs(cush[0]["pos"][1] - p_hit[1]) < 15.0


def test_a_touch_by_the_jaw_end_of_a_nose_is_the_nose():
    # near a corner the foot nose ends where the jaw rounding begins; a ball touching
    # the nose a few mm inside its end (both lines within a mm) is a nose touch
    fps = 60.0
    nose_end_y = W - 53.3  # pyramid-12ft: the foot nose ends 53.3 mm from the side
    y_hit = nose_end_y - 8.0
    t_hit = 1.0 + 0.4 / fps
    v0 = np.array([240.0, -160.0])
    path, p_hit = path_to_foot(np.array([L - R, y_hit]), v0, t_hit)
    ev = extract_events(
        frames_of({"9": path, "Y": lambda t: (800.0, 300.0)}, 4.0, fps, 1.0, seed=5),
        PROFILE,
        "free-pyramid",
    )
    cush = _cushions(ev, "9")
    assert [c["cushion"] for c in cush] == ["foot"]
    assert abs(cush[0].t - t_hit) <= 2 / fps


def test_a_ball_rolling_past_a_pocket_by_the_cushion_touches_nothing():
    # a ball rolling along the right cushion 3 mm off the noses passes the middle
    # pocket's jaw roundings: the gap to each falls and rises, but the ball's velocity
    # never turns, so nothing was touched
    fps = 30.0
    y = W - R - 3.0

    def rolling(t):
        return (900.0 + 600.0 * min(max(t - 0.5, 0.0), 3.0), y)

    ev = extract_events(
        frames_of({"3": rolling, "Y": lambda t: (800.0, 300.0)}, 4.5, fps, 1.0, seed=7),
        PROFILE,
        "free-pyramid",
    )
    assert _cushions(ev, "3") == []


def _two_ball_hit(va, vb, p_contact_a, n, t0, t_hit, decel_mm_s2=100.0):
    """Paths of balls a and b (both moving from ``t0``) that meet at ``t_hit`` with
    centres along unit ``n`` (a -> b), a at ``p_contact_a``; an equal-mass elastic
    hit swaps their velocity components along ``n``."""
    va, vb, n = (np.asarray(x, float) for x in (va, vb, n))
    pa = np.asarray(p_contact_a, float)
    pb = pa + 2 * R * n
    dn = float((va - vb) @ n)
    va2, vb2 = va - dn * n, vb + dn * n

    def path(p_hit, v_in, v_out):
        def f(t):
            dt = t - t_hit
            v = v_in if dt < 0 else v_out
            s = float(np.linalg.norm(v))
            u = v / max(s, 1e-9)
            if dt < 0:
                dt = max(dt, t0 - t_hit)
                return p_hit + u * (s * dt + 0.5 * decel_mm_s2 * dt * dt)
            dt = min(dt, s / decel_mm_s2)
            return p_hit + u * (s * dt - 0.5 * decel_mm_s2 * dt * dt)

        return f

    return path(pa, va, va2), path(pb, vb, vb2)


def test_a_slow_hit_of_two_moving_balls_is_found():
    # two balls rolling slowly (both moving: no ball at rest set moving) meet with
    # their centres at 40 degrees: each bend is ~90 mm/s, which one piece of constant
    # acceleration absorbs; the gap between them falls to zero and rises again, their
    # relative velocity along the centres turned from closing to parting
    fps = 30.0
    t_hit = 2.0 + 0.45 / fps
    n = np.array([np.cos(np.radians(40)), np.sin(np.radians(40))])
    a, b = _two_ball_hit((180.0, 0.0), (0.0, -60.0), (1500.0, 800.0), n, 0.5, t_hit)
    ev = extract_events(
        frames_of({"5": a, "9": b}, 6.0, fps, 1.0, seed=11), PROFILE, "free-pyramid"
    )
    col = [e for e in ev if e.type == "collision"]
    assert [{c["a"], c["b"]} for c in col] == [{"5", "9"}]
    assert abs(col[0].t - t_hit) <= 2 / fps


def test_two_balls_rolling_past_each_other_did_not_collide():
    # two balls pass each other 1.5 mm apart: the gap falls and rises, but their relative
    # velocity never turns (nothing along the centres at the closest point)
    fps = 30.0

    def a(t):
        return (1000.0 + 250.0 * min(max(t - 0.5, 0.0), 3.0), 800.0)

    def b(t):
        return (2500.0 - 250.0 * min(max(t - 0.5, 0.0), 3.0), 800.0 + 2 * R + 1.5)

    ev = extract_events(
        frames_of({"5": a, "9": b}, 5.0, fps, 1.0, seed=13), PROFILE, "free-pyramid"
    )
    assert [e for e in ev if e.type == "collision"] == []


def test_a_ball_struck_into_a_cushion_within_one_frame_gap_touched_it():
    # ball 3 rests 40 mm from the foot nose's contact line; Y strikes it full at 2 m/s
    # towards the foot cushion; 3 meets the nose 20 ms later and comes back at 1.4 m/s,
    # all between two frames at 30 fps: its move starts with the bounce already
    # behind it, so no break of its own and no gap reversal shows the touch
    fps = 30.0
    a0 = np.array([L - R - 40.0, 900.0])
    t_hit = 1.0 + 0.3 / fps
    t_cush = t_hit + 40.0 / 2000.0

    def obj(t):
        if t <= t_hit:
            return a0
        if t <= t_cush:
            return a0 + np.array([2000.0 * (t - t_hit), 0.0])
        return np.array([L - R - 1400.0 * min(t - t_cush, 0.6), 900.0])

    def cue(t):  # at rest until 0.5 s, then 2 m/s into 3; stops dead on the full hit
        return np.array([a0[0] - 2 * R - 2000.0 * min(max(t_hit - t, 0.0), t_hit - 0.5), 900.0])

    ev = extract_events(
        frames_of({"3": obj, "Y": cue}, 3.0, fps, 1.0, seed=17), PROFILE, "free-pyramid"
    )
    assert [{c["a"], c["b"]} for c in ev if c.type == "collision"] == [{"Y", "3"}]
    cush = _cushions(ev, "3")
    assert [c["cushion"] for c in cush] == ["foot"]
    assert abs(cush[0].t - t_cush) <= 2 / fps
