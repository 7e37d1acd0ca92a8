"""Vectorised polynomial root finding for event times.

Each row is one candidate event: a polynomial ``p(tau)`` in the time ``tau`` from now
whose sign change marks the event.  We want the first ``tau`` in ``[tmin, tmax]`` where
``p`` crosses zero in a given direction (``want = -1``: from + to -, e.g. two balls
closing to one diameter; ``+1``: from - to +).  A row that is at zero already (or a
hair past it) and heading the wanted way gives ``tau = 0`` when ``tmin`` is 0: that is
how touching balls (a rack) and a ball frozen to a cushion are struck.
"""

from __future__ import annotations

import numpy as np

INF = np.inf
_IMAG_TOL = 1e-7
_DEG_TOL = 1e-13
# a crossing must be a real crossing: grazing contacts (slope ~ 0 relative to the
# row's largest coefficient) are not events
_SLOPE_TOL = 1e-12


def _now_rows(c0, c1, want, tmin) -> np.ndarray:
    """Rows already at (or a hair past) zero and heading the wanted way."""
    return (tmin <= 0) & (c1 * want > _SLOPE_TOL) & ((np.abs(c0) <= 1e-10) | (c0 * want > 0))


def first_crossing_quadratic(c: np.ndarray, tmax, want=-1, tmin=0.0) -> np.ndarray:
    """:func:`first_crossing` for rows ``[a, b, c]`` of ``a t^2 + b t + c``."""
    c = np.asarray(c, dtype=float)
    n = c.shape[0]
    tmax = np.broadcast_to(np.asarray(tmax, dtype=float), (n,))
    want = np.broadcast_to(np.asarray(want, dtype=float), (n,))
    tmin = np.broadcast_to(np.asarray(tmin, dtype=float), (n,))
    scale = np.abs(c).max(axis=1)
    scale[scale == 0] = 1.0
    a, b, cc = (c / scale[:, None]).T
    lin = np.abs(a) <= _DEG_TOL
    disc = b * b - 4 * a * cc
    real = (disc >= 0) | lin
    sq = np.sqrt(np.maximum(disc, 0.0))
    q = -0.5 * (b + np.where(b >= 0, sq, -sq))
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = np.where(lin, -cc / np.where(b == 0, 1.0, b), q / np.where(a == 0, 1.0, a))
        r2 = np.where(lin | (q == 0), INF, cc / np.where(q == 0, 1.0, q))
    r1 = np.where(lin & (b == 0), INF, r1)
    out = np.full(n, INF)
    for r in (r1, r2):
        r = np.where(np.isfinite(r), r, INF)
        with np.errstate(invalid="ignore"):
            slope = 2 * a * np.where(np.isfinite(r), r, 0.0) + b
        ok = real & np.isfinite(r) & (r >= tmin - 1e-12) & (r <= tmax)
        ok &= slope * want > _SLOPE_TOL
        out = np.where(ok & (r < out), r, out)
    out = np.maximum(out, 0.0)
    out[_now_rows(cc, b, want, tmin)] = 0.0
    return out


