"""Planning strokes for scenes: ask for an outcome, get a stroke that does it.

A scene (``samples/scenes.py``) lays out the balls and plays strokes and hand
actions on a :class:`~luza.physics.sim.Timeline` through a :class:`Player`.
Strokes are *planned*: the scene asks for an
outcome ("pot ball 3 in the foot-left pocket", "the cue ball goes in off") and
:func:`plan_strike` searches, deterministically for the seed, over aim, speed and
spin around a geometric first guess until the simulated shot does that.

Every scene records what people do at the table (the cue lined up behind the cue
ball before each stroke, hands placing and taking balls) as :class:`Action`s, so
the renderer can draw arms, cues and hands at the right moments.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError
from luza.physics.engine import PhysicsError
from luza.physics.sim import ShotResult, Simulator, Timeline
from luza.physics.state import Strike

PAUSE_BEFORE_STROKE_S = 2.8  # the player settles on the shot (people.py shows the cue 2.6 s before)
PAUSE_AFTER_REST_S = 0.6
HAND_ACTION_S = 1.0  # a hand reaching in, placing or taking a ball, and leaving
BREAK_SPEED_MM_S = (6500.0, 9000.0)
PLAN_TRIES = 150


class SceneError(LuzaError):
    """A scene could not be built (e.g. no stroke found that does what it asks)."""


@dataclass(frozen=True)
class Action:
    """Something a person does at the table, for the renderer.

    ``kind``: ``stroke`` (an arm and a cue lined up behind ``ball`` along ``angle_rad``,
    striking at ``t``), ``place`` or ``remove`` (a hand at ``pos`` from ``t0`` to ``t1``).
    """

    kind: str
    t0: float
    t1: float
    pos: tuple[float, float]
    ball: str
    angle_rad: float = 0.0
    t: float = 0.0  # the moment of the strike / of the ball leaving or touching the cloth


@dataclass
class ScenePlay:
    """A scene played out: the timeline (poses and events) and the people's actions."""

    name: str
    game: str
    timeline: Timeline
    actions: list[Action] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        return self.timeline.duration_s


# ------------------------------------------------------------------ geometry
def _dist(a: Iterable[float], b: Iterable[float]) -> float:
    ax, ay = a
    bx, by = b
    return math.hypot(ax - bx, ay - by)


def free_spot(
    profile: TableProfile,
    occupied: dict[str, tuple[float, float]],
    rng: np.random.Generator,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    clearance_mm: float = 10.0,
    tries: int = 2000,
) -> tuple[float, float]:
    """A random ball position on the bed, clear of other balls and the cushions."""
    R = profile.ball_radius_mm
    L, W = profile.size_mm
    xr = x_range or (R + clearance_mm, L - R - clearance_mm)
    yr = y_range or (R + clearance_mm, W - R - clearance_mm)
    for _ in range(tries):
        p = (float(rng.uniform(*xr)), float(rng.uniform(*yr)))
        if all(_dist(p, q) > 2 * R + clearance_mm for q in occupied.values()):
            return p
    raise SceneError("no free place for a ball (table too crowded)")


def ghost_ball_angle(
    profile: TableProfile,
    cue: tuple[float, float],
    obj: tuple[float, float],
    target: tuple[float, float],
) -> float:
    """Direction to strike ``cue`` so that it sends ``obj`` towards ``target`` (ghost ball)."""
    D = profile.ball_diameter_mm
    ox, oy = obj
    tx, ty = target
    d = math.hypot(tx - ox, ty - oy)
    gx, gy = ox - (tx - ox) / d * D, oy - (ty - oy) / d * D
    return math.atan2(gy - cue[1], gx - cue[0])


def pocket_aim_point(profile: TableProfile, pocket: str) -> tuple[float, float]:
    """A point a little inside the mouth: where an object ball should be sent."""
    p = profile.pockets()[pocket]
    mx, my = p.mouth_centre
    return (mx + p.inward[0] * 20.0, my + p.inward[1] * 20.0)


def cut_angle_deg(
    cue: tuple[float, float], obj: tuple[float, float], target: tuple[float, float]
) -> float:
    a1 = math.atan2(obj[1] - cue[1], obj[0] - cue[0])
    a2 = math.atan2(target[1] - obj[1], target[0] - obj[0])
    d = abs((a1 - a2 + math.pi) % (2 * math.pi) - math.pi)
    return math.degrees(d)


