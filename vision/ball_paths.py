"""One ball's seen samples cut into rests and moves, each move fitted by pieces of
constant acceleration (issue 5; the first two steps of ``vision/events.py``).

* :func:`split_motion`: a *rest* is a stretch whose samples over ``REST_WINDOW_S``
  stay within ``REST_SPREAD_MM`` (its anchor is their mean); a *move* starts when the
  ball is seen ``START_MM`` or more from its anchor twice running (or
  ``JUMP_START_MM`` once) and ends at the next rest or when the ball is unseen for
  ``VANISH_S``.
* :func:`segment_path`: a move's samples cut greedily into :class:`Piece` s, each a
  quadratic in time per coordinate with ``|a| <= MAX_ACCEL_MM_S2``, fitting its
  samples within ``FIT_TOL_MM``: a contact bends the path, so a piece ends there.
* :func:`incoming_piece`: a striker's path into a contact, fitted back from its last
  sample before it.

Plain data in, plain data out (numpy arrays of times and table mm); nothing here
knows about cushions, pockets or other balls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


class SeenFrame(Protocol):
    """One frame of tracker output as this stage reads it (``vision.events.FrameObs``):
    the balls seen (table mm) and those on the table out of view."""

    @property
    def frame(self) -> int: ...
    @property
    def t(self) -> float: ...
    @property
    def seen(self) -> Mapping[str, tuple[float, float]]: ...
    @property
    def hidden(self) -> frozenset[str]: ...


# -- tunables (units in the names) --------------------------------------------
START_MM = 5.0  # a ball further than this from its rest anchor (twice running) moves
JUMP_START_MM = 15.0  # ... or this far once
REST_WINDOW_S = 0.3  # a ball is at rest when a window this long ...
REST_SPREAD_MM = 4.0  # ... stays within this of its first sample
REST_MIN_SAMPLES = 3
# a rest's samples either side of one past START_MM, their means this close: the ball
# lay still there (not pushed then; a mean of 18+ samples moves ~0.2 mm in the noise)
STILL_SHIFT_MM = 1.0
VANISH_S = 0.25  # a moving ball unseen this long is gone (or hidden)
FIT_TOL_MM = 6.0  # a piece of path fits its samples within this ...
FIT_TOL_PER_MM_S = 0.0  # ... plus this per mm/s of its speed (default of segment_path)
MAX_ACCEL_MM_S2 = 4000.0  # sliding friction ~ 0.2 g; more than this is a contact
INCOMING_TOL_PER_MM_S = 0.002  # a striker's incoming path: + this per mm/s (20 mm at 10 m/s)
INCOMING_SPAN_S = 0.25  # ... fitted over at most this long


# ------------------------------------------------------------------ path pieces
@dataclass
class Piece:
    """A stretch of one ball's path with constant acceleration: p(t) = c0 + c1 s + c2 s^2."""

    t0: float  # first sample time
    t1: float  # last sample time
    tref: float
    cx: np.ndarray
    cy: np.ndarray
    n: int

    def at(self, t: float) -> np.ndarray:
        s = t - self.tref
        return np.array(
            [
                self.cx[0] + self.cx[1] * s + self.cx[2] * s * s,
                self.cy[0] + self.cy[1] * s + self.cy[2] * s * s,
            ]
        )

    def vel(self, t: float) -> np.ndarray:
        s = t - self.tref
        return np.array([self.cx[1] + 2 * self.cx[2] * s, self.cy[1] + 2 * self.cy[2] * s])


def fit_piece(ts: np.ndarray, xy: np.ndarray) -> tuple[Piece, float]:
    """Least-squares piece through samples; returns it and the worst residual (mm)."""
    n = len(ts)
    tref = float(ts[0])
    s = ts - tref
    if n == 1:
        c = [np.array([xy[0, k], 0.0, 0.0]) for k in (0, 1)]
        return Piece(tref, tref, tref, c[0], c[1], 1), 0.0
    deg = 1 if n <= 3 else 2
    A = np.vander(s, deg + 1, increasing=True)
    coef, *_ = np.linalg.lstsq(A, xy, rcond=None)
    if deg == 1:
        coef = np.vstack([coef, np.zeros((1, 2))])
    piece = Piece(tref, float(ts[-1]), tref, coef[:, 0].copy(), coef[:, 1].copy(), n)
    pred = np.vander(s, 3, increasing=True) @ coef  # piece.at at every sample, in one go
    res = float(np.max(np.linalg.norm(pred - xy, axis=1)))
    acc = 2.0 * math.hypot(coef[2, 0], coef[2, 1])
    if acc > MAX_ACCEL_MM_S2:
        res = max(res, FIT_TOL_MM * 10)
    return piece, res


