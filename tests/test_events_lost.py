"""Balls the tracker loses for a while: a pot seen once on the way, a striker unseen."""

from __future__ import annotations

from events_helpers import frame_at

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 30.0


frame = frame_at(FPS)


def test_a_ball_seen_once_on_its_way_to_a_pocket_then_lost_is_potted():
    # (sim_vs_reality_1) the cue ball hits the red 170 mm in front of the middle-right
    # pocket; the red is seen once, 40 mm on, then the tracker loses it (hidden, then
    # gone): its one-sample last piece has no velocity, its way from the anchor does
    mouth = PROFILE.pockets()["middle-right"].mouth_centre
    red0 = (mouth[0], mouth[1] - 170.0)
    white0 = (mouth[0], red0[1] - 300.0)
    frames = [frame(k, {"Y": white0, "2": red0}) for k in range(30)]
    frames.append(frame(30, {"2": red0}, hidden={"Y"}))  # the cue over the white
    hit_at = (mouth[0], red0[1] - 2 * R)
    frames.append(frame(31, {"Y": hit_at, "2": (red0[0], red0[1] + 40.0)}))
    frames += [frame(k, {"Y": hit_at}, hidden={"2"}) for k in range(32, 39)]
    frames += [frame(k, {"Y": hit_at}) for k in range(39, 60)]
    ev = extract_events(frames, PROFILE, "free-pyramid")
    pots = [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"]
    assert pots == [("2", "middle-right")]
    assert not [e for e in ev if e.type == "off_table"]


def test_a_ball_hit_while_its_striker_is_unseen_was_hit_by_it():
    # (video_13) the player's body hides the cue ball from the stroke until after it
    # hit the red: the red sets off with no ball seen near it; the white, seen again
    # past where it met the red, came from its rest straight through that place
    white0, red0 = (1000.0, 900.0), (1300.0, 905.0)
    frames = [frame(k, {"Y": white0, "2": red0}) for k in range(28)]
    for k in range(28, 42):
        t = (k - 33) / FPS
        red = red0 if k < 33 else (red0[0] + 600.0 * t, red0[1] + 10.0 * t)
        frames.append(frame(k, {"2": red}, hidden={"Y"}))
    for k in range(42, 90):
        t = (k - 33) / FPS
        s = min(t, 1.2)
        red = (red0[0] + 600.0 * s - 250.0 * s * s, red0[1] + 10.0 * s)
        white = (red0[0] - 2 * R + 25.0 + 60.0 * min(k - 42, 10) / FPS, red0[1] - 4.0)
        frames.append(frame(k, {"Y": white, "2": red}))
    ev = extract_events(frames, PROFILE, "free-pyramid")
    hits = [(e["a"], e["b"]) for e in ev if e.type == "collision"]
    assert hits == [("Y", "2")]
    assert not [e for e in ev if e.type == "ball_moved"]
    start = next(e for e in ev if e.type == "shot_start")
    assert start["cue_ball"] == "Y"
