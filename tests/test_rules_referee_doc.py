"""rules/REFEREE.md stays true: its `luza score` output blocks are what luza prints today,
every foul kind and choice it lists is one the engines know, and it documents every option."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from luza.cli import main
from luza.rules.five_ball import CHOICE_KINDS, FiveBall
from luza.rules.five_ball import FOUL_KINDS as FB_FOULS
from luza.rules.free_pyramid import FOUL_KINDS as FP_FOULS
from luza.rules.free_pyramid import FreePyramid

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "rules" / "REFEREE.md").read_text()


def test_output_blocks_are_the_real_output(capsys, monkeypatch):
    """Each block after an ``<!-- output: luza score ... -->`` marker is the start of what that
    command prints now (run from the repository root)."""
    blocks = re.findall(r"<!-- output: luza (.+?) -->\n```\n(.*?)```", DOC, re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(ROOT)
    for cmd, text in blocks:
        capsys.readouterr()
        assert main(shlex.split(cmd)) == 0
        out = capsys.readouterr().out.splitlines()
        want = text.rstrip("\n").splitlines()
        assert out[: len(want)] == want, cmd


def _table(heading: str) -> str:
    i = DOC.index(heading)
    j = DOC.index("\n## ", i + 1) if "\n## " in DOC[i + 1 :] else len(DOC)
    return DOC[i:j]


def test_foul_kinds_and_options_in_the_doc_are_known():
    fp = re.findall(r"^\| `([a-z-]+)` \| (GR-[\d.]+) \|", _table("### 4.1 Free Pyramid"), re.M)
    assert fp and all(FP_FOULS[k] == rule for k, rule in fp)
    fb = _table("### 4.3 Five Ball: fouls and choices")
    for kinds, rule in re.findall(r"^\| (`[^|]+`) \| (FB-[\d.]+)", fb, re.M):
        for k in re.findall(r"`([a-z-]+)`", kinds):
            assert FB_FOULS[k][0] == rule, k
    for k in re.findall(r"`([a-z0-9-]+)`", fb.split("Choices:")[1]):
        assert k in CHOICE_KINDS or k == "player", k
    opts = _table("## 8. Options")
    fp_part, fb_part = opts.split("Five Ball:")
    for part, game in ((fp_part, FreePyramid), (fb_part, FiveBall)):
        names = re.findall(
            r"`([a-z_]+)`",
            "\n".join(x.split("|")[1] for x in part.splitlines() if x.startswith("| `")),
        )
        assert set(names) == set(game.OPTIONS), set(names) ^ set(game.OPTIONS)
