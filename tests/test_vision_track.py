"""Tracker: physics prediction, identities among identical balls, hidden balls, pots."""

from __future__ import annotations

import numpy as np
import pytest

from luza.calibration.profiles import load_profile
from luza.vision.detections import Detections
from luza.vision.track import BallTracker, MotionModel

PROFILE = load_profile("pyramid-12ft")
R = PROFILE.ball_radius_mm
L, W = PROFILE.size_mm
FPS = 60.0


def dets(frame: int, pts, labels=None, game="free-pyramid") -> Detections:
    pts = np.asarray(pts, float).reshape(-1, 2)
    d = Detections(
        frame, frame / FPS, np.zeros_like(pts), pts, np.full(len(pts), 10.0), np.ones(len(pts))
    )
    if labels is not None:
        classes = ("ivory", "Y") if game == "free-pyramid" else ("W1", "W2", "red", "K")
        d.classes = classes
        d.cls_prob = np.array([[1.0 if c == lab else 0.0 for c in classes] for lab in labels])
    return d


def test_rolling_ball_slows_and_stops():
    m = MotionModel(PROFILE)
    p, v = m.predict(np.array([500.0, 900.0]), np.array([1000.0, 0.0]), 0.5)
    decel = PROFILE.physics["mu_roll"] * 9810.0
    assert v[0] == pytest.approx(1000.0 - decel * 0.5, rel=1e-6)
    assert p[0] == pytest.approx(500 + 1000 * 0.5 - 0.5 * decel * 0.25, rel=1e-6)
    p, v = m.predict(np.array([500.0, 900.0]), np.array([300.0, 0.0]), 30.0)
    assert np.allclose(v, 0.0)
    assert p[0] == pytest.approx(500 + 300**2 / (2 * decel), rel=1e-3)


def test_cushion_reflection_keeps_the_ball_on_the_bed():
    m = MotionModel(PROFILE)
    p, v = m.predict(np.array([1000.0, W - 100.0]), np.array([0.0, 2000.0]), 0.1)
    assert p[1] <= W - R + 1e-6
    assert v[1] < 0, "bounced back"
    assert abs(v[1]) < 2000 * PROFILE.physics["e_cushion"] + 1e-6


def test_predict_all_struck_ball_sets_the_other_in_motion():
    m = MotionModel(PROFILE)
    xy = np.array([[1000.0, 800.0], [1000.0 + 2 * R + 20.0, 800.0]])
    v = np.array([[3000.0, 0.0], [0.0, 0.0]])
    P, V, pairs = m.predict_all(xy, v, 1 / 30)
    assert pairs == [(0, 1)]
    assert V[1, 0] > 2500 and abs(V[0, 0]) < 300, "a full hit passes the speed on"


def _rack_positions():
    return np.array(PROFILE.rack_positions())


def test_rack_ids_are_rack_order_and_stay_put_with_jitter():
    rack = _rack_positions()
    y0 = np.array([L / 4, W / 2])
    tr = BallTracker(PROFILE, "free-pyramid")
    rng = np.random.default_rng(1)
    labels = ["ivory"] * 15 + ["Y"]
    out = None
    for f in range(30):
        order = rng.permutation(16)  # detections come in any order
        pts = np.vstack([rack, y0])[order] + rng.normal(0, 1.0, (16, 2))
        out = tr.update(dets(f, pts, [labels[i] for i in order]))
    for k in range(15):
        assert np.linalg.norm(np.array(out.positions[str(k + 1)]) - rack[k]) < 1.5
    assert np.linalg.norm(np.array(out.positions["Y"]) - y0) < 1.5
    assert out.events == []


def test_identical_balls_passing_close_keep_their_ids():
    """Two ivory balls cross paths 1.2 diameters apart, at 3 m/s, 60 fps."""
    tr = BallTracker(PROFILE, "free-pyramid")
    a0, b0 = np.array([800.0, 800.0]), np.array([2400.0, 800.0 + 2.4 * R])
    va, vb = np.array([3000.0, 0.0]), np.array([-3000.0, 0.0])
    tr.update(dets(0, [a0, b0], ["ivory", "ivory"]))
    ida = min(tr.tracks.values(), key=lambda t: np.linalg.norm(t.xy - a0) if t.on_table else 1e9)
    idb = min(tr.tracks.values(), key=lambda t: np.linalg.norm(t.xy - b0) if t.on_table else 1e9)
    assert ida.ball != idb.ball
    for f in range(1, 30):
        t = f / FPS
        pa, pb = a0 + va * t, b0 + vb * t
        out = tr.update(dets(f, [pb, pa], ["ivory", "ivory"]))
        assert np.linalg.norm(np.array(out.positions[ida.ball]) - pa) < 10.0
        assert np.linalg.norm(np.array(out.positions[idb.ball]) - pb) < 10.0


