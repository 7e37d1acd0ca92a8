"""The rules core: stream checks, shot records, the `luza score` / `luza replay` commands.

Impossible streams must end in a clear error naming the line, never a
traceback or a silently wrong score (issue 6).
"""

from __future__ import annotations

import json

import pytest

from luza.cli import main
from luza.rules.builder import StreamBuilder
from luza.rules.engine import RuleError, ShotRecord
from luza.rules.stream import group, merge_inputs, parse_items

BALLS = ["Y", *(str(i) for i in range(1, 16))]


def base() -> StreamBuilder:
    b = StreamBuilder()
    b.table_state(
        {x: (400.0 + (i % 6) * 300.0, 250.0 + (i // 6) * 400.0) for i, x in enumerate(BALLS)},
        score={"A": 0, "B": 0},
    )
    return b


def write(tmp_path, b: StreamBuilder, name="s.jsonl"):
    p = tmp_path / name
    p.write_text(b.jsonl())
    return p


def cli_error(capsys, argv):
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    return err


def test_group_makes_one_record_per_stroke_with_hand_events_and_inputs():
    b = base()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    b.remove("9").choice("play")
    b.strike("5", "B").hit("5", "6").end()
    blocks = list(group(b.items(), "free-pyramid", BALLS))
    shots = [x for x in blocks if isinstance(x, ShotRecord)]
    assert [s.n for s in shots] == [1, 2]
    first = shots[0]
    assert first.cue_ball == "3" and first.pocketed() == ["4"]
    assert [i.type for i in first.between] == ["ball_removed"]
    assert [i.type for i in first.inputs] == ["foul", "choice"]
    assert "4" in first.before and "4" not in first.at_rest and "9" not in first.after
    assert first.following is shots[1].start


def test_inputs_file_is_merged_by_time():
    b = base()
    b.strike("3").hit("3", "4").end()  # t = 0.2 .. 0.4
    stream = b.items("s")
    inputs = list(parse_items(['{"type": "foul", "t": 0.25, "kind": "push"}'], "i"))
    merged = merge_inputs(stream, inputs)
    assert [i.type for i in merged] == [
        "table_state",
        "shot_start",
        "foul",
        "collision",
        "shot_end",
    ]


@pytest.mark.parametrize(
    "build, line, msg",
    [
        (
            lambda b: (
                b.strike("3").pocket("4", "foot-left").add("pocket", ball="4", pocket="foot-left")
            ),
            4,
            "'pocket' for ball 4, which is not on the table (it left the table at",
        ),
        (
            lambda b: b.strike("3").add("collision", a="3", b="17", pos=[1, 1]),
            3,
            "unknown ball id '17'",
        ),
        (
            lambda b: b.strike("3").add("shot_start", cue_ball="4"),
            3,
            "shot_start while the stroke started at",
        ),
        (
            lambda b: b.strike("3").add("cushion", ball="3", cushion="top", pos=[1, 1]),
            3,
            "unknown cushion 'top'",
        ),
        (lambda b: b.add("collision", a="3", b="4", pos=[1, 1]), 2, "outside a stroke"),
        (
            lambda b: b.strike("3").add("ball_removed", ball="4"),
            3,
            "(a hand on the table) during the stroke",
        ),
        (
            lambda b: b.strike("3").add("shot_end", positions={"3": [1, 1]}),
            3,
            "shot_end has no position for ball Y",
        ),
        (
            lambda b: (
                b.strike("3")
                .pocket("3", "foot-left")
                .add("shot_end", positions={x: [1, 1] for x in BALLS})
            ),
            4,
            "shot_end lists ball 3, which left the table at",
        ),
        (
            lambda b: b.strike("3").hit("3", "4").end().add("shot_start", cue_ball="3", dt=-1.0),
            5,
            "time goes backwards",
        ),
        (
            lambda b: b.strike("3").hit("3", "4").end().add("players", names=["A", "A"]),
            5,
            "'players' needs 'names': two different names",
        ),
    ],
)
def test_impossible_streams_name_the_line(tmp_path, capsys, build, line, msg):
    b = base()
    build(b)
    p = write(tmp_path, b)
    err = cli_error(capsys, ["score", str(p)])
    assert f"{p}:{line}: " in err and msg in err and "Traceback" not in err


def test_stream_ending_inside_a_stroke(tmp_path, capsys):
    b = base()
    b.strike("3").hit("3", "4")
    p = write(tmp_path, b)
    err = cli_error(capsys, ["score", str(p)])
    assert f"{p}:3: the stream ends inside the stroke started at {p}:2" in err


def test_wrong_game(tmp_path, capsys):
    p = write(tmp_path, base())
    err = cli_error(capsys, ["score", str(p), "--game", "five-ball"])
    assert f"{p}:1: this stream is for game 'free-pyramid', not 'five-ball'" in err


def test_bad_json_and_missing_file(tmp_path, capsys):
    p = tmp_path / "bad.jsonl"
    p.write_text(base().jsonl() + "{oops\n")
    assert f"{p}:2: not valid JSON" in cli_error(capsys, ["score", str(p)])
    assert "event stream not found" in cli_error(capsys, ["score", str(tmp_path / "none")])


def test_no_table_state(tmp_path, capsys):
    p = tmp_path / "s.jsonl"
    p.write_text('{"type": "shot_start", "t": 0.1, "cue_ball": "Y"}\n')
    assert f"{p}:1: 'shot_start' before the stream's table_state" in cli_error(
        capsys, ["score", str(p)]
    )


def test_inputs_file_with_an_event_is_refused(tmp_path, capsys):
    p = write(tmp_path, base())
    q = tmp_path / "in.jsonl"
    q.write_text('{"type": "ball_removed", "t": 1.0, "ball": "3"}\n')
    err = cli_error(capsys, ["score", str(p), "--inputs", str(q)])
    assert f"{q}:1: an inputs file holds operator inputs only" in err


def test_unknown_option(tmp_path, capsys):
    p = write(tmp_path, base())
    err = cli_error(capsys, ["score", str(p), "--option", "nope=1"])
    assert "unknown option 'nope'" in err


def test_score_prints_rulings_and_final_json(tmp_path, capsys):
    b = base()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.remove("10")
    p = write(tmp_path, b)
    assert main(["score", str(p), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["type"] for x in lines] == ["ruling", "ruling", "final"]
    assert lines[0]["points"] == 1 and lines[1]["fouls"][0]["rule"] == "GR-6.2"
    keys = {
        "type",
        "shot",
        "player",
        "cue_ball",
        "points",
        "foul",
        "fouls",
        "rules",
        "next",
        "respots",
        "notes",
    }
    assert keys <= set(lines[0])
    assert lines[-1] == {"type": "final", "score": {"A": 1, "B": 1}, "winner": None}


def test_score_human_readable(tmp_path, capsys):
    b = base()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()
    p = write(tmp_path, b)
    assert main(["score", str(p)]) == 0
    out = capsys.readouterr().out
    assert "shot 1: A with 3 | +1 | score A 1 B 0 | next A" in out
    assert "final: A 1 B 0 | game unfinished" in out


def test_options_reach_the_game(tmp_path, capsys):
    b = base()
    b.strike("3").hit("3", "4").off("4").end()
    p = write(tmp_path, b)
    main(["score", str(p), "--json", "--option", "jumped_ball_foul=false"])
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["foul"] is False


def test_bad_option_value(tmp_path, capsys):
    p = write(tmp_path, base())
    err = cli_error(capsys, ["score", str(p), "--option", "hang_seconds=soon"])
    assert "option hang_seconds='soon': expected a float" in err


def test_record_cannot_raise_on_a_ruling_line(tmp_path):
    """ruling/final lines in a stream (a record scored again) are skipped."""
    items = list(parse_items(['{"type": "ruling", "shot": 1}', '{"type": "final"}'], "r"))
    assert items == []


def test_game_registry_is_lazy_and_names_unknown_games():
    from luza.calibration.profiles import load_profile
    from luza.rules.engine import GAMES, load_game

    assert GAMES["free-pyramid"] == "luza.rules.free_pyramid:FreePyramid"
    with pytest.raises(RuleError, match="unknown game 'snooker'"):
        load_game("snooker", load_profile("pyramid-12ft"))


def test_cli_inputs_file_adds_a_referee_foul_and_choice(tmp_path, capsys):
    b = base()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()  # t 0.2 .. 0.5
    b.remove("9")  # t 0.6
    b.strike("5", "A").hit("5", "6").end()
    p = write(tmp_path, b)
    q = tmp_path / "ref.jsonl"
    q.write_text(
        '{"type": "foul", "t": 0.3, "kind": "push"}\n'
        '{"type": "choice", "t": 0.65, "kind": "hand-back"}\n'
    )
    assert main(["score", str(p), "--inputs", str(q), "--json"]) == 0
    first, second, final = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert first["fouls"][0]["rule"] == "GR-18" and first["points"] == 0 and first["next"] == "A"
    assert not second["foul"] and final["score"] == {"A": 0, "B": 1}
