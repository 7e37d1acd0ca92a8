"""Five Ball Pyramid respotting (RULES.en.md FB-12) as pure functions.

Whites are never spotted: a white that left the table is ball in hand for its
owner (FB-9).  Reds and the kaisa go to the first free spot of their ordered
list (FB-12.1), the kaisa first when several balls go back together (FB-12.5).
A spot is occupied when another ball's centre lies within one ball diameter
plus a small tolerance of it (FB-12.3, judged from the real positions,
FB-12.4).  The five spots come from the table profile (``fb-head-end``,
``fb-head-line``, ``fb-centre``, ``fb-foot-line``, ``fb-foot-end``; TB-4).

The engine gives these as *hints* with exact positions and then checks what
the hand actually placed (:func:`check_placement`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from luza.calibration.profiles import TableProfile

XY = tuple[float, float]

SPOT_NAMES = ("fb-head-end", "fb-head-line", "fb-centre", "fb-foot-line", "fb-foot-end")
SPOT_ORDER: dict[str, tuple[str, ...]] = {
    # FB-12.1
    "red": ("fb-head-line", "fb-foot-line", "fb-head-end", "fb-foot-end", "fb-centre"),
    "kaisa": ("fb-centre", "fb-head-line", "fb-foot-line", "fb-head-end", "fb-foot-end"),
}
OCCUPIED_TOLERANCE_MM = 1.5  # FB-12.3 epsilon on top of one ball diameter
PLACEMENT_TOLERANCE_MM = 10.0  # a hand-placed ball this close to its spot is "on" it


@dataclass(frozen=True)
class SpotHint:
    """Where a ball goes back: the spot's name and exact position, and why."""

    ball: str
    spot: str
    pos: XY
    rule: str = "FB-12.1"
    first_choice: bool = True  # False: its first spot was occupied

    @property
    def kaisa_displaced(self) -> bool:
        """The kaisa did not get the centre spot (FB-12.2 applies)."""
        return self.ball == "K" and self.spot != "fb-centre"


def spots(profile: TableProfile) -> dict[str, XY]:
    """The five Five Ball spots of a table profile, by name."""
    missing = [s for s in SPOT_NAMES if s not in profile.spots]
    if missing:
        from luza.errors import LuzaError

        raise LuzaError(
            f"table profile '{profile.name}' has no Five Ball spot(s) {', '.join(missing)}"
        )
    return {s: profile.spots[s] for s in SPOT_NAMES}


def _dist(a: XY, b: XY) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def is_occupied(
    pos: XY,
    others: Mapping[str, XY],
    ball_diameter_mm: float,
    tolerance_mm: float = OCCUPIED_TOLERANCE_MM,
) -> bool:
    """FB-12.3: a ball on ``pos`` would touch one of ``others``."""
    return any(_dist(pos, p) < ball_diameter_mm + tolerance_mm for p in others.values())


def respot_order(balls: Iterable[str]) -> list[str]:
    """FB-12.5: the kaisa first, then the reds (in id order)."""
    bs = [b for b in balls if b in ("K", "R1", "R2")]
    return sorted(bs, key=lambda b: (b != "K", b))


def respot_hints(
    balls: Iterable[str],
    positions: Mapping[str, XY],
    profile: TableProfile,
    tolerance_mm: float = OCCUPIED_TOLERANCE_MM,
) -> list[SpotHint]:
    """Where each red/kaisa in ``balls`` goes back, against the balls at ``positions``.

    ``positions`` are the balls on the table (balls in ``balls`` are ignored
    there).  Whites in ``balls`` are skipped: they are ball in hand (FB-9).
    """
    sp = spots(profile)
    todo = respot_order(balls)
    occupied = {b: p for b, p in positions.items() if b not in todo}
    D = profile.ball_diameter_mm
    out: list[SpotHint] = []
    for ball in todo:
        order = SPOT_ORDER["kaisa" if ball == "K" else "red"]
        for i, name in enumerate(order):
            if not is_occupied(sp[name], occupied, D, tolerance_mm):
                out.append(SpotHint(ball, name, sp[name], "FB-12.1", i == 0))
                break
        else:  # FB-12.6 says this cannot happen with five balls; be safe anyway
            out.append(_nearest_free_on_axis(ball, sp[order[0]], occupied, profile, tolerance_mm))
        occupied[ball] = out[-1].pos
    return out


