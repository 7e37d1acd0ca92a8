"""Collisions inside a breaking rack, replayed with the repo's physics (issue 5).

A rack (or any cluster of balls at rest, touching) struck by a ball breaks in a
wave of contacts a few milliseconds long: at 30-60 fps every member starts moving
in the same frame and only each ball's net first velocity is seen. Which pairs
touched is *inferred*, not seen. :func:`replay_cluster` infers it by replaying the
wave with ``luza.physics`` (``Engine``) from what was measured before it:

* every ball at rest at the hit, at its rest anchor refined over all its rest
  samples (the mean of ``n`` samples: a tenth of a millimetre at 30 fps after 3 s);
* the striker, on its incoming path (one constant-acceleration piece fitted back
  from its last sample before the cluster moved), stopped a millimetre short of
  the first ball its path reaches; no spin (the pair set does not depend on it).

The wave is chaotic in the rack's sub-millimetre gaps: replays from the true rack
moved by 0.05 mm (one coordinate, rms) already change one pair in ten. So the
inputs are perturbed within their measurement noise (``REPLAYS`` replays, the best
racks again with the striker moved across its path, ``LAT_SWEEP_*``, then
``REFINE`` more around the best ones), and each replay is scored by how well it
predicts the positions seen in the frames right after the wave (``OBS_FRAMES``),
with a common time shift fitted in closed form. A pair is a collision when the
replays, weighted by that fit (tempered by the best fit's own chi-square per
sample, which absorbs model error), agree on it at ``MIN_AGREEMENT`` or more.
Its confidence stays below a directly seen contact's (``CONF_LO``-``CONF_HI``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from luza.physics.engine import Engine, PhysicsError
from luza.physics.params import params_from_profile
from luza.vision.ball_paths import START_MM, incoming_piece

# -- tunables (units in the names) --------------------------------------------
# clusters of at least this many balls set moving together are replayed (a rack); a
# smaller one is left to the impulse fit, which has as many velocity equations as it
# has touching pairs (dev seed fp-rally/304 at 31.4 s: four balls hit in two waves
# 60 ms apart, which the extractor takes for one cluster: the replay's single wave
# misses the second)
MIN_MEMBERS = 5
# The search was short of replays: these, twice the 16 and 8 of before (77 replays a
# break in all instead of 53), found 3-8 more of a rack's truth pairs and 3-9 fewer
# false ones on each of dev sets 2600-2699 and 2700-2799 at 30 and 60 fps (their 16
# breaks each), for about 45 % more CPU a break; three times the old did no better.
REPLAYS = 32  # first round: the measured inputs and this many perturbed copies
REFINE = 16  # last round: perturbed copies of the best replays so far
REFINE_ELITE = 4  # ... around this many of them
REFINE_SCALE = 0.5  # ... with this fraction of the measurement noise
ANCHOR_MIN_SIGMA_MM = 0.03  # an anchor's noise is never taken below this
ANCHOR_MAX_SIGMA_MM = 0.5
# the striker's path across its direction is uncertain by several mm (a fast ball's
# samples are blurred, the cue may hide it): offsets on a grid this wide, this fine
STRIKER_GRID_MM = 12.0
STRIKER_GRID_STEP_MM = 2.0
STRIKER_LATERAL_MM = 1.0  # ... then perturbed by this around the best one
MAX_OVERLAP_MM = 0.5  # anchors overlapping more than this are parted to it
STRIKER_SPEED_FRAC = 0.03  # ... and its speed
STANDOFF_MM = 1.0  # the replay starts with the striker this far short of contact
OBS_FRAMES = 3.0  # positions seen up to this many frames after the hit score a replay
OBS_SIGMA_MM = 1.5  # a seen position's noise: this ...
OBS_SIGMA_PER_MM_S = 0.001  # ... plus this per mm/s of the ball's speed
OBS_CAP = 16.0  # one sample adds at most this to a replay's chi-square (outliers)
MAX_SHIFT_S = 0.01  # the common time shift fitted per replay is clipped to this
EMIT_FRAMES = 2.0  # contacts of a replay up to this many frames after the hit are kept
# The striker's offset across its path sets where it meets the apex (the first ball's
# cut) and the fit is sharp in it only from a rack near the true one: from the truth's
# own rack the best offset on a 1 mm grid is within 1 mm of the true one (chi-square 47
# there, 200+ 4 mm off), from the measured rack the fit is nearly flat in it and the
# offset the grid picks was 5-11 mm off on 6 of 16 dev breaks (1600-1699, 30 fps), so
# the perturbed racks were all replayed with a misaimed striker and their fits told the
# racks apart badly. The first round's best racks are replayed again with the striker
# moved across its path (the incoming path's own error is ~5 mm rms at 8 m/s).
LAT_SWEEP_ELITE = 2  # this many of the first round's best racks ...
LAT_SWEEP_MM = 8.0  # ... with the striker moved across its path by up to this ...
LAT_SWEEP_STEP_MM = 2.0  # ... in steps of this
MIN_AGREEMENT = 0.5  # weighted share of the replays that must hold a pair
CONF_LO, CONF_HI = 0.55, 0.85  # confidence at MIN_AGREEMENT .. at full agreement


@dataclass
class WaveInput:
    """What was measured before a cluster broke."""

    t_hit: float  # first member's start (the extractor's estimate)
    t_start: float  # replay start: the striker STANDOFF_MM short of contact
    rest: dict[str, np.ndarray]  # balls at rest at the hit -> refined anchor
    rest_sigma: dict[str, float]  # ... their anchors' noise (mm, per coordinate)
    striker: str
    striker_r: np.ndarray  # at t_start
    striker_v: np.ndarray
    obs: list[tuple[str, float, np.ndarray]]  # (ball, t, seen xy) just after the hit


@dataclass
class WaveResult:
    pairs: dict[frozenset, tuple[float, float]]  # pair -> (agreement, time)
    replays: int
    best_chi2_per_sample: float
    positions: dict[str, np.ndarray]  # where each ball was at the hit (anchors, striker)


def _refined_anchor(bd, rest, start_mm: float) -> tuple[np.ndarray, float]:
    k = (bd.ts >= rest.t0 - 1e-9) & (bd.ts <= rest.t1 + 1e-9)
    xy = bd.xy[k]
    if len(xy):
        xy = xy[np.linalg.norm(xy - rest.anchor, axis=1) <= start_mm]
    if len(xy) < 2:
        return np.asarray(rest.anchor, float), ANCHOR_MAX_SIGMA_MM
    sd = float(np.sqrt(0.5 * np.sum(np.var(xy, axis=0, ddof=1))))
    sig = float(np.clip(sd / math.sqrt(len(xy)), ANCHOR_MIN_SIGMA_MM, ANCHOR_MAX_SIGMA_MM))
    return xy.mean(axis=0), sig


def wave_input(ex, cl, striker: str) -> WaveInput | None:
    """Measured inputs of the wave a ``striker`` started in cluster ``cl`` (Moves)."""
    R = ex.R
    t_hit = min(m.t_start for m in cl)
    t_rest = min((m.t_rest0 for m in cl if m.t_rest0 is not None), default=None)
    if t_rest is None:
        return None
    rest: dict[str, np.ndarray] = {}
    sig: dict[str, float] = {}
    for b, bd in ex.data.items():
        if b == striker:
            continue
        last = None
        for r in bd.rests:
            if r.t0 <= t_hit - 0.1 and r.t1 >= t_hit - 3.0 * ex.dt:
                last = r
        if last is None:
            continue
        rest[b], sig[b] = _refined_anchor(bd, last, START_MM)
    members = {m.ball for m in cl}
    if not members <= set(rest):
        return None
    piece = incoming_piece(ex.data[striker], t_rest)  # the extractor's own striker path
    if piece is None:
        return None
    # the first time the incoming path comes within two radii of a ball at rest
    t_lo = piece.t1 - 0.5 * ex.dt
    tt = np.linspace(t_lo, t_rest + 3.0 * ex.dt, 400)
    path = np.stack([piece.at(float(t)) for t in tt])
    near = np.stack([np.linalg.norm(path - a, axis=1) for a in rest.values()]).min(axis=0)
    inside = np.nonzero(near <= 2 * R + STANDOFF_MM)[0]
    if not len(inside) or inside[0] == 0:
        return None
    t_start = float(tt[inside[0] - 1])
    r0, v0 = piece.at(t_start), piece.vel(t_start)
    if float(np.linalg.norm(v0)) < 100.0:
        return None
    obs: list[tuple[str, float, np.ndarray]] = []
    t_obs = t_hit + OBS_FRAMES * ex.dt
    for b in list(rest) + [striker]:
        bd = ex.data[b]
        k = (bd.ts > t_start) & (bd.ts <= t_obs)
        obs += [(b, float(t), xy) for t, xy in zip(bd.ts[k], bd.xy[k], strict=True)]
    if not obs:
        return None
    return WaveInput(t_hit, t_start, rest, sig, striker, r0, v0, obs)


def _state_at(eng: Engine, i: int, t: float):
    segs = eng.segs[i]
    k = len(segs) - 1
    while k > 0 and segs[k].t0 > t:
        k -= 1
    seg = segs[k]
    if seg.kind >= 10:  # falling, flying, off the table
        return None
    r, v, *_ = seg.state(max(t, seg.t0))
    return r, v


def _parted(rest: dict[str, np.ndarray], min_d: float) -> dict[str, np.ndarray]:
    """Anchors moved apart (half each) where two overlap more than the noise allows."""
    names = list(rest)
    P = np.stack([rest[b] for b in names]).astype(float)
    for _ in range(5):
        d = P[:, None, :] - P[None, :, :]
        dist = np.linalg.norm(d, axis=2) + np.eye(len(P)) * 1e9
        i, j = np.nonzero(dist < min_d - 1e-6)
        if not len(i):
            break
        for a, b in zip(i, j, strict=True):
            if a < b:
                gap = float(np.linalg.norm(P[a] - P[b]))
                u = (P[a] - P[b]) / max(gap, 1e-9)
                P[a] += u * (min_d - gap) / 2.0
                P[b] -= u * (min_d - gap) / 2.0
    return {b: P[k] for k, b in enumerate(names)}


def find_striker(ex, cl, exclude: frozenset = frozenset()) -> str | None:
    """A ball moving when cluster ``cl`` started, not in it (nor in ``exclude``), that
    comes closest to a member from a frame before to three after (within a radius and
    60 mm of touching)."""
    t_hit = min(m.t_start for m in cl)
    members = {m.ball for m in cl}
    best, bd_ = None, math.inf
    for b, bd in ex.data.items():
        if b in members or b in exclude:
            continue
        if not any(m.t_start < t_hit - ex.dt and m.t_end > t_hit for m in bd.moves):
            continue
        d = math.inf
        for t in t_hit + ex.dt * np.linspace(-1.0, 3.0, 9):
            p = ex.pos_at(b, float(t))
            if p is not None:
                d = min([d] + [float(np.linalg.norm(p - m.anchor0)) for m in cl])
        if d < bd_:
            best, bd_ = b, d
    return best if bd_ <= 3.0 * ex.R + 60.0 else None


def _clear_start(rest, r0: np.ndarray, v0: np.ndarray, D: float) -> np.ndarray:
    """``r0`` backed along the striker's path until it is ``STANDOFF_MM`` short of every
    ball at rest. The start is 1 mm short of the first ball on the *measured* path; a
    striker moved across it towards that ball's centre starts inside it (the physics
    refuses the replay), so offsets on one side of the path were never replayed (dev
    fp-multi/1661 at 30 fps: the true one, 7.4 mm across, among them). The later arrival
    (a few mm at several m/s: well under a millisecond) is the fitted time shift's."""
    speed = float(np.linalg.norm(v0))
    if speed <= 0.0:
        return r0
    u = v0 / speed
    reach = D + STANDOFF_MM
    back = 0.0
    for p in rest.values():
        d = np.asarray(p, float) - r0
        along = float(d @ u)
        across2 = float(d @ d) - along * along
        if across2 >= reach * reach:
            continue
        h = math.sqrt(reach * reach - across2)
        if along - h < 0.0 < along + h:  # inside the reach now: back to its edge
            back = max(back, h - along)
    return r0 - u * back if back > 0.0 else r0