def test_a_hidden_ball_is_kept_and_found_again():
    tr = BallTracker(PROFILE, "five-ball")
    pts = [[500.0, 500.0], [1500.0, 900.0], [2000.0, 300.0], [2500.0, 1200.0], [3000.0, 700.0]]
    labels = ["W1", "W2", "red", "red", "K"]
    for f in range(5):
        tr.update(dets(f, pts, labels, "five-ball"))
    red_id = next(b for b in ("R1", "R2") if np.allclose(tr.tracks[b].xy, pts[2], atol=2))
    for f in range(5, 120):  # two seconds under a hand
        out = tr.update(
            dets(
                f,
                [p for i, p in enumerate(pts) if i != 2],
                [lab for i, lab in enumerate(labels) if i != 2],
                "five-ball",
            )
        )
        assert red_id in out.positions and red_id not in out.visible
    assert not any(e.type in ("off_table", "pocket") for e in out.events)
    out = tr.update(dets(120, pts, labels, "five-ball"))
    assert red_id in out.visible
    assert np.allclose(out.positions[red_id], pts[2], atol=2)


def test_a_ball_vanishing_into_a_pocket_is_pocketed():
    tr = BallTracker(PROFILE, "five-ball")
    pocket = PROFILE.pockets()["foot-right"]
    target = np.array(pocket.mouth_centre)
    start = target - np.array(pocket.inward) * 600.0
    v = np.array(pocket.inward) * 1500.0
    other = [[500.0, 500.0]]
    events = []
    f = 0
    for f in range(60):
        p = start + v * f / FPS
        if np.dot(p - target, pocket.inward) > 0:
            break
        out = tr.update(dets(f, [p, *other], ["K", "W1"], "five-ball"))
        events += out.events
    for g in range(f, f + 40):
        out = tr.update(dets(g, other, ["W1"], "five-ball"))
        events += out.events
    pots = [e for e in events if e.type == "pocket"]
    assert len(pots) == 1 and pots[0]["ball"] == "K" and pots[0]["pocket"] == "foot-right"
    assert "K" not in out.positions


def test_clutter_never_becomes_a_ball_and_a_respot_is_placed():
    tr = BallTracker(PROFILE, "free-pyramid")
    pts = [[1000.0, 800.0], [2000.0, 600.0]]
    tr.update(dets(0, pts, ["ivory", "Y"]))
    n_on = sum(t.on_table for t in tr.tracks.values())
    out = tr.update(dets(1, [*pts, [1500.0, 300.0]], ["ivory", "Y", "ivory"]))  # one frame
    out = tr.update(dets(2, pts, ["ivory", "Y"]))
    assert sum(t.on_table for t in tr.tracks.values()) == n_on
    # a ball placed by hand (an id that was not on the table) and staying there
    events = []
    for f in range(3, 40):  # over half a second
        out = tr.update(dets(f, [*pts, [1500.0, 300.0]], ["ivory", "Y", "ivory"]))
        events += out.events
    placed = [e for e in events if e.type == "ball_placed"]
    assert len(placed) == 1 and placed[0]["pos"] == pytest.approx([1500.0, 300.0], abs=1)
    assert sum(t.on_table for t in tr.tracks.values()) == n_on + 1


def test_whites_are_swapped_when_the_dots_say_so():
    """The first frame calls the whites the wrong way round; the dots of later frames win."""
    tr = BallTracker(PROFILE, "five-ball")
    a, b = [800.0, 600.0], [2500.0, 1100.0]  # a is really W1, b is W2
    others = [[1500.0, 300.0], [1600.0, 1400.0], [3000.0, 900.0]]
    pts = [a, b, *others]
    tr.update(dets(0, pts, ["W2", "W1", "red", "red", "K"], "five-ball"))  # wrong
    assert np.allclose(tr.tracks["W1"].xy, b)
    rng = np.random.default_rng(3)
    for f in range(1, 40):
        # new views (the balls jitter a little, the CNN's numbers too), soft correct
        # evidence: about 80 % for the right one
        jit = np.array(pts) + rng.normal(0, 0.5, (5, 2))
        d = dets(f, jit, ["W1", "W2", "red", "red", "K"], "five-ball")
        d.cls_prob[0, :2] = [0.8, 0.2] + rng.normal(0, 0.01, 2)
        d.cls_prob[1, :2] = [0.2, 0.8] + rng.normal(0, 0.01, 2)
        out = tr.update(d)
    assert np.allclose(out.positions["W1"], a, atol=2)
    assert np.allclose(out.positions["W2"], b, atol=2)


