"""Five Ball Pyramid (RULES.en.md FB-1 .. FB-14) on the rules core.

``FiveBall`` implements :class:`luza.rules.engine.Game`: ``setup`` for every
``table_state``, ``rule`` for every stroke.  The pieces are pure modules:

* ``five_ball_scoring`` -- the FB-8 table (base, nakki, extra balls, luikka);
* ``five_ball_calls`` -- FB-6 call judging (route, käkä) and the auto-call mode;
* ``five_ball_respot`` -- FB-12 spot lists, "occupied", the kaisa's return;
* ``five_ball_clock`` -- FB-14 clock, last innings, penalty-shot decider.

Conventions (see ``rules/REFEREE.md``):

* **Players** are ``A`` and ``B`` (or the names of a ``players`` input).  ``A``
  breaks with white 1 unless a lag decides (FB-3): the lag winner takes white
  1 and breaks, or enters ``{"type": "choice", "kind": "ball-2"}`` to take
  white 2 (FB-3.5).
* **Calls**: a ``call`` input belongs to the first stroke whose ``shot_end``
  comes at or after it (normally it is entered before the strike).  With no
  call, the auto-call mode (option ``auto_call``, on by default) credits the
  most favourable legal call consistent with what happened and says so.
* **Operator fouls** (``foul`` inputs) belong to the stroke they follow.
  Kinds: ``touched-ball`` (FB-10.4), ``push`` (FB-10.6), ``double-hit``
  (FB-10.7, no points, not a foul), ``non-tip`` (FB-7.2), ``wrong-ball``
  (FB-10.8), ``touching-ball`` (FB-11.1), ``spoiled-setup`` (FB-11.2),
  ``over-length-cue`` (FB-10.14), ``early-strike`` (FB-10.13), ``out-of-turn``;
  any other kind is a foul under the ``rule`` it gives.
* **Timed matches** (option ``match_minutes`` > 0, FB-14): the clock starts at
  the first stroke; ``choice`` kinds ``break-start`` / ``break-end`` (one break
  per player, ``player`` field, default the player at the table),
  ``decider-first`` (``player``: who opens the penalty-shot decider).
"""

from __future__ import annotations

import math
from typing import Any

from luza.events import FIVE_BALL_BALLS
from luza.rules.engine import (
    XY,
    Game,
    Item,
    Respot,
    RuleError,
    Ruling,
    Setup,
    ShotRecord,
    rule_error,
)
from luza.rules.five_ball_calls import (
    Call,
    CallError,
    Judgement,
    ShotObs,
    auto_call,
    call_from_event,
    judge,
    kaisa_straight_middle,
    luikka_straight_middle_off_kaisa,
    observe,
)
from luza.rules.five_ball_clock import (
    ClockError,
    MatchClock,
    PenaltyDecider,
    decider_layout,
    last_innings,
)
from luza.rules.five_ball_respot import (
    PLACEMENT_TOLERANCE_MM,
    SpotHint,
    check_opening,
    check_placement,
    kaisa_return_hint,
    respot_hints,
    spots,
)
from luza.rules.five_ball_scoring import ScoringConfig, explain, is_finishing

WHITES = ("W1", "W2")
# Operator choices Five Ball knows (see the module docstring and rules/REFEREE.md).
CHOICE_KINDS = ("ball-2", "give-start", "restore", "break-start", "break-end", "decider-first")
LONG_CUSHIONS = ("left-head", "left-foot", "right-head", "right-foot")

# Operator foul kinds -> (rule, is a foul).  double-hit is "no points", not a foul (FB-10.7).
FOUL_KINDS: dict[str, tuple[str, bool]] = {
    "touched-ball": ("FB-10.4", True),
    "touch": ("FB-10.4", True),
    "non-tip": ("FB-7.2", True),
    "push": ("FB-10.6", True),
    "talonmies": ("FB-10.6", True),
    "double-hit": ("FB-10.7", False),
    "wrong-ball": ("FB-10.8", True),
    "touching-ball": ("FB-11.1", True),
    "spoiled-setup": ("FB-11.2", True),
    "over-length-cue": ("FB-10.14", False),
    "early-strike": ("FB-10.13", True),
    "out-of-turn": ("FB-10.9", True),
}


def _dist(a: XY, b: XY) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


