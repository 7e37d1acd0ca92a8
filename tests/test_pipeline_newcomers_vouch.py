"""A newcomer must lie alone on the cloth -- and another newcomer beside it does not
make it so.

fp-rally_s9729_720p30, frames 650-659: two knuckles of a hand held still over the
cloth were both read as balls that might have been put down; each explained the
other's share of the ring around it, so the hand around them stayed under the limit
and both were reported for ten frames.  A ball the tracker already follows does
explain foreground beside a newcomer; a detection that is itself being vetted does not.
Here: discs and a patch of skin drawn on a bundled clip's first frame, on open cloth.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from render_helpers import open_cloth_point, started_pipeline

from luza.vision.detections import Detections
from luza.vision.pipeline import NEW_MAX_RING

CLIP = "fb-kaisa-middle_s0_720p30"
IVORY_BGR = (140, 170, 200)
SKIN_BGR = (87, 100, 185)


@pytest.fixture(scope="module")
def scene():
    """The pipeline after the first frame, a point with open cloth around it, the
    frame with disc A there, disc B touching it on the right and a patch of skin
    across the far left of A's surrounding ring."""
    cam, prof, img, pipe = started_pipeline(CLIP)
    R = prof.ball_radius_mm
    p = open_cloth_point(pipe, prof, 10, np.linspace(0.2, 0.8, 13), np.linspace(0.3, 0.7, 5))
    a_px, b_px = cam.project(np.array([p, p + [2 * R, 0.0]]), R).reshape(-1, 2)
    r_px = float(np.linalg.norm(b_px - a_px)) / 2
    out = img.copy()
    for c in (a_px, b_px):
        cv2.circle(out, (int(round(c[0])), int(round(c[1]))), int(round(r_px)), IVORY_BGR, -1)
    # skin over the ring's far left: x from -1.9 r to -1.45 r, y within +-0.6 r of A
    x0, x1 = a_px[0] - 1.9 * r_px, a_px[0] - 1.45 * r_px
    y0, y1 = a_px[1] - 0.6 * r_px, a_px[1] + 0.6 * r_px
    cv2.rectangle(out, (int(x0), int(y0)), (int(x1), int(y1)), SKIN_BGR, -1)
    xy_px = np.array([a_px, b_px])
    xy_mm = cam.unproject(xy_px, R)
    det = Detections(1, 1 / 30, xy_px, xy_mm, np.full(2, r_px), np.full(2, 0.75))
    return pipe, out, det


def test_two_newcomers_side_by_side_do_not_vouch_for_each_other(scene):
    pipe, img, det = scene
    ok = pipe._alone_on_cloth(img, det, np.array([0, 1]))
    assert not ok[0]


def test_a_ball_already_followed_explains_the_foreground_beside_a_newcomer(scene):
    pipe, img, det = scene
    # B is a ball the tracker follows (a row of the frame's detections, not vetted)
    ok = pipe._alone_on_cloth(img, det, np.array([0]))
    assert ok[0]


def test_the_skin_alone_is_within_the_limit(scene):
    pipe, img, det = scene
    ring, _rel = pipe.detector.surroundings(img, det.xy_px[:1], det.xy_px)
    assert 0.0 < ring[0] <= NEW_MAX_RING
