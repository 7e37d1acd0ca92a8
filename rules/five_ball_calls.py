"""Five Ball Pyramid calls (FB-6): judging an observed shot against a call.

A :class:`Call` is the operator's ``call`` input (DESIGN.md): ``ball``,
``pocket`` and the route -- ``cushions`` the called ball meets before the
pocket, ``cue_cushions`` the cue ball meets before its first ball, ``via`` the
ball it is played off, ``combination`` the ball that drives it in, ``jaw``
(a pocket jaw stands for one called cushion, FB-11.3).  For a luikka ``ball``
is the shooter's own white and ``via`` the ball it goes in off.

:class:`ShotObs` is what the camera saw in one stroke, in time order (built
from the event stream by :func:`observe`).  :func:`judge` compares the two
(FB-6.6): first ball struck, route, pocket, and no käkä (FB-6.5).  It returns a
:class:`Judgement` that says whether the call was made, why not, and -- when it
was -- the :class:`~luza.rules.five_ball_scoring.Pocketing` to score.

:func:`auto_call` is the casual mode: with no call entered, it derives from
what happened every call that would have been made, and keeps the one worth
the most points.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from luza.errors import LuzaError
from luza.events import CUSHIONS, FIVE_BALL_BALLS, JAWS, POCKETS, Event
from luza.rules.five_ball_scoring import (
    DEFAULT_SCORING,
    Pocketing,
    ScoreItem,
    ScoringConfig,
    kind_of,
    pocket_kind,
    score_items,
)


class CallError(LuzaError, ValueError):
    """A call that cannot be judged (unknown ball or pocket, malformed route)."""


# Which cushion segments a pocket's jaws end (FB-11.3: a jaw may stand for a cushion).
JAW_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    "head-left": ("head", "left-head"),
    "head-right": ("head", "right-head"),
    "middle-left": ("left-head", "left-foot"),
    "middle-right": ("right-head", "right-foot"),
    "foot-left": ("foot", "left-foot"),
    "foot-right": ("foot", "right-foot"),
}


@dataclass(frozen=True)
class Call:
    """One called shot (FB-6.1).  ``t`` is when it was entered (seconds)."""

    ball: str
    pocket: str
    cushions: tuple[str, ...] = ()
    cue_cushions: tuple[str, ...] = ()
    via: str | None = None
    combination: str | None = None
    jaw: bool = False
    t: float = 0.0
    auto: bool = False  # derived by auto_call, not entered by an operator

    def __post_init__(self) -> None:
        if self.ball not in FIVE_BALL_BALLS:
            raise CallError(f"call names ball {self.ball!r}; Five Ball balls are W1, W2, R1, R2, K")
        if self.pocket not in POCKETS:
            raise CallError(f"call names pocket {self.pocket!r}; pockets are {', '.join(POCKETS)}")
        for c in (*self.cushions, *self.cue_cushions):
            if c not in CUSHIONS and c not in JAWS:
                raise CallError(f"call names cushion {c!r}; cushions are {', '.join(CUSHIONS)}")
        for b in (self.via, self.combination):
            if b is not None and b not in FIVE_BALL_BALLS:
                raise CallError(f"call route names ball {b!r}; balls are W1, W2, R1, R2, K")
            if b is not None and b == self.ball:
                raise CallError(f"call route names the called ball {b} as via/combination")

    def is_luikka(self, cue_ball: str) -> bool:
        return self.ball == cue_ball

    def describe(self) -> str:
        parts = [f"{self.ball} in {self.pocket}"]
        if self.combination:
            parts.append(f"by combination off {self.combination}")
        if self.via:
            parts.append(f"via {self.via}")
        if self.cushions:
            parts.append("off " + ", ".join(self.cushions))
        if self.cue_cushions:
            parts.append("cue ball first off " + ", ".join(self.cue_cushions))
        if self.jaw:
            parts.append("jaw as a cushion")
        return " ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ball": self.ball,
            "pocket": self.pocket,
            "route": {
                "cushions": list(self.cushions),
                "cue_cushions": list(self.cue_cushions),
                "via": self.via,
                "combination": self.combination,
                "jaw": self.jaw,
            },
        }


def call_from_event(ev: Event) -> Call:
    """Build a :class:`Call` from a ``call`` input; bad fields raise :class:`CallError`."""
    route = ev.get("route") or {}
    if not isinstance(route, dict):
        raise CallError(f"call at t={ev.t}: 'route' must be an object, got {route!r}")

    def names(key: str) -> tuple[str, ...]:
        v = route.get(key, ev.get(key)) or ()
        if isinstance(v, str):
            v = (v,)
        if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
            raise CallError(f"call at t={ev.t}: route '{key}' must be a list of names")
        return tuple(v)

    try:
        return Call(
            ball=str(ev["ball"]),
            pocket=str(ev["pocket"]),
            cushions=names("cushions"),
            cue_cushions=names("cue_cushions"),
            via=route.get("via", ev.get("via")),
            combination=route.get("combination", ev.get("combination")),
            jaw=bool(route.get("jaw", ev.get("jaw", False))),
            t=ev.t,
        )
    except CallError as e:
        raise CallError(f"call at t={ev.t}: {e}") from None


# ------------------------------------------------------------------ observation
@dataclass(frozen=True)
class Touch:
    """One thing that happened in a stroke, in time order.

    ``kind``: ``contact`` (``ball`` met ``other``), ``cushion`` (``other`` is the
    cushion or ``jaw:<pocket>``), ``pocket`` (``other`` is the pocket), ``off``
    (left the table).
    """

    kind: str
    ball: str
    other: str | None = None
    pos: tuple[float, float] | None = None
    t: float = 0.0


@dataclass(frozen=True)
class ShotObs:
    """One stroke as the camera saw it: its cue ball and what happened, in order."""

    cue_ball: str
    touches: tuple[Touch, ...] = ()

    # -------------------------------------------------------------- queries
    def pocketed(self) -> dict[str, str]:
        """ball -> pocket for every ball that dropped."""
        return {x.ball: x.other for x in self.touches if x.kind == "pocket" and x.other}

    def off_table(self) -> list[str]:
        return [x.ball for x in self.touches if x.kind == "off"]

    def contacts_of(self, ball: str, until: float | None = None) -> list[tuple[str, float]]:
        """(other ball, t) of each contact of ``ball``, in order."""
        out = []
        for x in self.touches:
            if until is not None and x.t > until:
                break
            if x.kind == "contact":
                if x.ball == ball and x.other:
                    out.append((x.other, x.t))
                elif x.other == ball:
                    out.append((x.ball, x.t))
        return out

    def first_contact(self) -> str | None:
        """The first ball the cue ball struck (EV-FIRST_CONTACT)."""
        c = self.contacts_of(self.cue_ball)
        return c[0][0] if c else None

    def first_contact_touch(self) -> Touch | None:
        for i, x in enumerate(self.touches):
            if x.kind == "contact" and self.cue_ball in (x.ball, x.other):
                return self.touches[i]
        return None

    def cue_cushions_before_first_contact(self) -> list[Touch]:
        out = []
        for x in self.touches:
            if x.kind == "contact" and self.cue_ball in (x.ball, x.other):
                break
            if x.kind == "cushion" and x.ball == self.cue_ball:
                out.append(x)
        return out

    def index_of(self, kind: str, ball: str) -> int | None:
        for i, x in enumerate(self.touches):
            if x.kind == kind and x.ball == ball:
                return i
        return None


def observe(cue_ball: str, events: Iterable[Event]) -> ShotObs:
    """Build a :class:`ShotObs` from the events of one stroke.

    Uses ``collision``, ``cushion``, ``pocket``, ``hang_fall`` (a hanging ball
    that fell in time counts as pocketed, FB-11.4) and ``off_table``; others are
    ignored here.
    """
    touches: list[Touch] = []
    for ev in sorted(events, key=lambda e: e.t):
        pos = tuple(ev["pos"]) if ev.get("pos") is not None else None
        if ev.type == "collision":
            touches.append(Touch("contact", ev["a"], ev["b"], pos, ev.t))
        elif ev.type == "cushion":
            touches.append(Touch("cushion", ev["ball"], ev["cushion"], pos, ev.t))
        elif ev.type in ("pocket", "hang_fall"):
            touches.append(Touch("pocket", ev["ball"], ev["pocket"], pos, ev.t))
        elif ev.type == "off_table":
            touches.append(Touch("off", ev["ball"], None, pos, ev.t))
    return ShotObs(cue_ball, tuple(touches))


# ------------------------------------------------------------------ judging
@dataclass(frozen=True)
class Route:
    """How a ball went in, derived from the observation."""

    ball: str
    pocket: str
    first_struck: str | None  # first ball the cue ball struck
    combination: str | None  # the ball that set the called ball moving (not the cue)
    via: tuple[str, ...]  # balls the cue met before the called ball / the called ball kissed
    cushions: tuple[str, ...]  # cushions (jaws included) the ball met on its way
    cue_cushions: tuple[str, ...]  # cushions the cue ball met before its first ball
    kaka: bool  # käkä: two successive contacts between the same pair (FB-6.5)
    nakki: tuple[str, ...]  # balls the cue ball touched after the pocketing contact
    pocket_t: float = 0.0
    struck: bool = True  # False: it dropped with no ball touching it this stroke

    @property
    def trick(self) -> bool:
        return self.combination is not None or bool(self.via)

    @property
    def banked(self) -> bool:
        return bool(self.cushions)


@dataclass(frozen=True)
class Judgement:
    """The outcome of :func:`judge`.

    ``made``: the call was legally made (FB-6.6).  ``reasons``: (rule, why) for
    each failed condition.  ``pocketing``: what to score (``None`` unless made).
    ``items``: the score breakdown.  ``straight_kaisa_middle``: the kaisa went
    straight into a middle pocket in this stroke (FB-8.5).
    """

    call: Call
    made: bool
    reasons: tuple[tuple[str, str], ...] = ()
    pocketing: Pocketing | None = None
    items: tuple[ScoreItem, ...] = ()
    route: Route | None = None
    wrong_pocket_luikka: bool = False  # FB-10.3

    @property
    def points(self) -> int:
        return sum(i.points for i in self.items)


def _strip_rattle(cushions: list[str], pocket: str) -> list[str]:
    """Jaw hits of the pocket a ball went into, just before it dropped, are not a cushion."""
    out = list(cushions)
    while out and out[-1] == f"jaw:{pocket}":
        out.pop()
    return out


def object_route(obs: ShotObs, ball: str) -> Route | None:
    """How object ball ``ball`` went in, or ``None`` if it did not drop."""
    pocketed = obs.pocketed()
    if ball not in pocketed:
        return None
    cue = obs.cue_ball
    i_pocket = obs.index_of("pocket", ball)
    assert i_pocket is not None
    before = obs.touches[:i_pocket]
    # Contacts involving the called ball, in order, before it dropped.
    b_contacts = [
        x for x in before if x.kind == "contact" and ball in (x.ball, x.other) and x.other
    ]
    combination = None
    via: list[str] = []
    kaka = False
    cushions: list[str] = []
    first_struck = obs.first_contact()
    cue_cushions = [x.other or "" for x in obs.cue_cushions_before_first_contact()]
    if not b_contacts:  # it moved without a ball touching it: not a stroke pocketing
        return Route(
            ball,
            pocketed[ball],
            first_struck,
            None,
            (),
            (),
            tuple(cue_cushions),
            False,
            (),
            before[-1].t if before else 0.0,
            struck=False,
        )
    first = b_contacts[0]
    starter = first.other if first.ball == ball else first.ball
    i_start = obs.touches.index(first)
    if starter != cue:
        combination = starter
        # FB-8.5d: tricks combine -- the cue ball may go off a ball onto the combination ball.
        for other, _t in obs.contacts_of(cue, until=first.t):
            if other == starter:
                break
            if other != ball and other not in via:
                via.append(other)
    else:
        # Balls the cue met before it reached the called ball: played off a ball.
        for other, _t in obs.contacts_of(cue, until=first.t):
            if other != ball and other not in via:
                via.append(other)
    # After it started moving: kisses off other balls, käkä, cushions.
    last_partner = starter
    pocketing_t = first.t
    for x in obs.touches[i_start + 1 : i_pocket]:
        if x.kind == "cushion" and x.ball == ball:
            cushions.append(x.other or "")
        elif x.kind == "contact" and ball in (x.ball, x.other):
            partner = x.other if x.ball == ball else x.ball
            assert partner is not None
            if partner == last_partner == cue:
                kaka = True  # FB-6.5: two successive contacts from the cue ball
            elif partner == cue:
                pass  # the cue ball caught it up again after another ball
            elif partner not in via and partner != combination:
                via.append(partner)
            last_partner = partner
            if partner == cue:
                pocketing_t = x.t
    # Nakki: balls the cue ball touched after the pocketing contact (FB-8.2d).
    nakki: list[str] = []
    if starter == cue:
        for other, t in obs.contacts_of(cue):
            if t > pocketing_t and other != ball and other not in nakki:
                nakki.append(other)
    return Route(
        ball,
        pocketed[ball],
        first_struck,
        combination,
        tuple(via),
        tuple(_strip_rattle(cushions, pocketed[ball])),
        tuple(cue_cushions),
        kaka,
        tuple(nakki),
        obs.touches[i_pocket].t,
    )


def luikka_route(obs: ShotObs) -> Route | None:
    """How the shooter's own white went in (an in-off), or ``None``."""
    cue = obs.cue_ball
    pocketed = obs.pocketed()
    if cue not in pocketed:
        return None
    i_pocket = obs.index_of("pocket", cue)
    assert i_pocket is not None
    struck: list[str] = []
    cushions_after_first: list[str] = []
    kaka = False
    last = None
    seen_ball = False
    for x in obs.touches[:i_pocket]:
        if x.kind == "contact" and cue in (x.ball, x.other):
            partner = x.other if x.ball == cue else x.ball
            assert partner is not None
            if partner == last:
                kaka = True
            last = partner
            if partner not in struck:
                struck.append(partner)
            seen_ball = True
        elif x.kind == "cushion" and x.ball == cue and seen_ball:
            cushions_after_first.append(x.other or "")
    cue_cushions = [x.other or "" for x in obs.cue_cushions_before_first_contact()]
    first = struck[0] if struck else None
    via_ball = last
    combination = first if (first is not None and first != via_ball) else None
    return Route(
        cue,
        pocketed[cue],
        first,
        combination,
        (via_ball,) if via_ball else (),
        tuple(_strip_rattle(cushions_after_first, pocketed[cue])),
        tuple(cue_cushions),
        kaka,
        (),
        obs.touches[i_pocket].t,
    )


