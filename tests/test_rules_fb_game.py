"""FiveBall on the rules core: every camera- or operator-decidable FB rule, end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from rules_fb_shots import OPENING, Stream

from luza.rules.engine import RuleError

ROOT = Path(__file__).resolve().parents[1]
CENTRE = (1775.0, 887.5)
HEAD_LINE = (887.5, 887.5)
FOOT_LINE = (2662.5, 887.5)
HEAD_END = (443.75, 887.5)

# A mid-game layout (no break, nobody in hand): whites in play, everything in front of the line.
MID = {
    "W1": (1400.0, 500.0),
    "W2": (2300.0, 1500.0),
    "R1": HEAD_LINE,
    "R2": FOOT_LINE,
    "K": CENTRE,
}


def rulings(s: Stream, **opt):
    sc = s.score(**opt)
    return sc.rulings, sc


def _after_break(positions=None) -> Stream:
    """A stream after a legal empty break by A; B is to play with W2 (no ball in hand)."""
    s = Stream(positions or OPENING)
    s.stroke("W1", "W1~house W1-K", rest={"W1": (1600.0, 700.0), "K": (1900.0, 1000.0)})
    return s


# ------------------------------------------------------------------ FB-3 lag
def lag_stream(a_text: str, b_text: str, a_rest, b_rest, choice=None) -> Stream:
    s = Stream({"W1": (300.0, 500.0), "W2": (300.0, 1300.0), **{k: OPENING[k] for k in "K"}})
    s._add("shot_start", dt=1.0, cue_ball="W1", player="A", lag=True)
    s._add("shot_start", dt=0.01, cue_ball="W2", player="B", lag=True)
    for tok in (a_text + " " + b_text).split():
        if "|" in tok:
            ball, cushion = tok.split("|")
            s._add("cushion", ball=ball, cushion=cushion, pos=s._cushion_pos(ball, cushion))
        elif "~" in tok:
            ball, line = tok.split("~")
            s._add("line_cross", ball=ball, line=line, direction="+y")
    s.pos["W1"], s.pos["W2"] = a_rest, b_rest
    s._add("shot_end", dt=1.0, positions={b: list(p) for b, p in s.pos.items()})
    if choice:
        s.choice(choice)
    return s


def test_fb_3_1_lag_nearest_the_head_cushion_wins_and_breaks_with_white_1():
    """FB-3.1 / FB-3.5 / FB-2.2: B's ball stops nearer the head cushion; B breaks with W1."""
    s = lag_stream("W1|foot W1|head", "W2|foot", (200.0, 500.0), (150.0, 1300.0))
    s.place("W2", (500.0, 400.0)).place("W1", (2300.0, 1500.0))
    s.stroke("W2", "W2~house W2-K", rest={"W2": (1500.0, 500.0), "K": (1900.0, 1000.0)}, player="B")
    rs, sc = rulings(s)
    assert rs[0].shot == 0 and rs[0].next == "B"
    assert "FB-3.5" in rs[0].rules
    # B now owns W1: striking W2 is the wrong cue ball (FB-10.8).
    assert rs[1].foul and rs[1].fouls[0].rule == "FB-10.8"


def test_fb_3_5_lag_winner_may_take_white_2():
    s = lag_stream("W1|foot", "W2|foot", (100.0, 500.0), (250.0, 1300.0), choice="ball-2")
    rs, _ = rulings(s)
    assert rs[0].next == "B"  # A won and took white 2: B breaks


@pytest.mark.parametrize(
    ("a_text", "rule"),
    [
        ("W1|foot W1|left-foot", "FB-3.2"),  # (b) a long cushion
        ("W1|foot W1|head W1|foot", "FB-3.2"),  # (d) an end cushion more than once
        ("W1|foot W1~axis", "FB-3.2"),  # (e) crossed the long axis
        ("W1|head", "FB-3.3"),  # no foot cushion
    ],
)
def test_fb_3_2_lag_automatic_loss(a_text, rule):
    """FB-3.2 (b)(d)(e), FB-3.3: A's ball stops nearer the head but A loses the lag."""
    s = lag_stream(a_text, "W2|foot", (100.0, 500.0), (250.0, 1300.0))
    rs, _ = rulings(s)
    assert rs[0].next == "B" and rule in rs[0].rules


def test_fb_3_3_both_fail_repeat_the_lag():
    s = lag_stream("W1|head", "W2|head", (100.0, 500.0), (250.0, 1300.0))
    rs, _ = rulings(s)
    assert rs[0].next is None and any("repeat" in n for n in rs[0].notes)


# ------------------------------------------------------------------ FB-4 / FB-5 break
def test_fb_4_4_white_2_on_a_kaisa_line_warns_at_the_break():
    pos = dict(OPENING, W2=(2662.5, 1318.0))  # on the line from the centre to foot-right
    s = Stream(pos)
    s.stroke("W1", "W1~house W1-K", rest={"W1": (1600.0, 700.0), "K": (1700.0, 1000.0)})
    r = rulings(s)[0][0]
    assert "FB-4.4" in r.rules and not r.foul
    assert any("foot-right" in n for n in r.notes)


def test_fb_5_2a_kaisa_pocketed_on_the_break_is_a_foul_and_kaisa_respotted():
    """FB-5.2(a) / FB-10.12: the kaisa pocketed on the break: foul, 0, turn passes, kaisa
    respotted."""
    s = Stream(OPENING).call("K", "foot-left")
    s.stroke("W1", "W1~house W1-K K>foot-left", rest={"W1": (1700.0, 700.0)})
    r = rulings(s)[0][0]
    assert r.foul and r.points == 0 and r.next == "B"
    assert "FB-10.12" in r.rules and [x.ball for x in r.respots] == ["K"]
    assert r.respots[0].pos == CENTRE


def test_fb_5_2b_in_off_kaisa_straight_into_middle_on_the_break_is_a_foul():
    s = Stream(OPENING).call("W1", "middle-left", via="K")
    s.stroke("W1", "W1~house W1-K W1>middle-left", rest={"K": (1900.0, 1200.0)})
    r = rulings(s)[0][0]
    assert r.foul and any("FB-5.2b" in f.why for f in r.fouls)


def test_fb_5_2c_direct_play_at_the_head_line_red_is_a_foul():
    s = Stream(OPENING).stroke("W1", "W1-R1", rest={"R1": (1100.0, 700.0), "W1": (800, 600)})
    r = rulings(s)[0][0]
    assert r.foul and any("FB-5.2c" in f.why for f in r.fouls)


def test_fb_5_3_break_in_off_kaisa_into_a_corner_scores_amb_9():
    """FB-5.3 / AMB-9: the in-off off the kaisa into a corner is allowed at the break."""
    s = Stream(OPENING).call("W1", "foot-left", via="K")
    s.stroke("W1", "W1~house W1-K W1>foot-left", rest={"K": (1900.0, 1000.0)})
    s.place("W1", (400.0, 700.0))
    r = rulings(s)[0][0]
    assert not r.foul and r.points == 6 and r.next == "A"
    strict = rulings(s, break_in_off_corner="false")[0][0]
    assert strict.foul and strict.points == 0 and strict.next == "B"


