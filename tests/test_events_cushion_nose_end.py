"""A ball running along a cushion into a corner pocket meets the jaw, not the nose."""

from __future__ import annotations

from events_helpers import rolled_away

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0

# ball 7 of the scene fp-rally (seed 117) at 30 fps as the tracker gives it (noise of
# events_truth): at 1.6 m/s along the left-foot cushion, 1-2 mm off its contact line
# (y = 34) and closing on it at 0.2 m/s, into the foot-left pocket.  Its path meets
# that line at x ~ 3501, past the nose's end (x = 3496.7, where the jaw rounding takes
# over): the physics' contacts are all jaw:foot-left (29.050-29.073 s), then the pot
RESTING = (3235.6, 73.2)
WAY = [
    (3240.8, 73.0), (3299.0, 61.4), (3354.9, 56.8), (3402.2, 49.3), (3457.4, 40.3),
    (3502.7, 33.9), (3523.2, 26.9), (3525.0, 26.3), (3533.0, 18.8),
]  # fmt: skip


def test_a_ball_grazing_a_nose_into_the_corner_touches_the_jaw_only():
    frames = rolled_away("7", RESTING, WAY, (1000.0, 900.0), FPS)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("7", "foot-left")]
    touches = [e for e in ev if e.type == "cushion"]
    # before: a left-foot nose touch at (3491.5, 35.5), 1.5 mm short of the line
    assert [e["cushion"] for e in touches] == ["jaw:foot-left"]
    t_jaw = (40 + 5 + 0.5) / FPS  # between the samples at x = 3502.7 and 3523.2
    assert abs(touches[0].t - t_jaw) <= 1.0 / FPS
    assert touches[0]["pos"][0] > 3496.7  # past the nose's end


def test_a_ball_meeting_the_nose_before_its_end_touched_the_nose():
    # the same way moved 40 mm back along the table: the line is met on the nose
    other = (1000.0, 900.0)
    way = [(x - 40.0, y) for x, y in WAY[:6]]
    back = [(way[-1][0] + 50.0 * k, 34.0 + 12.0 * k) for k in range(1, 5)]
    frames = [FrameObs(k, k / FPS, {"7": RESTING, "3": other}) for k in range(40)]
    for i, p in enumerate(way + back):
        frames.append(FrameObs(40 + i, (40 + i) / FPS, {"7": p, "3": other}))
    n = len(frames)
    frames += [FrameObs(n + k, (n + k) / FPS, {"7": back[-1], "3": other}) for k in range(30)]
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [e["cushion"] for e in ev if e.type == "cushion"] == ["left-foot"]