def segment_path(
    ts: np.ndarray, xy: np.ndarray, tol_mm: float = FIT_TOL_MM, tol_per_mm_s: float | None = None
) -> list[list[int]]:
    """Greedy cut of a moving ball's samples into pieces of constant acceleration.

    Returns lists of sample indices.  A break falls where a sample no longer fits
    within ``tol_mm`` plus ``tol_per_mm_s`` times the piece's mean speed (a fast
    ball is located less precisely: motion blur); the break is then moved by one
    sample either way if that fits both sides better.
    """
    per = FIT_TOL_PER_MM_S if tol_per_mm_s is None else tol_per_mm_s

    def fit(t: np.ndarray, p: np.ndarray) -> tuple[Piece, float]:
        """The residual scaled so that ``tol_mm`` is the speed's own tolerance."""
        piece, res = fit_piece(t, p)
        if len(t) >= 2 and per > 0:
            speed = float(np.linalg.norm(p[-1] - p[0])) / max(float(t[-1] - t[0]), 1e-9)
            res = res * tol_mm / (tol_mm + per * speed)
        return piece, res

    n = len(ts)
    groups: list[list[int]] = []
    i = 0
    while i < n:
        j = i + 1
        while j < n:
            _, res = fit(ts[i : j + 1], xy[i : j + 1])
            if res > tol_mm:
                break
            j += 1
        groups.append(list(range(i, j)))
        i = j
    # refine each break: the last sample of a piece may belong to the next one
    for g in range(len(groups) - 1):
        a, b = groups[g], groups[g + 1]
        if len(a) < 3 or len(b) < 2:
            continue
        best = (None, math.inf)
        for shift in (-1, 0):
            aa = a[: len(a) + shift] if shift else a
            bb = a[len(a) + shift :] + b if shift else b
            _, ra = fit(ts[aa], xy[aa])
            _, rb = fit(ts[bb], xy[bb])
            if ra <= tol_mm and rb <= tol_mm and ra + rb < best[1]:
                best = (shift, ra + rb)
        if best[0] == -1:
            groups[g], groups[g + 1] = a[:-1], a[-1:] + b
    # a short piece (2 samples always fit a line) may straddle a contact: hand its
    # samples to a longer neighbour that they fit
    for _ in range(2):
        for g in range(len(groups)):
            cur = groups[g]
            if len(cur) > 2 or not cur:
                continue
            if g > 0 and len(groups[g - 1]) >= 3:
                ext = groups[g - 1] + cur[:1]
                if fit(ts[ext], xy[ext])[1] <= tol_mm:
                    groups[g - 1], cur = ext, cur[1:]
            if cur and g + 1 < len(groups) and len(groups[g + 1]) >= 3:
                ext = cur[-1:] + groups[g + 1]
                if fit(ts[ext], xy[ext])[1] <= tol_mm:
                    groups[g + 1], cur = ext, cur[:-1]
            groups[g] = cur
        groups = [g for g in groups if g]
    return groups


# ------------------------------------------------------------------ per-ball motion
@dataclass
class Move:
    """One ball's motion from a rest (or an appearance) to a rest (or a vanishing)."""

    ball: str
    idx: list[int]  # indices into the ball's seen samples
    anchor0: np.ndarray | None  # where it rested before (None: it appeared moving)
    t_rest0: float | None  # last rest sample time before
    end: str  # "rest" | "vanish" | "open" (the stream ended)
    anchor1: np.ndarray | None = None
    pieces: list[Piece] = field(default_factory=list)
    t_start: float = 0.0  # estimated time it left its anchor
    t_end: float = 0.0  # time it came to rest (or was last seen)
    shot: int = -1
    way_unseen: bool = False  # unseen from its anchor to its first piece (a speed guessed)


@dataclass
class Rest:
    ball: str
    t0: float
    t1: float  # last sample at rest (before a move, a vanishing or the end)
    anchor: np.ndarray
    n: int