def test_one_misread_view_carried_over_many_frames_does_not_swap_the_whites():
    """The pipeline carries a still ball's detection (its class row included) while its
    pixels do not change; one view repeated is one view, not hundreds of them."""
    tr = BallTracker(PROFILE, "five-ball")
    a, b = np.array([800.0, 600.0]), np.array([2500.0, 1100.0])  # a is W1, b is W2
    red, k = np.array([1500.0, 300.0]), np.array([3000.0, 900.0])
    rng = np.random.default_rng(5)
    red2 = np.array([600.0, 1300.0])
    v_red = np.array([900.0, 0.0])  # a red rolls on meanwhile: frames are never unchanged
    for f in range(40):
        pts = [a, b, red, red2 + v_red * f / FPS, k]
        jit = np.array(pts) + rng.normal(0, 0.5, (5, 2))
        d = dets(f, jit, ["W1", "W2", "red", "red", "K"], "five-ball")
        if f < 10:  # fresh views, soft but right
            d.cls_prob[0, :2] = [0.7, 0.3] + rng.normal(0, 0.01, 2)
            d.cls_prob[1, :2] = [0.3, 0.7] + rng.normal(0, 0.01, 2)
            seen = d
        else:  # then one view, both whites read the wrong way, carried for 30 frames
            if f == 10:
                seen = d
                seen.cls_prob[0, :2] = [0.1, 0.9]
                seen.cls_prob[1, :2] = [0.9, 0.1]
            d.xy_mm[:2] = seen.xy_mm[:2]
            d.cls_prob[:2] = seen.cls_prob[:2]
        out = tr.update(d)
    assert np.allclose(out.positions["W1"], a, atol=2)
    assert np.allclose(out.positions["W2"], b, atol=2)


def test_two_reds_passing_each_other_unseen_keep_their_ids():
    """Two look-alike balls roll past each other (almost head-on, 10 mm apart) and go
    unseen for 4 frames as they pass: each is found again ahead of where it was lost
    (it rolls on unseen), not taken for the other."""
    tr = BallTracker(PROFILE, "five-ball")
    tr.occluded = lambda xy: False
    decel = PROFILE.physics["mu_roll"] * 9810.0
    speed = 2500.0
    c1 = np.array([0.5 * L, 0.5 * W])
    c2 = c1 + [0.0, 2 * R + 10.0]
    u1 = np.array([1.0, 0.0])
    u2 = np.array([np.cos(np.radians(170)), np.sin(np.radians(170))])
    t_c = (speed - np.sqrt(speed**2 - 2 * decel * 500.0)) / decel  # 500 mm to the pass
    others = [[300.0, 300.0], [L - 300.0, W - 300.0], [300.0, W - 300.0]]
    rng = np.random.default_rng(2)
    start = 0.4

    def truth(t):
        tt = min(max(t - start, 0.0), speed / decel)
        s = speed * tt - 0.5 * decel * tt * tt - 500.0
        return c1 + s * u1, c2 + s * u2

    ids = None
    for f in range(int((start + t_c + 0.4) * FPS)):
        t = f / FPS
        p1, p2 = truth(t)
        pts, labels = list(others), ["W1", "W2", "K"]
        if abs(t - start - t_c) >= 2 / FPS:
            pts += [p1, p2]
            labels += ["red", "red"]
        out = tr.update(
            dets(f, np.array(pts) + rng.normal(0, 0.7, (len(pts), 2)), labels, "five-ball")
        )
        if ids is None:
            ids = sorted(("R1", "R2"), key=lambda b: np.linalg.norm(tr.tracks[b].xy - p1))
    assert np.linalg.norm(np.subtract(out.positions[ids[0]], p1)) < 30
    assert np.linalg.norm(np.subtract(out.positions[ids[1]], p2)) < 30


def test_rack_balls_the_detector_missed_are_kept_hidden_in_their_slots():
    """Two of the tight rack's balls are not detected at the start: they are there all
    the same, numbered in rack order, and found in place when seen."""
    rack = _rack_positions()
    y0 = np.array([L / 4, W / 2])
    missing = [4, 7]
    seen = [k for k in range(15) if k not in missing]
    tr = BallTracker(PROFILE, "free-pyramid")
    tr.occluded = lambda xy: True  # the missed balls' spots are not plain cloth
    pts = np.vstack([rack[seen], y0])
    out = tr.update(dets(0, pts, ["ivory"] * len(seen) + ["Y"]))
    for k in range(15):
        assert np.linalg.norm(np.array(out.positions[str(k + 1)]) - rack[k]) < 1.0
    assert {str(k + 1) for k in missing}.isdisjoint(out.visible)
    for f in range(1, 20):
        out = tr.update(dets(f, pts, ["ivory"] * len(seen) + ["Y"]))
    assert len(out.positions) == 16 and not out.events
    out = tr.update(dets(20, np.vstack([rack, y0]), ["ivory"] * 15 + ["Y"]))
    assert {str(k + 1) for k in missing} <= out.visible
