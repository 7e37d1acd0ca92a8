"""Which rolling balls the pipeline locates in the work image only (no full-resolution
rim fit): every ball that moves a tenth of a radius a frame or more.

The fit costs ~0.4 ms a ball at 1080p.  After a break most balls roll slower than
0.3 radii a frame for most of their way, and fitting each of them every frame cost
~9 % of the tracking time of a break clip (fp-multi_s10352_1080p60: 141 -> 150
frames/s); the work-image centre of such a ball is well inside the 10 mm asked of
a moving ball (moving error p95 3.1 -> 3.4 mm there), and a ball that stops gets its
careful look then (``VisionPipeline._forced``).
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import started_pipeline

from luza.vision.sources import Frame

CLIP = "fb-kaisa-middle_s0_720p30"
FPS = 60.0


@pytest.fixture()
def rolling():
    """A pipeline after the bundled first frame, one ball given a speed; sets it."""
    _cam, prof, img, pipe = started_pipeline(CLIP)
    track = next(t for t in pipe.tracker.tracks.values() if t.on_table)

    def roll(radii_a_frame: float) -> np.ndarray:
        speed = radii_a_frame * prof.ball_radius_mm * FPS
        track.v = np.array([speed, 0.0])
        return pipe._moving_px(Frame(1, 1.0 / FPS, img))

    return roll


def test_a_ball_rolling_a_tenth_of_a_radius_a_frame_is_located_coarsely(rolling):
    assert len(rolling(0.15)) == 1


def test_a_ball_creeping_slower_keeps_its_full_resolution_fit(rolling):
    assert len(rolling(0.05)) == 0