def test_fb_5_3_break_must_cross_the_head_line():
    s = Stream(OPENING).stroke("W1", "W1|head", rest={"W1": (300.0, 500.0)})
    r = rulings(s)[0][0]
    assert r.foul and "FB-9.5" in r.rules and "FB-9.7" not in r.rules  # no FB-9.7 at the break


# ------------------------------------------------------------------ FB-6 calls
def test_fb_6_3_made_call_continues_missed_call_passes():
    s = _after_break()
    s.call("R2", "foot-left").stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    s.call("K", "foot-right").stroke("W2", "W2-K", rest={"K": (2100.0, 1300.0)})
    rs, sc = rulings(s)
    assert rs[1].player == "B" and rs[1].points == 3 and rs[1].next == "B"
    assert rs[2].points == 0 and rs[2].next == "A" and not rs[2].foul
    assert sc.final["score"] == {"A": 0, "B": 3}


def test_fb_6_5_kaka_pocketing_not_accepted_turn_passes():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s)[0][1]
    assert r.points == 0 and r.next == "A" and "FB-6.5" in r.rules
    assert [x.ball for x in r.respots] == ["R2"]


def test_auto_call_mode_credits_and_says_so():
    s = _after_break()
    s.stroke("W2", "W2-R2 R2>foot-left W2-K", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s)[0][1]
    assert r.points == 9 and r.next == "B"
    assert any(n.startswith("auto-call") for n in r.notes)


def test_auto_call_off_no_call_scores_nothing():
    s = _after_break().stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s, auto_call="false")[0][1]
    assert r.points == 0 and r.next == "A" and "FB-6.1" in " ".join(r.notes)


def test_call_naming_a_ball_not_on_the_table_is_an_error():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    s.call("R2", "foot-right").stroke("W2", "W2-K")  # R2 was never put back
    with pytest.raises(RuleError, match="R2, which is not on the table"):
        s.score()


def test_stream_for_the_wrong_game_is_an_error():
    s = Stream(OPENING)
    s.lines[0]["game"] = "free-pyramid"
    s.stroke("W1", "W1~house W1-K")
    with pytest.raises(RuleError, match="not 'five-ball'"):
        s.score()


# ------------------------------------------------------------------ FB-8.5 / FB-10.11
def test_fb_8_5b_second_straight_middle_kaisa_in_an_inning_is_a_foul():
    """§9.2 / FB-8.5b / FB-10.11: second straight-middle kaisa in one inning -> foul, 0,
    turn passes."""
    s = _after_break(dict(OPENING, K=(1775.0, 300.0)))
    s.call("K", "middle-left").stroke("W2", "W2-K K>middle-left", rest={"W2": (1775, 600)})
    s.place("K", (1775.0, 250.0))
    s.call("K", "middle-left").stroke("W2", "W2-K K>middle-left", rest={"W2": (1700, 500)})
    rs, _ = rulings(s)
    assert rs[1].points == 12 and rs[1].next == "B"
    assert rs[2].foul and rs[2].fouls[0].rule == "FB-10.11" and rs[2].next == "A"
    assert rs[2].points == 0


def test_fb_8_5a_banked_kaisa_after_straight_is_fine_and_resets():
    s = _after_break(dict(OPENING, K=(1775.0, 300.0)))
    s.call("K", "middle-left").stroke("W2", "W2-K K>middle-left", rest={"W2": (1775, 600)})
    s.place("K", (1775.0, 250.0))
    s.call("K", "middle-left", cushions=["right-head"])
    s.stroke("W2", "W2-K K|right-head K>middle-left", rest={"W2": (1700, 500)})
    rs, _ = rulings(s)
    assert not rs[2].foul and rs[2].points == 12


# ------------------------------------------------------------------ FB-9 ball in hand
def _hand_stream(w2_pos, positions=None) -> Stream:
    """B to play from hand: A pots W2, then misses."""
    pos = positions or {
        "W1": (1600.0, 700.0),
        "W2": (2300.0, 1500.0),
        "R1": HEAD_LINE,
        "R2": FOOT_LINE,
        "K": CENTRE,
    }
    s = Stream(pos)
    s.stroke("W1", "W1~house W1-K", rest={"W1": (1500.0, 300.0), "K": (1900.0, 1000.0)})
    s.stroke("W2", "W2-R2", rest={"W2": (2500.0, 1300.0), "R2": (2700.0, 700.0)})  # B misses
    s.call("W2", "foot-right").stroke("W1", "W1-W2 W2>foot-right", rest={"W1": (2000.0, 1200.0)})
    s.stroke("W1", "W1-K", rest={"K": (1800.0, 1100.0)})  # A misses
    s.place("W2", w2_pos)
    return s


def test_fb_9_1_white_pocketed_by_the_opponent_gives_its_owner_ball_in_hand():
    s = _hand_stream((400.0, 900.0))
    s.call("R2", "foot-left").stroke(
        "W2", "W2~house W2-R2 R2>foot-left", rest={"W2": (2400.0, 900.0)}
    )
    rs, _ = rulings(s)
    assert rs[2].points == 2 and "FB-9.1" in rs[2].rules
    assert not rs[4].foul and rs[4].points == 3 and "FB-9.2" in rs[4].rules


def test_fb_9_3_luikka_from_hand_is_a_foul():
    """FB-9.3 / FB-10.5: no luikka from hand: a ball-in-hand foul that scores nothing."""
    s = _hand_stream((400.0, 900.0)).call("W2", "foot-left", via="R2")
    s.stroke("W2", "W2~house W2-R2 W2>foot-left", rest={"R2": (2900.0, 500.0)})
    r = rulings(s)[0][4]
    assert r.foul and "FB-10.5" in r.rules and r.points == 0


def test_fb_9_3_from_hand_straight_middle_pot_does_not_score_banked_does():
    pos = {
        "W1": (1600.0, 700.0),
        "W2": (2300.0, 1500.0),
        "R1": HEAD_LINE,
        "R2": FOOT_LINE,
        "K": (1775.0, 300.0),
    }
    s = _hand_stream((400.0, 900.0), pos).call("K", "middle-left")
    s.stroke("W2", "W2~house W2-K K>middle-left", rest={"W2": (1700.0, 600.0)})
    r = rulings(s)[0][4]
    assert r.points == 0 and "FB-9.3" in r.rules and r.next == "A"
    s2 = _hand_stream((400.0, 900.0), pos).call("K", "middle-left", cushions=["right-head"])
    s2.stroke("W2", "W2~house W2-K K|right-head K>middle-left", rest={"W2": (1700.0, 600.0)})
    r2 = rulings(s2)[0][4]
    assert r2.points == 12 and r2.next == "B"


def test_fb_9_4_ball_behind_the_line_only_via_a_cushion():
    """FB-9.4 / FB-10.5 / FB-9.7: a ball behind the line played directly is a ball-in-hand foul and
    the cue ball that did not cross is lifted; banked off a cushion in front of the line it is fine.
    """
    pos = {
        "W1": (1600.0, 700.0),
        "W2": (2300.0, 1500.0),
        "R1": (600.0, 500.0),
        "R2": FOOT_LINE,
        "K": CENTRE,
    }
    direct = _hand_stream((300.0, 1200.0), pos).stroke("W2", "W2-R1", rest={"W2": (500, 800)})
    r = rulings(direct)[0][4]
    assert r.foul and "FB-9.4" in r.rules and "FB-9.7" in r.rules  # did not cross: lifted
    assert {f.rule for f in r.fouls} == {"FB-10.5"}  # FB-9.4 and FB-9.5 both broken
    banked = _hand_stream((300.0, 1200.0), pos)
    banked.stroke("W2", "W2~house W2|left-foot@1500,0 W2-R1", rest={"W2": (700, 800)})
    rb = rulings(banked)[0][4]
    assert not rb.foul


