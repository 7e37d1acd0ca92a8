"""A ball that crept into its rest leaves the rest's anchor (the mean of its first
samples) millimetres off where it came to lie; the noise alone must not then read as
the ball moving with nothing touching it (vision/events.py
``EventExtractor._left_its_rest``; dev fp-break/1946 at 30 fps: ball 7, still, flagged
``ball_moved`` 7.5 s after it stopped)."""

from __future__ import annotations

from events_helpers import frame_at

from luza.calibration.profiles import load_profile
from luza.vision.ball_paths import START_MM
from luza.vision.events import extract_events

FPS = 30.0
X0, Y0 = 1500.0, 900.0
CREEP_MM = 8.0  # over the first 30 samples: the anchor ends 4 mm short of the rest


def _frames(final_wiggle: list[float], shift_mm: float = 0.0):
    """Ball 1 creeping ``CREEP_MM`` in one second, still for 4 s, then ``final_wiggle``
    (mm along x, one sample a frame), then still ``shift_mm`` further on for 2 s; ball 2
    lies still far away all along."""
    frame = frame_at(FPS)
    xs = [X0 + CREEP_MM * k / 29 for k in range(30)]
    end = xs[-1]
    xs += [end] * 120 + [end + w for w in final_wiggle] + [end + shift_mm] * 60
    other = (600.0, 400.0)
    return [frame(k, {"1": (x, Y0), "2": other}) for k, x in enumerate(xs)]


def _moved(frames):
    profile = load_profile("pyramid-12ft")
    return [e for e in extract_events(frames, profile, "free-pyramid") if e.type == "ball_moved"]


def test_noise_over_a_crept_rest_is_no_move():
    # two samples 1.2 mm off where it lies: 5.2 mm from the anchor, inside the noise
    assert 0.5 * CREEP_MM + 1.2 > START_MM
    assert _moved(_frames([1.2, 1.2, 0.0, 0.0])) == []


def test_a_ball_pushed_off_its_rest_still_moved():
    way = [2.0 * k for k in range(1, 6)]  # 10 mm at 60 mm/s, slower than a stroke
    got = _moved(_frames(way, shift_mm=10.0))
    assert len(got) == 1 and got[0]["ball"] == "1"
