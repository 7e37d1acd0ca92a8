"""Ground truth for the event stage: tracker-like frames from the physics, and scoring.

:func:`sample_scene` samples a played scene (``luza.samples.scenes.build_scene``)
at a frame rate into :class:`vision.events.FrameObs` with the tracker's kind of
noise -- jitter at rest, more when moving fast, occasional misses, balls hidden
under hands and cues, a falling ball seen until it is deep in the pocket -- so the
extractor can be tuned and benchmarked without rendering video.

:func:`score` matches an extracted stream against the physics' events (contacts
within a time tolerance of 2 frames; pots by ball and pocket; hands by type and
ball) and returns counts for the benchmark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from luza.events import Event

from .events import FrameObs

REST_JITTER_MM = 0.7  # the tracker damps a still ball's jitter
MOVE_JITTER_MM = 1.0
MOVE_JITTER_PER_MM_S = 0.0006  # + this per mm/s (3 mm at 5 m/s)
MISS_FAST_P = 0.03  # a ball faster than MISS_FAST_MM_S is missed this often
MISS_FAST_MM_S = 1500.0
MISS_P = 0.002
POT_VISIBLE_DEPTH_R = (0.3, 1.2)  # a falling ball is seen until this deep (radii, random)
GONE_HIDDEN_S = 0.25  # the tracker keeps a vanished ball "hidden" this long
HAND_BEFORE_S = 0.5  # a hand covers its ball this long before placing / removing it
HAND_AFTER_S = 0.4  # ... and after
HAND_REACH_MM = 120.0  # balls this close to the hand are covered too
SLOW_TOUCH_MM_S = 100.0  # a cushion touch slower than this: time tolerance SLOW_TOUCH_TOL_S
SLOW_TOUCH_TOL_S = 0.4
WAVE_S = 0.005  # 3+ truth collisions within this: a cluster wave (a rack broken)
# A contact that changed no ball's velocity by this much moves it off its old path by
# under 3 mm within 0.1 s -- inside the tracker's noise: no footage can show it.
INVISIBLE_DV_MM_S = 30.0
# The physics names some contacts inside a corner pocket's throat after a middle
# pocket's jaw facing (~1.7 m away): a truth cushion contact this far from the line it
# names is matched under the contact line it is at (the rows "as the physics names
# them" keep the physics' own names).
MISNAMED_MM = 50.0


@dataclass
class Noise:
    seed: int = 0
    rest_mm: float = REST_JITTER_MM
    move_mm: float = MOVE_JITTER_MM
    miss_fast_p: float = MISS_FAST_P
    hands: bool = True
    cue_cover_p: float = 0.3  # chance the cue ball is under the cue at the strike
    arm_cover_p: float = 0.5  # chance an arm passes over another ball before a stroke


def sample_scene(play, fps: float, noise: Noise | None = None, tail_s: float = 1.0):
    """Frames of a played scene as the tracker would give them; returns (frames, truth)."""
    noise = noise or Noise()
    rng = np.random.default_rng(noise.seed)
    tl = play.timeline
    balls = tl.balls
    R = tl.profile.ball_radius_mm
    truth = list(tl.events)
    n = int(math.floor((tl.duration_s + tail_s) * fps)) + 1
    # covers: (t0, t1, centre, ball-or-None)
    covers: list[tuple[float, float, tuple[float, float] | None, str | None]] = []
    if noise.hands:
        for e in truth:
            if e.type in ("ball_placed", "ball_removed"):
                pos = e.get("pos")
                if pos is None:
                    p = tl.pose_at(e.t - 1e-3)[e["ball"]]
                    pos = (p.x_mm, p.y_mm)
                covers.append((e.t - HAND_BEFORE_S, e.t + HAND_AFTER_S, tuple(pos), None))
        for e in truth:
            if e.type != "shot_start":
                continue
            poses = tl.pose_at(e.t - 1e-3)
            if rng.random() < noise.cue_cover_p:
                covers.append((e.t - 0.3, e.t + 0.2 / fps, None, e["cue_ball"]))
            others = [b for b in balls if b != e["cue_ball"] and poses[b].on_table]
            if others and rng.random() < noise.arm_cover_p:
                b = others[int(rng.integers(len(others)))]
                covers.append((e.t - 0.9, e.t - 0.1, None, b))
    depth_r = {b: rng.uniform(*POT_VISIBLE_DEPTH_R) for b in balls}
    gone_at: dict[str, float] = {}
    frames: list[FrameObs] = []
    prev = None
    for k in range(n):
        t = k / fps
        poses = tl.pose_at(t)
        before = tl.pose_at(t - 1e-3) if k else poses
        seen: dict[str, tuple[float, float]] = {}
        hidden: set[str] = set()
        for b in balls:
            p = poses[b]
            visible = p.on_table and p.lift_mm > -depth_r[b] * R
            if not visible:
                was_there = prev is not None and (b in prev.seen or b in prev.hidden)
                if was_there and b not in gone_at:
                    gone_at[b] = t
                if was_there and t - gone_at[b] < GONE_HIDDEN_S:
                    hidden.add(b)
                continue
            gone_at.pop(b, None)
            q = before[b]
            speed = math.hypot(p.x_mm - q.x_mm, p.y_mm - q.y_mm) / 1e-3 if q.on_table else 0.0
            covered = False
            for t0, t1, c, cb in covers:
                if t0 <= t <= t1 and (
                    cb == b or (c is not None and math.dist(c, (p.x_mm, p.y_mm)) < HAND_REACH_MM)
                ):
                    covered = True
            miss = rng.random() < (noise.miss_fast_p if speed > MISS_FAST_MM_S else MISS_P)
            if covered or miss:
                hidden.add(b)
                continue
            sig = noise.rest_mm if speed < 1.0 else noise.move_mm + MOVE_JITTER_PER_MM_S * speed
            seen[b] = (p.x_mm + rng.normal(0, sig), p.y_mm + rng.normal(0, sig))
        fr = FrameObs(k, t, seen, frozenset(hidden))
        frames.append(fr)
        prev = fr
    return frames, truth


# ------------------------------------------------------------------ scoring
@dataclass
class Tally:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    dup: int = 0
    misses: list = field(default_factory=list)
    extras: list = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.tp += other.tp
        self.fn += other.fn
        self.fp += other.fp
        self.dup += other.dup
        self.misses += other.misses
        self.extras += other.extras

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0


def _key(e: Event):
    if e.type == "collision":
        return frozenset((e["a"], e["b"]))
    if e.type == "cushion":
        return (e["ball"], e["cushion"])
    if e.type in ("pocket", "bounce_out", "hang", "hang_fall"):
        return (e["ball"], e["pocket"])
    if e.type == "line_cross":
        return (e["ball"], e["line"], e["direction"])
    if e.type == "shot_start":
        return e["cue_ball"]
    return e.get("ball")


def merge_close(events: Sequence[Event], window_s: float) -> list[tuple[Event, float]]:
    """Truth contacts in bursts: the same key again within ``window_s`` of the previous
    one belongs to the same burst (jaw rattles and jammed clusters touch many times
    within a frame).  Returns (first event, time of the burst's last event)."""
    out: list[list] = []
    last: dict = {}
    for e in events:
        k = (e.type, _key(e))
        if k in last and e.t - out[last[k]][1] <= window_s:
            out[last[k]][1] = e.t
            continue
        last[k] = len(out)
        out.append([e, e.t])
    return [(e, t1) for e, t1 in out]


def match(truth: Sequence, found: Sequence[Event], tol_s: float, ctx: str = "") -> Tally:
    """Greedy time matching of same-key events within ``tol_s``.  ``truth`` holds events
    or (event, burst end) pairs; a second found event inside a matched burst is a
    duplicate (counted apart), not a false one."""
    tally = Tally()
    used = [False] * len(found)
    spans = []
    for item in truth:
        e, t1 = item if isinstance(item, tuple) else (item, item.t)
        spans.append((e, e.t, t1))
        best, bd = None, tol_s + 1e-9
        for j, f in enumerate(found):
            if used[j] or _key(f) != _key(e):
                continue
            d = max(e.t - f.t, f.t - t1, 0.0)
            if d <= bd:
                best, bd = j, d
        if best is None:
            tally.fn += 1
            tally.misses.append((ctx, e.to_dict()))
        else:
            used[best] = True
            tally.tp += 1
    for j, f in enumerate(found):
        if used[j]:
            continue
        if any(_key(f) == _key(e) and e.t - tol_s <= f.t <= t1 + tol_s for e, _, t1 in spans):
            tally.dup += 1
            continue
        tally.fp += 1
        tally.extras.append((ctx, f.to_dict()))
    return tally


def _match_two(fast, slow, found, tol_s: float, slow_tol_s: float, ctx: str) -> Tally:
    """Match the fast truth contacts within ``tol_s``, then the slow touches within
    ``slow_tol_s`` among the found events left over."""
    t1 = match(fast, found, tol_s, ctx)
    left = [f for f in found if (ctx, f.to_dict()) in t1.extras]
    t2 = match(slow, left, slow_tol_s, ctx)
    out = Tally(t1.tp + t2.tp, t1.fn + t2.fn, t2.fp, t1.dup + t2.dup)
    out.misses = t1.misses + t2.misses
    out.extras = t2.extras
    return out


def shots_of(events: Sequence[Event]) -> list[tuple[Event, list[Event]]]:
    """(shot_start, events up to its shot_end) for each stroke of a stream."""
    out: list[tuple[Event, list[Event]]] = []
    cur = None
    for e in events:
        if e.type == "shot_start":
            if cur is not None and cur[1] and cur[1][-1].type == "shot_end" or cur is None:
                cur = (e, [])
                out.append(cur)
            continue
        if cur is not None and (not cur[1] or cur[1][-1].type != "shot_end"):
            cur[1].append(e)
    return out


def first_contact(start: Event, evs: Sequence[Event]) -> str | None:
    cue = start["cue_ball"]
    for e in evs:
        if e.type == "collision" and cue in (e["a"], e["b"]):
            return e["b"] if e["a"] == cue else e["a"]
    return None


@dataclass
class Score:
    tallies: dict[str, Tally] = field(default_factory=dict)
    shots_truth: int = 0
    shots_found: int = 0
    shots_split: int = 0
    shots_merged: int = 0
    shots_extra: int = 0
    first_right: int = 0
    first_total: int = 0
    first_wrong: list = field(default_factory=list)
    uncertain: int = 0
    events: int = 0
    misnamed: int = 0  # truth cushion contacts renamed (MISNAMED_MM)
    # contact kind -> [truth contacts no footage can show, of them missed] (see
    # INVISIBLE_DV_MM_S); filled when score() has the timeline
    invisible: dict[str, list[int]] = field(default_factory=dict)

    def add(self, o: Score) -> None:
        for k, t in o.tallies.items():
            self.tallies.setdefault(k, Tally()).add(t)
        for k, (n, m) in o.invisible.items():
            acc = self.invisible.setdefault(k, [0, 0])
            acc[0] += n
            acc[1] += m
        for f in (
            "shots_truth",
            "shots_found",
            "shots_split",
            "shots_merged",
            "shots_extra",
            "first_right",
            "first_total",
            "uncertain",
            "events",
            "misnamed",
        ):
            setattr(self, f, getattr(self, f) + getattr(o, f))
        self.first_wrong += o.first_wrong


def renamed_cushions(truth: Sequence[Event], profile) -> tuple[list[Event], int]:
    """Truth cushion contacts named after a contact line more than ``MISNAMED_MM`` from
    their position get the name of the line they are at; returns (events, how many)."""
    from luza.physics.params import build_geometry

    g = build_geometry(profile)
    R = profile.ball_radius_mm

    def gaps(c: np.ndarray) -> list[tuple[float, str]]:
        out = []
        for a, d, n, ln, nm in zip(g.seg_a, g.seg_d, g.seg_n, g.seg_len, g.seg_name, strict=True):
            rel = c - a
            if -1.0 <= float(rel @ d) <= ln + 1.0:
                out.append((abs(float(rel @ n) - R), nm))
        for cc, r, nm in zip(g.circ_c, g.circ_r, g.circ_name, strict=True):
            out.append((abs(float(np.linalg.norm(c - cc)) - r - R), nm))
        return out

    out, n = [], 0
    for e in truth:
        if e.type == "cushion" and e.get("pos") is not None:
            gs = gaps(np.asarray(e["pos"], dtype=float))
            own = min((d for d, nm in gs if nm == e["cushion"]), default=math.inf)
            if own > MISNAMED_MM and gs:
                e = Event(e.type, e.t, e.frame, e.confidence, {**e.data, "cushion": min(gs)[1]})
                n += 1
        out.append(e)
    return out, n


def contact_dv(timeline, e: Event, t_last: float) -> float:
    """The largest change of velocity (mm/s) a truth contact (or burst ending at
    ``t_last``) gave its ball(s): velocity 0.5 ms before it vs 2 ms after."""
    balls = [e["a"], e["b"]] if e.type == "collision" else [e["ball"]]
    out = 0.0
    for b in balls:
        v = []
        for t in (e.t - 0.5e-3, t_last + 2e-3):
            p, q = timeline.pose_at(t)[b], timeline.pose_at(t - 1e-3)[b]
            if not (p.on_table and q.on_table):
                return math.inf  # it fell or flew: a change anyone can see
            v.append(((p.x_mm - q.x_mm) / 1e-3, (p.y_mm - q.y_mm) / 1e-3))
        out = max(out, math.hypot(v[1][0] - v[0][0], v[1][1] - v[0][1]))
    return out


def _invisible(timeline, merged, tally: Tally) -> list[int]:
    """[truth contacts below INVISIBLE_DV_MM_S, of them missed]."""
    missed = {(d["type"], d["t"], d.get("a"), d.get("b"), d.get("ball")) for _, d in tally.misses}
    n = m = 0
    for e, t1 in merged:
        if contact_dv(timeline, e, t1) >= INVISIBLE_DV_MM_S:
            continue
        n += 1
        d = e.to_dict()
        m += (d["type"], d["t"], d.get("a"), d.get("b"), d.get("ball")) in missed
    return [n, m]


def approach_speed(timeline, ball: str, t: float) -> float:
    """Speed (mm/s) of ``ball`` just before ``t`` in a physics timeline."""
    a = timeline.pose_at(t - 0.02)[ball]
    b = timeline.pose_at(t - 0.005)[ball]
    return math.hypot(b.x_mm - a.x_mm, b.y_mm - a.y_mm) / 0.015


def score(
    truth: Sequence[Event], found: Sequence[Event], fps: float, ctx: str = "", timeline=None
) -> Score:
    """Compare an extracted stream with the physics truth.

    With ``timeline`` a cushion touch by a ball creeping in slower than
    ``SLOW_TOUCH_MM_S`` (its time is not observable to a frame: it moves a fraction
    of a millimetre a frame) is matched within ``SLOW_TOUCH_TOL_S``."""
    sc = Score()
    tol = 2.0 / fps
    sc.events = len(found)
    sc.uncertain = sum(1 for e in found if e.get("uncertain"))

    def of(evs, *types):
        return [e for e in evs if e.type in types]

    truth_named = list(truth)
    if timeline is not None:
        truth, sc.misnamed = renamed_cushions(truth, timeline.profile)
    merged_truth = merge_close(truth, tol)
    # waves: 3+ truth collisions within WAVE_S (a rack broken, a jammed cluster)
    col_t = sorted(e.t for e in truth if e.type == "collision")
    waves = [t for i, t in enumerate(col_t) if i + 2 < len(col_t) and col_t[i + 2] - t <= WAVE_S]

    def in_wave(e: Event) -> bool:
        return any(w - 3.0 / fps <= e.t <= w + WAVE_S + 3.0 / fps for w in waves)

    for part, want in (("collision (open)", False), ("collision (cluster)", True)):
        t_ev = [(e, t1) for e, t1 in merged_truth if e.type == "collision" and in_wave(e) == want]
        f_ev = [e for e in found if e.type == "collision" and in_wave(e) == want]
        sc.tallies[part] = match(t_ev, f_ev, tol, ctx)
    for name, types, tol_s in (
        ("collision", ("collision",), tol),
        ("cushion", ("cushion",), tol),
        ("pocket", ("pocket",), 0.5),
        ("off_table", ("off_table",), 0.5),
        ("line_cross", ("line_cross",), tol),
        ("bounce_out", ("bounce_out",), 0.5),
        ("hang", ("hang", "hang_fall"), 1.0),
        ("hand", ("ball_placed", "ball_removed"), 1.0),
        ("ball_moved", ("ball_moved",), 0.5),
    ):
        if name == "cushion" and timeline is not None:
            t_ev = [(e, t1) for e, t1 in merged_truth if e.type in types]
            slow = [
                (e, t1)
                for e, t1 in t_ev
                if approach_speed(timeline, e["ball"], e.t) < SLOW_TOUCH_MM_S
            ]
            fast = [x for x in t_ev if x not in slow]
            f_ev = of(found, *types)
            sc.tallies[name] = _match_two(fast, slow, f_ev, tol, SLOW_TOUCH_TOL_S, ctx)
            if sc.misnamed:  # the same with the physics' own names
                t_nm = [(e, t1) for e, t1 in merge_close(truth_named, tol) if e.type in types]
                slow = [
                    x
                    for x in t_nm
                    if approach_speed(timeline, x[0]["ball"], x[0].t) < SLOW_TOUCH_MM_S
                ]
                fast = [x for x in t_nm if x not in slow]
                named = _match_two(fast, slow, f_ev, tol, SLOW_TOUCH_TOL_S, ctx)
            else:
                named = sc.tallies[name]
            sc.tallies["cushion (physics names)"] = Tally(named.tp, named.fn, named.fp, named.dup)
            continue
        if name in ("collision", "cushion"):
            t_ev = [(e, t1) for e, t1 in merged_truth if e.type in types]
        else:
            t_ev = of(truth, *types)
        f_ev = of(found, *types)
        if name == "hand":
            tally = Tally()
            for typ in types:
                tally.add(match(of(t_ev, typ), of(f_ev, typ), tol_s, ctx))
        else:
            tally = match(t_ev, f_ev, tol_s, ctx)
        sc.tallies[name] = tally
    if timeline is not None:
        for name in ("collision", "cushion"):
            merged = [(e, t1) for e, t1 in merged_truth if e.type == name]
            sc.invisible[name] = _invisible(timeline, merged, sc.tallies[name])
    # shots: each truth stroke should have exactly one extracted start near it
    t_shots = shots_of(truth)
    f_shots = shots_of(found)
    sc.shots_truth = len(t_shots)
    used = set()
    for ts, tevs in t_shots:
        t_end = tevs[-1].t if tevs else ts.t + 1.0
        inside = [j for j, (fs, _) in enumerate(f_shots) if ts.t - 3.0 / fps <= fs.t <= t_end]
        near = [j for j in inside if abs(f_shots[j][0].t - ts.t) <= 3.0 / fps]
        if len(inside) > 1:
            sc.shots_split += 1
        if not near:
            sc.shots_merged += 1
            continue
        j = near[0]
        used.update(inside)
        if f_shots[j][0]["cue_ball"] == ts["cue_ball"] and len(inside) == 1:
            sc.shots_found += 1
        sc.first_total += 1
        want = first_contact(ts, tevs)
        got = first_contact(f_shots[j][0], f_shots[j][1])
        if want == got:
            sc.first_right += 1
        else:
            sc.first_wrong.append((ctx, ts.t, ts["cue_ball"], want, got))
    sc.shots_extra = len(f_shots) - len(used)
    return sc


def load_play(name: str, seed: int, cache_dir: str | None = None):
    """(scene spec, profile, played scene), from a pickle cache when ``cache_dir`` is set
    (building a scene runs the physics: seconds each).  A scene the planner could not
    play is remembered there too (``.unplayable``) and raises ``SceneError`` again."""
    import pickle
    from pathlib import Path

    from luza.calibration.profiles import load_profile
    from luza.samples.planning import SceneError
    from luza.samples.scenes import SCENES, build_scene

    spec = SCENES[name]
    profile = load_profile(spec.table)
    path = Path(cache_dir) / f"{name}-{seed}.pkl" if cache_dir else None
    if path is not None and path.is_file():
        with path.open("rb") as f:
            return spec, profile, pickle.load(f)
    failed = path.with_suffix(".unplayable") if path is not None else None
    if failed is not None and failed.is_file():  # the planner's search is minutes: once
        raise SceneError(failed.read_text(encoding="utf-8"))
    try:
        play = build_scene(name, profile, seed)
    except SceneError as e:
        if failed is not None:
            failed.parent.mkdir(parents=True, exist_ok=True)
            failed.write_text(str(e), encoding="utf-8")
        raise
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with tmp.open("wb") as f:
            pickle.dump(play, f)
        tmp.replace(path)
    return spec, profile, play