@dataclass
class BallData:
    ball: str
    ts: np.ndarray
    xy: np.ndarray
    frames: np.ndarray
    absent_after: float | None  # time from which the tracker says it left the table
    t_stream_end: float = math.inf
    t_stream_start: float = -math.inf
    rests: list[Rest] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    timeline: list = field(default_factory=list)  # (kind, t_from, Rest | Move), in time order


def ball_data(frames: Sequence[SeenFrame], ball: str) -> BallData:
    """One ball's seen samples from the frames, and when the tracker first had it off
    the table (neither seen nor hidden) with no sighting after."""
    ts, xy, fr = [], [], []
    absent_after = None
    for f in frames:
        if ball in f.seen:
            ts.append(f.t)
            xy.append(f.seen[ball])
            fr.append(f.frame)
            absent_after = None
        elif ball not in f.hidden and absent_after is None:
            absent_after = f.t
    return BallData(
        ball,
        np.array(ts, dtype=float),
        np.array(xy, dtype=float).reshape(-1, 2),
        np.array(fr, dtype=int),
        absent_after,
        float(frames[-1].t),
        float(frames[0].t),
    )


def incoming_piece(bd: BallData, t_rest: float) -> Piece | None:
    """A striker's incoming path: one piece fitted backwards from its last sample at or
    before ``t_rest``, as far as the samples stay within ``FIT_TOL_MM`` plus the
    ``INCOMING_TOL_PER_MM_S`` speed share over at most ``INCOMING_SPAN_S``; None from
    fewer than three samples (two fix no path through the noise)."""
    k1 = int(np.searchsorted(bd.ts, t_rest + 1e-6))  # samples before: [.., k1)
    if k1 < 3:
        return None
    k0 = k1 - 2
    piece, _ = fit_piece(bd.ts[k0:k1], bd.xy[k0:k1])
    while k0 > 0 and bd.ts[k1 - 1] - bd.ts[k0 - 1] <= INCOMING_SPAN_S:
        cand, res = fit_piece(bd.ts[k0 - 1 : k1], bd.xy[k0 - 1 : k1])
        speed = float(np.linalg.norm(cand.vel(float(bd.ts[k1 - 1]))))
        if res > FIT_TOL_MM + INCOMING_TOL_PER_MM_S * speed:
            break
        k0, piece = k0 - 1, cand
    return piece if k1 - k0 >= 3 else None


def spread_mm(xy: np.ndarray) -> float:
    """How far the farthest of these points lies from their mean."""
    return float(np.max(np.linalg.norm(xy - xy.mean(axis=0), axis=1)))


def rest_run(bd: BallData, i: int) -> int:
    """Index one past the last sample of a rest window starting at sample ``i`` (or -1)."""
    ts, xy = bd.ts, bd.xy
    j = int(np.searchsorted(ts, ts[i] + REST_WINDOW_S + 1e-9))
    if i == 0 and ts[0] - bd.t_stream_start < 0.05:
        # the start of the stream: a short still head counts as rest (a recording that
        # begins just before the stroke: LukasSeglias video_12's white, still 0.2 s)
        head = REST_MIN_SAMPLES
        while head < j and spread_mm(xy[: head + 1]) <= REST_SPREAD_MM:
            head += 1
        if head < j and spread_mm(xy[:head]) <= REST_SPREAD_MM:
            return head
    w = xy[i:j]
    if len(w) == 0 or np.max(np.linalg.norm(w - w.mean(axis=0), axis=1)) > REST_SPREAD_MM:
        return -1
    if j - i < REST_MIN_SAMPLES or ts[j - 1] - ts[i] < 0.6 * REST_WINDOW_S:
        if j >= len(ts) and j - i >= 1 and bd.t_stream_end - ts[j - 1] < 0.05:
            return j  # the end of the stream: a short still tail counts as rest
        return -1
    return j


