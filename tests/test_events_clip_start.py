"""A recording that begins just before the stroke: the cue ball still for less than a rest."""

from __future__ import annotations

from events_helpers import frame_at

from luza.calibration.profiles import load_profile
from luza.vision.ball_paths import REST_WINDOW_S
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0


frame = frame_at(FPS)


def test_a_ball_still_from_the_first_frame_a_moment_only_was_on_the_table():
    # (LukasSeglias video_12) the white is still for 6 frames (0.2 s, under a rest's
    # window), then rolls into the red: it was on the table at the start and is the cue
    # ball -- not a ball that came out of nowhere moving
    still = 6
    assert still / FPS < REST_WINDOW_S
    white0, red0 = (1000.0, 900.0), (1500.0, 900.0)
    v = 1000.0  # mm/s
    hit_k = still + round((500.0 - 2 * R) / v * FPS)
    frames = []
    for k in range(90):
        if k < still:
            w, r = white0, red0
        elif k <= hit_k:
            w, r = (white0[0] + v * (k - still + 1) / FPS, white0[1]), red0
        else:
            s = (k - hit_k) / FPS
            w = frames[hit_k].seen["Y"]
            r = (red0[0] + min(v * s, 400.0), red0[1])
        frames.append(frame(k, {"Y": w, "2": r}))
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert set(ev[0]["positions"]) == {"Y", "2"}
    assert not [e for e in ev if e.type == "ball_placed"]
    start = next(e for e in ev if e.type == "shot_start")
    assert start["cue_ball"] == "Y"
    assert [(e["a"], e["b"]) for e in ev if e.type == "collision"] == [("Y", "2")]
