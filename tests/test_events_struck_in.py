"""A still ball hit into a pocket between two images (a slow camera shows none of its way)."""

from __future__ import annotations

import numpy as np
from events_helpers import frame_at

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
FPS = 15.0  # LukasSeglias video_9's camera


frame = frame_at(FPS)


def scene(off_mouth_mm: float) -> list:
    """The white rolls into a red at rest ``off_mouth_mm`` in front of the foot-right
    corner's mouth; the red is last seen on its spot in the frame of the hit, hidden
    (in the hole) for a few frames, then gone; the white rolls off and stops."""
    pk = PROFILE.pockets()["foot-right"]
    mouth, inward = np.asarray(pk.mouth_centre), -np.asarray(pk.inward)  # onto the bed
    red0 = mouth + inward * (R + off_mouth_mm)
    white0 = red0 + inward * 600.0
    hit_k = 20  # the white reaches the red (centres two radii apart) in frame 20
    speed = (600.0 - 2 * R) * FPS / (hit_k - 10)
    frames = []
    for k in range(10):
        frames.append(frame(k, {"Y": white0, "2": red0}))
    for k in range(10, 21):
        t = (k - 10) / FPS
        d = speed * t
        frames.append(frame(k, {"Y": white0 - inward * d, "2": red0}))
    hit = frames[-1].seen["Y"]
    centre = np.array([PROFILE.length_mm / 2, PROFILE.width_mm / 2])
    away = (centre - hit) / np.linalg.norm(centre - hit)  # the white glances off to mid-table
    for k in range(21, 28):
        t = (k - hit_k) / FPS
        frames.append(frame(k, {"Y": hit + away * 700.0 * t}, hidden={"2"}))
    end = frames[-1].seen["Y"]
    frames += [frame(k, {"Y": end}) for k in range(28, 60)]
    return frames


def test_a_still_ball_beside_a_pocket_hit_and_gone_was_potted():
    ev = extract_events(scene(off_mouth_mm=20.0), PROFILE, "free-pyramid")
    assert [(e["a"], e["b"]) for e in ev if e.type == "collision"] == [("Y", "2")]
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("2", "foot-right")]
    assert not [e for e in ev if e.type == "ball_removed"]
    end = next(e for e in ev if e.type == "shot_end")
    assert "2" not in end["positions"]


def test_a_still_ball_far_from_a_pocket_that_vanishes_is_no_pot():
    ev = extract_events(scene(off_mouth_mm=400.0), PROFILE, "free-pyramid")
    assert not [e for e in ev if e.type == "pocket"]
