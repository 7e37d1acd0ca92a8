"""The match record: `luza score --record` writes it, `luza replay` scores it again."""

from __future__ import annotations

import json

from luza.cli import main
from luza.rules.builder import StreamBuilder
from luza.rules.record import read_record, record_lines, replay, score_items

BALLS = ["Y", *(str(i) for i in range(1, 16))]


def game() -> StreamBuilder:
    b = StreamBuilder()
    b.players("Ann", "Bob")
    b.table_state(
        {x: (400.0 + (i % 6) * 300.0, 250.0 + (i // 6) * 400.0) for i, x in enumerate(BALLS)},
        score={"Ann": 0, "Bob": 0},
    )
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()
    b.strike("3").hit("3", "5").pocket("5", "foot-left").foul("push").end()
    b.remove("9").place("5", (2662.5, 887.5)).choice("hand-back")
    b.strike("6", "Ann").hit("6", "7").end()
    return b


def test_record_holds_header_events_rulings_and_final_in_order():
    s = score_items(game().items(), table="pyramid-12ft")
    lines = [json.loads(x) for x in record_lines(s, "pyramid-12ft", {})]
    types = [x["type"] for x in lines]
    assert types[0] == "match" and types[-1] == "final"
    assert types.count("ruling") == 3
    # each ruling sits just before the stroke that followed it
    for k, t in enumerate(types):
        if t == "ruling" and k + 1 < len(types) - 1:
            assert types[k + 1] in ("shot_start", "ruling")
    assert lines[0]["game"] == "free-pyramid" and lines[-1]["score"] == {"Ann": 1, "Bob": 1}


def test_replay_gives_the_same_rulings(tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_text(game().jsonl())
    rec = tmp_path / "rec.jsonl"
    assert main(["score", str(src), "--json", "--record", str(rec)]) == 0
    first = capsys.readouterr().out
    assert main(["replay", str(rec), "--json"]) == 0
    assert capsys.readouterr().out == first
    # a record is also a stream: scoring it again skips its ruling lines
    again, _ = replay(rec)
    assert [r.to_dict() for r in again.rulings] == [x[1] for x in read_record(rec).rulings]


def test_replay_names_the_line_of_a_tampered_ruling(tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_text(game().jsonl())
    rec = tmp_path / "rec.jsonl"
    main(["score", str(src), "--record", str(rec)])
    capsys.readouterr()
    lines = rec.read_text().splitlines()
    k = next(i for i, x in enumerate(lines) if '"type": "ruling"' in x)
    d = json.loads(lines[k])
    d["points"] = 5
    lines[k] = json.dumps(d)
    rec.write_text("\n".join(lines) + "\n")
    rc = main(["replay", str(rec)])
    err = capsys.readouterr().err
    assert rc == 2 and f"{rec}:{k + 1}: replay differs from the recorded ruling for shot 1" in err


def test_replay_refuses_a_plain_stream(tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_text(game().jsonl())
    assert main(["replay", str(src)]) == 2
    assert "not a match record" in capsys.readouterr().err


def test_record_keeps_options(tmp_path, capsys):
    b = game()
    src = tmp_path / "s.jsonl"
    src.write_text(b.jsonl())
    rec = tmp_path / "rec.jsonl"
    main(["score", str(src), "--record", str(rec), "--option", "respot_tolerance_mm=1"])
    head = json.loads(rec.read_text().splitlines()[0])
    assert head["options"]["respot_tolerance_mm"] == 1.0
    capsys.readouterr()
    assert main(["replay", str(rec)]) == 0