def replay_once(params, geom, wi: WaveInput, rest, r0, v0, t_end):
    """One replay: (collisions [(t, a, b)], chi-square, samples, time shift) or None."""
    names = list(rest) + [wi.striker]
    rest = _parted(rest, 2.0 * params.R - MAX_OVERLAP_MM)
    r0 = _clear_start(rest, np.asarray(r0, float), np.asarray(v0, float), 2.0 * params.R)
    pos = {b: (float(p[0]), float(p[1])) for b, p in rest.items()}
    pos[wi.striker] = (float(r0[0]), float(r0[1]))
    try:
        eng = Engine(params, geom, names, pos, wi.t_start, emit=True)
        eng.set_motion(eng.idx[wi.striker], np.asarray(r0, float), v0, np.zeros(3))
        eng.run(until=t_end)
    except PhysicsError:
        return None
    pred, vel, seen = [], [], []
    for b, t, xy in wi.obs:
        s = _state_at(eng, eng.idx[b], t)
        if s is None:
            continue
        pred.append(s[0])
        vel.append(s[1])
        seen.append(xy)
    if not pred:
        return None
    P, V, S = np.array(pred), np.array(vel), np.array(seen)
    E = P - S
    vv = float(np.sum(V * V))
    shift = -float(np.sum(V * E)) / vv if vv > 0 else 0.0
    shift = float(np.clip(shift, -MAX_SHIFT_S, MAX_SHIFT_S))
    E = E + V * shift
    sig = OBS_SIGMA_MM + OBS_SIGMA_PER_MM_S * np.linalg.norm(V, axis=1)
    chi = np.minimum(np.sum(E * E, axis=1) / (sig * sig), OBS_CAP)
    cols = [(e.t + shift, e["a"], e["b"]) for e in eng.events if e.type == "collision"]
    return cols, float(np.sum(chi)), len(chi), shift


