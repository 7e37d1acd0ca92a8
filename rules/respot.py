"""Where balls go back on the table, and whether they were put there.

* :func:`respot_spots` -- GR-25 (AMB-17 reading): the rear spot; if it is
  taken, on the respot line (rear spot -> foot cushion) as near the rear spot
  as possible, tight against the blocking ball; if the whole line is blocked,
  on the long axis in front of the rear spot, as near it as possible.  Several
  balls go one after another, each against the ones placed before it.
* :func:`incomplete_pyramid` -- GR-9.3 (AMB-19 reading) rack positions for
  fewer than 15 balls; :func:`rack_check` -- GR-9.1 / GR-9.3 positions vs the
  balls on the table.
* :func:`in_house` -- GR-11: strictly between the head cushion and the house line.

All positions are table millimetres (``x`` from the head cushion nose, ``y``
from the left cushion nose); the geometry comes from the table profile.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from luza.calibration.profiles import TableProfile
from luza.rules.engine import XY, Respot

# Two balls closer than D - this are overlapping (a numerical allowance, not a tolerance).
OVERLAP_EPS_MM = 1e-6


def _blocked(x: float, y: float, occupied: Iterable[XY], min_dist_mm: float) -> bool:
    return any(math.hypot(x - ox, y - oy) < min_dist_mm - OVERLAP_EPS_MM for ox, oy in occupied)


def _axis_edges(y0: float, occupied: Iterable[XY], min_dist_mm: float) -> list[float]:
    """x where a ball on the axis y = y0 would just touch an occupying ball."""
    edges = []
    for ox, oy in occupied:
        dy = abs(oy - y0)
        if dy < min_dist_mm:
            half = math.sqrt(min_dist_mm**2 - dy**2)
            edges += [ox - half, ox + half]
    return edges


def respot_point(profile: TableProfile, occupied: Iterable[XY], gap_mm: float = 0.0) -> XY | None:
    """The GR-25 point for one ball against the ``occupied`` positions (None: no room)."""
    occ = list(occupied)
    D = profile.ball_diameter_mm + gap_mm
    R = profile.ball_radius_mm
    x0, y0 = profile.spots["rear"]
    x_max = profile.length_mm - R
    # 1. the rear spot; 2. behind it along the respot line, nearest first
    behind = sorted({x0, *(e for e in _axis_edges(y0, occ, D) if x0 <= e <= x_max)})
    for x in behind:
        if not _blocked(x, y0, occ, D):
            return (x, y0)
    # 4. in front of the rear spot (towards the centre), nearest first
    front = sorted((e for e in _axis_edges(y0, occ, D) if R <= e < x0), reverse=True)
    for x in front:
        if not _blocked(x, y0, occ, D):
            return (x, y0)
    return None


def respot_spots(
    balls: Iterable[str],
    occupied: Mapping[str, XY],
    profile: TableProfile,
    gap_mm: float = 0.0,
) -> list[Respot]:
    """GR-25 points for ``balls`` in the given order, each against the balls before it."""
    occ = dict(occupied)
    out: list[Respot] = []
    for b in balls:
        others = [p for k, p in occ.items() if k != b]
        pt = respot_point(profile, others, gap_mm)
        if pt is None:  # the whole long axis is full: nothing sensible to say but the rear spot
            pt = profile.spots["rear"]
        out.append(Respot(b, (float(pt[0]), float(pt[1]))))
        occ[b] = pt
    return out


def in_house(pos: XY, profile: TableProfile) -> bool:
    """GR-11: the house is 0 < x < L/4; a ball on the house line is outside it."""
    return 0.0 < pos[0] < profile.length_mm / 4.0


def incomplete_pyramid(n: int, profile: TableProfile) -> list[XY]:
    """GR-9.3 rack positions for ``n`` balls (1..15), apex first, each row left to right.

    Rows fill from the apex; the last row fills from the middle outwards; if that
    row cannot be symmetric the apex ball moves down into it (the apex stays
    empty and the triangle does not shift).  15 gives the full rack (GR-9.1).
    """
    if not 0 <= n <= 15:
        raise ValueError(f"a pyramid holds 0..15 balls, not {n}")
    full = profile.rack_positions(5)
    rows = [full[i * (i + 1) // 2 : (i + 1) * (i + 2) // 2] for i in range(5)]
    if n == 0:
        return []
    k = 0
    while (k + 1) * (k + 2) // 2 <= n:
        k += 1
    m = n - k * (k + 1) // 2  # balls for row k (0-based index k, which has k + 1 slots)
    if m == 0:
        return [p for r in rows[:k] for p in r]
    slots = k + 1
    skip_apex = (slots - m) % 2 == 1
    if skip_apex:
        m += 1
    row = rows[k]
    centre = (slots - 1) / 2.0
    order = sorted(range(slots), key=lambda j: (abs(j - centre), j))
    chosen = sorted(order[:m])
    start_row = 1 if skip_apex else 0
    out = [p for r in rows[start_row:k] for p in r]
    out += [row[j] for j in chosen]
    return out


@dataclass
class RackCheck:
    """How a set of balls matches a set of rack positions."""

    ok: bool
    matched: dict[str, XY] = field(default_factory=dict)  # ball -> the rack point it sits on
    empty: list[XY] = field(default_factory=list)  # rack points with no ball within tolerance
    strays: list[str] = field(default_factory=list)  # balls on no rack point
    worst_mm: float = 0.0  # the largest distance of a matched ball from its point


def rack_check(positions: Mapping[str, XY], points: list[XY], tolerance_mm: float) -> RackCheck:
    """Match balls to rack points (closest pairs first) within ``tolerance_mm``."""
    pairs = sorted(
        (math.hypot(p[0] - q[0], p[1] - q[1]), b, j)
        for b, p in positions.items()
        for j, q in enumerate(points)
    )
    used_b: set[str] = set()
    used_j: set[int] = set()
    res = RackCheck(ok=True)
    for d, b, j in pairs:
        if d > tolerance_mm or b in used_b or j in used_j:
            continue
        used_b.add(b)
        used_j.add(j)
        res.matched[b] = points[j]
        res.worst_mm = max(res.worst_mm, d)
    res.empty = [q for j, q in enumerate(points) if j not in used_j]
    res.strays = [b for b in positions if b not in used_b]
    res.ok = not res.empty and not res.strays
    return res


def distance_mm(a: XY, b: XY) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
