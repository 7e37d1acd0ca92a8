"""The lag (GR-8): two balls struck together from the house towards the foot cushion."""

from __future__ import annotations

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events
from luza.vision.shots import shot_records

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0


def frames(moves: dict[str, tuple[tuple[float, float], tuple[float, float], float]], still):
    """moves: ball -> (start, velocity mm/s, t0): decelerates uniformly to rest in 1 s."""
    out = []
    for k in range(int(3.5 * FPS)):
        t = k / FPS
        seen = dict(still)
        for b, ((x, y), (vx, vy), t0) in moves.items():
            s = min(max(t - t0, 0.0), 1.0)
            f = s - s * s / 2  # distance factor of a uniform stop in 1 s
            seen[b] = (x + vx * f, y + vy * f)
        out.append(FrameObs(k, t, seen))
    return out


def starts(ev):
    return [e for e in ev if e.type == "shot_start"]


def test_two_balls_from_the_house_to_the_foot_are_a_lag():
    L, W = PROFILE.length_mm, PROFILE.width_mm
    moves = {
        "Y": ((L / 4 - 100, W / 4), (1500.0, 0.0), 1.0),
        "1": ((L / 4 - 100, 3 * W / 4), (1500.0, 0.0), 1.05),
    }
    ev = extract_events(frames(moves, {}), PROFILE, "free-pyramid")
    ss = starts(ev)
    assert [e["cue_ball"] for e in ss] == ["Y", "1"]
    assert all(e.get("lag") for e in ss)
    assert "score" not in ev[0].data  # the lag comes before the rack: no take-up
    (rec,) = shot_records(ev, "free-pyramid")
    assert rec.lag


def test_a_ball_moving_near_the_head_as_a_stroke_starts_is_no_lag():
    # the stroke starts mid-table; something near the head (a hand, an invented ball)
    # moves at the same moment: that is not the two lag balls of GR-8
    L, W = PROFILE.length_mm, PROFILE.width_mm
    moves = {
        "Y": ((0.8 * L, W / 4), (-1500.0, 0.0), 1.0),
        "1": ((300.0, 3 * W / 4), (0.0, -250.0), 1.05),
    }
    ev = extract_events(frames(moves, {"5": (L / 2, W / 2)}), PROFILE, "free-pyramid")
    assert not any(e.get("lag") for e in starts(ev))
    assert starts(ev)[0]["cue_ball"] == "Y"