def test_fb_9_6_cushion_contact_must_be_in_front_of_the_head_line():
    pos = {
        "W1": (1600.0, 700.0),
        "W2": (2300.0, 1500.0),
        "R1": (600.0, 500.0),
        "R2": FOOT_LINE,
        "K": CENTRE,
    }
    s = _hand_stream((300.0, 1200.0), pos)
    s.stroke("W2", "W2|left-head W2-R1", rest={"W2": (700.0, 800.0)})
    r = rulings(s)[0][4]
    assert r.foul and "FB-9.6" in r.rules


def test_fb_9_5_and_9_7_not_crossing_the_line_means_lift_and_hand_again():
    """FB-9.5 / FB-9.7 / FB-10.5: from hand the cue ball must cross the line; if not, it is lifted
    and the player has ball in hand again."""
    s = _hand_stream((300.0, 1200.0)).stroke("W2", "", rest={"W2": (600.0, 1200.0)})
    s.remove("W2").stroke("W1", "W1-K", rest={"K": (1850.0, 1000.0)})
    s.place("W2", (400.0, 900.0)).stroke("W2", "W2~house W2-K", rest={"W2": (1500.0, 900.0)})
    rs, sc = rulings(s)
    assert rs[4].foul and "FB-9.5" in rs[4].rules and "FB-9.7" in rs[4].rules
    assert [f.rule for f in rs[4].fouls] == ["FB-10.5"]
    assert "FB-9.2" in rs[6].rules  # B plays from hand again
    assert sc.game.accounting()["W2"] == "table"


# ------------------------------------------------------------------ FB-10 fouls
def test_fb_10_1_own_white_pocketed_without_a_called_pot():
    s = _after_break().call("K", "head-left")
    s.stroke("W2", "W2-K W2>middle-right", rest={"K": (1500.0, 700.0)})
    r = rulings(s)[0][1]
    assert r.foul and r.fouls[0].rule == "FB-10.1" and r.next == "A"
    assert any("Berit" in n or "B has ball in hand" in n for n in r.notes)


def test_fb_10_2_ball_off_the_table_is_a_foul_and_respotted():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left W2-K K^", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s)[0][1]
    assert r.foul and "FB-10.2" in r.rules and r.points == 0
    assert [x.ball for x in r.respots] == ["K", "R2"]  # FB-12.5: kaisa first


def test_fb_10_3_called_luikka_into_another_pocket():
    s = _after_break().call("W2", "foot-left", via="R2")
    s.stroke("W2", "W2-R2 W2>foot-right", rest={"R2": (2900.0, 500.0)})
    r = rulings(s)[0][1]
    assert r.foul and "FB-10.3" in r.rules


@pytest.mark.parametrize(
    ("kind", "rule"),
    [
        ("touched-ball", "FB-10.4"),
        ("push", "FB-10.6"),
        ("non-tip", "FB-7.2"),
        ("touching-ball", "FB-11.1"),
        ("spoiled-setup", "FB-11.2"),
    ],
)
def test_fb_10_operator_fouls_void_the_pocketing(kind, rule):
    """FB-10.4 / FB-10.6 / FB-7.2 / FB-10.15 (FB-11.1, FB-11.2): referee-entered fouls void
    the made call (FB-8.7: a foul scores 0) and pass the turn."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)}).foul(kind)
    r = rulings(s)[0][1]
    assert r.foul and rule in r.rules and r.points == 0 and r.next == "A"


def test_fb_10_7_double_hit_no_points_not_a_foul():
    """FB-7.3 / FB-10.7: a double hit scores nothing but is not a foul; the turn passes."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)}).foul("double-hit")
    r = rulings(s)[0][1]
    assert not r.foul and r.points == 0 and r.next == "A" and "FB-10.7" in r.rules


def test_fb_10_8_wrong_cue_ball_only_this_shot_void():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    s.place("R2", FOOT_LINE)
    s.call("K", "foot-right").stroke(
        "W1", "W1-K K>foot-right", player="B", rest={"W1": (2000.0, 900.0)}
    )
    rs, sc = rulings(s)
    assert rs[2].foul and rs[2].fouls[0].rule == "FB-10.8" and rs[2].next == "A"
    assert sc.final["score"]["B"] == 3  # the earlier points stand


def test_fb_10_13_striking_before_the_balls_stopped():
    """FB-7.1 / FB-10.13: a stroke ends when every ball has stopped; striking before is a foul."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)}, before_rest=True)
    r = rulings(s)[0][1]
    assert r.foul and "FB-10.13" in r.rules


def test_fb_10_14_over_length_cue_twice_loses():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)}).foul("over-length-cue")
    s.place("R2", FOOT_LINE).call("K", "foot-right")
    s.stroke("W2", "W2-K K>foot-right", rest={"W2": (2000, 1000)}).foul("over-length-cue")
    rs, sc = rulings(s)
    assert rs[1].points == 3 and "FB-10.14" in rs[1].rules
    assert sc.final["winner"] == "A"


# ------------------------------------------------------------------ FB-11
def test_fb_11_1_touching_balls_are_pointed_out():
    pos = dict(MID, W1=(1775.0 - 69.0, 887.5))
    s = Stream(pos, brk=False).stroke("W1", "W1~house", rest={"W1": (1200.0, 300.0)})
    r = rulings(s)[0][0]
    assert "FB-11.1" in r.rules and any("touches K" in n for n in r.notes)


def test_fb_11_4_hanging_ball_that_drops_within_5_s_counts():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2", rest={"W2": (2500.0, 1200.0), "R2": (3520.0, 40.0)})
    s._add("hang_fall", dt=3.0, ball="R2", pocket="foot-left")
    s.pos.pop("R2")
    s.place("R2", FOOT_LINE).stroke("W2", "W2-K", rest={"K": (1900.0, 1300.0)})
    rs, _ = rulings(s)
    assert rs[1].points == 3 and rs[1].next == "B" and "FB-11.4" in rs[1].rules


def test_fb_11_5_ball_that_drops_later_goes_back_turn_unchanged():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2", rest={"W2": (2500.0, 1200.0), "R2": (3520.0, 40.0)})
    s._add("hang_fall", dt=9.0, ball="R2", pocket="foot-left")
    s.pos.pop("R2")
    s.place("R2", (3520.0, 40.0)).stroke("W1", "W1-K", rest={"K": (1900.0, 1300.0)})
    rs, _ = rulings(s)
    assert rs[1].points == 0 and rs[1].next == "A" and "FB-11.5" in rs[1].rules
    assert rs[1].respots[0].ball == "R2" and rs[1].respots[0].pos == (3520.0, 40.0)


# ------------------------------------------------------------------ FB-12 respot in play
def test_fb_12_respot_hint_and_placement_check():
    """FB-12.1 / FB-12.3 / FB-12.4: R1 holds the head-line spot so R2 goes to the foot-line spot; a
    placement is judged by the ball's centre and 200 mm off gets a note."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    s.place("R2", (HEAD_LINE[0] + 200.0, HEAD_LINE[1]))  # red R1 holds the head-line spot
    r = rulings(s)[0][1]
    assert r.respots[0].pos == FOOT_LINE and "FB-12.4" in r.rules
    assert any("placement" in n for n in r.notes)