# ------------------------------------------------------------------ planning
def events_of(res: ShotResult, typ: str) -> list:
    return [e for e in res.events if e.type == typ]


def pocketed(res: ShotResult) -> dict[str, str]:
    return {e["ball"]: e["pocket"] for e in res.events if e.type == "pocket"}


def first_contact(res: ShotResult, cue: str) -> str | None:
    for e in res.events:
        if e.type == "collision" and cue in (e["a"], e["b"]):
            return e["b"] if e["a"] == cue else e["a"]
    return None


def plan_strike(
    sim: Simulator,
    positions: dict[str, tuple[float, float]],
    cue: str,
    base_angle: float,
    want: Callable[[ShotResult], bool],
    rng: np.random.Generator,
    speed_mm_s: tuple[float, float] = (1500.0, 4000.0),
    angle_jitter_rad: float = 0.02,
    follow: tuple[float, float] = (-0.4, 0.5),
    side: tuple[float, float] = (-0.2, 0.2),
    elevation_deg: tuple[float, float] = (3.0, 8.0),
    tries: int = PLAN_TRIES,
) -> tuple[Strike, ShotResult]:
    """Search strokes around ``base_angle`` until the simulated shot satisfies ``want``.

    The first candidates are close to the geometric aim; the spread grows with the
    number of tries.  Deterministic for the generator's state.
    """
    for i in range(tries):
        spread = angle_jitter_rad * (0.1 + 3.0 * i / tries)
        strike = Strike(
            ball=cue,
            speed_mm_s=float(rng.uniform(*speed_mm_s)),
            angle_rad=float(base_angle + rng.normal(0.0, spread)),
            follow=float(rng.uniform(*follow)),
            side=float(rng.uniform(*side)),
            elevation_deg=float(rng.uniform(*elevation_deg)),
        )
        try:
            res = sim.run(positions, strike)
        except PhysicsError:
            continue  # a stroke the simulator cannot settle is just not a candidate
        if want(res):
            return strike, res
    raise SceneError(f"no stroke of '{cue}' found that does what the scene asks")


class Player:
    """Drives a timeline stroke by stroke and records the people's actions."""

    def __init__(self, name: str, game: str, profile: TableProfile, positions, seed: int):
        self.profile = profile
        self.rng = np.random.default_rng(seed)
        self.sim = Simulator(profile, seed=seed)
        self.timeline = Timeline(profile, dict(positions), seed=seed)
        self.play = ScenePlay(name, game, self.timeline)

    # current state --------------------------------------------------------
    def positions(self) -> dict[str, tuple[float, float]]:
        t = self.timeline.duration_s
        return {b: (p.x_mm, p.y_mm) for b, p in self.timeline.pose_at(t).items() if p.on_table}

    def now(self) -> float:
        return self.timeline.duration_s

    # strokes --------------------------------------------------------------
    def stroke(self, strike: Strike) -> ShotResult:
        pos = self.positions()
        if strike.ball not in pos:
            raise SceneError(f"cue ball {strike.ball} is not on the table")
        self.timeline.wait(PAUSE_BEFORE_STROKE_S)
        t = self.now()
        res = self.timeline.strike(strike, at_t=t)
        self.play.actions.append(
            Action(
                "stroke",
                t - PAUSE_BEFORE_STROKE_S,
                t + 0.35,
                pos[strike.ball],
                strike.ball,
                strike.angle_rad,
                t,
            )
        )
        self.timeline.wait(PAUSE_AFTER_REST_S)
        return res

    def planned(
        self, cue: str, base_angle: float, want: Callable[[ShotResult], bool], **kw
    ) -> ShotResult:
        strike, _ = plan_strike(self.sim, self.positions(), cue, base_angle, want, self.rng, **kw)
        return self.stroke(strike)

    def pot(self, cue: str, obj: str, pocket: str, keep_cue: bool = True, **kw) -> ShotResult:
        pos = self.positions()
        target = pocket_aim_point(self.profile, pocket)
        base = ghost_ball_angle(self.profile, pos[cue], pos[obj], target)

        def want(res: ShotResult) -> bool:
            p = pocketed(res)
            ok = p.get(obj) == pocket and first_contact(res, cue) == obj
            return ok and (not keep_cue or cue not in p) and not events_of(res, "off_table")

        return self.planned(cue, base, want, **kw)

    # hands ----------------------------------------------------------------
    def place(self, ball: str, pos: tuple[float, float]) -> None:
        t0 = self.now()
        t = t0 + HAND_ACTION_S / 2
        self.timeline.place(ball, pos, at_t=t)
        self.play.actions.append(Action("place", t0, t0 + HAND_ACTION_S, pos, ball, t=t))
        self.timeline.wait(HAND_ACTION_S / 2 + 0.3)

    def remove(self, ball: str) -> None:
        pos = self.positions()[ball]
        t0 = self.now()
        t = t0 + HAND_ACTION_S / 2
        self.timeline.remove(ball, at_t=t)
        self.play.actions.append(Action("remove", t0, t0 + HAND_ACTION_S, pos, ball, t=t))
        self.timeline.wait(HAND_ACTION_S / 2 + 0.3)


