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
    ap.add_argument("--what", default="rack", choices=("rack", "lateral", "speed", "spin"))
    ap.add_argument("--sigmas", default="0,0.02,0.05,0.1,0.2")
    ap.add_argument("--cache", default="/tmp/luza_ev_cache2")
    a = ap.parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
