"""What the renderer draws: hidden balls, occluders, the Five Ball dots, turning numbers,
motion blur (issue 2, part 4)."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.physics.state import BallPose
from luza.samples import people
from luza.samples.look import BLUE, Look, random_look
from luza.samples.render import Renderer

PROFILE = load_profile("pyramid-12ft")
L, W = PROFILE.size_mm
R = PROFILE.ball_radius_mm


@pytest.fixture(scope="module")
def straight():
    """1080p, camera straight above the centre, no distortion: crops are easy to read."""
    cam = CameraModel.looking_down(PROFILE.size_mm, (1920, 1080), height_mm=2500.0)
    return Renderer(PROFILE, cam, Look(noise=0.0, noise_floor=0.0), game="five-ball", seed=1)


@pytest.fixture(scope="module")
def tilted():
    cam = CameraModel.looking_down(
        PROFILE.size_mm,
        (1280, 720),
        height_mm=3000.0,
        dist=(-0.12, 0.02, 0, 0, 0),
        tilt_deg=(2.0, 1.0),
        roll_deg=1.0,
    )
    return Renderer(PROFILE, cam, BLUE, seed=2)


def _crop(r: Renderer, img: np.ndarray, x: float, y: float, half_px: int) -> np.ndarray:
    u, v = np.round(r.camera.project(np.array([x, y]), R)).astype(int)
    return img[v - half_px : v + half_px + 1, u - half_px : u + half_px + 1]


def test_background_is_deterministic_and_noise_free(tilted):
    a = tilted.background()
    b = tilted.background()
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    # The cloth is blue, the corners (floor) are dark.
    u, v = np.round(tilted.camera.project(np.array([L * 0.6, W * 0.4]))).astype(int)
    bgr = a[v, u].astype(int)
    assert bgr[0] > bgr[1] and bgr[0] > bgr[2]
    assert a[:5, :5].mean() < a[v - 2 : v + 3, u - 2 : u + 3].mean()


def test_noise_is_signal_dependent_and_varies_between_frames(tilted):
    f1 = tilted.render({}, t=0.0).astype(np.int16)
    f2 = tilted.render({}, t=1.0).astype(np.int16)
    bg = tilted.background().astype(np.int16)
    assert not np.array_equal(f1, f2)
    d = (f1 - bg).astype(np.float32)
    bright = bg.mean(axis=2) > 60
    dark = bg.mean(axis=2) < 15
    assert d[bright].std() > d[dark].std() > 0.0


def test_ball_off_the_table_is_not_drawn(straight):
    bg = straight.background()
    img = straight.render({"W1": BallPose(L / 2, W / 2, on_table=False)}, noise=False)
    assert np.array_equal(img, bg)
    img = straight.render({"W1": BallPose(L / 2, W / 2)}, noise=False)
    assert np.abs(img.astype(int) - bg).max() > 100


def test_ball_dropping_into_a_pocket_is_hidden_by_the_bed(straight):
    for name in ("middle-left", "head-left"):
        x, y = PROFILE.pockets()[name].centre
        cover = [
            straight.ball_coverage(BallPose(x, y, lift_mm=lift))[2].sum()
            for lift in (0.0, -40.0, -80.0, -130.0)
        ]
        # Deeper in the hole, more of it is behind the hole's rim and wall.
        assert cover[0] > cover[1] > cover[2] > cover[3]
        assert cover[3] < 0.8 * cover[0]
    sunk = straight.ball_coverage(BallPose(L / 2, W / 2, lift_mm=-R * 2 - 5.0))[2].sum()
    assert sunk == 0.0  # below the cloth on the open bed: invisible


def _ball_fraction_visible(r: Renderer, img: np.ndarray, pose: BallPose, ball_img: np.ndarray):
    """Fraction of the ball's silhouette that still looks like the unoccluded ball."""
    y0, x0, a = r.ball_coverage(pose)
    h, w = a.shape
    core = a > 0.99
    same = np.abs(img[y0 : y0 + h, x0 : x0 + w].astype(int) - ball_img[y0 : y0 + h, x0 : x0 + w])
    return float((same.max(axis=2)[core] < 25).mean())


def test_hand_over_a_ball_hides_it(straight):
    pos = (L * 0.6, W * 0.15)
    pose = BallPose(*pos)
    alone = straight.render({"R1": pose}, noise=False)
    occ = people.hand_at(PROFILE, pos, 0.0, 2.0, 1.0)  # the hand is over the ball mid-way
    assert occ
    img = straight.render({"R1": pose}, occluders=occ, noise=False)
    assert _ball_fraction_visible(straight, img, pose, alone) < 0.5
    # Outside its interval the hand is gone.
    assert people.hand_at(PROFILE, pos, 0.0, 2.0, 2.5) == []


