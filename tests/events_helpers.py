"""Hand-made tracker output for event tests: frames of seen (and hidden) balls."""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from luza.calibration.profiles import load_profile
from luza.events import FIVE_BALL_BALLS
from luza.physics.sim import Timeline
from luza.physics.state import Strike
from luza.samples.scenes import fp_rack_layout
from luza.vision.events import FrameObs, extract_events
from luza.vision.events_truth import Noise, sample_scene


def frame_at(fps: float) -> Callable[..., FrameObs]:
    """``frame(k, seen, hidden=())``: frame ``k`` at ``fps`` with balls ``seen`` (id ->
    table mm) and ``hidden`` (ids on the table, out of view)."""

    def frame(k: int, seen: dict, hidden=()) -> FrameObs:
        xy = {b: (float(x), float(y)) for b, (x, y) in seen.items()}
        return FrameObs(k, k / fps, xy, frozenset(hidden))

    return frame


def other_ball(ball: str) -> str:
    """A ball of ``ball``'s game that is not ``ball`` (the event stage refuses ids that
    are not the game's): for a ball lying still out of the way in a hand-made scene."""
    if ball in FIVE_BALL_BALLS:
        return "R2" if ball != "R2" else "R1"
    return "15" if ball != "15" else "14"


def rolled_away(ball: str, rest, way: Sequence, other: tuple, fps: float) -> list[FrameObs]:
    """``ball`` still at ``rest`` for 40 frames, seen along ``way`` (one point a frame),
    then gone for 60 frames; ball "3" lies still at ``other`` all along."""
    frame = frame_at(fps)
    pts = [rest] * 40 + list(way)
    frames = [frame(k, {ball: p, "3": other}) for k, p in enumerate(pts)]
    return frames + [frame(k, {"3": other}) for k in range(len(pts), len(pts) + 60)]


def rolled(p0, v, s: float, accel: float):
    """Where a ball from ``p0`` at velocity ``v`` (mm/s) is ``s`` seconds later, slowing
    at ``accel`` (mm/s^2) and stopping when its speed is spent."""
    sp = float(np.linalg.norm(v))
    if sp == 0:
        return p0
    s = min(s, sp / accel)
    return p0 + v * s - 0.5 * accel * (v / sp) * s * s


@dataclass
class _Play:
    timeline: Timeline


def sampled_plain(tl: Timeline, fps: float, seed: int) -> tuple[list[FrameObs], list]:
    """``(frames, truth)`` of a played timeline sampled at ``fps`` with the tracker's
    kind of noise (draw ``seed``), no hands and no cue covering a ball."""
    return sample_scene(_Play(tl), fps, Noise(seed=seed, hands=False, cue_cover_p=0.0))


def sampled_break(fps: float, speed_mm_s: float = 7500.0):
    """A Free Pyramid break (the rack with its sub-millimetre play, the coloured ball
    struck into the apex at ``speed_mm_s``), sampled at ``fps`` without hands or a
    covering cue: ``(profile, timeline, frames, truth)``."""
    profile = load_profile("pyramid-12ft")
    pos = fp_rack_layout(profile, np.random.default_rng(5))
    tl = Timeline(profile, pos, seed=5)
    tl.wait(2.0)
    apex, y = pos["1"], pos["Y"]
    angle = math.atan2(apex[1] - y[1], apex[0] - y[0]) + 0.002
    tl.strike(Strike("Y", speed_mm_s, angle, 0.1, 0.0, 0.0), at_t=2.0)
    frames, truth = sampled_plain(tl, fps, 5)
    return profile, tl, frames, truth


def rest_way_rest(
    ball: str, rest, way: Sequence, other: dict, fps: float, n_rest: int, n_tail: int
) -> list[FrameObs]:
    """``ball`` at rest at ``rest`` for ``n_rest`` frames, then along ``way`` (one point a
    frame; None: hidden; ``'gone'``: off the table), then ``n_tail`` frames at rest where
    it stopped (or gone); the balls ``other`` (id -> table mm) lie still all along."""
    frames = [FrameObs(k, k / fps, {ball: rest, **other}) for k in range(n_rest)]
    for i, p in enumerate(way):
        k = n_rest + i
        if p == "gone":
            frames.append(FrameObs(k, k / fps, dict(other)))
        elif p is None:
            frames.append(FrameObs(k, k / fps, dict(other), frozenset({ball})))
        else:
            frames.append(FrameObs(k, k / fps, {ball: p, **other}))
    n = n_rest + len(way)
    last = way[-1]
    tail = dict(other) if last is None or last == "gone" else {ball: last, **other}
    return frames + [FrameObs(k, k / fps, tail) for k in range(n, n + n_tail)]


