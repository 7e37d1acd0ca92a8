"""How a rendered table looks: cloth, wood, light, lens and sensor.

A :class:`Look` is plain data the :class:`~luza.samples.render.Renderer` reads; the
scene writer picks one (``Look()`` is a green club table under warm lamps) or draws
a plausible variety with :func:`random_look`.  Colours are linear RGB in ``0..1``
(the renderer converts to gamma-encoded BGR at the end).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace

import numpy as np

# Named cloth colours (linear RGB): what club tables are covered with.
CLOTH_COLOURS: dict[str, tuple[float, float, float]] = {
    "green": (0.035, 0.20, 0.06),
    "tournament-green": (0.03, 0.16, 0.07),
    "blue": (0.02, 0.08, 0.26),
    "electric-blue": (0.02, 0.13, 0.36),
    "red": (0.30, 0.025, 0.03),
    "grey": (0.11, 0.12, 0.12),
    "purple": (0.09, 0.03, 0.16),
    "teal": (0.02, 0.17, 0.16),
}
CLOTH_WEIGHTS: dict[str, float] = {
    "green": 0.28,
    "tournament-green": 0.14,
    "blue": 0.2,
    "electric-blue": 0.08,
    "red": 0.07,
    "grey": 0.08,
    "purple": 0.07,
    "teal": 0.08,
}
# Rail woods (linear RGB of the mid tone).
WOOD_COLOURS: dict[str, tuple[float, float, float]] = {
    "walnut": (0.10, 0.045, 0.02),
    "oak": (0.24, 0.14, 0.075),
    "mahogany": (0.17, 0.045, 0.025),
    "ebony": (0.03, 0.022, 0.018),
    "cherry": (0.22, 0.07, 0.035),
}
LIGHT_COLOURS: dict[str, tuple[float, float, float]] = {
    "warm": (1.0, 0.86, 0.68),
    "neutral": (1.0, 0.97, 0.92),
    "cool": (0.90, 0.96, 1.0),
}


@dataclass(frozen=True)
class Lamp:
    """A shaded lamp over the table.

    ``x_frac, y_frac``: position as fractions of the bed length/width (may lie
    outside 0..1); ``height_mm`` above the cloth; ``power``: relative intensity;
    ``cone_exp``: how tightly the shade focuses the light downwards (cos^k);
    ``radius_mm``: size of the bright opening (soft shadows, highlight size).
    """

    x_frac: float
    y_frac: float
    height_mm: float = 1000.0
    power: float = 1.0
    cone_exp: float = 2.0
    radius_mm: float = 170.0


def _default_lamps() -> tuple[Lamp, ...]:
    return tuple(Lamp(x, 0.5) for x in (0.17, 0.39, 0.61, 0.83))


@dataclass(frozen=True)
class Look:
    """Everything about the appearance of a rendered frame (not its geometry)."""

    cloth_rgb: tuple[float, float, float] = CLOTH_COLOURS["green"]
    cloth_texture: float = 0.06  # relative amplitude of nap / brushing variation
    cloth_wear: float = 0.04  # lighter worn patches around the spots and the middle
    wood_rgb: tuple[float, float, float] = WOOD_COLOURS["walnut"]
    wood_grain: float = 0.35  # contrast of the grain
    floor_rgb: tuple[float, float, float] = (0.06, 0.05, 0.045)
    apron_rgb: tuple[float, float, float] = (0.05, 0.025, 0.015)
    pocket_trim_rgb: tuple[float, float, float] = (0.10, 0.07, 0.04)  # leather trim
    marking_rgb: tuple[float, float, float] = (0.72, 0.72, 0.68)
    ivory_rgb: tuple[float, float, float] = (0.80, 0.74, 0.58)
    coloured_ball_rgb: tuple[float, float, float] = (0.80, 0.50, 0.05)  # Free Pyramid 'Y'
    red_ball_rgb: tuple[float, float, float] = (0.55, 0.035, 0.03)
    yellow_ball_rgb: tuple[float, float, float] = (0.78, 0.52, 0.04)  # Five Ball kaisa 'K'
    print_rgb: tuple[float, float, float] = (0.02, 0.02, 0.025)  # numbers and dots
    ball_gloss: float = 1.0  # strength of the balls' lamp reflections (0: matte, worn balls)
    ball_tint: float = 0.015  # per-ball colour deviation (relative, per channel)
    rail_gloss: float = 0.06  # varnish reflections of the lamps on the wooden rails
    chalk_marks: int = 8  # faint blue chalk smudges on the cloth
    lamps: tuple[Lamp, ...] = field(default_factory=_default_lamps)
    light_rgb: tuple[float, float, float] = LIGHT_COLOURS["warm"]
    ambient: float = 0.10  # room light relative to the lamps at the bed centre
    brightness: float = (
        0.8  # exposure: linear level a white (albedo 1) surface reaches at the bed centre
    )
    vignetting: float = 0.30  # relative darkening at the image corners
    blur_px: float = 0.65  # Gaussian sigma of defocus / lens softness
    noise: float = 1.2  # sensor noise sigma (8-bit levels) at mid-grey; grows with signal
    noise_floor: float = 0.6  # noise sigma in the blacks
    shadow_strength: float = 0.75  # 0 disables ball/arm shadows on the cloth
    crf: int = 23  # H.264 quality the clip is written with (lower = better)
    skin_rgb: tuple[float, float, float] = (0.55, 0.32, 0.22)
    sleeve_rgb: tuple[float, float, float] = (0.05, 0.05, 0.06)
    hair_rgb: tuple[float, float, float] = (0.03, 0.02, 0.015)

    def with_(self, **changes) -> Look:
        """A copy with some fields changed."""
        return replace(self, **changes)


def look_from_dict(d: dict) -> Look:
    """The inverse of ``dataclasses.asdict(look)`` (as written into a clip's truth file)."""
    known = {f.name for f in fields(Look)}
    kw = {k: v for k, v in d.items() if k in known}
    for k, v in list(kw.items()):
        if k == "lamps":
            kw[k] = tuple(Lamp(**lp) if isinstance(lp, dict) else Lamp(*lp) for lp in v)
        elif isinstance(v, list):
            kw[k] = tuple(v)
    return Look(**kw)


GREEN = Look()
BLUE = Look(cloth_rgb=CLOTH_COLOURS["blue"], wood_rgb=WOOD_COLOURS["mahogany"])


def _jitter(rng: np.random.Generator, rgb: tuple[float, float, float], rel: float) -> tuple:
    f = np.exp(rng.normal(0.0, rel, 3)) * math.exp(rng.normal(0.0, rel))
    return tuple(float(min(1.0, c * k)) for c, k in zip(rgb, f, strict=True))


def random_look(rng: np.random.Generator) -> Look:
    """A plausible club table: cloth, wood, lamps, exposure, lens and sensor vary."""
    # Club pyramid tables are mostly green or blue; other colours now and then.
    cloth = rng.choice(list(CLOTH_WEIGHTS), p=np.array(list(CLOTH_WEIGHTS.values())))
    wood = rng.choice(list(WOOD_COLOURS))
    light = rng.choice(["warm", "warm", "neutral", "cool"])
    n_lamps = int(rng.choice([3, 4, 4, 5, 6]))
    spread = rng.uniform(0.62, 0.76)
    xs = np.linspace(0.5 - spread / 2, 0.5 + spread / 2, n_lamps) + rng.normal(0, 0.01, n_lamps)
    height = rng.uniform(800.0, 1150.0)
    lamps = tuple(
        Lamp(
            float(x),
            float(0.5 + rng.normal(0, 0.02)),
            height_mm=float(height + rng.normal(0, 20)),
            power=float(rng.uniform(0.85, 1.15)),
            cone_exp=float(rng.uniform(1.2, 3.5)),
            radius_mm=float(rng.uniform(110, 230)),
        )
        for x in xs
    )
    coloured = (0.80, 0.50, 0.05) if rng.random() < 0.7 else (0.55, 0.04, 0.03)  # yellow-ish or red
    return Look(
        cloth_rgb=_jitter(rng, CLOTH_COLOURS[str(cloth)], 0.08),
        cloth_texture=float(rng.uniform(0.03, 0.10)),
        cloth_wear=float(rng.uniform(0.0, 0.08)),
        wood_rgb=_jitter(rng, WOOD_COLOURS[str(wood)], 0.1),
        wood_grain=float(rng.uniform(0.2, 0.5)),
        floor_rgb=_jitter(rng, (0.06, 0.05, 0.045), 0.08)
        if rng.random() < 0.5
        else tuple(float(c * rng.uniform(0.5, 1.5)) for c in (0.05, 0.045, 0.042)),
        ivory_rgb=_jitter(rng, (0.80, 0.74, 0.58), 0.04),
        coloured_ball_rgb=_jitter(rng, coloured, 0.06),
        ball_gloss=float(rng.uniform(0.6, 1.2)),
        ball_tint=float(rng.uniform(0.0, 0.03)),
        rail_gloss=float(rng.uniform(0.0, 0.12)),
        chalk_marks=int(rng.integers(0, 20)),
        red_ball_rgb=_jitter(rng, (0.55, 0.035, 0.03), 0.06),
        yellow_ball_rgb=_jitter(rng, (0.78, 0.52, 0.04), 0.06),
        lamps=lamps,
        light_rgb=LIGHT_COLOURS[str(light)],
        ambient=float(rng.uniform(0.05, 0.2)),
        brightness=float(rng.uniform(0.5, 1.1)),
        vignetting=float(rng.uniform(0.1, 0.45)),
        blur_px=float(rng.uniform(0.45, 1.1)),
        noise=float(rng.uniform(0.6, 3.0)),
        noise_floor=float(rng.uniform(0.3, 1.2)),
        shadow_strength=float(rng.uniform(0.55, 0.9)),
        crf=int(rng.integers(18, 30)),
        skin_rgb=_jitter(rng, (0.55, 0.32, 0.22), 0.25),
        sleeve_rgb=_jitter(rng, (0.08, 0.08, 0.09), 0.8),
    )