def test_cue_and_bridge_arm_hide_a_ball_behind_the_cue_ball(straight):
    cue_ball = (L * 0.5, W * 0.5)
    angle = 0.0  # striking towards the foot: the cue and arm lie towards the head
    # The player stands at the head rail and leans over it (a rest carries the cue):
    # a ball near that rail on the stroke line is under his head and shoulders.
    hidden = BallPose(people.MAX_LEAN_MM - 250.0, cue_ball[1])
    far = BallPose(cue_ball[0] + 800.0, cue_ball[1])
    poses = {"W1": BallPose(*cue_ball), "R1": hidden, "R2": far}
    alone = straight.render(poses, noise=False)
    occ = people.cue_for_strike(PROFILE, cue_ball, angle, t_strike=1.0, t=0.5)
    img = straight.render(poses, occluders=occ, noise=False)
    assert _ball_fraction_visible(straight, img, hidden, alone) < 0.3
    assert _ball_fraction_visible(straight, img, far, alone) > 0.9
    # The renderer's own visibility truth agrees.
    vis = straight.visibility(poses, occ)
    assert vis["R1"] < 0.1 and vis["R2"] == pytest.approx(1.0)
    assert straight.visibility(poses) == {"W1": 1.0, "R1": 1.0, "R2": 1.0}
    # The cue tip is just behind the cue ball, on the stroke line.
    tip = occ[0]
    assert tip.p0[0] < cue_ball[0] - R and abs(tip.p0[1] - cue_ball[1]) < 1e-6


def test_cue_moves_through_the_strike():
    ball = (1000.0, 800.0)

    def tip_x(t):
        return people.cue_for_strike(PROFILE, ball, 0.0, 2.0, t, with_player=False)[0].p0[0]

    back = tip_x(1.8)  # drawn back before the stroke
    contact = tip_x(2.0)
    through = tip_x(2.12)
    assert back < contact < through
    assert contact == pytest.approx(ball[0] - R, abs=1.0)
    assert through > ball[0]  # the tip follows through where the ball was
    assert people.cue_for_strike(PROFILE, ball, 0.0, 2.0, 5.0) == []


def _dark_blobs(crop: np.ndarray, ball_mask: np.ndarray) -> int:
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    body = np.median(g[ball_mask])
    ink = ((g < 0.6 * body) & ball_mask).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 2)


