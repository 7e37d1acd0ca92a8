"""Five Ball Pyramid scoring (RULES.en.md FB-8) as pure functions.

Everything here works on *kinds* of balls, not ids: ``"white"`` is the
opponent's cue ball (an object ball for the shooter), ``"red"``, ``"kaisa"``.
The shooter's own white is never an object ball; when it drops it is a luikka.

The model (FB-8.2) that reproduces every published number::

    no nakki:   points = base(called, pocket, route)                   FB-8.1
    nakki:      points = base'(called, pocket) + sum nakki values      FB-8.2
    then        + value of every other object ball that dropped        FB-8.3
    then        + value of an uncalled luikka (first ball struck)      FB-8.4

so the 37-point maximum (FB-8.6) is simply what these functions return for
"kaisa into a middle pocket, nakki on the white and both reds, all three drop,
own white goes in off the kaisa"; nothing special-cases it.

The ambiguous values are fields of :class:`ScoringConfig` (AMB-2, AMB-3, AMB-4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("white", "red", "kaisa")
POCKET_KINDS = ("corner", "middle")


def kind_of(ball: str) -> str:
    """The kind of a Five Ball id: ``W1``/``W2`` white, ``R1``/``R2`` red, ``K`` kaisa."""
    if ball in ("W1", "W2"):
        return "white"
    if ball in ("R1", "R2"):
        return "red"
    if ball == "K":
        return "kaisa"
    raise ValueError(f"not a Five Ball ball id: {ball!r} (W1, W2, R1, R2, K)")


def pocket_kind(pocket: str) -> str:
    """``corner`` or ``middle`` for a pocket name of the event contract."""
    if pocket.startswith("middle-"):
        return "middle"
    if pocket.startswith(("head-", "foot-")):
        return "corner"
    raise ValueError(f"not a pocket name: {pocket!r}")


@dataclass(frozen=True)
class ScoringConfig:
    """The FB-8 numbers.  Defaults are the digest's readings; each AMB is one field."""

    # FB-8.1 values when pocketed alone (called, legal, no nakki).
    alone_white: int = 2
    alone_red: int = 3
    alone_kaisa_corner: int = 6
    alone_kaisa_middle: int = 12  # banked (cushions only) into a middle pocket
    kaisa_middle_straight: int = 12  # AMB-2: straight into the middle; 6 is the other reading
    kaisa_middle_trick: int = 6  # FB-8.5c: by combination or off another ball
    # FB-8.2 base' (used only when the shot has at least one nakki).
    nakki_base_white: int = 1  # AMB-13
    nakki_base_red: int = 3
    nakki_base_kaisa_corner: int = 9
    nakki_base_kaisa_middle: int = 15
    # FB-8.2 nakki values and FB-8.3 extra-ball values.
    ball_value: dict[str, int] = field(default_factory=lambda: {"white": 2, "red": 3, "kaisa": 6})
    extra_kaisa_middle: int = 6  # AMB-3: an uncalled kaisa into a middle pocket
    # FB-8.4 / AMB-4 luikka values by the first ball the cue ball struck.
    luikka_value: dict[str, int] = field(default_factory=lambda: {"white": 2, "red": 3, "kaisa": 6})
    luikka_kaisa_bank_middle: int = 12  # called luikka via the kaisa + cushion(s) into a middle


DEFAULT_SCORING = ScoringConfig()


@dataclass(frozen=True)
class Pocketing:
    """What a legal shot did, in the terms the scoring table uses.

    ``called`` is the kind of the called ball, or ``"luikka"`` for a called
    in-off.  ``trick``: the called ball went in by combination or off another
    ball (FB-8.5d; a cushion is not a trick).  ``banked``: the called ball met at
    least one cushion (for a luikka: the cue ball met one after the ball it went
    in off).  ``nakki``: kinds of the balls the cue ball touched after the
    pocketing contact, each ball once (FB-8.2d).  ``extra``: (kind, pocket kind)
    of every other object ball that dropped (FB-8.3).  ``luikka_off``: kind of
    the first ball the cue ball struck, when the shooter's own white dropped
    (for a luikka call: always set).
    """

    called: str
    pocket_kind: str
    trick: bool = False
    banked: bool = False
    nakki: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()
    luikka_off: str | None = None

    def __post_init__(self) -> None:
        if self.called not in (*KINDS, "luikka"):
            raise ValueError(f"called must be white, red, kaisa or luikka, got {self.called!r}")
        if self.pocket_kind not in POCKET_KINDS:
            raise ValueError(f"pocket_kind must be corner or middle, got {self.pocket_kind!r}")
        for k in self.nakki:
            if k not in KINDS:
                raise ValueError(f"nakki kinds are white, red, kaisa; got {k!r}")
        if self.called == "luikka" and self.luikka_off is None:
            raise ValueError("a luikka needs luikka_off (the first ball the cue ball struck)")

    @property
    def straight(self) -> bool:
        """Struck directly, no cushion, no other ball on the way (FB-8.5a)."""
        return not self.trick and not self.banked


