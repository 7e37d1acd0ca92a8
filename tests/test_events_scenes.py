"""The event stage on physics-played scenes sampled like the tracker (noise, misses, hands)."""

from __future__ import annotations

import pytest

from luza.calibration.profiles import load_profile
from luza.samples.scenes import SCENES, build_scene
from luza.vision.events import LOW_CONFIDENCE, extract_events
from luza.vision.events_truth import Noise, sample_scene, score
from luza.vision.shots import shot_records

PROFILE = load_profile("pyramid-12ft")


def run(name: str, seed: int, fps: float):
    play = build_scene(name, PROFILE, seed)
    frames, truth = sample_scene(play, fps, Noise(seed=seed))
    events = extract_events(frames, PROFILE, SCENES[name].game)
    return play, truth, events


def of(events, typ):
    return [e for e in events if e.type == typ]


@pytest.mark.parametrize("fps", [30.0, 60.0])
def test_red_pot_first_contact_and_record(fps):
    play, truth, ev = run("fb-red", 3, fps)
    want = of(truth, "pocket")[0]
    pots = of(ev, "pocket")
    assert [(p["ball"], p["pocket"]) for p in pots] == [(want["ball"], want["pocket"])]
    # the stream is one the rules accept, and its record names the cue ball and first contact
    recs = shot_records(ev, "five-ball")
    assert len(recs) == 1
    assert recs[0].cue_ball == of(truth, "shot_start")[0]["cue_ball"]
    col_t = of(truth, "collision")[0]
    col = of(ev, "collision")[0]
    assert {col["a"], col["b"]} == {col_t["a"], col_t["b"]}
    assert abs(col.t - col_t.t) <= 2.0 / fps
    sc = score(truth, ev, fps, "fb-red", play.timeline)
    assert sc.tallies["pocket"].tp == 1 and sc.tallies["pocket"].fp == 0
    assert sc.shots_found == 1 and sc.first_right == 1


def test_jump_gives_off_table_and_respot_is_placed():
    play, truth, ev = run("fp-jump", 1, 60.0)
    off = of(truth, "off_table")[0]
    got = of(ev, "off_table")
    assert [e["ball"] for e in got] == [off["ball"]]
    placed = of(ev, "ball_placed")
    assert [e["ball"] for e in placed] == [of(truth, "ball_placed")[0]["ball"]]
    assert placed[0].t > of(ev, "shot_end")[0].t  # a hand event comes between strokes
    shot_records(ev, "free-pyramid")


def test_penalty_ball_removed_by_hand():
    play, truth, ev = run("fp-penalty", 2, 30.0)
    want = of(truth, "ball_removed")[0]
    got = of(ev, "ball_removed")
    assert [e["ball"] for e in got] == [want["ball"]]
    assert abs(got[0].t - want.t) < 1.0
    recs = shot_records(ev, "free-pyramid")
    assert [it["ball"] for it in recs[-1].between if it.type == "ball_removed"] == [want["ball"]]


def test_miss_has_cushions_and_no_collision():
    play, truth, ev = run("fp-miss", 1, 60.0)
    assert of(ev, "collision") == []
    sc = score(truth, ev, 60.0, "fp-miss", play.timeline)
    assert sc.tallies["cushion"].recall == 1.0
    assert sc.first_right == sc.first_total == 1  # "no first contact" is right too


def test_every_event_has_confidence_and_low_ones_are_marked():
    _, _, ev = run("fp-respot", 1, 30.0)
    assert ev[0].type == "table_state"
    for e in ev:
        assert 0.0 <= e.confidence <= 1.0
        assert bool(e.get("uncertain")) == (e.confidence < LOW_CONFIDENCE)
    assert len(of(ev, "ball_placed")) == 2
    shot_records(ev, "free-pyramid")


def test_a_jaw_touched_on_the_way_into_the_pocket_is_reported():
    # the kaisa clips the jaw between two frames and drops: a cushion event for the jaw
    play, truth, ev = run("fb-kaisa-corner", 2, 30.0)
    pot = of(truth, "pocket")[0]
    jaw = [e for e in of(truth, "cushion") if e["ball"] == pot["ball"] and pot.t - e.t < 0.1]
    assert jaw and jaw[0]["cushion"] == "jaw:" + pot["pocket"]
    got = [e for e in of(ev, "cushion") if e["ball"] == pot["ball"]]
    assert [e["cushion"] for e in got][-1:] == [jaw[0]["cushion"]]
    assert abs(got[-1].t - jaw[0].t) <= 2.0 / 30.0
    assert got[-1].t < of(ev, "pocket")[0].t
