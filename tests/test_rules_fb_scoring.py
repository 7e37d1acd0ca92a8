"""FB-8 scoring table: every ✓ cell of RULES.en.md FB-8.2, the golden cases, the 37."""

from __future__ import annotations

import pytest

from luza.rules.five_ball_scoring import (
    Pocketing,
    ScoringConfig,
    called_ball_points,
    is_finishing,
    luikka_points,
    score_items,
    shot_points,
)

NAKKI = {"W": "white", "R": "red", "K": "kaisa"}

# (called ball, pocket kind, nakki balls, expected) -- each ✓ cell of the FB-8.2 table,
# plus the two model rows and the two cells the digest reasons out (¹, ²).
FB_8_2_CELLS = [
    ("white", "corner", "", 2),
    ("white", "corner", "R", 4),
    ("white", "corner", "RR", 7),
    ("white", "corner", "K", 7),
    ("white", "corner", "KR", 10),
    ("white", "corner", "KRR", 13),
    ("red", "corner", "", 3),
    ("red", "corner", "W", 5),
    ("red", "corner", "R", 6),
    ("red", "corner", "WR", 8),
    ("red", "corner", "K", 9),
    ("red", "corner", "KW", 11),
    ("red", "corner", "KR", 12),
    ("red", "corner", "KRW", 14),
    ("kaisa", "corner", "", 6),
    ("kaisa", "corner", "W", 11),
    ("kaisa", "corner", "R", 12),  # note 1 / AMB-14: E2's 14 is a typo
    ("kaisa", "corner", "WR", 14),
    ("kaisa", "corner", "RR", 15),
    ("kaisa", "middle", "", 12),  # note 2 / AMB-2
    ("kaisa", "middle", "W", 17),
    ("kaisa", "middle", "R", 18),
    ("kaisa", "middle", "WR", 20),
    ("kaisa", "middle", "RR", 21),
    ("kaisa", "corner", "WRR", 17),  # model row
    ("kaisa", "middle", "WRR", 23),  # model row
]


@pytest.mark.parametrize(("called", "pk", "nakki", "expected"), FB_8_2_CELLS)
def test_fb_8_2_scoring_table_cell(called, pk, nakki, expected):
    """FB-8.1/FB-8.2: the called ball's value with its nakki, cell by cell."""
    p = Pocketing(called, pk, nakki=tuple(NAKKI[c] for c in nakki))
    assert shot_points(p) == expected
    # The same cell in a middle pocket is the same for a white or a red (FB-8.1 "any").
    if called != "kaisa":
        assert shot_points(Pocketing(called, "middle", nakki=p.nakki)) == expected


def test_fb_8_2_nakki_order_does_not_matter():
    a = Pocketing("red", "corner", nakki=("kaisa", "red", "white"))
    b = Pocketing("red", "corner", nakki=("white", "kaisa", "red"))
    assert shot_points(a) == shot_points(b) == 14


def test_fb_8_1_banked_kaisa_middle_is_12_and_straight_is_configurable():
    """FB-8.1 / AMB-2: banked middle 12; straight middle 12 by default, 6 if configured."""
    banked = Pocketing("kaisa", "middle", banked=True)
    straight = Pocketing("kaisa", "middle")
    assert shot_points(banked) == 12
    assert shot_points(straight) == 12
    six = ScoringConfig(kaisa_middle_straight=6)
    assert shot_points(straight, six) == 6
    assert shot_points(banked, six) == 12


@pytest.mark.parametrize("pk", ["corner", "middle"])
def test_fb_8_5c_kaisa_by_combination_is_6_without_nakki(pk):
    """FB-8.5c / FB-8.2b: kaisa by combination or off a ball = 6, nakki ignored (§9.2)."""
    p = Pocketing("kaisa", pk, trick=True, nakki=("white", "red"))
    assert shot_points(p) == 6
    assert called_ball_points(p)[0].rule in ("FB-8.5c",)


