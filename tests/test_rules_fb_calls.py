"""FB-6 calls judged against observed strokes; §9.2 golden cases through the judge."""

from __future__ import annotations

import pytest
from rules_fb_shots import events, shot

from luza.events import make
from luza.rules.five_ball_calls import (
    Call,
    CallError,
    auto_call,
    call_from_event,
    judge,
    kaisa_straight_middle,
    luikka_straight_middle_off_kaisa,
    observe,
)


def test_golden_fb_red_with_nakki_white_and_kaisa_is_11():
    """§9.2 / FB-8.2: call red, pocketed, cue ball then touches the white and the kaisa."""
    obs = shot("W1", "W1-R1 R1>foot-left W1-W2 W1-K")
    j = judge(Call("R1", "foot-left"), obs)
    assert j.made and j.points == 11


def test_golden_fb_white_with_nakki_both_reds_is_7():
    """§9.2 / FB-8.2: call the opponent's white, cue ball touches both reds."""
    obs = shot("W1", "W1-W2 W2>head-right W1-R1 W1|foot W1-R2")
    j = judge(Call("W2", "head-right"), obs)
    assert j.made and j.points == 7


def test_golden_fb_kaisa_corner_nakki_white_red_is_14():
    """§9.2 / FB-8.2: kaisa to a corner, nakki on white + red."""
    obs = shot("W2", "W2-K K>foot-right W2-W1 W2-R2")
    assert judge(Call("K", "foot-right"), obs).points == 14


def test_golden_fb_kaisa_middle_off_cushion_nakki_both_reds_is_21():
    """§9.2 / FB-8.2: kaisa to a middle pocket off a cushion, nakki on both reds."""
    obs = shot("W1", "W1-K K|left-foot K>middle-right W1-R1 W1-R2")
    j = judge(Call("K", "middle-right", cushions=("left-foot",)), obs)
    assert j.made and j.points == 21


def test_golden_fb_kaisa_middle_by_combination_is_6():
    """§9.2 / FB-8.5c: kaisa into a middle pocket by combination scores 6, no nakki."""
    obs = shot("W1", "W1-R1 R1-K K>middle-left W1-W2")
    j = judge(Call("K", "middle-left", combination="R1"), obs)
    assert j.made and j.points == 6


def test_golden_fb_the_37_point_shot_from_events():
    """§9.2 / FB-8.6: the maximum, judged from a plain event sequence."""
    obs = shot(
        "W1",
        "W1-K K>middle-left W1-W2 W1-R1 W1-R2 W2>foot-left R1>foot-right R2>head-left "
        "W1|left-foot W1>middle-right",
    )
    j = judge(Call("K", "middle-left"), obs)
    assert j.made and j.points == 37


def test_fb_6_6_wrong_pocket_is_not_made():
    obs = shot("W1", "W1-R1 R1>foot-left")
    j = judge(Call("R1", "foot-right"), obs)
    assert not j.made and j.reasons[0][0] == "FB-6.6"


def test_fb_6_6_uncalled_cushion_is_not_made_called_cushion_is():
    obs = shot("W1", "W1-R1 R1|foot R1>head-left")
    assert not judge(Call("R1", "head-left"), obs).made
    assert judge(Call("R1", "head-left", cushions=("foot",)), obs).made


def test_fb_6_6_cue_cushions_before_first_ball():
    obs = shot("W1", "W1|right-head W1-R1 R1>foot-left")
    assert not judge(Call("R1", "foot-left"), obs).made
    assert judge(Call("R1", "foot-left", cue_cushions=("right-head",)), obs).made


def test_fb_6_6_via_a_ball_cue_side_and_object_side():
    """FB-6.1 'pallon kautta': the cue ball off a ball, or the object ball off a ball."""
    cue_via = shot("W1", "W1-R2 W1-R1 R1>foot-left")
    assert judge(Call("R1", "foot-left", via="R2"), cue_via).made
    assert not judge(Call("R1", "foot-left"), cue_via).made
    obj_via = shot("W1", "W1-R1 R1-K R1>foot-left")
    assert judge(Call("R1", "foot-left", via="K"), obj_via).made
    assert not judge(Call("R1", "foot-left"), obj_via).made


def test_fb_6_6_combination_must_be_called():
    obs = shot("W1", "W1-K K-R1 R1>foot-left")
    assert not judge(Call("R1", "foot-left"), obs).made
    assert not judge(Call("R1", "foot-left", combination="R2"), obs).made
    j = judge(Call("R1", "foot-left", combination="K"), obs)
    assert j.made and j.points == 3


def test_fb_6_5_kaka_repeated_cue_contacts_void_the_pocketing():
    """FB-6.5: the object ball takes two successive contacts from the cue ball."""
    obs = shot("W1", "W1-R1 W1-R1 R1>foot-left")
    j = judge(Call("R1", "foot-left"), obs)
    assert not j.made and ("FB-6.5" in {r for r, _ in j.reasons})
    # A contact with another ball in between is not käkä (it is a kiss: a via ball).
    obs2 = shot("W1", "W1-R1 R1-K W1-R1 R1>foot-left")
    assert all(r != "FB-6.5" for r, _ in judge(Call("R1", "foot-left", via="K"), obs2).reasons)


def test_fb_6_5_kaka_in_a_luikka():
    """FB-6.5: the luikka ball takes two successive contacts from the object ball."""
    obs = shot("W1", "W1-K W1-K W1>foot-left")
    j = judge(Call("W1", "foot-left", via="K"), obs)
    assert not j.made and any(r == "FB-6.5" for r, _ in j.reasons)


