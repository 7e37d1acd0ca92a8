"""The scene book: scripted situations of both games, each a function of a seed.

Ball ids follow DESIGN.md.  In Free Pyramid the ivory balls are numbered by
their place in the rack (apex ``1``, then row by row), the coloured ball is
``Y``.  Five Ball: ``W1``, ``W2`` (cue balls), ``R1``, ``R2``, ``K`` (kaisa).
Rule numbers in the comments refer to ``RULES.en.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from luza.calibration.profiles import TableProfile
from luza.physics.engine import PLACE_SLACK_MM
from luza.rules.respot import respot_spots
from luza.samples.planning import (
    BREAK_SPEED_MM_S,
    Player,
    SceneError,
    ScenePlay,
    events_of,
    first_contact,
    free_spot,
    line_up,
    play_some_pots,
    pocket_aim_point,
    pocketed,
)

CORNERS = ("head-left", "head-right", "foot-left", "foot-right")
MIDDLES = ("middle-left", "middle-right")
ALL_POCKETS = CORNERS + MIDDLES
RESPOT_GAP_MM = 0.5  # a hand leaves a respotted ball a hair off its neighbour
IVORY = tuple(str(i) for i in range(1, 16))


@dataclass(frozen=True)
class SceneSpec:
    name: str
    game: str
    table: str
    description: str
    build: Callable[[TableProfile, int], ScenePlay]


SCENES: dict[str, SceneSpec] = {}


def scene(name: str, game: str, description: str, table: str = "pyramid-12ft"):
    def deco(fn: Callable[[TableProfile, int], ScenePlay]):
        SCENES[name] = SceneSpec(name, game, table, description, fn)
        return fn

    return deco


# ------------------------------------------------------------ layouts
def fp_rack_layout(
    profile: TableProfile, rng: np.random.Generator
) -> dict[str, tuple[float, float]]:
    """The full pyramid (TB-6, GR-9.1) with the coloured ball in the house (GR-12.3)."""
    rack = {str(i + 1): p for i, p in enumerate(profile.rack_positions())}
    L, W = profile.size_mm
    # Racks are never perfect: a fraction of a millimetre of play (TB-6) -- drawn again
    # where two touching balls would sink into each other past what the physics takes
    # (about one rack in 120: the scene failed with "balls 8 and 13 overlap")
    closest = profile.ball_diameter_mm - PLACE_SLACK_MM
    while True:
        pos = {
            b: (x + float(rng.normal(0, 0.2)), y + float(rng.normal(0, 0.2)))
            for b, (x, y) in rack.items()
        }
        xy = np.array(list(pos.values()))
        gaps = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
        if gaps[np.triu_indices(len(xy), 1)].min() >= closest:
            break
    pos["Y"] = (float(rng.uniform(L * 0.08, L * 0.22)), float(rng.uniform(W * 0.3, W * 0.7)))
    return pos


def scattered(
    profile: TableProfile,
    balls,
    rng: np.random.Generator,
    fixed: dict | None = None,
    lanes: tuple = (),
) -> dict[str, tuple[float, float]]:
    """Balls at random free places, kept off the given lanes (segments (p0, p1))."""
    pos = dict(fixed or {})
    clear = profile.ball_diameter_mm + 15.0
    for b in balls:
        if b in pos:
            continue
        for _ in range(200):
            p = free_spot(profile, pos, rng, clearance_mm=25.0)
            if all(_seg_dist(p, a, c) > clear for a, c in lanes):
                pos[b] = p
                break
        else:
            raise SceneError("no free place for a ball off the shot lines")
    return pos


def pot_lanes(profile: TableProfile, cue, obj, pocket: str) -> tuple:
    return ((cue, obj), (obj, pocket_aim_point(profile, pocket)))


def fb_opening_layout(
    profile: TableProfile, rng: np.random.Generator
) -> dict[str, tuple[float, float]]:
    """FB-4: kaisa on the centre spot, reds on the head-line and foot-line spots,
    white 2 between the centre line and the foot cushion clear of the kaisa-to-corner
    lines, white 1 in hand behind the head line."""
    s = profile.spots
    L, W = profile.size_mm
    pos = {"K": s["fb-centre"], "R1": s["fb-head-line"], "R2": s["fb-foot-line"]}
    D = profile.ball_diameter_mm
    for _ in range(500):
        w2 = free_spot(profile, pos, rng, x_range=(L * 0.55, L * 0.95), clearance_mm=20.0)
        if all(
            _seg_dist(w2, s["fb-centre"], pocket_aim_point(profile, c)) > 1.5 * D
            for c in ("foot-left", "foot-right")
        ):
            pos["W2"] = w2
            break
    else:
        raise SceneError("no place for white 2 that leaves the kaisa lines free")
    pos["W1"] = free_spot(
        profile, pos, rng, x_range=(L * 0.06, L * 0.23), y_range=(W * 0.2, W * 0.8)
    )
    return pos


def _seg_dist(p, a, b) -> float:
    p, a, b = (np.asarray(v, dtype=float) for v in (p, a, b))
    d = b - a
    s = np.clip((p - a) @ d / (d @ d), 0, 1)
    return float(np.linalg.norm(a + s * d - p))


# --------------------------------------------------------- Free Pyramid
@scene(
    "fp-break",
    "free-pyramid",
    "Opening break: the coloured ball from the house into the full rack (GR-12, GR-13).",
)
def fp_break(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = fp_rack_layout(profile, rng)
    pl = Player("fp-break", "free-pyramid", profile, pos, seed)
    apex = pos["1"]
    base = math.atan2(apex[1] - pos["Y"][1], apex[0] - pos["Y"][0])
    pl.planned(
        "Y",
        base,
        lambda r: first_contact(r, "Y") is not None and len(events_of(r, "cushion")) >= 3,
        speed_mm_s=BREAK_SPEED_MM_S,
        angle_jitter_rad=0.004,
        follow=(-0.2, 0.3),
    )
    return pl.play


@scene("fp-pots", "free-pyramid", "Play with pots into corner and middle pockets.")
def fp_pots(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    balls = ["Y", *IVORY[:7]]
    pl = Player("fp-pots", "free-pyramid", profile, scattered(profile, balls, rng), seed)
    n = play_some_pots(pl, balls, balls, CORNERS, 2)
    n += play_some_pots(pl, balls, balls, MIDDLES, 1)
    if n < 2:
        raise SceneError("fp-pots: fewer than two pots found")
    return pl.play


@scene(
    "fp-in-off",
    "free-pyramid",
    "An in-off: the cue ball falls after hitting an object ball (FP-5).",
)
def fp_in_off(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pk = ALL_POCKETS[int(rng.integers(len(ALL_POCKETS)))]
    obj, cue, ang = in_off_layout(profile, pk, rng)
    pos = scattered(profile, ["4", "9"], rng, {"7": obj, "Y": cue}, ((cue, obj),))
    pl = Player("fp-in-off", "free-pyramid", profile, pos, seed)
    pl.planned(
        "Y",
        ang,
        lambda r: "Y" in pocketed(r) and first_contact(r, "Y") == "7",
        angle_jitter_rad=0.03,
        speed_mm_s=(1500, 3500),
        follow=(0.0, 0.6),
    )
    return pl.play


@scene("fp-multi", "free-pyramid", "Several balls fall in one stroke (FP-6: every ball counts).")
def fp_multi(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = fp_rack_layout(profile, rng)
    pl = Player("fp-multi", "free-pyramid", profile, pos, seed)
    # A hard break into the full rack that drops two or more balls.
    apex = pos["1"]
    base = math.atan2(apex[1] - pos["Y"][1], apex[0] - pos["Y"][0])
    pl.planned(
        "Y",
        base,
        lambda r: len(pocketed(r)) >= 2,
        speed_mm_s=(8000, 10000),
        angle_jitter_rad=0.02,
        follow=(-0.3, 0.5),
        tries=300,
    )
    return pl.play


def in_off_layout(profile: TableProfile, pocket: str, rng: np.random.Generator):
    """An object ball beside the line to ``pocket`` and a cue ball that will kiss it
    thinly on its way in: (object position, cue position, aim angle)."""
    D = profile.ball_diameter_mm
    L, W = profile.size_mm
    aim = np.array(pocket_aim_point(profile, pocket))
    out_dir = -np.array(profile.pockets()[pocket].inward)
    for _ in range(200):
        a = math.atan2(out_dir[1], out_dir[0]) + rng.uniform(-0.35, 0.35)
        u = np.array([math.cos(a), math.sin(a)])
        n = np.array([-u[1], u[0]]) * (1 if rng.random() < 0.5 else -1)
        obj = aim + u * rng.uniform(250, 450) + n * D * rng.uniform(0.75, 0.9)
        cue = aim + u * rng.uniform(900, 1400)
        if all(D < v[0] < L - D and D < v[1] < W - D for v in (obj, cue)):
            ang = math.atan2(aim[1] - cue[1], aim[0] - cue[0])
            return (float(obj[0]), float(obj[1])), (float(cue[0]), float(cue[1])), ang
    raise SceneError(f"cannot lay out an in-off into {pocket}")


@scene("fp-jump", "free-pyramid", "A ball jumps off the table (GR-23) and is respotted (GR-25).")
def fp_jump(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    L, W = profile.size_mm
    pos = scattered(
        profile, ["Y", "2", "6", "10"], rng, {"Y": (L * 0.35, W * float(rng.uniform(0.35, 0.65)))}
    )
    pl = Player("fp-jump", "free-pyramid", profile, pos, seed)
    # Aim at the nearer long cushion with a steep, hard stroke.
    ang = -math.pi / 2 if pos["Y"][1] < W / 2 else math.pi / 2
    res = pl.planned(
        "Y",
        ang,
        lambda r: bool(events_of(r, "off_table")),
        speed_mm_s=(5500, 9000),
        angle_jitter_rad=0.4,
        elevation_deg=(25, 45),
        follow=(0.0, 0.6),
    )
    gone = [e["ball"] for e in events_of(res, "off_table")]
    for r in respot_spots(gone, pl.positions(), profile, gap_mm=RESPOT_GAP_MM):
        pl.place(r.ball, r.pos)
    return pl.play


@scene("fp-miss", "free-pyramid", "A miss: the cue ball touches no ball (GR-6 foul).")
def fp_miss(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = scattered(profile, ["Y", "1", "5", "12"], rng)
    pl = Player("fp-miss", "free-pyramid", profile, pos, seed)
    ang = float(rng.uniform(-math.pi, math.pi))
    pl.planned(
        "Y",
        ang,
        lambda r: first_contact(r, "Y") is None and not pocketed(r),
        angle_jitter_rad=1.0,
        speed_mm_s=(800, 2200),
    )
    return pl.play


@scene(
    "fp-penalty",
    "free-pyramid",
    "A foul, then the opponent takes a penalty ball off the table by hand (FP-7).",
)
def fp_penalty(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = scattered(profile, ["Y", "3", "8", "13", "14"], rng)
    pl = Player("fp-penalty", "free-pyramid", profile, pos, seed)
    pl.planned(
        "Y",
        float(rng.uniform(-math.pi, math.pi)),
        lambda r: first_contact(r, "Y") is None and not pocketed(r),
        angle_jitter_rad=1.0,
        speed_mm_s=(700, 2000),
    )
    now = pl.positions()
    penalty = sorted(b for b in now if b != "Y")[int(rng.integers(len(now) - 1))]
    pl.remove(penalty)
    return pl.play


@scene(
    "fp-respot",
    "free-pyramid",
    "Respots onto the rear spot and along the respot line (GR-25, FP-8).",
)
def fp_respot(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    # A ball already sits on the rear spot, so the next one goes behind it on the line.
    fixed = {"9": profile.spots["rear"]}
    pos = scattered(profile, ["Y", "2", "4"], rng, fixed)
    pl = Player("fp-respot", "free-pyramid", profile, pos, seed)
    for b in ("6", "12"):
        (r,) = respot_spots([b], pl.positions(), profile, gap_mm=RESPOT_GAP_MM)
        pl.place(b, r.pos)
    play_some_pots(pl, ["Y", "2", "4"], ["9", "6", "12", "2", "4"], ALL_POCKETS, 1)
    return pl.play


@scene("fp-rally", "free-pyramid", "A rally of several strokes after the break.")
def fp_rally(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = fp_rack_layout(profile, rng)
    pl = Player("fp-rally", "free-pyramid", profile, pos, seed)
    apex = pos["1"]
    pl.planned(
        "Y",
        math.atan2(apex[1] - pos["Y"][1], apex[0] - pos["Y"][0]),
        lambda r: first_contact(r, "Y") is not None,
        speed_mm_s=BREAK_SPEED_MM_S,
        angle_jitter_rad=0.004,
    )
    balls = ["Y", *IVORY]
    play_some_pots(pl, balls, balls, ALL_POCKETS, 4)
    return pl.play


# ------------------------------------------------------------ Five Ball
@scene(
    "fb-break",
    "five-ball",
    "Five Ball opening layout (FB-4) and the break from behind the head line (FB-5).",
)
def fb_break(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = fb_opening_layout(profile, rng)
    pl = Player("fb-break", "five-ball", profile, pos, seed)
    k = pos["K"]
    base = math.atan2(k[1] - pos["W1"][1], k[0] - pos["W1"][0])
    pl.planned(
        "W1",
        base,
        lambda r: first_contact(r, "W1") == "K" and "K" not in pocketed(r),
        angle_jitter_rad=0.03,
        speed_mm_s=(2500, 5000),
    )
    return pl.play


def _fb_pot_scene(name: str, obj: str, pockets, cue: str = "W1", desc: str = ""):
    @scene(name, "five-ball", desc)
    def build(profile: TableProfile, seed: int) -> ScenePlay:
        rng = np.random.default_rng(seed)
        pk = pockets[int(rng.integers(len(pockets)))]
        o, c = line_up(profile, pk, rng)
        others = [b for b in ("W1", "W2", "R1", "R2", "K") if b not in (obj, cue)]
        pos = scattered(profile, others, rng, {obj: o, cue: c}, pot_lanes(profile, c, o, pk))
        pl = Player(name, "five-ball", profile, pos, seed)
        pl.pot(cue, obj, pk)
        return pl.play

    return build


_fb_pot_scene("fb-red", "R1", ALL_POCKETS, desc="A red pocketed (FB-8.1).")
_fb_pot_scene("fb-kaisa-corner", "K", CORNERS, desc="The kaisa into a corner pocket (FB-8.1).")
_fb_pot_scene("fb-kaisa-middle", "K", MIDDLES, desc="The kaisa into a middle pocket (FB-8.1).")
_fb_pot_scene(
    "fb-opp-white", "W2", ALL_POCKETS, desc="The opponent's white pocketed (FB-8.1, FB-9.1)."
)


@scene("fb-luikka", "five-ball", "A luikka: the shooter's own white in off another ball (FB-8.4).")
def fb_luikka(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pk = CORNERS[int(rng.integers(4))]
    obj, cue, ang = in_off_layout(profile, pk, rng)
    pos = scattered(profile, ["W2", "R2", "K"], rng, {"R1": obj, "W1": cue}, ((cue, obj),))
    pl = Player("fb-luikka", "five-ball", profile, pos, seed)
    pl.planned(
        "W1",
        ang,
        lambda r: "W1" in pocketed(r) and first_contact(r, "W1") == "R1",
        angle_jitter_rad=0.03,
        speed_mm_s=(1500, 3500),
        follow=(0.0, 0.6),
    )
    return pl.play


@scene(
    "fb-ball-in-hand",
    "five-ball",
    "Ball in hand: white placed behind the head line, then played (FB-9).",
)
def fb_ball_in_hand(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    L, W = profile.size_mm
    pos = scattered(profile, ["W2", "R1", "R2", "K"], rng)
    pl = Player("fb-ball-in-hand", "five-ball", profile, pos, seed)
    spot = free_spot(
        profile, pl.positions(), rng, x_range=(L * 0.05, L * 0.22), y_range=(W * 0.2, W * 0.8)
    )
    pl.place("W1", spot)
    front = [b for b, p in pl.positions().items() if p[0] > L / 4 and b != "W1"]
    if not play_some_pots(pl, ["W1"], front, CORNERS, 1):
        tgt = pl.positions()[front[0]]
        pl.planned(
            "W1",
            math.atan2(tgt[1] - spot[1], tgt[0] - spot[0]),
            lambda r: first_contact(r, "W1") is not None,
            angle_jitter_rad=0.02,
        )
    return pl.play


@scene("fb-rally", "five-ball", "A long rally of strokes by both players.")
def fb_rally(profile: TableProfile, seed: int) -> ScenePlay:
    rng = np.random.default_rng(seed)
    pos = scattered(profile, ["W1", "W2", "R1", "R2", "K"], rng)
    pl = Player("fb-rally", "five-ball", profile, pos, seed)
    for i in range(6):
        cue = "W1" if i % 2 == 0 else "W2"
        objs = [b for b in ("R1", "R2", "K") if b in pl.positions()]
        if not objs or cue not in pl.positions():
            break
        if not play_some_pots(pl, [cue], objs, ALL_POCKETS, 1):
            p = pl.positions()
            tgt = p[objs[int(rng.integers(len(objs)))]]
            pl.planned(
                cue,
                math.atan2(tgt[1] - p[cue][1], tgt[0] - p[cue][0]),
                lambda r, c=cue: first_contact(r, c) is not None and c not in pocketed(r),
                angle_jitter_rad=0.02,
            )
    return pl.play


SCENE_ATTEMPTS = 6


def build_scene(name: str, profile: TableProfile, seed: int) -> ScenePlay:
    """Play scene ``name`` for ``seed``.  A layout in which the planner finds no stroke
    that does what the scene asks is replaced by the next derived layout, so every seed
    gives a scene (deterministically)."""
    if name not in SCENES:
        raise SceneError(f"unknown scene '{name}'; scenes: {', '.join(sorted(SCENES))}")
    err: SceneError | None = None
    for k in range(SCENE_ATTEMPTS):
        try:
            return SCENES[name].build(profile, seed if k == 0 else seed * 7919 + k)
        except SceneError as e:
            err = e
    raise SceneError(f"{name}, seed {seed}: {err}")