def test_fb_8_2b_no_nakki_for_red_via_a_ball_but_luikka_counts():
    """FB-8.2b: no nakki via a ball or by combination; luikka points still count."""
    p = Pocketing("red", "corner", trick=True, nakki=("kaisa",), luikka_off="kaisa")
    assert shot_points(p) == 3 + 6


def test_fb_8_3_extra_balls_add_their_values():
    """FB-8.3: other object balls that drop add white 2, red 3, kaisa 6 (AMB-3 middle 6)."""
    p = Pocketing("red", "corner", extra=(("white", "corner"), ("kaisa", "middle")))
    assert shot_points(p) == 3 + 2 + 6
    twelve = ScoringConfig(extra_kaisa_middle=12)
    assert shot_points(p, twelve) == 3 + 2 + 12


def test_fb_8_3_a_ball_can_be_nakki_and_extra():
    p = Pocketing("red", "corner", nakki=("white",), extra=(("white", "corner"),))
    assert shot_points(p) == 5 + 2


@pytest.mark.parametrize(
    ("first", "pk", "banked", "expected"),
    [
        ("kaisa", "corner", False, 6),
        ("kaisa", "corner", True, 6),
        ("kaisa", "middle", True, 12),
        ("kaisa", "middle", False, 6),
        ("red", "corner", False, 3),
        ("red", "middle", True, 3),
        ("white", "corner", False, 2),
    ],
)
def test_fb_8_4_called_luikka_values(first, pk, banked, expected):
    """FB-8.4 / AMB-4: luikka by the first ball struck; 12 only via kaisa + cushions to middle."""
    p = Pocketing("luikka", pk, banked=banked, luikka_off=first)
    assert shot_points(p) == expected


def test_fb_8_4_uncalled_luikka_off_kaisa_is_6_not_12():
    assert luikka_points("kaisa", "middle", called=False, banked_after_via=True).points == 6


def test_fb_8_2c_no_nakki_in_luikka_calls():
    p = Pocketing("luikka", "corner", nakki=("red", "white"), luikka_off="kaisa")
    assert shot_points(p) == 6


def test_fb_8_6_the_37_point_shot_comes_out_of_the_rules():
    """FB-8.6: kaisa middle + nakki W,R,R + all three drop + uncalled luikka off the kaisa."""
    p = Pocketing(
        "kaisa",
        "middle",
        nakki=("white", "red", "red"),
        extra=(("white", "corner"), ("red", "corner"), ("red", "middle")),
        luikka_off="kaisa",
    )
    items = score_items(p)
    assert sum(i.points for i in items) == 37
    assert [i.rule for i in items] == ["FB-8.2"] * 4 + ["FB-8.4"] + ["FB-8.3"] * 3
    # A flat model (no base' for nakki) would not reach 37: base' is what does it.
    flat = ScoringConfig(nakki_base_kaisa_middle=12)
    assert shot_points(p, flat) == 34


@pytest.mark.parametrize(
    ("p", "finishing"),
    [
        (Pocketing("red", "corner"), True),
        (Pocketing("kaisa", "middle", nakki=("white",)), True),
        (Pocketing("white", "corner"), False),
        (Pocketing("white", "corner", nakki=("red",)), True),
        (Pocketing("white", "corner", trick=True, nakki=("red",)), False),
        (Pocketing("white", "corner", trick=True, extra=(("red", "corner"),)), True),
        (Pocketing("luikka", "corner", luikka_off="red"), True),
        (Pocketing("luikka", "corner", luikka_off="kaisa"), True),
        (Pocketing("luikka", "corner", luikka_off="white"), False),
        (Pocketing("luikka", "corner", luikka_off="white", extra=(("kaisa", "corner"),)), True),
    ],
)
def test_fb_13_2_finishing_shots(p, finishing):
    """FB-13.2 / FB-13.3: which legal shots may end the game."""
    assert is_finishing(p) is finishing


def test_pocketing_rejects_nonsense():
    with pytest.raises(ValueError):
        Pocketing("blue", "corner")
    with pytest.raises(ValueError):
        Pocketing("red", "side")
    with pytest.raises(ValueError):
        Pocketing("luikka", "corner")