def test_fb_12_2_kaisa_returns_to_the_centre_when_it_frees():
    pos = dict(MID, W1=CENTRE, K=(2000.0, 300.0))
    s = Stream(pos, brk=False).call("K", "middle-left")
    s.stroke("W1", "W1-K K>middle-left", rest={"W1": (1775.0, 1100.0)})
    rs, _ = rulings(s)
    # W1 at rest is off the centre spot, so the kaisa goes straight to the centre.
    assert rs[0].respots[0].pos == CENTRE


def test_fb_12_2_displaced_kaisa_moves_back_once():
    pos = dict(MID, W1=(1900.0, 600.0), K=(1800.0, 300.0), R1=(500.0, 300.0))
    s = Stream(pos, brk=False).call("K", "middle-left", cushions=[])
    s.stroke("W1", "W1-K K>middle-left", rest={"W1": CENTRE})  # cue ball stops on the centre
    s.place("K", HEAD_LINE)  # kaisa's second spot (R1 is elsewhere)
    s.call("R2", "foot-left").stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2400.0, 500.0)})
    s.place("K", CENTRE)  # centre is free now: the kaisa goes back (FB-12.2)
    s.place("R2", HEAD_LINE)  # ... which frees the head-line spot for the red
    s.call("R1", "head-left").stroke("W1", "W1-R1", rest={"R1": (300.0, 200.0)})
    rs, sc = rulings(s)
    assert rs[0].respots[0].pos == HEAD_LINE and "FB-12.4" not in rs[0].rules
    assert [(x.ball, x.pos) for x in rs[1].respots] == [("K", CENTRE), ("R2", HEAD_LINE)]
    assert "FB-12.2" in rs[1].rules and not any("placement" in n for n in rs[1].notes)
    assert "FB-12.2" not in rs[2].rules  # done once: the kaisa is home


# ------------------------------------------------------------------ FB-13 end of game
def test_golden_fb_13_exactly_100_with_white_continues_104_passes_then_win_is_100():
    """§9.2 / FB-13.1 / FB-13.4 / FB-13.5 / FB-13.6: exactly 100 by the white without nakki
    -> turn continues, no win; 104 -> recorded, turn passes; a later win is recorded as 100."""
    s = Stream(MID, brk=False, score={"A": 98, "B": 50})
    s.call("W2", "foot-right").stroke("W1", "W1-W2 W2>foot-right", rest={"W1": (2000, 900)})
    rs, sc = rulings(s)
    assert rs[0].points == 2 and rs[0].next == "A" and sc.final["winner"] is None
    assert "FB-13.4" in rs[0].rules

    s = Stream(MID, brk=False, score={"A": 102, "B": 50})
    s.call("W2", "foot-right").stroke("W1", "W1-W2 W2>foot-right", rest={"W1": (2000, 900)})
    s.place("W2", (400.0, 900.0))
    s.call("R1", "head-left").stroke("W2", "W2~house W2-K", rest={"K": (1900.0, 1200.0)})
    s.call("R2", "foot-left").stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300.0, 700.0)})
    rs, sc = rulings(s)
    assert rs[0].score["A"] == 104 and rs[0].next == "B" and "FB-13.5" in rs[0].rules
    assert rs[2].points == 3 and sc.final["winner"] == "A"
    assert sc.final["score"] == {"A": 100, "B": 50}
    assert rs[2].next is None and "FB-13.1" in rs[2].rules


def test_fb_13_2_red_finishes_and_white_with_nakki_finishes():
    s = Stream(MID, brk=False, score={"A": 99, "B": 0})
    s.call("W2", "foot-right").stroke("W1", "W1-W2 W2>foot-right W1-K", rest={"W1": (2000, 900)})
    assert rulings(s)[1].final["winner"] == "A"


def test_fb_13_3_white_by_combination_needs_a_red_or_kaisa():
    s = Stream(MID, brk=False, score={"A": 99, "B": 0})
    s.call("W2", "foot-right", combination="K")
    s.stroke("W1", "W1-K K-W2 W2>foot-right", rest={"W1": (2000, 900), "K": (2100, 1200)})
    rs, sc = rulings(s)
    assert sc.final["winner"] is None and rs[0].score["A"] == 101 and rs[0].next == "B"
    assert sc.final["score"]["A"] == 101  # unfinished: recorded as scored (FB-13.5)


def test_stroke_after_the_game_is_over_is_an_error():
    s = Stream(MID, brk=False, score={"A": 97, "B": 0})
    s.call("R2", "foot-left").stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300, 700)})
    s.stroke("W2", "W2-K")
    with pytest.raises(RuleError, match="after the game is over"):
        s.score()


# ------------------------------------------------------------------ FB-14 timed
def test_fb_14_timed_match_warning_last_innings_and_decider():
    """FB-14.1 .. FB-14.3: warning at 5 min, last innings (ball 2 last), then the decider."""
    s = Stream(MID, brk=False)
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})  # A misses at t ~ 1
    s.wait(60.0 * 5.5)
    s.stroke("W2", "W2-R2", rest={"R2": (2800.0, 1000.0)})  # B misses: warning
    s.wait(60.0 * 6)
    s.stroke("W1", "W1-R2", rest={"R2": (2900.0, 1100.0)})  # time up in A's inning
    s.stroke("W2", "W2-R2", rest={"R2": (2950.0, 1150.0)})  # B's last inning
    s.place("K", CENTRE)
    s.call("K", "foot-left").stroke("W1", "W1-K K>foot-left", rest={"W1": (2000.0, 500.0)})
    rs, sc = rulings(s, match_minutes="10")
    assert "FB-14.1" in rs[1].rules and any("5 minutes left" in n for n in rs[1].notes)
    assert any("time is up" in n for n in rs[2].notes) and rs[2].next == "B"
    assert "FB-14.2" in rs[3].rules and rs[3].next == "A"
    assert rs[4].points == 6 and "FB-14.3" in rs[4].rules and rs[4].next == "A"


def test_fb_14_9_break_inputs():
    s = (
        Stream(MID, brk=False)
        .choice("break-start", player="A")
        .wait(200)
        .choice("break-end", player="A")
    )
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})
    s.choice("break-start", player="A")
    s.stroke("W2", "W2-K", rest={"K": (1950.0, 1000.0)})
    with pytest.raises(RuleError, match="already taken"):
        s.score(match_minutes="60")