def _cushions_match(called: tuple[str, ...], seen: tuple[str, ...], jaw: bool) -> bool:
    """Observed cushions equal the called ones; with ``jaw`` a jaw stands for a neighbour."""
    if len(called) != len(seen):
        return False
    for c, s in zip(called, seen, strict=True):
        if c == s:
            continue
        if jaw and s.startswith("jaw:") and c in JAW_NEIGHBOURS.get(s[4:], ()):
            continue
        return False
    return True


def judge(
    call: Call,
    obs: ShotObs,
    cfg: ScoringConfig = DEFAULT_SCORING,
) -> Judgement:
    """Was ``call`` legally made in ``obs``? (FB-6.6)  Fouls are judged elsewhere."""
    cue = obs.cue_ball
    reasons: list[tuple[str, str]] = []
    pocketed = obs.pocketed()
    if call.ball == cue:
        route = luikka_route(obs)
        if route is None:
            return Judgement(call, False, (("FB-6.3", f"luikka: {cue} did not drop"),))
        if route.pocket != call.pocket:
            why = f"luikka called for {call.pocket}, {cue} went into {route.pocket}"
            return Judgement(
                call, False, (("FB-10.3", why),), route=route, wrong_pocket_luikka=True
            )
        if route.first_struck is None:
            return Judgement(
                call, False, (("FB-6.6", f"{cue} dropped without striking a ball"),), route=route
            )
        via = route.via[0]
        if call.via is not None and call.via != via:
            reasons.append(("FB-6.6", f"luikka called off {call.via}, went in off {via}"))
        if call.via is None:
            reasons.append(("FB-6.1", "a luikka call must name the ball it goes in off (via)"))
        if call.combination != route.combination:
            reasons.append(
                (
                    "FB-6.6",
                    f"luikka first struck {route.first_struck}, "
                    f"called first {call.combination or call.via}",
                )
            )
    else:
        route = object_route(obs, call.ball)
        if route is None:
            return Judgement(call, False, (("FB-6.3", f"{call.ball} did not drop"),))
        if route.pocket != call.pocket:
            why = f"{call.ball} called for {call.pocket}, went into {route.pocket}"
            return Judgement(call, False, (("FB-6.6", why),), route=route)
        if not route.struck:
            why = f"{call.ball} dropped without a ball touching it"
            return Judgement(call, False, (("FB-6.6", why),), route=route)
        if route.combination != call.combination:
            reasons.append(
                ("FB-6.6", f"combination: called {call.combination}, seen {route.combination}")
            )
        seen_via = set(route.via)
        want_via = {call.via} if call.via else set()
        if seen_via != want_via:
            reasons.append(
                ("FB-6.6", f"via: called {call.via}, seen {', '.join(sorted(seen_via)) or 'none'}")
            )
        # The cue ball's first ball: the via ball, or what it drives in (FB-6.6 i).
        acceptable = {call.combination or call.ball} | ({call.via} if call.via else set())
        if route.first_struck not in acceptable:
            want = " or ".join(sorted(acceptable))
            reasons.append(("FB-6.6", f"first ball struck {route.first_struck}, expected {want}"))
    if not _cushions_match(call.cushions, route.cushions, call.jaw):
        reasons.append(
            ("FB-6.6", f"cushions: called {list(call.cushions)}, seen {list(route.cushions)}")
        )
    if not _cushions_match(call.cue_cushions, route.cue_cushions, call.jaw):
        reasons.append(
            (
                "FB-6.6",
                f"cue-ball cushions: called {list(call.cue_cushions)}, "
                f"seen {list(route.cue_cushions)}",
            )
        )
    if route.kaka:
        reasons.append(("FB-6.5", "käkä: repeated contacts between the same two balls"))
    if reasons:
        return Judgement(call, False, tuple(reasons), route=route)

    # Made: describe it for scoring.
    extra = tuple(
        (kind_of(b), pocket_kind(p)) for b, p in pocketed.items() if b != call.ball and b != cue
    )
    if call.ball == cue:
        assert route.first_struck is not None
        pk = Pocketing(
            "luikka",
            pocket_kind(route.pocket),
            trick=route.combination is not None,
            banked=route.banked,
            extra=extra,
            luikka_off=kind_of(route.first_struck),
        )
    else:
        lr = luikka_route(obs)
        pk = Pocketing(
            kind_of(call.ball),
            pocket_kind(route.pocket),
            trick=route.trick,
            banked=route.banked,
            nakki=tuple(kind_of(b) for b in route.nakki),
            extra=extra,
            luikka_off=kind_of(lr.first_struck) if lr and lr.first_struck else None,
        )
    return Judgement(call, True, (), pk, tuple(score_items(pk, cfg)), route)


