"""The synthetic clips and their truth: scenes do what they say, truth agrees with itself."""

from __future__ import annotations

import math

import numpy as np
import pytest

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import load_profile
from luza.cli import main
from luza.samples.scenes import SCENES, build_scene
from luza.samples.synth import ClipConfig, load_truth, make_clip
from luza.samples.video import read_frames

PYRAMID = load_profile("pyramid-12ft")


def _types(play, typ):
    return [e for e in play.timeline.events if e.type == typ]


@pytest.mark.parametrize(
    "scene, check",
    [
        ("fp-break", lambda p: len({e["ball"] for e in _types(p, "cushion")}) >= 3),
        ("fp-in-off", lambda p: any(e["ball"] != "7" for e in _types(p, "pocket"))),
        ("fp-jump", lambda p: _types(p, "off_table") and _types(p, "ball_placed")),
        ("fp-miss", lambda p: not _types(p, "collision")),
        ("fp-penalty", lambda p: len(_types(p, "ball_removed")) == 1),
        ("fp-respot", lambda p: len(_types(p, "ball_placed")) == 2),
        (
            "fb-kaisa-middle",
            lambda p: any(
                e["ball"] == "K" and e["pocket"].startswith("middle") for e in _types(p, "pocket")
            ),
        ),
        ("fb-luikka", lambda p: any(e["ball"] == "W1" for e in _types(p, "pocket"))),
    ],
)
def test_scene_does_what_it_says(scene, check):
    spec = SCENES[scene]
    play = build_scene(scene, load_profile(spec.table), seed=3)
    assert check(play), f"{scene}: {[e.to_dict() for e in play.timeline.events]}"


def test_respot_scene_places_on_the_rear_spot_line():
    """GR-25: respotted balls sit on the respot line behind the occupied rear spot."""
    play = build_scene("fp-respot", PYRAMID, seed=1)
    x_rear, y_axis = PYRAMID.spots["rear"]
    for e in _types(play, "ball_placed"):
        x, y = e["pos"]
        assert abs(y - y_axis) < 1e-6
        assert x >= x_rear + PYRAMID.ball_diameter_mm - 1e-6


def test_scenes_are_deterministic():
    a = build_scene("fp-in-off", PYRAMID, seed=5)
    b = build_scene("fp-in-off", PYRAMID, seed=5)
    assert [e.to_dict() for e in a.timeline.events] == [e.to_dict() for e in b.timeline.events]


@pytest.fixture(scope="module")
def small_clip(tmp_path_factory):
    out = tmp_path_factory.mktemp("clip")
    cfg = ClipConfig("fp-in-off", seed=2, size=(480, 270), fps=30.0)
    return make_clip(cfg, out)


def test_clip_and_truth_agree(small_clip):
    truth = load_truth(small_clip.truth)
    frames = list(read_frames(small_clip.video))
    assert len(frames) == truth["n_frames"] == len(truth["frames"])
    assert frames[0].shape == (270, 480, 3)
    # Every event's frame is the frame nearest its time.
    for e in truth["events"]:
        assert e["frame"] == round(e["t"] * truth["fps"])
        assert 0 <= e["frame"] < truth["n_frames"]
    # A pocketed ball is on the table before its pocket event and gone after it.
    for e in (e for e in truth["events"] if e["type"] == "pocket"):
        before = truth["frames"][max(0, e["frame"] - 3)]["balls"]
        after = truth["frames"][min(truth["n_frames"] - 1, e["frame"] + 10)]["balls"]
        assert e["ball"] in before and e["ball"] not in after


def test_truth_image_points_are_projections(small_clip):
    truth = load_truth(small_clip.truth)
    cam = CameraModel.from_dict(truth["camera"])
    nose = PYRAMID.cushion_nose_height_mm
    for name, xy in PYRAMID.bed_corners().items():
        px = cam.project(np.array(xy), nose)
        assert np.allclose(px, truth["image_points"]["bed_corners"][name], atol=1e-2)
    # The front spot is at L/4 on the long axis (TB-3) and inside the image.
    u, v = truth["image_points"]["spots"]["front"]
    assert 0 < u < 480 and 0 < v < 270


def test_balls_at_rest_look_like_balls(small_clip):
    """Where the truth says a ball rests, the frame is brighter than the cloth around it."""
    truth = load_truth(small_clip.truth)
    cam = CameraModel.from_dict(truth["camera"])
    R = PYRAMID.ball_radius_mm
    frame0 = next(iter(read_frames(small_clip.video))).astype(float).mean(axis=2)
    for _ball, xy in truth["frames"][0]["balls"].items():
        u, v = cam.project(np.array(xy), R)
        r = R / cam.mm_per_px(tuple(xy), R)
        inner = frame0[int(v), int(u)]
        ring = [
            frame0[int(v + 2.5 * r * math.sin(a)), int(u + 2.5 * r * math.cos(a))]
            for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
        ]
        assert inner > np.median(ring) + 10


def test_cli_synth_lists_and_refuses(capsys):
    assert main(["synth", "--list"]) == 0
    assert "fp-break" in capsys.readouterr().out
    assert main(["synth", "--scene", "no-such-scene", "--out", "/tmp/x"]) == 2
    assert "unknown scene" in capsys.readouterr().err