# ------------------------------------------------------------------ CLI + example
def luza(capsys, *argv: str) -> tuple[int, str, str]:
    """Run `luza score` / `luza replay` in-process; (exit code, stdout, stderr).

    Only the rules stage's commands are registered (as ``luza.cli.main`` does for
    every stage), so other stages' imports cannot disturb these tests.
    """
    import argparse

    from luza.errors import LuzaError
    from luza.rules import cli

    parser = argparse.ArgumentParser(prog="luza")
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(list(argv))
    capsys.readouterr()
    try:
        code = int(args.func(args) or 0)
    except LuzaError as e:
        print(f"luza {args.command}: error: {e}", file=sys.stderr)
        code = 2
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_scores_the_example_stream_end_to_end(tmp_path, capsys):
    ex = ROOT / "rules" / "examples" / "five_ball_game.jsonl"
    rec = str(tmp_path / "rec.jsonl")
    code, out, _ = luza(capsys, "score", str(ex), "--game", "five-ball", "--json", "--record", rec)
    assert code == 0
    lines = [json.loads(x) for x in out.splitlines()]
    final = lines[-1]
    assert final["type"] == "final" and final["winner"] is None
    rulings_ = [x for x in lines if x["type"] == "ruling"]
    assert sum(r["points"] for r in rulings_ if r["player"] == "Aino") == final["score"]["Aino"]
    assert any(r["foul"] for r in rulings_) and any(r["respots"] for r in rulings_)
    assert any("K" in [x["ball"] for x in r["respots"]] for r in rulings_)  # a kaisa pot
    assert all(r["rules"] for r in rulings_)  # a rule number on every ruling
    code, _, err = luza(capsys, "replay", rec)
    assert code == 0, err


def test_cli_clear_error_for_a_wrong_call(tmp_path, capsys):
    p = tmp_path / "s.jsonl"
    s = _after_break().call("Y", "foot-left")
    p.write_text("\n".join(s.jsonl()) + "\n")
    code, _, err = luza(capsys, "score", str(p))
    assert code == 2 and "luza score: error" in err and "'Y'" in err


def test_fb_14_decider_runs_to_a_winner_on_totals():
    """FB-14.3 .. FB-14.7: after the last innings, innings alternate; higher total wins."""
    s = Stream(MID, brk=False, score={"A": 40, "B": 40})
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})  # A misses
    s.wait(70.0)
    s.stroke("W2", "W2-R2", rest={"R2": (2800.0, 1000.0)})  # B misses: time up (1 min game)
    s.stroke("W1", "W1-R2", rest={"R2": (2900.0, 1100.0)})  # A's last inning
    s.stroke("W2", "W2-R2", rest={"R2": (2950.0, 1150.0)})  # B's last inning -> decider
    s.place("K", CENTRE)
    s.call("K", "foot-left").stroke("W1", "W1-K K>foot-left", rest={"W1": (2000.0, 500.0)})
    s.place("K", CENTRE)
    s.call("K", "foot-right").stroke("W1", "W1-K", rest={"K": (2000.0, 1000.0)})  # A fails
    s.place("K", (3106.25, 887.5))
    s.call("W2", "foot-left", via="K").stroke("W2", "W2-K W2>foot-right", rest={"K": CENTRE})
    rs, sc = rulings(s, match_minutes="1", decider_innings="1")
    assert "FB-14.2" in rs[3].rules and rs[3].next == "A"
    assert rs[4].points == 6 and rs[4].next == "A"
    assert rs[5].points == 0 and rs[5].next == "B"
    assert rs[6].foul and rs[6].next is None  # the luikka went into the wrong corner
    assert sc.final["winner"] == "A" and sc.final["score"] == {"A": 46, "B": 40}


def test_fb_12_2_kaisa_return_forgotten_is_not_done_later():
    pos = dict(MID, W1=(1900.0, 600.0), K=(1800.0, 300.0), R1=(500.0, 300.0))
    s = Stream(pos, brk=False).call("K", "middle-left")
    s.stroke("W1", "W1-K K>middle-left", rest={"W1": CENTRE})
    s.place("K", HEAD_LINE)
    s.call("R2", "foot-left").stroke("W1", "W1-R2", rest={"W1": (2400.0, 500.0)})  # frees centre
    s.stroke("W2", "W2-R2", rest={"R2": (2800.0, 1200.0)})  # nobody moved the kaisa
    s.stroke("W1", "W1-R2", rest={"R2": (2900.0, 1300.0)})
    rs, _ = rulings(s)
    assert "FB-12.2" in rs[1].rules
    assert "FB-12.2" not in rs[2].rules and "FB-12.2" not in rs[3].rules


def test_auto_call_from_hand_never_credits_a_luikka():
    """FB-9.3 with auto-call: the luikka is not a legal call from hand."""
    s = _hand_stream((400.0, 900.0))
    s.stroke("W2", "W2~house W2-R2 W2>foot-left", rest={"R2": (2900.0, 500.0)})
    r = rulings(s)[0][4]
    assert r.foul and r.points == 0 and "FB-10.5" in r.rules


def test_calls_in_a_separate_inputs_file_give_the_same_rulings(tmp_path, capsys):
    """`luza score STREAM --inputs calls.jsonl`: calls merged into the stream by time."""
    ex = ROOT / "rules" / "examples" / "five_ball_game.jsonl"
    lines = ex.read_text().splitlines()
    calls = [x for x in lines if json.loads(x)["type"] == "call"]
    rest = [x for x in lines if json.loads(x)["type"] != "call"]
    (tmp_path / "s.jsonl").write_text("\n".join(rest) + "\n")
    (tmp_path / "c.jsonl").write_text("\n".join(calls) + "\n")
    code_a, a, _ = luza(capsys, "score", "--json", str(ex))
    code_b, b, _ = luza(
        capsys, "score", "--json", str(tmp_path / "s.jsonl"), "--inputs", str(tmp_path / "c.jsonl")
    )
    assert code_a == code_b == 0
    assert a == b


def test_break_call_entered_after_the_lag_is_used():
    s = lag_stream("W1|foot", "W2|foot", (100.0, 500.0), (250.0, 1300.0))
    s.call("W1", "foot-left", via="K")
    s.place("W1", (500.0, 400.0)).place("W2", (2300.0, 1500.0))
    s.stroke("W1", "W1~house W1-K W1>foot-left", rest={"K": (1900.0, 1000.0)})
    rs, _ = rulings(s)
    assert rs[1].points == 6 and not any("auto-call" in n for n in rs[1].notes)


def test_fb_5_1_break_from_in_front_of_the_head_line_is_noted():
    s = Stream(dict(OPENING, W1=(1200.0, 400.0)))
    s.stroke("W1", "W1-K", rest={"W1": (1600.0, 700.0), "K": (1900.0, 1000.0)})
    r = rulings(s)[0][0]
    assert "FB-5.1" in r.rules and any(n.startswith("FB-5.1: W1 was placed") for n in r.notes)
    assert not r.foul  # pointed out before the stroke or not at all (FB-9.2)


def test_fb_9_2_ball_in_hand_placed_in_front_of_the_line_is_noted():
    s = _hand_stream((1200.0, 900.0)).call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2400.0, 900.0)})
    r = rulings(s)[0][4]
    assert any(n.startswith("FB-9.2: W2 was placed") for n in r.notes) and r.points == 3


def test_fb_10_10_carom_ball_off_the_table_rejects_the_pocketing():
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left W2-W1 W1^", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s)[0][1]
    assert r.foul and r.points == 0 and "FB-10.10" in r.rules
    assert any("A has ball in hand" in n for n in r.notes)  # W1 is A's white (FB-9.1)


def test_fb_10_9_restore_choice_is_recorded():
    s = _after_break().stroke("W2", "W2-K", rest={"K": (2000.0, 1100.0)}).foul("touched-ball")
    s.choice("restore").stroke("W1", "W1-K", rest={"K": (2100.0, 1100.0)})
    rs, _ = rulings(s)
    assert rs[1].foul and "FB-10.9" in rs[1].rules  # the restore follows its foul


