"""The pipeline's look past a streak's far end: does a cue run on from it?

fp-pots_s10207_720p60 frame 222: a ball lay under a sleeve the colour of the cloth; the
player's fist on the cue passed over its spot and read as a motion-blur streak starting
there.  A ball struck from a spot flies away from the cue's tip, so its cue lies behind
it; a cue running on past the streak's far end makes the streak the fist on its butt.
Here: lines and balls drawn on a bundled clip's first frame, on open cloth.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import open_cloth_point, started_pipeline

CLIP = "fb-kaisa-middle_s0_720p30"
CUE_BGR = (40, 60, 95)  # dark wood
CUE_WIDTH_MM = 25.0  # a cue's butt (a ball is 68 mm)
U = np.array([1.0, 0.0])


@pytest.fixture(scope="module")
def started():
    cam, prof, img, pipe = started_pipeline(CLIP)
    # a point with open cloth for eight radii around it and on to its right
    way = np.linspace(-2, 8, 11)[:, None] * prof.ball_radius_mm * U
    p = open_cloth_point(
        pipe, prof, 8, np.linspace(0.2, 0.6, 9), np.linspace(0.25, 0.75, 5), reach_mm=way
    )
    return cam, prof, img, pipe, p


def _px(cam, prof, pts) -> np.ndarray:
    return cam.project(np.asarray(pts, float).reshape(-1, 2), prof.ball_radius_mm).reshape(-1, 2)


def _line(started, img, a_mm, b_mm, width_mm=CUE_WIDTH_MM, bgr=CUE_BGR) -> np.ndarray:
    cam, prof, _img, _pipe, _p = started
    a, b = _px(cam, prof, [a_mm, b_mm])
    scale = np.linalg.norm(_px(cam, prof, [a_mm, a_mm + [100.0, 0.0]])[1] - a) / 100.0
    out = img.copy()
    a16, b16 = (tuple(int(round(v * 16)) for v in q) for q in (a, b))
    cv2.line(out, a16, b16, bgr, max(1, int(round(width_mm * scale))), cv2.LINE_AA, 4)
    return out


def _looks(started, img) -> bool:
    _cam, _prof, _img, pipe, p = started
    pipe._img = img
    return pipe._cue_ahead(p, U)


def test_plain_cloth_past_the_end_is_no_cue(started):
    assert not _looks(started, started[2])


def test_a_cue_running_on_from_the_end(started):
    _cam, prof, img, _pipe, p = started
    R = prof.ball_radius_mm
    assert _looks(started, _line(started, img, p, p + 6 * R * U))


def test_a_cue_running_on_beside_the_axis(started):
    """A fist's cue leaves it nearer one side than through its middle."""
    _cam, prof, img, _pipe, p = started
    R = prof.ball_radius_mm
    side = np.array([0.0, 1.0]) * R
    assert _looks(started, _line(started, img, p + side, p + side + 6 * R * U))


def test_a_cue_lying_across_the_way_is_not_one_running_on(started):
    _cam, prof, img, _pipe, p = started
    R = prof.ball_radius_mm
    mid = p + 2.5 * R * U
    assert not _looks(started, _line(started, img, mid - [0, 4 * R], mid + [0, 4 * R]))


def test_a_ball_ahead_is_not_a_cue(started):
    cam, prof, img, _pipe, p = started
    R = prof.ball_radius_mm
    c = _px(cam, prof, p + 2.5 * R * U)[0]
    r = np.linalg.norm(_px(cam, prof, p + [R, 0.0])[0] - _px(cam, prof, p)[0])
    out = img.copy()
    cv2.circle(out, (int(round(c[0])), int(round(c[1]))), int(round(r)), (200, 215, 225), -1)
    assert not _looks(started, out)


def test_something_wider_than_a_ball_running_on_is_no_cue(started):
    _cam, prof, img, _pipe, p = started
    R = prof.ball_radius_mm
    assert not _looks(started, _line(started, img, p, p + 6 * R * U, width_mm=5 * R))


def test_a_ball_beside_the_way_is_not_a_cue(started, monkeypatch):
    """A ball lying 1.9 radii off the way shows a band under one radius wide at both
    looks; the balls on the table are left out of them."""
    import luza.vision.pipeline as pipeline_module

    _cam, prof, img, pipe, _p = started
    R = prof.ball_radius_mm
    pipe._img = img
    balls = [t.xy for t in pipe.tracker.tracks.values() if t.on_table]
    starts = [b - np.array([2.5 * R, 1.9 * R]) for b in balls]
    assert not any(pipe._cue_ahead(p, U) for p in starts)
    monkeypatch.setattr(pipeline_module, "CUE_BALL_CLEAR_RADII", 0.0)
    assert any(pipe._cue_ahead(p, U) for p in starts)  # what it would read otherwise


def test_a_line_marked_on_the_cloth_is_not_a_cue(started, monkeypatch):
    """A ball struck along the house line: the line reads as foreground."""
    import luza.vision.pipeline as pipeline_module

    _cam, prof, img, pipe, p = started
    (x0, y0), (x1, y1) = prof.lines[prof.marked_lines[0]]
    along = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
    starts = [np.array([x0, y0]) + along * s for s in np.linspace(300, 900, 7)]
    pipe._img = img
    assert not any(pipe._cue_ahead(q, along) for q in starts)
    monkeypatch.setattr(pipeline_module, "CUE_MARKING_CLEAR_MM", 0.0)
    assert any(pipe._cue_ahead(q, along) for q in starts)  # what it would read otherwise
