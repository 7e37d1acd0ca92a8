"""Figures of the physics: speed, roll-out, pocket acceptance, throw.

Run ``python -m luza.physics.bench [--quick]``; it prints, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from luza.calibration.profiles import load_profile
from luza.physics.params import G_MM_S2, params_from_profile
from luza.physics.sim import Simulator
from luza.physics.state import Strike


def _break(profile, speed: float, seed: int):
    rack = profile.rack_positions()
    pos = {str(k + 1): xy for k, xy in enumerate(rack)}
    pos["Y"] = (profile.length_mm / 4, profile.width_mm / 2 + 40.0 * math.sin(seed))
    ang = math.atan2(rack[0][1] - pos["Y"][1], rack[0][0] - pos["Y"][0])
    return pos, Strike("Y", speed, ang, follow=0.2)


def bench_break(profile, reps: int) -> None:
    print("## 16-ball break from the house (CPU seconds per simulated stroke)")
    for speed in (6000.0, 9000.0, 11000.0):
        times, evs, t_end, cols = [], [], [], []
        for k in range(reps):
            pos, st = _break(profile, speed, k)
            sim = Simulator(profile, seed=k)
            t = time.process_time()
            res = sim.run(pos, st)
            times.append(time.process_time() - t)
            evs.append(len(res.events))
            cols.append(len(res.events_of("collision")))
            t_end.append(res.t_end)
        print(
            f"  {speed / 1000:4.1f} m/s: cpu median {np.median(times):.3f} s"
            f" max {max(times):.3f} s;"
            f" events {int(np.median(evs))}, collisions {int(np.median(cols))},"
            f" at rest after {np.median(t_end):.1f} s (n={reps})"
        )


def bench_random(profile, n: int) -> None:
    print("## random strokes, 2-16 balls, 0.1-11 m/s, any spin (CPU seconds)")
    R, D = profile.ball_radius_mm, profile.ball_diameter_mm
    L, W = profile.length_mm, profile.width_mm
    times = []
    for seed in range(n):
        rng = np.random.default_rng(seed)
        pos: dict[str, tuple[float, float]] = {}
        names = ["Y", *(str(k) for k in range(1, 16))]
        count = int(rng.integers(2, 17))
        while len(pos) < count:
            x, y = float(rng.uniform(R, L - R)), float(rng.uniform(R, W - R))
            if all(math.hypot(x - a, y - b) >= D for a, b in pos.values()):
                pos[names[len(pos)]] = (x, y)
        st = Strike(
            "Y",
            float(rng.uniform(100, 11000)),
            float(rng.uniform(-math.pi, math.pi)),
            float(rng.uniform(-0.8, 0.8)),
            float(rng.uniform(-0.8, 0.8)),
            float(rng.choice([0.0, 5.0, 15.0, 30.0])),
        )
        t = time.process_time()
        Simulator(profile, seed=seed).run(pos, st)
        times.append(time.process_time() - t)
    print(
        f"  n={n}: mean {np.mean(times) * 1000:.1f} ms, p95 {np.percentile(times, 95) * 1000:.1f}"
        f" ms, max {max(times) * 1000:.1f} ms"
    )


def bench_rollout(profile) -> None:
    p = params_from_profile(profile)
    print(f"## roll-out (mu_roll {p.mu_roll}, mu_slide {p.mu_slide}; published ~0.01 / ~0.2)")
    long = load_profile(profile.source.removesuffix(".json"), length_mm=40000.0)
    for v in (1000.0, 2000.0, 3000.0):
        for follow, label in ((0.4, "natural roll"), (0.0, "stun")):
            res = Simulator(long).run(
                {"Y": (100.0, profile.width_mm / 2)}, Strike("Y", v, 0.0, follow)
            )
            dist = res.final_positions["Y"][0] - 100.0
            print(
                f"  {v / 1000:.0f} m/s {label:12s}: {dist / 1000:6.2f} m in {res.t_end:5.1f} s"
                f" (v^2/(2 mu_roll g) = {v * v / (2 * p.mu_roll * G_MM_S2) / 1000:.2f} m)"
            )


def bench_pockets(profile) -> None:
    print("## corner (foot-left) and middle (middle-left) acceptance: rolling ball along the")
    print("   pocket axis, offset mm -> P potted clean, J potted off a jaw, x rejected")
    offsets = (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16)
    print("   offset mm      " + " ".join(f"{o:>3d}" for o in offsets))
    for name in ("foot-left", "middle-left"):
        pk = profile.pockets()[name]
        mc, inw = np.array(pk.mouth_centre), np.array(pk.inward)
        perp = np.array([-inw[1], inw[0]])
        for speed in (800.0, 2000.0, 4000.0):
            row = []
            for off in offsets:
                start = mc - inw * 400.0 + perp * off
                res = Simulator(profile).run(
                    {"1": (float(start[0]), float(start[1]))},
                    Strike("1", speed, math.atan2(inw[1], inw[0]), follow=0.4),
                )
                jaws = sum(1 for e in res.events_of("cushion") if e["cushion"].startswith("jaw"))
                potted = bool(res.events_of("pocket"))
                row.append("P" if potted and not jaws else "J" if potted else "x")
            print(f"   {name:11s} {speed / 1000:.1f} " + " ".join(f"{c:>3s}" for c in row))


def bench_pocket_angles(profile) -> None:
    print("## corner (foot-left) window vs approach angle: offsets (mm, 0.5 mm steps) of a")
    print("   2 m/s rolling ball aimed through the mouth centre that drop (clean or off a jaw)")
    pk = profile.pockets()["foot-left"]
    mc, inw = np.array(pk.mouth_centre), np.array(pk.inward)
    for deg in (0.0, 10.0, 20.0, 30.0, 40.0):
        a = math.atan2(inw[1], inw[0]) + math.radians(deg)
        d = np.array([math.cos(a), math.sin(a)])
        perp = np.array([-d[1], d[0]])
        ok = []
        for off in np.arange(-10.0, 10.01, 0.5):
            start = mc - d * 400.0 + perp * off
            res = Simulator(profile).run(
                {"1": (float(start[0]), float(start[1]))}, Strike("1", 2000.0, a, follow=0.4)
            )
            if res.events_of("pocket"):
                ok.append(float(off))
        span = f"{min(ok):+.1f} .. {max(ok):+.1f} mm" if ok else "none"
        print(f"   {deg:4.0f} deg off the pocket axis: {span} ({len(ok)} of 41)")


def bench_throw(profile) -> None:
    print("## throw of the object ball (deg) on cut shots, cue ball 300 mm before contact")
    D = profile.ball_diameter_mm
    for cut in (15.0, 30.0, 45.0):
        row = []
        for follow, speed in ((0.0, 1000.0), (0.0, 4000.0), (0.4, 1000.0)):
            n = np.array([math.cos(math.radians(cut)), math.sin(math.radians(cut))])
            obj = np.array([1500.0, profile.width_mm / 2])
            cue = obj - n * D - np.array([300.0, 0.0])
            res = Simulator(profile).run(
                {"Y": tuple(cue), "1": tuple(obj)}, Strike("Y", speed, 0.0, follow=follow)
            )
            c = res.events_of("collision")[0]
            v = res.state_at("1", c.t)[1]
            row.append(cut - math.degrees(math.atan2(v[1], v[0])))
        print(
            f"  cut {cut:4.0f}: stun 1 m/s {row[0]:.2f}, stun 4 m/s {row[1]:.2f},"
            f" rolling 1 m/s {row[2]:.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--profile", default="pyramid-12ft")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    profile = load_profile(args.profile)
    print(f"luza.physics bench on {profile.name}")
    bench_break(profile, 3 if args.quick else 10)
    bench_random(profile, 50 if args.quick else 300)
    bench_rollout(profile)
    bench_pockets(profile)
    bench_pocket_angles(profile)
    bench_throw(profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
