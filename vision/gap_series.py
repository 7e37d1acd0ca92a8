"""A gap over time: the pure numerics of the event stage's reversals.

A *gap* here is a ball's distance to a cushion's contact line (or a jaw's), or the
distance between two balls beyond touching (mm), sampled at frame times ``ts`` (s).  A
contact shows in it as a V: the gap falls to about zero and rises again.  These functions
find the runs of samples near zero, the dips in them, and the V's vertex (its time and its
gap there) from lines fitted each side; they know nothing of balls, tables or frames, and
``vision/events.py`` (``EventExtractor._cushion_reversals``, ``_pair_reversals``,
``_touch_time``, ``_pair_touch_time``) decides what a vertex means.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# -- tunables (units in the names) --------------------------------------------
# a cushion contact seen in the gap to one contact line: the gap falls, then rises
REVERSAL_NEAR_MM = 12.0  # samples this close to a contact line are looked at
# ... and a fast ball's closest sample this close, when it is one of at most two there
# (the samples either side of its touch: 33 mm a frame at 1 m/s across the line at 30 fps)
REVERSAL_FAST_NEAR_MM = 25.0
REVERSAL_SIDE_SAMPLES = 3  # a line is fitted to the gap over this many samples each side
REVERSAL_SIDE_S = 0.2  # ... spanning at most this long
REVERSAL_MIN_MM_S = 25.0  # the gap falls and rises at least this fast
REVERSAL_TOL_MM = 5.0  # the two lines meet within this of a zero gap (a touch)


def runs(col: np.ndarray, near_mm: float) -> list[tuple[int, int]]:
    """``(start, end)`` (end exclusive) of each run of consecutive samples of ``col`` at
    most ``near_mm``."""
    near = np.concatenate([[False], col <= near_mm, [False]])
    edges = np.flatnonzero(np.diff(near.astype(np.int8)))
    return [(int(k), int(e)) for k, e in zip(edges[::2], edges[1::2], strict=True)]


def one_dip(col: np.ndarray, noise_mm: float) -> bool:
    """Whether ``col`` falls to its least value and rises after it, never turning by
    more than ``noise_mm`` on either side (one V, not two)."""
    k = int(np.argmin(col))
    return bool(np.all(np.diff(col[: k + 1]) <= noise_mm) and np.all(np.diff(col[k:]) >= -noise_mm))


def run_minima(col: np.ndarray, near_mm: float) -> list[int]:
    """The index of the smallest sample (the first, on a tie) in each run of consecutive
    samples of ``col`` at most ``near_mm``."""
    return [int(k + np.argmin(col[k:e])) for k, e in runs(col, near_mm)]


def fast_minima(col: np.ndarray) -> list[int]:
    """The closest samples to a line of a fast ball that met it between two frames:
    a run of at most two samples within ``REVERSAL_FAST_NEAR_MM`` of the line, none
    within ``REVERSAL_NEAR_MM`` (those are looked at anyway).  Whether it touched the
    line is for the gap's falling and rising lines to say (their vertex at a zero
    gap); a ball passing by keeps a gap that does not turn."""
    out = []
    for k, e in runs(col, REVERSAL_FAST_NEAR_MM):
        m = int(k + np.argmin(col[k:e]))
        if e - k <= 2 and col[m] > REVERSAL_NEAR_MM:
            out.append(m)
    return out


def run_dips(
    ts: np.ndarray, col: np.ndarray, near_mm: float, rise_mm: float, smooth_s: float
) -> list[int]:
    """The dips of each run of consecutive samples of ``col`` at most ``near_mm``: its
    smallest sample (as ``run_minima``) and, where the run rises by ``rise_mm`` or more
    between two dips and falls as far again, each of those (hysteresis, so the noise of a
    gap lying flat makes no dips).  The rises and falls are read on the median of the
    samples within ``smooth_s`` of each (so the noise excursions counted do not grow with
    the frame rate); each dip is the smallest raw sample within ``smooth_s`` of the
    smoothed one."""
    out: list[int] = []
    for k, e in runs(col, near_mm):
        tw, cw = ts[k:e], col[k:e]
        sm = np.array([np.median(cw[np.abs(tw - t) <= smooth_s]) for t in tw])
        dips: list[int] = []
        cur, peak, falling = 0, 0, True
        for i in range(1, len(sm)):
            if falling:
                if sm[i] < sm[cur]:
                    cur = i
                elif sm[i] >= sm[cur] + rise_mm:
                    dips.append(cur)
                    falling, peak = False, i
            elif sm[i] > sm[peak]:
                peak = i
            elif sm[i] <= sm[peak] - rise_mm:
                falling, cur = True, i
        if falling:
            dips.append(cur)
        if len(dips) == 1:
            out.append(int(k + np.argmin(cw)))  # the run's smallest, as run_minima
            continue
        for d in dips:
            near = np.flatnonzero(np.abs(tw - tw[d]) <= smooth_s)
            out.append(int(k + near[np.argmin(cw[near])]))
    return out


def along(ts: np.ndarray, rel: np.ndarray, idx: Sequence[int], nrm: np.ndarray) -> float:
    """The velocity of ``rel`` (a pair's relative position) along ``nrm`` fitted by a
    line over the samples ``idx``."""
    return float(np.polyfit(ts[idx], rel[idx], 1)[0] @ nrm)


def v_fit(tw: np.ndarray, gw: np.ndarray, n_min: int) -> tuple[float, float, float, float] | None:
    """Two lines meeting at one point fitted to a gap over time: (vertex time, gap
    there, slope before, slope after), the vertex scanned in eighths of a sample
    interval with at least ``n_min`` samples on each side; None from fewer than
    ``2 n_min`` samples."""
    if len(tw) < 2 * n_min:
        return None
    best = None
    for tv in np.linspace(tw[n_min - 1], tw[-n_min], 8 * (len(tw) - 2 * n_min + 1) + 1):
        m = np.stack([np.ones_like(tw), np.minimum(tw - tv, 0.0), np.maximum(tw - tv, 0.0)], 1)
        sol, *_ = np.linalg.lstsq(m, gw, rcond=None)
        res = float(np.sum((m @ sol - gw) ** 2))
        if best is None or res < best[0]:
            best = (res, float(tv), sol)
    _, tv, (g0, v_in, v_out) = best
    return tv, float(g0), float(v_in), float(v_out)


def gap_vertex(
    ts: np.ndarray,
    col: np.ndarray,
    m: int,
    tol_mm: float = REVERSAL_TOL_MM,
    snap_frac: float = 0.0,
    skip_closest: bool = False,
    side: int = REVERSAL_SIDE_SAMPLES,
) -> tuple[float, float, list[int], list[int]] | None:
    """Where the gap to a line, falling then rising around sample ``m``, reached
    its vertex: (time, gap there, samples before, samples after) or None when it
    does not fall, rise and meet near zero.  The lines are fitted to up to ``side``
    samples each side (within ``REVERSAL_SIDE_S``).  Lines meeting at most ``snap_frac``
    of the sample interval beyond the last sample before (first after) the
    vertex met at that sample.  ``skip_closest`` (two balls' gap): the vertex may
    also lie at the closest sample itself, left out of both lines (a sample taken
    at the touch sits on the corner, in the noise: on either line it puts their
    meeting point outside that split's gap, and the sample three back may lie
    before another bend, a cushion's)."""
    best = None
    # the vertex before / after the closest sample (a: ..sa-1, b: sb..), or at it
    splits = [(m, m), (m + 1, m + 1)] + ([(m, m + 1)] if skip_closest else [])
    for sa, sb in splits:
        if sb >= len(ts) or sa < 1:
            continue
        a = [i for i in range(sa - side, sa) if i >= 0]
        b = [i for i in range(sb, sb + side) if i < len(ts)]
        a = [i for i in a if ts[sa - 1] - ts[i] <= REVERSAL_SIDE_S and np.isfinite(col[i])]
        b = [i for i in b if ts[i] - ts[sb] <= REVERSAL_SIDE_S and np.isfinite(col[i])]
        if len(a) < 2 or len(b) < 2:
            continue
        fa = np.polyfit(ts[a], col[a], 1)
        fb = np.polyfit(ts[b], col[b], 1)
        if fa[0] > -REVERSAL_MIN_MM_S or fb[0] < REVERSAL_MIN_MM_S:
            continue
        t_c = (fb[1] - fa[1]) / (fa[0] - fb[0])
        slack = snap_frac * (ts[b[0]] - ts[a[-1]]) + 1e-9
        if not ts[a[-1]] - slack <= t_c <= ts[b[0]] + slack:
            continue
        t_c = min(max(t_c, ts[a[-1]]), ts[b[0]])
        gap0 = float(np.polyval(fa, t_c))
        res = float(
            np.sum((np.polyval(fa, ts[a]) - col[a]) ** 2)
            + np.sum((np.polyval(fb, ts[b]) - col[b]) ** 2)
        )
        if abs(gap0) <= tol_mm and (best is None or res < best[2]):
            best = (float(t_c), gap0, res, a, b)
    return None if best is None else (best[0], best[1], best[3], best[4])
