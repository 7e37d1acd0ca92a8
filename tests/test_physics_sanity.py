"""Physics sanity over many random shots: energy, momentum, events vs trajectories."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luza.calibration.profiles import load_profile
from luza.physics.params import build_geometry
from luza.physics.sim import ShotResult, Simulator
from luza.physics.state import Strike

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
D = PROFILE.ball_diameter_mm


def random_layout(rng: np.random.Generator, n: int) -> dict[str, tuple[float, float]]:
    L, W = PROFILE.length_mm, PROFILE.width_mm
    pos: dict[str, tuple[float, float]] = {}
    names = ["Y", *(str(k) for k in range(1, 16))]
    while len(pos) < n:
        x = float(rng.uniform(R + 1, L - R - 1))
        y = float(rng.uniform(R + 1, W - R - 1))
        if all(math.hypot(x - a, y - b) > D + 1 for a, b in pos.values()):
            pos[names[len(pos)]] = (x, y)
    return pos


def random_shots(seed: int, count: int) -> list[ShotResult]:
    rng = np.random.default_rng(seed)
    sim = Simulator(PROFILE, seed=seed)
    out = []
    for _ in range(count):
        pos = random_layout(rng, int(rng.integers(2, 9)))
        cue = "Y"
        # aim at a random object ball half the time, else anywhere
        if rng.random() < 0.6:
            tx, ty = pos[str(int(rng.integers(1, len(pos))))]
            ang = math.atan2(ty - pos[cue][1], tx - pos[cue][0]) + float(rng.normal(0, 0.05))
        else:
            ang = float(rng.uniform(-math.pi, math.pi))
        strike = Strike(
            cue,
            float(rng.uniform(300, 8000)),
            ang,
            follow=float(rng.uniform(-0.6, 0.6)),
            side=float(rng.uniform(-0.5, 0.5)),
            elevation_deg=float(rng.choice([2.0, 5.0, 10.0, 25.0])),
        )
        out.append(sim.run(pos, strike))
    return out


def pot_shots(seed: int) -> list[ShotResult]:
    """Object balls sent at every pocket along its axis, some dead on, some off line."""
    rng = np.random.default_rng(seed)
    sim = Simulator(PROFILE, seed=seed)
    out = []
    for pk in PROFILE.pockets().values():
        mc, inw = np.array(pk.mouth_centre), np.array(pk.inward)
        perp = np.array([-inw[1], inw[0]])
        for off in (float(rng.uniform(-1, 1)), float(rng.choice([-1, 1]) * rng.uniform(4, 9))):
            dist = float(rng.uniform(250, 600))
            obj = mc - inw * dist + perp * off
            cue = obj - inw * float(rng.uniform(150, 400))
            ang = math.atan2(inw[1], inw[0])
            speed = float(rng.uniform(800, 5000))
            strike = Strike("Y", speed, ang, follow=float(rng.uniform(-0.4, 0.5)))
            out.append(sim.run({"Y": tuple(cue), "1": tuple(obj)}, strike))
    return out


def edge_shots() -> list[ShotResult]:
    """Frozen balls, a ball sandwiched against a cushion, a row, rails, a still strike."""
    sim = Simulator(PROFILE, seed=0)
    cases = [
        (
            {"Y": (1000, R + D + 200), "1": (1000, R + D), "2": (1000, R)},
            Strike("Y", 3000, -1.5708),
        ),
        ({"Y": (1000, R)}, Strike("Y", 2000, -math.pi / 2)),
        ({"Y": (1000, 800), "1": (1000 + D, 800)}, Strike("Y", 2000, 0.0)),
        (
            {"Y": (500, 800), **{str(k): (700 + k * D, 800) for k in range(1, 6)}},
            Strike("Y", 4e3, 0),
        ),
        ({"Y": (500, 800)}, Strike("Y", 0.0, 0.0)),
        ({"Y": (R, R + 40)}, Strike("Y", 3000, -math.pi * 0.75)),
        ({"Y": (500, R)}, Strike("Y", 3000, 0.0)),
        ({"Y": (1000, R)}, Strike("Y", 1500, 0.0)),
        ({"Y": (1000, PROFILE.width_mm - R)}, Strike("Y", 6000, 0.0, side=0.5)),
    ]
    return [sim.run(pos, st) for pos, st in cases]


SHOTS = random_shots(7, 30) + pot_shots(3) + edge_shots()


def event_times(res: ShotResult) -> list[float]:
    return sorted({e.t for e in res.events})


@pytest.mark.parametrize("k", range(len(SHOTS)))
def test_energy_never_grows(k: int) -> None:
    res = SHOTS[k]
    times = event_times(res)
    # sample every event (just before and at it) and a grid in between
    grid = set(np.linspace(res.t_start, res.t_end, 200).tolist())
    for t in times:
        grid |= {t - 1e-7, t, t + 1e-7}
    samples = sorted(t for t in grid if t > res.t_start)
    e_prev = res.energy_at(res.t_start + 1e-9)
    for t in samples:
        e = res.energy_at(t)
        assert e <= e_prev * (1 + 1e-9) + 1e-3, (k, t, e, e_prev)
        e_prev = e
    assert res.energy_at(res.t_end) == pytest.approx(0.0, abs=1e-6) or any(
        e.type == "off_table" for e in res.events
    )


def test_collisions_conserve_momentum() -> None:
    n = 0
    for res in SHOTS:
        for e in res.events_of("collision"):
            # several contacts at one instant (a ball pinned to a cushion) mix impulses
            same = [
                o
                for o in res.events
                if o is not e
                and abs(o.t - e.t) < 1e-9
                and {o.get("a"), o.get("b"), o.get("ball"), o.get("cue_ball")} & {e["a"], e["b"]}
            ]
            if same:
                continue
            before = sum(res.state_at(b, e.t - 1e-9)[1] for b in (e["a"], e["b"]))
            after = sum(res.state_at(b, e.t)[1] for b in (e["a"], e["b"]))
            scale = max(1.0, float(np.linalg.norm(before)))
            assert np.linalg.norm(after - before) <= 1e-6 * scale + 1e-3
            n += 1
    assert n > 20  # the sweep really exercised collisions


def test_collision_events_at_one_diameter() -> None:
    for res in SHOTS:
        for e in res.events_of("collision"):
            ra = res.state_at(e["a"], e.t)[0]
            rb = res.state_at(e["b"], e.t)[0]
            assert abs(float(np.linalg.norm(ra - rb)) - D) < 0.1
            mid = (ra + rb) / 2
            assert np.linalg.norm(mid - np.array(e["pos"])) < 0.1


def _distance_to_cushion(name: str, xy: np.ndarray) -> float:
    g = build_geometry(PROFILE)
    best = math.inf
    for k, sn in enumerate(g.seg_name):
        if sn != name:
            continue
        rel = xy - g.seg_a[k]
        s = float(np.dot(rel, g.seg_d[k]))
        if -0.1 <= s <= g.seg_len[k] + 0.1:
            best = min(best, abs(float(np.dot(rel, g.seg_n[k])) - R))
    for k, cn in enumerate(g.circ_name):
        if cn == name:
            best = min(best, abs(float(np.linalg.norm(xy - g.circ_c[k])) - R - g.circ_r[k]))
    return best


def test_cushion_events_one_radius_from_the_nose() -> None:
    n = 0
    cushions = PROFILE.cushions()
    for res in SHOTS:
        for e in res.events_of("cushion"):
            r, _, _, lift = res.state_at(e["ball"], e.t)
            assert np.linalg.norm(r - np.array(e["pos"])) < 1e-3
            if lift > 0:  # a jumped ball meets the rail at the bed edge line
                continue
            name = e["cushion"]
            assert name in cushions or name.startswith("jaw:")
            assert _distance_to_cushion(name, r) < 0.1, (name, r)
            n += 1
    assert n > 10


def test_pocket_events_at_that_pocket() -> None:
    pockets = PROFILE.pockets()
    n = 0
    for res in SHOTS:
        for e in res.events_of("pocket"):
            r = res.state_at(e["ball"], e.t - 1e-9)[0]
            pk = pockets[e["pocket"]]
            others = [p for p in pockets.values() if p.name != pk.name]
            d = float(np.linalg.norm(r - np.array(pk.centre)))
            assert d <= pk.spec.drop_radius_mm + 0.1
            assert all(np.linalg.norm(r - np.array(o.centre)) > 200 for o in others)
            # and the ball is gone afterwards
            assert not res.pose_at(e.t + 0.5)[e["ball"]].on_table
            n += 1
    assert n >= 1


def test_line_cross_events_on_the_line() -> None:
    L, W = PROFILE.length_mm, PROFILE.width_mm
    where = {"centre": (0, L / 2), "house": (0, L / 4), "axis": (1, W / 2)}
    for res in SHOTS:
        for e in res.events_of("line_cross"):
            r, v, _, _ = res.state_at(e["ball"], e.t)
            ax, val = where[e["line"]]
            assert abs(r[ax] - val) < 1e-3
            sign = 1 if e["direction"] in ("to-foot", "to-right") else -1
            assert v[ax] * sign > 0


def test_events_time_ordered_and_framed() -> None:
    for res in SHOTS:
        ts = [e.t for e in res.events]
        assert ts == sorted(ts)
        assert res.events[0].type == "shot_start"
        tail = [e.type for e in res.events if e.type != "hang_fall"]
        assert tail[-1] == "shot_end"  # only a hanging ball's later drop may follow
        assert all(e.frame is None and e.confidence == 1.0 for e in res.events)
        end = res.events_of("shot_end")[0]
        late = {e["ball"] for e in res.events if e.type == "hang_fall" and e.t > end.t}
        assert set(end["positions"]) == set(res.final_positions) | late
        # balls at rest at the end and on the bed
        pockets = PROFILE.pockets().values()
        for b, (x, y) in res.final_positions.items():
            in_bed = R - 1e-6 <= x <= PROFILE.length_mm - R + 1e-6 and (
                R - 1e-6 <= y <= PROFILE.width_mm - R + 1e-6
            )
            # or resting in a pocket's mouth, against the jaws (a hanging ball)
            in_mouth = any(math.dist((x, y), p.centre) < p.spec.drop_radius_mm + R for p in pockets)
            assert in_bed or in_mouth, (b, x, y)
            _, v, _, _ = res.state_at(b, res.t_end)
            assert np.linalg.norm(v) < 1e-6


def test_no_two_balls_overlap_along_the_way() -> None:
    for res in SHOTS[:10]:
        for t in np.linspace(res.t_start, res.t_end, 300):
            poses = res.pose_at(float(t))
            on = [(p.x_mm, p.y_mm) for p in poses.values() if p.on_table and p.lift_mm == 0]
            for i in range(len(on)):
                for j in range(i + 1, len(on)):
                    assert math.dist(on[i], on[j]) > D - 0.1