# ------------------------------------------------------------------ auto-call
def call_for(obs: ShotObs, ball: str) -> Call | None:
    """The call that ``ball``'s observed route would have needed (``None`` if it did not drop)."""
    route = luikka_route(obs) if ball == obs.cue_ball else object_route(obs, ball)
    if route is None:
        return None
    if ball == obs.cue_ball:
        via = route.via[0] if route.via else None
        return Call(
            ball,
            route.pocket,
            route.cushions,
            route.cue_cushions,
            via,
            route.combination,
            auto=True,
        )
    if len(route.via) > 1:
        return None  # FB-6.1: a call names one via ball
    return Call(
        ball,
        route.pocket,
        route.cushions,
        route.cue_cushions,
        route.via[0] if route.via else None,
        route.combination,
        auto=True,
    )


@dataclass(frozen=True)
class AutoCall:
    """The best call :func:`auto_call` found, and every call it considered."""

    best: Judgement | None
    considered: tuple[Judgement, ...] = field(default=())


def auto_call(
    obs: ShotObs,
    allowed: Any = None,
    cfg: ScoringConfig = DEFAULT_SCORING,
) -> AutoCall:
    """With no call entered, credit the most favourable legal call (auto-call mode).

    ``allowed(judgement) -> bool`` lets the game drop calls its state forbids
    (e.g. a luikka from hand, FB-9.3).  Ties go to an object ball over a luikka
    and then to the order of the balls.
    """
    judged = []
    for ball in sorted(obs.pocketed(), key=lambda b: (b == obs.cue_ball, b)):
        call = call_for(obs, ball)
        if call is None:
            continue
        j = judge(call, obs, cfg)
        if j.made and (allowed is None or allowed(j)):
            judged.append(j)
    best = max(judged, key=lambda j: j.points, default=None)
    return AutoCall(best, tuple(judged))


def kaisa_straight_middle(obs: ShotObs) -> bool:
    """The kaisa went cue ball -> kaisa -> middle pocket with nothing between (FB-8.5a)."""
    r = object_route(obs, "K")
    return (
        r is not None
        and r.struck
        and r.first_struck == "K"
        and r.combination is None
        and not r.via
        and not r.cushions
        and pocket_kind(r.pocket) == "middle"
    )


def luikka_straight_middle_off_kaisa(obs: ShotObs) -> bool:
    """The cue ball went off the kaisa straight into a middle pocket (FB-5.2b)."""
    r = luikka_route(obs)
    return (
        r is not None
        and r.first_struck == "K"
        and r.via == ("K",)
        and not r.cushions
        and pocket_kind(r.pocket) == "middle"
    )