class FiveBall(Game):
    """Five Ball Pyramid: 100 points, called shots, two cue balls (FB-1)."""

    name = "five-ball"
    balls = FIVE_BALL_BALLS
    OPTIONS: dict[str, Any] = {
        "target": 100,  # FB-1.2 / FB-13.1
        "kaisa_straight_middle": 12,  # AMB-2: a straight kaisa into a middle pocket
        "extra_kaisa_middle": 6,  # AMB-3: an uncalled kaisa dropping into a middle pocket
        "auto_call": True,  # credit the best legal call when none was entered
        "hang_window_s": 5.0,  # FB-11.4 / AMB-24
        "touch_tolerance_mm": 2.0,  # FB-11.1: touching = centres within D + this
        "match_minutes": 0.0,  # FB-14.1: 0 = untimed
        "warning_minutes": 5.0,  # FB-14.1
        "break_minutes": 5.0,  # FB-14.9
        "decider_innings": 5,  # FB-14.2
        "break_in_off_corner": True,  # AMB-9: an in-off off the kaisa into a corner at the break
        "min_confidence": 0.6,  # events the tracker is less sure of are flagged in the notes
    }

    def __init__(self, profile, options=None):
        super().__init__(profile, options)
        self.spots = spots(profile)
        self.head_x = self.spots["fb-head-line"][0]
        self.cfg = ScoringConfig(
            kaisa_middle_straight=int(self.options["kaisa_straight_middle"]),
            extra_kaisa_middle=int(self.options["extra_kaisa_middle"]),
        )
        self.target = int(self.options["target"])
        self.players: list[str] = ["A", "B"]
        self.scores: dict[str, int] = {"A": 0, "B": 0}
        self.owner: dict[str, str] = {"W1": "A", "W2": "B"}
        self.turn: str = "A"
        self.started = False  # a stroke other than the lag has been ruled
        self.break_next = True
        self.hand: set[str] = {"A"}  # players with ball in hand on their next stroke
        self.off_whites: set[str] = set()  # whites off the table
        self.awaiting: set[str] = set()  # reds / kaisa waiting to be spotted
        self.positions: dict[str, XY] = {}
        self.kaisa_displaced = False
        self.kaisa_straight_middle_in_inning = False
        self.inning_player: str | None = None
        self.pending_calls: list[Item] = []
        self.pending_choices: list[Item] = []
        self.cue_warned: set[str] = set()  # FB-10.14 over-length cue noted once
        self._timely_falls: list = []  # FB-11.4 hang_falls that count for this stroke
        self.winner_: str | None = None
        self.setups = 0
        # FB-14
        self.clock: MatchClock | None = None
        self.warned = False
        self.time_up = False
        self.last_plan: list[str] | None = None
        self.decider: PenaltyDecider | None = None
        self.decider_first: str | None = None

    # ------------------------------------------------------------ interface
    def score(self) -> dict[str, int]:
        if self.decider is not None:
            return self.decider.final_scores()
        if self.winner_ is None:
            return dict(self.scores)  # unfinished: 101+ without a finishing shot stands (FB-13.5)
        return {p: min(v, self.target) for p, v in self.scores.items()}  # FB-13.6

    def winner(self) -> str | None:
        return self.winner_

    def accounting(self) -> dict[str, str]:
        """Where each ball is: ``table``, ``respot`` (awaiting its spot) or ``hand``."""
        out = {}
        for b in self.balls:
            if b in self.positions:
                out[b] = "table"
            elif b in self.awaiting:
                out[b] = "respot"
            elif b in self.off_whites:
                out[b] = "hand"
            else:
                out[b] = "missing"
        return out

    def setup(self, setup: Setup) -> None:
        self.setups += 1
        for it in setup.inputs:
            self._input_before_play(it)
        if setup.score is not None:
            for p, v in setup.score.items():
                if p not in self.scores:
                    raise rule_error(
                        setup.item.where,
                        f"score names {p!r}, not a player ({', '.join(self.players)})",
                    )
                self.scores[p] = int(v)
        pos = dict(setup.after or setup.positions)
        self.positions = pos
        self.awaiting = {b for b in ("R1", "R2", "K") if b not in pos}
        self.off_whites = {b for b in WHITES if b not in pos}
        for w in self.off_whites:
            self.hand.add(self.owner[w])
        self.kaisa_displaced = False
        if setup.item.get("break") is False or (setup.score is not None and not self.started):
            # A game picked up in play: no break, ball in hand only for a white off the table.
            self.break_next = False
            self.hand = {self.owner[w] for w in self.off_whites}

    def _input_before_play(self, it: Item) -> None:
        if it.type == "players":
            if self.started:
                raise rule_error(it.where, "'players' after the first stroke")
            names = [str(n) for n in it["names"]]
            old = self.players
            self.players = names
            m = dict(zip(old, names, strict=True))
            self.scores = {m[p]: v for p, v in self.scores.items()}
            self.owner = {b: m[p] for b, p in self.owner.items()}
            self.turn = m[self.turn]
            self.hand = {m[p] for p in self.hand}
        elif it.type == "call":
            self.pending_calls.append(it)
        elif it.type == "choice":
            self.pending_choices.append(it)

    # ------------------------------------------------------------ helpers
    def _other(self, p: str) -> str:
        return self.players[1] if p == self.players[0] else self.players[0]

    def _own_ball(self, p: str) -> str:
        return "W1" if self.owner["W1"] == p else "W2"

    def fb_6_take_call(self, shot: ShotRecord) -> Item | None:
        """The call for this stroke: the last one entered before its shot_end."""
        calls = [c for c in self.pending_calls if c.t <= shot.t_end]
        calls += [c for c in shot.inputs_of_type("call") if c.t <= shot.t_end]
        later = [c for c in shot.inputs_of_type("call") if c.t > shot.t_end]
        self.pending_calls = later
        return calls[-1] if calls else None

    def _choices(self, shot: ShotRecord) -> list[Item]:
        out = self.pending_choices + shot.inputs_of_type("choice")
        self.pending_choices = []
        return out

    def _ruling(self, shot: ShotRecord, player: str | None) -> Ruling:
        return Ruling(shot.n, player, shot.cue_ball)

    # ------------------------------------------------------------ the lag
    def fb_3_lag(self, shot: ShotRecord) -> Ruling:
        """FB-3: both players strike together; nearest the head cushion wins."""
        r = Ruling(0, None, None)
        # Calls and choices entered after the lag are for the break.
        self.pending_calls += shot.inputs_of_type("call")
        self.pending_choices += [
            c for c in shot.inputs_of_type("choice") if c.get("kind") != "ball-2"
        ]
        r.add_rule("FB-3.1")
        lagers = []
        for i, st in enumerate(shot.starts):
            p = st.get("player") or self.players[i % 2]
            if p not in self.players:
                raise rule_error(
                    st.where, f"lag player {p!r} is not in this match ({', '.join(self.players)})"
                )
            lagers.append((str(p), str(st["cue_ball"])))
        fails: dict[str, list[str]] = {}
        for p, b in lagers:
            why = []
            if any(b in (i["a"], i["b"]) for i in shot.of_type("collision")):
                why.append("FB-3.2(a) touched another ball")
            cush = [str(i["cushion"]) for i in shot.of_type("cushion") if i["ball"] == b]
            if any(c in LONG_CUSHIONS for c in cush):
                why.append("FB-3.2(b) touched a long cushion")
            if b in shot.pocketed() or b in shot.jumped():
                why.append("FB-3.2(c) pocketed or off the table")
            if cush.count("head") > 1 or cush.count("foot") > 1:
                why.append("FB-3.2(d) touched an end cushion more than once")
            if any(i["ball"] == b and i["line"] == "axis" for i in shot.of_type("line_cross")):
                why.append("FB-3.2(e) crossed the long axis")
            if "foot" not in cush:
                why.append("FB-3.3 did not reach the foot cushion")
            if b not in shot.at_rest:
                why.append("no rest position")
            start = shot.before.get(b)
            if start is not None and not start[0] < self.head_x:
                r.notes.append(f"lag: {p}'s ball started in front of the head line (FB-3.1)")
            fails[p] = why
            for w in why:
                r.notes.append(f"lag: {p}: {w}")
                r.add_rule(w.split()[0].split("(")[0])
        ok = [(p, b) for p, b in lagers if not fails[p]]
        winner = None
        if len(ok) == 1:
            winner = ok[0][0]
        elif len(ok) == 2:
            d = {p: shot.at_rest[b][0] for p, b in ok}
            (p1, d1), (p2, d2) = d.items()
            if abs(d1 - d2) > 0.5:
                winner = p1 if d1 < d2 else p2
        if winner is None:
            r.notes.append("lag undecided: repeat the lag (FB-3.3, AMB-7)")
            r.next = None
            r.score = dict(self.scores)
            return r
        if self.decider is not None:
            return self.fb_14_3_decider_lag(r, winner, shot)
        r.add_rule("FB-3.5")
        takes_two = any(c.get("kind") == "ball-2" for c in shot.inputs_of_type("choice"))
        breaker = self._other(winner) if takes_two else winner
        self.owner = {"W1": breaker, "W2": self._other(breaker)}
        self.turn = breaker
        self.hand = {breaker}
        r.notes.append(f"lag won by {winner}; {breaker} takes white 1 and breaks (FB-2.2, FB-3.5)")
        r.next = breaker
        r.score = dict(self.scores)
        self.positions = dict(shot.after)
        self.awaiting = {b for b in ("R1", "R2", "K") if b not in self.positions}
        self.off_whites = {b for b in WHITES if b not in self.positions}
        return r

    # ------------------------------------------------------------ a stroke
    def rule(self, shot: ShotRecord) -> Ruling:
        if shot.lag:
            if self.started and not self.fb_14_3_decider_unstarted():
                raise rule_error(shot.start.where, "a lag after the game has started")
            return self.fb_3_lag(shot)
        if self.winner_ is not None:
            raise rule_error(
                shot.start.where, f"a stroke after the game is over (winner {self.winner_})"
            )
        player = shot.player if shot.player is not None else self.turn
        if player not in self.players:
            raise rule_error(
                shot.start.where,
                f"player {player!r} is not in this match ({', '.join(self.players)})",
            )
        r = self._ruling(shot, player)
        if player != self.turn:
            r.notes.append(f"{self.turn} was to play; {player} struck")
        if self.clock is None and float(self.options["match_minutes"]) > 0:
            self.clock = MatchClock(
                shot.t_start,
                float(self.options["match_minutes"]) * 60.0,
                float(self.options["warning_minutes"]) * 60.0,
                float(self.options["break_minutes"]) * 60.0,
            )
        choices = self._choices(shot)
        self.fb_14_clock_inputs(choices, player, r)
        if player != self.inning_player:
            self.inning_player = player
            self.kaisa_straight_middle_in_inning = False  # FB-8.5: per inning
        is_break = self.break_next and not self.started
        self.started = True
        self.break_next = False
        from_hand = player in self.hand
        self.hand.discard(player)
        own = self._own_ball(player)
        cue = shot.cue_ball
        late_falls = self.fb_11_4_hanging_balls(shot, r)
        self._low_confidence(shot, r)
        obs = observe(cue, [i.event for i in shot.events] + self._timely_falls)
        before = shot.before
        self.fb_11_1_touching_balls(shot, r, cue)
        if self.decider is not None:
            return self.fb_14_3_decider_stroke(shot, r, player, obs)

        call_item = self.fb_6_take_call(shot)
        call = self.fb_6_call(call_item, shot, own)

        # ---------------------------------------------------------- fouls
        no_points: list[str] = []
        if cue != own:
            r.add_foul("FB-10.8", f"{player} struck {cue}, the opponent's white ({own} is his)")
        if shot.before_rest:
            r.add_foul("FB-10.13", "struck before all balls had stopped (FB-7.1)")
        self.fb_10_operator_fouls(shot, r, player, no_points)
        for b in obs.off_table():
            r.add_foul("FB-10.2", f"{b} left the table")
            if b != cue and obs.pocketed():
                r.add_rule("FB-10.10")  # a nakki, carom or combination ball: pocketing rejected
        ks_middle = kaisa_straight_middle(obs)
        if ks_middle and self.kaisa_straight_middle_in_inning:
            r.add_foul(
                "FB-10.11", "the kaisa went straight into a middle pocket twice in a row (FB-8.5b)"
            )
        fc = obs.first_contact()
        crossed = self.fb_9_5_crossed_head_line(shot, obs, cue)
        if is_break:
            r.add_rule("FB-5.1")
            for rule, why in check_opening(before, self.profile):
                r.notes.append(f"{rule}: {why}")
                r.add_rule(rule)
            self.fb_5_2_break_fouls(shot, obs, r, fc)
        if is_break or from_hand:
            hand_foul = self.fb_9_ball_in_hand_fouls(shot, obs, r, fc, crossed, is_break)
            if hand_foul and not is_break and not crossed and cue == own:
                # FB-9.7: the cue ball is lifted; ball in hand again next turn.
                r.notes.append(
                    f"FB-9.7: {cue} did not cross the head line: lift it, "
                    f"{player} has ball in hand again"
                )
                r.add_rule("FB-9.7")
                self.hand.add(player)

        # ---------------------------------------------------------- the call
        j: Judgement | None = None
        if call is not None:
            j = judge(call, obs, self.cfg)
            r.add_rule("FB-6.1")
        elif self.options["auto_call"] and obs.pocketed():
            allowed = None
            if from_hand and not is_break:
                allowed = self.fb_9_3_hand_allows
            a = auto_call(obs, allowed, self.cfg)
            j = a.best
            if j is not None:
                r.notes.append(
                    f"auto-call: no call entered; credited the most favourable "
                    f"legal call: {j.call.describe()}"
                )
            else:
                r.notes.append("auto-call: no call entered and no legal call fits this stroke")
        elif obs.pocketed():
            r.notes.append("no call entered (FB-6.1): nothing can score")
        made = j is not None and j.made
        if j is not None and not j.made:
            for rule, why in j.reasons:
                r.add_rule(rule)
                r.notes.append(f"call not made: {why}")
            if j.wrong_pocket_luikka:
                r.add_foul("FB-10.3", f"the called luikka went into {j.route.pocket}")
        if (
            made
            and (from_hand and not is_break)
            and j is not None
            and not self.fb_9_3_hand_allows(j)
        ):
            made = False
            r.add_rule("FB-9.3")
            r.notes.append("from hand only corner pots and banked middle pots score (FB-9.3)")
        own_dropped = own in obs.pocketed() and cue == own
        if own_dropped and not made and not r.foul:
            r.add_foul("FB-10.1", f"own white {own} pocketed without a successful called pot")
        if (
            own_dropped
            and from_hand
            and not is_break
            and not any(f.rule == "FB-10.5" for f in r.fouls)
        ):
            r.add_foul("FB-10.5", "no luikka may be made from hand (FB-9.3)")

        # ---------------------------------------------------------- points, turn
        keep_turn = False
        points = 0
        if made and j is not None and not r.foul and not no_points:
            points = j.points
            keep_turn = True
            r.add_rule("FB-6.3", *dict.fromkeys(i.rule for i in j.items))
            r.notes.append(
                ("auto-call " if j.call.auto else "call made: ") + explain(list(j.items))
            )
            if ks_middle:
                self.kaisa_straight_middle_in_inning = True
            elif "K" in obs.pocketed():
                self.kaisa_straight_middle_in_inning = False
            keep_turn = self.fb_13_end_of_game(r, player, points, j)
        elif r.foul:
            r.add_rule("FB-10")
            r.notes.append("foul: no points, the turn passes")
        elif no_points:
            r.notes.extend(no_points)
        if not made and not r.foul:
            r.add_rule("FB-6.3")  # no legal called pocketing: the turn passes
            if not obs.pocketed():
                r.notes.append("nothing pocketed: the turn passes (FB-6.3)")
        if made and r.foul:
            r.notes.append("the pocketing does not count because of the foul")
        r.points = points
        self.scores[player] += points
        if self.winner_ is None:
            self.turn = player if keep_turn else self._other(player)
        # ---------------------------------------------------------- balls back
        self.fb_12_balls_after(shot, obs, r, late_falls)
        self.fb_14_clock_after(shot, r, player, keep_turn)
        r.next = None if self.winner_ is not None else self.turn
        r.score = dict(self.scores)
        return r

    # ------------------------------------------------------------ parts
    def fb_11_4_hanging_balls(self, shot: ShotRecord, r: Ruling) -> list[Item]:
        """FB-11.4: a hanging ball that drops within 5 s of the stroke's end counts.

        Later drops (FB-11.5) are returned: the ball goes back where it hung.
        """
        window = float(self.options["hang_window_s"])
        self._timely_falls = []
        late = []
        for it in shot.between_of_type("hang_fall"):
            if it.t - shot.t_end <= window:
                self._timely_falls.append(it.event)
                r.add_rule("FB-11.4")
                r.notes.append(
                    f"{it['ball']} hung and dropped {it.t - shot.t_end:.1f} s after "
                    "the balls stopped: it counts (FB-11.4)"
                )
            else:
                late.append(it)
        return late

    def _low_confidence(self, shot: ShotRecord, r: Ruling) -> None:
        """Camera events the tracker was unsure of: a note for the referee, never a ruling."""
        lim = float(self.options["min_confidence"])
        for it in shot.events + shot.between:
            if it.confidence < lim:
                r.notes.append(
                    f"check: low-confidence '{it.type}' ({it.confidence:.2f}) at t={it.t:g} s"
                )

    def fb_11_1_touching_balls(self, shot: ShotRecord, r: Ruling, cue: str) -> None:
        """FB-11.1: say when the cue ball touches another ball at the strike."""
        c = shot.before.get(cue)
        if c is None:
            return
        lim = self.profile.ball_diameter_mm + float(self.options["touch_tolerance_mm"])
        for b, p in shot.before.items():
            if b != cue and _dist(c, p) <= lim:
                r.add_rule("FB-11.1")
                r.notes.append(f"{cue} touches {b}: it must be played away from it (FB-11.1)")

    def fb_6_call(self, item: Item | None, shot: ShotRecord, own: str) -> Call | None:
        if item is None:
            return None
        try:
            call = call_from_event(item.event)
        except CallError as e:
            raise rule_error(item.where, str(e)) from None
        if call.ball not in shot.before:
            raise rule_error(
                item.where,
                f"the call names {call.ball}, which is not on the table "
                f"(on the table: {', '.join(sorted(shot.before))})",
            )
        for b in (call.via, call.combination):
            if b is not None and b not in shot.before:
                raise rule_error(
                    item.where, f"the call's route names {b}, which is not on the table"
                )
        return call

    def fb_9_3_hand_allows(self, j: Judgement) -> bool:
        """FB-9.3: from hand, corner pots and banked middle pots only; no luikka."""
        if j.pocketing is None or j.pocketing.called == "luikka":
            return False
        if j.pocketing.luikka_off is not None:
            return False
        return j.pocketing.pocket_kind == "corner" or j.pocketing.banked

    def fb_10_operator_fouls(
        self, shot: ShotRecord, r: Ruling, player: str, no_points: list
    ) -> None:
        for it in shot.inputs_of_type("foul"):
            kind = str(it["kind"])
            rule, is_foul = FOUL_KINDS.get(kind, (str(it.get("rule") or "FB-10"), True))
            if it.get("rule"):
                rule = str(it["rule"])
            who = it.get("player")
            if who is not None and who != player:
                if who not in self.players:
                    raise rule_error(
                        it.where, f"foul names {who!r}, not a player ({', '.join(self.players)})"
                    )
                # FB-10.9: the turn passes only if the fouler was at the table.
                r.add_rule(rule, "FB-10.9")
                r.notes.append(
                    f"referee: {kind} by {who}, who was not at the table ({rule}): {player}'s "
                    "stroke stands; balls may be put back (FB-10.9, choice 'restore')"
                )
                continue
            if kind == "double-hit":
                no_points.append("double hit: the pocketing scores nothing (FB-7.3, FB-10.7)")
                r.add_rule(rule, "FB-7.3")
            elif kind == "over-length-cue":
                r.add_rule(rule)
                if player in self.cue_warned:
                    r.notes.append(
                        f"{player} kept playing with an over-length cue: loses the game (FB-10.14)"
                    )
                    self.winner_ = self._other(player)
                else:
                    self.cue_warned.add(player)
                    r.notes.append(
                        "over-length cue: points so far stand; continuing with it "
                        "loses the game (FB-10.14)"
                    )
            elif is_foul:
                r.add_foul(rule, f"referee: {kind}")

    def fb_9_5_crossed_head_line(self, shot: ShotRecord, obs: ShotObs, cue: str) -> bool:
        for it in shot.of_type("line_cross"):
            if it["ball"] == cue and it["line"] == "house":
                return True
        for x in obs.touches:
            on_cue = cue in (x.ball, x.other) and x.kind != "pocket"
            if on_cue and x.pos is not None and x.pos[0] > self.head_x:
                return True
        rest = shot.at_rest.get(cue)
        return rest is not None and rest[0] > self.head_x

    def fb_5_2_break_fouls(self, shot: ShotRecord, obs: ShotObs, r: Ruling, fc: str | None) -> None:
        """FB-5.2 (a)-(c); FB-10.12."""
        if "K" in obs.pocketed():
            r.add_foul("FB-5.2", "the kaisa may not be pocketed on the break (FB-5.2a)")
        if not self.options["break_in_off_corner"] and shot.cue_ball in obs.pocketed():
            r.add_foul("FB-5.2", "no in-off on the break (option break_in_off_corner=false, AMB-9)")
        if luikka_straight_middle_off_kaisa(obs):
            r.add_foul("FB-5.2", "own white off the kaisa straight into a middle pocket (FB-5.2b)")
        if fc is not None and fc in ("R1", "R2") and not obs.cue_cushions_before_first_contact():
            p = shot.before.get(fc)
            if p is not None and _dist(p, self.spots["fb-head-line"]) <= PLACEMENT_TOLERANCE_MM:
                r.add_foul(
                    "FB-5.2", f"played directly at the red on the head line ({fc}) (FB-5.2c)"
                )
        if r.foul:
            r.add_rule("FB-10.12")

    def fb_9_ball_in_hand_fouls(
        self,
        shot: ShotRecord,
        obs: ShotObs,
        r: Ruling,
        fc: str | None,
        crossed: bool,
        is_break: bool,
    ) -> bool:
        """FB-9.2 .. FB-9.6 (and at the break, FB-5.3).  True if a foul was given."""
        cue = shot.cue_ball
        rule5 = "FB-5.3" if is_break else "FB-10.5"
        n = len(r.fouls)
        start = shot.before.get(cue)
        where_rule = "FB-5.1" if is_break else "FB-9.2"
        r.add_rule(where_rule)
        if start is not None and not start[0] < self.head_x:
            r.notes.append(
                f"{where_rule}: {cue} was placed at x={start[0]:.0f} mm, not behind the head "
                f"line (x < {self.head_x:.0f}); it had to be pointed out before the stroke"
            )
        cush = obs.cue_cushions_before_first_contact()
        if fc is not None:
            p = shot.before.get(fc)
            dup = is_break and any(f.rule == "FB-5.2" for f in r.fouls)  # FB-5.2c said it
            if p is not None and p[0] <= self.head_x and not cush and not dup:
                r.add_rule("FB-9.4")
                r.add_foul(
                    rule5,
                    f"{fc} is on or behind the head line: it may be played only "
                    "via a cushion or a ball in front of the line (FB-9.4)",
                )
        if cush and cush[0].pos is not None and not cush[0].pos[0] > self.head_x:
            r.add_rule("FB-9.6")
            r.add_foul(
                rule5,
                f"the cue ball's cushion contact ({cush[0].other}) is not in "
                "front of the head line (FB-9.6)",
            )
        hit_front = fc is not None and shot.before.get(fc, (0.0, 0.0))[0] > self.head_x
        if not crossed and not hit_front:
            r.add_rule("FB-9.5")
            r.add_foul(
                rule5,
                "the cue ball neither crossed the head line nor hit a ball in front of it (FB-9.5)",
            )
        return len(r.fouls) > n

    def fb_13_end_of_game(self, r: Ruling, player: str, points: int, j: Judgement) -> bool:
        """FB-13: returns whether the player keeps the turn."""
        new = self.scores[player] + points
        if new < self.target or j.pocketing is None:
            return True
        if is_finishing(j.pocketing):
            self.winner_ = player
            r.add_rule("FB-13.1", "FB-13.6")
            r.notes.append(
                f"{player} reaches {new} with a finishing shot and wins "
                f"(FB-13.1); recorded as {self.target} (FB-13.6)"
            )
            return False
        if new == self.target:
            r.add_rule("FB-13.4")
            r.notes.append(
                f"exactly {self.target} without a finishing shot: the game goes "
                "on and the turn continues (FB-13.4)"
            )
            return True
        r.add_rule("FB-13.5")
        r.notes.append(
            f"{new} without a finishing shot: points recorded, the turn passes (FB-13.5)"
        )
        return False

    def fb_12_balls_after(
        self, shot: ShotRecord, obs: ShotObs, r: Ruling, late_falls: list[Item]
    ) -> None:
        """Whites to hand (FB-9.1), reds / kaisa to their spots (FB-12)."""
        gone = list(obs.pocketed()) + obs.off_table()
        back: dict[str, SpotHint] = {}
        for it in late_falls:  # FB-11.5: put back where it hung; the turn does not change
            b = str(it["ball"])
            p = shot.at_rest.get(b)
            if p is None:
                continue
            back[b] = SpotHint(b, "where it hung", p, "FB-11.5")
            r.add_rule("FB-11.5")
            r.respots.append(Respot(b, p))
            r.notes.append(
                f"{b} dropped from the jaw by itself later: put it back where it hung (FB-11.5)"
            )
            if b in WHITES:
                self.off_whites.add(b)
            else:
                self.awaiting.add(b)
        for b in gone:
            if b in WHITES:
                self.off_whites.add(b)
                owner = self.owner[b]
                self.hand.add(owner)
                r.add_rule("FB-9.1")
                r.notes.append(f"{b} left the table: {owner} has ball in hand (FB-9.1)")
            else:
                self.awaiting.add(b)
        kaisa_touched = any("K" in (i["a"], i["b"]) for i in shot.of_type("collision"))
        if kaisa_touched:
            self.kaisa_displaced = False
        hints: list[SpotHint] = []
        by_ball_moved: set[str] = set()
        to_spot = sorted(b for b in self.awaiting if b not in back)
        on_table = {b: p for b, p in shot.at_rest.items() if b not in self.awaiting}
        ret = None
        if "K" not in to_spot:
            # FB-12.2 first: the kaisa's return frees its spot for a red (FB-12.5 order).
            ret = kaisa_return_hint(self.kaisa_displaced, kaisa_touched, on_table, self.profile)
            if ret is not None:
                r.add_rule("FB-12.2")
                r.respots.append(Respot("K", ret.pos))
                r.notes.append("the centre spot is free: move the kaisa back to it now (FB-12.2)")
                self.kaisa_displaced = False  # done now, or forgotten for good
                on_table["K"] = ret.pos
        if to_spot:
            hints = respot_hints(to_spot, on_table, self.profile)
            r.add_rule("FB-12.1")
            if len(hints) > 1:
                r.add_rule("FB-12.5")
            for h in hints:
                r.respots.append(Respot(h.ball, h.pos))
                extra = "" if h.first_choice else " (first spot occupied, FB-12.3)"
                r.notes.append(f"respot {h.ball} on {h.spot}{extra}")
        for it in shot.between_of_type("ball_moved"):  # FB-11.5: moved by an outside cause
            b = str(it["ball"])
            was = shot.at_rest.get(b)
            if was is not None and b not in by_ball_moved:
                by_ball_moved.add(b)
                r.add_rule("FB-11.5")
                r.respots.append(Respot(b, was))
                r.notes.append(
                    f"{b} moved with no ball touching it: put it back where it lay; a player "
                    "who caused it is fouled by the referee (FB-11.5)"
                )
        # What the hand did before the next stroke.
        by_ball = {h.ball: h for h in hints}
        by_ball.update(back)
        if ret is not None:
            by_ball["K"] = ret
        for it in shot.between_of_type("ball_placed", "ball_removed"):
            b = str(it["ball"])
            if it.type == "ball_removed":
                if b in WHITES:
                    self.off_whites.add(b)
                    self.hand.add(self.owner[b])
                else:
                    self.awaiting.add(b)
                continue
            p = (float(it["pos"][0]), float(it["pos"][1]))
            self.off_whites.discard(b)
            self.awaiting.discard(b)
            h = by_ball.get(b)
            if h is not None:
                note = check_placement(h, p)
                if note:
                    r.notes.append("placement: " + note)
                    r.add_rule("FB-12.4")
                elif h.kaisa_displaced:
                    self.kaisa_displaced = True
            elif b in WHITES and not p[0] < self.head_x:
                r.notes.append(
                    f"{b} placed at x={p[0]:.0f} mm: ball in hand goes behind the "
                    "head line (FB-9.2)"
                )
        for h in hints:
            if h.kaisa_displaced and h.ball not in self.awaiting:
                self.kaisa_displaced = True
        self.positions = dict(shot.after)

    # ------------------------------------------------------------ FB-14
    def fb_14_clock_inputs(self, choices: list[Item], player: str, r: Ruling) -> None:
        for c in choices:
            kind = c.get("kind")
            who = str(c.get("player") or player)
            try:
                if kind == "break-start":
                    if self.clock is None:
                        raise rule_error(
                            c.where, "a break in an untimed match (set the match_minutes option)"
                        )
                    self.clock.start_break(who, c.t)
                    r.add_rule("FB-14.9")
                elif kind == "break-end":
                    if self.clock is None:
                        raise rule_error(c.where, "a break in an untimed match")
                    over = self.clock.end_break(who, c.t)
                    r.add_rule("FB-14.9")
                    if over > 0:
                        r.notes.append(
                            f"{who}'s break ran {over:.0f} s over 5 minutes: "
                            "the excess is playing time (FB-14.9)"
                        )
                elif kind == "restore":
                    r.add_rule("FB-10.9")
                    r.notes.append("balls put back where they were after a foul (FB-10.9)")
                elif kind == "decider-first":
                    if who not in self.players:
                        raise rule_error(c.where, f"decider-first names {who!r}, not a player")
                    self.decider_first = who
                elif kind not in CHOICE_KINDS:
                    r.notes.append(
                        f"choice '{kind}' at t={c.t:g} s is not a Five Ball choice: ignored "
                        f"(known: {', '.join(CHOICE_KINDS)})"
                    )
            except ClockError as e:
                raise rule_error(c.where, str(e)) from None

    def fb_14_clock_after(self, shot: ShotRecord, r: Ruling, player: str, keep_turn: bool) -> None:
        """FB-14.1: the warning, time-up, the last innings, then the decider."""
        if self.clock is None or self.winner_ is not None:
            return
        st = self.clock.status(shot.t_end)
        if st == "warning" and not self.warned:
            self.warned = True
            r.add_rule("FB-14.1")
            r.notes.append(f"5 minutes left ({self.clock.remaining(shot.t_end):.0f} s) (FB-14.1)")
        if st == "time-up" and not self.time_up:
            self.time_up = self.warned = True
            r.add_rule("FB-14.1")
            b1, b2 = self.owner["W1"], self.owner["W2"]
            self.last_plan = last_innings(player, b1, b2)
            r.notes.append(
                "time is up: last innings for "
                + " then ".join(self.last_plan)
                + f" after this one; {b2} (white 2) shoots last (FB-14.1, AMB-12)"
            )
        if self.time_up and not keep_turn and self.last_plan is not None:
            # An inning ended: the next last inning, or the decider.
            if self.last_plan:
                self.turn = self.last_plan.pop(0)
                r.notes.append(f"last inning: {self.turn} (FB-14.1)")
            else:
                self.last_plan = None
                self.fb_14_3_start_decider(r)

    def fb_14_3_decider_unstarted(self) -> bool:
        d = self.decider
        return d is not None and not any(d.played.values()) and d.inning_start

    def fb_14_3_decider_lag(self, r: Ruling, winner: str, shot: ShotRecord) -> Ruling:
        """FB-14.2: a lag decides who chooses the decider's starter."""
        d = self.decider
        assert d is not None
        gives = any(c.get("kind") == "give-start" for c in shot.inputs_of_type("choice"))
        first = self._other(winner) if gives else winner
        d.first, d.second, d.current = first, self._other(first), first
        self.turn = first
        r.add_rule("FB-14.2")
        r.notes.append(f"decider lag won by {winner}; {first} starts the decider (FB-14.2)")
        r.next = first
        r.score = dict(self.scores)
        self.positions = dict(shot.after)
        return r

    def fb_14_3_start_decider(self, r: Ruling) -> None:
        first = self.decider_first or self.owner["W1"]
        self.decider = PenaltyDecider(
            first,
            self._other(first),
            dict(self.scores),
            self.target,
            int(self.options["decider_innings"]),
        )
        self.turn = first
        self.hand = set(self.players)
        r.add_rule("FB-14.2", "FB-14.3")
        r.respots.append(Respot("K", decider_layout(self.profile, "kaisa")["K"]))
        r.notes.append(
            f"no winner after the last innings: penalty-shot decider, {first} first, "
            f"{self.decider.innings_each} innings each (FB-14.2); kaisa on the centre spot "
            f"({self.spots['fb-centre'][0]:.0f}, {self.spots['fb-centre'][1]:.0f}) or, for a "
            f"luikka, on the foot-end spot ({self.spots['fb-foot-end'][0]:.0f}, "
            f"{self.spots['fb-foot-end'][1]:.0f}); cue ball in hand (FB-14.3)"
        )

    def fb_14_3_decider_stroke(
        self, shot: ShotRecord, r: Ruling, player: str, obs: ShotObs
    ) -> Ruling:
        """FB-14.3 .. FB-14.8: kaisa or luikka, 6 for the start shot into a corner."""
        d = self.decider
        assert d is not None
        if player != d.current:
            r.notes.append(f"decider: {d.current} was to play")
        r.add_rule("FB-14.3" if d.inning_start else "FB-14.4")
        call_item = self.fb_6_take_call(shot)
        own = self._own_ball(player)
        call = self.fb_6_call(call_item, shot, own)
        if call is not None and call.ball not in ("K", own):
            raise rule_error(
                call_item.where if call_item else "",
                "in the decider only the kaisa or a luikka may be called (FB-14.3)",
            )
        if call is not None:
            j = judge(call, obs, self.cfg)
        else:
            j = auto_call(obs, lambda x: x.call.ball in ("K", own), self.cfg).best
        made = j is not None and j.made
        if cue_wrong := shot.cue_ball != own:
            r.add_foul("FB-10.8", f"{player} struck {shot.cue_ball}")
        for b in obs.off_table():
            r.add_foul("FB-10.2", f"{b} left the table")
        ks = kaisa_straight_middle(obs)
        if ks and self.kaisa_straight_middle_in_inning:
            r.add_foul("FB-10.11", "kaisa straight into a middle pocket twice in a row (FB-14.6)")
        start_in_middle = (
            j is not None and j.pocketing is not None and j.pocketing.pocket_kind != "corner"
        )
        if made and d.inning_start and start_in_middle:
            made = False
            r.notes.append("decider: the start shot must go into a corner (FB-14.3)")
        own_dropped = own in obs.pocketed()
        if own_dropped and not made and not cue_wrong:
            r.add_foul("FB-10.1", "illegal own-ball pocketing ends the inning (FB-14.6)")
        if made and not r.foul and j is not None:
            pts = 6 if d.inning_start else j.points
            r.points = pts
            r.notes.append(f"decider: {j.call.describe()} = {pts}")
            self.kaisa_straight_middle_in_inning = ks
            d.add(pts)
            self.scores[player] = d.scores[player]
            if own_dropped:
                self.hand.add(player)
                r.add_rule("FB-14.5")
                c, f = self.spots["fb-centre"], self.spots["fb-foot-end"]
                r.notes.append(
                    f"decider: {player} plays on from hand; the kaisa goes on the centre spot "
                    f"({c[0]:.0f}, {c[1]:.0f}) or the foot-end spot ({f[0]:.0f}, {f[1]:.0f}), "
                    "his choice (FB-14.5)"
                )
            if d.done:
                self.winner_ = d.result
                r.add_rule("FB-14.7")
                r.notes.append(f"decider: {d.result} reaches {self.target} and wins (FB-14.7)")
        else:
            nxt = d.end_inning()
            self.kaisa_straight_middle_in_inning = False
            r.notes.append(f"decider: {player}'s inning ends")
            if d.done:
                self.winner_ = d.result
                r.add_rule("FB-14.7", "FB-14.8")
                r.notes.append(f"decider: {d.result} wins on total (FB-14.7)")
            elif nxt is not None:
                self.turn = nxt
                self.hand.add(nxt)
                r.add_rule("FB-14.6")
                r.notes.append(
                    f"decider: {nxt}'s inning: kaisa on the centre spot (or the foot-end spot "
                    "for a luikka), cue ball in hand (FB-14.3)"
                )
                if "K" not in obs.pocketed():
                    r.respots.append(Respot("K", decider_layout(self.profile, "kaisa")["K"]))
        if self.winner_ is None:
            self.turn = d.current
        gone = list(obs.pocketed()) + obs.off_table()
        if "K" in gone and self.winner_ is None:
            if not any(x.ball == "K" for x in r.respots):
                r.respots.append(Respot("K", self.spots["fb-centre"]))
            if d.current == player and not d.inning_start:  # the inning goes on (FB-14.4)
                r.notes.append("decider: the kaisa goes back on the centre spot (FB-14.4)")
        for b in gone:
            if b in WHITES:
                self.off_whites.add(b)
                self.hand.add(self.owner[b])
            else:
                self.awaiting.add(b)
        reds = [b for b in gone if b in ("R1", "R2")]
        if reds and self.winner_ is None:  # reds keep their FB-12 spots in the decider
            on_table = {b: p for b, p in shot.at_rest.items() if b not in reds}
            on_table["K"] = next((x.pos for x in r.respots if x.ball == "K"), on_table.get("K"))
            on_table = {b: p for b, p in on_table.items() if p is not None}
            for h in respot_hints(reds, on_table, self.profile):
                r.respots.append(Respot(h.ball, h.pos))
                r.add_rule("FB-12.1")
        for it in shot.between_of_type("ball_placed", "ball_removed"):
            b = str(it["ball"])
            if it.type == "ball_placed":
                self.awaiting.discard(b)
                self.off_whites.discard(b)
            elif b in WHITES:
                self.off_whites.add(b)
                self.hand.add(self.owner[b])
            else:
                self.awaiting.add(b)
        self.positions = dict(shot.after)
        r.next = None if self.winner_ is not None else self.turn
        r.score = dict(self.scores)
        return r


__all__ = ["FiveBall", "RuleError"]
