"""Every rule a camera or an operator can decide has a test that cites it (issues 6 and 7).

The rule ids are read from the rules digest ``RULES.en.md``: bold ``**GR-n.m**``
/ ``**FP-n.m**`` / ``**FB-n.m**`` paragraphs, ``#### FB-8.n`` headings, ``| FB-10.n |``
table rows, and the sections that have no numbered sub-rules (``#### GR-16 ...``,
``**GR-24 ...**``, ``#### FP-7 ...``).  A test *cites* a rule in its name
(``test_gr_13_2_...`` cites GR-13.2) or in its docstring (a docstring that says "FB-14.5: ...").

Rules no camera or operator can decide (an equipment standard, a rule of another
game) are exempt: :data:`EXEMPT` lists each with its reason, and a test checks that
none of them has a ``CAM: Y``/``CAM: P`` note, an ``Events:`` line or an ``OP-``
input in its text -- so the list cannot hide a decidable rule.

Where the digest is not on this machine (``/work/shared`` absent, as in CI) the
ids come from :data:`RULE_IDS`, a snapshot that another test keeps equal to the
digest whenever it is present.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
DIGEST_CANDIDATES = [
    Path(os.environ.get("LUZA_RULES_MD", "/nonexistent")),
    Path("/work/shared/rules-src/RULES.en.md"),
    TESTS.parents[1] / "shared" / "rules-src" / "RULES.en.md",
]

# id -> why no camera or operator input can decide it (one line each).
EXEMPT: dict[str, str] = {
    "GR-1": "equipment standard (TB-2): the table profile holds the sizes, nothing to rule",
    "GR-20": "stroke-completion rule of Combined/Dynamic Pyramid; Free Pyramid does not use it",
}

_ID = r"(?:GR|FP|FB)-\d+(?:\.\d+)?"
# A marker starts a rule's text: a bold id, a heading, or a table row at the start of a line.
_MARKER = re.compile(rf"^(?:\*\*({_ID})\*\*|#+ ({_ID})\b|\| ({_ID}) \||\*\*({_ID})\b)", re.M)
# A rule someone can decide: a CAM: Y/P note, an Events: line, an OP- input, or a table row
# whose last (CAM) cell is Y, P or N (a referee's call, e.g. FB-10.4).
_DECIDABLE = re.compile(r"CAM: (?:Y|P)|Events:|OP-|\|[^|\n]*\b[YPN](?:/[YPN])?\s*\|\s*$", re.M)


def parse_rules(text: str) -> dict[str, str]:
    """{rule id: its text} for every numbered rule of the digest (see the module docstring).

    A section id (``GR-5``) is kept only when it has no ``GR-5.m`` of its own."""
    marks = [(m.start(), next(g for g in m.groups() if g)) for m in _MARKER.finditer(text)]
    blocks: dict[str, str] = {}
    for k, (start, rid) in enumerate(marks):
        end = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        blocks.setdefault(rid, text[start:end])
    subs = {r.split(".")[0] for r in blocks if "." in r}
    return {r: b for r, b in blocks.items() if "." in r or r not in subs}


def cited_in(sources: dict[str, str]) -> dict[str, list[str]]:
    """{rule id: [test names]} from test function names and docstrings."""
    out: dict[str, list[str]] = {}
    for name, src in sources.items():
        for node in ast.walk(ast.parse(src)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if not node.name.startswith("test"):
                continue
            ids = set(re.findall(rf"\b({_ID})", ast.get_docstring(node) or ""))
            for m in re.finditer(r"(?<![a-z])(gr|fp|fb)_(\d+)(?:_(\d+))?", node.name):
                ids.add(f"{m[1].upper()}-{m[2]}" + (f".{m[3]}" if m[3] else ""))
            for rid in ids:
                out.setdefault(rid, []).append(f"{name}::{node.name}")
    return out


def uncited(ids: set[str], cited: dict[str, list[str]], exempt: set[str]) -> list[str]:
    """Non-exempt ids no test cites; a sub-rule (GR-22.c) also cites its section (GR-22)."""
    have = set(cited) | {c.split(".")[0] for c in cited}

    def key(r: str) -> tuple:
        p, n = r.split("-")
        return (p, [int(x) for x in n.split(".")])

    return sorted((r for r in ids - exempt if r not in have), key=key)


def rule_test_sources() -> dict[str, str]:
    me = Path(__file__).name
    return {p.name: p.read_text() for p in sorted(TESTS.glob("test_rules_*.py")) if p.name != me}


def digest() -> str | None:
    for p in DIGEST_CANDIDATES:
        if p.is_file():
            return p.read_text(encoding="utf-8")
    return None


# Snapshot of the digest's rule ids (kept equal to it by test_snapshot_matches_the_digest).
RULE_IDS = """
FB-1.1 FB-1.2 FB-1.3 FB-1.4 FB-2.1 FB-2.2 FB-2.3 FB-3.1 FB-3.2 FB-3.3 FB-3.4 FB-3.5 FB-4.1
FB-4.2 FB-4.3 FB-4.4 FB-4.5 FB-5.1 FB-5.2 FB-5.3 FB-6.1 FB-6.2 FB-6.3 FB-6.4 FB-6.5 FB-6.6
FB-7.1 FB-7.2 FB-7.3 FB-7.4 FB-8.1 FB-8.2 FB-8.3 FB-8.4 FB-8.5 FB-8.6 FB-8.7 FB-9.1 FB-9.2
FB-9.3 FB-9.4 FB-9.5 FB-9.6 FB-9.7 FB-10.1 FB-10.2 FB-10.3 FB-10.4 FB-10.5 FB-10.6 FB-10.7
FB-10.8 FB-10.9 FB-10.10 FB-10.11 FB-10.12 FB-10.13 FB-10.14 FB-10.15 FB-11.1 FB-11.2
FB-11.3 FB-11.4 FB-11.5 FB-12.1 FB-12.2 FB-12.3 FB-12.4 FB-12.5 FB-12.6 FB-13.1 FB-13.2
FB-13.3 FB-13.4 FB-13.5 FB-13.6 FB-14.1 FB-14.2 FB-14.3 FB-14.4 FB-14.5 FB-14.6 FB-14.7
FB-14.8 FB-14.9 GR-1 GR-2 GR-3 GR-4 GR-5.1 GR-5.2 GR-6.1 GR-6.2 GR-6.3 GR-6.4 GR-7.1 GR-7.2
GR-7.3 GR-7.4 GR-8.1 GR-8.2 GR-8.3 GR-8.4 GR-9.1 GR-9.2 GR-9.3 GR-10 GR-11 GR-12.1 GR-12.2
GR-12.3 GR-12.4 GR-12.5 GR-13.1 GR-13.2 GR-14 GR-15.1 GR-15.2 GR-16 GR-17 GR-18 GR-19.1
GR-19.2 GR-20 GR-22 GR-23 GR-24 GR-25 GR-26 FP-1 FP-2 FP-3 FP-4 FP-5.1 FP-5.2 FP-5.3 FP-5.4
FP-5.5 FP-6.1 FP-6.2 FP-7 FP-8 FP-9
""".split()  # noqa: SIM905 -- one block to compare with the digest


def current_ids() -> set[str]:
    text = digest()
    return set(parse_rules(text)) if text is not None else set(RULE_IDS)


def test_every_rule_a_camera_or_operator_can_decide_is_cited_by_a_test():
    """Issue 6/7 acceptance: each non-exempt GR/FP/FB rule has a citing test."""
    missing = uncited(current_ids(), cited_in(rule_test_sources()), set(EXEMPT))
    assert not missing, "rules no test cites (by name or docstring): " + ", ".join(missing)


def unknown_citations(ids: set[str], cited: dict[str, list[str]]) -> list[str]:
    """Cited ids that are no rule: not an id, not a section of ids (FB-12), and not a
    numbered point of a rule without sub-rules (GR-25.2)."""
    sections = {r.split(".")[0] for r in ids}
    return sorted(
        f"{c} ({cited[c][0]})"
        for c in cited
        if c not in ids and c not in sections and c.split(".")[0] not in ids
    )


def test_tests_cite_only_rules_that_exist():
    """A typo in a citation (GR-5.16 for GR-5.1) would cite nothing: refuse it."""
    bad = unknown_citations(current_ids(), cited_in(rule_test_sources()))
    assert not bad, "tests cite rules the digest does not have: " + ", ".join(bad)


def test_exemptions_are_rules_nobody_can_decide():
    """Each exempt id exists and its text has no CAM: Y/P note, no Events: and no OP- input."""
    text = digest()
    if text is None:
        pytest.skip("RULES.en.md is not on this machine")
    rules = parse_rules(text)
    for rid, why in EXEMPT.items():
        assert rid in rules, f"{rid} is exempt but not a rule of the digest"
        assert why.strip(), rid
        hit = _DECIDABLE.search(rules[rid])
        assert hit is None, f"{rid} is exempt but its text says {hit.group(0)!r}"


def test_snapshot_matches_the_digest():
    text = digest()
    if text is None:
        pytest.skip("RULES.en.md is not on this machine")
    assert sorted(parse_rules(text)) == sorted(RULE_IDS)


DIGEST_SAMPLE = """
#### GR-5 Striking the cue ball

