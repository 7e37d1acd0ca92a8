"""A ball that a stroke's last rolling ball pushed 13 mm at 50 mm/s, after that ball
came to rest against it, belongs to that stroke: a speed fitted to the few samples
of so short a push overshoots (220 mm/s), so a push less than a ball's width is
merged whatever its fitted speed (vision/events.py ``_assemble``).

Dev fp-pots/2972 at 60 fps (a held-out scene of 2900-2999, looked at after its run):
4 crawled into the yellow at 6.665 s and stopped against it; the yellow's push was
read as a stroke of its own at 6.80 s (a shot split in two) and 4's touch was lost.

Samples: all balls of that scene, 2.0-7.6 s, as the tracker gives them (the noise of
``vision/events_truth.py``), with the physics' own events in that window."""

from __future__ import annotations

import pytest
from events_helpers import recorded_events


@pytest.fixture(scope="module")
def scene():
    return recorded_events("slow_push_after_stroke_2972.json.gz")


def test_one_stroke_one_shot(scene):
    d, ev = scene
    want = [e["cue_ball"] for e in d["truth"] if e["type"] == "shot_start"]
    got = [e["cue_ball"] for e in ev if e.type == "shot_start"]
    assert want == ["4"]
    assert got == want  # before: ["4", "Y"]


def test_the_crawling_balls_touch_is_found(scene):
    d, ev = scene
    (want,) = [e for e in d["truth"] if e["type"] == "collision" and {e["a"], e["b"]} == {"4", "Y"}]
    got = [e for e in ev if e.type == "collision" and {e["a"], e["b"]} == {"4", "Y"}]
    assert [abs(e.t - want["t"]) <= 2.0 / d["fps"] for e in got] == [True]
