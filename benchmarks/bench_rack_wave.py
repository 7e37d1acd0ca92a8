"""How chaotic is a breaking rack? Replays of the truth's breaks with perturbed inputs.

    .venv/bin/python benchmarks/bench_rack_wave.py --seeds 0-147,300-399 --what rack \
        --sigmas 0,0.02,0.05,0.1,0.2

For every wave of 3+ collisions within 5 ms in the played scenes (``fp-break``,
``fp-multi``, ``fp-rally``; the events benchmark's cache), the wave is replayed with
``luza.physics`` from the truth's own state 2 ms before it, with one input perturbed:

* ``rack``: every ball at rest moved by N(0, sigma) mm per coordinate;
* ``lateral``: the striker moved across its path by N(0, sigma) mm;
* ``speed``: the striker's speed scaled by 1 + N(0, sigma);
* ``spin``: the striker's spin scaled by sigma (0: no spin).

and the pairs that touched from 1 ms before the wave to 3 frames (30 fps) after it
are compared with the truth's (recall / precision). ``sigma 0`` must give 100 %.

``--what fit --fps 30``: the extractor's own replays of each break (sampled with the
tracker's noise), against one replay from the truth's rack and striker at the same
start (no spin, as the replays): the best replay's chi-square of the positions seen
after the wave, the truth's, and the pairs the vote kept (recall / precision against
the truth's pairs of the wave +- 3 frames). Breaks whose replay starts after the
true contact (the truth's striker already slowed) have no truth replay.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from luza.physics.engine import Engine, PhysicsError
from luza.physics.params import build_geometry, params_from_profile
from luza.samples.planning import SceneError
from luza.samples.scenes import SCENES
from luza.vision.events_truth import WAVE_S, load_play

RACK_SCENES = ("fp-break", "fp-multi", "fp-rally")


def seeds_of(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def waves(events) -> tuple[list[float], list]:
    """First times of the waves (3+ collisions within WAVE_S), and the collisions."""
    col = sorted((e for e in events if e.type == "collision"), key=lambda e: e.t)
    ts = [e.t for e in col]
    starts = sorted({ts[i] for i in range(len(ts) - 2) if ts[i + 2] - ts[i] <= WAVE_S})
    out: list[float] = []
    for t in starts:
        if not out or t - out[-1] >= 0.05:
            out.append(t)
    return out, col


def pairs(evs, t0: float, t1: float) -> set:
    return {frozenset((e["a"], e["b"])) for e in evs if t0 <= e.t <= t1}


def replay(params, geom, balls, state, t0: float, t1: float) -> list:
    pos = {b: (float(r[0]), float(r[1])) for b, (r, _, _) in state.items()}
    eng = Engine(params, geom, balls, pos, t0)
    for b, (r, v, w) in state.items():
        if math.hypot(*v) > 0:
            eng.set_motion(eng.idx[b], np.asarray(r, float), np.asarray(v, float), w)
    eng.run(until=t1)
    return [e for e in eng.events if e.type == "collision"]


def perturb(state: dict, what: str, sigma: float, rng: np.random.Generator) -> dict:
    out = {}
    for b, (r, v, w) in state.items():
        moving = math.hypot(*v) > 0
        if what == "rack" and not moving:
            r = r + rng.normal(0.0, sigma, 2)
        elif moving and what == "lateral":
            u = v / np.linalg.norm(v)
            r = r + np.array([-u[1], u[0]]) * rng.normal(0.0, sigma)
        elif moving and what == "speed":
            v = v * (1.0 + rng.normal(0.0, sigma))
        elif moving and what == "spin":
            w = w * sigma
        out[b] = (r, v, w)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0-147,300-399")
    ap.add_argument("--what", default="rack", choices=("rack", "lateral", "speed", "spin", "fit"))
    ap.add_argument("--fps", type=float, default=30.0, help="--what fit: the frame rate")
    ap.add_argument("--sigmas", default="0,0.02,0.05,0.1,0.2")
    ap.add_argument("--cache", default="/tmp/luza_ev_cache2")
    a = ap.parse_args(argv)
    if a.what == "fit":
        return fit_report(seeds_of(a.seeds), a.fps, a.cache)
    sigmas = [float(x) for x in a.sigmas.split(",")]
    names = sorted(SCENES)
    rng = np.random.default_rng(0)
    tally = {s: [0, 0, 0, 0] for s in sigmas}  # tp, fn, fp, refused
    cpu, n_rep, n_waves = 0.0, 0, 0
    for seed in seeds_of(a.seeds):
        name = names[seed % len(names)]
        if name not in RACK_SCENES:
            continue
        try:
            _, profile, play = load_play(name, seed, a.cache)
        except (SceneError, PhysicsError):
            continue
        params, geom = params_from_profile(profile), build_geometry(profile)
        tl = play.timeline
        starts, col = waves(tl.events)
        for tw in starts:
            shot = next(r for r in tl.shots if r.t_start <= tw <= r.t_end)
            t0 = tw - 2e-3
            state = {}
            for b in shot.balls:
                if shot._seg(b, t0).kind >= 10:  # pocketed, flying, off the table
                    continue
                r, v, w, _ = shot.state_at(b, t0)
                state[b] = (r.copy(), v.copy(), w.copy())
            t_a, t_b = tw - 1e-3, tw + WAVE_S + 3.0 / 30.0
            truth = pairs(col, t_a, t_b)
            n_waves += 1
            for s in sigmas:
                c0 = time.process_time()
                try:
                    got = pairs(
                        replay(params, geom, shot.balls, perturb(state, a.what, s, rng), t0, t_b),
                        t_a,
                        t_b,
                    )
                except PhysicsError:  # perturbed balls overlapping by more than 1 mm
                    tally[s][3] += 1
                    continue
                cpu += time.process_time() - c0
                n_rep += 1
                tally[s][0] += len(truth & got)
                tally[s][1] += len(truth - got)
                tally[s][2] += len(got - truth)
    print(f"{n_waves} waves; perturbed: {a.what}")
    for s, (tp, fn, fp, bad) in tally.items():
        rec = tp / max(tp + fn, 1)
        prec = tp / max(tp + fp, 1)
        print(
            f"sigma {s:g}: recall {rec:.1%} precision {prec:.1%} "
            f"({tp + fn} truth pairs; {bad} refused)"
        )
    print(f"CPU per replay {cpu / max(n_rep, 1):.3f} s")
    return 0


def fit_report(seeds: list[int], fps: float, cache: str) -> int:
    """The replays' best fit against the truth state's, break by break (``--what fit``)."""
    from luza.vision import rack_wave
    from luza.vision.events import extract_events
    from luza.vision.events_truth import Noise, sample_scene

    names = sorted(SCENES)
    calls: list = []
    real_once, real_cluster = rack_wave.replay_once, rack_wave.replay_cluster

    def once(params, geom, wi, rest, r0, v0, t_end):
        out = real_once(params, geom, wi, rest, r0, v0, t_end)
        if out is not None:
            calls[-1]["runs"].append(out)
            calls[-1]["wi"] = wi
        return out

    def cluster(ex, cl, striker, seed=0):
        calls.append({"runs": [], "ex": ex})
        res = real_cluster(ex, cl, striker, seed)
        calls[-1]["res"] = res
        return res

    rack_wave.replay_once, rack_wave.replay_cluster = once, cluster
    ratios, tp, fn, fp = [], 0, 0, 0
    try:
        for seed in seeds:
            name = names[seed % len(names)]
            if name not in RACK_SCENES:
                continue
            try:
                spec, profile, play = load_play(name, seed, cache)
            except (SceneError, PhysicsError):
                continue
            frames, _ = sample_scene(play, fps, Noise(seed=seed))
            calls.clear()
            extract_events(frames, profile, spec.game)
            tl = play.timeline
            starts, col = waves(tl.events)
            params = params_from_profile(profile)
            for c in calls:
                wi, res = c.get("wi"), c.get("res")
                near = [t for t in starts if wi is not None and abs(t - wi.t_hit) < 3 / fps]
                if res is None or not near:
                    continue
                truth = pairs(col, near[0] - 3 / fps, near[0] + WAVE_S + 3 / fps)
                got = set(res.pairs)
                tp, fn, fp = tp + len(got & truth), fn + len(truth - got), fp + len(got - truth)
                best = min(r[1] for r in c["runs"])
                shot = next(r for r in tl.shots if r.t_start <= near[0] <= r.t_end)
                st = {b: shot.state_at(b, wi.t_start) for b in list(wi.rest) + [wi.striker]}
                r_s, v_s = st[wi.striker][0], st[wi.striker][1]
                line = f"{name}/{seed}: best replay chi2 {best:6.1f}"
                if float(np.linalg.norm(v_s)) >= 0.7 * float(np.linalg.norm(wi.striker_v)):
                    rest = {b: st[b][0] for b in wi.rest}
                    t_end = wi.t_hit + 3 / fps + 1e-4
                    out = real_once(params, c["ex"].geom, wi, rest, r_s, v_s, t_end)
                    if out is not None:
                        ratios.append(best / out[1])
                        line += f", the truth's {out[1]:6.1f} ({best / out[1]:.1f}x)"
                line += f"; pairs {len(got & truth)}/{len(truth)} right, {len(got - truth)} false"
                print(line)
    finally:
        rack_wave.replay_once, rack_wave.replay_cluster = real_once, real_cluster
    if ratios:
        within = sum(r <= 1.5 for r in ratios)
        print(
            f"best replay / truth's fit: median {float(np.median(ratios)):.2f}x over "
            f"{len(ratios)} breaks, within 1.5x in {within}"
        )
    print(f"pairs: recall {tp / max(tp + fn, 1):.1%} precision {tp / max(tp + fp, 1):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
