"""Procedural textures for the renderer: value noise, wood grain, printed numbers."""

from __future__ import annotations

import functools

import cv2
import numpy as np


def value_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_px: float, octaves: int = 1
) -> np.ndarray:
    """Smooth noise with zero mean and unit-ish std, features about ``cell_px`` apart."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    c = float(cell_px)
    for _ in range(max(1, octaves)):
        gh, gw = max(2, int(h / c) + 3), max(2, int(w / c) + 3)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        big = cv2.resize(g, (int(gw * c), int(gh * c)), interpolation=cv2.INTER_CUBIC)
        oy = int(rng.integers(0, max(1, big.shape[0] - h)))
        ox = int(rng.integers(0, max(1, big.shape[1] - w)))
        out += amp * big[oy : oy + h, ox : ox + w]
        total += amp * amp
        amp *= 0.5
        c = max(1.0, c / 2.0)
    out /= np.sqrt(total)
    s = float(out.std()) or 1.0
    return (out - out.mean()) / s


def wood_grain(
    rng: np.random.Generator, along: np.ndarray, across: np.ndarray, scale_mm: float = 1.0
) -> np.ndarray:
    """Grain pattern in ``0..1`` for wood whose fibres run along ``along`` (mm arrays)."""
    h, w = along.shape
    warp = value_noise(rng, (h, w), 60.0 / scale_mm, octaves=2)
    rings = np.sin((across / 4.5 + warp * 1.8 + np.sin(along / 310.0) * 1.3) * 2.0 * np.pi)
    fine = value_noise(rng, (h, w), 3.0 / scale_mm, octaves=1)
    streak = cv2.GaussianBlur(fine, (0, 0), sigmaX=1.0, sigmaY=1.0)
    g = 0.5 + 0.32 * rings**3 + 0.12 * streak
    return np.clip(g, 0.0, 1.0).astype(np.float32)


@functools.lru_cache(maxsize=64)
def glyph(text: str, size_px: int = 64, underline: bool = False) -> np.ndarray:
    """Ink coverage (``0..1``, float32, ``size x size``) of a ball's printed number.

    The text is centred and fills about 60 % of the height; ``underline`` marks a
    6 or a 9 as real balls do.
    """
    img = np.zeros((size_px * 4, size_px * 4), np.uint8)
    font = cv2.FONT_HERSHEY_DUPLEX
    target_h = 0.62 * img.shape[0]
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = target_h / th
    thick = max(2, int(round(scale * 3.2)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    org = ((img.shape[1] - tw) // 2, (img.shape[0] + th) // 2)
    cv2.putText(img, text, org, font, scale, 255, thick, cv2.LINE_AA)
    if underline:
        y = org[1] + int(0.16 * img.shape[0])
        cv2.line(img, (org[0], y), (org[0] + tw, y), 255, thick, cv2.LINE_AA)
    small = cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return small.astype(np.float32) / 255.0