# -------------------------------------------------------------- candidates
def pottable(
    profile: TableProfile,
    pos: dict[str, tuple[float, float]],
    cues: Iterable[str],
    objs: Iterable[str],
    pockets: Iterable[str],
    max_cut_deg: float = 45.0,
) -> list[tuple[float, str, str, str]]:
    """(difficulty, cue, obj, pocket) with a clear-ish line, easiest first."""
    out = []
    R = profile.ball_radius_mm
    for c in cues:
        for o in objs:
            if o == c or c not in pos or o not in pos:
                continue
            for pk in pockets:
                tgt = pocket_aim_point(profile, pk)
                cut = cut_angle_deg(pos[c], pos[o], tgt)
                if cut > max_cut_deg:
                    continue
                if not _lane_clear(pos, c, o, tgt, R) or not _lane_clear(pos, o, None, tgt, R):
                    continue
                d = _dist(pos[c], pos[o]) + _dist(pos[o], tgt)
                out.append((cut * 30.0 + d, c, o, pk))
    out.sort()
    return out


def line_up(
    profile: TableProfile,
    pocket: str,
    rng: np.random.Generator,
    obj_dist_mm: tuple[float, float] = (250.0, 700.0),
    cue_dist_mm: tuple[float, float] = (400.0, 1000.0),
    max_cut_deg: float = 25.0,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """An object ball and a cue ball lined up for a pot into ``pocket``, both on the bed."""
    R = profile.ball_radius_mm
    L, W = profile.size_mm
    p = profile.pockets()[pocket]
    aim = np.array(pocket_aim_point(profile, pocket))
    out_dir = -np.array(p.inward)
    for _ in range(500):
        a = math.atan2(out_dir[1], out_dir[0]) + rng.uniform(-0.5, 0.5)
        obj = aim + float(rng.uniform(*obj_dist_mm)) * np.array([math.cos(a), math.sin(a)])
        cut = math.radians(rng.uniform(-max_cut_deg, max_cut_deg))
        b = a + cut
        cue = obj + float(rng.uniform(*cue_dist_mm)) * np.array([math.cos(b), math.sin(b)])
        ok = all(R + 15 < v[0] < L - R - 15 and R + 15 < v[1] < W - R - 15 for v in (obj, cue))
        if ok:
            return (float(obj[0]), float(obj[1])), (float(cue[0]), float(cue[1]))
    raise SceneError(f"cannot line up a pot into {pocket}")


def _lane_clear(pos, a: str, b: str | None, target, R: float) -> bool:
    """No other ball within two radii of the segment from ``a`` to ``b`` (or ``target``)."""
    p0 = np.array(pos[a])
    p1 = np.array(pos[b] if b else target)
    d = p1 - p0
    n = float(d @ d) or 1.0
    for k, q in pos.items():
        if k in (a, b):
            continue
        s = np.clip((np.array(q) - p0) @ d / n, 0.0, 1.0)
        if np.linalg.norm(p0 + s * d - np.array(q)) < 2 * R + 2.0:
            return False
    return True


def play_some_pots(pl: Player, cues, objs, pockets, n: int, **kw) -> int:
    """Pot up to ``n`` balls, easiest first; returns how many were potted."""
    done = 0
    for _ in range(n * 3):
        if done >= n:
            break
        pos = pl.positions()
        cands = pottable(pl.profile, pos, cues, [o for o in objs if o in pos], pockets)
        for _, c, o, pk in cands[:3]:
            try:
                pl.pot(c, o, pk, **kw)
            except SceneError:
                continue
            done += 1
            break
        else:
            break
    return done
