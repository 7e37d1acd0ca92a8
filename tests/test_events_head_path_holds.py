"""A contact found by following a piece across samples a break skipped must not go where
the ball was seen not to be (vision/events.py ``EventExtractor._path_holds``).

LukasSeglias video_9 (a 15 fps camera in a 30 fps file: every other frame a repeat, the
ball hidden there): the cue ball's first sample after the stroke lay 280 mm from its
rest, a 7.8 m/s "first piece" over one frame; the next sample was a piece of its own,
and the break was taken from that first piece to the long piece after it.  Followed on
for 0.16 s, the first piece reached the foot-left jaw 1.2 m away, and a `cushion` was
reported there while the ball was seen 420 mm short of that way in between."""

from __future__ import annotations

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

FPS = 30.0
# the cue ball's way after the stroke, seen on every other frame (table mm)
WAY = {
    30: (630.0, 535.0),
    32: (725.0, 497.0),
    34: (895.0, 431.0),
    36: (1012.0, 385.0),
    38: (1127.0, 340.0),
    40: (1238.0, 296.0),
    42: (1348.0, 253.0),
    44: (1459.0, 210.0),
    46: (1562.0, 170.0),
    48: (1640.0, 140.0),
    50: (1690.0, 121.0),
    52: (1712.0, 113.0),
}
REST0, REST1 = (370.0, 635.0), (1718.0, 111.0)


def _frames() -> list[FrameObs]:
    frames = []
    for k in range(120):
        if k < 30:
            seen, hidden = {"W1": REST0}, frozenset()
        elif k in WAY:
            seen, hidden = {"W1": WAY[k]}, frozenset()
        elif k < 54:
            seen, hidden = {}, frozenset({"W1"})
        else:
            seen, hidden = {"W1": REST1}, frozenset()
        frames.append(FrameObs(k, k / FPS, seen, hidden))
    return frames


def test_a_first_piece_followed_past_the_seen_way_reports_no_jaw():
    ev = extract_events(_frames(), load_profile("snooker-lukasseglias"), "five-ball")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["W1"]
    early = [e for e in ev if e.type in ("cushion", "collision") and e.t < 1.5]
    assert early == []
