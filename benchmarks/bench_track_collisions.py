"""Identity through a collision of two look-alike balls: a tracker-only sweep.

Two reds (Five Ball; the tracker tells them apart by motion alone): R1 rolls into a
still R2 with a given cut angle and speed; both may go unseen for a few frames
around the contact (a merged blob, motion blur).  The truth is simple kinematics:
rolling friction, an equal-mass collision (the normal component passes to R2), and
optionally follow that bends the struck ball's path forward over 0.15 s -- a path
the tracker's physics does not predict.  A case counts as kept when, 0.4 s after the
contact (or earlier, before a ball comes near a cushion: the truth has no
cushions), both tracker ids are within 30 mm of their own ball.  The other balls lie
away from both paths (the truth knows no third ball).  A second sweep: two rolling
reds passing close without touching (angle, gap, speed, frames unseen).  Prints the cases
that switch and the count.

    .venv/bin/python benchmarks/bench_track_collisions.py [--table kaisa-10ft]
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

CLASSES = ("W1", "W2", "red", "K", "none")
MATCH_MM = 30.0
STRIKE_AT_S = 0.4  # R1 lies still this long, then rolls
RUN_UP_MM = 600.0  # R1's path to the contact
FOLLOW_BEND_S = 0.15  # the struck ball's path bends over this long (follow)


def _row(cls: str) -> np.ndarray:
    p = np.full(len(CLASSES), 0.01)
    p[CLASSES.index(cls)] = 0.96
    return p / p.sum()


def _others(prof) -> dict[str, list[float]]:
    """The other balls, away from both reds' paths (the truth knows no third ball)."""
    L, W = prof.length_mm, prof.width_mm
    return {"W1": [300.0, 300.0], "W2": [L - 300.0, W - 300.0], "K": [300.0, W - 300.0]}


def _near_cushion(prof, pts) -> bool:
    """Whether a ball is within a diameter of a cushion (the truth has no cushions)."""
    R, L, W = prof.ball_radius_mm, prof.length_mm, prof.width_mm
    return any(p[0] < 2 * R or p[0] > L - 2 * R or p[1] < 2 * R or p[1] > W - 2 * R for p in pts)


def _step(tr, rng, f: int, t: float, others, p1, p2, seen: bool, ids):
    """Feed the tracker one frame (the other balls, and the two reds when ``seen``);
    returns the ids of (first red, second red), fixed on the first frame."""
    pts, cls = list(others.values()), list(others)
    if seen:
        pts += [p1, p2]
        cls += ["red", "red"]
    xy = np.array(pts, float) + rng.normal(0, 0.7, (len(pts), 2))
    det = Detections(
        f, t, 0.5 * xy, xy, np.full(len(pts), 10.0), np.ones(len(pts)),
        np.array([_row(c) for c in cls]), CLASSES,
    )  # fmt: skip
    tr.update(det)
    if ids is None:
        id1 = min(("R1", "R2"), key=lambda b: float(np.linalg.norm(tr.tracks[b].xy - p1)))
        ids = (id1, "R2" if id1 == "R1" else "R1")
    return ids


def _kept(tr, ids, last) -> bool:
    """Both ids within ``MATCH_MM`` of their own ball's last true position."""
    return all(
        np.linalg.norm(tr.tracks[b].xy - p) < MATCH_MM for b, p in zip(ids, last, strict=True)
    )


def run_case(prof, cut_deg: float, speed_mm_s: float, unseen: int, fps: float, follow: bool):
    """True when both reds keep their ids."""
    R = prof.ball_radius_mm
    L, W = prof.length_mm, prof.width_mm
    decel = prof.physics.get("mu_roll", 0.012) * 9810.0
    rng = np.random.default_rng(0)
    tr = BallTracker(prof, "five-ball")
    tr.occluded = lambda xy: False  # what the pipeline says where no ball is seen: cloth
    r2 = np.array([0.55 * L, 0.5 * W])
    n = np.array([math.cos(math.radians(cut_deg)), math.sin(math.radians(cut_deg))])
    contact = r2 - 2 * R * n
    r1_0 = contact - np.array([RUN_UP_MM, 0.0])
    t_hit = (speed_mm_s - math.sqrt(speed_mm_s**2 - 2 * decel * RUN_UP_MM)) / decel
    v_hit = speed_mm_s - decel * t_hit
    vn = v_hit * math.cos(math.radians(cut_deg))
    v1_t = v_hit * np.array([1.0, 0.0]) - vn * n
    v1_f = v1_t + (2 / 7 * vn * n if follow else 0.0)
    v2 = 0.95 * vn * n
    others = _others(prof)

    def truth(t: float):
        t -= STRIKE_AT_S
        if t <= 0:
            return r1_0.copy(), r2.copy()
        if t <= t_hit:
            return r1_0 + (speed_mm_s * t - 0.5 * decel * t * t) * np.array([1.0, 0.0]), r2.copy()
        tau = t - t_hit
        s2 = float(np.linalg.norm(v2))
        t2 = min(tau, s2 / decel)
        p2 = r2 + (v2 / max(s2, 1e-9)) * (s2 * t2 - 0.5 * decel * t2 * t2)
        p1, k, h = contact.copy(), 0.0, 0.002
        while k < tau:
            w = min(1.0, k / FOLLOW_BEND_S)
            v = (1 - w) * v1_t + w * v1_f
            s = float(np.linalg.norm(v))
            if s < 1e-6:
                break
            slow = max(0.0, 1 - decel * max(0.0, k - FOLLOW_BEND_S) / s)
            p1 = p1 + v * slow * h
            k += h
        return p1, p2

    dt = 1.0 / fps
    f, ids = 0, None
    while True:
        t = f * dt
        p1, p2 = truth(t)
        if t > STRIKE_AT_S + t_hit + 0.4 or _near_cushion(prof, (p1, p2)):
            break
        seen = abs(t - STRIKE_AT_S - t_hit) >= (unseen / 2) * dt or unseen == 0
        ids = _step(tr, rng, f, t, others, p1, p2, seen, ids)
        last = (p1, p2)
        f += 1
    return _kept(tr, ids, last)