def _nearest_free_on_axis(
    ball: str, start: XY, occupied: Mapping[str, XY], profile: TableProfile, tol: float
) -> SpotHint:
    D = profile.ball_diameter_mm
    step = 1.0
    for k in range(int(profile.length_mm)):
        for sgn in (1, -1):
            x = start[0] + sgn * k * step
            if D / 2 <= x <= profile.length_mm - D / 2:
                p = (x, start[1])
                if not is_occupied(p, occupied, D, tol):
                    return SpotHint(ball, "axis", p, "FB-12.6", False)
    raise ValueError("no free place on the long axis")  # pragma: no cover


def check_placement(
    hint: SpotHint, placed: XY, tolerance_mm: float = PLACEMENT_TOLERANCE_MM
) -> str | None:
    """``None`` if the ball was placed on its spot, else a note saying how far off."""
    d = _dist(hint.pos, placed)
    if d <= tolerance_mm:
        return None
    return (
        f"{hint.ball} placed at ({placed[0]:.0f}, {placed[1]:.0f}) mm, {d:.0f} mm from its "
        f"spot {hint.spot} ({hint.pos[0]:.0f}, {hint.pos[1]:.0f}) ({hint.rule})"
    )


def centre_free(
    positions: Mapping[str, XY], profile: TableProfile, tolerance_mm: float = OCCUPIED_TOLERANCE_MM
) -> bool:
    """Whether the centre spot is free of every ball but the kaisa (FB-12.2)."""
    others = {b: p for b, p in positions.items() if b != "K"}
    return not is_occupied(
        spots(profile)["fb-centre"], others, profile.ball_diameter_mm, tolerance_mm
    )


def kaisa_return_hint(
    kaisa_displaced: bool,
    kaisa_touched: bool,
    positions: Mapping[str, XY],
    profile: TableProfile,
) -> SpotHint | None:
    """FB-12.2: the displaced kaisa goes to the centre as soon as the centre frees.

    Only while no ball has touched it since it was spotted (``kaisa_touched``
    clears the right), and only if the kaisa is on the table.
    """
    if not kaisa_displaced or kaisa_touched or "K" not in positions:
        return None
    if not centre_free(positions, profile):
        return None
    return SpotHint("K", "fb-centre", spots(profile)["fb-centre"], "FB-12.2", True)


def opening_layout(profile: TableProfile) -> dict[str, XY]:
    """FB-4: the kaisa on the centre spot, the reds on the head-line and foot-line spots."""
    sp = spots(profile)
    return {"K": sp["fb-centre"], "R1": sp["fb-head-line"], "R2": sp["fb-foot-line"]}


def _seg_dist(p: XY, a: XY, b: XY) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    L2 = dx * dx + dy * dy
    u = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L2))
    return math.hypot(p[0] - (ax + u * dx), p[1] - (ay + u * dy))


def check_opening(positions: Mapping[str, XY], profile: TableProfile) -> list[tuple[str, str]]:
    """FB-4 warnings (rule, why) for the layout at the break; empty when it is right.

    The kaisa and the reds must be on their spots; white 2 beyond the centre
    line, clear (by one ball diameter) of both lines from the kaisa's centre
    spot to the foot corners (FB-4.4, AMB-25); white 1 behind the head line.
    """
    out: list[tuple[str, str]] = []
    sp = spots(profile)
    D = profile.ball_diameter_mm
    want = opening_layout(profile)
    reds = [b for b in ("R1", "R2") if b in positions]
    red_spots = [want["R1"], want["R2"]]
    if "K" in positions and _dist(positions["K"], want["K"]) > PLACEMENT_TOLERANCE_MM:
        out.append(("FB-4.1", "the kaisa is not on the centre spot"))
    for s, rule, name in zip(
        red_spots, ("FB-4.2", "FB-4.3"), ("head-line", "foot-line"), strict=True
    ):
        if not any(_dist(positions[r], s) <= PLACEMENT_TOLERANCE_MM for r in reds):
            out.append((rule, f"no red on the {name} spot"))
    L = profile.length_mm
    head_x = sp["fb-head-line"][0]
    if "W2" in positions:
        w2 = positions["W2"]
        if not w2[0] > L / 2:
            out.append(("FB-4.4", "white 2 is not beyond the centre line"))
        pockets = profile.pockets()
        for pn in ("foot-left", "foot-right"):
            d = _seg_dist(w2, sp["fb-centre"], pockets[pn].mouth_centre)
            if d < D:
                out.append(
                    (
                        "FB-4.4",
                        f"white 2 blocks the kaisa line to the {pn} corner ({d:.0f} mm from it)",
                    )
                )
    if "W1" in positions and not positions["W1"][0] < head_x:
        out.append(("FB-4.5", "white 1 is not behind the head line"))
    return out
