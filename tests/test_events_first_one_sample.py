"""A ball struck from rest into another within a frame or two is the stroke's cue ball.

Its first piece is one sample (the only one before the hit), which has no velocity of
its own, so the stroke was read as setting off at 0 mm/s; and the ball came back to
within a ball's width of where it lay.  A slow, short move between strokes is a nudge:
the stroke became a ball moved with nothing touching it (`ball_moved`), the struck ball
the shot's cue ball, and the first contact was lost (report set 2700-2799, fp-rally/2769
at 30 fps: 7 at 2 m/s into 12, which it pots).  The speed it set off at is now at least
the way from its rest to that sample over the time since it was last seen there.

Samples: balls 7, 12 and 8 of fp-rally (seed 2769) at 30 fps from 13.7 s to 16.5 s as
the tracker gives them (the noise of ``vision/events_truth.py``; "hidden": covered,
None: gone); the other balls are left out."""

from __future__ import annotations

from luza.calibration.profiles import load_profile
from luza.vision.events import FrameObs, extract_events

PROFILE = load_profile("pyramid-12ft")
FPS = 30.0
T0 = 13.7  # the scene's time of the first sample
WAY_7 = [
    (3217.7, 198.5), (3217.3, 199.2), (3217.9, 200.0), (3217.6, 199.1), (3216.8, 199.9),
    (3218.4, 199.1), (3216.6, 199.6), (3217.7, 200.6), (3216.3, 199.8), (3283.9, 174.5),
    (3360.6, 148.6), (3383.3, 165.0), (3400.7, 182.4), (3425.4, 197.7), (3447.4, 208.5),
    (3473.6, 223.9), (3500.6, 234.5), (3502.9, 240.4), (3483.8, 243.9), (3463.9, 246.9),
    (3446.1, 252.6), (3433.1, 253.8), (3417.2, 256.6), (3407.6, 256.8), (3395.8, 260.6),
    (3381.8, 264.1), (3370.3, 264.9), (3361.0, 267.8), (3350.0, 267.5), (3341.1, 271.0),
    (3327.7, 273.8), (3317.5, 275.4), (3304.7, 275.1), (3298.9, 275.6), (3294.7, 272.7),
    (3287.3, 270.0), (3284.0, 269.5), (3274.8, 266.1), (3269.3, 263.4), (3264.4, 262.8),
    (3261.2, 259.3), (3256.7, 257.8), (3250.8, 256.1), (3245.9, 253.2), (3241.8, 251.9),
    (3237.5, 248.9), (3232.7, 248.2), (3229.1, 247.9), "hidden", (3219.8, 243.3),
    (3216.9, 240.5), (3214.3, 240.0), (3210.1, 237.9), (3208.4, 238.3), (3204.1, 235.6),
    (3198.2, 235.0), (3196.4, 235.1), (3195.1, 233.0), (3190.3, 230.5), (3189.9, 231.6),
    (3188.2, 226.9), (3184.2, 229.4), (3183.3, 228.8), (3179.2, 226.2), (3179.7, 225.3),
    (3176.1, 223.1), (3173.6, 224.0), (3171.1, 221.5), (3171.2, 222.0), (3169.8, 221.2),
    (3165.6, 219.6), (3166.9, 220.3), (3165.8, 218.6), (3163.7, 219.1), (3163.7, 219.0),
    (3164.0, 219.1), (3163.0, 217.4), (3162.5, 218.0), (3160.5, 218.3), (3160.7, 215.8),
    (3162.3, 219.0), (3160.6, 217.8), (3160.2, 218.4), (3161.4, 217.6), (3160.2, 217.4),
]  # fmt: skip
# 12 pocketed: seen until its fall, covered 8 frames, then gone
WAY_12 = [
    (3418.5, 105.1), (3418.5, 108.3), (3418.0, 107.5), (3418.9, 107.2), (3419.2, 107.7),
    (3417.9, 106.4), (3418.8, 105.3), (3418.3, 106.6), (3417.2, 107.1), (3418.5, 106.1),
    (3419.2, 106.9), (3472.8, 67.0), (3525.0, 20.4), (3568.1, -22.1), (3566.2, -17.9),
    (3563.5, -16.4),
]  # fmt: skip
WAY_12 += ["hidden"] * 8 + [None] * (len(WAY_7) - len(WAY_12) - 8)
WAY_8 = [
    (3252.1, 325.8), (3252.0, 326.2), (3252.0, 326.1), (3251.9, 325.8), (3251.5, 324.7),
    (3252.6, 326.6), (3251.5, 326.3), (3253.1, 326.1), (3251.5, 326.5), (3251.9, 327.2),
    (3251.9, 326.0), (3252.4, 326.6), (3251.1, 324.7), (3251.9, 325.7), (3250.5, 327.0),
    (3251.4, 326.3), (3251.0, 325.7), (3252.4, 326.7), (3252.2, 326.4), (3252.7, 325.4),
    (3251.8, 325.9), (3251.9, 325.8), (3252.1, 325.0), (3251.8, 325.3), (3252.1, 326.5),
    (3252.6, 326.8), (3253.0, 324.7), (3252.6, 326.3), (3251.6, 325.6), (3249.3, 326.0),
    (3250.1, 326.0), (3251.8, 325.1), (3252.3, 327.0), (3248.1, 328.5), (3244.4, 332.4),
    (3238.8, 335.3), (3235.4, 339.7), (3230.9, 343.5), (3226.5, 349.7), (3222.4, 349.2),
    (3219.0, 356.0), (3215.6, 358.6), (3212.7, 360.4), (3208.5, 362.9), (3205.3, 365.6),
    (3202.9, 369.0), (3198.6, 372.5), (3196.2, 375.6), (3194.6, 378.6), (3189.7, 380.7),
    (3184.5, 381.6), (3185.1, 385.7), (3182.7, 388.3), (3177.8, 390.0), (3177.5, 392.1),
    (3175.1, 393.2), (3172.4, 396.4), (3169.7, 398.0), (3168.9, 401.1), (3165.7, 400.7),
    (3165.3, 401.5), (3162.2, 402.9), (3160.7, 404.1), (3159.8, 407.4), (3157.9, 409.1),
    (3157.1, 408.0), (3156.6, 408.9), (3155.9, 412.0), (3155.4, 413.0), (3153.7, 413.8),
    (3151.3, 412.6), (3149.6, 413.7), (3151.7, 413.8), (3151.5, 415.6), (3151.1, 417.1),
    (3149.6, 416.0), (3148.4, 416.2), (3148.5, 417.4), (3148.2, 414.8), (3149.3, 417.1),
    (3148.3, 416.7), (3150.2, 416.9), (3149.2, 417.5), (3148.4, 416.1), (3148.3, 417.8),
]  # fmt: skip


def _frames() -> list[FrameObs]:
    ways = {"7": WAY_7, "12": WAY_12, "8": WAY_8}
    frames = []
    n = len(WAY_7)
    for k in range(n + 30):  # then 1 s at rest where they stopped
        i = min(k, n - 1)
        seen = {b: w[i] for b, w in ways.items() if isinstance(w[i], tuple)}
        hidden = frozenset(b for b, w in ways.items() if w[i] == "hidden")
        frames.append(FrameObs(k, T0 + k / FPS, seen, hidden))
    return frames


def test_a_ball_struck_into_another_at_once_is_the_cue_ball():
    ev = extract_events(_frames(), PROFILE, "free-pyramid")
    starts = [e for e in ev if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["7"]
    assert abs(starts[0].t - 13.9715) <= 2.0 / FPS  # the truth's stroke
    assert not [e for e in ev if e.type == "ball_moved"]
    first = next(e for e in ev if e.type == "collision")
    assert {first["a"], first["b"]} == {"7", "12"}
    assert abs(first.t - 14.0351) <= 2.0 / FPS
    assert [(e["ball"], e["pocket"]) for e in ev if e.type == "pocket"] == [("12", "foot-left")]
