"""The frame -> work shrink at a ratio that is not whole (``shrink_to_work``): the fast
path must put things where the detector's geometry says they are (work pixel x at frame
pixel (x + 0.5) / scale - 0.5), whatever the crop's size or sub-pixel corner."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from luza.vision.detect import shrink_to_work


def _disc(w: int, h: int, centre: tuple[float, float], r: float = 11.0) -> np.ndarray:
    """A bright anti-aliased ball on dark cloth (colour), 8x supersampled."""
    s = 8
    big = np.zeros((h * s, w * s), np.uint8)
    c = (int(round((centre[0] + 0.5) * s - 0.5)), int(round((centre[1] + 0.5) * s - 0.5)))
    cv2.circle(big, c, int(r * s), 255, -1)
    g = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    return cv2.merge([g, g // 2 + 20, g // 3 + 30])


def _centroid(img: np.ndarray) -> np.ndarray:
    g = img[..., 0].astype(float)
    ys, xs = np.mgrid[: g.shape[0], : g.shape[1]]
    return np.array([(xs * g).sum(), (ys * g).sum()]) / g.sum()


@pytest.mark.parametrize("scale", [0.638, 0.462, 0.31])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (0.4, -0.3)])
def test_a_ball_lands_where_the_detector_puts_it(scale, offset):
    # an odd-sized crop (not whole blocks of the first, whole-ratio shrink), the ball
    # near its far corner, where a block left out would shift it most
    w, h = 203, 161
    img = _disc(w, h, (171.3, 128.6))
    size = (int(round(w * scale)), int(round(h * scale)))
    out = shrink_to_work(img, size, scale, offset)
    assert out.shape == (size[1], size[0], 3) and out.dtype == img.dtype
    # work pixel x lies at crop pixel (x + 0.5) / scale - 0.5 + offset
    want = (_centroid(img) - np.array(offset) + 0.5) * scale - 0.5
    assert np.abs(_centroid(out) - want).max() < 0.05  # work pixels
    # and the ball as bright as the area mean makes it (its rim a little softer)
    ref = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    assert abs(float(out[..., 0].astype(float).sum()) / float(ref[..., 0].sum()) - 1) < 0.02


def test_a_whole_ratio_is_the_area_mean_itself():
    img = _disc(200, 160, (90.2, 70.7))
    out = shrink_to_work(img, (100, 80), 0.5)
    assert np.array_equal(out, cv2.resize(img, (100, 80), interpolation=cv2.INTER_AREA))


def test_a_crop_already_at_the_work_size_is_kept():
    img = _disc(64, 48, (30.0, 20.0))
    assert shrink_to_work(img, (64, 48), 1.0) is img
