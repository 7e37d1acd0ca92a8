"""The gap-over-time numerics of the event stage (vision/gap_series.py) on hand-made
gaps: runs of samples near zero, a fast ball's closest samples, and the vertex of a V
made of two exact lines -- no table, no extractor."""

from __future__ import annotations

import numpy as np
import pytest

from luza.vision.gap_series import (
    REVERSAL_TOL_MM,
    fast_minima,
    gap_vertex,
    run_minima,
    runs,
    v_fit,
)

FPS = 60.0


def _v(ts: np.ndarray, t_v: float, v_in: float, v_out: float, g0: float = 0.0) -> np.ndarray:
    """A gap falling at ``v_in`` (mm/s, < 0) to ``g0`` at ``t_v`` and rising at ``v_out``."""
    return g0 + np.where(ts < t_v, v_in * (ts - t_v), v_out * (ts - t_v))


def test_runs_are_the_stretches_of_samples_near_zero_and_their_smallest():
    col = np.array([20.0, 3.0, 4.0, 20.0, 20.0, 1.0, 20.0, 2.0, 2.0])
    assert runs(col, 5.0) == [(1, 3), (5, 6), (7, 9)]  # end exclusive, one at the end
    assert runs(col, 0.5) == []
    assert run_minima(col, 5.0) == [1, 5, 7]  # the first of a tie


def test_a_fast_balls_closest_samples_are_those_of_a_short_run_not_near_enough():
    # two samples either side of a touch between frames, 18 and 22 mm off the line
    assert fast_minima(np.array([80.0, 50.0, 18.0, 22.0, 55.0])) == [2]
    # a run of three or more is a slow ball's (run_minima's), as is a sample within 12 mm
    assert fast_minima(np.array([40.0, 20.0, 15.0, 18.0, 40.0])) == []
    assert fast_minima(np.array([40.0, 20.0, 8.0, 30.0])) == []


@pytest.mark.parametrize("frac", [0.25, 0.75])  # the closest sample before / after it
def test_the_vertex_of_two_exact_lines_is_where_they_meet(frac: float):
    ts = 2.0 + np.arange(13) / FPS
    t_v = float(ts[6] + frac / FPS)  # between samples 6 and 7
    col = _v(ts, t_v, -300.0, 200.0)
    m = int(np.argmin(col))
    assert m == (6 if frac < 0.5 else 7)
    hit = gap_vertex(ts, col, m)
    assert hit is not None
    t_c, gap0, before, after = hit
    assert t_c == pytest.approx(t_v, abs=1e-9)
    assert gap0 == pytest.approx(0.0, abs=1e-6)
    assert (list(before), list(after)) == ([4, 5, 6], [7, 8, 9])  # three a side, none across
    # the same V 20 mm off zero: a ball turning short of the line, no touch ...
    off = col + 20.0
    assert gap_vertex(ts, off, m) is None
    # ... found again only with a tolerance past its gap
    loose = gap_vertex(ts, off, m, tol_mm=20.0 + REVERSAL_TOL_MM)
    assert loose is not None and loose[1] == pytest.approx(20.0, abs=1e-6)
    # a gap rising after it slower than REVERSAL_MIN_MM_S (a ball rolling on along the
    # line) is no touch
    slow = _v(ts, t_v, -300.0, 10.0)
    assert gap_vertex(ts, slow, int(np.argmin(slow))) is None
    # a gap that only falls (a ball passing the line's end) has no vertex
    assert gap_vertex(ts, 40.0 - 300.0 * (ts - ts[0]), 6) is None


def test_a_v_fit_recovers_the_slopes_and_vertex_of_a_v():
    tw = 5.0 + np.arange(12) / FPS
    t_v = float(tw[5] + 3.0 / 8.0 / FPS)  # on the fit's scan (eighths of a frame)
    gw = _v(tw, t_v, -250.0, 120.0, g0=1.5)
    fit = v_fit(tw, gw, 3)
    assert fit is not None
    tv, g0, v_in, v_out = fit
    assert tv == pytest.approx(t_v, abs=1e-9)
    assert (g0, v_in, v_out) == pytest.approx((1.5, -250.0, 120.0), abs=1e-6)
    assert v_fit(tw[:5], gw[:5], 3) is None  # fewer than three samples a side
