"""``luza live`` refuses bad input with a clear message (exit 2) before it serves anything."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from luza.app.records import MatchStore
from luza.cli import main

CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"
CLIP = CLIPS / "fp-penalty_s0_720p30.mp4"
TRUTH = CLIPS / "fp-penalty_s0_720p30.truth.json"


def _live(tmp_path: Path, *extra: str, source: str = str(CLIP), cal: str = str(TRUTH)) -> list:
    return [
        "live",
        "--source",
        source,
        "--game",
        "free-pyramid",
        "--calibration",
        cal,
        "--db",
        str(tmp_path / "m.sqlite"),
        "--port",
        "0",
        *extra,
    ]


@pytest.mark.parametrize(
    ("kwargs", "extra", "message"),
    [
        ({"source": "no/such/match.mp4"}, (), "video not found: no/such/match.mp4"),
        ({"source": "7"}, (), "cannot open camera 7"),
        ({"cal": "no/such/cal.json"}, (), "calibration file not found"),
        (
            {"cal": str(CLIPS / "fp-pots_s0_1080p60.truth.json")},
            (),
            "the calibration is for 1920x1080 images, the source gives 1280x720",
        ),
        ({}, ("--players", "Ann"), "--players needs two different names"),
        ({}, ("--players", "Ann,Ann"), "--players needs two different names"),
        ({}, ("--speed", "-1"), "--speed must be 0"),
        ({}, ("--option", "target_points"), "--option wants KEY=VALUE"),
        ({}, ("--option", "no_such_option=1"), "unknown option 'no_such_option'"),
    ],
)
def test_bad_arguments_are_refused(tmp_path, capsys, kwargs, extra, message):
    assert main(_live(tmp_path, *extra, **kwargs)) == 2
    err = capsys.readouterr().err
    assert err.startswith("luza live: error: ") and message in err
    assert "Traceback" not in err
    # nothing was opened in the database
    db = tmp_path / "m.sqlite"
    if db.exists():
        with MatchStore(db) as store:
            assert store.list_matches() == []


def test_a_wrong_game_name_is_refused(tmp_path, capsys):
    args = _live(tmp_path)
    args[args.index("free-pyramid")] = "snooker"
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    assert "invalid choice: 'snooker'" in capsys.readouterr().err


def test_a_damaged_database_is_refused(tmp_path, capsys):
    (tmp_path / "m.sqlite").write_bytes(b"this is not a database" * 100)
    assert main(_live(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "is not a luza match database" in err and "Traceback" not in err


def test_a_busy_port_is_refused_before_a_match_is_opened(tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        args = _live(tmp_path)
        args[args.index("--port") + 1] = str(port)
        assert main(args) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on 127.0.0.1:{port}" in err
    assert not (tmp_path / "m.sqlite").exists()
