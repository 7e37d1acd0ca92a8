"""``luza track`` end to end on a short rendered clip, and its errors."""

from __future__ import annotations

import csv
import json

import cv2
import numpy as np
import pytest
from render_helpers import poses, pyramid_camera, renderer

from luza.calibration.profiles import load_profile
from luza.cli import main
from luza.events import read_jsonl
from luza.physics.state import BallPose

PROFILE = load_profile("pyramid-12ft")


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("clip")
    cam = pyramid_camera(PROFILE, (960, 540))
    table = renderer(cam, PROFILE, seed=2)
    rack = poses((str(k + 1), x, y) for k, (x, y) in enumerate(PROFILE.rack_positions()))
    fps = 30.0
    w = cv2.VideoWriter(str(d / "c.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), fps, (960, 540))
    y0 = np.array([PROFILE.length_mm / 4, PROFILE.width_mm / 2 + 200])
    for i in range(12):
        y = y0 + np.array([1500.0, 0.0]) * i / fps  # the yellow rolls at 1.5 m/s
        w.write(table.render({**rack, "Y": BallPose(y[0], y[1])}, t=i / fps))
    w.release()
    truth = {"camera": cam.to_dict(), "table": {"name": PROFILE.name}, "frames": []}
    (d / "c.truth.json").write_text(json.dumps(truth))
    return d


def _track_args(clip, out, *extra: str) -> list[str]:
    """``luza track`` of the clip with its calibration, events into ``out``."""
    return [
        "track",
        str(clip / "c.mp4"),
        "--calibration",
        str(clip / "c.truth.json"),
        "--game",
        "free-pyramid",
        "-o",
        str(out / "ev.jsonl"),
        *extra,
        "--quiet",
    ]


def _spy_pipelines(monkeypatch, module) -> list:
    """Every VisionPipeline ``module`` makes from now on (real ones), in a list."""
    made = []
    real = module.VisionPipeline

    def spy(*a, **k):
        made.append(real(*a, **k))
        return made[-1]

    monkeypatch.setattr(module, "VisionPipeline", spy)
    return made


def test_track_writes_positions_and_events(clip):
    out = clip / "out"
    out.mkdir(exist_ok=True)
    rc = main(
        _track_args(
            clip, out, "--positions", str(out / "pos.csv"), "--overlay", str(out / "ov.mp4")
        )
    )
    assert rc == 0
    with open(out / "pos.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["frame", "t", "ball", "x_mm", "y_mm"]
    frames = {int(r["frame"]) for r in rows}
    assert frames == set(range(12))
    per_frame = [sum(1 for r in rows if int(r["frame"]) == f) for f in range(12)]
    assert per_frame == [16] * 12, "15 ivory balls and the yellow in every frame"
    ys = [(int(r["frame"]), float(r["x_mm"])) for r in rows if r["ball"] == "Y"]
    xs = [x for _, x in sorted(ys)]
    assert np.all(np.diff(xs) > 30), "the yellow moves ~50 mm a frame"
    rack = np.array(PROFILE.rack_positions())
    first = {r["ball"]: (float(r["x_mm"]), float(r["y_mm"])) for r in rows if r["frame"] == "0"}
    for k in range(15):
        assert np.linalg.norm(np.array(first[str(k + 1)]) - rack[k]) < 8.0, "rack numbering"
    ev = read_jsonl(out / "ev.jsonl")
    # The event stage writes the stream: every ball is accounted for, the yellow
    # (moving from the first frame, never at rest in this short clip) by a placing.
    assert ev[0].type == "table_state"
    accounted = set(ev[0]["positions"]) | {e["ball"] for e in ev if e.type == "ball_placed"}
    assert accounted == {"Y", *(str(k) for k in range(1, 16))}
    assert (out / "ov.mp4").stat().st_size > 1000


def test_track_errors_are_clear(clip, tmp_path, capsys):
    rc = main(
        [
            "track",
            str(tmp_path / "none.mp4"),
            "--calibration",
            "auto",
            "--game",
            "five-ball",
            "-o",
            str(tmp_path / "e.jsonl"),
        ]
    )
    assert rc == 2
    assert "not found" in capsys.readouterr().err
    rc = main(
        [
            "track",
            str(clip / "c.mp4"),
            "--calibration",
            str(tmp_path / "no.json"),
            "--game",
            "five-ball",
            "-o",
            str(tmp_path / "e.jsonl"),
        ]
    )
    assert rc == 2
    assert "calibration file not found" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    rc = main(
        [
            "track",
            str(clip / "c.mp4"),
            "--calibration",
            str(bad),
            "--game",
            "five-ball",
            "-o",
            str(tmp_path / "e.jsonl"),
        ]
    )
    assert rc == 2
    assert "not a JSON calibration" in capsys.readouterr().err


def test_track_gives_the_detector_the_cores_the_decoder_leaves(clip, monkeypatch):
    """A file: its decoder keeps a core busy, so on two cores the detector's windows run
    on one thread (the same detections, sooner end to end)."""
    import luza.vision.cli as vcli

    made = _spy_pipelines(monkeypatch, vcli)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    out = clip / "out_threads"
    out.mkdir(exist_ok=True)
    rc = main(_track_args(clip, out))
    assert rc == 0
    assert len(made) == 1 and made[0].detector.threads == 1
    assert made[0].detector.workers() == 1


def test_analyze_gives_the_detector_the_cores_the_decoder_leaves(clip, monkeypatch):
    """``luza analyze`` tracks through ``track_video``: the same rule as ``luza track``."""
    import luza.app.match as match

    made = _spy_pipelines(monkeypatch, match)
    monkeypatch.setattr("os.cpu_count", lambda: 4)
    n = cv2.getNumThreads()
    try:
        cv2.setNumThreads(4)
        run = match.track_video(
            str(clip / "c.mp4"), "free-pyramid", calibration=str(clip / "c.truth.json")
        )
    finally:
        cv2.setNumThreads(n)
    assert run.n_frames == 12
    assert len(made) == 1 and made[0].detector.threads == 3
