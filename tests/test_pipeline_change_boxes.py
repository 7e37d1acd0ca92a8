"""The boxes searched for a frame's changes: every changed grid cell with a ball's
radius around it (a ball that changes a cell has its centre within a radius of it),
not the whole change tile the cell falls in.

A tile is six radii square: a ball rolling across its corner, or a fingertip on its
edge, had the whole tile searched.  Searching the changed cells' own box (per row of
tiles) cut the searched area by a third to a half (fp-rally_s10320_1080p30: ~11 000
-> ~7 300 work pixels a frame while players aim, ~119 000 -> ~79 000 with the rack's
balls rolling).
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import started_pipeline

from luza.vision.pipeline import GRID_RADII, TILE_RADII

CLIP = "fb-kaisa-middle_s0_720p30"


@pytest.fixture(scope="module")
def pipe():
    return started_pipeline(CLIP)[3]


def _cell_work_xy(pipe, gy: int, gx: int) -> np.ndarray:
    """The work-pixel position of grid cell (gy, gx)'s pixel."""
    x0, y0 = pipe.detector.roi[:2]
    s = pipe.stride
    return pipe._work_xy(np.array([[x0 + gx * s, y0 + gy * s]], float))[0]


def _inside(box, xy, margin: float) -> bool:
    x0, y0, x1, y1 = box
    return (
        x0 <= xy[0] - margin
        and xy[0] + margin <= x1
        and y0 <= xy[1] - margin
        and xy[1] + margin <= y1
    )


def test_every_changed_cell_is_searched_with_a_radius_around_it(pipe):
    shape = pipe._prev_grid.shape[:2]
    rng = np.random.default_rng(3)
    # the work radius less a cell (the box edges are whole grid cells, rounded)
    margin = pipe.detector.r_work - pipe.stride * pipe.detector.scale
    for _ in range(20):
        changed = np.zeros(shape, bool)
        for _ in range(rng.integers(1, 6)):
            gy, gx = rng.integers(0, shape[0] - 4), rng.integers(0, shape[1] - 4)
            changed[gy : gy + rng.integers(1, 5), gx : gx + rng.integers(1, 5)] = True
        boxes = pipe._change_boxes(changed)
        ww, wh = pipe.detector.work_size
        for gy, gx in zip(*np.nonzero(changed), strict=True):
            xy = _cell_work_xy(pipe, gy, gx)
            if not (margin <= xy[0] < ww - margin and margin <= xy[1] < wh - margin):
                continue  # by the image's edge: the box stops there
            assert any(_inside(b, xy, margin) for b in boxes), (gy, gx)


def test_a_small_change_is_searched_in_its_own_box_not_a_whole_tile(pipe):
    shape = pipe._prev_grid.shape[:2]
    tile = int(round(TILE_RADII / GRID_RADII))
    changed = np.zeros(shape, bool)
    # a fingertip (two cells) in a tile's corner, well inside the image
    ty, tx = 2 * tile, 3 * tile
    changed[ty : ty + 2, tx : tx + 2] = True
    (box,) = pipe._change_boxes(changed)
    area = (box[2] - box[0]) * (box[3] - box[1])
    # the tile and a cell around it, as searched before
    tile_box_work = (tile + 2) * pipe.stride * pipe.detector.scale
    assert area < 0.5 * tile_box_work**2
    # a ball centred a radius from it is inside
    R = 1 / GRID_RADII  # cells
    for dy, dx in ((-R, 0), (0, -R), (R + 1, 0), (0, R + 1)):
        xy = _cell_work_xy(pipe, ty + dy, tx + dx)
        assert _inside(box, xy, 0.0)