def replay_cluster(ex, cl, striker: str, seed: int = 0) -> WaveResult | None:
    """The pairs that touched in the wave ``striker`` started in cluster ``cl``."""
    if len(cl) < MIN_MEMBERS:
        return None
    wi = wave_input(ex, cl, striker)
    if wi is None:
        return None
    params = params_from_profile(ex.profile)
    t_end = wi.t_hit + max(OBS_FRAMES, EMIT_FRAMES) * ex.dt + 1e-4
    rng = np.random.default_rng(seed)
    u = wi.striker_v / np.linalg.norm(wi.striker_v)
    across = np.array([-u[1], u[0]])
    balls = list(wi.rest)
    sig_a = np.array([wi.rest_sigma[b] for b in balls])[:, None]
    base = np.stack([wi.rest[b] for b in balls])

    def draw(center, lat0, spd0, scale):
        rest = center + rng.normal(0.0, 1.0, center.shape) * sig_a * scale
        lat = lat0 + rng.normal(0.0, STRIKER_LATERAL_MM * scale)
        spd = spd0 * (1.0 + rng.normal(0.0, STRIKER_SPEED_FRAC * scale))
        return rest, lat, spd

    runs = []  # (chi2, n, cols, rest, lat, spd)

    def run(rest, lat, spd):
        r0 = wi.striker_r + across * lat
        rest_d = dict(zip(balls, rest, strict=True))
        out = replay_once(params, ex.geom, wi, rest_d, r0, wi.striker_v * spd, t_end)
        if out is not None:
            cols, chi, n, _ = out
            runs.append((chi, n, cols, rest, lat, spd))

    grid = np.arange(-STRIKER_GRID_MM, STRIKER_GRID_MM + 1e-9, STRIKER_GRID_STEP_MM)
    for lat in grid:
        run(base, float(lat), 1.0)
    if not runs:
        return None
    lat0 = min(runs, key=lambda r: r[0])[4]
    n_grid = len(runs)
    for _ in range(REPLAYS):
        run(*draw(base, lat0, 1.0, 1.0))
    # the striker re-aimed on the first round's best racks (see LAT_SWEEP_ELITE)
    sweep = np.arange(-LAT_SWEEP_MM, LAT_SWEEP_MM + 1e-9, LAT_SWEEP_STEP_MM)
    for e in sorted(runs[n_grid:], key=lambda r: r[0])[:LAT_SWEEP_ELITE]:
        for d in sweep[np.abs(sweep) > 1e-9]:
            run(e[3], e[4] + float(d), e[5])
    elite = sorted(runs, key=lambda r: r[0])[:REFINE_ELITE]
    for k in range(REFINE):
        e = elite[k % len(elite)]
        run(*draw(e[3], e[4], e[5], REFINE_SCALE))
    chi = np.array([r[0] for r in runs])
    n = max(1, min(r[1] for r in runs))
    temp = max(1.0, float(chi.min()) / n)  # model error: the best fit's chi-square per sample
    w = np.exp(-0.5 * (chi - chi.min()) / temp)
    w /= w.sum()
    t_emit = wi.t_hit + EMIT_FRAMES * ex.dt
    share: dict[frozenset, float] = {}
    when: dict[frozenset, tuple[float, float]] = {}
    for wk, r in zip(w, runs, strict=True):
        seen_here = set()
        for t, a, b in r[2]:
            if t > t_emit:
                continue
            p = frozenset((a, b))
            if p in seen_here:
                continue
            seen_here.add(p)
            share[p] = share.get(p, 0.0) + float(wk)
            if p not in when or wk > when[p][0]:
                when[p] = (float(wk), t)
    pairs = {p: (s, when[p][1]) for p, s in share.items() if s >= MIN_AGREEMENT}
    where = dict(wi.rest)
    where[wi.striker] = wi.striker_r
    return WaveResult(pairs, len(runs), float(chi.min()) / n, where)


