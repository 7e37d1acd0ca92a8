"""Table profiles: the physical geometry of one table, in millimetres.

A profile is a JSON data file (see ``calibration/tables/``) that a club can copy
and edit for its own table.  Everything else -- pockets, spots, lines, the rack --
is derived from it here, so the numbers that matter live in one place.

Coordinates (DESIGN.md, RULES.en.md TB-1): ``x`` along the table from the head
(house) cushion nose, ``y`` across from the left cushion nose (looking from the
head end).  The bed is the rectangle between the cushion noses, ``0..L`` by ``0..W``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from luza.errors import LuzaError

POCKET_NAMES = (
    "head-left",
    "head-right",
    "middle-left",
    "middle-right",
    "foot-left",
    "foot-right",
)
CUSHION_NAMES = ("head", "foot", "left-head", "left-foot", "right-head", "right-foot")


class ProfileError(LuzaError, ValueError):
    """A table profile is missing, malformed or geometrically impossible."""


@dataclass(frozen=True)
class PocketSpec:
    """Geometry of one kind of pocket (corner or middle), from the profile."""

    mouth_mm: float  # distance between the two jaw nose points
    jaw_radius_mm: float  # rounding of the cushion nose at the jaw (R1/R2 of TB-2)
    jaw_angle_deg: float  # angle of the jaw facing, measured from the cushion line
    channel_mm: float  # length of the parallel channel behind the mouth
    drop_radius_mm: float  # radius of the hole the ball falls into
    drop_depth_mm: float  # distance from the mouth line to the drop centre


@dataclass(frozen=True)
class Pocket:
    """One pocket in table mm, derived from the profile."""

    name: str
    kind: str  # "corner" | "middle"
    jaw_a: tuple[float, float]  # nose point of the jaw on the first cushion
    jaw_b: tuple[float, float]  # nose point of the jaw on the second cushion
    centre: tuple[float, float]  # centre of the drop hole
    inward: tuple[float, float]  # unit vector from the bed into the pocket
    spec: PocketSpec

    @property
    def mouth_centre(self) -> tuple[float, float]:
        return ((self.jaw_a[0] + self.jaw_b[0]) / 2, (self.jaw_a[1] + self.jaw_b[1]) / 2)


@dataclass(frozen=True)
class Cushion:
    """A straight cushion nose segment between two pocket jaws."""

    name: str
    a: tuple[float, float]
    b: tuple[float, float]
    normal: tuple[float, float]  # unit normal pointing onto the bed


@dataclass(frozen=True)
class TableProfile:
    """The geometry of one table.  Load with :func:`load_profile`."""

    name: str
    description: str
    length_mm: float  # L: bed length between the head and foot cushion noses
    width_mm: float  # W: bed width between the long cushion noses
    ball_diameter_mm: float
    ball_mass_kg: float
    cushion_nose_height_mm: float
    cushion_width_mm: float  # rubber, from the nose to the rail top
    rail_width_mm: float  # wooden rail top, outside the cushion
    corner: PocketSpec
    middle: PocketSpec
    spots: dict[str, tuple[float, float]]  # name -> (x_mm, y_mm)
    marked_spots: tuple[str, ...]  # spots drawn on the cloth (a camera can find them)
    lines: dict[str, tuple[tuple[float, float], tuple[float, float]]]  # name -> (p0, p1)
    marked_lines: tuple[str, ...]
    physics: dict[str, float] = field(default_factory=dict)
    source: str = ""

    # ------------------------------------------------------------------ derived
    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2.0

    @property
    def size_mm(self) -> tuple[float, float]:
        return (self.length_mm, self.width_mm)

    @property
    def aspect(self) -> float:
        return self.length_mm / self.width_mm

    def bed_corners(self) -> dict[str, tuple[float, float]]:
        """Corners of the cushion-nose rectangle by name (head-left is (0, 0))."""
        L, W = self.length_mm, self.width_mm
        return {
            "head-left": (0.0, 0.0),
            "head-right": (0.0, W),
            "foot-right": (L, W),
            "foot-left": (L, 0.0),
        }

    def pockets(self) -> dict[str, Pocket]:
        """The six pockets, derived from the bed size and the pocket specs.

        A corner pocket's jaws sit on the two cushion nose lines at distance
        ``mouth / sqrt(2)`` from the corner, so the mouth (the segment between
        them) is ``mouth_mm`` wide and faces the bed at 45 degrees.  A middle
        pocket's jaws sit on the long cushion line ``mouth_mm`` apart.
        """
        L, W = self.length_mm, self.width_mm
        c, m = self.corner, self.middle
        s = c.mouth_mm / math.sqrt(2.0)
        r2 = 1.0 / math.sqrt(2.0)
        out: dict[str, Pocket] = {}

        def corner(name: str, cx: float, cy: float, sx: float, sy: float) -> Pocket:
            # sx, sy: +1 or -1, the direction from the corner into the bed.
            ja = (cx + sx * s, cy)  # on the long cushion line
            jb = (cx, cy + sy * s)  # on the short cushion line
            inward = (-sx * r2, -sy * r2)
            mc = ((ja[0] + jb[0]) / 2, (ja[1] + jb[1]) / 2)
            centre = (mc[0] + inward[0] * c.drop_depth_mm, mc[1] + inward[1] * c.drop_depth_mm)
            return Pocket(name, "corner", ja, jb, centre, inward, c)

        def middle(name: str, cx: float, cy: float, sy: float) -> Pocket:
            ja = (cx - m.mouth_mm / 2, cy)
            jb = (cx + m.mouth_mm / 2, cy)
            inward = (0.0, -sy)
            centre = (cx, cy - sy * m.drop_depth_mm)
            return Pocket(name, "middle", ja, jb, centre, inward, m)

        out["head-left"] = corner("head-left", 0.0, 0.0, 1, 1)
        out["head-right"] = corner("head-right", 0.0, W, 1, -1)
        out["middle-left"] = middle("middle-left", L / 2, 0.0, 1)
        out["middle-right"] = middle("middle-right", L / 2, W, -1)
        out["foot-left"] = corner("foot-left", L, 0.0, -1, 1)
        out["foot-right"] = corner("foot-right", L, W, -1, -1)
        return out

    def cushions(self) -> dict[str, Cushion]:
        """The six straight cushion noses between the pocket jaws."""
        p = self.pockets()
        return {
            "head": Cushion("head", p["head-left"].jaw_b, p["head-right"].jaw_b, (1.0, 0.0)),
            "foot": Cushion("foot", p["foot-left"].jaw_b, p["foot-right"].jaw_b, (-1.0, 0.0)),
            "left-head": Cushion(
                "left-head", p["head-left"].jaw_a, p["middle-left"].jaw_a, (0.0, 1.0)
            ),
            "left-foot": Cushion(
                "left-foot", p["middle-left"].jaw_b, p["foot-left"].jaw_a, (0.0, 1.0)
            ),
            "right-head": Cushion(
                "right-head", p["head-right"].jaw_a, p["middle-right"].jaw_a, (0.0, -1.0)
            ),
            "right-foot": Cushion(
                "right-foot", p["middle-right"].jaw_b, p["foot-right"].jaw_a, (0.0, -1.0)
            ),
        }

    def rack_positions(self, n_rows: int = 5) -> list[tuple[float, float]]:
        """Pyramid rack (TB-6): apex on the rear spot, base parallel to the foot cushion.

        Row ``i`` (0 = apex) has ``i + 1`` touching balls.  Returned apex first,
        row by row, left (small y) to right.
        """
        D = self.ball_diameter_mm
        # A table without pyramid markings (a pool or snooker profile) racks where a
        # pyramid table's rear spot is: 3/4 L on the long axis (TB-3).
        x0, y0 = self.spots.get("rear", (0.75 * self.length_mm, 0.5 * self.width_mm))
        out = []
        for i in range(n_rows):
            for j in range(i + 1):
                out.append((x0 + i * D * math.sqrt(3.0) / 2.0, y0 + (j - i / 2.0) * D))
        return out

    def in_bed(self, xy: np.ndarray, margin_mm: float = 0.0) -> np.ndarray:
        """True where a point lies inside the bed shrunk by ``margin_mm``."""
        xy = np.asarray(xy, dtype=float)
        return (
            (xy[..., 0] >= margin_mm)
            & (xy[..., 0] <= self.length_mm - margin_mm)
            & (xy[..., 1] >= margin_mm)
            & (xy[..., 1] <= self.width_mm - margin_mm)
        )


# ---------------------------------------------------------------------- loading
def _num(d: dict, key: str, where: str, default: float | None = None) -> float:
    if key not in d:
        if default is None:
            raise ProfileError(f"{where}: missing '{key}'")
        return float(default)
    v = d[key]
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        raise ProfileError(f"{where}: '{key}' must be a number, got {v!r}")
    return float(v)


def _pocket_spec(d: dict, where: str) -> PocketSpec:
    if not isinstance(d, dict):
        raise ProfileError(f"{where}: must be an object")
    spec = PocketSpec(
        mouth_mm=_num(d, "mouth_mm", where),
        jaw_radius_mm=_num(d, "jaw_radius_mm", where, 5.0),
        jaw_angle_deg=_num(d, "jaw_angle_deg", where, 45.0),
        channel_mm=_num(d, "channel_mm", where, 0.0),
        drop_radius_mm=_num(d, "drop_radius_mm", where, 0.0) or _num(d, "mouth_mm", where) * 0.6,
        drop_depth_mm=_num(d, "drop_depth_mm", where, 40.0),
    )
    if spec.mouth_mm <= 0 or spec.drop_radius_mm <= 0:
        raise ProfileError(f"{where}: sizes must be positive")
    return spec


def _point(v: object, L: float, W: float, where: str) -> tuple[float, float]:
    """A point given as ``{"frac": [fx, fy]}`` (of L, W) or ``{"mm": [x, y]}``."""
    if isinstance(v, dict) and "mm" in v:
        x, y = v["mm"]
        return (float(x), float(y))
    if isinstance(v, dict) and "frac" in v:
        fx, fy = v["frac"]
        return (float(fx) * L, float(fy) * W)
    raise ProfileError(f"{where}: a point is {{'frac': [fx, fy]}} or {{'mm': [x, y]}}, got {v!r}")


def profile_from_dict(d: dict, source: str = "<dict>") -> TableProfile:
    """Build and validate a profile from its JSON object."""
    if not isinstance(d, dict):
        raise ProfileError(f"{source}: a profile is a JSON object")
    where = source
    L = _num(d, "length_mm", where)
    W = _num(d, "width_mm", where)
    D = _num(d, "ball_diameter_mm", where)
    if not (L > 0 and W > 0 and D > 0):
        raise ProfileError(f"{where}: length_mm, width_mm and ball_diameter_mm must be positive")
    if W > L:
        raise ProfileError(f"{where}: width_mm ({W}) is larger than length_mm ({L})")
    pockets = d.get("pockets", {})
    corner = _pocket_spec(pockets.get("corner"), f"{where}: pockets.corner")
    middle = _pocket_spec(pockets.get("middle"), f"{where}: pockets.middle")
    if corner.mouth_mm <= D or middle.mouth_mm <= D:
        raise ProfileError(f"{where}: a pocket mouth must be wider than a ball ({D} mm)")
    spots = {k: _point(v, L, W, f"{where}: spots.{k}") for k, v in d.get("spots", {}).items()}
    lines = {}
    for k, v in d.get("lines", {}).items():
        if not isinstance(v, dict) or "from" not in v or "to" not in v:
            raise ProfileError(f"{where}: lines.{k} needs 'from' and 'to'")
        lines[k] = (
            _point(v["from"], L, W, f"{where}: lines.{k}"),
            _point(v["to"], L, W, f"{where}: lines.{k}"),
        )
    marked_spots = tuple(d.get("marked_spots", []))
    marked_lines = tuple(d.get("marked_lines", []))
    for s in marked_spots:
        if s not in spots:
            raise ProfileError(f"{where}: marked spot '{s}' is not in spots")
    for s in marked_lines:
        if s not in lines:
            raise ProfileError(f"{where}: marked line '{s}' is not in lines")
    physics = {k: float(v) for k, v in d.get("physics", {}).items()}
    return TableProfile(
        name=str(d.get("name", Path(source).stem)),
        description=str(d.get("description", "")),
        length_mm=L,
        width_mm=W,
        ball_diameter_mm=D,
        ball_mass_kg=_num(d, "ball_mass_kg", where, 0.28),
        cushion_nose_height_mm=_num(d, "cushion_nose_height_mm", where, 0.63 * D),
        cushion_width_mm=_num(d, "cushion_width_mm", where, 50.0),
        rail_width_mm=_num(d, "rail_width_mm", where, 120.0),
        corner=corner,
        middle=middle,
        spots=spots,
        marked_spots=marked_spots,
        lines=lines,
        marked_lines=marked_lines,
        physics=physics,
        source=source,
    )


def builtin_profiles() -> list[str]:
    """Names of the profiles shipped with luza."""
    root = resources.files("luza.calibration") / "tables"
    return sorted(p.name[:-5] for p in root.iterdir() if p.name.endswith(".json"))


def load_profile(name_or_path: str | Path, **overrides: float) -> TableProfile:
    """Load a profile by built-in name (``pyramid-12ft``) or from a JSON file.

    ``overrides`` replace top-level numbers, e.g. ``length_mm=2840`` for a
    10-ft kaisa table whose bed was measured.
    """
    p = Path(name_or_path)
    if p.suffix == ".json" or p.exists():
        if not p.exists():
            raise ProfileError(f"table profile not found: {p}")
        text = p.read_text(encoding="utf-8")
        source = str(p)
    else:
        res = resources.files("luza.calibration") / "tables" / f"{name_or_path}.json"
        if not res.is_file():
            raise ProfileError(
                f"unknown table profile '{name_or_path}'; built-in: {', '.join(builtin_profiles())}"
                " (or give a path to a .json profile)"
            )
        text = res.read_text(encoding="utf-8")
        source = f"{name_or_path}.json"
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise ProfileError(f"{source}: not valid JSON ({e})") from None
    d.update(overrides)
    return profile_from_dict(d, source)
