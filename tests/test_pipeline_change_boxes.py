"""The pipeline's change boxes: every ball whose pixels changed is searched, and little
else.

A change on the sparse grid means a ball (or a hand, a cue) moved there; the centre
of a ball whose pixels changed lies within ``CHANGE_REACH_RADII`` of a changed cell.
The boxes must hold every such centre -- and no longer whole 6-radius tiles: a ball
rolling over a tile's corner searched four of them (the 15 balls rolling after a
break searched a quarter of the bed a frame).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.vision.pipeline import (
    CHANGE_REACH_RADII,
    GRID_RADII,
    TILE_RADII,
    VisionPipeline,
    _merge_boxes,
)

CLIP_TRUTH = {"table": "pyramid-12ft", "size": (1920, 1080)}


class _NoIdentifier:
    """The boxes need no classifier."""


@pytest.fixture(scope="module")
def pipe() -> VisionPipeline:
    prof = load_profile(CLIP_TRUTH["table"])
    cam = CameraModel.looking_down(prof.size_mm, CLIP_TRUTH["size"], height_mm=3000.0)
    return VisionPipeline(cam, prof, "free-pyramid", identifier=_NoIdentifier())


def _grid_shape(pipe: VisionPipeline) -> tuple[int, int]:
    x0, y0, x1, y1 = pipe.detector.roi
    s = pipe.stride
    return -(-(y1 - y0) // s), -(-(x1 - x0) // s)


def _cell_work_xy(pipe: VisionPipeline, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """Work pixels of grid cells (the frame pixel each grid sample is taken at)."""
    x0, y0 = pipe.detector.roi[:2]
    s = pipe.stride
    return pipe._work_xy(np.c_[x0 + gx * s, y0 + gy * s])


def _inside_any(boxes, pts: np.ndarray) -> np.ndarray:
    inside = np.zeros(len(pts), bool)
    for bx0, by0, bx1, by1 in boxes:
        inside |= (pts[:, 0] >= bx0) & (pts[:, 0] < bx1) & (pts[:, 1] >= by0) & (pts[:, 1] < by1)
    return inside


def test_every_centre_a_change_can_belong_to_is_in_a_box(pipe):
    h, w = _grid_shape(pipe)
    rng = np.random.default_rng(8001)
    reach = int(math.ceil(CHANGE_REACH_RADII / GRID_RADII))
    for _ in range(20):
        changed = np.zeros((h, w), bool)
        # a few ball-sized blobs and stray cells anywhere (tile edges and corners too)
        for _ in range(int(rng.integers(1, 6))):
            cy, cx = int(rng.integers(0, h)), int(rng.integers(0, w))
            r = int(rng.integers(0, 3))
            changed[max(0, cy - r) : cy + r + 1, max(0, cx - r) : cx + r + 1] = True
        boxes = pipe._change_boxes(changed)
        ys, xs = np.nonzero(changed)
        # every cell within reach of a change: a centre of a ball whose pixels changed,
        # with half a cell either way (where the grid sample stands for)
        off = np.arange(-reach, reach + 1)
        dy, dx = np.meshgrid(off, off, indexing="ij")
        gy = (ys[:, None] + dy.ravel()[None]).ravel()
        gx = (xs[:, None] + dx.ravel()[None]).ravel()
        keep = (gy >= 0) & (gy < h) & (gx >= 0) & (gx < w)
        gx, gy = gx[keep], gy[keep]
        ww, wh = pipe.detector.work_size
        for sx, sy in ((-0.45, -0.45), (0.45, 0.45), (-0.45, 0.45), (0.45, -0.45)):
            pts = _cell_work_xy(pipe, gx + sx, gy + sy)
            pts = pts[(pts[:, 0] >= 0) & (pts[:, 0] < ww) & (pts[:, 1] >= 0) & (pts[:, 1] < wh)]
            assert _inside_any(boxes, pts).all()


def test_a_ball_on_a_tile_corner_searches_its_own_reach_not_four_tiles(pipe):
    h, w = _grid_shape(pipe)
    tile = int(round(TILE_RADII / GRID_RADII))
    ty, tx = 3 * tile, 5 * tile  # a tile corner inside the grid
    changed = np.zeros((h, w), bool)
    changed[ty - 2 : ty + 2, tx - 2 : tx + 2] = True  # a ball's worth of changed cells
    boxes = _merge_boxes(pipe._change_boxes(changed))
    area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes)
    cell_work = pipe.stride * pipe.detector.scale
    reach = int(math.ceil(CHANGE_REACH_RADII / GRID_RADII))
    own = ((4 + 2 * reach + 2) * cell_work + 2) ** 2  # the blob, its reach, a cell round it
    whole_tiles = 4 * (tile * cell_work) ** 2
    assert area <= own
    assert area < 0.5 * whole_tiles


def test_merging_boxes_keeps_no_overlap_and_joins_neighbours_when_cheaper():
    margin, fixed = 16, 2700.0
    boxes = [(0, 0, 20, 20), (10, 10, 30, 30), (32, 0, 50, 20), (400, 400, 420, 420)]
    out = _merge_boxes(boxes, margin, fixed)
    for i, a in enumerate(out):
        for b in out[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    # every box is covered by the result
    for b in boxes:
        assert any(o[0] <= b[0] and o[1] <= b[1] and o[2] >= b[2] and o[3] >= b[3] for o in out)
    # the three near ones share one window (their margins overlap); the far one stays apart
    assert len(out) == 2
    assert (400, 400, 420, 420) in out
    # without a cost, only overlapping boxes merge
    assert len(_merge_boxes(boxes)) == 3
