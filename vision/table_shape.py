"""The table's shape for the event stage: the ball radius, the bed, the pocket mouths
and the physics' contact lines, with the geometric questions the events ask of them.

:class:`TableShape` is built from a :class:`TableProfile` alone (no ball, no frame):
which pocket a point is nearest, how deep it is in a mouth, whether it lies over a drop
hole, a ball's gap to a named jaw or cushion and that jaw's normal, the nose a ball lies
on.  ``vision/events.py`` keeps one as ``EventExtractor.shape``.
"""

from __future__ import annotations

import math

import numpy as np

from luza.calibration.profiles import Pocket, TableProfile
from luza.physics.params import Geometry, build_geometry
from luza.vision.gap_series import REVERSAL_TOL_MM

# -- tunables (units in the names) --------------------------------------------
REVERSAL_EDGE_MM = 3.0  # a touch this far inside a nose's end is the nose's, not the jaw's


class TableShape:
    """A table profile's ball radius ``R``, bed ``L`` x ``W`` (mm), ``pockets`` and
    contact geometry ``geom`` (``build_geometry``), and the queries on them."""

    def __init__(self, profile: TableProfile) -> None:
        self.R: float = profile.ball_radius_mm
        self.L: float = profile.length_mm
        self.W: float = profile.width_mm
        self.pockets: dict[str, Pocket] = profile.pockets()
        self.geom: Geometry = build_geometry(profile)

    # -- pockets ----------------------------------------------------------
    def nearest_pocket(self, p: np.ndarray) -> tuple[str, float]:
        """The pocket whose mouth centre is nearest ``p``, and how far that is (mm)."""
        best, bd = "", math.inf
        for name, pk in self.pockets.items():
            d = math.dist(p, pk.mouth_centre)
            if d < bd:
                best, bd = name, d
        return best, bd

    def mouth_depth(self, p: np.ndarray, pocket: str) -> float:
        """How far ``p`` is past the pocket's mouth line, into the pocket (mm)."""
        pk = self.pockets[pocket]
        return float(np.dot(np.asarray(p) - pk.mouth_centre, pk.inward))

    def in_mouth_zone(self, p: np.ndarray) -> str | None:
        """The pocket whose mouth ``p`` (a ball centre) is over or just in front of."""
        name, d = self.nearest_pocket(p)
        pk = self.pockets[name]
        if d < 0.5 * pk.spec.mouth_mm + self.R * 0.5 and self.mouth_depth(p, name) > -self.R:
            return name
        return None

    def over_drop(self, p: np.ndarray) -> str | None:
        """The pocket whose drop hole lies under a ball centred at ``p``: past the bed's
        edge, where a ball cannot stay (it falls, or hangs on the lip)."""
        g = self.geom
        d = np.hypot(*(g.drop_c - np.asarray(p, dtype=float)).T) - g.drop_r
        k = int(np.argmin(d))
        return g.pocket_names[k] if d[k] < 0.0 else None

    def min_edge(self, p: np.ndarray) -> float:
        """How far ``p`` lies inside the bed from its nearest side, a cushion nose's line
        (mm; negative beyond it)."""
        return float(min(p[0], self.L - p[0], p[1], self.W - p[1]))

    # -- cushions and jaws ----------------------------------------------
    def jaw_normal(self, c: np.ndarray, name: str) -> np.ndarray:
        """Unit normal of the jaw facing or rounding named ``name`` nearest to a ball
        centred at ``c`` (the side of the pocket it touches)."""
        g = self.geom
        best, nrm = math.inf, np.zeros(2)
        for j, nm in enumerate(g.seg_name):
            if nm == name:
                rel = c - g.seg_a[j]
                along = float(rel @ g.seg_d[j])
                if -self.R <= along <= g.seg_len[j] + self.R:
                    d = abs(float(rel @ g.seg_n[j]))
                    if d < best:
                        best, nrm = d, g.seg_n[j]
        for j, nm in enumerate(g.circ_name):
            if nm == name:
                rel = c - g.circ_c[j]
                d = float(np.linalg.norm(rel))
                if d - g.circ_r[j] < best:
                    best, nrm = d - g.circ_r[j], rel / max(d, 1e-9)
        return np.asarray(nrm, dtype=float)

    def jaw_gap(self, c: np.ndarray, name: str) -> float:
        """Gap (mm) between a ball centred at ``c`` and the jaw (or cushion) named
        ``name`` (inf past its lines' ends)."""
        g = self.geom
        best = math.inf
        for j, nm in enumerate(g.seg_name):
            if nm == name:
                rel = c - g.seg_a[j]
                if 0.0 <= float(rel @ g.seg_d[j]) <= g.seg_len[j]:
                    best = min(best, float(rel @ g.seg_n[j]) - self.R)
        for j, nm in enumerate(g.circ_name):
            if nm == name:
                best = min(best, float(np.linalg.norm(c - g.circ_c[j])) - g.circ_r[j] - self.R)
        return best

    def nose_under(self, c: np.ndarray) -> str | None:
        """The cushion nose a ball centred at ``c`` touches with the foot of its
        perpendicular ``REVERSAL_EDGE_MM`` or more inside the nose's ends (there the
        nose, not the jaw rounding tangent to it at its end, is the contact)."""
        g = self.geom
        rel = c[None, :] - g.seg_a
        along = np.einsum("ij,ij->i", rel, g.seg_d)
        gap = np.einsum("ij,ij->i", rel, g.seg_n) - self.R
        ok = (
            (along >= REVERSAL_EDGE_MM)
            & (along <= g.seg_len - REVERSAL_EDGE_MM)
            & (np.abs(gap) <= REVERSAL_TOL_MM)
        )
        ok &= np.array([not n.startswith("jaw:") for n in g.seg_name])
        if not ok.any():
            return None
        return g.seg_name[int(np.argmin(np.where(ok, np.abs(gap), np.inf)))]