def confidence(agreement: float) -> float:
    f = (agreement - MIN_AGREEMENT) / max(1e-9, 1.0 - MIN_AGREEMENT)
    return float(CONF_LO + (CONF_HI - CONF_LO) * np.clip(f, 0.0, 1.0))


def cluster_collisions(ex, cl, striker: str | None) -> list | None:
    """The extractor's hook: collision candidates for cluster ``cl`` broken by
    ``striker`` (None: not replayed, the caller's impulse fit stands)."""
    from luza.vision.events import _Cand, _r

    striker = striker or find_striker(ex, cl)
    if striker is None:
        return None
    res = replay_cluster(ex, cl, striker)
    if res is None and len(cl) >= MIN_MEMBERS:
        # the ball the extractor named cannot have broken it (no incoming path at speed:
        # a rack ball creeping at 4 mm/s before the break, named because it was moving,
        # dev seed fp-multi/80 at 60 fps): the moving ball that comes closest instead
        alt = find_striker(ex, cl, exclude=frozenset((striker,)))
        if alt is not None:
            striker, res = alt, replay_cluster(ex, cl, alt)
    if res is None or not res.pairs:
        return None
    out = []
    for p, (agree, t) in sorted(res.pairs.items(), key=lambda kv: kv[1][1]):
        a, b = sorted(p, key=lambda x: (x != striker, x))
        pos = _r(0.5 * (res.positions[a] + res.positions[b]))
        data = {"a": a, "b": b, "pos": pos, "inferred": True}
        out.append(_Cand("collision", t, confidence(agree), data))
    return out
