"""Public API of the physics: one stroke (:class:`Simulator`) or a whole scene (:class:`Timeline`).

>>> sim = Simulator(load_profile("pyramid-12ft"), seed=0)
>>> res = sim.run({"Y": (800, 887)}, Strike("Y", 2000.0, 0.0, follow=0.4))
>>> res.events[0].type, res.events[-1].type
('shot_start', 'shot_end')

Events use the vocabulary of ``luza/events.py`` with exact times and ``frame=None``
(the scene writer fills frames).  ``pose_at(t)`` gives every ball's
:class:`~luza.physics.state.BallPose` at any time, for the renderer.
"""

from __future__ import annotations

import bisect
import math
import zlib
from dataclasses import dataclass, field

import numpy as np

from luza import events as ev
from luza.calibration.profiles import TableProfile
from luza.physics.engine import SEG_OFF, Engine, PhysicsError, Seg
from luza.physics.motion import GONE, STAT, kinetic_energy, strike_velocity
from luza.physics.params import G_MM_S2, Geometry, Params, build_geometry, params_from_profile
from luza.physics.state import BallPose, Strike

STRIKE_PAUSE_S = 0.8  # Timeline: pause between "all at rest" and the next stroke


@dataclass
class ShotResult:
    """One stroke from the cue until every ball is at rest.

    ``events`` run from ``shot_start`` to ``shot_end`` (at ``t_end``, every ball at
    rest), except that a ball left hanging in a mouth may drop later: its
    ``hang_fall`` then follows ``shot_end`` (``t_settled`` is when it has gone).
    """

    events: list[ev.Event]
    t_start: float
    t_end: float
    balls: list[str]
    segs: dict[str, list[Seg]]
    params: Params
    max_speeds: dict[str, float] = field(default_factory=dict)
    # when nothing more happens: t_end, or later if a hanging ball drops after the end
    t_settled: float = 0.0
    _starts: dict[str, list[float]] = field(default_factory=dict, repr=False)

    def _seg(self, ball: str, t: float) -> Seg:
        segs = self.segs[ball]
        starts = self._starts.get(ball)
        if starts is None or len(starts) != len(segs):
            starts = self._starts[ball] = [s.t0 for s in segs]
        k = bisect.bisect_right(starts, t) - 1
        return segs[max(k, 0)]

    def pose_at(self, t: float) -> dict[str, BallPose]:
        """Pose of every ball of the input at time ``t``."""
        out = {}
        for b in self.balls:
            s = self._seg(b, t)
            out[b] = s.pose(max(t, s.t0))
        return out

    def state_at(self, ball: str, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(position, velocity, angular velocity, lift) of one ball at ``t``."""
        s = self._seg(ball, t)
        r, v, w, lift, _ = s.state(max(t, s.t0))
        return r, v, w, lift

    def energy_at(self, t: float) -> float:
        """Kinetic (translation + rotation) plus potential energy of the balls on the bed."""
        tot = 0.0
        for b in self.balls:
            s = self._seg(b, t)
            if s.kind == SEG_OFF or s.kind >= 10:
                continue
            r, v, w, lift, vz = s.state(max(t, s.t0))
            tot += kinetic_energy(v, w, self.params, vz) + self.params.m * G_MM_S2 * lift
        return tot

    @property
    def final_positions(self) -> dict[str, tuple[float, float]]:
        """Balls still on the table at the end, ``{ball: (x_mm, y_mm)}``."""
        out = {}
        for b in self.balls:
            s = self.segs[b][-1]
            if s.kind == STAT:
                out[b] = (float(s.r0[0]), float(s.r0[1]))
        return out

    @property
    def final_rotations(self) -> dict[str, np.ndarray]:
        return {b: self.segs[b][-1].rotation(self.t_end) for b in self.balls}

    def max_speed_mm_s(self, ball: str) -> float:
        return self.max_speeds.get(ball, 0.0)

    def events_of(self, type_: str) -> list[ev.Event]:
        return [e for e in self.events if e.type == type_]


class Simulator:
    """Event-based billiards physics on one table (see ``luza/physics/engine.py``)."""

    def __init__(self, profile: TableProfile, seed: int = 0) -> None:
        self.profile = profile
        self.params = params_from_profile(profile)
        self.geom: Geometry = build_geometry(profile)
        self.seed = int(seed)

    def _rng(self, positions, strike: Strike) -> np.random.Generator:
        """A generator drawn from the seed and this stroke's inputs only.

        So ``run`` is a pure function of its arguments (and shifting ``t0`` only shifts
        the times): a planner trying strokes with one Simulator and a Timeline replaying
        the chosen one later get the same outcome.
        """
        key = repr((sorted((b, float(x), float(y)) for b, (x, y) in positions.items()), strike))
        return np.random.default_rng([self.seed, zlib.crc32(key.encode())])

    def run(
        self,
        positions: dict[str, tuple[float, float]],
        strike: Strike,
        t0: float = 0.0,
        max_time_s: float = 60.0,
        rotations: dict[str, np.ndarray] | None = None,
        balls: list[str] | None = None,
    ) -> ShotResult:
        """Simulate one stroke from balls at rest at ``positions``.

        ``balls``: every ball to report poses for (default: those in ``positions``);
        balls not in ``positions`` are off the table throughout.
        """
        names = list(balls) if balls is not None else list(positions)
        for b in positions:
            if b not in names:
                names.append(b)
        if strike.ball not in positions:
            raise PhysicsError(f"cannot strike ball {strike.ball!r}: it is not on the table")
        if not (math.isfinite(strike.speed_mm_s) and strike.speed_mm_s >= 0):
            raise PhysicsError(f"strike speed must be finite and >= 0, got {strike.speed_mm_s}")
        for what in ("angle_rad", "follow", "side", "elevation_deg"):
            if not math.isfinite(getattr(strike, what)):
                raise PhysicsError(f"strike {what} must be a finite number")
        rng = self._rng(positions, strike)
        eng = Engine(self.params, self.geom, names, positions, t0, rotations, rng)
        eng._event("shot_start", cue_ball=strike.ball)
        i = eng.idx[strike.ball]
        v, w, vz = strike_velocity(
            strike.speed_mm_s,
            strike.angle_rad,
            strike.follow,
            strike.side,
            strike.elevation_deg,
            self.params,
        )
        r = eng.r0[i].copy()
        eng.set_motion(i, r, v, w, air=vz > 0, z=0.0, vz=vz)
        eng.run(until=t0 + max_time_s, defer_hang_falls=True)
        if not eng.at_rest():  # out of time: freeze everything where it is
            for j in range(eng.n):
                if eng.st[j] not in (STAT, GONE):
                    r, *_ = eng.state(j)
                    eng.set_motion(j, r, np.zeros(2), np.zeros(3))
        t_end = eng.t
        pos = {
            eng.names[j]: [round(float(eng.r0[j][0]), 3), round(float(eng.r0[j][1]), 3)]
            for j in range(eng.n)
            if eng.st[j] == STAT
        }
        eng.events.append(ev.make("shot_end", t_end, None, 1.0, positions=pos))
        # a ball left hanging over a drop may still fall, after the stroke's end
        eng.run(until=t_end + max_time_s)
        t_settled = t_end
        if eng.events[-1].type == "hang_fall":
            t_settled = eng.events[-1].t + self.params.pocket_fall_s
        return ShotResult(
            events=eng.events,
            t_start=float(t0),
            t_end=float(t_end),
            balls=names,
            segs={b: eng.segs[eng.idx[b]] for b in names},
            params=self.params,
            max_speeds={b: float(eng.max_speed[eng.idx[b]]) for b in names},
            t_settled=float(t_settled),
        )


@dataclass
class _Hold:
    """A stretch of the timeline with no ball travelling.

    Balls in ``from_shot`` rest where ``shot`` left them and may still spin in place
    (side spin outlasts the roll): their orientation follows that shot's last segment.
    """

    t0: float
    positions: dict[str, tuple[float, float]]
    rotations: dict[str, np.ndarray]
    shot: ShotResult | None = None
    from_shot: frozenset[str] = frozenset()

    def rotation(self, ball: str, t: float) -> np.ndarray:
        if self.shot is not None and ball in self.from_shot:
            return self.shot.segs[ball][-1].rotation(t)
        return self.rotations.get(ball, np.eye(3))


class Timeline:
    """A whole scene: strokes and hand actions in time order.

    Build it in time order; each action starts no earlier than the previous one has
    finished (all balls at rest).  ``pose_at`` works for any time, ``events`` is the
    merged, time-ordered stream.
    """

    def __init__(
        self,
        profile: TableProfile,
        positions: dict[str, tuple[float, float]],
        seed: int = 0,
        t0: float = 0.0,
    ) -> None:
        self.profile = profile
        self.sim = Simulator(profile, seed=seed)
        self._balls: list[str] = list(positions)
        self._hand_events: list[ev.Event] = []
        self.shots: list[ShotResult] = []
        # pieces: ("hold", _Hold) or ("shot", ShotResult), in time order
        self._pieces: list[tuple[float, object]] = []
        self._now = float(t0)
        self._positions = {b: (float(x), float(y)) for b, (x, y) in positions.items()}
        self._rotations = {b: np.eye(3) for b in positions}
        self._from_shot: set[str] = set()  # balls left (maybe spinning) by the last shot
        self._check_positions(self._positions)
        self._hold(self._now)

    def _rot(self) -> dict[str, np.ndarray]:
        return {b: r.copy() for b, r in self._rotations.items()}

    def _hold(self, t: float) -> None:
        last = self.shots[-1] if self.shots else None
        self._pieces.append(
            (t, _Hold(t, dict(self._positions), self._rot(), last, frozenset(self._from_shot)))
        )

    def _check_positions(self, positions: dict[str, tuple[float, float]]) -> None:
        Engine(self.sim.params, self.sim.geom, list(positions), positions, 0.0, emit=False)

    def _at(self, at_t: float | None) -> float:
        if at_t is None:
            return self._now + STRIKE_PAUSE_S
        at_t = float(at_t)
        if at_t < self._now - 1e-9:
            raise PhysicsError(
                f"action at t={at_t:.3f} s is before the table is at rest (t={self._now:.3f} s)"
            )
        return at_t

    @property
    def now(self) -> float:
        """When the table is next at rest (the earliest time for a new action)."""
        return self._now

    @property
    def positions(self) -> dict[str, tuple[float, float]]:
        return dict(self._positions)

    def strike(
        self, strike: Strike, at_t: float | None = None, max_time_s: float = 60.0
    ) -> ShotResult:
        t = self._at(at_t)
        if self.shots:
            for b in self._from_shot:
                self._rotations[b] = self.shots[-1].segs[b][-1].rotation(t)
        res = self.sim.run(
            self._positions,
            strike,
            t0=t,
            max_time_s=max_time_s,
            rotations=self._rotations,
            balls=list(self._balls),
        )
        self.shots.append(res)
        self._pieces.append((t, res))
        self._positions = res.final_positions
        rots = res.final_rotations
        for b in self._positions:
            self._rotations[b] = rots[b]
        self._from_shot = set(self._positions)
        self._now = max(res.t_end, res.t_settled)
        self._hold(self._now)
        return res

    def place(self, ball: str, xy: tuple[float, float], at_t: float | None = None) -> None:
        """A hand puts ``ball`` at ``xy`` (also to move a ball already on the table)."""
        t = self._at(at_t)
        new = dict(self._positions)
        new[ball] = (float(xy[0]), float(xy[1]))
        self._check_positions(new)
        if ball not in self._balls:
            self._balls.append(ball)
        if ball not in self._rotations:
            self._rotations[ball] = np.eye(3)
        self._positions = new
        if ball in self._from_shot and self.shots:
            self._rotations[ball] = self.shots[-1].segs[ball][-1].rotation(t)
            self._from_shot.discard(ball)
        self._hand_events.append(
            ev.make("ball_placed", t, None, 1.0, ball=ball, pos=[float(xy[0]), float(xy[1])])
        )
        self._now = t
        self._hold(t)

    def remove(self, ball: str, at_t: float | None = None) -> None:
        """A hand takes ``ball`` off the table."""
        t = self._at(at_t)
        if ball not in self._positions:
            raise PhysicsError(f"cannot remove ball {ball!r}: it is not on the table")
        new = dict(self._positions)
        del new[ball]
        self._positions = new
        self._from_shot.discard(ball)
        self._hand_events.append(ev.make("ball_removed", t, None, 1.0, ball=ball))
        self._now = t
        self._hold(t)

    def wait(self, seconds: float) -> None:
        self._now += max(0.0, float(seconds))

    @property
    def duration_s(self) -> float:
        return self._now

    @property
    def balls(self) -> list[str]:
        return list(self._balls)

    @property
    def events(self) -> list[ev.Event]:
        allev = [e for s in self.shots for e in s.events] + self._hand_events
        order = sorted(range(len(allev)), key=lambda k: (allev[k].t, k))
        return [allev[k] for k in order]

    def pose_at(self, t: float) -> dict[str, BallPose]:
        starts = [p[0] for p in self._pieces]
        k = max(0, bisect.bisect_right(starts, t) - 1)
        piece = self._pieces[k][1]
        if isinstance(piece, ShotResult):
            poses = piece.pose_at(t)
            return {b: poses.get(b, BallPose(0.0, 0.0, 0.0, np.eye(3), False)) for b in self._balls}
        hold: _Hold = piece  # type: ignore[assignment]
        out = {}
        for b in self._balls:
            if b in hold.positions:
                x, y = hold.positions[b]
                out[b] = BallPose(x, y, 0.0, hold.rotation(b, t), True)
            else:
                out[b] = BallPose(0.0, 0.0, 0.0, np.eye(3), False)
        return out


@dataclass(frozen=True)
class FreeState:
    """Prediction for a ball moving alone: where it is, how fast, its spin."""

    pos: tuple[float, float]
    vel: tuple[float, float]
    spin: tuple[float, float, float]
    on_table: bool


class FreePredictor:
    """Predicts a lone ball with the simulator's motion laws (cushions, jaws, pockets)."""

    def __init__(self, profile: TableProfile) -> None:
        self.params = params_from_profile(profile)
        self.geom = build_geometry(profile)

    def predict(
        self,
        pos: tuple[float, float],
        vel: tuple[float, float],
        spin: tuple[float, float, float] | None,
        dt: float,
    ) -> FreeState:
        """State after ``dt`` seconds; ``spin`` None means rolling naturally."""
        R = self.params.R
        x = min(max(float(pos[0]), R), self.geom.L - R)
        y = min(max(float(pos[1]), R), self.geom.W - R)
        v = np.array([float(vel[0]), float(vel[1])])
        w = (
            np.array([v[1] / R, -v[0] / R, 0.0])
            if spin is None
            else np.array([float(c) for c in spin])
        )
        eng = Engine(self.params, self.geom, ["b"], {"b": (x, y)}, 0.0, emit=False)
        eng.set_motion(0, np.array([x, y]), v, w)
        eng.run(until=float(dt))
        s = eng.segs[0][-1]
        r, vv, ww, _, _ = s.state(max(dt, s.t0))
        on = s.pose(max(dt, s.t0)).on_table
        return FreeState(
            (float(r[0]), float(r[1])),
            (float(vv[0]), float(vv[1])),
            (float(ww[0]), float(ww[1]), float(ww[2])),
            bool(on),
        )


def predict_free(
    pos: tuple[float, float],
    vel: tuple[float, float],
    spin: tuple[float, float, float] | None,
    dt: float,
    profile: TableProfile,
) -> FreeState:
    """One-off :meth:`FreePredictor.predict` (build a FreePredictor to call it often)."""
    return FreePredictor(profile).predict(pos, vel, spin, dt)


__all__ = [
    "FreePredictor",
    "FreeState",
    "PhysicsError",
    "ShotResult",
    "Simulator",
    "Timeline",
    "predict_free",
]
