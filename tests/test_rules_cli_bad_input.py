"""The bad-input promise of `luza score`, end to end through ``luza.cli.main``.

A malformed or impossible stream -- either game -- exits 2 with
``luza score: error: FILE:LINE: ...`` on stderr, prints no ruling, and never shows
a traceback (issues 6 and 7).  A short hypothesis fuzz mutates the example
streams in ``rules/examples/``: every mutant is scored (exit 0) or refused that way.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from luza.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "rules" / "examples"
FP = (EXAMPLES / "free_pyramid_game.jsonl").read_text().splitlines()
FB = (EXAMPLES / "five_ball_game.jsonl").read_text().splitlines()


def _index(lines: list[str], pred) -> int:
    """0-based index of the first line whose JSON satisfies ``pred``."""
    return next(i for i, x in enumerate(lines) if pred(json.loads(x)))


def _edit(lines: list[str], k: int, **fields) -> list[str]:
    d = json.loads(lines[k])
    d.update(fields)
    return [*lines[:k], json.dumps(d), *lines[k + 1 :]]


def _first_pocket(lines):
    return _index(lines, lambda d: d["type"] == "pocket")


def pocketed_twice(lines):
    k = _first_pocket(lines)
    return [*lines[: k + 1], lines[k], *lines[k + 1 :]], k + 2


def event_for_a_ball_off_the_table(lines):
    """A collision with the ball that has just dropped, in the same stroke."""
    k = _first_pocket(lines)
    d = json.loads(lines[k])
    start = _index(lines[:k][::-1], lambda e: e["type"] == "shot_start")
    cue = json.loads(lines[k - 1 - start])["cue_ball"]
    hit = {"type": "collision", "t": d["t"], "a": cue, "b": d["ball"], "pos": [10.0, 10.0]}
    return [*lines[: k + 1], json.dumps(hit), *lines[k + 1 :]], k + 2


def time_backwards(lines):
    k = _first_pocket(lines)
    return _edit(lines, k, t=-5.0), k + 1


def unknown_ball(bad: str):
    def make(lines):
        k = _index(lines, lambda d: d["type"] == "collision")
        return _edit(lines, k, b=bad), k + 1

    return make


def malformed_json(lines):
    k = _first_pocket(lines)
    return [*lines[:k], lines[k][:-7], *lines[k + 1 :]], k + 1


def call_for_a_ball_off_the_table(lines):
    """The last call names W2, which a hand has just taken off the table (ball in hand)."""
    gone = len(lines) - 1 - _index(lines[::-1], lambda d: d["type"] == "ball_removed")
    k = gone + _index(lines[gone:], lambda d: d["type"] == "call")
    assert json.loads(lines[gone])["ball"] == "W2"
    return _edit(lines, k, ball="W2"), k + 1


CASES = [
    ("fp", "malformed JSON", malformed_json, "not valid JSON"),
    ("fb", "malformed JSON", malformed_json, "not valid JSON"),
    ("fp", "times backwards", time_backwards, "time goes backwards"),
    ("fb", "times backwards", time_backwards, "time goes backwards"),
    ("fp", "pocketed twice", pocketed_twice, "which is not on the table"),
    ("fb", "pocketed twice", pocketed_twice, "which is not on the table"),
    ("fp", "ball off the table", event_for_a_ball_off_the_table, "which is not on the table"),
    ("fb", "ball off the table", event_for_a_ball_off_the_table, "which is not on the table"),
    ("fp", "unknown ball", unknown_ball("W1"), "unknown ball id 'W1'"),
    ("fb", "unknown ball", unknown_ball("Y"), "unknown ball id 'Y'"),
    ("fb", "call off the table", call_for_a_ball_off_the_table, "call names W2, which is not"),
]


def score(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    rc = main(["score", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def refused(rc: int, out: str, err: str) -> str:
    assert rc == 2, err
    assert out == "", "a refused stream prints no ruling"
    assert err.startswith("luza score: error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("game", "what", "make", "msg"), CASES, ids=[f"{g}-{w}" for g, w, _, _ in CASES]
)
def test_impossible_streams_exit_2_naming_the_line(tmp_path, capsys, game, what, make, msg):
    lines, line_no = make(FP if game == "fp" else FB)
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n")
    err = refused(*score(capsys, str(p)))
    assert f"{p}:{line_no}: " in err and msg in err, err


@pytest.mark.parametrize(("lines", "game"), [(FP, "five-ball"), (FB, "free-pyramid")])
def test_a_stream_for_the_other_game(tmp_path, capsys, lines, game):
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n")
    k = _index(lines, lambda d: d["type"] == "table_state") + 1
    err = refused(*score(capsys, str(p), "--game", game))
    assert f"{p}:{k}: this stream is for game" in err and f"not '{game}'" in err


def test_missing_files(tmp_path, capsys):
    err = refused(*score(capsys, str(tmp_path / "none.jsonl")))
    assert "not found" in err and "none.jsonl" in err
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(FB) + "\n")
    err = refused(*score(capsys, str(p), "--inputs", str(tmp_path / "calls.jsonl")))
    assert "not found" in err and "calls.jsonl" in err


def test_a_binary_file_is_refused_as_not_text(tmp_path, capsys):
    p = tmp_path / "clip.jsonl"
    p.write_bytes(b'{"type": "table_state"}\n\x8c\xff\x00 not text\n')
    err = refused(*score(capsys, str(p)))
    assert "not a JSON-lines text file" in err and str(p) in err
    rc = main(["replay", str(p)])
    err = capsys.readouterr().err
    assert rc == 2 and "not a match record" in err and "Traceback" not in err


def test_a_bad_line_in_an_inputs_file_names_that_file(tmp_path, capsys):
    calls = [x for x in FB if json.loads(x)["type"] == "call"]
    rest = [x for x in FB if json.loads(x)["type"] != "call"]
    s, c = tmp_path / "s.jsonl", tmp_path / "calls.jsonl"
    s.write_text("\n".join(rest) + "\n")
    c.write_text("\n".join(_edit(calls, 2, ball="R3")) + "\n")
    err = refused(*score(capsys, str(s), "--inputs", str(c)))
    assert f"{c}:3: unknown ball id 'R3' in 'call'" in err


def test_an_unknown_game_in_the_stream_names_its_line(tmp_path, capsys):
    k = _index(FP, lambda d: d["type"] == "table_state")
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(_edit(FP, k, game="snooker")) + "\n")
    err = refused(*score(capsys, str(p)))
    assert f"{p}:{k + 1}: unknown game 'snooker'" in err


# ---------------------------------------------------------------- fuzz
VALUES = [None, "", "X", -1, 1e9, [], {}, [1.0], "16", "W3", "K", "Y", "R1", 3.5, True, "head"]
TYPES = [
    "pocket",
    "shot_end",
    "shot_start",
    "ball_placed",
    "ball_removed",
    "hang",
    "hang_fall",
    "call",
    "foul",
    "choice",
    "table_state",
    "collision",
    "off_table",
]


@st.composite
def mutants(draw) -> list[str]:
    lines = list(draw(st.sampled_from([FP, FB])))
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        k = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "dup", "swap", "cut", "value", "delete", "type"]))
        try:  # (a line cut earlier may still end in a nested object's "}")
            d = json.loads(lines[k])
        except ValueError:
            d = None
        if not isinstance(d, dict):
            d = None
        if op == "drop":
            del lines[k]
        elif op == "dup":
            lines.insert(k, lines[k])
        elif op == "swap" and k + 1 < len(lines):
            lines[k], lines[k + 1] = lines[k + 1], lines[k]
        elif op == "cut" and lines[k]:  # an earlier cut may have left it empty
            lines[k] = lines[k][: draw(st.integers(0, len(lines[k]) - 1))]
        elif d is not None and op == "value":
            key = draw(st.sampled_from(sorted(d)))
            if isinstance(d[key], dict) and d[key] and draw(st.booleans()):
                d[key][draw(st.sampled_from(sorted(d[key])))] = draw(st.sampled_from(VALUES))
            else:
                d[key] = draw(st.sampled_from(VALUES))
            lines[k] = json.dumps(d)
        elif d is not None and op == "delete":
            del d[draw(st.sampled_from(sorted(d)))]
            lines[k] = json.dumps(d)
        elif d is not None and op == "type":
            d["type"] = draw(st.sampled_from(TYPES))
            lines[k] = json.dumps(d)
    return lines


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=mutants(), as_json=st.booleans())
def test_fuzzed_example_streams_are_scored_or_refused_never_a_traceback(
    tmp_path, capsys, lines, as_json
):
    """Drop, duplicate, swap, cut, retype or corrupt lines of the examples: `luza score` exits 0
    with a final line, or 2 naming a line of the file -- any other exception fails the test."""
    p = tmp_path / "m.jsonl"
    p.write_text("\n".join(lines) + "\n")
    rc, out, err = score(capsys, str(p), *(["--json"] if as_json else []))
    if rc == 0:
        last = out.splitlines()[-1]
        assert json.loads(last)["type"] == "final" if as_json else last.startswith("final: ")
    else:
        refused(rc, out, err)
        assert re.search(rf"{re.escape(str(p))}:\d+: |no table_state", err), err
