"""The stage commands check where they write before the work (``luza/output_files.py``):
``luza track`` used to track a whole video and then stop with a traceback when its
events file could not be written (a folder that is a file, a folder name given as the
file), losing the work; ``luza events`` and ``luza score --record`` the same after
their work.  An input of the wrong game's ball ids is refused by the event stage
instead of reaching the rules in the stream, and an OS error no check foresaw is one
line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from luza.cli import main
from luza.output_files import OutputError, writable_file, write_image

CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"
CLIP = CLIPS / "fb-kaisa-middle_s0_720p30.mp4"
TRUTH = CLIPS / "fb-kaisa-middle_s0_720p30.truth.json"


def _positions(tmp_path: Path, ball: str = "W1") -> Path:
    p = tmp_path / "positions.csv"
    rows = [f"{k},{k / 30:.4f},{ball},{1000 + k},600" for k in range(30)]
    p.write_text("frame,t,ball,x_mm,y_mm\n" + "\n".join(rows) + "\n")
    return p


def _refused(argv: list, capsys, words: str, rc: int = 2) -> None:
    assert main([str(a) for a in argv]) == rc
    err = capsys.readouterr().err
    assert words in err, err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    return f


@pytest.mark.parametrize("where", ["under_a_file", "a_folder"])
def test_events_refuses_an_output_it_cannot_write(tmp_path, capsys, a_file, where):
    out = a_file / "e.jsonl" if where == "under_a_file" else tmp_path
    words = "a_file is a file, not a folder" if where == "under_a_file" else "it is a folder"
    _refused(["events", _positions(tmp_path), "--game", "five-ball", "-o", out], capsys, words)


def test_events_makes_the_output_folder(tmp_path, capsys):
    out = tmp_path / "new" / "sub" / "events.jsonl"
    assert main(["events", str(_positions(tmp_path)), "--game", "five-ball", "-o", str(out)]) == 0
    assert out.read_text().startswith('{"type": "table_state"')


@pytest.mark.parametrize("opt", ["-o", "--positions", "--overlay"])
def test_track_refuses_an_output_it_cannot_write_before_tracking(tmp_path, capsys, a_file, opt):
    outs = {"-o": tmp_path / "e.jsonl", opt: a_file / "out"}
    argv = ["track", CLIP, "--calibration", TRUTH, "--game", "five-ball"]
    for k, v in outs.items():
        argv += [k, v]
    _refused(argv, capsys, "a_file is a file, not a folder")
    assert not (tmp_path / "e.jsonl").exists()


def test_score_refuses_a_record_it_cannot_write(tmp_path, capsys, a_file):
    stream = tmp_path / "e.jsonl"
    argv = ["events", str(_positions(tmp_path)), "--game", "five-ball", "-o", str(stream)]
    assert main(argv) == 0
    capsys.readouterr()
    _refused(["score", stream, "--record", a_file / "r.jsonl"], capsys, "a_file is a file")


def test_ball_ids_of_the_other_game_are_refused(tmp_path, capsys):
    out = tmp_path / "e.jsonl"
    argv = ["events", _positions(tmp_path, ball="7"), "--game", "five-ball", "-o", out]
    _refused(argv, capsys, "ball ids not of five-ball: 7 (its balls: W1 W2 R1 R2 K)")
    assert not out.exists()


def test_an_os_error_no_check_foresaw_is_one_line(tmp_path, capsys, monkeypatch):
    import luza.vision.events_cli as events_cli

    def disk_full(events, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(events_cli, "write_jsonl", disk_full)
    out = tmp_path / "e.jsonl"
    argv = ["events", _positions(tmp_path), "--game", "five-ball", "-o", out]
    _refused(argv, capsys, f"error: No space left on device: {out}", rc=1)


def test_writable_file_leaves_no_probe_and_says_what(tmp_path, a_file):
    assert writable_file(tmp_path / "x" / "y.csv") == tmp_path / "x" / "y.csv"
    assert list((tmp_path / "x").iterdir()) == []
    with pytest.raises(OutputError, match="the positions file"):
        writable_file(tmp_path, "the positions file")


@pytest.mark.parametrize(
    ("opt", "value", "words"),
    [
        ("-o", "a_file/c.json", "cannot write the calibration"),
        ("--overlay", "a_file/o.png", "cannot write the overlay image"),
        ("--overlay", "o.xyz", "--overlay wants an image file"),
    ],
)
def test_calibrate_refuses_outputs_it_cannot_write_before_the_work(
    tmp_path, capsys, a_file, opt, value, words
):
    """The overlay used to be 'written' to a suffix OpenCV has no writer for or under a
    file: cv2.imwrite returned False and the command said it had written it."""
    outs = {"-o": tmp_path / "c.json", opt: tmp_path / value}
    argv = ["calibrate", CLIP, "--table", "pyramid-12ft"]
    for k, v in outs.items():
        argv += [k, v]
    _refused(argv, capsys, words)
    assert not (tmp_path / "c.json").exists()


def test_write_image_says_when_nothing_was_written(tmp_path):
    img = np.zeros((8, 8, 3), np.uint8)
    write_image(tmp_path / "ok.png", img)
    assert (tmp_path / "ok.png").stat().st_size > 0
    with pytest.raises(OutputError, match="an image suffix"):
        write_image(tmp_path / "x.xyz", img)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.png"]  # no part file left


@pytest.mark.parametrize(
    "argv",
    [
        ["synth", "--scene", "fp-pots", "--out"],
        ["synth-set", "--seeds", "1-2", "--out"],
        ["demo", "--out"],
    ],
    ids=["synth", "synth-set", "demo"],
)
def test_sample_commands_refuse_an_output_folder_under_a_file(capsys, a_file, argv):
    """``luza synth`` played and rendered its scene first (16 s) and then stopped with
    'Not a directory'."""
    _refused([*argv, a_file / "out"], capsys, "a_file is a file, not a folder")
