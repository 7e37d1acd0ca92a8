"""Free Pyramid (FP-1..FP-9) under the General Pyramid Rules (GR-1..GR-26).

Rule numbers are those of ``RULES.en.md``; each check is a method named after
its rule (``gr_13_1_legal_break``, ``gr_6_2_contact``, ``gr_8_lag``, ...) so a
referee can follow a ruling back to the text.  Where the texts are silent the
AMB readings of RULES.en.md section 7 are taken; those a club may want
otherwise are ``OPTIONS`` (``luza score --option KEY=VALUE``).

State: players (``A``/``B`` or the ``players`` input's names), whose turn,
each player's shelf (the balls he scored), balls on the table, balls awaiting
a respot, balls held off the table by a hand, phase (before the game, break,
play, re-rack, over).  Conservation: table + shelves + awaiting + held = 16.
"""

from __future__ import annotations

from typing import Any, ClassVar

from luza.events import FREE_PYRAMID_BALLS
from luza.rules.engine import (
    XY,
    Game,
    Item,
    Respot,
    Ruling,
    Setup,
    ShotRecord,
    rule_error,
)
from luza.rules.respot import (
    distance_mm,
    in_house,
    incomplete_pyramid,
    rack_check,
    respot_point,
    respot_spots,
)

# Short titles, for notes and for REFEREE.md.
RULE_TITLES: dict[str, str] = {
    "GR-5.1": "strike with the tip only",
    "GR-5.2": "one foot on the floor",
    "GR-6.1": "the cue ball must hit an object ball",
    "GR-6.2": "no object ball touched: foul",
    "GR-6.4": "touching balls: striking away is no contact",
    "GR-7.1": "ball pocketed: play again",
    "GR-7.2": "nothing pocketed: the turn passes",
    "GR-7.3": "out of turn: foul",
    "GR-7.4": "after a foul: respot, penalty ball, then the non-offender chooses",
    "GR-8.1": "lag: the ball nearer the head cushion wins",
    "GR-8.2": "lag: automatic loss",
    "GR-8.3": "lag: repeat",
    "GR-8.4": "lag: the winner chooses who breaks",
    "GR-9.1": "rack: triangle, apex on the rear spot",
    "GR-9.2": "rack: the coloured ball in the house",
    "GR-9.3": "incomplete pyramid",
    "GR-11": "the house line is not in the house",
    "GR-12.2": "the break is played with the coloured ball",
    "GR-12.3": "break from the house (a warning, not a foul)",
    "GR-13.1": "legal break: a pocket, 3 cushioned balls, or 2 + the centre line",
    "GR-13.2": "after an illegal break: four options",
    "GR-15.2": "struck before the balls stopped: foul",
    "GR-16": "a ball touched: foul",
    "GR-17": "double hit: foul",
    "GR-18": "push: foul",
    "GR-19.1": "touching/close balls: foul unless struck away",
    "GR-22": "balls pocketed in a foul stroke are respotted",
    "GR-22.e": "a ball bouncing out is not pocketed",
    "GR-23": "a jumped ball: foul, respotted",
    "GR-24": "a hanging ball that falls after 5 s goes back",
    "GR-25": "respot: rear spot, then the respot line, then in front",
    "FP-1": "8 points win",
    "FP-2": "any ball may be the cue ball (not on the break)",
    "FP-4": "the break is played with the yellow",
    "FP-5.2": "legal pocket: play again",
    "FP-5.3": "nothing pocketed: the turn passes",
    "FP-5.4": "the in-off (svoyak) counts",
    "FP-5.5": "every ball that falls counts",
    "FP-6.1": "+1 a ball",
    "FP-6.2": "a foul gives the opponent +1 through the penalty ball",
    "FP-7": "the penalty ball",
    "FP-8": "respotted balls",
    "FP-9": "end of the game",
}

# Operator foul kinds -> the rule they break (an input's own ``rule`` wins).
FOUL_KINDS: dict[str, str] = {
    "non-tip": "GR-5.1",
    "foot-off-floor": "GR-5.2",
    "foot": "GR-5.2",
    "no-contact": "GR-6.2",
    "out-of-turn": "GR-7.3",
    "before-rest": "GR-15.2",
    "touched-ball": "GR-16",
    "touch": "GR-16",
    "double-hit": "GR-17",
    "push": "GR-18",
    "close-balls": "GR-19.1",
    "jumped-ball": "GR-23",
    "illegal-break": "GR-13.1",
}
PLAY_KINDS = ("play", "break")  # the non-offender (lag winner) plays / breaks himself
HAND_BACK_KINDS = ("hand-back", "pass", "let-break")  # ... makes the opponent play / break
RERACK_KINDS = ("rerack-self", "rerack-opponent")  # GR-13.2 (3), (4)


