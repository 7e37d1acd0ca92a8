"""The event loop: solve for the next event, advance analytically, resolve it.

Like pooltool, every ball moves on a closed-form trajectory between events (see
``motion.py``).  The engine keeps, per ball, its current segment (start time,
position, velocity, acceleration, spin) and caches, per ball, the time of its next
"own" event (a state transition, a cushion or jaw contact, entering or leaving a drop
hole or a pocket mouth, crossing a marked line, landing after a jump) and, per pair,
the time of the next ball-ball contact.  An event changes one or two balls, so only
their rows are solved again.

Sustained contacts are where event-based billiards physics breaks down (endless
collisions at one instant, or a ball spun into a neighbour or a rail forever
bouncing off it).  The approximations used here, each of which can only remove
energy:

* balls touching at a collision (a rack, a ball frozen to another) are solved
  together by sequential impulses within the one event;
* ball-ball contacts closing slower than ``INELASTIC_BELOW_MM_S`` do not bounce
  (and have no friction); two touching balls both slower than ``JAM_REST_MM_S``
  after a contact stop;
* a ball whose slip drives it into a touching ball ends its slide at once (the
  state sliding friction would reach); a slow one (``JAM_PUSH_MM_S``) stops with
  the ball it pushes; other pushes are parted after ``PUSH_OVERLAP_MM`` of overlap;
* a slow cushion rebound spun back into the rubber ends its slide at once;
* a pair touching again within ``CHATTER_S``, or a ball re-touching a cushion
  there, closing slower than ``EVENT_MIN_RETOUCH_MM_S`` is the same contact (one
  ball pushing or rolling on another): no new event.  A fast re-touch is a new one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luza import events as ev
from luza.errors import LuzaError
from luza.physics.motion import (
    AIR,
    GONE,
    ROLL,
    SLIDE,
    STAT,
    ball_ball_impulse,
    classify,
    cushion_impulse,
    end_slide,
    rotvec_matrix,
    spin_z,
)
from luza.physics.params import G_MM_S2, Geometry, Params
from luza.physics.solve import INF, first_crossing
from luza.physics.state import BallPose


class PhysicsError(LuzaError, ValueError):
    """Impossible input to the simulator (ball off the bed, overlapping balls...)."""


# own-event kinds
K_TRANS, K_SEG, K_CIRC, K_DROP_IN, K_DROP_OUT, K_FALL = 0, 1, 2, 3, 4, 5
K_MOUTH_IN, K_MOUTH_OUT, K_LINE, K_AIR_EDGE, K_HANG_FALL = 6, 7, 8, 9, 10

# segment kinds beyond the motion states
SEG_FALL, SEG_FLY, SEG_OFF = 10, 11, 12

CROSS_TMIN_S = 1e-9
PUSH_OVERLAP_MM = 0.05  # a ball pushing another: overlap tolerated before they are parted
CONTACT_MM = 1e-3  # centres within a diameter plus this are touching
PLACE_SLACK_MM = 1.0  # a ball put on the table may sit this far into a cushion or a ball
# a ball this far (or farther) past a contact line's near side is behind the line, not on
# it: the solver's "already past, heading in" rows are a hair past after a bounce; a ball
# in a corner pocket's throat is also far behind a middle pocket's facing line (the facing
# runs across the throat's span along it), which it must not touch
SEG_BEHIND_MM = 0.5
MIN_CLOSING_MM_S = 1e-3  # slower closing than this is no collision
EVENT_MIN_CLOSING_MM_S = 1.0  # a cluster contact closing slower than this makes no event
# a pair (or a ball and a cushion) touching again this soon, and closing slower than
# EVENT_MIN_RETOUCH_MM_S, is the same contact: no new event
CHATTER_S = 0.1
EVENT_MIN_RETOUCH_MM_S = 20.0
SETTLE_CUSHION_MM_S = 100.0  # a rebound slower than this, spun back into the rubber, settles
MAX_CLUSTER_PASSES = 500
JAM_REST_MM_S = 5.0  # two touching balls both slower than this after a contact stop
JAM_PUSH_MM_S = 50.0  # a ball this slow pushing another by its spin stops with it
MAX_EVENTS = 200_000
MAX_SAME_TIME = 5_000


@dataclass
class Seg:
    """One closed-form piece of a ball's history."""

    t0: float
    kind: int
    r0: np.ndarray
    v0: np.ndarray
    a: np.ndarray
    w0: np.ndarray
    al: np.ndarray
    dec: float
    z0: float
    vz0: float
    rot0: np.ndarray
    target: np.ndarray | None = None  # SEG_FALL: drop centre
    duration: float = 0.0  # SEG_FALL / SEG_FLY: how long it stays visible

    def state(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        """(r, v, w, lift_mm, vz_up) at ``t`` (t >= t0)."""
        dt = t - self.t0
        if self.kind == SEG_FALL:
            f = min(1.0, dt / self.duration) if self.duration > 0 else 1.0
            r = self.r0 + (self.target - self.r0) * f
            return r, np.zeros(2), self.w0.copy(), -0.5 * G_MM_S2 * dt * dt, -G_MM_S2 * dt
        if self.kind == SEG_OFF:
            return self.r0.copy(), np.zeros(2), np.zeros(3), self.z0, 0.0
        r = self.r0 + self.v0 * dt + 0.5 * self.a * dt * dt
        v = self.v0 + self.a * dt
        wz, _ = spin_z(self.w0[2], self.dec, dt)
        w = np.array([self.w0[0] + self.al[0] * dt, self.w0[1] + self.al[1] * dt, wz])
        if self.kind in (AIR, SEG_FLY):
            lift = self.z0 + self.vz0 * dt - 0.5 * G_MM_S2 * dt * dt
            return r, v, w, lift, self.vz0 - G_MM_S2 * dt
        return r, v, w, 0.0, 0.0

    def rotation(self, t: float) -> np.ndarray:
        dt = max(0.0, t - self.t0)
        if self.kind in (SEG_FALL, SEG_OFF):
            return self.rot0
        _, integ = spin_z(self.w0[2], self.dec, dt)
        theta = np.array(
            [
                self.w0[0] * dt + 0.5 * self.al[0] * dt * dt,
                self.w0[1] * dt + 0.5 * self.al[1] * dt * dt,
                integ,
            ]
        )
        return rotvec_matrix(theta) @ self.rot0

    def pose(self, t: float) -> BallPose:
        r, _, _, lift, _ = self.state(t)
        dt = t - self.t0
        if self.kind == SEG_OFF:
            on = False
        elif self.kind in (SEG_FALL, SEG_FLY):
            on = dt < self.duration
        else:
            on = True
        return BallPose(float(r[0]), float(r[1]), float(lift), self.rotation(t), on)


class Engine:
    """Simulates balls on one table from a start state; see module docstring."""

    def __init__(
        self,
        params: Params,
        geom: Geometry,
        names: list[str],
        positions: dict[str, tuple[float, float]],
        t0: float,
        rotations: dict[str, np.ndarray] | None = None,
        rng: np.random.Generator | None = None,
        emit: bool = True,
    ) -> None:
        self.p = params
        self.g = geom
        self.names = list(names)
        self.idx = {b: i for i, b in enumerate(self.names)}
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.emit = emit
        n = len(self.names)
        self.n = n
        self.t = float(t0)
        self.st = np.full(n, GONE, dtype=int)
        self.t0 = np.full(n, self.t)
        self.r0 = np.zeros((n, 2))
        self.v0 = np.zeros((n, 2))
        self.acc = np.zeros((n, 2))
        self.w0 = np.zeros((n, 3))
        self.al = np.zeros((n, 2))
        self.dec = np.zeros(n)
        self.z0 = np.zeros(n)
        self.vz0 = np.zeros(n)
        self.tend = np.full(n, INF)
        self.in_drop = np.full(n, -1, dtype=int)
        self.drop_t = np.full(n, INF)
        self.region = np.full(n, -1, dtype=int)
        self.hang_t = np.full(n, INF)
        self.self_t = np.full(n, INF)
        self.state_t = np.full(n, INF)
        self.self_kind = np.zeros(n, dtype=int)
        self.self_arg = np.zeros(n, dtype=int)
        self.pair_t = np.full((n, n), INF)
        self.last_hit = np.full((n, n), -INF)
        self.last_cushion: dict[tuple[int, str], float] = {}
        self.segs: list[list[Seg]] = [[] for _ in range(n)]
        self.max_speed = np.zeros(n)
        self.events: list[ev.Event] = []
        self._pre = self._precompute()
        rotations = rotations or {}
        R = params.R
        for b, i in self.idx.items():
            if b not in positions:
                self.segs[i].append(
                    Seg(self.t, SEG_OFF, np.zeros(2), *self._zeros(), rot0=np.eye(3))
                )
                continue
            x, y = (float(c) for c in positions[b])
            lo, slack = R - PLACE_SLACK_MM, PLACE_SLACK_MM
            in_bed = lo <= x <= geom.L - R + slack and lo <= y <= geom.W - R + slack
            d_drop = np.hypot(geom.drop_c[:, 0] - x, geom.drop_c[:, 1] - y)
            in_mouth = bool(np.any(d_drop < geom.drop_r + R))  # e.g. hanging in a mouth
            if not (math.isfinite(x) and math.isfinite(y) and (in_bed or in_mouth)):
                raise PhysicsError(
                    f"ball {b} at ({x:.1f}, {y:.1f}) mm is not on the bed "
                    f"(its centre must be at least one radius, {R:.1f} mm, from the cushions)"
                )
            self.st[i] = STAT
            self.r0[i] = (x, y)
            inside = np.nonzero(d_drop < geom.drop_r)[0]
            if inside.size:  # resting over a drop hole (hanging): falls once it moves
                self.in_drop[i] = self.region[i] = int(inside[0])
            rot = rotations.get(b)
            rot = np.eye(3) if rot is None else np.asarray(rot, dtype=float)
            self.segs[i].append(self._seg(i, rot))
        on = [i for i in range(n) if self.st[i] != GONE]
        for a_ in on:
            for b_ in on:
                if a_ < b_:
                    dist = float(np.linalg.norm(self.r0[a_] - self.r0[b_]))
                    if dist < 2 * R - PLACE_SLACK_MM:
                        raise PhysicsError(
                            f"balls {self.names[a_]} and {self.names[b_]} overlap "
                            f"({dist:.1f} mm apart, a ball is {2 * R:.1f} mm)"
                        )

    # ------------------------------------------------------------------ helpers
    def _precompute(self) -> dict[str, np.ndarray]:
        """Constant per-row tables of the own-event solver (see ``_own``)."""
        g = self.g
        nl, ns, nm = len(g.lines), len(g.seg_name), len(g.pocket_names)
        line_kind = np.full(2 * nl, K_LINE)
        line_arg = np.concatenate([np.arange(nl), np.arange(nl)])
        return {
            "line_ax": np.array([ax for _, ax, _ in g.lines]),
            "line_val": np.array([val for _, _, val in g.lines]),
            "seg_na": np.einsum("ij,ij->i", g.seg_n, g.seg_a),
            "mouth_ic": np.einsum("ij,ij->i", g.mouth_in, g.mouth_c),
            "mouth_perp": np.stack([-g.mouth_in[:, 1], g.mouth_in[:, 0]], axis=1),
            "q_want": np.concatenate(
                [-np.ones(nl), np.ones(nl), -np.ones(ns), np.ones(nm), -np.ones(nm)]
            ),
            "q_tmin": np.concatenate(
                [np.full(2 * nl, CROSS_TMIN_S), np.zeros(ns), np.full(2 * nm, CROSS_TMIN_S)]
            ),
            "q_kind": np.concatenate(
                [line_kind, np.full(ns, K_SEG), np.full(nm, K_MOUTH_IN), np.full(nm, K_MOUTH_OUT)]
            ),
            "q_arg": np.concatenate([line_arg, np.arange(ns), np.arange(nm), np.arange(nm)]),
            "q_kind_air": line_kind,
            "q_arg_air": line_arg,
            "quart_pts": np.concatenate([g.circ_c, g.drop_c]),
            "quart_rad": np.concatenate([g.circ_r + self.p.R, g.drop_r]),
            "quart_tmin": np.concatenate(
                [np.zeros(len(g.circ_r)), np.full(len(g.drop_r), CROSS_TMIN_S)]
            ),
        }

    @staticmethod
    def _zeros():
        return (np.zeros(2), np.zeros(2), np.zeros(3), np.zeros(2), 0.0, 0.0, 0.0)

    def _seg(self, i: int, rot: np.ndarray) -> Seg:
        return Seg(
            self.t,
            int(self.st[i]),
            self.r0[i].copy(),
            self.v0[i].copy(),
            self.acc[i].copy(),
            self.w0[i].copy(),
            self.al[i].copy(),
            float(self.dec[i]),
            float(self.z0[i]),
            float(self.vz0[i]),
            rot,
        )

    def state(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        return self.segs[i][-1].state(self.t)

    def _now_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        dt = (self.t - self.t0)[:, None]
        return self.r0 + self.v0 * dt + 0.5 * self.acc * dt * dt, self.v0 + self.acc * dt

    def _event(self, type_: str, **data) -> None:
        if self.emit:
            self.events.append(ev.make(type_, self.t, None, 1.0, **data))

    @staticmethod
    def _xy(r: np.ndarray) -> list[float]:
        return [round(float(r[0]), 3), round(float(r[1]), 3)]

    # ------------------------------------------------------------------ state changes
    def set_motion(
        self,
        i: int,
        r: np.ndarray,
        v: np.ndarray,
        w: np.ndarray,
        air: bool = False,
        z: float = 0.0,
        vz: float = 0.0,
    ) -> None:
        """Start a new trajectory segment for ball ``i`` at the current time."""
        rot = self.segs[i][-1].rotation(self.t)
        v = np.array(v[:2], dtype=float)
        w = np.array(w, dtype=float)
        if air:
            self.st[i] = AIR
            a, al, dec = np.zeros(2), np.zeros(2), 0.0
            disc = vz * vz + 2 * G_MM_S2 * max(z, 0.0)
            dur = (vz + math.sqrt(disc)) / G_MM_S2
            self.z0[i], self.vz0[i] = z, vz
        else:
            st, a, al, dur = classify(v, w, self.p)
            self.st[i] = st
            dec = self.p.spin_decel
            self.z0[i] = self.vz0[i] = 0.0
        self.t0[i] = self.t
        self.r0[i] = r[:2]
        self.v0[i] = v
        self.acc[i] = a
        self.w0[i] = w
        self.al[i] = al
        self.dec[i] = dec
        self.tend[i] = self.t + dur
        self.max_speed[i] = max(self.max_speed[i], math.hypot(v[0], v[1]))
        if self.st[i] != STAT:
            self.hang_t[i] = INF
            if self.in_drop[i] >= 0 and not math.isfinite(self.drop_t[i]):
                self.drop_t[i] = self.t  # a hanging ball set moving again
        self.segs[i].append(self._seg(i, rot))
        self.recompute(i)

    def _retire(self, i: int, kind: int, target: np.ndarray | None, duration: float) -> None:
        r, v, w, lift, vz = self.state(i)
        rot = self.segs[i][-1].rotation(self.t)
        seg = Seg(
            self.t,
            kind,
            r.copy(),
            v.copy(),
            np.zeros(2),
            w.copy(),
            np.zeros(2),
            0.0,
            lift,
            vz,
            rot,
            target,
            duration,
        )
        self.segs[i].append(seg)
        self.st[i] = GONE
        self.tend[i] = INF
        self.in_drop[i] = -1
        self.region[i] = -1
        self.hang_t[i] = INF
        self.self_t[i] = self.state_t[i] = INF
        self.pair_t[i, :] = INF
        self.pair_t[:, i] = INF

    def pocket(self, i: int, p: int) -> None:
        self._event("pocket", ball=self.names[i], pocket=self.g.pocket_names[p])
        self._retire(i, SEG_FALL, self.g.drop_c[p].copy(), self.p.pocket_fall_s)

    # ------------------------------------------------------------------ event solving
    def recompute(self, i: int) -> None:
        self._own(i)
        self._pairs(i)

    def _own(self, i: int) -> None:
        now = self.t
        best_t, best_k, best_a = INF, K_TRANS, 0
        st = self.st[i]
        if st == GONE:
            self.self_t[i] = self.state_t[i] = INF
            return
        if math.isfinite(self.tend[i]):
            best_t = self.tend[i]
        if self.in_drop[i] >= 0 and math.isfinite(self.drop_t[i]):
            tf = self.drop_t[i] + self.p.commit_s
            if tf < best_t:
                best_t, best_k, best_a = tf, K_FALL, int(self.in_drop[i])
        if self.hang_t[i] < best_t:
            best_t, best_k, best_a = self.hang_t[i], K_HANG_FALL, int(self.region[i])
        # the earliest event found that changes the ball's motion (bounds pair searches)
        self.state_t[i] = best_t
        if st == STAT:
            self._set_own(i, best_t, best_k, best_a)
            return
        dt = now - self.t0[i]
        a = self.acc[i]
        v = self.v0[i] + a * dt
        r = self.r0[i] + self.v0[i] * dt + 0.5 * a * dt * dt
        tmax = self.tend[i] - now
        R = self.p.R
        g = self.g
        pre = self._pre
        # ---- quadratic rows: marked lines, then (on the bed) cushion/facing lines, mouths
        nl = len(g.lines)
        ax = pre["line_ax"]
        q_lines = np.stack([0.5 * a[ax], v[ax], r[ax] - pre["line_val"]], axis=1)
        if st == AIR:
            qc = np.concatenate([q_lines, q_lines])
            want = np.concatenate([-np.ones(nl), np.ones(nl)])
            tmin = np.full(2 * nl, CROSS_TMIN_S)
        else:
            nd = g.seg_n @ r - pre["seg_na"] - R
            q_seg = np.stack([0.5 * (g.seg_n @ a), g.seg_n @ v, nd], axis=1)
            s0 = g.mouth_in @ r - pre["mouth_ic"]
            q_m = np.stack([0.5 * (g.mouth_in @ a), g.mouth_in @ v, s0], axis=1)
            qc = np.concatenate([q_lines, q_lines, q_seg, q_m, q_m])
            want = pre["q_want"]
            tmin = pre["q_tmin"]
        taus = first_crossing(qc, np.full(len(qc), tmax), want, tmin)
        kinds = pre["q_kind_air"] if st == AIR else pre["q_kind"]
        args = pre["q_arg_air"] if st == AIR else pre["q_arg"]
        hit = np.nonzero(taus < best_t - now)[0]
        if hit.size:
            tt = taus[hit]
            rp = r + v * tt[:, None] + 0.5 * a * (tt * tt)[:, None]
            kk = kinds[hit]
            aa = args[hit]
            ok = np.ones(hit.size, bool)
            m = kk == K_SEG
            if m.any():
                rel = rp[m] - g.seg_a[aa[m]]
                s = np.einsum("ij,ij->i", rel, g.seg_d[aa[m]])
                # the ball must be on the line's playing side (one radius off it), not
                # deep behind it, where the solver reports a line "already crossed"
                gap = np.einsum("ij,ij->i", rel, g.seg_n[aa[m]]) - R
                ok[m] = (s >= -1e-6) & (s <= g.seg_len[aa[m]] + 1e-6) & (gap >= -SEG_BEHIND_MM)
            m = (kk == K_MOUTH_IN) | (kk == K_MOUTH_OUT)
            if m.any():
                rel = rp[m] - g.mouth_c[aa[m]]
                lat = np.abs(np.einsum("ij,ij->i", rel, pre["mouth_perp"][aa[m]]))
                ok[m] = lat <= g.mouth_half[aa[m]] + R
            if ok.any():
                j = int(np.argmin(np.where(ok, tt, INF)))
                best_t, best_k, best_a = now + tt[j], int(kk[j]), int(aa[j])
                t_seg = np.where(ok & (kk == K_SEG), tt, INF).min()
                self.state_t[i] = min(self.state_t[i], now + t_seg)
        if st == AIR:
            for k, (axis, lim, sgn) in enumerate(
                ((0, R, -1), (0, g.L - R, 1), (1, R, -1), (1, g.W - R, 1))
            ):
                if v[axis] * sgn > 0:
                    tau = max(0.0, (lim - r[axis]) / v[axis])
                    if now + tau < best_t:
                        best_t, best_k, best_a = now + tau, K_AIR_EDGE, k
                    self.state_t[i] = min(self.state_t[i], now + tau)
            self._set_own(i, best_t, best_k, best_a)
            return
        # ---- quartic rows: jaw noses (enter), drop holes (enter / leave)
        pts = pre["quart_pts"]
        rad = pre["quart_rad"]
        nc = len(g.circ_r)
        qwant = np.full(len(rad), -1.0)
        if self.in_drop[i] >= 0:
            qwant[nc + self.in_drop[i]] = 1.0
        # anything later than the best own event so far is solved again after it
        horizon = min(tmax, best_t - now)
        taus = self._quartic_vs_points(r, v, a, pts, rad, horizon, qwant, pre["quart_tmin"])
        j = int(np.argmin(taus))
        self.state_t[i] = min(self.state_t[i], now + float(taus[:nc].min()))
        if now + taus[j] < best_t:
            best_t = now + taus[j]
            if j < nc:
                best_k, best_a = K_CIRC, j
            else:
                best_a = j - nc
                best_k = K_DROP_OUT if qwant[j] > 0 else K_DROP_IN
        self._set_own(i, best_t, best_k, best_a)

    def _set_own(self, i: int, t: float, k: int, a: int) -> None:
        self.self_t[i] = t
        self.self_kind[i] = k
        self.self_arg[i] = a

    @staticmethod
    def _quartic_vs_points(r, v, a, pts, rad, tmax, want, tmin) -> np.ndarray:
        """First time |r(t) - pts| crosses ``rad`` (quartic rows), ``inf`` if none."""
        if tmax < 0:
            return np.full(len(pts), INF)
        dr = r[None, :] - pts
        travel = math.hypot(*v) * tmax + 0.5 * math.hypot(*a) * tmax * tmax
        dist = np.linalg.norm(dr, axis=1)
        out = np.full(len(pts), INF)
        near = (
            np.abs(dist - rad) <= travel + 1e-6
            if math.isfinite(travel)
            else np.ones(len(pts), bool)
        )
        if not near.any():
            return out
        drn = dr[near]
        c = np.stack(
            [
                np.full(len(drn), 0.25 * float(a @ a)),
                np.full(len(drn), float(v @ a)),
                float(v @ v) + drn @ a,
                2.0 * (drn @ v),
                np.einsum("ij,ij->i", drn, drn) - rad[near] ** 2,
            ],
            axis=1,
        )
        want = np.broadcast_to(np.asarray(want, dtype=float), (len(pts),))[near]
        tmin = np.broadcast_to(np.asarray(tmin, dtype=float), (len(pts),))[near]
        out[near] = first_crossing(c, np.full(len(drn), tmax), want, tmin)
        return out

    def _pairs(self, i: int) -> None:
        self.pair_t[i, :] = INF
        self.pair_t[:, i] = INF
        if self.st[i] == GONE:
            return
        # airborne balls meet balls on the bed (not each other) if low enough: see below
        ok = self.st != GONE
        if self.st[i] == AIR:
            ok &= self.st != AIR
        ok[i] = False
        if self.st[i] == STAT:
            ok &= self.st != STAT
        js = np.nonzero(ok)[0]
        if js.size == 0:
            return
        rr, vv = self._now_arrays()
        now = self.t
        D = 2 * self.p.R
        # beyond the next change of either ball's motion the pair is solved again anyway
        tmax = np.maximum(np.minimum(self.state_t[js], self.state_t[i]) - now, 0.0)
        dr = rr[js] - rr[i]
        dv = vv[js] - vv[i]
        da = self.acc[js] - self.acc[i]
        tm = np.where(np.isfinite(tmax), tmax, 1e3)
        sp_i = np.linalg.norm(vv[i]) * tm + 0.5 * np.linalg.norm(self.acc[i]) * tm * tm
        sp_j = (
            np.linalg.norm(vv[js], axis=1) * tm
            + 0.5 * np.linalg.norm(self.acc[js], axis=1) * tm * tm
        )
        dist = np.linalg.norm(dr, axis=1)
        near = dist - D <= sp_i + sp_j + 1e-6
        if not near.any():
            return
        js, dr, dv, da, tmax = js[near], dr[near], dv[near], da[near], tmax[near]
        c = np.stack(
            [
                0.25 * np.einsum("ij,ij->i", da, da),
                np.einsum("ij,ij->i", dv, da),
                np.einsum("ij,ij->i", dv, dv) + np.einsum("ij,ij->i", dr, da),
                2.0 * np.einsum("ij,ij->i", dr, dv),
                np.einsum("ij,ij->i", dr, dr) - D * D,
            ],
            axis=1,
        )
        taus = first_crossing(c, tmax, -1, 0.0)
        tt = now + taus
        air = (self.st[js] == AIR) | (self.st[i] == AIR)
        for k in np.nonzero(air & np.isfinite(tt))[0]:
            flier = int(js[k]) if self.st[js[k]] == AIR else i
            lift = self.segs[flier][-1].state(float(tt[k]))[3]
            if lift >= D:  # high enough to fly over it
                tt[k] = INF
        self.pair_t[i, js] = tt
        self.pair_t[js, i] = tt

    # ------------------------------------------------------------------ the loop
    def next_time(self) -> tuple[float, str, tuple[int, ...]]:
        i = int(np.argmin(self.self_t))
        ts = self.self_t[i]
        flat = int(np.argmin(self.pair_t))
        tp = self.pair_t.flat[flat]
        if tp <= ts:
            a, b = divmod(flat, self.n)
            return float(tp), "pair", (a, b)
        return float(ts), "own", (i,)

    def run(self, until: float = INF, defer_hang_falls: bool = False) -> None:
        """Process events in time order until none is left (or ``until``).

        ``defer_hang_falls``: stop as soon as every ball is at rest even if a hanging
        ball is still due to drop (a ``hang_fall`` comes after the stroke's end).
        """
        same, last = 0, -INF
        for _ in range(MAX_EVENTS):
            t, what, who = self.next_time()
            if not math.isfinite(t):
                return
            if t > until:
                self.t = until
                return
            if (
                defer_hang_falls
                and what == "own"
                and self.self_kind[who[0]] == K_HANG_FALL
                and self.at_rest()
            ):
                return
            if t - last < 1e-9:
                same += 1
                if same > MAX_SAME_TIME:
                    raise PhysicsError(f"simulation stuck at t={t:.6f} s (endless contact)")
            else:
                same = 0
            last = t
            self.t = max(self.t, t)
            if what == "pair":
                self._collide(*who)
            else:
                self._own_event(who[0])
        raise PhysicsError("simulation did not settle (too many events)")

    def at_rest(self) -> bool:
        return bool(np.all((self.st == STAT) | (self.st == GONE)))

    # ------------------------------------------------------------------ resolving
    def _collide(self, i: int, j: int) -> None:
        """Balls i and j touch.  Resolve them and every ball touching them at once.

        Touching balls (a rack, a ball frozen to another) would otherwise need an
        endless series of pairwise collisions at one instant.  Instead the impulses of
        the whole touching cluster are solved together by sequential impulses: every
        contact is visited until none is closing (each impulse alone can only remove
        energy, so the sum cannot add any).
        """
        ri, vi, _, _, _ = self.state(i)
        rj, vj, _, _, _ = self.state(j)
        n2 = (rj - ri) / np.linalg.norm(rj - ri)
        if float(np.dot(vi - vj, n2)) <= MIN_CLOSING_MM_S:
            # touching but not closing.  If one is pushing the other (closing
            # acceleration), look again once they would overlap by PUSH_OVERLAP_MM: by
            # then they close at a small speed and a real collision parts them.
            a_n = float(np.dot(self.acc[j] - self.acc[i], n2))
            t_next = INF
            if a_n < 0:
                if max(np.hypot(*vi), np.hypot(*vj)) < JAM_PUSH_MM_S and AIR not in (
                    self.st[i],
                    self.st[j],
                ):
                    # a slow ball pushing another: friction stops it within a few
                    # hundredths of a second anyway (< 1 mm): stop both now
                    for k in (i, j):
                        r, _, w, _, _ = self.state(k)
                        self.set_motion(k, r, np.zeros(2), np.array([0.0, 0.0, w[2]]))
                    return
                # a ball driven into another by its slip: the contact holds it, so end
                # the slide at once (as friction would, energy-safe) instead of chattering
                slid = False
                for k, sgn in ((i, 1.0), (j, -1.0)):
                    if self.st[k] == SLIDE and sgn * float(np.dot(self.acc[k], n2)) > 0:
                        r, v, w, _, _ = self.state(k)
                        end_slide(v, w, self.p)
                        self.set_motion(k, r, v, w)
                        slid = True
                if slid:
                    return
                t_next = self.t + math.sqrt(2.0 * PUSH_OVERLAP_MM / -a_n)
            self.pair_t[i, j] = self.pair_t[j, i] = t_next
            return
        D = 2 * self.p.R
        st: dict[int, list] = {}

        def load(k: int) -> None:
            r, v, w, lift, vz = self.state(k)
            st[k] = [r, np.array([v[0], v[1], 0.0]), w, lift, vz, math.hypot(v[0], v[1])]

        load(i)
        load(j)
        # the touching cluster around i and j
        rr, _ = self._now_arrays()
        todo = [i, j]
        while todo:
            m = todo.pop()
            for k in np.nonzero(self.st != GONE)[0]:
                k = int(k)
                if k in st:
                    continue
                if (self.st[k] == AIR) and (self.st[m] == AIR):
                    continue
                if float(np.hypot(*(rr[k] - st[m][0]))) <= D + CONTACT_MM:
                    load(k)
                    todo.append(k)
        members = list(st)
        changed_pos: set[int] = set()
        # part overlaps left by a ball pushing another (<= PUSH_OVERLAP_MM, invisible)
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                a, b = members[x], members[y]
                d = st[b][0] - st[a][0]
                dist = float(np.hypot(*d))
                if dist < D and self.st[a] != AIR and self.st[b] != AIR:
                    shift = (D - dist) / 2.0 * d / dist
                    st[a][0] = st[a][0] - shift
                    st[b][0] = st[b][0] + shift
                    changed_pos.update((a, b))
        contacts = []
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                a, b = members[x], members[y]
                if self.st[a] == AIR and self.st[b] == AIR:
                    continue
                if float(np.hypot(*(st[a][0] - st[b][0]))) <= D + CONTACT_MM:
                    contacts.append((a, b))
        order = [(i, j)] + [c for c in contacts if set(c) != {i, j}]
        hit: dict[tuple[int, int], float] = {}
        changed: set[int] = set()
        for _ in range(MAX_CLUSTER_PASSES):
            any_impulse = False
            for a, b in order:
                d = st[b][0] - st[a][0]
                n = d / np.linalg.norm(d)
                vrel = float(np.dot(st[a][1][:2] - st[b][1][:2], n))
                if vrel <= MIN_CLOSING_MM_S:
                    continue
                ball_ball_impulse(st[a][1], st[a][2], st[b][1], st[b][2], n, self.p)
                any_impulse = True
                changed |= {a, b}
                hit[(a, b)] = max(hit.get((a, b), 0.0), vrel)
            if not any_impulse:
                break
        for (a, b), vrel in hit.items():
            last = self.last_hit[a, b]
            self.last_hit[a, b] = self.last_hit[b, a] = self.t
            if vrel < EVENT_MIN_CLOSING_MM_S and (a, b) != (i, j):
                continue
            if self.t - last < CHATTER_S and vrel < EVENT_MIN_RETOUCH_MM_S:
                continue  # still the same contact (one ball pushing or rolling on another)
            first, second = (a, b) if st[a][5] >= st[b][5] else (b, a)
            n = (st[b][0] - st[a][0]) / np.linalg.norm(st[b][0] - st[a][0])
            self._event(
                "collision",
                a=self.names[first],
                b=self.names[second],
                pos=self._xy(st[a][0] + n * self.p.R),
            )
        # a nearly still ball jammed against another stops (a slow cluster would
        # otherwise chatter through endless tiny contacts); this only removes energy
        for a, b in hit:
            if self.st[a] == AIR or self.st[b] == AIR:
                continue
            if max(np.hypot(*st[a][1][:2]), np.hypot(*st[b][1][:2])) < JAM_REST_MM_S:
                for k in (a, b):
                    st[k][1][:] = 0.0
                    st[k][2][:2] = 0.0
        for k in changed | changed_pos:
            r, v, w, lift, vz, _ = st[k]
            if self.st[k] == AIR:
                self.set_motion(k, r, v, w, air=True, z=lift, vz=vz)
            else:
                self.set_motion(k, r, v, w)

    def _bounce(self, i: int, n2: np.ndarray, name: str) -> None:
        r, v, w, lift, vz = self.state(i)
        v3 = np.array([v[0], v[1], 0.0])
        vn_in = float(v3[0] * n2[0] + v3[1] * n2[1])
        if not cushion_impulse(v3, w, n2, self.p):
            self._own(i)  # grazing, not closing in: nothing happens
            return
        last = self.last_cushion.get((i, name), -INF)
        self.last_cushion[(i, name)] = self.t
        if not (self.t - last < CHATTER_S and -vn_in < EVENT_MIN_RETOUCH_MM_S):
            self._event("cushion", ball=self.names[i], cushion=name, pos=self._xy(r))
        if self.st[i] != AIR:
            # spin that drives the ball back into the rubber would make it chatter
            # against it: a slow rebound ends its slide at once (energy-safe) and keeps
            # no speed into the cushion
            st_, a, _, _ = classify(v3[:2].copy(), w.copy(), self.p)
            vn_out = float(v3[0] * n2[0] + v3[1] * n2[1])
            if st_ == SLIDE and float(a @ n2) < 0 and vn_out < SETTLE_CUSHION_MM_S:
                vv = v3[:2].copy()
                end_slide(vv, w, self.p)
                vn = float(vv @ n2)
                if vn < 0:
                    vv -= vn * n2
                    w[0], w[1] = vv[1] / self.p.R, -vv[0] / self.p.R
                v3[:2] = vv
        if self.st[i] == AIR:
            self.set_motion(i, r, v3, w, air=True, z=lift, vz=vz)
        else:
            self.set_motion(i, r, v3, w)

    def _own_event(self, i: int) -> None:
        k = int(self.self_kind[i])
        arg = int(self.self_arg[i])
        g = self.g
        name = self.names[i]
        if k == K_TRANS:
            r, v, w, lift, vz = self.state(i)
            if self.st[i] == AIR:
                vz_up = self.p.e_table * abs(vz)
                if vz_up * vz_up / (2 * G_MM_S2) >= self.p.jump_min_height_mm:
                    self.set_motion(i, r, v, w, air=True, z=0.0, vz=vz_up)
                else:
                    self.set_motion(i, r, v, w)
            else:
                self.set_motion(i, r, v, w)
                if self.st[i] == STAT and self.region[i] >= 0:
                    p = int(self.region[i])
                    if self.in_drop[i] < 0 or self._on_lip(r, p):
                        self._hang(i, p)
        elif k == K_SEG:
            self._bounce(i, g.seg_n[arg], g.seg_name[arg])
        elif k == K_CIRC:
            r, *_ = self.state(i)
            d = r - g.circ_c[arg]
            self._bounce(i, d / np.linalg.norm(d), g.circ_name[arg])
        elif k == K_DROP_IN:
            self.in_drop[i] = arg
            self.drop_t[i] = self.t
            self.region[i] = arg
            self._own(i)
        elif k == K_DROP_OUT:
            self.in_drop[i] = -1
            self.drop_t[i] = INF
            r, *_ = self.state(i)
            depth = float(np.dot(r - g.mouth_c[arg], g.mouth_in[arg]))
            if depth > g.drop_depth[arg]:
                self.pocket(i, arg)  # over the far edge: it meets the pocket's back and drops
                return
            if depth < 0 and self.region[i] == arg:
                self._event("bounce_out", ball=name, pocket=g.pocket_names[arg])
                self.region[i] = -1
            self._own(i)
        elif k == K_FALL:
            r, v, *_ = self.state(i)
            if math.hypot(*v) < self.p.hang_speed_mm_s and self._on_lip(r, arg):
                self.drop_t[i] = self.t  # teetering on the lip: not committed yet
                self._own(i)
            else:
                self.pocket(i, arg)
        elif k == K_HANG_FALL:
            # the drop itself: rules count a hang_fall as the pot (no 'pocket' event)
            self._event("hang_fall", ball=name, pocket=g.pocket_names[arg])
            self._retire(i, SEG_FALL, self.g.drop_c[arg].copy(), self.p.pocket_fall_s)
        elif k == K_MOUTH_IN:
            if self.region[i] < 0:
                self.region[i] = arg
            self._own(i)
        elif k == K_MOUTH_OUT:
            if self.region[i] == arg and self.in_drop[i] != arg:
                self._event("bounce_out", ball=name, pocket=g.pocket_names[arg])
                self.region[i] = -1
            self._own(i)
        elif k == K_LINE:
            lname, ax, _ = g.lines[arg]
            _, v, *_ = self.state(i)
            if ax == 0:
                direction = "to-foot" if v[0] > 0 else "to-head"
            else:
                direction = "to-right" if v[1] > 0 else "to-left"
            self._event("line_cross", ball=name, line=lname, direction=direction)
            self._own(i)
        elif k == K_AIR_EDGE:
            r, v, w, lift, vz = self.state(i)
            normals = ((1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0))
            n2 = np.array(normals[arg])
            if lift >= self.p.nose_height_mm:
                self._event("off_table", ball=name)
                self._retire(i, SEG_FLY, None, self.p.fly_out_s)
                return
            self._bounce(i, n2, self._edge_cushion(arg, r))
        else:  # pragma: no cover
            raise AssertionError(k)

    def _on_lip(self, r: np.ndarray, p: int) -> bool:
        """Centre over the drop hole but within ``hang_margin_mm`` of its edge."""
        d = float(np.hypot(*(r - self.g.drop_c[p])))
        return d > self.g.drop_r[p] - self.p.hang_margin_mm

    def _hang(self, i: int, p: int) -> None:
        """Ball ``i`` came to rest over pocket ``p``'s mouth: it may drop in later."""
        self._event("hang", ball=self.names[i], pocket=self.g.pocket_names[p])
        self.drop_t[i] = INF  # no fall timer while it hangs
        if self.rng.random() < self.p.hang_fall_prob:
            self.hang_t[i] = self.t + float(self.rng.uniform(0.3, 1.5))
        self._own(i)

    def _edge_cushion(self, side: int, r: np.ndarray) -> str:
        if side == 0:
            return "head"
        if side == 1:
            return "foot"
        half = "head" if r[0] < self.g.L / 2 else "foot"
        return f"{'left' if side == 2 else 'right'}-{half}"


__all__ = ["Engine", "PhysicsError", "Seg", "SLIDE", "ROLL"]
