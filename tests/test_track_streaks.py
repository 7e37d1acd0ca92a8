"""Tracker rules for motion-blur streaks (a ball too fast to show a round rim)."""

from __future__ import annotations

import numpy as np

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0


def dets(frame: int, pts, blur=None, score=None) -> Detections:
    pts = np.asarray(pts, float).reshape(-1, 2)
    n = len(pts)
    streak = np.zeros(n, bool) if blur is None else np.abs(np.asarray(blur)).sum(1) > 0
    # as the pipeline classifies: round balls ivory, a streak uniform over the balls
    prob = np.where(streak[:, None], [[0.5, 0.5, 0.0]], [[1.0, 0.0, 0.0]])
    return Detections(
        frame,
        frame / FPS,
        np.zeros_like(pts),
        pts,
        np.full(n, 10.0),
        np.ones(n) if score is None else np.asarray(score, float),
        prob,
        ("ivory", "Y", "none"),
        blur_mm=None if blur is None else np.asarray(blur, float).reshape(n, 2),
    )


def still_table(tr: BallTracker, pts, frames: int = 5) -> None:
    for f in range(frames):
        tr.update(dets(f, pts))


def test_a_struck_ball_continues_into_a_streak_from_its_spot():
    tr = BallTracker(PROFILE, "free-pyramid")
    a, b = np.array([700.0, 800.0]), np.array([2000.0, 400.0])
    still_table(tr, [a, b])
    ball = next(k for k, t in tr.tracks.items() if np.allclose(t.xy, a, atol=1))
    # 8 m/s along +x: the next frame shows a streak 270 mm further, its axis through a
    step = 8000.0 / FPS
    half = [0.5 * 0.5 * step, 0.0]  # 1/60 s exposure: half of the frame's path, halved
    out = tr.update(dets(5, [a + [step, 0.0], b], blur=[half, [0, 0]], score=[0.5, 1.0]))
    assert np.allclose(out.positions[ball], a + [step, 0.0], atol=1)
    assert tr.tracks[ball].speed > 0.8 * 8000.0
    assert [e["cue_ball"] for e in out.events if e.type == "shot_start"] == [ball]
    # and follows it at that speed the frame after
    out = tr.update(dets(6, [a + [2 * step, 0.0], b], blur=[half, [0, 0]], score=[0.5, 1.0]))
    assert np.allclose(out.positions[ball], a + [2 * step, 0.0], atol=1)


def test_a_streak_off_every_ball_path_is_no_ball():
    tr = BallTracker(PROFILE, "free-pyramid")
    a, b = np.array([700.0, 800.0]), np.array([2000.0, 400.0])
    still_table(tr, [a, b])
    n_on = sum(t.on_table for t in tr.tracks.values())
    # an arm-like streak pointing nowhere near either ball, seen for a second
    for f in range(5, 35):
        out = tr.update(
            dets(f, [a, b, [1400.0, 1200.0]], blur=[[0, 0], [0, 0], [0.0, 90.0]], score=[1, 1, 0.5])
        )
        assert np.allclose(
            out.positions[next(iter(out.positions))], out.positions[next(iter(out.positions))]
        )
    assert sum(t.on_table for t in tr.tracks.values()) == n_on
    assert not [e for e in out.events if e.type == "ball_placed"]
    for t in tr.tracks.values():
        if t.on_table:
            assert min(np.linalg.norm(t.xy - a), np.linalg.norm(t.xy - b)) < 2


def test_a_kiss_of_two_crisp_balls_is_not_merged_as_a_streak():
    tr = BallTracker(PROFILE, "free-pyramid")
    a, b = np.array([1000.0, 800.0]), np.array([1300.0, 800.0])
    still_table(tr, [a, b])
    ids = {k: t.xy.copy() for k, t in tr.tracks.items() if t.on_table}
    ka = next(k for k, p in ids.items() if np.allclose(p, a, atol=1))
    kb = next(k for k, p in ids.items() if np.allclose(p, b, atol=1))
    v = 3000.0 / FPS
    pos = a.copy()
    f = 5
    while pos[0] + v < b[0] - 2 * R:
        pos = pos + [v, 0.0]
        tr.update(dets(f, [pos, b]))
        f += 1
    # the contact frame: both balls crisp, touching, lined up with the motion
    hit = b - [2.0 * R, 0.0]
    out = tr.update(dets(f, [hit, b + [5.0, 0.0]]))
    assert ka in out.visible and kb in out.visible
    assert np.linalg.norm(np.array(out.positions[ka]) - hit) < 2
    assert np.linalg.norm(np.array(out.positions[kb]) - (b + [5.0, 0.0])) < 2
