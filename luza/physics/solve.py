"""Vectorised polynomial root finding for event times.

Each row is one candidate event: a polynomial ``p(tau)`` in the time ``tau`` from now
whose sign change marks the event.  We want the first ``tau`` in ``[tmin, tmax]`` where
``p`` crosses zero in a given direction (``want = -1``: from + to -, e.g. two balls
closing to one diameter; ``+1``: from - to +).
"""

from __future__ import annotations

import numpy as np

INF = np.inf
_IMAG_TOL = 1e-7


def _polyval(c: np.ndarray, t: np.ndarray) -> np.ndarray:
    out = np.zeros_like(t)
    for k in range(c.shape[1]):
        out = out * t + c[:, k]
    return out


def _polyder(c: np.ndarray) -> np.ndarray:
    deg = c.shape[1] - 1
    return c[:, :-1] * np.arange(deg, 0, -1, dtype=float)


def _pick(c: np.ndarray, roots: np.ndarray, tmin, tmax, want) -> np.ndarray:
    """Smallest admissible real root per row; ``roots`` is (N, k) complex."""
    re = roots.real.copy()
    ok = np.abs(roots.imag) <= _IMAG_TOL * np.maximum(1.0, np.abs(re))
    # polish the real parts with two Newton steps on the full polynomial
    dc = _polyder(c)
    n, k = re.shape
    flat_c = np.repeat(c, k, axis=0)
    flat_dc = np.repeat(dc, k, axis=0)
    x = re.reshape(-1)
    for _ in range(2):
        f = _polyval(flat_c, x)
        d = _polyval(flat_dc, x)
        step = np.where(np.abs(d) > 0, f / np.where(d == 0, 1.0, d), 0.0)
        x = np.where(np.isfinite(step) & (np.abs(step) < 1e-3 * (1 + np.abs(x))), x - step, x)
    re = x.reshape(n, k)
    slope = _polyval(flat_dc, x).reshape(n, k)
    ok &= (re >= np.asarray(tmin)[:, None] - 1e-12) & (re <= np.asarray(tmax)[:, None])
    ok &= slope * np.asarray(want)[:, None] > 0
    cand = np.where(ok, re, INF)
    best = cand.min(axis=1)
    return np.maximum(best, 0.0)


def first_crossing(
    c: np.ndarray,
    tmax: np.ndarray,
    want: int | np.ndarray = -1,
    tmin: float | np.ndarray = 0.0,
) -> np.ndarray:
    """First crossing time per row for polynomials ``c`` (N, deg+1), highest power first.

    A row that is already at zero (within rounding) and heading the wanted way at
    ``tau = 0`` gives 0 when ``tmin`` is 0.  Rows of lower effective degree (leading
    coefficients zero) are handled.  Returns ``inf`` where there is no crossing.
    """
    c = np.asarray(c, dtype=float)
    n = c.shape[0]
    out = np.full(n, INF)
    if n == 0:
        return out
    tmax = np.broadcast_to(np.asarray(tmax, dtype=float), (n,))
    tmin_a = np.broadcast_to(np.asarray(tmin, dtype=float), (n,))
    want_a = np.broadcast_to(np.asarray(want, dtype=float), (n,))
    scale = np.abs(c).max(axis=1)
    scale[scale == 0] = 1.0
    cn = c / scale[:, None]
    deg = c.shape[1] - 1
    # effective degree per row
    eff = np.full(n, 0)
    for k in range(deg + 1):
        nz = (np.abs(cn[:, k]) > 1e-13) & (eff == 0)
        eff[nz] = deg - k
    for d in range(1, deg + 1):
        rows = np.nonzero(eff == d)[0]
        if rows.size == 0:
            continue
        sub = cn[rows, deg - d :]
        if d == 1:
            roots = (-sub[:, 1] / sub[:, 0])[:, None].astype(complex)
        elif d == 2:
            a, b, cc = sub[:, 0], sub[:, 1], sub[:, 2]
            disc = (b * b - 4 * a * cc).astype(complex)
            sq = np.sqrt(disc)
            q = -0.5 * (b + np.where(b >= 0, 1, -1) * sq)
            with np.errstate(divide="ignore", invalid="ignore"):
                r1 = q / a
                r2 = np.where(q != 0, cc / q, r1)
            roots = np.stack([r1, r2], axis=1)
        else:
            mon = sub[:, 1:] / sub[:, :1]
            comp = np.zeros((rows.size, d, d))
            comp[:, 0, :] = -mon
            idx = np.arange(d - 1)
            comp[:, idx + 1, idx] = 1.0
            roots = np.linalg.eigvals(comp)
        roots = np.where(np.isfinite(roots), roots, INF + 0j)
        out[rows] = _pick(sub, roots, tmin_a[rows], tmax[rows], want_a[rows])
    # already touching and heading the wanted way: now
    if np.any(tmin_a <= 0):
        c0 = cn[:, -1]
        c1 = cn[:, -2]
        touching = (np.abs(c0) <= 1e-10) & (c1 * want_a > 0) & (tmin_a <= 0)
        past = (c0 * want_a > 0) & (c1 * want_a > 0) & (tmin_a <= 0)  # a little beyond: now
        out[touching | past] = 0.0
    return out
