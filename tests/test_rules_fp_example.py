"""The README's example game (rules/examples/free_pyramid_game.jsonl) scores as its story says."""

from __future__ import annotations

import json
from pathlib import Path

from luza.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "rules" / "examples" / "free_pyramid_game.jsonl"


def test_example_game_foul_penalty_ball_respot_and_win(capsys, tmp_path):
    assert main(["score", str(EXAMPLE), "--game", "free-pyramid", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rulings, final = lines[:-1], lines[-1]
    assert final == {"type": "final", "score": {"Ann": 2, "Bob": 8}, "winner": "Bob"}
    fouls = [r for r in rulings if r["foul"]]
    assert [f["fouls"][0]["rule"] for f in fouls] == ["GR-17", "GR-6.2"]
    assert fouls[0]["respots"] == [{"ball": "4", "pos": [2662.5, 887.5]}]
    assert any("penalty ball" in n for n in fouls[0]["notes"])
    assert any("respotted correctly" in n for n in fouls[0]["notes"])
    assert rulings[-1]["next"] is None and "FP-1" in rulings[-1]["rules"]
    rec = tmp_path / "rec.jsonl"
    assert main(["score", str(EXAMPLE), "--record", str(rec)]) == 0
    assert main(["replay", str(rec)]) == 0