def test_fb_6_luikka_call_made_and_valued():
    """FB-8.4: called luikka via the kaisa + cushion into a middle = 12."""
    obs = shot("W1", "W1-K W1|right-foot W1>middle-left")
    j = judge(Call("W1", "middle-left", cushions=("right-foot",), via="K"), obs)
    assert j.made and j.points == 12
    obs2 = shot("W1", "W1-R2 W1>foot-left")
    assert judge(Call("W1", "foot-left", via="R2"), obs2).points == 3


def test_fb_10_3_luikka_into_another_pocket_is_flagged():
    obs = shot("W1", "W1-K W1>foot-right")
    j = judge(Call("W1", "foot-left", via="K"), obs)
    assert not j.made and j.wrong_pocket_luikka and j.reasons[0][0] == "FB-10.3"


def test_fb_11_3_jaw_as_a_cushion_and_rattle_ignored():
    """FB-11.3: a jaw may be called as a cushion; the pocket's own jaw is a rattle."""
    rattle = shot("W1", "W1-R1 R1|jaw:foot-left R1>foot-left")
    assert judge(Call("R1", "foot-left"), rattle).made
    bank = shot("W1", "W1-R1 R1|jaw:middle-left R1>head-right")
    assert not judge(Call("R1", "head-right", cushions=("left-head",)), bank).made
    assert judge(Call("R1", "head-right", cushions=("left-head",), jaw=True), bank).made
    assert judge(Call("R1", "head-right", cushions=("jaw:middle-left",)), bank).made


def test_uncalled_luikka_during_a_made_call_scores_first_ball_struck():
    """FB-6.4 / FB-8.4: an uncalled luikka in a successful pocketing still scores."""
    obs = shot("W1", "W1-R1 R1>foot-left W1>head-left")
    assert judge(Call("R1", "foot-left"), obs).points == 3 + 3


def test_straight_kaisa_middle_detection():
    """FB-8.5a: straight = cue -> kaisa -> middle, nothing between."""
    assert kaisa_straight_middle(shot("W1", "W1-K K>middle-left"))
    assert not kaisa_straight_middle(shot("W1", "W1-K K|right-head K>middle-left"))
    assert not kaisa_straight_middle(shot("W1", "W1-R1 R1-K K>middle-left"))
    assert not kaisa_straight_middle(shot("W1", "W1-K K>foot-left"))
    assert luikka_straight_middle_off_kaisa(shot("W1", "W1-K W1>middle-left"))
    assert not luikka_straight_middle_off_kaisa(shot("W1", "W1-K W1|foot W1>middle-left"))


def test_auto_call_credits_the_most_favourable_call():
    """Auto-call: with no call, the best legal call consistent with the stroke."""
    obs = shot("W1", "W1-K K>foot-left W1-R1 R1>head-left")
    a = auto_call(obs)
    assert a.best is not None and a.best.call.ball == "K" and a.best.call.auto
    # Kaisa with nakki red (9 + 3) + the red dropping (3) beats the red via the kaisa (3 + 6).
    assert a.best.points == 15
    assert {j.call.ball for j in a.considered} == {"K", "R1"}


def test_auto_call_luikka_only_and_nothing():
    a = auto_call(shot("W2", "W2-R1 W2|foot W2>foot-right"))
    assert a.best is not None and a.best.call.ball == "W2" and a.best.points == 3
    assert auto_call(shot("W2", "W2-R1 R1|foot")).best is None


def test_auto_call_respects_allowed_filter():
    obs = shot("W1", "W1-R2 W1>foot-left")
    assert auto_call(obs, allowed=lambda j: j.call.ball != "W1").best is None


def test_call_from_event_and_errors():
    ev = make(
        "call",
        3.0,
        ball="K",
        pocket="middle-left",
        route={
            "cushions": ["right-foot"],
            "cue_cushions": [],
            "via": None,
            "combination": None,
            "jaw": False,
        },
    )
    c = call_from_event(ev)
    assert c.cushions == ("right-foot",) and c.pocket == "middle-left"
    with pytest.raises(CallError, match="ball"):
        call_from_event(make("call", 1.0, ball="Y", pocket="foot-left"))
    with pytest.raises(CallError, match="pocket"):
        call_from_event(make("call", 1.0, ball="K", pocket="corner"))
    with pytest.raises(CallError, match="cushion"):
        call_from_event(make("call", 1.0, ball="K", pocket="foot-left", route={"cushions": ["x"]}))


def test_hang_fall_counts_as_pocketed_in_observe():
    """FB-11.4: a hanging ball that falls (in time) counts; observe() maps it to a pocket."""
    evs = events("W1-R1") + [make("hang_fall", 0.5, ball="R1", pocket="foot-left")]
    assert judge(Call("R1", "foot-left"), observe("W1", evs)).made


def test_fb_8_5d_tricks_combine_via_and_combination():
    """FB-8.5d: the cue ball off a ball onto a combination ball that drives the red in."""
    obs = shot("W1", "W1-R2 W1-K K-R1 R1>foot-left W1-W2")
    j = judge(Call("R1", "foot-left", via="R2", combination="K"), obs)
    assert j.made and j.points == 3  # no nakki via a ball or by combination (FB-8.2b)
    assert not judge(Call("R1", "foot-left", combination="K"), obs).made
    assert not judge(Call("R1", "foot-left", via="R2"), obs).made


def test_fb_6_6_first_ball_must_fit_the_call():
    obs = shot("W1", "W1-R2 R2-K W1-R1 R1>foot-left")
    assert judge(Call("R1", "foot-left", via="R2"), obs).made
    obs2 = shot("W1", "W1-K W1-R1 R1>foot-left")
    j = judge(Call("R1", "foot-left", via="R2"), obs2)
    assert not j.made and any("first ball struck K" in why for _, why in j.reasons)
