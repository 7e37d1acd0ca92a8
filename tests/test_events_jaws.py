"""A ball falling into a pocket touches a jaw once: the fall is no second touch."""

from __future__ import annotations

from events_helpers import rolled_away

from luza.calibration.profiles import load_profile
from luza.vision.events import extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 60.0

# ball 7 of the scene fp-pots (seed 354) at 60 fps as the tracker gives it (noise of
# events_truth): struck at 1.7 m/s towards the foot-left pocket, it touches the jaw
# at (3522, 33) -- the physics' contacts at 12.220-12.247 s, three in 1.6 frames --
# then drops in (12.259 s) and is seen 5 more frames, 1 radius deep, its way bent
# by the fall: a break 5 frames after the touch, at the same jaw side
WAY = [
    (3115.1, 453.5), (3131.4, 434.9), (3154.6, 413.7), (3176.2, 394.6), (3193.2, 374.4),
    (3214.7, 352.0), (3235.4, 333.6), (3251.6, 313.7), (3270.2, 290.7), (3287.0, 275.7),
    (3301.0, 259.3), (3320.9, 237.7), (3337.6, 222.6), (3354.0, 208.0), (3369.2, 189.1),
    (3383.6, 171.6), (3402.4, 156.2), (3415.0, 138.3), (3429.6, 130.4), (3446.6, 111.8),
    (3460.6, 97.8), (3473.7, 79.2), (3488.1, 66.5), (3504.3, 54.2), (3518.7, 37.3),
    (3525.1, 19.3), (3540.0, 12.0), (3544.2, 3.7), (3547.5, 6.0), (3547.0, 2.7),
    (3549.7, -2.1), (3549.8, -0.4),
]  # fmt: skip


def test_a_ball_touching_a_jaw_and_falling_in_touched_it_once():
    frames = rolled_away("7", (3092.5, 477.5), WAY, (1000.0, 900.0), FPS)
    ev = extract_events(frames, PROFILE, "free-pyramid")
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("7", "foot-left")]
    jaws = [e for e in ev if e.type == "cushion"]
    # before: a second jaw:foot-left touch 5 frames later, 1 radius deep (the fall)
    assert [(e["ball"], e["cushion"]) for e in jaws] == [("7", "jaw:foot-left")]
    assert jaws[0]["pos"][1] > 25.0  # the touch at the jaw's mouth, not down in the pocket