def test_fb_14_2_a_lag_decides_who_starts_the_decider():
    s = Stream(MID, brk=False, score={"A": 40, "B": 40})
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})
    s.wait(70.0)
    s.stroke("W2", "W2-R2", rest={"R2": (2800.0, 1000.0)})  # time up in B's inning
    s.stroke("W1", "W1-R2", rest={"R2": (2900.0, 1100.0)})
    s.stroke("W2", "W2-R2", rest={"R2": (2950.0, 1150.0)})  # -> decider
    s.place("W1", (300.0, 500.0)).place("W2", (300.0, 1300.0))
    s._add("shot_start", dt=1.0, cue_ball="W1", player="A", lag=True)
    s._add("shot_start", dt=0.01, cue_ball="W2", player="B", lag=True)
    for b in ("W1", "W2"):
        s._add("cushion", ball=b, cushion="foot", pos=[3550.0, s.pos[b][1]])
    s.pos["W1"], s.pos["W2"] = (400.0, 500.0), (150.0, 1300.0)
    s._add("shot_end", dt=1.0, positions={b: list(p) for b, p in s.pos.items()})
    s.call("K", "foot-left").stroke("W2", "W2-K K>foot-left", rest={"W2": (2000.0, 500.0)})
    rs, sc = rulings(s, match_minutes="1")
    assert rs[4].shot == 0 and "FB-14.2" in rs[4].rules and rs[4].next == "B"
    assert rs[5].player == "B" and rs[5].points == 6


def test_fb_11_5_ball_moved_by_an_outside_cause_goes_back():
    s = _after_break().stroke("W2", "W2-K", rest={"K": (2000.0, 1100.0)})
    s._add("ball_moved", ball="R2", pos=[2700.0, 950.0])
    s.pos["R2"] = (2700.0, 950.0)
    s.stroke("W1", "W1-K", rest={"K": (2100.0, 1100.0)})
    rs, _ = rulings(s)
    assert "FB-11.5" in rs[1].rules and rs[1].next == "A"
    assert [(x.ball, x.pos) for x in rs[1].respots] == [("R2", FOOT_LINE)]


# ---------------------------------------------------- audit: FB-1, FB-2, FB-3.4, FB-6.2, FB-7
FOOT_END = (3106.25, 887.5)


def test_fb_1_1_the_five_balls_and_no_other():
    """FB-1.1: two whites, two reds, the kaisa; any other id is refused naming its line."""
    rs, sc = rulings(_after_break())
    assert sorted(sc.game.accounting()) == ["K", "R1", "R2", "W1", "W2"]
    s = _after_break()
    s._add("shot_start", dt=1.0, cue_ball="W2")
    s._add("collision", a="W2", b="Y", pos=[2000.0, 1000.0])
    with pytest.raises(RuleError, match=r"test:7: unknown ball id 'Y' in 'collision'"):
        s.score()


@pytest.mark.parametrize(("target", "start", "wins"), [(None, 97, True), ("50", 47, True)])
def test_fb_1_2_played_to_100_unless_the_competition_says_otherwise(target, start, wins):
    """FB-1.2: a red pot takes A from 97 to 100 and wins; with option target=50, 47 -> 50."""
    s = Stream(MID, brk=False, score={"A": start, "B": 10})
    s.call("R2", "foot-left").stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300, 700)})
    opts = {} if target is None else {"target": target}
    rs, sc = rulings(s, **opts)
    assert rs[0].points == 3 and sc.final["winner"] == "A"
    assert sc.final["score"]["A"] == (int(target) if target else 100)
    # one point short of the target does not win
    s = Stream(MID, brk=False, score={"A": start - 1, "B": 10})
    s.call("R2", "foot-left").stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300, 700)})
    assert rulings(s, **opts)[1].final["winner"] is None


def test_fb_1_3_a_luikka_off_a_red_is_allowed_and_scores():
    """FB-1.3 / FB-8.4: unlike kaisa, a called own-white in-off scores (off a red: 3); the
    player plays on, from hand (FB-9.1)."""
    s = _after_break().call("W2", "foot-left", via="R2")
    s.stroke("W2", "W2-R2 W2>foot-left", rest={"R2": (2900.0, 500.0)})
    s.place("W2", (400.0, 900.0)).call("K", "foot-right")
    s.stroke("W2", "W2~house W2-K K>foot-right", rest={"W2": (1900.0, 600.0)})
    rs, sc = rulings(s)
    assert not rs[1].foul and rs[1].points == 3 and rs[1].next == "B"
    assert "FB-9.1" in rs[1].rules
    assert rs[2].player == "B" and "FB-9.2" in rs[2].rules and rs[2].points == 6
    assert sc.final["score"] == {"A": 0, "B": 9}


def test_fb_1_4_fb_2_1_a_10_ft_kaisa_table_with_67_mm_balls():
    """FB-1.4 / FB-2.1: on the 10-ft kaisa table (67 mm balls) spots follow its length and
    "occupied" its ball size: a ball 68 mm from the head-line spot blocks a 68 mm-ball table's
    spot but not a 67 mm one's (FB-12.3)."""
    from luza.calibration.profiles import load_profile
    from luza.rules.record import score_items

    p10 = load_profile("kaisa-10ft")
    hx, hy = p10.spots["fb-head-line"]
    pos = {
        "W1": (1000.0, 300.0),
        "W2": (hx + 68.5, hy),  # 68.5 mm from the head-line spot: touching only for 68 mm balls
        "R1": (1600.0, 1100.0),
        "R2": p10.spots["fb-foot-line"],
        "K": p10.spots["fb-centre"],
    }
    s = Stream(pos, brk=False).call("R1", "foot-left")
    s.stroke("W1", "W1-R1 R1>foot-left", rest={"W1": (1500.0, 1000.0)})
    sc = score_items(s.items(), "five-ball", "kaisa-10ft", {})
    r = sc.rulings[0]
    assert r.points == 3 and [(x.ball, x.pos) for x in r.respots] == [("R1", (hx, hy))]
    on12 = score_items(s.items(), "five-ball", "pyramid-12ft", {}).rulings[0]
    assert on12.respots[0].pos != (hx, hy)  # the 12-ft spots are elsewhere


