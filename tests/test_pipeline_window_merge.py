"""Searched boxes close together are searched as one window.

A window costs a fixed ~0.4 ms (some 25 numpy and OpenCV calls) besides its pixels;
after a break, 15 rolling balls made ~10 windows a frame, most of them holding one to
three vote peaks, and the fixed costs were half the windows' time.  Two boxes whose
one window would hold no more than their two windows' pixels and a window's fixed
cost more are merged.
"""

from __future__ import annotations

import numpy as np
from render_helpers import started_pipeline

from luza.vision.pipeline import (
    WINDOW_MERGE_SLACK_WORK_PX,
    _merge_boxes,
)
from luza.vision.sources import Frame

CLIP = "fp-pots_s0_1080p60"


def test_close_boxes_merge_far_ones_do_not():
    size = (1000, 600)
    # two 20 px boxes 10 px apart, margin 15: apart 2 x 50 x 50 = 5000 px, together
    # 80 x 50 = 4000 px
    assert _merge_boxes([(100, 100, 120, 120), (130, 100, 150, 120)], 15, size, 0) == [
        (100, 100, 150, 120)
    ]
    # 300 px apart: together 50 x 370 = 18500 px against 5000 -- two windows ...
    far = [(100, 100, 120, 120), (100, 420, 120, 440)]
    assert _merge_boxes(far, 15, size, 0) == far
    # ... unless a window's fixed cost is worth more than the 13500 px between them
    assert _merge_boxes(far, 15, size, 14000) == [(100, 100, 120, 440)]


def test_overlapping_boxes_always_merge():
    # a cross: the bounding box (200 x 200 + margins) costs far more than the two bars
    cross = [(0, 90, 200, 110), (90, 0, 110, 200)]
    assert _merge_boxes(cross, 10, (1000, 1000), 0) == [(0, 0, 200, 200)]


def test_windows_are_clipped_to_the_work_image():
    # against the image's edge a box's window loses its outer margin: the two boxes'
    # windows at the corner are smaller, and merging them is judged on what is searched
    boxes = [(0, 0, 20, 20), (40, 0, 60, 20)]
    # clipped: 35 x 35 + 50 x 35 = 2975 px apart, 75 x 35 = 2625 together
    assert _merge_boxes(boxes, 15, (1000, 1000), 0) == [(0, 0, 60, 20)]


def test_two_changes_near_each_other_are_one_window_and_find_both_balls():
    _, _, img, pipe = started_pipeline(CLIP, "free-pyramid")
    xy = pipe._last.xy_px
    r = float(pipe._last.radius_px.max())
    margin, size = pipe.detector.window_margin, pipe.detector.work_size

    def box(k):
        c = pipe._work_xy(xy[k][None])[0]
        return (int(c[0]) - 10, int(c[1]) - 10, int(c[0]) + 11, int(c[1]) + 11)

    # two balls (not touching) whose boxes are two windows by their pixels alone, but
    # one window with its fixed cost
    pairs = [
        (i, j)
        for i in range(len(xy))
        for j in range(i + 1, len(xy))
        if np.linalg.norm(xy[i] - xy[j]) > 3 * r
        and len(_merge_boxes([box(i), box(j)], margin, size, 0)) == 2
        and len(_merge_boxes([box(i), box(j)], margin, size, WINDOW_MERGE_SLACK_WORK_PX)) == 1
    ]
    assert pairs
    i, j = pairs[0]
    boxes = [box(i), box(j)]
    pipe._change_boxes = lambda changed: list(boxes)
    # (the frame's pixels changed at both balls: a faint wash over each)
    frame = img.copy()
    for k in (i, j):
        x, y = (int(round(v)) for v in xy[k])
        frame[y - 2 : y + 3, x - 2 : x + 3] = np.clip(
            frame[y - 2 : y + 3, x - 2 : x + 3].astype(int) + 1, 0, 255
        ).astype(np.uint8)
    before = pipe.stats["boxes"]
    res = pipe.process(Frame(1, 1 / 60, frame))
    assert pipe.stats["boxes"] - before == 1
    for k in (i, j):
        dd = np.linalg.norm(res.detections.xy_px - xy[k][None], axis=1)
        assert (dd < 0.3 * r).any()