def still_around(bd: BallData, i: int) -> np.ndarray | None:
    """The mean of ``bd``'s samples within ``2 * REST_WINDOW_S`` either side of sample
    ``i`` when they all lie within ``REST_SPREAD_MM`` of it and the means of those
    before and from ``i`` lie within ``STILL_SHIFT_MM`` (the ball still all that time,
    seen at least ``REST_MIN_SAMPLES`` times each side; not pushed a few mm there),
    else None."""
    ts, xy = bd.ts, bd.xy
    a = int(np.searchsorted(ts, ts[i] - 2 * REST_WINDOW_S - 1e-9))
    b = int(np.searchsorted(ts, ts[i] + 2 * REST_WINDOW_S + 1e-9))
    if i - a < REST_MIN_SAMPLES or b - i < REST_MIN_SAMPLES:
        return None
    if ts[i] - ts[a] < 1.5 * REST_WINDOW_S or ts[b - 1] - ts[i] < 1.5 * REST_WINDOW_S:
        return None
    w = xy[a:b]
    if spread_mm(w) > REST_SPREAD_MM:
        return None
    shift = float(np.linalg.norm(xy[a:i].mean(axis=0) - xy[i:b].mean(axis=0)))
    return w.mean(axis=0) if shift <= STILL_SHIFT_MM else None


def split_motion(bd: BallData, dt_frame: float) -> None:
    """Cut one ball's samples into rests and moves (fills ``bd.rests`` / ``bd.moves``)."""
    ts, xy = bd.ts, bd.xy
    n = len(ts)
    i = 0
    anchor: np.ndarray | None = None
    rest_start = None
    rest_n = 0
    t_last_rest = None
    vanish_gap = max(VANISH_S, 3.5 * dt_frame)
    while i < n:
        if anchor is None:
            # appeared (first sample or after a vanishing): at rest or moving?
            j = rest_run(bd, i)
            if j > 0:
                anchor = xy[i:j].mean(axis=0)
                rest_start, rest_n, t_last_rest = ts[i], j - i, ts[j - 1]
                i = j
                continue
            mv = Move(bd.ball, [], None, None, "open")
            i = _follow_move(bd, mv, i, vanish_gap)
        else:
            d = np.linalg.norm(xy[i] - anchor)
            gap = ts[i] - (t_last_rest if t_last_rest is not None else ts[i])
            if d <= START_MM:
                rest_n += 1
                if rest_n <= 30:
                    anchor = anchor + (xy[i] - anchor) / rest_n
                t_last_rest = ts[i]
                i += 1
                continue
            nxt = i + 1 < n and np.linalg.norm(xy[i + 1] - anchor) > START_MM
            if gap > vanish_gap and rest_run(bd, i) > 0:
                # unseen for a while and back somewhere else, still: moved by a hand
                bd.rests.append(Rest(bd.ball, rest_start, t_last_rest, anchor, rest_n))
                anchor = None
                continue
            if d <= JUMP_START_MM and not nxt:
                i += 1  # one odd sample
                continue
            still = still_around(bd, i)
            if still is not None and np.linalg.norm(still - anchor) <= START_MM:
                # a rest shifted by a push under START_MM, met by the noise later:
                # still all around this sample, the ball lies where it was pushed to
                # (2900-2999 fp-break/2932: 2 nudged 3.5 mm at 4.5 s, read as set
                # moving 6 s later and struck by the ball lying against it)
                anchor = still
                t_last_rest = ts[i]
                i += 1
                continue
            bd.rests.append(Rest(bd.ball, rest_start, t_last_rest, anchor, rest_n))
            mv = Move(bd.ball, [], anchor.copy(), t_last_rest, "open")
            i = _follow_move(bd, mv, i, vanish_gap)
        # after a move
        mv = bd.moves[-1]
        if mv.end == "rest":
            anchor = mv.anchor1
            rest_start, t_last_rest = ts[mv.idx[-1]], ts[i - 1]
            rest_n = i - mv.idx[-1]
        else:
            anchor = None
    if anchor is not None:
        bd.rests.append(Rest(bd.ball, rest_start, t_last_rest, anchor, rest_n))


def _follow_move(bd: BallData, mv: Move, i: int, vanish_gap: float) -> int:
    ts, xy = bd.ts, bd.xy
    n = len(ts)
    idx = [i]
    k = i + 1
    while k < n:
        if ts[k] - ts[k - 1] > vanish_gap:
            break
        j = rest_run(bd, k)
        idx.append(k)
        if j > 0:
            mv.end = "rest"
            mv.anchor1 = xy[k:j].mean(axis=0)
            bd.moves.append(mv)
            mv.idx = idx
            return j
        k += 1
    mv.idx = idx
    mv.end = "vanish" if k < n or bd.absent_after is not None else "open"
    if k >= n and bd.absent_after is None:
        mv.end = "open"
    bd.moves.append(mv)
    return k
