"""``luza events``: a positions CSV in, the event stream out (the rules accept it)."""

from __future__ import annotations

import argparse

from luza.events import read_jsonl
from luza.rules.record import score_items
from luza.rules.stream import load_stream
from luza.vision import events_cli


def run(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="luza")
    events_cli.register(ap.add_subparsers(dest="cmd"))
    args = ap.parse_args(argv)
    return args.func(args)


def test_positions_csv_to_a_stream_the_rules_score(tmp_path, capsys):
    csv = tmp_path / "positions.csv"
    rows = ["frame,t,ball,x_mm,y_mm"]
    for k in range(90):  # Y still 1 s, then rolls 400 mm across into ball 3's side
        t = k / 30
        s = min(max(t - 1.0, 0.0), 0.5) / 0.5
        rows.append(f"{k},{t:.4f},Y,800.0,{400.0 + 400.0 * (2 * s - s * s):.1f}")
        rows.append(f"{k},{t:.4f},3,2000.0,900.0")
    csv.write_text("\n".join(rows) + "\n")
    out = tmp_path / "events.jsonl"
    assert run(["events", str(csv), "--game", "free-pyramid", "-o", str(out), "--shots"]) == 0
    assert "shot 1:" in capsys.readouterr().out
    ev = read_jsonl(out)
    assert [e["cue_ball"] for e in ev if e.type == "shot_start"] == ["Y"]
    scored = score_items(load_stream(str(out), None), None, "pyramid-12ft", {})
    assert len(scored.rulings) == 1