def test_fb_2_3_over_length_cue_points_stand_then_loss():
    """FB-2.3 / FB-10.14: a cue found too long: points scored with it stand; playing on with it
    loses the game."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)}).foul("over-length-cue")
    s.place("R2", FOOT_LINE).call("K", "foot-right")
    s.stroke("W2", "W2-K", rest={"K": (2000, 1000)})  # a miss: the turn passes
    s.call("R2", "foot-left").stroke("W1", "W1-R2", rest={"R2": (2800.0, 1000.0)})
    rs, sc = rulings(s)
    assert rs[1].points == 3 and sc.final["winner"] is None  # warned once, points stand
    assert sc.final["score"]["B"] == 3


def test_fb_3_4_the_other_balls_may_stay_on_their_spots_or_be_removed_for_the_lag():
    """FB-3.4: the same lag ruling whether the reds and kaisa stay on their spots or not."""
    out = []
    for others in ({k: OPENING[k] for k in ("K", "R1", "R2")}, {}):
        s = Stream({"W1": (300.0, 500.0), "W2": (300.0, 1300.0), **others})
        s._add("shot_start", dt=1.0, cue_ball="W1", player="A", lag=True)
        s._add("shot_start", dt=0.01, cue_ball="W2", player="B", lag=True)
        for b in ("W1", "W2"):
            s._add("cushion", ball=b, cushion="foot", pos=[3550.0, s.pos[b][1]])
        s.pos["W1"], s.pos["W2"] = (200.0, 500.0), (120.0, 1300.0)
        s._add("shot_end", dt=1.0, positions={b: list(p) for b, p in s.pos.items()})
        for b in ("K", "R1", "R2"):
            if b not in s.pos:
                s.place(b, OPENING[b])
        s.place("W1", (500.0, 400.0)).place("W2", (2300.0, 1500.0))  # B won: B has white 1
        s.stroke("W1", "W1~house W1-K", rest={"W1": (1500.0, 500.0)}, player="B")
        rs, _ = rulings(s)
        out.append((rs[0].next, rs[0].rules, rs[1].foul, rs[1].player))
    assert out[0] == out[1] and out[0][0] == "B" and out[0][2] is False


def test_fb_6_2_only_one_ball_may_be_called():
    """FB-6.2: a call names one ball; a list of balls is refused naming the line, and a second
    call before the stroke replaces the first (the last call stands)."""
    s = _after_break()
    s._add("call", ball=["R2", "K"], pocket="foot-left", route={"cushions": [], "cue_cushions": []})
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    with pytest.raises(RuleError, match=r"test:6: unknown ball id \['R2', 'K'\] in 'call'"):
        s.score()
    s = _after_break().call("K", "foot-right").call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    r = rulings(s, auto_call="false")[0][1]
    assert r.points == 3 and r.next == "B" and "FB-6.1" in r.rules


def test_fb_7_4_talonmies_rejects_the_pocketing_and_is_a_foul():
    """FB-7.4 / FB-10.6: a referee-entered talonmies (push) voids the pot and passes the turn;
    a cue ball touching its object ball is pointed out first (FB-11.1), never ruled by itself."""
    pos = dict(MID, W1=(2662.5 - 68.5, 887.5))  # W1 touches R2 on the foot-line spot
    for kind, foul in (("talonmies", True), (None, False)):
        s = Stream(pos, brk=False).call("R2", "foot-left")
        s.stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2900.0, 600.0)})
        if kind:
            s.foul(kind)
        r = rulings(s)[0][0]
        assert "FB-11.1" in r.rules
        assert r.foul is foul and r.points == (0 if foul else 3)
        assert ("FB-10.6" in r.rules) is foul and r.next == ("B" if foul else "A")


# ------------------------------------------------------------------ audit: FB-13.6, FB-14.4 .. 14.6
def test_fb_13_6_final_score_capped_at_100_for_the_loser_too():
    """FB-13.6: B recorded 104 without a finishing shot (FB-13.5); A then wins with a red:
    both finals are capped at 100, while the running score showed 104."""
    s = Stream(MID, brk=False, score={"A": 97, "B": 102})
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})  # A misses
    s.call("W1", "foot-right").stroke("W2", "W2-W1 W1>foot-right", rest={"W2": (2000, 900)})
    s.place("W1", (400.0, 900.0)).call("R2", "foot-left")
    s.stroke("W1", "W1~house W1-R2 R2>foot-left", rest={"W1": (2400.0, 700.0)})
    rs, sc = rulings(s)
    assert rs[1].score["B"] == 104 and "FB-13.5" in rs[1].rules and rs[1].next == "A"
    assert rs[2].points == 3 and "FB-13.1" in rs[2].rules and "FB-13.6" in rs[2].rules
    assert sc.final == {"type": "final", "score": {"A": 100, "B": 100}, "winner": "A"}


def _decider(score=None) -> Stream:
    """A 1-minute match whose time runs out: ruling 3 starts the penalty-shot decider with A
    first (the white-1 player), kaisa on the centre spot."""
    s = Stream(MID, brk=False, score=score or {"A": 40, "B": 40})
    s.stroke("W1", "W1-K", rest={"K": (1900.0, 1000.0)})  # A misses
    s.wait(70.0)
    s.stroke("W2", "W2-R2", rest={"R2": (2800.0, 1000.0)})  # B misses: time is up
    s.stroke("W1", "W1-R2", rest={"R2": (2900.0, 1100.0)})  # A's last inning
    s.stroke("W2", "W2-R2", rest={"R2": (2950.0, 1150.0)})  # B's last inning -> decider
    return s.place("K", CENTRE)


def test_fb_14_4_after_a_kaisa_pot_play_on_from_where_the_cue_ball_stopped():
    """FB-14.4: after the 6-point start shot the player goes on from where his cue ball
    stopped (no ball in hand) and a kaisa into a middle pocket scores as in the game (12)."""
    s = _decider()
    s.call("K", "foot-left").stroke("W1", "W1-K K>foot-left", rest={"W1": (1775.0, 450.0)})
    s.place("K", CENTRE).call("K", "middle-right")
    s.stroke("W1", "W1-K K>middle-right", rest={"W1": (1700.0, 700.0)})
    rs, sc = rulings(s, match_minutes="1")
    assert "FB-14.2" in rs[3].rules
    assert rs[4].points == 6 and "FB-14.3" in rs[4].rules and rs[4].next == "A"
    assert [x.pos for x in rs[4].respots] == [CENTRE]  # the kaisa back on the centre spot
    assert rs[5].points == 12 and "FB-14.4" in rs[5].rules and rs[5].next == "A"
    assert not any(r in rs[5].rules for r in ("FB-9.2", "FB-9.5"))  # not from hand
    assert sc.final["score"] == {"A": 58, "B": 40} and sc.final["winner"] is None


def test_fb_14_5_after_a_luikka_play_on_from_hand_with_the_kaisa_on_either_spot():
    """FB-14.5: a luikka off the kaisa on the foot-end spot into a corner is 6; the player goes
    on from hand and the ruling gives both kaisa spots; the next pot scores for him."""
    s = _decider()
    s.place("K", FOOT_END).call("W1", "foot-left", via="K")
    s.stroke("W1", "W1-K W1>foot-left", rest={"K": (3300.0, 600.0)})
    s.place("W1", (400.0, 700.0)).place("K", CENTRE).call("K", "foot-right")
    s.stroke("W1", "W1~house W1-K K>foot-right", rest={"W1": (1900.0, 600.0)})
    rs, sc = rulings(s, match_minutes="1")
    assert rs[4].points == 6 and not rs[4].foul and rs[4].next == "A"
    assert "FB-14.5" in rs[4].rules
    assert any("(1775, 888)" in n and "(3106, 888)" in n for n in rs[4].notes)
    assert rs[5].player == "A" and rs[5].points == 6 and "FB-14.4" in rs[5].rules
    assert sc.final["score"]["A"] == 52


def test_fb_14_6_kaisa_rules_apply_and_innings_alternate():
    """FB-14.6: a second straight-middle kaisa in the inning is a foul that ends it; an
    illegal own-ball pocketing ends an inning; turns alternate after each inning."""
    s = _decider()
    s.call("K", "foot-left").stroke("W1", "W1-K K>foot-left", rest={"W1": (1775.0, 450.0)})
    s.place("K", CENTRE).call("K", "middle-right")
    s.stroke("W1", "W1-K K>middle-right", rest={"W1": (1775.0, 450.0)})  # straight: 12
    s.place("K", CENTRE).call("K", "middle-right")
    s.stroke("W1", "W1-K K>middle-right", rest={"W1": (1700.0, 450.0)})  # again: foul
    s.place("K", CENTRE).call("K", "foot-left")
    s.stroke("W2", "W2-K W2>middle-left", rest={"K": (2000.0, 1000.0)})  # own white, no pot
    rs, sc = rulings(s, match_minutes="1", decider_innings="2")
    assert [r.points for r in rs[4:7]] == [6, 12, 0]
    assert rs[6].foul and rs[6].fouls[0].rule == "FB-10.11" and rs[6].next == "B"
    assert rs[7].player == "B" and rs[7].foul and rs[7].fouls[0].rule == "FB-10.1"
    assert rs[7].next == "A" and "FB-14.6" in rs[7].rules  # B's inning over: A again
    assert sc.final["score"] == {"A": 58, "B": 40}


# ------------------------------------------------------------------ §9.2 / FB-8.2 end to end
def _pot(called: str, pocket: str, nakki: str = "") -> Stream:
    """A (white 1, mid-game, not from hand) pots the called ball, then W1 meets the nakki balls."""
    toks = f"W1-{called} {called}>{pocket} " + " ".join(f"W1-{b}" for b in nakki.split())
    s = Stream(MID, brk=False).call(called, pocket)
    return s.stroke("W1", toks.strip(), rest={"W1": (1300.0, 1200.0)})


def _cell_stream(called: str, pk: str, nakki: str) -> Stream:
    ball = {"white": "W2", "red": "R2", "kaisa": "K"}[called]
    pocket = {"corner": "foot-left", "middle": "middle-left"}[pk]
    others = [b for b in ("W2", "R1", "R2", "K") if b != ball]
    ids = []
    for c in nakki:  # W, R, K letters -> a ball of that colour other than the called one
        ids.append(next(b for b in others if b[0] == c and b not in ids))
    return _pot(ball, pocket, " ".join(ids))


def test_fb_8_2_every_checked_cell_through_the_engine():
    """FB-8.2: every ✓ cell (and the digest's reasoned cells) scored from a stream by the game
    engine: call made, the player continues, the points are the table's."""
    from test_rules_fb_scoring import FB_8_2_CELLS

    for called, pk, nakki, expected in FB_8_2_CELLS:
        r = rulings(_cell_stream(called, pk, nakki))[0][0]
        assert (r.points, r.foul, r.next) == (expected, False, "A"), (called, pk, nakki)
        assert "FB-8.2" in r.rules or not nakki


@pytest.mark.parametrize(
    ("called", "pocket", "tokens", "route", "points"),
    [
        ("R2", "foot-left", "W1-R2 R2>foot-left W1-W2 W1-K", {}, 11),
        ("W2", "foot-right", "W1-W2 W2>foot-right W1-R1 W1-R2", {}, 7),
        ("K", "foot-left", "W1-K K>foot-left W1-W2 W1-R2", {}, 14),
        (
            "K",
            "middle-left",
            "W1-K K|right-head K>middle-left W1-R1 W1-R2",
            {"cushions": ["right-head"]},
            21,
        ),
        ("K", "middle-left", "W1-R1 R1-K K>middle-left W1-W2", {"combination": "R1"}, 6),
    ],
    ids=["red+W+K=11", "white+R+R=7", "kaisa-corner+W+R=14", "kaisa-middle-bank+R+R=21", "combo=6"],
)
def test_golden_fb_9_2_cases_through_the_engine(called, pocket, tokens, route, points):
    """§9.2 / FB-8.2 / FB-8.5c: the golden Five Ball cases, scored from a stream."""
    s = Stream(MID, brk=False).call(called, pocket, **route)
    s.stroke("W1", tokens, rest={"W1": (1300.0, 1200.0)})
    r = rulings(s)[0][0]
    assert r.points == points and not r.foul and r.next == "A"


def test_golden_fb_8_6_the_37_point_shot_through_the_engine():
    """§9.2 / FB-8.6: the maximum from a stream: kaisa middle, nakki W2 R1 R2, all three drop,
    W1 in off the kaisa: 37; the player continues from hand, B's white goes to hand (FB-9.1)
    and the kaisa and reds get their spots, kaisa first (FB-12.5)."""
    toks = (
        "W1-K K>middle-left W1-W2 W1-R1 W1-R2 W2>foot-left R1>foot-right R2>head-left "
        "W1|left-foot W1>middle-right"
    )
    s = Stream(MID, brk=False).call("K", "middle-left").stroke("W1", toks)
    r = rulings(s)[0][0]
    assert r.points == 37 and not r.foul and r.next == "A"
    assert [x.ball for x in r.respots] == ["K", "R1", "R2"]
    assert [x.pos for x in r.respots] == [CENTRE, HEAD_LINE, FOOT_LINE]
    assert sum(1 for n in r.notes if "has ball in hand (FB-9.1)" in n) == 2


def test_a_free_pyramid_choice_in_five_ball_is_noted_as_ignored():
    """A choice Five Ball does not know (e.g. Free Pyramid's 'hand-back') is not dropped
    silently: the ruling says it was ignored."""
    s = _after_break().choice("hand-back").stroke("W2", "W2-K", rest={"K": (2000.0, 1100.0)})
    rs = rulings(s)[0]  # a choice after a stroke belongs to that stroke's record
    notes = [n for r in rs for n in r.notes]
    assert any("choice 'hand-back'" in n and "ignored" in n for n in notes)
    assert not any(r.foul for r in rs) and rs[1].next == "A"


def test_fb_10_9_a_foul_by_the_player_not_at_the_table_does_not_void_the_stroke():
    """FB-10.9: the turn passes only if the fouler was at the table. B touches a ball while A
    pots: A's points stand and he plays on; the ruling names B's foul and the restore choice."""
    s = Stream(MID, brk=False).call("R2", "foot-left")
    s.stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300.0, 700.0)})
    s.foul("touched-ball", player="B")
    r = rulings(s)[0][0]
    assert not r.foul and r.points == 3 and r.next == "A"
    assert "FB-10.9" in r.rules and any("touched-ball by B" in n for n in r.notes)
    s = Stream(MID, brk=False).call("R2", "foot-left")
    s.stroke("W1", "W1-R2 R2>foot-left", rest={"W1": (2300.0, 700.0)})
    s.foul("touched-ball", player="A")  # the striker himself: a foul, the turn passes
    r = rulings(s)[0][0]
    assert r.foul and r.points == 0 and r.next == "B"


def test_low_confidence_events_are_flagged_not_ruled():
    """An event the tracker was unsure of gets a 'check' note; the ruling is unchanged."""
    s = _after_break().call("R2", "foot-left")
    s.stroke("W2", "W2-R2 R2>foot-left", rest={"W2": (2500.0, 1200.0)})
    s.lines[-2]["confidence"] = 0.3  # the red's pocket event
    r = rulings(s)[0][1]
    assert r.points == 3 and not r.foul
    assert any(n.startswith("check: low-confidence 'pocket' (0.30)") for n in r.notes)
