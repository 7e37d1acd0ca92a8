"""End to end on a bundled clip: video -> luza track -> event stream -> luza score.

The kaisa goes into the right middle pocket (the clip's truth says so); the stream
``luza track`` writes must contain that pot and be accepted by the rules engine.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from luza.cli import main
from luza.events import read_jsonl
from luza.samples.synth import load_truth

CLIP = "fb-kaisa-middle_s0_720p30"


def test_track_then_score_a_bundled_clip(tmp_path, capsys):
    clips = Path(str(resources.files("luza.samples") / "clips"))
    video, truth_path = clips / f"{CLIP}.mp4", clips / f"{CLIP}.truth.json"
    truth = load_truth(truth_path)
    true_pots = {(e["ball"], e["pocket"]) for e in truth["events"] if e["type"] == "pocket"}
    assert true_pots == {("K", "middle-right")}

    events = tmp_path / "events.jsonl"
    rc = main(
        [
            "track",
            str(video),
            "--calibration",
            str(truth_path),
            "--game",
            "five-ball",
            "-o",
            str(events),
            "--quiet",
        ]
    )
    assert rc == 0
    stream = read_jsonl(events)
    assert stream[0].type == "table_state"
    assert set(stream[0]["positions"]) == set(truth["frames"][0]["balls"])
    pots = {(e["ball"], e["pocket"]) for e in stream if e.type == "pocket"}
    assert pots == true_pots
    starts = [e for e in stream if e.type == "shot_start"]
    assert [e["cue_ball"] for e in starts] == ["W1"]
    true_start = next(e for e in truth["events"] if e["type"] == "shot_start")
    assert abs(starts[0].frame - true_start["frame"]) <= 2

    capsys.readouterr()
    assert main(["score", str(events), "--game", "five-ball", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith('{"type": "final"')