def _fmt(p: XY) -> str:
    return f"({p[0]:.1f}, {p[1]:.1f})"


class FreePyramid(Game):
    """Free Pyramid: first to 8, any ball the cue ball, every ball that falls counts."""

    name: ClassVar[str] = "free-pyramid"
    balls: ClassVar[tuple[str, ...]] = FREE_PYRAMID_BALLS
    OPTIONS: ClassVar[dict[str, Any]] = {
        "target_points": 8,  # FP-1
        "jumped_ball_foul": True,  # AMB-16; False: a jumped object ball is respotted, no foul
        "jaws_count_as_cushions": True,  # a jaw is cushion rubber (GR-13.1 cushion count)
        "rack_tolerance_mm": 10.0,  # GR-9.1 / GR-9.3 rack check
        "respot_tolerance_mm": 10.0,  # GR-25 placement check
        "respot_gap_mm": 0.0,  # AMB-17: 0 = tight against the blocking ball
        "touch_tolerance_mm": 2.0,  # GR-6.4 / GR-19: a gap this small counts as touching
        "moved_tolerance_mm": 3.0,  # GR-6.4: a touching ball that moved less did not move
        "close_balls_mm": 10.0,  # GR-19 alarm: cue ball this close to its first object ball
        "hang_seconds": 5.0,  # GR-24 / AMB-24, from the stroke's end
        "lag_tie_mm": 2.0,  # GR-8.3: closer than this, the referee cannot tell
        "min_confidence": 0.6,  # events below this are flagged in the notes
        "break_with_coloured_ball": True,  # GR-12.2 / FP-4 enforced as a foul
    }

    def __init__(self, profile, options=None):
        super().__init__(profile, options)
        self.players: list[str] = ["A", "B"]
        self.shelf: list[list[str]] = [[], []]
        self.table: dict[str, XY] = {}
        self.awaiting: dict[str, XY] = {}  # ball -> where it goes back (GR-24/25)
        self.hung: set[str] = set()  # awaiting balls that go back where they hung (GR-24)
        self.held: set[str] = set()  # taken off the table by a hand, not scored
        self.turn = 0
        self.breaker = 0
        self.phase = "start"  # start | lagged | break | rerack | play | over
        self.rack_points: list[XY] = []
        self.setup_item: Item | None = None
        self.pending_notes: list[str] = []
        self._winner: int | None = None
        self.begun = False

    # ---- Game interface ---------------------------------------------------------
    def score(self) -> dict[str, int]:
        return {self.players[i]: len(self.shelf[i]) for i in (0, 1)}

    def winner(self) -> str | None:
        return None if self._winner is None else self.players[self._winner]

    def accounting(self) -> dict[str, Any]:
        """Where every ball is: table, shelves, awaiting a respot, held by a hand."""
        return {
            "table": sorted(self.table),
            "shelves": {self.players[i]: list(self.shelf[i]) for i in (0, 1)},
            "awaiting": sorted(self.awaiting),
            "held": sorted(self.held),
        }

    def setup(self, setup: Setup) -> None:
        where = setup.item.where
        if self.phase == "over":
            raise rule_error(
                where,
                f"the game ended ({self.winner()} won); score the next game as a stream of its "
                "own, with 'turn' naming its breaker (GR-14: players take turns to break)",
            )
        if self.phase not in ("start", "lagged", "rerack"):
            raise rule_error(
                where,
                "table_state in the middle of a game: one comes only at the start, after the "
                "lag (GR-8) or for a re-rack after an illegal break (GR-13.2)",
            )
        if self.phase == "rerack":
            shelved = {b for s in self.shelf for b in s}
            back = sorted(b for b in setup.positions if b in shelved)
            if back:
                raise rule_error(where, f"re-rack table_state puts scored ball {back[0]} back")
            self.awaiting.clear()
            self.held = {b for b in self.balls if b not in setup.positions and b not in shelved}
            if self.held:
                self.pending_notes.append(
                    "GR-9.3: balls missing from the re-rack: " + ", ".join(sorted(self.held))
                )
        else:
            self._players_inputs(setup.inputs)
            self.setup_item = setup.item
        for it in setup.inputs:
            if it.type == "choice" and self.phase == "lagged":
                self._lag_choice(it, self.breaker_lag_winner, self.pending_notes)
            elif it.type in ("foul", "choice"):
                self.pending_notes.append(
                    f"operator {it.type} '{it['kind']}' at t={it.t:g} s before the first "
                    "stroke: ignored"
                )

    def rule(self, shot: ShotRecord) -> Ruling:
        if shot.lag:
            return self.gr_8_lag(shot)
        if self.phase == "over":
            raise rule_error(
                shot.start.where,
                f"a stroke after the game ended ({self.winner()} won "
                f"{'-'.join(str(v) for v in self.score().values())}, FP-1)",
            )
        if self.phase in ("start", "lagged"):
            self._begin(shot)
        for it in shot.inputs_of_type("players"):
            raise rule_error(it.where, "'players' input after the game has started")
        return self._stroke(shot)

    # ---- the lag ------------------------------------------------------------------
    def gr_8_lag(self, shot: ShotRecord) -> Ruling:
        """GR-8: two balls struck together to the foot cushion and back."""
        if self.phase not in ("start", "lagged"):
            raise rule_error(shot.start.where, "a lag (GR-8) after the game has started")
        self._players_inputs(shot.inputs)
        if len(shot.starts) != 2:
            raise rule_error(
                shot.start.where,
                'a lag needs two shot_start events with "lag": true (one ball each, GR-8.1)',
            )
        owners: list[int] = []
        for i, st in enumerate(shot.starts):
            p = st.get("player")
            owners.append(i if p is None else self._player_index(p, st.where))
        if owners[0] == owners[1]:
            raise rule_error(shot.starts[1].where, "both lag balls belong to the same player")
        r = Ruling(shot=0, player=None, cue_ball=None)
        r.add_rule("GR-8.1")
        faults: dict[int, list[str]] = {}
        for st, who in zip(shot.starts, owners, strict=True):
            faults[who] = self.gr_8_2_lag_faults(shot, str(st["cue_ball"]))
            for f in faults[who]:
                r.add_rule("GR-8.2")
                r.notes.append(f"lag: {self.players[who]} loses, {f}")
        ball_of = {who: str(st["cue_ball"]) for st, who in zip(shot.starts, owners, strict=True)}
        winner: int | None
        if faults[0] and faults[1]:
            winner = None
            r.notes.append("GR-8.3: both players broke the lag rules: repeat the lag")
        elif faults[0] or faults[1]:
            winner = 1 if faults[0] else 0
        else:
            x = [shot.at_rest[ball_of[i]][0] for i in (0, 1)]
            if abs(x[0] - x[1]) <= self.options["lag_tie_mm"]:
                winner = None
                r.notes.append(
                    f"GR-8.3: the lag balls stopped {abs(x[0] - x[1]):.1f} mm apart along "
                    "the table: too close to call, repeat the lag"
                )
            else:
                winner = 0 if x[0] < x[1] else 1
                r.notes.append(
                    f"GR-8.1: {self.players[winner]}'s ball stopped nearer the head cushion "
                    f"(x {x[winner]:.0f} mm vs {x[1 - winner]:.0f} mm)"
                )
        if winner is None:
            r.add_rule("GR-8.3")
            self.phase = "start"
            r.next = None
            r.score = self.score()
            return r
        self.breaker_lag_winner = winner
        self.breaker = winner
        r.add_rule("GR-8.4")
        choices = shot.inputs_of_type("choice")
        if choices:
            self._lag_choice(choices[-1], winner, r.notes)
        else:
            r.notes.append(f"GR-8.4: {self.players[winner]} won the lag and breaks (no choice)")
        self.turn = self.breaker
        self.phase = "lagged"
        r.next = self.players[self.breaker]
        r.score = self.score()
        return r

    breaker_lag_winner = 0

    def _lag_choice(self, it: Item, winner: int, notes: list[str]) -> None:
        kind = it["kind"]
        if kind in PLAY_KINDS:
            self.breaker = winner
        elif kind in HAND_BACK_KINDS:
            self.breaker = 1 - winner
        else:
            raise rule_error(
                it.where,
                f"choice '{kind}' after the lag: use 'break' (the winner breaks) or "
                "'let-break' (the opponent breaks), GR-8.4",
            )
        self.turn = self.breaker
        notes.append(
            f"GR-8.4: {self.players[winner]} won the lag and chose '{kind}': "
            f"{self.players[self.breaker]} breaks"
        )

    def gr_8_2_lag_faults(self, shot: ShotRecord, ball: str) -> list[str]:
        """GR-8.2 (1)-(6) for one lag ball."""
        out = []
        evs = [i for i in shot.events if i.get("ball") == ball or ball in (i.get("a"), i.get("b"))]
        cushions = [str(i["cushion"]) for i in evs if i.type == "cushion"]
        foot = sum(1 for c in cushions if c in ("foot", "jaw:foot-left", "jaw:foot-right"))
        long_ = [c for c in cushions if c.startswith(("left-", "right-", "jaw:middle", "jaw:head"))]
        if any(i.type == "line_cross" and i["line"] == "axis" for i in evs):
            out.append("GR-8.2(1): the ball crossed the long axis into the opponent's half")
        if foot == 0:
            out.append("GR-8.2(2): the ball did not reach the foot cushion")
        if any(i.type in ("pocket", "hang_fall") for i in evs):
            out.append("GR-8.2(3): the ball was pocketed")
        if any(i.type == "off_table" for i in evs):
            out.append("GR-8.2(4): the ball jumped off the table")
        if long_:
            out.append(f"GR-8.2(5): the ball touched a long cushion ({long_[0]})")
        if foot > 1:
            out.append(f"GR-8.2(6): the ball touched the foot cushion {foot} times")
        if any(i.type == "collision" for i in evs):
            out.append("GR-8.2(1): the lag balls touched each other")
        return out

    # ---- the start of the game ------------------------------------------------------------
    def _begin(self, shot: ShotRecord) -> None:
        s = self.setup_item
        where = s.where if s is not None else shot.start.where
        pos = shot.before
        score = s.get("score") if s is not None else None
        turn = s.get("turn") if s is not None else None
        if isinstance(score, dict):
            names = list(score)
            if len(names) == 2 and self.players == ["A", "B"] and set(names) != {"A", "B"}:
                self.players = [str(n) for n in names]
            pts = []
            for i in (0, 1):
                v = score.get(self.players[i], 0)
                if not isinstance(v, int) or isinstance(v, bool) or not v >= 0:
                    raise rule_error(where, f"score for {self.players[i]} must be a whole number")
                pts.append(v)
            unknown = [k for k in score if k not in self.players]
            if unknown:
                raise rule_error(where, f"score names unknown player {unknown[0]!r}")
            missing = [b for b in self.balls if b not in pos]
            if len(missing) != sum(pts):
                raise rule_error(
                    where,
                    f"{len(pos)} balls on the table and {sum(pts)} points scored: in Free "
                    "Pyramid every point is a ball off the table, they must add up to 16",
                )
            if max(pts) >= self.options["target_points"]:
                raise rule_error(where, "the starting score already ends the game (FP-1)")
            self.shelf = [missing[: pts[0]], missing[pts[0] :]]
            self.phase = "play"
            self.turn = self.breaker
            self.pending_notes.append(
                f"game taken up at {pts[0]}-{pts[1]}; shelves hold the balls not on the table"
            )
        else:
            if len(pos) != 16:
                raise rule_error(
                    where,
                    f"{len(pos)} balls on the table at the break: a game starts from the full "
                    "rack of 16 (GR-9); give 'score' in the table_state to take a game up",
                )
            self.phase = "break"
            self.rack_points = self.profile.rack_positions(5)
            self.turn = self.breaker
        if turn is not None:
            self.turn = self._player_index(turn, where)
            self.breaker = self.turn
        self.begun = True

    # ---- one stroke ------------------------------------------------------------------
    def _stroke(self, shot: ShotRecord) -> Ruling:
        o = self.options
        is_break = self.phase in ("break", "rerack")
        expected = self.turn
        shooter = (
            expected if shot.player is None else self._player_index(shot.player, shot.start.where)
        )
        cue = shot.cue_ball
        r = Ruling(shot=shot.n, player=self.players[shooter], cue_ball=cue)
        r.notes.extend(self.pending_notes)
        self.pending_notes = []
        self._sync(shot.before, r)
        for b in sorted(self.awaiting):
            r.notes.append(
                f"GR-25: ball {b} still waits to be respotted at {_fmt(self.awaiting[b])}"
            )
        offender: int | None = None
        in_stroke_foul = False

        def foul(rule: str, why: str, who: int, during: bool = True) -> None:
            nonlocal offender, in_stroke_foul
            r.add_foul(rule, why)
            if offender is None:
                offender = who
            in_stroke_foul = in_stroke_foul or during

        if shooter != expected:
            foul(
                "GR-7.3",
                f"{self.players[shooter]} struck out of turn ({self.players[expected]} to play)",
                shooter,
            )
        if shot.before_rest:
            foul("GR-15.2", "struck before every ball had stopped", shooter)

        if is_break:
            self.gr_9_12_break_checks(shot, r, shooter, foul)
        else:
            r.add_rule("FP-2")
        contact = self.gr_6_2_contact(shot, r)
        if contact is None:
            foul("GR-6.2", f"the cue ball {cue} touched no object ball", shooter)
        else:
            r.add_rule("GR-6.1")
            self.gr_19_close_balls_alarm(shot, contact[0], r)
            if is_break:
                legal, why = self.gr_13_1_legal_break(shot, contact[1])
                r.add_rule("GR-13.1")
                if not legal:
                    foul("GR-13.1", f"illegal break: {why}", shooter)
        to_respot: list[str] = []
        for b in shot.jumped():
            if b == cue or o["jumped_ball_foul"]:
                foul("GR-23", f"ball {b} jumped off the table", shooter)
            else:
                r.add_rule("GR-23")
                r.notes.append(f"GR-23 (legacy reading): jumped object ball {b} respotted, no foul")
            to_respot.append(b)
        for it in shot.inputs_of_type("call"):
            r.add_rule("FP-5.5")
            r.notes.append(f"FP-5.5: no calls in Free Pyramid; the call at t={it.t:g} s is ignored")
        for it in shot.inputs_of_type("foul"):
            kind = str(it["kind"])
            rule = str(it.get("rule") or FOUL_KINDS.get(kind, "GR-26"))
            who = (
                shooter if it.get("player") is None else self._player_index(it["player"], it.where)
            )
            during = it.t <= shot.t_end
            when = "" if during else " (after the stroke ended: its pockets still count, GR-22.c)"
            by = "" if who == shooter else f" by {self.players[who]}"
            foul(rule, f"{kind}{by}, entered by the operator at t={it.t:g} s{when}", who, during)

        # which balls fell, and when (GR-22, GR-24)
        late, put_back = self.gr_24_hanging_balls(shot, r)
        pocketed = shot.pocketed() + late
        for it in shot.of_type("bounce_out"):
            r.add_rule("GR-22.e")
            r.notes.append(f"GR-22.e: ball {it['ball']} bounced out of {it['pocket']}: in play")

        points = 0
        if in_stroke_foul:
            if pocketed:
                r.add_rule("GR-22")
                r.notes.append(
                    "GR-22.c: balls pocketed in the foul stroke do not count: "
                    + ", ".join(pocketed)
                )
            to_respot += pocketed
        else:
            points = len(pocketed)
            self.shelf[shooter].extend(pocketed)
            if pocketed:
                r.add_rule("FP-5.5", "FP-6.1")
                if cue in pocketed:
                    r.add_rule("FP-5.4")
                    r.notes.append(f"FP-5.4: in-off, the cue ball {cue} counts")
        r.points = points

        # respot hints against the balls actually on the table (GR-25, FP-8)
        if to_respot or put_back:
            occ = dict(shot.at_rest)
            occ.update(put_back)
            # balls still waiting from earlier strokes go first: keep their points clear
            occ.update({b: p for b, p in self.awaiting.items() if b not in occ})
            order = [b for b in self.balls if b in to_respot]
            spots = respot_spots(order, occ, self.profile, o["respot_gap_mm"])
            for sp in [Respot(b, p) for b, p in put_back.items()] + spots:
                self.awaiting[sp.ball] = sp.pos
                r.respots.append(sp)
            self.hung |= set(put_back)
            if spots:
                r.add_rule("GR-25", "FP-8")

        target = o["target_points"]
        if len(self.shelf[shooter]) >= target:
            self._winner = shooter
            r.add_rule("FP-1")
        # GR-7.4 / FP-7: the penalty ball, then the non-offender's choice
        penalty_to: int | None = None
        if offender is not None:
            if self._winner is not None and not in_stroke_foul:
                r.notes.append("GR-22.c: a foul after the winning stroke: no penalty")
            else:
                penalty_to = 1 - offender
                r.add_rule("GR-7.4", "FP-7")
        choice = self.gr_7_4_choice(shot, offender, is_break) if offender is not None else None
        rerack = choice is not None and choice[0] in RERACK_KINDS
        self.fp_7_between_strokes(shot, r, penalty_to, rerack)
        if penalty_to is not None and len(self.shelf[penalty_to]) >= target:
            self._winner = penalty_to
            r.add_rule("FP-1", "FP-9")
        if self._winner is not None:
            self.phase = "over"
            r.next = None
            r.notes.append(f"FP-1: {self.players[self._winner]} reaches {target} and wins")
        elif offender is not None and choice is not None:
            self.gr_7_4_apply_choice(shot, r, offender, is_break, choice)
        else:
            self.phase = "play"
            if points:
                self.turn = shooter
                r.add_rule("GR-7.1", "FP-5.2")
            else:
                self.turn = 1 - shooter
                r.add_rule("GR-7.2", "FP-5.3")
            for it in shot.inputs_of_type("choice"):
                r.notes.append(f"choice '{it['kind']}' at t={it.t:g} s with no foul: ignored")
            r.next = self.players[self.turn]
        self._sync(shot.after, r)
        r.score = self.score()
        return r

    # ---- rule checks -------------------------------------------------------------------
    def gr_24_hanging_balls(self, shot: ShotRecord, r: Ruling) -> tuple[list[str], dict[str, XY]]:
        """GR-24 / AMB-24: a ball dropping from a pocket's mouth after the stroke ended
        counts for the stroke if it fell within ``hang_seconds``; later, it goes back
        where it hung.  Returns (late pockets that count, {ball: where it goes back})."""
        late: list[str] = []
        put_back: dict[str, XY] = {}
        pos = dict(shot.at_rest)
        for it in shot.between:
            b = str(it.get("ball"))
            if it.type in ("ball_placed", "ball_moved"):
                pos[b] = (float(it["pos"][0]), float(it["pos"][1]))
            if it.type not in ("hang_fall", "pocket"):
                continue
            after_s = it.t - shot.t_end
            r.add_rule("GR-24")
            if after_s < self.options["hang_seconds"]:
                late.append(b)
                r.notes.append(f"GR-24: ball {b} fell {after_s:.1f} s after the stroke: it counts")
            else:
                put_back[b] = pos[b]
                r.notes.append(
                    f"GR-24: ball {b} hung {after_s:.1f} s before falling: it goes back where it "
                    f"hung, {_fmt(put_back[b])}"
                )
        return late, put_back

    def gr_6_2_contact(self, shot: ShotRecord, r: Ruling) -> tuple[str, Item] | None:
        """GR-6.1/6.2/6.4: the first object ball the cue ball really hit (None: no contact).

        A ball touching the cue ball before the stroke that does not move does not
        count as a contact (GR-6.4)."""
        cue = shot.cue_ball
        D = self.profile.ball_diameter_mm
        for it in shot.contacts(cue):
            other = str(it["b"] if it["a"] == cue else it["a"])
            gap = distance_mm(shot.before[cue], shot.before[other]) - D
            if gap <= self.options["touch_tolerance_mm"] and not self._moved(shot, other, it):
                r.add_rule("GR-6.4")
                r.notes.append(
                    f"GR-6.4: ball {other} was touching the cue ball and did not move: "
                    "not a contact"
                )
                continue
            return other, it
        return None

    def _moved(self, shot: ShotRecord, ball: str, contact: Item) -> bool:
        if ball not in shot.at_rest:
            return True
        if distance_mm(shot.before[ball], shot.at_rest[ball]) > self.options["moved_tolerance_mm"]:
            return True
        for i in shot.events:
            if i is contact or i.type in ("shot_end",):
                continue
            if i.get("ball") == ball or ball in (i.get("a"), i.get("b")):
                return True
        return False

    def gr_13_1_legal_break(self, shot: ShotRecord, contact: Item) -> tuple[bool, str]:
        """GR-13.1: after hitting an object ball, (1) a ball pocketed, or (2) three
        object balls at a cushion, or (3) two at a cushion and one over the centre line."""
        cue = shot.cue_ball
        names = ("cushion",)
        ok_cushions = set(self._cushion_names())
        cushioned = {
            str(i["ball"])
            for i in shot.events
            if i.type in names and i["ball"] != cue and i["cushion"] in ok_cushions
        }
        crossed = {
            str(i["ball"])
            for i in shot.events
            if i.type == "line_cross" and i["line"] == "centre" and i["ball"] != cue
        }
        if shot.pocketed():
            return True, "GR-13.1(1) a ball pocketed"
        if len(cushioned) >= 3:
            return True, "GR-13.1(2) three object balls at a cushion"
        if len(cushioned) >= 2 and crossed:
            return True, "GR-13.1(3) two object balls at a cushion and one over the centre line"
        listed = ", ".join(sorted(cushioned, key=self.balls.index))
        return False, (
            f"no ball pocketed, {len(cushioned)} object ball(s) at a cushion"
            + (f" ({listed})" if listed else "")
            + f", {'an object ball' if crossed else 'no object ball'} over the centre line"
        )

    def _cushion_names(self) -> list[str]:
        from luza.events import CUSHIONS, JAWS

        return list(CUSHIONS) + (list(JAWS) if self.options["jaws_count_as_cushions"] else [])

    def gr_9_12_break_checks(self, shot: ShotRecord, r: Ruling, shooter: int, foul) -> None:
        """GR-9.1/9.3 rack, GR-12.2/FP-4 coloured ball, GR-12.3 house (a warning)."""
        cue = shot.cue_ball
        r.add_rule("GR-12.1", "FP-4")
        if "Y" in shot.before:
            if cue != "Y" and self.options["break_with_coloured_ball"]:
                foul("GR-12.2", f"the break was played with ball {cue}, not the yellow", shooter)
        else:
            r.notes.append(
                f"AMB-18: the yellow is off the table; {cue} was chosen as the break cue ball"
            )
        if not in_house(shot.before[cue], self.profile):
            r.add_rule("GR-12.3")
            r.notes.append(
                f"GR-12.3 warning: the cue ball {cue} was outside the house at the strike "
                f"{_fmt(shot.before[cue])}; not a foul unless the player was warned"
            )
        rack = {b: p for b, p in shot.before.items() if b != cue}
        rule = "GR-9.1" if len(self.rack_points) == 15 else "GR-9.3"
        rc = rack_check(rack, self.rack_points, self.options["rack_tolerance_mm"])
        r.add_rule(rule)
        if rc.ok:
            r.notes.append(f"{rule}: rack checked, every ball within {rc.worst_mm:.1f} mm")
        else:
            bits = []
            if rc.empty:
                bits.append(f"{len(rc.empty)} rack point(s) empty, e.g. {_fmt(rc.empty[0])}")
            if rc.strays:
                bits.append("off the rack: " + ", ".join(rc.strays))
            r.notes.append(f"{rule} suggestion: the rack looks wrong ({'; '.join(bits)})")

    def gr_19_close_balls_alarm(self, shot: ShotRecord, other: str, r: Ruling) -> None:
        """GR-17/18/19 cannot be seen; a cue ball near its first object ball is flagged."""
        gap = shot.before[shot.cue_ball], shot.before[other]
        d = distance_mm(*gap) - self.profile.ball_diameter_mm
        if d <= self.options["close_balls_mm"]:
            r.notes.append(
                f"GR-19 suggestion: the cue ball was {max(d, 0.0):.1f} mm from ball {other}: "
                "check for a push or double hit (GR-17, GR-18, GR-19.1); enter a 'foul' if so"
            )

    # ---- between the strokes -------------------------------------------------------------
    def fp_7_between_strokes(
        self, shot: ShotRecord, r: Ruling, penalty_to: int | None, rerack: bool
    ) -> None:
        """Hand events after the stroke: the penalty ball (FP-7), respots (GR-25), alarms."""
        o = self.options
        pos = dict(shot.at_rest)
        penalty_taken = False
        penalty_ball: str | None = None
        shelved = {b: i for i in (0, 1) for b in self.shelf[i]}
        for it in shot.events + shot.between:
            if it.confidence < o["min_confidence"]:
                r.notes.append(
                    f"check: low-confidence '{it.type}' ({it.confidence:.2f}) at t={it.t:g} s"
                )
            if it.type == "ball_moved":
                r.add_rule("GR-16")
                r.notes.append(
                    f"GR-16 suggestion: ball {it['ball']} moved with no ball touching it at "
                    f"t={it.t:g} s; enter a 'foul' if a player touched it"
                )
        for it in shot.between:
            b = str(it.get("ball"))
            if it.type == "ball_moved":
                pos[b] = (float(it["pos"][0]), float(it["pos"][1]))
            elif it.type in ("hang_fall", "pocket"):
                pos.pop(b, None)
            elif it.type == "ball_removed":
                pos.pop(b, None)
                if penalty_to is not None and not penalty_taken:
                    penalty_taken = True
                    penalty_ball = b
                    self.shelf[penalty_to].append(b)
                    r.add_rule("FP-6.2")
                    r.notes.append(
                        f"FP-7: {self.players[penalty_to]} took ball {b} as the penalty ball (+1)"
                    )
                else:
                    self.held.add(b)
                    self.awaiting.pop(b, None)
                    if rerack:
                        continue
                    r.notes.append(
                        f"ball {b} taken off the table at t={it.t:g} s"
                        + (" (not a penalty ball: one per foul)" if penalty_to is not None else "")
                        + "; put it back"
                    )
            elif it.type == "ball_placed":
                p = (float(it["pos"][0]), float(it["pos"][1]))
                if penalty_taken and penalty_to is not None and b == penalty_ball:
                    # the penalty ball went back: the non-offender changed his mind
                    self.shelf[penalty_to].remove(b)
                    shelved.pop(b, None)
                    penalty_taken = False
                    r.notes.append(f"FP-7: ball {b} put back: it is not the penalty ball")
                    pos[b] = p
                    continue
                if b in shelved:
                    raise rule_error(
                        it.where,
                        f"ball {b} is on {self.players[shelved[b]]}'s shelf (scored); "
                        "it cannot come back to the table",
                    )
                if b in self.awaiting and rerack:
                    del self.awaiting[b]  # it goes into the re-rack (GR-13.2), not to a spot
                elif b in self.awaiting:
                    want = self.awaiting.pop(b)
                    others = [q for k, q in pos.items() if k != b]
                    # GR-25 point against the table as it is now (hang put-backs keep theirs)
                    fixed = b in self.hung
                    target = (
                        want if fixed else respot_point(self.profile, others, o["respot_gap_mm"])
                    )
                    target = target or want
                    d = distance_mm(p, target)
                    rule = "GR-24" if fixed else "GR-25"
                    r.add_rule(rule)
                    if d <= o["respot_tolerance_mm"]:
                        r.notes.append(f"{rule}: ball {b} respotted correctly ({d:.1f} mm off)")
                    else:
                        r.notes.append(
                            f"{rule} check: ball {b} placed at {_fmt(p)}, {d:.0f} mm from where "
                            f"it goes {_fmt(target)}"
                        )
                elif b in self.held:
                    self.held.discard(b)
                    r.notes.append(f"ball {b} put back on the table at {_fmt(p)}")
                elif not rerack:
                    if b not in pos:
                        self.held.discard(b)
                    r.add_rule("GR-16")
                    r.notes.append(
                        f"GR-16 suggestion: ball {b} moved by hand to {_fmt(p)} between the "
                        "strokes; enter a 'foul' if a player touched it"
                    )
                pos[b] = p
        if penalty_to is not None and not penalty_taken:
            r.add_rule("FP-7")
            r.notes.append(
                f"FP-7: no penalty ball was taken before the next stroke: "
                f"{self.players[penalty_to]} gets no point"
            )

    def gr_7_4_choice(self, shot: ShotRecord, offender: int, is_break: bool) -> tuple[str, str]:
        """GR-7.4 / GR-13.2: the non-offender's choice: an input, who struck next, or 'play'."""
        non = 1 - offender
        kinds = PLAY_KINDS + HAND_BACK_KINDS + (RERACK_KINDS if is_break else ())
        choices = shot.inputs_of_type("choice")
        rule = "GR-13.2" if is_break else "GR-7.4"
        if choices:
            it = choices[-1]
            kind = str(it["kind"])
            if kind not in kinds:
                raise rule_error(
                    it.where,
                    f"choice '{kind}' after a foul: expected one of {', '.join(kinds)} ({rule})",
                )
            how = f"{self.players[non]} chose '{kind}'"
        elif shot.following is not None and shot.following.get("player") is not None:
            struck = self._player_index(shot.following["player"], shot.following.where)
            kind = "play" if struck == non else "hand-back"
            how = f"{self.players[struck]} struck next, so {self.players[non]} chose '{kind}'"
        else:
            kind = "play"
            how = f"no choice entered: {self.players[non]} plays"
        return kind, how

    def gr_7_4_apply_choice(
        self, shot: ShotRecord, r: Ruling, offender: int, is_break: bool, choice: tuple[str, str]
    ) -> None:
        """GR-7.4 (and GR-13.2 after an illegal break): apply the non-offender's choice."""
        non = 1 - offender
        kind, how = choice
        rule = "GR-13.2" if is_break else "GR-7.4"
        r.add_rule(rule)
        if kind in PLAY_KINDS:
            self.turn = non
        elif kind in HAND_BACK_KINDS:
            self.turn = offender
        else:
            self.breaker = non if kind == "rerack-self" else offender
            self.turn = self.breaker
        if kind in RERACK_KINDS:
            self.phase = "rerack"
            shelved = {b for sh in self.shelf for b in sh}
            on = [b for b in self.balls if b not in shelved]
            cue = "Y" if "Y" in on else None
            rest = [b for b in on if b != cue]
            if cue is None and rest:
                cue = rest.pop(0)
            n = len(rest)
            self.rack_points = incomplete_pyramid(n, self.profile)
            r.add_rule("GR-9.3")
            r.respots = [Respot(b, p) for b, p in zip(rest, self.rack_points, strict=True)]
            r.notes.append(
                f"GR-13.2: re-rack {n} balls as an incomplete pyramid (GR-9.3, positions in "
                f"'respots'); {self.players[self.breaker]} breaks with {cue} from the house"
            )
        elif is_break:
            self.phase = "play"
        r.notes.append(f"{rule}: {how}; {self.players[self.turn]} plays next")
        r.next = self.players[self.turn]

    # ---- helpers ------------------------------------------------------------------------
    def _players_inputs(self, inputs: list[Item]) -> None:
        for it in inputs:
            if it.type == "players":
                self.players = [str(n) for n in it["names"]]

    def _player_index(self, name: Any, where: str) -> int:
        if name in self.players:
            return self.players.index(name)
        if name in ("A", "B"):
            return 0 if name == "A" else 1
        raise rule_error(where, f"unknown player {name!r} (players: {', '.join(self.players)})")

    def _sync(self, positions: dict[str, XY], r: Ruling) -> None:
        """Take the table from the stream and keep every ball accounted for."""
        self.table = dict(positions)
        for b in list(self.awaiting):
            if b in positions:
                del self.awaiting[b]
        self.hung &= set(self.awaiting)
        self.held -= set(positions)
        if not self.begun:
            return
        shelved = {b for s in self.shelf for b in s}
        for b in self.balls:
            lost = b not in positions and b not in shelved and b not in self.awaiting
            if lost and b not in self.held:
                self.held.add(b)
                r.notes.append(f"ball {b} is off the table with no ruling for it; put it back")
