"""A ball hanging in the jaws of the pocket the tracker thought it went into is found
there, and takes its id back.

fb-rally_s10423_720p60: R2 rolled along the foot cushion into the dim far corner, was
lost by the tracker on its way in and counted as pocketed; it came to rest in the
jaws.  Nothing changed around it any more, so nothing searched there, and the one view
the change grid gave was turned away as a newcomer (the black hole around it is no
cloth).  It went unseen for its last 4 s (256 views).  Now the mouth of a pocket a ball
went into during the stroke is searched every frame until the stroke ends, and a fair
rim there that reads as that ball's class is that ball.
"""

from __future__ import annotations

import numpy as np
import pytest
from render_helpers import PYR, poses, renderer, synth_view

from luza.vision.pipeline import SETTLE_EVERY_S, VisionPipeline
from luza.vision.sources import Frame
from luza.vision.track import PLACE_CONFIRM_S

SEED, SIZE = 10423, (1280, 720)  # the clip's camera and look: a dim, vignetted corner
JAWS_MM = (3513.0, 36.0)  # where R2 came to rest (the foot-left pocket's jaws)
OTHERS = [("W1", 2700, 330), ("W2", 2450, 270), ("R1", 900, 600), ("K", 1500, 1200)]
FPS = 30.0
FRAMES = int(round(2 * PLACE_CONFIRM_S * FPS))


@pytest.fixture(scope="module")
def frames():
    cam, look = synth_view(SEED, SIZE)
    r = renderer(cam, PYR, look, game="five-ball", seed=1)
    start = r.render(poses(OTHERS + [("R2", 3000, 900)]), t=0.0)
    hanging = r.render(poses(OTHERS + [("R2", *JAWS_MM)]), t=0.0)
    empty = r.render(poses(OTHERS), t=0.0)
    return cam, start, hanging, empty


def run(frames, later: str, in_shot: bool = True) -> tuple[VisionPipeline, list[float]]:
    """All five balls seen in the first frame; then R2 counted as pocketed at the
    foot-left pocket during the stroke being played, and ``later`` ('hanging' or
    'empty') shown for a while.  The pipeline and, per frame, the distance (mm) from
    the jaws to the nearest detection."""
    cam, start, hanging, empty = frames
    img = hanging if later == "hanging" else empty
    pipe = VisionPipeline(cam, PYR, "five-ball")
    res = pipe.process(Frame(0, 0.0, start))
    assert res.tracked.visible >= {"W1", "W2", "R1", "R2", "K"}
    tr = pipe.tracker
    tr.in_shot, tr.shot_start_t = in_shot, 0.0
    r2 = tr.tracks["R2"]
    r2.state, r2.pocket, r2.last_seen_t = "pocketed", "foot-left", 1 / FPS
    near = []
    for i in range(1, FRAMES + 1):
        d = pipe.process(Frame(i, i / FPS, img)).detections
        near.append(float(np.linalg.norm(d.xy_mm - JAWS_MM, axis=1).min()) if len(d) else 1e9)
    return pipe, near


def test_a_ball_hanging_in_the_jaws_takes_its_id_back(frames):
    pipe, near = run(frames, "hanging")
    r2 = pipe.tracker.tracks["R2"]
    assert r2.state == "table"
    assert np.linalg.norm(r2.xy - JAWS_MM) < 10.0
    # seen in every frame, not only when something changed there
    assert max(near[2:]) < 10.0


def test_an_empty_pocket_gives_no_ball_back(frames):
    pipe, near = run(frames, "empty")
    assert pipe.tracker.tracks["R2"].state == "pocketed"
    assert min(near) > 30.0


def test_the_mouth_is_watched_only_while_the_stroke_it_went_in_is_played(frames):
    pipe, _ = run(frames, "empty")
    tr = pipe.tracker
    assert not tr.in_shot  # the table came to rest: the stroke ended
    assert pipe._pocket_watch_boxes(9.0, every_frame=True) == []
    tr.in_shot, tr.shot_start_t = True, 0.0  # still being played
    assert len(pipe._pocket_watch_boxes(9.0, every_frame=True)) == 1
    # between two looks (every SETTLE_EVERY_S) only while a ball was just found there
    pipe._prev_t = 1.0
    assert pipe._pocket_watch_boxes(1.0 + SETTLE_EVERY_S / 4) == []
    assert len(pipe._pocket_watch_boxes(1.0 + SETTLE_EVERY_S / 4, every_frame=True)) == 1
    assert len(pipe._pocket_watch_boxes(1.0 + SETTLE_EVERY_S)) == 1
    tr.shot_start_t = 0.5  # a later stroke: R2 went in before it started
    assert pipe._pocket_watch_boxes(9.0, every_frame=True) == []