def bent_at_contact(paths: dict, t_c: float, fps: float, seed: int, end_s: float) -> list[FrameObs]:
    """Frames of balls rolling straight and turning at a contact at ``t_c``: ``paths``
    maps a ball to ``(t_off, centre_at_contact, v_before, v_after)`` (table mm, mm/s);
    each ball lies still until ``t_off``, rolls at ``v_before`` to its centre at the
    contact and on at ``v_after``, seen every frame up to ``t_c + end_s`` with 1.2 mm
    of noise (draw ``seed``, the balls in ``paths``' order)."""
    rng = np.random.default_rng(seed)

    def at(t_off, c, v, vb, t):
        return c + v * (max(t, t_off) - t_c) if t < t_c else c + vb * (t - t_c)

    frames = []
    for k in range(int((t_c + end_s) * fps)):
        t = k / fps
        p = {b: at(*path, t) for b, path in paths.items()}
        p = {b: x + rng.normal(0, 1.2, 2) for b, x in p.items()}
        frames.append(FrameObs(k, t, {b: tuple(x) for b, x in p.items()}))
    return frames


def sampled_path(where: Callable, fps: float, seed: int, phase: float, until_s: float):
    """Frames of the balls at ``where(t)`` (id -> table mm), sampled at ``fps`` from
    ``phase`` of a frame on up to ``until_s``, each jittered by 0.7 mm like the tracker's
    (draw ``seed``, the balls in ``where``'s order)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(int(until_s * fps)):
        t = (k + phase) / fps
        seen = {b: tuple(p + rng.normal(0.0, 0.7, 2)) for b, p in where(t).items()}
        out.append(FrameObs(k, t, seen, frozenset()))
    return out


def recorded_events(file_name: str, replay_racks: bool = True) -> tuple[dict, list]:
    """A window of a played scene kept in ``tests/data`` (gzipped JSON: ``t0``,
    ``fps``, ``profile``, ``game``, ``frames`` as [t - t0, seen, hidden], and the
    physics' own events there as ``truth``), and the events extracted from its frames
    as the tracker gave them."""
    d = json.loads(gzip.decompress((Path(__file__).parent / "data" / file_name).read_bytes()))
    frames = [
        FrameObs(k, d["t0"] + t, {b: tuple(p) for b, p in seen.items()}, frozenset(hidden))
        for k, (t, seen, hidden) in enumerate(d["frames"])
    ]
    return d, extract_events(frames, load_profile(d["profile"]), d["game"], replay_racks)


def recorded_pairs(d: dict) -> list[tuple[float, set[str]]]:
    """The physics' collisions of a recorded window (``recorded_events``): (t, {a, b})."""
    return [(e["t"], {e["a"], e["b"]}) for e in d["truth"] if e["type"] == "collision"]


def _collisions(ev: Sequence) -> list[tuple[float, set[str]]]:
    return [(e.t, {e["a"], e["b"]}) for e in ev if e.type == "collision"]


def _held(t: float, p: set[str], among: Sequence[tuple[float, set[str]]], fps: float) -> bool:
    """Whether ``among`` holds a collision of pair ``p`` within the benchmark's 2 frames
    of ``t``."""
    return any(q == p and abs(u - t) <= 2.0 / fps for u, q in among)


def pairs_found(d: dict, ev: Sequence, pairs: Sequence[tuple[float, set[str]]]) -> int:
    """How many of ``pairs`` (t, {a, b}) the events ``ev`` hold: a collision of the same
    pair within the benchmark's 2 frames."""
    found = _collisions(ev)
    return sum(_held(t, p, found, d["fps"]) for t, p in pairs)


def false_pairs(d: dict, ev: Sequence) -> list[tuple[float, set[str]]]:
    """The collisions of ``ev`` that the recorded window ``d`` has no truth pair for
    within the benchmark's 2 frames: (t rounded to 1 ms, {a, b})."""
    truth = recorded_pairs(d)
    return [(round(t, 3), p) for t, p in _collisions(ev) if not _held(t, p, truth, d["fps"])]