def first_crossing_quartic(c: np.ndarray, tmax, want=-1, tmin=0.0) -> np.ndarray:
    """:func:`first_crossing` for rows of a quartic ``[c4, c3, c2, c1, c0]``."""
    c = np.asarray(c, dtype=float)
    n = c.shape[0]
    out = np.full(n, INF)
    if n == 0:
        return out
    tmax = np.broadcast_to(np.asarray(tmax, dtype=float), (n,))
    want = np.broadcast_to(np.asarray(want, dtype=float), (n,))
    tmin = np.broadcast_to(np.asarray(tmin, dtype=float), (n,))
    scale = np.abs(c).max(axis=1)
    scale[scale == 0] = 1.0
    cn = c / scale[:, None]
    quart = np.abs(cn[:, 0]) > _DEG_TOL
    rows = np.nonzero(quart)[0]
    if rows.size:
        sub = cn[rows]
        comp = np.zeros((rows.size, 4, 4))
        comp[:, 0, :] = -sub[:, 1:] / sub[:, :1]
        comp[:, 1, 0] = comp[:, 2, 1] = comp[:, 3, 2] = 1.0
        roots = np.linalg.eigvals(comp)
        re = roots.real
        ok = np.abs(roots.imag) <= _IMAG_TOL * np.maximum(1.0, np.abs(re))
        # two Newton steps to polish (eigenvalues are good to ~1e-12 relative)
        c4, c3, c2, c1, c0 = (sub[:, k : k + 1] for k in range(5))
        x = re
        for _ in range(2):
            f = (((c4 * x + c3) * x + c2) * x + c1) * x + c0
            d = ((4 * c4 * x + 3 * c3) * x + 2 * c2) * x + c1
            with np.errstate(divide="ignore", invalid="ignore"):
                step = np.where(d != 0, f / d, 0.0)
            x = np.where(np.abs(step) < 1e-3 * (1 + np.abs(x)), x - step, x)
        slope = ((4 * c4 * x + 3 * c3) * x + 2 * c2) * x + c1
        ok &= (x >= tmin[rows, None] - 1e-12) & (x <= tmax[rows, None])
        ok &= slope * want[rows, None] > _SLOPE_TOL
        out[rows] = np.maximum(np.where(ok, x, INF).min(axis=1), 0.0)
        now = _now_rows(sub[:, 4], sub[:, 3], want[rows], tmin[rows])
        # touching, not moving apart or together, but accelerating together (one ball
        # pushing another): now as well -- the caller decides what a push does
        now |= (
            (tmin[rows] <= 0)
            & (np.abs(sub[:, 4]) <= 1e-10)
            & (np.abs(sub[:, 3]) <= _SLOPE_TOL)
            & (sub[:, 2] * want[rows] > _SLOPE_TOL)
        )
        out[rows[now]] = 0.0
    low = np.nonzero(~quart)[0]
    if low.size:  # leading coefficient zero: at most a cubic (equal accelerations)
        sub = cn[low]
        cubic = np.abs(sub[:, 1]) > _DEG_TOL
        for k in np.nonzero(cubic)[0]:
            r = np.roots(sub[k, 1:])
            out[low[k]] = _pick_scalar(sub[k, 1:], r, tmin[low[k]], tmax[low[k]], want[low[k]])
        q = np.nonzero(~cubic)[0]
        if q.size:
            out[low[q]] = first_crossing_quadratic(
                sub[q, 2:], tmax[low[q]], want[low[q]], tmin[low[q]]
            )
        now = _now_rows(sub[cubic][:, 4], sub[cubic][:, 3], want[low[cubic]], tmin[low[cubic]])
        out[low[cubic][now]] = 0.0
    return out


def _pick_scalar(c: np.ndarray, roots: np.ndarray, tmin, tmax, want) -> float:
    dc = np.polyder(c)
    best = INF
    for r in roots:
        if abs(r.imag) > _IMAG_TOL * max(1.0, abs(r.real)):
            continue
        x = r.real
        if tmin - 1e-12 <= x <= tmax and np.polyval(dc, x) * want > _SLOPE_TOL:
            best = min(best, max(x, 0.0))
    return best


def first_crossing(
    c: np.ndarray,
    tmax,
    want=-1,
    tmin=0.0,
) -> np.ndarray:
    """First crossing time per row for polynomials ``c`` (N, 3 or 5), highest power first.

    ``want``, ``tmin``, ``tmax`` are scalars or per-row arrays.  Returns ``inf`` where
    there is no crossing in ``[tmin, tmax]``.
    """
    c = np.asarray(c, dtype=float)
    if c.shape[1] == 3:
        return first_crossing_quadratic(c, tmax, want, tmin)
    if c.shape[1] == 5:
        return first_crossing_quartic(c, tmax, want, tmin)
    raise ValueError("rows must be quadratics or quartics")