@dataclass(frozen=True)
class ScoreItem:
    """One line of a score breakdown: the rule, what it is for, its points."""

    rule: str
    what: str
    points: int


def called_ball_points(p: Pocketing, cfg: ScoringConfig = DEFAULT_SCORING) -> list[ScoreItem]:
    """Points for the called object ball itself and its nakki (FB-8.1, FB-8.2)."""
    if p.called == "luikka":
        raise ValueError("called_ball_points is for object-ball calls; use luikka_points")
    nakki = () if p.trick else p.nakki  # FB-8.2b: no nakki via a ball or by combination
    if p.called == "white":
        alone, prime = cfg.alone_white, cfg.nakki_base_white
    elif p.called == "red":
        alone, prime = cfg.alone_red, cfg.nakki_base_red
    elif p.pocket_kind == "corner":
        alone, prime = cfg.alone_kaisa_corner, cfg.nakki_base_kaisa_corner
    else:
        prime = cfg.nakki_base_kaisa_middle
        if p.trick:
            alone = cfg.kaisa_middle_trick
        elif p.straight:
            alone = cfg.kaisa_middle_straight
        else:
            alone = cfg.alone_kaisa_middle
    what = f"{p.called}" + (f" ({p.pocket_kind})" if p.called == "kaisa" else "")
    if p.trick:
        what += ", via a ball or by combination"
    if not nakki:
        rule = "FB-8.5c" if p.called == "kaisa" and p.trick else "FB-8.1"
        return [ScoreItem(rule, what, alone)]
    items = [ScoreItem("FB-8.2", what + " with nakki", prime)]
    items += [ScoreItem("FB-8.2", f"nakki {k}", cfg.ball_value[k]) for k in nakki]
    return items


def extra_points(p: Pocketing, cfg: ScoringConfig = DEFAULT_SCORING) -> list[ScoreItem]:
    """Other object balls that dropped in a legal shot (FB-8.3, AMB-3)."""
    items = []
    for kind, pk in p.extra:
        v = cfg.extra_kaisa_middle if (kind == "kaisa" and pk == "middle") else cfg.ball_value[kind]
        items.append(ScoreItem("FB-8.3", f"{kind} also dropped", v))
    return items


def luikka_points(
    first_struck: str,
    pocket_kind_: str,
    called: bool,
    banked_after_via: bool = False,
    via: str | None = None,
    cfg: ScoringConfig = DEFAULT_SCORING,
) -> ScoreItem:
    """The value of an own-white in-off (FB-8.4, AMB-4).

    Valued by the first ball the cue ball struck; 12 only for a *called* luikka
    via the kaisa and cushion(s) into a middle pocket.
    """
    if (
        called
        and first_struck == "kaisa"
        and (via is None or via == "kaisa")
        and pocket_kind_ == "middle"
        and banked_after_via
    ):
        return ScoreItem("FB-8.4", "luikka via the kaisa and cushion(s) into a middle", 12)
    what = f"luikka off the {first_struck}" + ("" if called else " (not called)")
    return ScoreItem("FB-8.4", what, cfg.luikka_value[first_struck])


def score_items(p: Pocketing, cfg: ScoringConfig = DEFAULT_SCORING) -> list[ScoreItem]:
    """The full breakdown of a legal shot (FB-8.7)."""
    if p.called == "luikka":
        assert p.luikka_off is not None
        items = [luikka_points(p.luikka_off, p.pocket_kind, True, p.banked, cfg=cfg)]
        # FB-8.2c: no nakki in luikka calls.
    else:
        items = called_ball_points(p, cfg)
        if p.luikka_off is not None:
            items.append(luikka_points(p.luikka_off, p.pocket_kind, False, cfg=cfg))
    items += extra_points(p, cfg)
    return items


def shot_points(p: Pocketing, cfg: ScoringConfig = DEFAULT_SCORING) -> int:
    """Total points of a legal shot (a foul scores 0 and never reaches here)."""
    return sum(i.points for i in score_items(p, cfg))


def is_finishing(p: Pocketing) -> bool:
    """Whether this legal shot may end the game at 100 (FB-13.2, FB-13.3).

    Finishing: a red or the kaisa called and pocketed (alone or with nakki); the
    opponent's white called and pocketed directly with at least one nakki; a
    luikka off a red or the kaisa.  The white by combination and a luikka via
    the white (FB-13.3) -- like every other shot -- finish only if a red or the
    kaisa also dropped.
    """
    if p.called in ("red", "kaisa"):
        return True
    if any(kind in ("red", "kaisa") for kind, _ in p.extra):
        return True
    if p.called == "white":
        return not p.trick and bool(p.nakki)
    return p.luikka_off in ("red", "kaisa")


def explain(items: list[ScoreItem]) -> str:
    """``"kaisa (middle) with nakki 15 + nakki white 2 + ... = 37"``."""
    return " + ".join(f"{i.what} {i.points}" for i in items) + f" = {sum(i.points for i in items)}"