def test_w1_has_one_dot_and_w2_two(straight):
    # Off the camera's axis, so the lamps' reflections are not on the top pole's mark.
    pos = (L * 0.45, W * 0.25)
    counts = {}
    for ball in ("W1", "W2"):
        img = straight.render({ball: BallPose(*pos)}, noise=False)
        y0, x0, a = straight.ball_coverage(BallPose(*pos))
        h, w = a.shape
        crop = img[y0 : y0 + h, x0 : x0 + w]
        mask = cv2.erode((a > 0.99).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        counts[ball] = _dark_blobs(crop, mask)
    assert counts == {"W1": 1, "W2": 2}


def test_red_and_kaisa_colours(straight):
    x, y = L / 2, W / 2
    red = _crop(straight, straight.render({"R1": BallPose(x, y)}, noise=False), x, y, 4)
    kaisa = _crop(straight, straight.render({"K": BallPose(x, y)}, noise=False), x, y, 4)
    b, g, r = red.reshape(-1, 3).mean(0)
    assert r > 1.5 * g and r > 1.5 * b
    b, g, r = kaisa.reshape(-1, 3).mean(0)
    assert r > 1.5 * b and g > 1.5 * b


@pytest.fixture(scope="module")
def matte():
    """Straight above, balls without lamp reflections: only the print is dark or bright."""
    cam = CameraModel.looking_down(PROFILE.size_mm, (1920, 1080), height_mm=2500.0)
    look = Look(noise=0.0, noise_floor=0.0, ball_gloss=0.0)
    return Renderer(PROFILE, cam, look, seed=1)


def _ink_mask(r: Renderer, rot: np.ndarray) -> np.ndarray:
    """Dark print inside the ball, in a square crop centred on the ball's image."""
    pose = BallPose(L / 2, W / 2, rotation=rot)
    img = r.render({"7": pose}, noise=False)
    u, v = np.round(r.camera.project(np.array([L / 2, W / 2]), R)).astype(int)
    half = 20
    crop = img[v - half : v + half + 1, u - half : u + half + 1]
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    yy, xx = np.mgrid[-half : half + 1, -half : half + 1]
    r_px = r.camera.K[0, 0] * R / (r.camera.tvec[2] - R)
    inner = xx**2 + yy**2 < (r_px - 2.0) ** 2
    return (g < 0.6 * np.median(g[inner])) & inner


def test_number_turns_with_the_rotation(matte):
    straight = matte
    base = _ink_mask(straight, np.eye(3))
    assert base.sum() > 10  # the 7 is printed on the top pole
    quarter = cv2.Rodrigues(np.array([0.0, 0.0, math.pi / 2]))[0]  # about the vertical
    turned = _ink_mask(straight, quarter)
    # x -> y in the table is a clockwise quarter turn in the image (y points down).
    expected = np.rot90(base, k=-1)

    def iou(a, b):
        return (a & b).sum() / max(1, (a | b).sum())

    assert iou(turned, expected) > 0.4
    assert iou(turned, expected) > iou(turned, base) + 0.2
    # Rolled half a turn: the other pole's 7 comes up (both sides are printed).
    flipped = _ink_mask(straight, cv2.Rodrigues(np.array([math.pi, 0.0, 0.0]))[0])
    assert flipped.sum() > 10
    # A quarter roll shows the plain side.
    side = _ink_mask(straight, cv2.Rodrigues(np.array([math.pi / 2, 0.0, 0.0]))[0])
    assert side.sum() < 0.3 * base.sum()


def test_exposure_of_still_balls_equals_a_plain_render(tilted):
    poses = {"Y": BallPose(800.0, 700.0), "3": BallPose(2500.0, 900.0)}
    a = tilted.render(poses, noise=False)
    b = tilted.render_exposure(lambda t: poses, 0.0, 1 / 60, n_sub=6, noise=False)
    assert np.array_equal(a, b)


def test_motion_blur_smears_a_moving_ball(tilted):
    speed = 3000.0  # mm/s

    def pose_fn(t):
        return {"Y": BallPose(1000.0 + speed * t, 800.0), "3": BallPose(2500.0, 900.0)}

    bg = tilted.background().astype(int)
    sharp = tilted.render(pose_fn(1 / 120), noise=False).astype(int)
    blurred = tilted.render_exposure(pose_fn, 0.0, 1 / 60, n_sub=8, noise=False).astype(int)

    def extent(img):
        d = np.abs(img - bg).max(axis=2)
        u, v = np.round(tilted.camera.project(np.array([1000.0 + speed / 120, 800.0]), R))
        row = d[int(v), int(u) - 40 : int(u) + 40]
        return int((row > 20).sum()), int(row.max())

    w_sharp, peak_sharp = extent(sharp)
    w_blur, peak_blur = extent(blurred)
    assert w_blur > w_sharp + 5  # 50 mm of travel during the exposure
    # The still ball is the same in both.
    u, v = np.round(tilted.camera.project(np.array([2500.0, 900.0]), R)).astype(int)
    assert np.array_equal(
        sharp[v - 8 : v + 9, u - 8 : u + 9], blurred[v - 8 : v + 9, u - 8 : u + 9]
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_looks_are_plausible(seed):
    look = random_look(np.random.default_rng(seed))
    assert look.brightness > 0.0 and 0.0 <= look.vignetting < 1.0
    assert len(look.lamps) >= 3
    assert all(0.0 <= c <= 1.0 for c in look.cloth_rgb)
    assert look != random_look(np.random.default_rng(seed + 100))


@pytest.mark.parametrize("cushion", ["head", "foot", "left-head", "right-foot"])
def test_cushion_nose_seen_at_its_true_height(tilted, cushion):
    """Just outside the nose line (projected at the nose height) the camera sees the
    cushion at >= the nose height; just inside (projected on the cloth), the bed."""
    c = PROFILE.cushions()[cushion]
    nose = PROFILE.cushion_nose_height_mm
    a, b, nrm = np.array(c.a), np.array(c.b), np.array(c.normal)
    for u in (0.2, 0.5, 0.8):
        p = a + (b - a) * u
        out_px = tilted.camera.project(p - nrm * 2.0, nose)
        in_px = tilted.camera.project(p + nrm * 2.0, 0.0)
        # One pixel further out / in, so rounding to a pixel cannot cross the edge.
        step = (out_px - in_px) / max(np.linalg.norm(out_px - in_px), 1e-9)
        h_out = tilted.surface_at(out_px + step)[0, 2]
        h_in = tilted.surface_at(in_px - step)[0, 2]
        assert nose - 0.5 <= h_out <= nose + 15.0
        assert abs(h_in) < 0.5


@pytest.mark.parametrize("name", ["kaisa-10ft", "pool-uk-7ft", "snooker-lukasseglias"])
def test_other_tables_render(name):
    profile = load_profile(name)
    cam = CameraModel.looking_down(profile.size_mm, (320, 180), height_mm=2800.0)
    r = Renderer(profile, cam, random_look(np.random.default_rng(1)), seed=0)
    Lp, Wp = profile.size_mm
    img = r.render({"W1": BallPose(Lp / 2, Wp / 3)}, noise=False)
    assert img.shape == (180, 320, 3)
    assert np.abs(img.astype(int) - r.background()).max() > 60


def test_bad_set_up_is_a_luza_error():
    from luza.errors import LuzaError

    cam = CameraModel.looking_down(PROFILE.size_mm, (320, 180))
    with pytest.raises(LuzaError):
        Renderer(PROFILE, cam, game="snooker")


def test_cue_pushed_through_the_strike_is_blurred(tilted):
    cb = (1200.0, 900.0)

    def occ(t):
        return people.cue_for_strike(PROFILE, cb, 0.0, 0.1, t, with_player=False)

    poses = {"Y": BallPose(*cb)}

    def frame(n_sub):
        return tilted.render_exposure(
            lambda t: poses, 0.05, 1 / 60, n_sub, occluders_fn=occ, noise=False
        )

    blurred, sharp = frame(8), frame(1)
    # The tip moves ~25 mm during the exposure, along the cue (the image x axis here):
    # its edge, a sharp step in a single sub-frame, is spread out.
    (ua, v), (ub, _) = np.round(
        tilted.camera.project(np.array([[cb[0] - 150.0, cb[1]], [cb[0] - 45.0, cb[1]]]), 40.0)
    ).astype(int)

    def steepest(img):
        row = img[v, ua:ub].astype(float).mean(axis=1)
        return float(np.abs(np.diff(row)).max())

    assert steepest(blurred) < 0.7 * steepest(sharp)


def test_touching_balls_shade_each_other(straight):
    a = BallPose(L * 0.4, W * 0.3)
    b = BallPose(L * 0.4 + 2 * R, W * 0.3)  # touching on the +x side
    alone = straight.render({"1": a}, noise=False).astype(int)
    pair = straight.render({"1": a, "2": b}, noise=False).astype(int)
    # Sample ball 1 just inside its rim, towards ball 2 (by the contact) and away from it.
    y0, x0, cov = straight.ball_coverage(a)
    u, v = straight.camera.project(np.array([a.x_mm, a.y_mm]), R)
    r_px = np.sqrt(cov.sum() / np.pi)
    near = (int(round(v)), int(round(u + 0.9 * r_px)))
    far = (int(round(v)), int(round(u - 0.9 * r_px)))
    assert pair[near].sum() < alone[near].sum() - 15
    assert abs(pair[far].sum() - alone[far].sum()) <= 3


def test_look_round_trips_through_a_dict():
    import dataclasses
    import json

    from luza.samples.look import look_from_dict

    look = random_look(np.random.default_rng(9))
    d = json.loads(json.dumps(dataclasses.asdict(look)))
    assert look_from_dict(d) == look


_OVERLAP_SCRIPT = """
import hashlib
import numpy as np
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.physics.state import BallPose
from luza.samples.look import Look
from luza.samples.render import Renderer
prof = load_profile("pyramid-12ft")
cam = CameraModel.looking_down(prof.size_mm, (320, 180), height_mm=2500.0)
rend = Renderer(prof, cam, Look(noise=0.0, noise_floor=0.0), game="five-ball", seed=1)
ids = ["W1", "W2", "R1", "R2", "K", "1", "2", "3"]
def pose_at(t):
    # eight balls rolling through one spot: they overlap in every sub-frame
    return {b: BallPose(1800.0 + (t - 0.008) * 3000.0 * np.cos(k), 900.0
                        + (t - 0.008) * 3000.0 * np.sin(k), 0.0, np.eye(3))
            for k, b in enumerate(ids)}
img = rend.render_exposure(pose_at, 0.0, 1 / 60, n_sub=6, noise=False)
print(hashlib.sha256(img.tobytes()).hexdigest())
"""


def test_motion_blur_is_the_same_in_every_process():
    """Balls that overlap in a sub-frame are drawn in a fixed order: rendered in
    processes with different string hashing, the frame is the same (the ball ids were a
    set, and the white-dots model's training crops differed from run to run)."""
    digests = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", _OVERLAP_SCRIPT], env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        digests.add(out.stdout.strip())
    assert len(digests) == 1
