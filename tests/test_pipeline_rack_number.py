"""A rack ball whose printed number the classifier reads as 'none' is still a ball:
the rack's crisp rims are balls, however crowded or printed (fp-rally_s9820_1080p30:
ball 4's '4' read 'none' at 0.49 in the first frame, and its view was left out of the
frames' detections for 33 frames while the tracker kept it in its slot)."""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import PYR, poses, pyramid_camera, renderer

from luza.vision.identify import BallIdentifier
from luza.vision.pipeline import VisionPipeline
from luza.vision.sources import Frame

SLOT = 3  # the rack slot whose ball reads 'none'
CUE = (900.0, 887.5)


class ReadsNone(BallIdentifier):
    """The game's classifier, but the ball at ``xy`` reads 'none' a little more than
    ivory (as a printed '4' did)."""

    def __init__(self, xy: np.ndarray) -> None:
        super().__init__("free-pyramid")
        self.xy = xy

    def identify(self, image, det):
        det = super().identify(image, det)
        if len(det):
            j = int(np.argmin(np.linalg.norm(det.xy_mm - self.xy, axis=1)))
            if np.linalg.norm(det.xy_mm[j] - self.xy) < 10.0:
                row = np.zeros(len(self.classes))
                row[self.classes.index("ivory")] = 0.455
                row[self.classes.index("Y")] = 0.052
                row[self.classes.index("none")] = 0.493
                det.cls_prob[j] = row
        return det


@pytest.fixture(scope="module")
def rack_frame():
    cam = pyramid_camera(image_size=(1920, 1080))
    rack = PYR.rack_positions()
    balls = [(str(k + 1), x, y) for k, (x, y) in enumerate(rack)] + [("Y", *CUE)]
    img = renderer(cam, PYR).render(poses(balls), t=1.0)
    return cam, img, np.array(rack)


def test_a_rack_ball_read_as_none_is_reported(rack_frame):
    cam, img, rack = rack_frame
    pipe = VisionPipeline(cam, PYR, "free-pyramid", identifier=ReadsNone(rack[SLOT]))
    for k in range(3):
        res = pipe.process(Frame(k, k / 30.0, img))
        d = np.linalg.norm(res.detections.xy_mm[:, None] - rack[None], axis=2)
        assert (d.min(axis=0) < 10.0).all(), f"frame {k}: a rack slot without its view"
        # and it is reported as the ball it is, not as 'none'
        j = int(np.argmin(d[:, SLOT]))
        assert res.detections.labels[j] == "ivory", res.detections.cls_prob[j]


def test_a_ball_read_as_none_off_the_rack_is_kept_when_alone_and_crisp(rack_frame):
    # the same reading on the cue ball, alone on the cloth in the first frame: a crisp
    # rim with a clean ring is a ball too (``_lone_crisp_rims``; it used to be dropped,
    # as fp-pots_s10007_720p60's orange ball was in all its frames), reported as the
    # classifier's best ball
    cam, img, rack = rack_frame
    pipe = VisionPipeline(cam, PYR, "free-pyramid", identifier=ReadsNone(np.array(CUE)))
    res = pipe.process(Frame(0, 0.0, img))
    d = np.linalg.norm(res.detections.xy_mm - np.array(CUE), axis=1)
    assert d.min() < 10.0 and res.detections.labels[int(np.argmin(d))] == "ivory"
    d = np.linalg.norm(res.detections.xy_mm[:, None] - rack[None], axis=2)
    assert (d.min(axis=0) < 10.0).all()