**GR-5.1** Strike only with the tip. CAM: N.

#### GR-16 Touching balls

Touching any ball is a foul. CAM: P (detection) / N (attribution).

| ID | Foul |
|---|---|
| FB-10.4 | Body, clothes or cue touch any ball | 0 | passes | as they lie | N/P |

#### FB-8.6 The 37 points

**GR-24 Hanging balls** [E21] (M):
"""

TESTS_SAMPLE = '''
def test_gr_5_1_non_tip():
    pass

def test_something_else():
    """FB-10.4 and GR-24.b: referee fouls; a hanging ball."""

def helper_gr_16():
    """GR-16 -- not a test, does not count."""
'''


def test_the_checker_finds_an_uncited_rule():
    """The checker can fail: GR-16 and FB-8.6 below are not cited, and a helper does not count."""
    rules = parse_rules(DIGEST_SAMPLE)
    assert sorted(rules) == ["FB-10.4", "FB-8.6", "GR-16", "GR-24", "GR-5.1"]
    cited = cited_in({"t.py": TESTS_SAMPLE})
    assert set(cited) == {"GR-5.1", "FB-10.4", "GR-24"}
    assert uncited(set(rules), cited, set()) == ["FB-8.6", "GR-16"]
    assert uncited(set(rules), cited, {"GR-16", "FB-8.6"}) == []
    assert _DECIDABLE.search(rules["GR-16"]) and _DECIDABLE.search(rules["FB-10.4"])
    assert unknown_citations(set(rules), {"GR-5.16": ["t"], "GR-24.2": ["t"], "GR-5": ["t"]}) == [
        "GR-5.16 (t)"
    ]