def run_crossing(prof, angle_deg: float, gap_mm: float, speed_mm_s: float, unseen: int, fps: float):
    """Two rolling reds passing close (no contact): True when both keep their ids.

    R1 rolls along +x, R2 at ``angle_deg`` to it; at the same moment R1 is at the
    table's centre and R2 ``2 R + gap_mm`` beside it; both unseen for ``unseen``
    frames around then."""
    R = prof.ball_radius_mm
    L, W = prof.length_mm, prof.width_mm
    decel = prof.physics.get("mu_roll", 0.012) * 9810.0
    rng = np.random.default_rng(1)
    tr = BallTracker(prof, "five-ball")
    tr.occluded = lambda xy: False
    c1 = np.array([0.5 * L, 0.5 * W])
    c2 = c1 + np.array([0.0, 2 * R + gap_mm])
    u1 = np.array([1.0, 0.0])
    u2 = np.array([math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))])
    run_mm = 500.0
    t_c = (speed_mm_s - math.sqrt(speed_mm_s**2 - 2 * decel * run_mm)) / decel
    others = _others(prof)

    def along(t: float) -> float:  # distance rolled since the strike
        t = min(max(t, 0.0), speed_mm_s / decel)
        return speed_mm_s * t - 0.5 * decel * t * t

    def truth(t: float):
        s = along(t - STRIKE_AT_S) - run_mm
        return c1 + s * u1, c2 + s * u2

    dt = 1.0 / fps
    times = np.arange(0.0, STRIKE_AT_S + t_c + 0.4, dt)
    gaps = [float(np.linalg.norm(np.subtract(*truth(t)))) for t in times]
    if min(gaps) < 2 * R + 1.0:
        return None  # they would touch: not a pass
    ids = None
    for f, t in enumerate(times):
        p1, p2 = truth(t)
        if _near_cushion(prof, (p1, p2)):
            break
        seen = unseen == 0 or abs(t - STRIKE_AT_S - t_c) >= (unseen / 2) * dt
        ids = _step(tr, rng, f, t, others, p1, p2, seen, ids)
        last = (p1, p2)
    return _kept(tr, ids, last)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default="kaisa-10ft")
    args = ap.parse_args()
    prof = load_profile(args.table)
    bad = tot = 0
    for fps in (30.0, 60.0):
        for cut in range(0, 80, 10):
            for speed in (800.0, 1500.0, 2500.0, 4000.0):
                for unseen in (0, 2, 4):
                    for follow in (True, False):
                        tot += 1
                        if not run_case(prof, cut, speed, unseen, fps, follow):
                            bad += 1
                            print(
                                f"switch: {fps:.0f} fps, cut {cut} deg, {speed:.0f} mm/s, "
                                f"{unseen} frames unseen, follow {follow}"
                            )
    print(f"{tot - bad} of {tot} collisions keep both ids")
    bad = tot = 0
    for fps in (30.0, 60.0):
        for angle in (10, 20, 45, 90, 135, 170):
            for gap in (2.0, 10.0, 30.0):
                for speed in (800.0, 1500.0, 2500.0, 4000.0):
                    for unseen in (0, 2, 4):
                        ok = run_crossing(prof, angle, gap, speed, unseen, fps)
                        if ok is None:
                            continue
                        tot += 1
                        if not ok:
                            bad += 1
                            print(
                                f"switch: {fps:.0f} fps, passing at {angle} deg, gap {gap:.0f} mm, "
                                f"{speed:.0f} mm/s, {unseen} frames unseen"
                            )
    print(f"{tot - bad} of {tot} close passes keep both ids")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
