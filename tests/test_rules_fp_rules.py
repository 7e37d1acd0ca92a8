"""Free Pyramid and the General Pyramid Rules, rule by rule (RULES.en.md section 4).

Each test names the rule it checks.  Streams are written with
``luza.rules.builder.StreamBuilder``; most start from a spread-out table with
a 0-0 score (a game taken up) so a single stroke can be judged on its own.
"""

from __future__ import annotations

import pytest

from luza.rules.builder import StreamBuilder
from luza.rules.engine import RuleError
from luza.rules.record import score_items

L, W, D = 3550.0, 1775.0, 68.0
BALLS = ["Y", *(str(i) for i in range(1, 16))]


def spread() -> dict[str, tuple[float, float]]:
    """16 balls well apart, none near the long axis behind the centre line."""
    return {b: (400.0 + (i % 6) * 300.0, 250.0 + (i // 6) * 400.0) for i, b in enumerate(BALLS)}


def mid(score=None, **extra) -> StreamBuilder:
    b = StreamBuilder()
    pos = spread()
    if score:
        for k, b_ in enumerate([x for x in BALLS if x not in ("Y",)][: sum(score.values())]):
            pos.pop(b_)
            del k
    b.table_state(pos, score=score or {"A": 0, "B": 0}, **extra)
    return b


def run(b: StreamBuilder, **options):
    return score_items(b.items(), options=options)


def one(b: StreamBuilder, **options):
    s = run(b, **options)
    return s.rulings[-1], s


def legal_break(b: StreamBuilder, player=None) -> StreamBuilder:
    b.strike("Y", player).hit("Y", "1").cushion("11", "foot").cushion("15", "foot")
    b.cushion("12", "right-foot")
    return b.end({"Y": (1500.0, 300.0)})


# ---- GR-6 contact ----
def test_gr_6_2_no_contact_is_a_foul_and_turn_passes():
    b = mid()
    b.strike("3").cushion("3", "foot").end({"3": (2000.0, 800.0)})
    r, s = one(b)
    assert r.foul and [f.rule for f in r.fouls] == ["GR-6.2"]
    assert r.points == 0 and r.next == "B"
    assert "GR-7.4" in r.rules and s.final["score"] == {"A": 0, "B": 0}


def test_gr_6_1_contact_then_nothing_pocketed_passes_the_turn_gr_7_2_fp_5_3():
    b = mid()
    b.strike("3").hit("3", "4").end({"4": (900.0, 500.0)})
    r, _ = one(b)
    assert not r.foul and r.points == 0 and r.next == "B"
    assert {"GR-6.1", "GR-7.2", "FP-5.3"} <= set(r.rules)


def test_gr_6_4_touching_ball_that_does_not_move_is_no_contact():
    pos = spread()
    pos["4"] = (pos["3"][0] + D, pos["3"][1])  # touching
    b = StreamBuilder()
    b.table_state(pos, score={"A": 0, "B": 0})
    b.strike("3").hit("3", "4").cushion("3", "left-head").end({"3": (300.0, 800.0)})
    r, _ = one(b)
    assert [f.rule for f in r.fouls] == ["GR-6.2"] and "GR-6.4" in r.rules


def test_gr_6_4_touching_ball_that_moves_is_a_contact():
    pos = spread()
    pos["4"] = (pos["3"][0] + D, pos["3"][1])
    b = StreamBuilder()
    b.table_state(pos, score={"A": 0, "B": 0})
    b.strike("3").hit("3", "4").cushion("4", "right-head").end({"4": (900.0, 1500.0)})
    r, _ = one(b)
    assert not r.foul
    assert any("GR-19 suggestion" in n for n in r.notes)  # a close ball: an alarm, not a ruling


# ---- GR-7 order of play, FP-5 play, FP-6 scoring ----
def test_fp_5_5_every_ball_that_falls_counts_and_gr_7_1_play_again():
    """FP-5.2 / FP-5.5 / FP-6.1 / GR-7.1: every ball that falls on a legal stroke is +1 and the
    striker plays again."""
    b = mid()
    b.strike("3").hit("3", "4").hit("4", "5").pocket("4", "foot-left").pocket("5", "middle-left")
    b.end()
    r, s = one(b)
    assert r.points == 2 and r.next == "A" and s.game.shelf[0] == ["4", "5"]
    assert {"FP-5.5", "FP-6.1", "GR-7.1", "FP-5.2"} <= set(r.rules)


def test_fp_5_4_in_off_counts_one_more():
    """Golden (RULES 9.2): an in-off after contacting an object ball is +1 and continue."""
    b = mid()
    b.strike("3").hit("3", "4").pocket("3", "foot-left").end({"4": (900.0, 500.0)})
    r, _ = one(b)
    assert not r.foul and r.points == 1 and r.next == "A" and "FP-5.4" in r.rules


def test_fp_2_any_ball_may_be_the_cue_ball_and_gr_7_3_out_of_turn():
    """FP-2 / FP-5.1 / GR-4: the striker picks any ball as the cue ball, the others are object
    balls; GR-7.3: striking again out of turn is a foul."""
    b = mid()
    b.strike("9", "A").hit("9", "10").end({"10": (1200.0, 700.0)})
    b.strike("12", "A").hit("12", "2").end({"2": (1200.0, 1400.0)})
    s = run(b)
    first, second = s.rulings
    assert not first.foul and "FP-2" in first.rules and first.next == "B"
    assert second.foul and second.fouls[0].rule == "GR-7.3"


def test_gr_7_3_out_of_turn_from_an_operator_input():
    b = mid()
    b.strike("3").hit("3", "4").foul("out-of-turn").end({"4": (900.0, 500.0)})
    r, _ = one(b)
    assert r.foul and r.fouls[0].rule == "GR-7.3"


def test_unknown_player_names_the_line():
    b = mid()
    b.strike("3", "Carl").hit("3", "4").end()
    with pytest.raises(RuleError, match=r"gen:2: unknown player 'Carl'"):
        run(b)


# ---- GR-7.4 / FP-7 after a foul ----
def test_fp_7_penalty_ball_goes_to_the_non_offender_fp_6_2():
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})  # no contact
    b.remove("7")
    r, s = one(b)
    assert r.points == 0 and s.final["score"] == {"A": 0, "B": 1}
    assert s.game.shelf[1] == ["7"] and {"FP-7", "FP-6.2"} <= set(r.rules)


def test_fp_7_no_removal_before_the_next_stroke_no_point():
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.strike("5", "B").hit("5", "6").end()
    s = run(b)
    assert s.rulings[0].foul and any("no penalty ball" in n for n in s.rulings[0].notes)
    assert s.final["score"] == {"A": 0, "B": 0}


def test_fp_7_only_one_penalty_ball_per_foul():
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.remove("7").remove("8")
    r, s = one(b)
    assert s.final["score"] == {"A": 0, "B": 1} and s.game.held == {"8"}
    assert any("ball 8 taken off" in n for n in r.notes)


@pytest.mark.parametrize("kind, nxt", [("play", "B"), ("hand-back", "A"), ("pass", "A")])
def test_gr_7_4_non_offender_chooses(kind, nxt):
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.remove("7").choice(kind)
    r, _ = one(b)
    assert r.next == nxt and "GR-7.4" in r.rules


def test_gr_7_4_choice_inferred_from_who_strikes_next():
    b = mid()
    b.strike("3", "A").end({"3": (2000.0, 800.0)})
    b.remove("7")
    b.strike("5", "A").hit("5", "6").end()
    s = run(b)
    assert s.rulings[0].next == "A" and any("struck next" in n for n in s.rulings[0].notes)
    assert not s.rulings[1].foul  # not out of turn: B handed the stroke back


def test_gr_7_4_unknown_choice_names_the_line():
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.choice("rerack-self")  # only after a break (GR-13.2)
    with pytest.raises(RuleError, match=r"gen:4: choice 'rerack-self'"):
        run(b)


# ---- operator fouls the camera cannot see (GR-5, GR-16..19) ----
@pytest.mark.parametrize(
    "kind, rule",
    [
        ("non-tip", "GR-5.1"),
        ("foot-off-floor", "GR-5.2"),
        ("touched-ball", "GR-16"),
        ("double-hit", "GR-17"),
        ("push", "GR-18"),
        ("close-balls", "GR-19.1"),
    ],
)
def test_operator_fouls_gr_5_and_gr_16_to_19(kind, rule):
    """GR-5.1 / GR-5.2 / GR-16 / GR-17 / GR-18 / GR-19.1: fouls only the referee sees, entered as
    inputs: the stroke's pocket is respotted (GR-22.c) and the opponent takes a penalty ball."""
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul(kind).end()
    b.remove("9")
    r, s = one(b)
    assert r.foul and r.fouls[0].rule == rule and r.points == 0
    # GR-22.c: the ball pocketed in the foul stroke is respotted, on the rear spot
    assert [(x.ball, x.pos) for x in r.respots] == [("4", (L * 0.75, W / 2))]
    assert s.final["score"] == {"A": 0, "B": 1} and s.game.awaiting == {"4": (L * 0.75, W / 2)}


def test_operator_foul_rule_field_wins():
    b = mid()
    b.strike("3").hit("3", "4").add("foul", kind="other", rule="GR-16").end()
    r, _ = one(b)
    assert r.fouls[0].rule == "GR-16"


def test_gr_22_c_foul_after_the_stroke_keeps_its_pockets():
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()
    b.foul("touched-ball")
    b.remove("9")
    r, s = one(b)
    assert r.foul and r.points == 1 and not r.respots
    assert s.final["score"] == {"A": 1, "B": 1}


def test_gr_16_ball_moved_is_only_a_suggestion():
    b = mid()
    b.strike("3").hit("3", "4").end({"4": (900.0, 500.0)})
    b.moved("10", (1000.0, 1500.0))
    r, _ = one(b)
    assert not r.foul and any("GR-16 suggestion" in n for n in r.notes)


def test_low_confidence_events_are_flagged_not_ruled():
    b = mid()
    b.strike("3").hit("3", "4", confidence=0.3).end({"4": (900.0, 500.0)})
    r, _ = one(b)
    assert not r.foul and any("low-confidence 'collision'" in n for n in r.notes)


# ---- GR-15.2 ----
def test_gr_15_2_strike_before_rest_marked_on_shot_end():
    b = mid()
    b.strike("3").hit("3", "4").end({"4": (900.0, 500.0)}, at_rest=False)
    b.strike("5", "B").hit("5", "6").pocket("6", "foot-left").end()
    s = run(b)
    assert not s.rulings[0].foul
    assert s.rulings[1].fouls[0].rule == "GR-15.2" and s.rulings[1].points == 0


def test_gr_15_2_strike_before_rest_marked_on_shot_start():
    b = mid()
    b.strike("3", before_rest=True).hit("3", "4").end()
    r, _ = one(b)
    assert r.fouls[0].rule == "GR-15.2"


# ---- GR-23 jumped balls, GR-22.e bounce-outs, GR-24 hanging balls ----
def test_gr_23_jumped_ball_is_a_foul_and_respotted():
    b = mid()
    b.strike("3").hit("3", "4").off("4").end()
    r, s = one(b)
    assert r.fouls[0].rule == "GR-23" and [x.ball for x in r.respots] == ["4"]
    assert "4" in s.game.awaiting


def test_gr_23_legacy_option_jumped_object_ball_no_foul():
    b = mid()
    b.strike("3").hit("3", "4").off("4").end()
    r, _ = one(b, jumped_ball_foul=False)
    assert not r.foul and [x.ball for x in r.respots] == ["4"] and "GR-23" in r.rules


def test_gr_22_e_bounce_out_is_not_pocketed():
    b = mid()
    b.strike("3").hit("3", "4").bounce_out("4", "foot-left").end({"4": (3400.0, 200.0)})
    r, _ = one(b)
    assert not r.foul and r.points == 0 and "GR-22.e" in r.rules and r.next == "B"


def test_gr_24_hanging_ball_falling_within_5_s_counts():
    b = mid()
    b.strike("3").hit("3", "4").hang("4", "foot-left").end({"4": (3520.0, 30.0)})
    b.hang_fall("4", "foot-left", dt=2.0)
    r, _ = one(b)
    assert r.points == 1 and r.next == "A" and "GR-24" in r.rules


def test_gr_24_hanging_ball_falling_after_5_s_goes_back():
    b = mid()
    b.strike("3").hit("3", "4").hang("4", "foot-left").end({"4": (3520.0, 30.0)})
    b.hang_fall("4", "foot-left", dt=7.0)
    b.place("4", (3520.0, 30.0))
    r, s = one(b)
    assert r.points == 0 and r.next == "B"
    assert [(x.ball, x.pos) for x in r.respots] == [("4", (3520.0, 30.0))]
    assert any("GR-24: ball 4 respotted correctly" in n for n in r.notes)
    assert not s.game.awaiting


# ---- GR-25 / FP-8 respots against the real table ----
def test_gr_25_respot_behind_a_ball_on_the_rear_spot_and_placement_check():
    """GR-25 / GR-2: the rear spot (3L/4, W/2) is taken, so ball 4 goes on the respot line tight
    behind it; the placement is checked."""
    pos = spread()
    pos["10"] = (L * 0.75, W / 2)  # the rear spot is taken
    b = StreamBuilder()
    b.table_state(pos, score={"A": 0, "B": 0})
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    b.remove("9")
    b.place("4", (L * 0.75 + D + 3.0, W / 2))
    r, s = one(b)
    assert [(x.ball, x.pos) for x in r.respots] == [("4", (L * 0.75 + D, W / 2))]
    assert any("GR-25: ball 4 respotted correctly (3.0 mm off)" in n for n in r.notes)
    assert not s.game.awaiting


def test_gr_25_wrong_placement_is_reported_not_ruled():
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    b.place("4", (1000.0, W / 2))
    r, _ = one(b)
    assert any("GR-25 check: ball 4 placed at (1000.0, 887.5)" in n for n in r.notes)
    assert [f.rule for f in r.fouls] == ["GR-18"]


def test_fp_8_respotted_ball_may_be_the_cue_ball():
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    b.place("4", (L * 0.75, W / 2)).choice("hand-back")
    b.strike("4", "A").hit("4", "14").pocket("14", "foot-right").end()
    s = run(b)
    assert not s.rulings[1].foul and s.rulings[1].points == 1


def test_a_scored_ball_cannot_come_back():
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").end()
    b.place("4", (L * 0.75, W / 2))
    with pytest.raises(RuleError, match=r"gen:6: ball 4 is on A's shelf"):
        run(b)


# ---- FP-1 / FP-9 end of the game ----
def test_fp_1_eight_points_win_and_a_later_stroke_is_an_error():
    b = mid(score={"A": 7, "B": 3})
    b.strike("Y").hit("Y", "12").pocket("12", "foot-left").end()
    r, s = one(b)
    assert s.final == {"type": "final", "score": {"A": 8, "B": 3}, "winner": "A"}
    assert r.next is None and "FP-1" in r.rules
    b.strike("13").hit("13", "14").end()
    with pytest.raises(RuleError, match="gen:6: a stroke after the game ended"):
        run(b)


def test_fp_7_penalty_ball_can_win_the_game():
    b = mid(score={"A": 3, "B": 7})
    b.strike("Y").end({"Y": (2000.0, 800.0)})
    b.remove("12")
    r, s = one(b)
    assert s.final["winner"] == "B" and s.final["score"] == {"A": 3, "B": 8} and r.next is None


def test_gr_22_c_foul_after_the_winning_stroke_brings_no_penalty():
    b = mid(score={"A": 7, "B": 3})
    b.strike("Y").hit("Y", "12").pocket("12", "foot-left").end()
    b.foul("touched-ball")
    b.remove("13")
    r, s = one(b)
    assert s.final["score"] == {"A": 8, "B": 3} and s.final["winner"] == "A"
    assert any("after the winning stroke" in n for n in r.notes)


def test_fp_9_last_two_balls_a_miss_gives_the_game_away():
    """FP-9: at 7-7 two balls are left; a stroke that misses (GR-6.2) lets the opponent take
    one as the penalty ball and win 8-7."""
    b = StreamBuilder()
    b.table_state({"5": (1000.0, 500.0), "6": (2000.0, 1200.0)}, score={"A": 7, "B": 7})
    b.strike("5").cushion("5", "foot").end({"5": (2000.0, 500.0)})
    b.remove("6")
    r, s = one(b)
    assert r.fouls[0].rule == "GR-6.2" and s.final == {
        "type": "final",
        "score": {"A": 7, "B": 8},
        "winner": "B",
    }
    assert {"FP-9", "FP-1"} <= set(r.rules)


def test_starting_score_must_match_the_balls_on_the_table():
    b = StreamBuilder()
    b.table_state(spread(), score={"A": 2, "B": 0})
    b.strike("3").hit("3", "4").end()
    with pytest.raises(RuleError, match="gen:1: 16 balls on the table and 2 points"):
        run(b)


# ---- GR-9, GR-12, GR-13 the break ----
def test_gr_13_1_legal_break_three_cushioned_balls_and_gr_9_1_rack_check():
    """GR-13.1 / GR-9.1 / FP-3 / FP-4: from the full rack, the yellow breaks; three object balls at
    a cushion make it legal."""
    b = StreamBuilder().rack()
    legal_break(b)
    r, _ = one(b)
    assert not r.foul and {"GR-13.1", "GR-9.1", "FP-4"} <= set(r.rules) and r.next == "B"
    assert any("GR-9.1: rack checked" in n for n in r.notes)


def test_gr_13_1_legal_break_two_cushions_and_the_centre_line():
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").cushion("11", "foot").cushion("15", "foot")
    b.cross("1", "centre", "-").end({"1": (1500.0, 900.0), "Y": (1000.0, 300.0)})
    r, _ = one(b)
    assert not r.foul


def test_gr_13_1_legal_break_a_pocketed_ball():
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").pocket("11", "foot-left").end({"Y": (1000.0, 300.0)})
    r, _ = one(b)
    assert not r.foul and r.points == 1 and r.next == "A"


def test_golden_illegal_break_two_cushions_no_centre_line_gr_13_2():
    """Golden (RULES 9.2): 2 object balls at a cushion, none over the centre line -> foul;
    the opponent takes a penalty ball (+1), then chooses per GR-13.2."""
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").cushion("11", "foot").cushion("15", "foot")
    b.end({"Y": (1000.0, 300.0)})
    b.remove("13")
    r, s = one(b)
    assert [f.rule for f in r.fouls] == ["GR-13.1"] and r.points == 0
    assert s.final["score"] == {"A": 0, "B": 1} and "GR-13.2" in r.rules and r.next == "B"


@pytest.mark.parametrize(
    "kind, nxt, rerack",
    [
        ("play", "B", False),
        ("hand-back", "A", False),
        ("rerack-self", "B", True),
        ("rerack-opponent", "A", True),
    ],
)
def test_gr_13_2_four_options_after_an_illegal_break(kind, nxt, rerack):
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").end({"Y": (1000.0, 300.0)})
    b.remove("13").choice(kind)
    r, s = one(b)
    assert r.next == nxt and "GR-13.2" in r.rules
    assert (s.game.phase == "rerack") == rerack
    if rerack:  # 14 balls to rack: rows 2-5 full, apex empty (GR-9.3)
        assert len(r.respots) == 14 and "GR-9.3" in r.rules
        assert {x.pos for x in r.respots}.isdisjoint({(L * 0.75, W / 2)})


def test_gr_13_2_rerack_then_break_again_and_check_the_incomplete_pyramid():
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").end({"Y": (1000.0, 300.0)})
    b.remove("13").choice("rerack-opponent")
    s = run(b)
    new = {x.ball: x.pos for x in s.rulings[0].respots}
    new["Y"] = (600.0, W / 2)
    b.table_state(new)
    b.strike("Y", "A").hit("Y", "2").pocket("5", "foot-left").end({"Y": (1000.0, 300.0)})
    s = run(b)
    r = s.rulings[-1]
    assert not r.foul and r.points == 1 and r.player == "A"
    assert any("GR-9.3: rack checked" in n for n in r.notes)


def test_gr_12_2_break_with_a_white_ball_is_a_foul():
    b = StreamBuilder().rack()
    b.strike("15").hit("15", "12").cushion("1", "foot").cushion("2", "foot")
    b.cushion("3", "foot").end()
    r, _ = one(b)
    assert r.fouls[0].rule == "GR-12.2"


def test_gr_12_3_and_gr_11_cue_ball_on_the_house_line_is_a_warning_only():
    """GR-12.3 / GR-11 / GR-10: a ball's position is its centre, and a centre on the house line is
    outside the house: a warning, not a foul."""
    b = StreamBuilder().rack(cue_pos=(L / 4, W / 2))
    legal_break(b)
    r, _ = one(b)
    assert not r.foul and "GR-12.3" in r.rules and any("GR-12.3 warning" in n for n in r.notes)


def test_gr_9_1_a_bad_rack_is_a_suggestion():
    b = StreamBuilder()
    pos = b.rack_positions()
    pos["15"] = (pos["15"][0] + 30.0, pos["15"][1])
    b.table_state(pos)
    legal_break(b)
    r, _ = one(b)
    assert not r.foul and any("GR-9.1 suggestion: the rack looks wrong" in n for n in r.notes)


def test_gr_9_a_game_without_a_score_starts_from_the_full_rack():
    b = StreamBuilder()
    pos = spread()
    del pos["3"]
    b.table_state(pos)
    b.strike("Y").hit("Y", "4").end()
    with pytest.raises(RuleError, match="gen:1: 15 balls on the table at the break"):
        run(b)


# ---- GR-8 the lag ----
def lag(end_y, end_one, extra_y=(), extra_one=(), choice=None):
    b = StreamBuilder()
    b.table_state({"Y": (800.0, 600.0), "1": (800.0, 1200.0)})
    b.strike("Y", "A", lag=True).strike("1", "B", lag=True, dt=0.0)
    b.cushion("Y", "foot").cushion("1", "foot")
    for kind, arg in extra_y:
        getattr(b, kind)("Y", *arg)
    for kind, arg in extra_one:
        getattr(b, kind)("1", *arg)
    b.end({"Y": end_y, "1": end_one} if "Y" in b.pos and "1" in b.pos else None)
    if choice:
        b.choice(choice)
    return b


def test_gr_8_1_nearer_the_head_cushion_wins_and_breaks():
    r, s = one(lag((120.0, 600.0), (80.0, 1200.0)))
    assert r.shot == 0 and r.next == "B" and s.game.breaker == 1 and "GR-8.1" in r.rules


@pytest.mark.parametrize(
    "extra, why",
    [
        ([("cross", ("axis",))], "GR-8.2(1)"),
        ([("cushion", ("foot",))], "GR-8.2(6)"),
        ([("cushion", ("left-foot",))], "GR-8.2(5)"),
    ],
)
def test_gr_8_2_automatic_loss(extra, why):
    r, _ = one(lag((50.0, 600.0), (300.0, 1200.0), extra_y=extra))
    assert r.next == "B" and "GR-8.2" in r.rules and any(why in n for n in r.notes)


def test_gr_8_2_2_not_reaching_the_foot_cushion():
    b = StreamBuilder()
    b.table_state({"Y": (800.0, 600.0), "1": (800.0, 1200.0)})
    b.strike("Y", "A", lag=True).strike("1", "B", lag=True, dt=0.0)
    b.cushion("1", "foot").end({"Y": (2000.0, 600.0), "1": (300.0, 1200.0)})
    r, _ = one(b)
    assert r.next == "B" and any("GR-8.2(2)" in n for n in r.notes)


def test_gr_8_2_3_pocketed_lag_ball_loses():
    b = StreamBuilder()
    b.table_state({"Y": (800.0, 600.0), "1": (800.0, 1200.0)})
    b.strike("Y", "A", lag=True).strike("1", "B", lag=True, dt=0.0)
    b.cushion("Y", "foot").cushion("1", "foot").pocket("1", "head-right").end({"Y": (300.0, 600.0)})
    r, _ = one(b)
    assert r.next == "A" and any("GR-8.2(3)" in n for n in r.notes)


def test_gr_8_3_both_fail_or_too_close_repeat():
    r, s = one(
        lag(
            (50.0, 600.0),
            (300.0, 1200.0),
            extra_y=[("cross", ("axis",))],
            extra_one=[("cushion", ("right-head",))],
        )
    )
    assert r.next is None and "GR-8.3" in r.rules and s.game.phase == "start"
    r, _ = one(lag((100.0, 600.0), (101.0, 1200.0)))
    assert r.next is None and "GR-8.3" in r.rules


def test_gr_8_4_winner_lets_the_opponent_break_then_the_rack():
    b = lag((60.0, 600.0), (90.0, 1200.0), choice="let-break")
    b.rack()
    legal_break(b, "B")
    s = run(b)
    assert s.rulings[0].next == "B" and s.rulings[1].player == "B" and not s.rulings[1].foul


def test_players_input_names_the_players():
    b = StreamBuilder()
    b.players("Ann", "Bob")
    b.rack()
    legal_break(b)
    r, s = one(b)
    assert r.player == "Ann" and r.next == "Bob" and s.final["score"] == {"Ann": 0, "Bob": 0}


def test_amb_18_yellow_gone_any_white_breaks_after_a_rerack():
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").end({"Y": (1000.0, 300.0)})
    b.remove("Y").choice("rerack-self")
    s = run(b)
    r = s.rulings[0]
    assert len(r.respots) == 14 and "Y" not in {x.ball for x in r.respots}
    new = {x.ball: x.pos for x in r.respots}
    new["1"] = (600.0, W / 2)
    assert "1" not in {x.ball for x in r.respots}
    b.table_state(new)
    b.strike("1", "B").hit("1", "2").pocket("5", "foot-left").end({"1": (1000.0, 300.0)})
    r2 = run(b).rulings[-1]
    assert not r2.foul and any("AMB-18" in n for n in r2.notes)


def test_fp_7_penalty_ball_put_back_is_not_taken_and_the_next_one_is():
    b = mid()
    b.strike("3").end({"3": (2000.0, 800.0)})
    b.remove("7").place("7", (400.0 + 300.0 * 1, 650.0)).remove("8")
    r, s = one(b)
    assert s.game.shelf[1] == ["8"] and s.final["score"] == {"A": 0, "B": 1}
    assert any("ball 7 put back: it is not the penalty ball" in n for n in r.notes)


def test_gr_13_2_rerack_by_hand_is_not_reported_as_touching_or_bad_respots():
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").pocket("11", "foot-left").foul("push").end({"Y": (900.0, 300.0)})
    b.remove("13").choice("rerack-self")
    s = run(b)
    spots = {x.ball: x.pos for x in s.rulings[0].respots}
    for ball in spots:
        if ball in b.pos:
            b.remove(ball)
    for ball, p in spots.items():
        b.place(ball, p)
    b.place("Y", (600.0, W / 2))
    r, s = one(b)
    assert not any("GR-16" in n or "GR-25" in n for n in r.notes)
    b.strike("Y", "B").hit("Y", "2").pocket("5", "foot-left").end({"Y": (900.0, 300.0)})
    r2 = run(b).rulings[-1]
    assert r2.player == "B" and not r2.foul and any("GR-9.3: rack checked" in n for n in r2.notes)


def test_gr_6_3_cue_ball_may_reach_the_object_ball_off_cushions():
    b = mid()
    b.strike("3").cushion("3", "left-head").cushion("3", "head").hit("3", "10").end(
        {"3": (200.0, 1500.0), "10": (900.0, 1200.0)}
    )
    r, _ = one(b)
    assert not r.foul and "GR-6.1" in r.rules


def test_gr_8_2_4_jumped_lag_ball_loses():
    b = StreamBuilder()
    b.table_state({"Y": (800.0, 600.0), "1": (800.0, 1200.0)})
    b.strike("Y", "A", lag=True).strike("1", "B", lag=True, dt=0.0)
    b.cushion("Y", "foot").cushion("1", "foot").off("Y").end({"1": (300.0, 1200.0)})
    r, _ = one(b)
    assert r.next == "B" and any("GR-8.2(4)" in n for n in r.notes)


def test_gr_25_a_ball_still_waiting_keeps_its_spot_clear():
    b = mid()
    b.strike("3").hit("3", "4").pocket("4", "foot-left").foul("push").end()
    b.choice("hand-back")  # 4 is not put back yet
    b.strike("5", "A").hit("5", "6").pocket("6", "foot-left").foul("push").end()
    s = run(b)
    first, second = s.rulings
    assert first.respots[0].pos == (L * 0.75, W / 2)
    assert second.respots[0].ball == "6" and second.respots[0].pos == (L * 0.75 + D, W / 2)
    assert any("ball 4 still waits" in n for n in second.notes)


def test_gr_8_4_choice_entered_after_the_rack_still_decides_the_break():
    b = lag((60.0, 600.0), (90.0, 1200.0))
    b.rack()
    b.choice("let-break")
    legal_break(b, "B")
    s = run(b)
    assert s.rulings[0].shot == 0 and s.rulings[0].next == "B"
    assert s.rulings[1].player == "B" and not s.rulings[1].foul


def test_gr_14_a_new_rack_after_the_game_names_the_next_game():
    b = mid(score={"A": 7, "B": 3})
    b.strike("Y").hit("Y", "12").pocket("12", "foot-left").end()
    b.rack()
    with pytest.raises(RuleError, match=r"gen:6: the game ended \(A won\).*GR-14"):
        run(b)


def test_table_state_turn_names_who_plays_first():
    b = mid(turn="B")
    b.strike("3", "B").hit("3", "4").end({"4": (900.0, 500.0)})
    r, _ = one(b)
    assert not r.foul and r.player == "B" and r.next == "A"


# ---- audit: GR-3, GR-9.2, GR-12, GR-15.1, GR-19.2, GR-26 ----
def test_gr_3_the_set_is_fifteen_whites_and_the_yellow():
    """GR-3: the ball ids are Y and 1..15; a five-ball id is refused naming the line."""
    b = mid()
    b.strike("3").add("collision", a="3", b="W1", pos=[1.0, 1.0])
    with pytest.raises(RuleError, match=r"gen:3: unknown ball id 'W1' in 'collision'"):
        run(b)
    b = StreamBuilder().rack()
    assert sorted(b.pos, key=BALLS.index) == BALLS


@pytest.mark.parametrize("y_x, warned", [(L / 8, False), (L / 4 + 1.0, True)])
def test_gr_9_2_the_yellow_breaks_from_the_house(y_x, warned):
    """GR-9.2 / GR-12.3: the coloured ball is placed in the house; placed outside it, the break
    stands with a warning (no foul: nobody warned the player before the stroke)."""
    b = StreamBuilder().rack(cue_pos=(y_x, W / 2))
    legal_break(b)
    r, _ = one(b)
    assert not r.foul and r.cue_ball == "Y" and "GR-12.1" in r.rules
    assert any("GR-12.3 warning" in n for n in r.notes) is warned


def test_gr_12_1_only_the_first_stroke_from_the_rack_is_the_break():
    """GR-12.1: the break brings the cue ball into play from the house; the next stroke is
    ordinary play (FP-2: any ball may be the cue ball)."""
    b = StreamBuilder().rack()
    b.strike("Y").hit("Y", "1").pocket("11", "foot-left").end({"Y": (1000.0, 300.0)})
    b.strike("1").hit("1", "Y").end({"Y": (1300.0, 500.0)})
    s = run(b)
    brk, nxt = s.rulings
    assert {"GR-12.1", "GR-13.1", "FP-4"} <= set(brk.rules) and "FP-2" not in brk.rules
    assert "FP-2" in nxt.rules and not {"GR-12.1", "GR-13.1"} & set(nxt.rules) and not nxt.foul


def test_gr_12_4_gr_12_5_adjusting_by_hand_then_any_tip_contact_is_the_break():
    """GR-12.5: before the stroke the breaker may set the yellow by hand (no alarm, no foul);
    GR-12.4: once struck it is in play -- a touch that meets no ball is the break, a foul."""
    b = StreamBuilder().rack(cue_pos=(1000.0, W / 2))  # outside the house at first
    b.moved("Y", (700.0, 800.0)).place("Y", (600.0, W / 2))  # set and re-set in the house
    b.strike("Y").end({"Y": (610.0, W / 2)})  # a touch: the yellow rolls 10 mm
    b.remove("13").choice("play")
    b.strike("1", "B").hit("1", "2").end({"2": (2000.0, 300.0)})
    s = run(b)
    brk, nxt = s.rulings
    assert not any("GR-16" in n or "GR-12.3" in n for n in brk.notes)
    assert [f.rule for f in brk.fouls] == ["GR-6.2"] and "GR-12.1" in brk.rules
    assert s.game.shelf[1] == ["13"] and nxt.player == "B" and not nxt.foul
    assert "GR-12.1" not in nxt.rules  # the break was used up by the touch


def test_gr_15_1_a_stroke_runs_until_every_ball_has_stopped():
    """GR-15.1: everything between the strike and shot_end (all balls still) is the stroke's:
    a ball dropping just before the end counts; a new strike before then is refused, and one
    flagged as struck while a ball still spun is a foul (GR-15.2)."""
    b = mid()
    b.strike("3").hit("3", "4").add("pocket", dt=3.0, ball="4", pocket="foot-left")
    b.pos.pop("4")
    b.end()
    r, _ = one(b)
    assert r.points == 1 and r.next == "A"
    b = mid()
    b.strike("3").hit("3", "4").add("shot_start", cue_ball="5")
    with pytest.raises(RuleError, match=r"gen:4: shot_start while the stroke started at gen:2"):
        run(b)
    b = mid()
    b.strike("3").hit("3", "4").end(at_rest=False)  # ball 4 still spinning in place
    b.strike("5", "B").hit("5", "6").end()
    assert run(b).rulings[1].fouls[0].rule == "GR-15.2"


def test_gr_19_2_cue_ball_following_a_close_ball_is_not_a_foul_by_itself():
    """GR-19.2: the cue ball 5 mm from its object ball follows it into the pocket: no foul
    without a referee's double hit / push; the camera only raises a GR-19 suggestion."""
    pos = spread()
    pos["4"] = (pos["3"][0] + D + 5.0, pos["3"][1])
    rulings = []
    for push in (False, True):
        b = StreamBuilder()
        b.table_state(pos, score={"A": 0, "B": 0})
        b.strike("3").hit("3", "4").pocket("4", "foot-left").pocket("3", "foot-left")
        if push:
            b.foul("push")
        rulings.append(one(b.end())[0])
    r, r2 = rulings
    assert not r.foul and r.points == 2 and r.next == "A"
    assert any("GR-19 suggestion" in n for n in r.notes)
    assert r2.foul and r2.fouls[0].rule == "GR-18" and r2.points == 0


def test_gr_26_a_foul_of_no_listed_kind_is_a_gr_26_foul_with_the_fp_7_penalty():
    """GR-26: the consolidated foul list; an operator foul of another kind, with no rule, is
    ruled under GR-26 and carries the FP-7 penalty ball."""
    b = mid()
    b.strike("3").hit("3", "4").foul("cue-over-the-line").end()
    b.remove("9")
    r, s = one(b)
    assert [f.rule for f in r.fouls] == ["GR-26"] and "FP-7" in r.rules
    assert s.final["score"] == {"A": 0, "B": 1}


def test_gr_7_4_a_foul_by_the_player_not_at_the_table_names_him():
    """GR-7.4 / GR-16: B touches a ball after A's stroke: the foul says it was B's, A is the
    non-offender -- he takes the penalty ball and chooses; by default he plays."""
    b = mid()
    b.strike("3").hit("3", "4").end({"4": (900.0, 500.0)})
    b.foul("touched-ball", player="B").remove("9")
    r, s = one(b)
    assert r.player == "A" and r.fouls[0].rule == "GR-16" and " by B," in r.fouls[0].why
    assert s.final["score"] == {"A": 1, "B": 0} and r.next == "A"
