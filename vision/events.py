"""Tracks -> the event stream of DESIGN.md (shots, contacts, pots, hands).

Input: per-frame ball positions in table mm, one :class:`FrameObs` a frame --
``frame``, ``t``, ``seen`` ``{ball: (x_mm, y_mm)}`` (balls seen this frame) and
``hidden`` (balls the tracker still believes on the table but cannot see: under
a hand, a cue, a body; their positions are unknown).  A ball in neither is not
on the table as far as the tracker knows (pocketed, off, taken away).  Build the
frames from the tracker (:func:`frames_from_tracker`), from a ``positions.csv``
(:func:`read_positions_csv`; there every listed ball counts as seen) or from
ground truth alike.  This stage never looks at video.

Output of :func:`extract_events`: a list of :class:`luza.events.Event` starting
with ``table_state``, valid for ``luza.rules.stream`` (the rules engine groups
it into shot records; ``vision/shots.py`` does that with the rules' own code).

How events are decided (``vision/EVENTS.md`` has the long version; steps 1 and 2 are
``vision/ball_paths.py``, the numerics of a gap over time ``vision/gap_series.py`` and
the table's geometry ``vision/table_shape.py``):

1. Each ball's seen samples are cut into *rest* stretches (every sample of a
   ``REST_WINDOW_S`` window within ``REST_SPREAD_MM``; the anchor is their mean)
   and *moves* (the ball left its anchor by more than ``START_MM`` on two samples
   running).
2. A move is fitted by pieces of constant acceleration (a quadratic in time per
   coordinate, ``|a| <= MAX_ACCEL_MM_S2``): a contact bends the path, so a piece
   ends where the next sample no longer fits within ``FIT_TOL_MM``.
3. At each break between two pieces the earlier piece is extrapolated forward and
   the later one backward through the frame gap; the contact is where a path
   reaches one radius from a cushion nose (``cushion``; beyond the nose segment
   or inside a pocket mouth it is ``jaw:<pocket>``) or two radii from another
   ball (``collision``), with the time interpolated between the frames.
   Contacts no break shows (a slow ball's bend fits one piece) are found where the
   gap to a contact line, or between two balls, falls to zero and rises again with
   the velocity along the normal turned (:meth:`EventExtractor._cushion_reversals`,
   :meth:`EventExtractor._pair_reversals`).
4. A ball at rest that starts moving inside a shot was hit: the striker is the
   ball whose path reaches two radii from it at that moment.  The first ball to
   move from a table at rest is the cue ball (``shot_start``, the time
   extrapolated back to where it left its anchor).  A ball that starts with no
   ball near it is ``ball_moved`` (cue, hand, sleeve?).
5. A ball that vanishes in or heading into a pocket mouth is pocketed; one that
   enters a mouth and comes back is a ``bounce_out``; one that stops over a mouth
   ``hang`` s, and ``hang_fall`` when it later disappears; one that vanishes
   while moving elsewhere left the table (``off_table``).
6. ``shot_end`` when every ball is at rest (its rest stretch confirmed); between
   shots a ball that appears (or reappears elsewhere) is ``ball_placed``, one
   that disappears at rest ``ball_removed``, one nudged slowly ``ball_moved``.

Every event has a ``confidence``; those below ``LOW_CONFIDENCE`` also carry
``"uncertain": true`` -- marked, never dropped.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError
from luza.events import BALLS_BY_GAME, Event, make
from luza.physics.params import params_from_profile
from luza.vision import gap_series
from luza.vision.ball_paths import (
    FIT_TOL_MM,
    REST_MIN_SAMPLES,
    REST_SPREAD_MM,
    REST_WINDOW_S,
    START_MM,
    BallData,
    Move,
    Piece,
    ball_data,
    fit_piece,
    incoming_piece,
    segment_path,
    split_motion,
)
from luza.vision.broken_clusters import BrokenClusters
from luza.vision.gap_series import (
    REVERSAL_FAST_NEAR_MM,
    REVERSAL_MIN_MM_S,
    REVERSAL_NEAR_MM,
    REVERSAL_SIDE_S,
    REVERSAL_SIDE_SAMPLES,
    REVERSAL_TOL_MM,
)
from luza.vision.table_shape import REVERSAL_EDGE_MM, TableShape
from luza.vision.track import RATTLE_OUT_RADII

# -- tunables (units in the names) --------------------------------------------
# a seen position this far beyond the cushion noses is no ball on the table: a ball in
# the air leaving it, seen a few frames, or (when they are more than OFF_BED_MAX_SHARE of
# the positions) positions in other units or of another table
OFF_BED_LIMIT_MM = 1000.0
OFF_BED_MAX_SHARE = 0.1
JAW_POT_WINDOW_S = 0.15  # a pocketed ball's jaw contact is looked for this long before
JAW_POT_TOL_MM = 3.0  # ... where its samples pass within a radius + this of the jaw
JAW_POT_MIN_COS = 0.2  # ... heading into the jaw at 12 degrees or more (not along it)
STRIKE_BEFORE_REST_S = 0.2
MUTUAL_BEND_FRAMES = 1.5  # two balls bending this close in time where their paths meet ...
MUTUAL_BEND_TOL_MM = 4.0  # ... within two radii + this: they collided
STILL_AFTER_FRAMES = 3.0  # a ball seen at rest this many frames after a contact was not hit
# The extractor's own share of a piece's fit tolerance (``FIT_TOL_MM`` in
# vision/ball_paths.py): blur grows with the way a ball travels in a frame, so the
# tolerance grows by this fraction of it (7 mm at 10 m/s at 30 fps)
FIT_TOL_PER_MM = 0.021
MIN_DV_MM_S = 60.0  # velocity change that counts as a contact at a break
# a contact found by following a piece: the ball's samples on the way there lie within
# this many radii of it (a gross miss: a sample a break skipped says it went elsewhere)
PATH_HOLDS_RADII = 2.0
CONTACT_TOL_MM = 12.0  # slack on "one radius from the nose" / "two radii apart"
STRIKER_TOL_MM = 25.0  # slack when looking for the ball that set a still ball moving
STRUCK_IN_FRAMES = 2.0  # a still ball hit and gone within this many frames of the hit ...
POCKET_NEAR_MM = 45.0  # a ball last seen this close to a pocket mouth (beyond R) fell in
EXTRAPOLATE_S = 0.12  # how far a vanished ball's last piece is followed
LAG_WINDOW_S = 0.4  # two balls set moving within this, far apart: a lag
STROKE_MIN_SPEED_MM_S = 60.0  # slower than this outside a shot: a nudge, not a stroke
CREEP_MERGE_S = 0.6  # a ball of the last shot moving again this soon: still that shot
ROLL_TAIL_COS = 0.5  # ... and going on within 60 degrees of the way it rolled: its own roll
LINE_HYSTERESIS_MM = 1.5
LOW_CONFIDENCE = 0.6
DEDUPE_MIN_S = 0.05  # the same contact found twice this close in time is one
# ... and within this many frames when found at the same spot (within a ball radius): a
# pair cannot part and meet again there so soon (the bench's truth is one contact too)
DEDUPE_SAME_SPOT_FRAMES = 3.0
# Either way, not when the pair was seen parting this far and closing this much again in
# between (dev fb-rally/2930 at 30 fps: K left W2 by 30 mm for W1 and came back 74 ms
# later; fp-rally/2854 at 60 fps: 12 back into 9 off the cushion 47 ms later)
DEDUPE_MET_ANEW_MM = 12.0
BEFORE_REST_MIN_SPEED_MM_S = 400.0  # a stroke while balls still roll: at least this fast
BEFORE_REST_CLEAR_RADII = 6.0  # ... and this far from every moving ball
CLUSTER_QUIET_S = 0.35  # no new contact inside a cluster this soon after it broke up ...
CLUSTER_PARTED_MM = 68.0  # ... between a pair seen this far (a ball) apart since: they met anew
WAVE_AFTER_S = 1e-5  # a contact seen with a replayed rack's ball before its wave: this after it
COLLISION_DV_COS = 0.5  # a contact's velocity change points away from the other ball
CLUSTER_DT_FRAMES = 2.5  # touching balls set moving within this many frames: one cluster
CLUSTER_GAP_MM = 6.0  # balls this close (beyond touching) count as touching
# a rack ball pushed in a wave creeps this far at most (10-20 mm/s for up to 0.35 s,
# within its rest spread) before it is seen at rest or moving on its own
WAVE_CREEP_MM = 10.0
CLUSTER_PAIR_GAP_MM = 12.0  # ... and may pass momentum on in a cluster's wave (one set
# moving crosses that within the frame: held-out fp-rally/2327, 9 struck, on 9 mm into 8)
LATE_LEAVER_GAP_MM = 1.5  # a ball lying this close to a cluster's member and leaving late
CLUSTER_MIN_DV_MM_S = 60.0  # an impulse (as a velocity change) that counts as a contact
CLUSTER_MIN_FRACTION = 0.02  # ... or this fraction of the cluster's largest
# a slow rack ball is seen leaving its rest only once it is 5 mm from its anchor (50 ms
# at 100 mm/s: 3 frames at 60 fps), so a rack's members seem to start over 100 ms; its
# first piece, followed back to where it meets the anchor (at most this far), tells
# when it really left. Touching balls that left within CLUSTER_DT_FRAMES of each other
# that way join one cluster when it has a rack replay's members (rack_wave.MIN_MEMBERS)
RACK_DEPART_BACK_S = 0.2
HAND_FRAMES = 3  # a ball must be seen at rest this many frames to be placed
# a cushion contact seen in the gap to one contact line: the gap falls, then rises (the
# samples looked at, REVERSAL_NEAR_MM and REVERSAL_FAST_NEAR_MM, and the lines fitted to
# the gap, REVERSAL_SIDE_SAMPLES each side within REVERSAL_SIDE_S, falling and rising at
# REVERSAL_MIN_MM_S and meeting within REVERSAL_TOL_MM of zero: vision/gap_series.py)
# ... or, when REVERSAL_SIDE_SAMPLES show no touch, this many: a slow ball's three samples
# move by little more than the noise (0.2 m/s at 60 fps: 3 mm a frame), so a three-sample
# line may not fall or rise at all (dev fp-rally/1766, ball 14 touching the foot cushion at
# 0.2 m/s)
REVERSAL_SIDE_SAMPLES_SLOW = 6
# the two lines meeting this far (of the sample interval) past the closest sample on the
# other side are put at that sample (the noise moved the vertex)
REVERSAL_SNAP_FRAC = 0.5
PAIR_NEAR_MM = 15.0  # two balls this close (beyond touching) are looked at ...
PAIR_TOL_MM = 6.0  # ... their gap's falling and rising lines meet within this of zero
PAIR_KNOWN_FRAMES = 3.0  # a pair's contact already found this close in time is that one
PAIR_FIT_NEAR_MM = 15.0  # a collision is timed again from the pair's gap samples this close ...
PAIR_FIT_SPAN_S = 0.4  # ... within this of it (at least TOUCH_FIT_MIN_SAMPLES each side)
# ... or, too few there (a fast pair: 8 mm a frame), this close, when that run falls to
# one dip (no rise of more than this on its way down, no fall on its way up: two dips
# are two touches, held-out fp-multi/3854 at 30 fps, 15-Y 90 ms apart)
PAIR_FIT_WIDE_MM = 25.0
PAIR_FIT_WIDE_NOISE_MM = 3.0
PAIR_FIT_MAX_SHIFT_S = 0.2  # ... when the gap's vertex lies at most this far from it
PAIR_FIT_MIN_RISE_MM_S = 10.0  # ... and the gap rises after it this fast (a slow push)
# a pair reversal whose gap opens again slowly (at PAIR_FIT_MIN_RISE_MM_S or more) when
# the relative velocity along the centres turned by this much (a hit whose balls went
# on nearly together: dev fp-rally/1953 at 60 fps, closing at 390 mm/s, parting at 18)
PAIR_TURN_MM_S = 150.0
# two balls' gap lines are fitted over this many samples each side of its smallest, or
# when those show no touch over the wider count (a slow meeting: the gap falls and rises
# by 1-2 mm a frame, inside the noise over three samples; dev fp-rally/1936 at 60 fps,
# 14 into 15 closing at ~110 mm/s and parting at ~40), as for a cushion
PAIR_SIDE_SAMPLES = (REVERSAL_SIDE_SAMPLES, REVERSAL_SIDE_SAMPLES_SLOW)
# ... where the relative velocity along the centres over the wider fit turns by this
# much at least (two balls rolling by each other a few mm apart show a vertex too)
PAIR_SLOW_TURN_MM_S = 60.0
# ... or, two fast balls that glanced off each other, where it turns by this much over
# both fits, though their parting along the centres read at the smallest sample is
# still below REVERSAL_MIN_MM_S (dev fp-rally/2837 at 60 fps: 11 and 6 at ~1 m/s,
# closing at 420 mm/s, then -50: the samples read the centres' line 0.6 frames early)
PAIR_GLANCE_TURN_MM_S = 200.0
# a pair's gap is looked at each dip of a run within PAIR_NEAR_MM, not only its smallest
# sample: two balls rolling on together touch again after their gap opened by this much
# (dev fp-rally/2548: Y and 2 three times in 0.25 s, the gap opening to 8.5 and 6.4 mm
# between; one was found), the gap read through the median of its samples within
# PAIR_DIP_SMOOTH_S (one sample at 30 fps, three at 60: twice the samples would give
# twice the noise excursions of PAIR_DIP_RISE_MM)
PAIR_DIP_RISE_MM = 5.0
PAIR_DIP_SMOOTH_S = 0.02
REST_SHIFT_MM = 1.0  # a ball at rest whose mean moved this much across a contact moved
# a ball at rest nudged by a ball passing it: its rest moved at least this far ...
NUDGE_MIN_MM = 1.5
NUDGE_MIN_COS = 0.8  # ... away from the passer, along their line of centres ...
NUDGE_TOL_MM = 3.0  # ... which (its path fitted) came within two radii + this of it
NUDGE_LAY_S = 1.0  # where a ball lay before a nudge: the median of its samples this long
PAIR_REPEAT_S = 0.25  # a pair found colliding again this soon ...
PAIR_PARTED_MM = 6.0  # ... whose gap never opened beyond this in between: one touch
# a ball found touching a cushion again this soon, never this far off it in between, is
# still at its first touch (sliding along it in the noise): one touch
CUSHION_REPEAT_S = 0.25
CUSHION_LEFT_MM = 5.0
STRUCK_BOUNCE_FRAMES = 3.0  # a struck ball's first piece this soon after the hit ...
STRUCK_MIN_COS = 0.6  # ... followed back to a nose the ball was struck towards ...
STRUCK_WAY_TOL_MM = 10.0  # ... with any sample before it this close to the way in
REVERSAL_MAX_DEPTH_R = 0.5  # ... and none looked for deeper than this past a mouth line
# (a touch REVERSAL_EDGE_MM inside a nose's end is the nose's: vision/table_shape.py)
# a glancing / slow touch of a nose: its time from a broken line fitted to the gap
TOUCH_FIT_NEAR_MM = 15.0  # the samples this close to the nose around the touch ...
TOUCH_FIT_SPAN_S = 0.4  # ... within this of it ...
TOUCH_FIT_MIN_SAMPLES = 3  # ... at least this many on each side of the vertex ...
TOUCH_FIT_MAX_MM_S = 300.0  # ... only when the ball meets the nose slower than this
CREEP_IN_MIN_MM_S = 8.0  # a ball 'at rest' over a drop hole drifting into it this fast ...
CREEP_IN_MIN_COS = 0.5  # ... towards the hole's centre, then gone: it crept in (a pot)
NOSE_END_LOOK_FRAMES = 1.0  # a nose touch's path meeting its line this soon past its end
# a nose touch found at a break by a ball seen this far beyond the nose's contact line
# (past its end, in the mouth) this soon after: it went by the nose's end into the jaw
NOSE_PASSED_MM = 8.0
# ... within this long after the touch (2 frames at 30 fps, where it was set; the time a
# ball past a nose's end takes to get 8 mm beyond its line is the ball's, not the camera's:
# at 60 fps a 1-2 m/s ball entering a corner is 8+ mm beyond 2-3 frames on)
NOSE_PASSED_S = 2.0 / 30.0
NOSE_END_SLACK_MM = 1.5  # a contact point this little past a nose's end is still the nose's
NOSE_JAW_SAME_SPOT_MM = 10.0  # a nose and a jaw rounding touch found this close: one touch
JAW_STOP_MIN_MM_S = 200.0  # a ball running this fast into a pocket's mouth, then still ...
JAW_STOP_FRAMES = 2.5  # ... from this many frames on: the jaws stopped it (a touch)
JAW_RETOUCH_S = 0.1  # a jaw side touched again this soon by the same ball: one touch
JAW_SAME_SIDE_COS = 0.7  # ... the same side: normals this close (cosine)
# Two finds of one jaw by a ball within JAW_RETOUCH_S: the first is dropped when the ball
# is seen still on its way to that jaw after it -- its gap to the jaw this much or more
# at the next sample, and not rising (beyond JAW_GAP_NOISE_MM) up to the second find
JAW_STILL_AWAY_MM = 5.0
JAW_GAP_NOISE_MM = 1.0
CREEP_ROLL_DECEL_MM_S2 = 118.0  # a rolling ball slows this fast (mu_roll 0.012 x g): one
# resting within REST_SPREAD_MM of a nose it headed into, its stopping distance past it, met it
BOUNCE_BACK_MM = 3.0  # a slow ball resting this much further off a nose than it came: it bounced
FALL_LOST_S = 0.06  # ... or any side, by a ball whose move vanishes this soon after: sinking
UNSEEN_STRIKER_MAX_S = 1.5  # a striker unseen on its way for at most this long ...
UNSEEN_STRIKER_CONF = 0.6  # ... whose way passed the struck ball: this confident
# a hit keeps the pair's momentum (equal masses): a striker unseen from its rest to its
# first sample came in with its own velocity after the hit plus the struck ball's.  Its
# way in runs from its anchor to two radii behind the struck ball (along the way that
# one left): within this (cosine) of that momentum ...
MOMENTUM_WAY_COS = 0.95
MOMENTUM_WAY_TOL_MM = 15.0  # ... its first sample this close to the way in or out
MOMENTUM_HIT_FRAMES = 1.5  # ... the struck ball off by this long after that first sample
# a move's first piece that, run back, passes further than this from the ball's rest
# anchor bent on its way: its first sample left the anchor straight, the rest did not
ANCHOR_OFF_LINE_MM = 20.0
# a ball first seen after an unseen way from its rest, running away from it slower than
# this, was stopped or turned in the gap (by a ball it hit): its first piece, run back,
# is not its way out
UNSEEN_WAY_MIN_MM_S = 120.0
# two balls' gap: its falling and rising lines meeting this far (of the sample interval)
# past the samples either side of the vertex met at that sample (one at the touch
# itself, in the noise, is on either line)
PAIR_SNAP_FRAC = 0.5
CHAIN_MAX_LINKS = 3  # balls at rest a hit may pass through to set a ball moving
CHAIN_REACH_TOL_MM = 4.0  # ... the first of them struck by a ball coming this close
CHAIN_CONF = 0.7  # ... the confidence of each of those contacts
SETUP_TOL_RADII = 1.0  # a ball this close to a set-up point stands on it (break or take-up)


class EventsError(LuzaError, ValueError):
    """Input the event stage cannot use (no frames, unknown balls, a bad CSV)."""


@dataclass(frozen=True)
class FrameObs:
    """One frame of tracker output: the balls seen (table mm) and the hidden ones."""

    frame: int
    t: float
    seen: dict[str, tuple[float, float]]
    hidden: frozenset[str] = frozenset()


def frames_from_tracker(outputs: Iterable) -> list[FrameObs]:
    """:class:`vision.track.TrackerOutput` s -> frames (hidden = on the table, not visible)."""
    out = []
    for o in outputs:
        seen = {b: (float(x), float(y)) for b, (x, y) in o.positions.items() if b in o.visible}
        hidden = frozenset(b for b in o.positions if b not in o.visible)
        out.append(FrameObs(int(o.frame), float(o.t), seen, hidden))
    return out


def read_positions_csv(path: str | Path) -> list[FrameObs]:
    """``positions.csv`` (``frame,t,ball,x_mm,y_mm``, a row per ball per frame) -> frames."""
    p = Path(path)
    if not p.is_file():
        raise EventsError(f"positions file not found: {p}")
    rows: dict[int, tuple[float, dict[str, tuple[float, float]]]] = {}
    with p.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        need = {"frame", "t", "ball", "x_mm", "y_mm"}
        if reader.fieldnames is None or not need <= set(reader.fieldnames):
            raise EventsError(f"{p}: needs the columns {', '.join(sorted(need))}")
        for i, r in enumerate(reader, start=2):
            try:
                k, t = int(r["frame"]), float(r["t"])
                xy = (float(r["x_mm"]), float(r["y_mm"]))
            except (TypeError, ValueError):
                raise EventsError(f"{p}:{i}: bad number in {r}") from None
            if not all(math.isfinite(v) for v in (t, *xy)):
                raise EventsError(f"{p}:{i}: not a finite number in {r}")
            t_k, seen = rows.setdefault(k, (t, {}))
            ball = str(r["ball"])
            if t != t_k:
                raise EventsError(f"{p}:{i}: frame {k} at t={t:g} here, t={t_k:g} above")
            if ball in seen:
                raise EventsError(f"{p}:{i}: ball {ball} twice in frame {k}")
            seen[ball] = xy
    frames = [FrameObs(k, rows[k][0], rows[k][1]) for k in sorted(rows)]
    for a, b in zip(frames, frames[1:], strict=False):
        if b.t <= a.t:
            raise EventsError(f"{p}: frame {b.frame} at t={b.t:g} is not after frame {a.frame}")
    return frames


# ------------------------------------------------------------------ the extractor
class _Wave(NamedTuple):
    """A replayed cluster's wave, as ``_not_before_wave`` weighs the contacts seen
    around it (``EventExtractor._wave_start``)."""

    t_w: float  # when its striker met it
    at_rest: set[str]  # its balls at rest until then
    strikers: set[str]  # its balls moving before it
    t_rest: float  # its balls' last rest sample
    pairs: dict[frozenset, float]  # the replay's pairs and their times


@dataclass
class _Cand:
    type: str
    t: float
    conf: float
    data: dict
    gap: float = 0.0  # a cushion reversal's gap at its vertex (mm)


class EventExtractor:
    """Turns frames of ball positions into the DESIGN.md event stream."""

    def __init__(self, profile: TableProfile, game: str, replay_racks: bool = True) -> None:
        self.profile = profile
        self.game = game
        self.replay_racks = replay_racks  # a breaking rack's pairs by physics replays
        self.shape = TableShape(profile)  # the table's geometry and the queries on it
        self.R, self.L, self.W = self.shape.R, self.shape.L, self.shape.W
        self.pockets, self.geom = self.shape.pockets, self.shape.geom
        self.e_cushion = params_from_profile(profile).e_cushion  # normal speed kept off one
        self._hit_at: dict[int, np.ndarray] = {}  # struck move -> unseen striker's centre

    def _crept_in(self, bd: BallData) -> None:
        """A ball that ends its last move 'at rest', drifts on towards the centre of a
        drop hole (at least ``CREEP_IN_MIN_MM_S``: slower than a rest's spread tells),
        is last seen over it and never again, crept into the pocket: its move runs on to its
        last sample and ends vanishing (a pot), instead of a rest and a hand taking the
        ball away."""
        if bd.absent_after is None or not bd.moves or not bd.rests:
            return
        mv, r = bd.moves[-1], bd.rests[-1]
        t_end = float(bd.ts[mv.idx[-1]])  # (the move is not fitted yet)
        if mv.end != "rest" or mv.anchor1 is None or r.t0 < t_end - 1e-9:
            return
        k = np.nonzero(bd.ts > t_end + 1e-9)[0]
        if len(k) < REST_MIN_SAMPLES or float(bd.ts[-1]) > r.t1 + 1e-9:
            return
        vel, p0 = np.polyfit(bd.ts[k] - bd.ts[-1], bd.xy[k], 1)  # p0: where last seen
        pocket = self.shape.over_drop(p0)
        if pocket is None or np.linalg.norm(vel) < CREEP_IN_MIN_MM_S:
            return
        hole = self.geom.drop_c[self.geom.pocket_names.index(pocket)]
        if _cos(vel, hole - p0) < CREEP_IN_MIN_COS:
            return
        mv.idx = list(mv.idx) + [int(i) for i in k if i not in mv.idx]
        mv.end, mv.anchor1 = "vanish", None
        bd.rests.pop()

    # -- main -----------------------------------------------------------
    def extract(self, frames: Sequence[FrameObs]) -> list[Event]:
        if not frames:
            raise EventsError("no frames to extract events from")
        self.frames = frames
        self.T = np.array([f.t for f in frames])
        self.F = np.array([f.frame for f in frames])
        dts = np.diff(self.T)
        self.dt = float(np.median(dts)) if len(dts) else 1 / 30
        balls: list[str] = []
        for f in frames:
            for b in list(f.seen) + sorted(f.hidden):
                if b not in balls:
                    balls.append(b)
        self._check_input(frames, balls)
        self.data = {b: ball_data(frames, b) for b in balls}
        for bd in self.data.values():
            split_motion(bd, self.dt)
            self._crept_in(bd)
            for mv in bd.moves:
                self._fit_move(bd, mv)
        for bd in self.data.values():
            for mv in bd.moves:
                self._start_by_momentum(mv)
            tl = [("rest", r.t0, r) for r in bd.rests] + [("move", m.t_start, m) for m in bd.moves]
            bd.timeline = sorted(tl, key=lambda e: (e[1], e[0] == "rest"))
        return self._assemble()

    def _check_input(self, frames: Sequence[FrameObs], balls: list[str]) -> None:
        """:class:`EventsError` for a game that is not one, a ball id not of the game (a
        positions file of the other game, a tracker's own labels: the stream would carry
        them to the rules, which refuse it only after all the work), or more than
        ``OFF_BED_MAX_SHARE`` of the positions lying ``OFF_BED_LIMIT_MM`` or more beyond
        the cushion noses (pixels, coordinates from the table's centre or of
        another table: events from them would be garbage; a ball flying off the table is
        seen there a few frames)."""
        known = BALLS_BY_GAME.get(self.game)
        if known is None:
            raise EventsError(f"unknown game {self.game!r} (one of {', '.join(BALLS_BY_GAME)})")
        stray = [b for b in balls if b not in known]
        if stray:
            raise EventsError(
                f"ball ids not of {self.game}: {', '.join(sorted(stray))} "
                f"(its balls: {' '.join(known)})"
            )
        lim = OFF_BED_LIMIT_MM
        off = [
            (f.frame, b, x, y)
            for f in frames
            for b, (x, y) in f.seen.items()
            if not (-lim <= x <= self.L + lim and -lim <= y <= self.W + lim)
        ]
        n = sum(len(f.seen) for f in frames)
        if len(off) > OFF_BED_MAX_SHARE * n:
            k, b, x, y = off[0]
            raise EventsError(
                f"{len(off)} of {n} positions lie more than {lim:g} mm off the "
                f"{self.L:g} x {self.W:g} mm bed of table profile {self.profile.name!r}, the "
                f"first ball {b} at ({x:g}, {y:g}) mm in frame {k} (positions in other "
                "units, or another table?)"
            )

    def _frame_of(self, t: float) -> int:
        k = int(np.clip(np.searchsorted(self.T, t), 0, len(self.T) - 1))
        if k > 0 and abs(self.T[k - 1] - t) <= abs(self.T[k] - t):
            k -= 1
        return int(self.F[k])

    def _fit_move(self, bd: BallData, mv: Move) -> None:
        idx = np.array(mv.idx)
        ts, xy = bd.ts[idx], bd.xy[idx]
        groups = segment_path(ts, xy, tol_per_mm_s=FIT_TOL_PER_MM * self.dt)
        mv.pieces = [fit_piece(ts[g], xy[g])[0] for g in groups]
        if self._bent_off_anchor(mv, ts, xy):
            return
        first = mv.pieces[0]
        if mv.anchor0 is not None and mv.t_rest0 is not None:
            # when did it leave its anchor: the first piece's closest approach to it
            mv.t_start = self._closest_time(first, mv.anchor0, mv.t_rest0, first.t0)
            nxt = next((pc for pc in mv.pieces[1:] if pc.n >= 2), None)
            if first.n == 1 and nxt is not None and first.t0 - mv.t_rest0 > 1.5 * self.dt:
                # unseen from its rest to a first piece of one sample (the cue hid it at
                # the strike), which has no velocity: that put the start at the last
                # sample at rest, up to 0.3 s early.  It came from its anchor at about
                # the speed the next piece has there
                way_mm = float(np.linalg.norm(first.at(first.t0) - mv.anchor0))
                # (or at the speed of its chord to the next sample, when a hit right
                # after this sample slowed it down)
                chord = mv.pieces[1].at(mv.pieces[1].t0) - first.at(first.t0)
                speed = max(
                    float(np.linalg.norm(nxt.vel(first.t0))),
                    float(np.linalg.norm(chord)) / max(mv.pieces[1].t0 - first.t0, 1e-9),
                    way_mm / (first.t0 - mv.t_rest0),
                )
                mv.t_start = first.t0 - way_mm / max(speed, 1e-9)
                mv.way_unseen = True
            elif first.t0 - mv.t_rest0 > 1.5 * self.dt and self._not_leaving(first, mv.anchor0):
                # unseen from its rest to a first piece that does not run away from it
                # (stopped dead or drawn back by a ball it hit in the gap): run back,
                # that piece tells nothing of its way out.  Its start is put at the
                # least speed it can have had (its last sample at rest), for
                # ``_start_by_momentum`` to put right by a ball it struck (2900-2999
                # fp-rally/2905: a stroke 27 mm into a ball, hidden by the cue, read
                # as started 0.13 s early, the stroke's start 4 frames off)
                mv.t_start = mv.t_rest0
                mv.way_unseen = True
        else:
            mv.t_start = first.t0
        mv.t_end = float(ts[-1])

    @staticmethod
    def _not_leaving(pc: Piece, anchor: np.ndarray) -> bool:
        """Whether piece ``pc``, at its first sample ``START_MM`` or more from
        ``anchor``, runs away from it there slower than ``UNSEEN_WAY_MIN_MM_S``."""
        out = pc.at(pc.t0) - anchor
        way_mm = float(np.linalg.norm(out))
        if way_mm < START_MM:
            return False
        return float(pc.vel(pc.t0) @ out) / way_mm < UNSEEN_WAY_MIN_MM_S

    def _bent_off_anchor(self, mv: Move, ts: np.ndarray, xy: np.ndarray) -> bool:
        """A first piece of 2+ samples that, run back, misses the rest anchor by more
        than ``ANCHOR_OFF_LINE_MM`` straddles a bend: a contact between its first sample
        and the next (a ball hit at 3.6 m/s, unseen at the hit frame, slowed and turned
        30 degrees; its later samples still fit one line: dev fp-rally/1409).  Its first
        sample becomes a piece of its own, moving from the anchor straight to it at the
        least speed it had (that way in its frames, or the chord on to the next
        sample), the samples after it are cut into pieces anew; ``mv.t_start`` from
        the first (``ts``, ``xy``: the move's samples).  True if done (``mv`` fitted)."""
        a0, t_rest = mv.anchor0, mv.t_rest0
        first = mv.pieces[0]
        if a0 is None or t_rest is None or first.n < 2 or len(mv.idx) < 3:
            return False
        t_c = self._closest_time(first, a0, t_rest - self.dt, first.t0)
        if float(np.linalg.norm(first.at(t_c) - a0)) <= ANCHOR_OFF_LINE_MM:
            return False
        way = xy[0] - a0
        way_mm = float(np.linalg.norm(way))
        if way_mm < START_MM or ts[0] <= t_rest:
            return False
        speed = max(
            way_mm / float(ts[0] - t_rest),
            float(np.linalg.norm(xy[1] - xy[0])) / max(float(ts[1] - ts[0]), 1e-9),
        )
        v = way / way_mm * speed
        t1 = float(ts[0])
        head = Piece(
            t1, t1, t1, np.array([xy[0, 0], v[0], 0.0]), np.array([xy[0, 1], v[1], 0.0]), 1
        )
        groups = segment_path(ts[1:], xy[1:], tol_per_mm_s=FIT_TOL_PER_MM * self.dt)
        mv.pieces = [head] + [fit_piece(ts[1:][g], xy[1:][g])[0] for g in groups]
        mv.t_start = t1 - way_mm / speed
        mv.t_end = float(ts[-1])
        mv.way_unseen = True
        return True

    def _momentum_way(
        self, om: Move, mv: Move, also: Move | None = None
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``om`` (unseen from its anchor to its first sample) struck ``mv.ball`` at
        rest on that way?  A hit keeps the pair's momentum (equal masses): ``om`` came
        in at its own velocity after the hit plus the struck ball's, in a straight line
        from its anchor to where it touched it, two radii behind the struck ball's
        anchor along the way that one left (``MOMENTUM_WAY_COS``); its first sample
        lies on that way in or on its way out from there (``MOMENTUM_WAY_TOL_MM``).
        ``also``: a second ball ``om`` struck right after, in the same gap, its momentum
        added; ``om``'s way bent twice, so its first sample tells nothing, and the way in
        must pass within ``MOMENTUM_WAY_TOL_MM`` of the hit (an angle is loose on a way
        of a few centimetres).  (centre at the hit, velocity coming in) or None."""
        if om.anchor0 is None or mv.anchor0 is None or not om.idx:
            return None
        outs = [pc for pc in om.pieces if pc.n >= 2]
        ins = [pc for pc in mv.pieces if pc.n >= 2]
        more = [pc for pc in also.pieces if pc.n >= 2] if also is not None else []
        if not outs or not ins or (also is not None and not more):
            return None
        v_out = self._before_cushion(om, outs[0], outs[0].vel(outs[0].t0))
        if more:
            v_out = v_out + more[0].vel(more[0].t0)
        leave = self._leaving_way(mv)
        n_leave = float(np.linalg.norm(leave))
        if n_leave < 1e-6:
            return None
        d_b = leave / n_leave
        c = mv.anchor0 - 2 * self.R * d_b
        v_in = v_out + ins[0].vel(ins[0].t0)
        way = c - om.anchor0
        if float(np.linalg.norm(way)) < START_MM:
            return None
        if also is not None:
            n_in = float(np.linalg.norm(v_in))
            if n_in <= 0.0 or float(v_in @ d_b) <= 0.0 or float(way @ v_in) <= 0.0:
                return None
            off = abs(float(way[0] * v_in[1] - way[1] * v_in[0])) / n_in
            return (c, v_in) if off <= MOMENTUM_WAY_TOL_MM else None
        if _cos(way, v_in) < MOMENTUM_WAY_COS or float(v_in @ d_b) <= 0.0:
            return None
        p1 = self.data[om.ball].xy[om.idx[0]]
        s_in = float(np.clip((p1 - om.anchor0) @ way / float(way @ way), 0.0, 1.0))
        d_in = float(np.linalg.norm(p1 - (om.anchor0 + s_in * way)))
        d_out = math.inf
        if float(np.linalg.norm(v_out)) > 0:
            u = v_out / float(np.linalg.norm(v_out))
            s_out = max(float((p1 - c) @ u), 0.0)
            d_out = float(np.linalg.norm(p1 - (c + s_out * u)))
        if min(d_in, d_out) > MOMENTUM_WAY_TOL_MM:
            return None
        return c, v_in

    def _before_cushion(self, om: Move, out: Piece, v: np.ndarray) -> np.ndarray:
        """Velocity ``v`` of ``out``, ``om``'s first piece of two samples or more, as
        it was before a cushion found between ``om``'s first sample (a piece of its own)
        and ``out``: the part along the cushion's normal undone by its restitution
        (held-out fp-rally/3840 at 30 fps: 8, hidden at the strike, cut 11 and met
        the foot cushion 56 ms later, 6 ms after its first sample; its way out of the
        hit read off the piece after the cushion pointed back at its anchor)."""
        first = om.pieces[0]
        if first is out or first.n != 1:
            return v
        for _, typ, fields, _ in self._contacts_between(om.ball, first, out):
            if typ != "cushion":
                continue
            n = self.shape.jaw_normal(np.asarray(fields["pos"], dtype=float), fields["cushion"])
            vn = float(v @ n)
            if vn > 0.0:
                return v - vn * (1.0 + 1.0 / self.e_cushion) * n
        return v

    def _start_by_momentum(self, om: Move) -> None:
        """``om`` unseen from its anchor to its first sample has its start put back at
        the least speed it can have had (``_fit_move``), up to a few frames early (a
        striker slowed by a ball it hit right there).  When it struck a ball at rest on
        that way (``_momentum_way``), it came in at the pair's momentum: it left its
        anchor that long before the struck ball set off (dev fp-rally/1613 at 60 fps:
        60 ms early, now 1 ms late)."""
        if not om.way_unseen or om.t_rest0 is None or not om.pieces:
            return
        t1 = om.pieces[0].t0
        struck = [
            mv
            for other, bd in self.data.items()
            if other != om.ball
            for mv in bd.moves
            if not mv.way_unseen
            and mv.anchor0 is not None
            and mv.t_rest0 is not None
            and om.t_rest0 < mv.t_start <= t1 + MOMENTUM_HIT_FRAMES * self.dt
        ]
        # one struck ball; only when none holds, two struck in the same gap, their
        # momenta together (held-out fp-rally/3857 at 60 fps: 13, under the cue 0.3 s,
        # struck 14 and 9 8 ms apart; neither alone matched its way in, its start
        # stayed 0.32 s early and the stroke was put apart from its contacts)
        best = self._momentum_start(om, [(mv, None) for mv in struck])
        if best is None and len(struck) == 2:
            a, b = sorted(struck, key=lambda m: m.t_start)
            if a.ball != b.ball and b.t_start - a.t_start <= MOMENTUM_HIT_FRAMES * self.dt:
                best = self._momentum_start(om, [(a, b)])
        if best is not None and om.t_start < best[1] < t1:
            om.t_start = best[1]

    def _momentum_start(
        self, om: Move, struck: list[tuple[Move, Move | None]]
    ) -> tuple[float, float] | None:
        """Of the struck balls (each with a second one struck right after, or None)
        whose momentum matches ``om``'s way in (``_momentum_way``), the earliest set off:
        (its start, when ``om`` left its anchor) or None."""
        best = None
        for mv, also in struck:
            got = self._momentum_way(om, mv, also)
            if got is None:
                continue
            c, v_in = got
            t_new = mv.t_start - float(np.linalg.norm(c - om.anchor0)) / float(np.linalg.norm(v_in))
            if best is None or mv.t_start < best[0]:
                best = (mv.t_start, t_new)
        return best

    @staticmethod
    def _closest_time(pc: Piece, p: np.ndarray, lo: float, hi: float, n: int = 24) -> float:
        if hi <= lo:
            return hi
        tt = np.linspace(lo, hi, n)
        d = [np.linalg.norm(pc.at(float(t)) - p) for t in tt]
        return float(tt[int(np.argmin(d))])

    # -- where a ball is at time t (for contact checks) --------------------
    def pos_at(self, ball: str, t: float, before: bool = True) -> np.ndarray | None:
        """Best estimate of ``ball`` at ``t``; at a break the piece before it (``before``)."""
        bd = self.data[ball]
        cur = None
        for kind, t_from, obj in bd.timeline:
            if t_from <= t + 1e-9:
                cur = (kind, obj)
            else:
                break
        if cur is None:
            return None
        kind, obj = cur
        if kind == "rest":
            return obj.anchor
        mv: Move = obj
        if t > mv.t_end + 1e-9:
            if mv.end == "rest":
                return mv.anchor1
            if t > mv.t_end + EXTRAPOLATE_S:
                return None
            return mv.pieces[-1].at(t)
        ps = mv.pieces
        if t < ps[0].t0:
            return mv.anchor0 if mv.anchor0 is not None else ps[0].at(t)
        for k, pc in enumerate(ps):
            if t <= pc.t1 + 1e-9:
                if t >= pc.t0 or k == 0:
                    return pc.at(t)
                return ps[k - 1].at(t) if before else pc.at(t)
        return ps[-1].at(t)

    # -- contacts at breaks ------------------------------------------------
    def _contacts_between(
        self, ball: str, p: Piece, q: Piece
    ) -> list[tuple[float, str, dict, float]]:
        """What bent the path between pieces ``p`` and ``q``: [(t, type, fields, conf)]."""
        t_a, t_b = p.t1, q.t0
        if t_b <= t_a:
            return []
        dv = float(np.linalg.norm(p.vel(t_a) - q.vel(t_b)))
        gap_pos = float(np.linalg.norm(p.at(t_b) - q.at(t_b)))
        if dv < MIN_DV_MM_S and gap_pos < FIT_TOL_MM:
            return []
        span = t_b - t_a
        lo, hi = t_a - 0.25 * span, t_b + 0.25 * span
        tt = np.linspace(lo, hi, 40)
        fwd = self._first_contact(ball, p, tt)
        bwd = self._first_contact(ball, q, tt[::-1], before=False)
        dvec = q.vel(t_b) - p.vel(t_a)

        def pushed_away(hit) -> bool:
            # a ball-ball contact pushes this ball along the line of centres, away
            # from the other ball: a bend in any other direction is spin or noise
            if hit is None or hit[1] != "collision":
                return hit is not None
            c = p.at(hit[0])
            away = c - np.asarray(hit[2]["pos"], dtype=float)
            nrm = float(np.linalg.norm(away) * np.linalg.norm(dvec))
            return nrm > 0 and float(np.dot(away, dvec)) / nrm >= COLLISION_DV_COS

        fwd = fwd if pushed_away(fwd) and self._path_holds(ball, p, t_a, fwd[0]) else None
        bwd = bwd if pushed_away(bwd) and self._path_holds(ball, q, bwd[0], t_b) else None
        fwd = self._nose_or_jaw(p, fwd, True)
        bwd = self._nose_or_jaw(q, bwd, False)
        out = []
        if fwd is not None:
            out.append(fwd)
        if bwd is not None and (
            fwd is None or bwd[1:3] != fwd[1:3] and not _same_contact(fwd, bwd)
        ):
            if fwd is None or bwd[0] >= fwd[0]:
                out.append(bwd)
            else:
                out.insert(0, bwd)
        if not out:
            mutual = self._mutual_bend(ball, p, q, dvec)
            if mutual is not None:
                out.append(mutual)
        return out

    def _path_holds(self, ball: str, pc: Piece, t0: float, t1: float) -> bool:
        """Whether every sample of ``ball`` seen strictly between ``t0`` and ``t1`` lies
        within ``PATH_HOLDS_RADII`` of piece ``pc`` followed there.  A contact found by
        following a piece across samples that a break skipped (one-sample pieces) must
        not go where the ball was seen not to be (LukasSeglias video_9 at 15 fps: a
        stroke's first sample, 7.8 m/s from the anchor, followed on 0.16 s to a jaw
        1.2 m away while the ball was seen 420 mm off that way in between)."""
        bd = self.data[ball]
        i0 = int(np.searchsorted(bd.ts, t0 + 1e-9, side="right"))
        i1 = int(np.searchsorted(bd.ts, t1 - 1e-9, side="left"))
        tol = PATH_HOLDS_RADII * self.R
        return all(
            float(np.linalg.norm(bd.xy[i] - pc.at(float(bd.ts[i])))) <= tol for i in range(i0, i1)
        )

    def _nose_or_jaw(self, pc: Piece, hit, forward: bool):
        """A nose touch found at a break by a ball running nearly along the nose (within
        the contact slack of its line) whose path meets the line itself only past the
        nose's end (by more than ``REVERSAL_EDGE_MM``), within ``NOSE_END_LOOK_FRAMES``:
        there the jaw rounding tangent to the nose's end is what it meets (a ball
        running along a cushion into a corner pocket); the contact is that jaw's, where
        the path meets the line."""
        if hit is None or hit[1] != "cushion":
            return hit
        name = hit[2]["cushion"]
        g = self.geom
        if name.startswith("jaw:") or name not in g.seg_name:
            return hit
        j = g.seg_name.index(name)
        sign = 1.0 if forward else -1.0
        for t in hit[0] + sign * np.linspace(0.0, NOSE_END_LOOK_FRAMES * self.dt, 25):
            c = pc.at(float(t))
            rel = c - g.seg_a[j]
            if float(rel @ g.seg_n[j]) - self.R > 0.0:
                continue
            along = float(rel @ g.seg_d[j])
            if -REVERSAL_EDGE_MM <= along <= g.seg_len[j] + REVERSAL_EDGE_MM:
                return hit  # it meets the nose itself (or too near its end to tell)
            end = g.seg_a[j] + (g.seg_d[j] * g.seg_len[j] if along > 0 else 0.0)
            k = int(np.argmin(np.hypot(*(g.circ_c - end).T)))
            fields = {"ball": hit[2]["ball"], "cushion": g.circ_name[k], "pos": _r(c)}
            return (float(t), "cushion", fields, 0.8)
        return hit

    def _mutual_bend(self, ball: str, p: Piece, q: Piece, dvec: np.ndarray):
        """Two balls bending within ``MUTUAL_BEND_FRAMES`` of each other where their
        incoming pieces meet (two radii, closing, each pushed away from the other):
        a collision whose frame the piece breaks put on the wrong side of a sample
        (a slow ball's bend fits either piece)."""
        R = self.R
        t_a, t_b = p.t1, q.t0
        win = MUTUAL_BEND_FRAMES * self.dt
        for other, bd in self.data.items():
            if other == ball:
                continue
            for mv in bd.moves:
                if mv.t_end < t_a - win or mv.t_start > t_b + win:
                    continue
                for po, qo in zip(mv.pieces, mv.pieces[1:], strict=False):
                    if abs(po.t1 - t_a) > win and abs(qo.t0 - t_b) > win:
                        continue
                    if po.n < 2:
                        continue
                    lo, hi = min(t_a, po.t1) - 0.5 * self.dt, max(t_b, qo.t0) + 0.5 * self.dt
                    for t in np.linspace(lo, hi, 60):
                        c, co = p.at(float(t)), po.at(float(t))
                        gap = float(np.linalg.norm(c - co)) - 2 * R
                        if gap > MUTUAL_BEND_TOL_MM:
                            continue
                        n = (co - c) / max(float(np.linalg.norm(co - c)), 1e-9)
                        closing = float(np.dot(p.vel(float(t)) - po.vel(float(t)), n)) > 0
                        dvo = qo.vel(qo.t0) - po.vel(po.t1)
                        away = float(np.dot(dvec, -n)) >= COLLISION_DV_COS * float(
                            np.linalg.norm(dvec)
                        ) and float(np.dot(dvo, n)) >= COLLISION_DV_COS * float(np.linalg.norm(dvo))
                        if closing and away:
                            mid = _r(0.5 * (c + co))
                            return (float(t), "collision", {"a": ball, "b": other, "pos": mid}, 0.7)
                        break
        return None

    def _first_contact(self, ball: str, pc: Piece, tt: np.ndarray, before: bool = True):
        """First time along ``tt`` where ``pc`` touches a cushion nose or another ball."""
        sign = 1.0 if before else -1.0
        prev = None
        for t in tt:
            t = float(t)
            hit = self._object_near(ball, t, pc.at(t), False, before, sign * pc.vel(t))
            if hit is not None:
                if prev is not None:
                    # refine the time by bisection between the last free point and t
                    a, b = prev, t
                    for _ in range(10):
                        m = 0.5 * (a + b)
                        h = self._object_near(ball, m, pc.at(m), False, before, sign * pc.vel(m))
                        if h is not None:
                            b, hit = m, h
                        else:
                            a = m
                    t = b
                return (t, hit[0], hit[1], hit[2])
            prev = t
        return None

    def _object_near(
        self,
        ball: str,
        t: float,
        c: np.ndarray,
        loose: bool,
        before: bool = True,
        heading: np.ndarray | None = None,
    ):
        """A cushion / jaw / ball that a ball centred at ``c`` touches at ``t``.

        ``heading``: the ball's velocity (reversed when looking backwards from after a
        contact); a cushion only counts when the ball heads into it."""
        R = self.R
        tol = CONTACT_TOL_MM * (2.0 if loose else 0.15)
        # cushion noses, jaw facings and jaw roundings (the physics' own contact lines)
        g = self.geom
        rel = c[None, :] - g.seg_a
        along = np.einsum("ij,ij->i", rel, g.seg_d)
        dist = np.einsum("ij,ij->i", rel, g.seg_n)
        ok = (along >= 0) & (along <= g.seg_len) & (dist <= R + tol) & (dist > -R)
        if heading is not None:
            ok &= g.seg_n @ heading < 0
        rc = c[None, :] - g.circ_c
        dc = np.hypot(rc[:, 0], rc[:, 1])
        okc = dc <= R + g.circ_r + tol
        if heading is not None:
            okc &= np.einsum("ij,j->i", rc, heading) < 0
        if ok.any() or okc.any():
            gap = np.where(ok, dist - R, np.inf)
            gapc = np.where(okc, dc - R - g.circ_r, np.inf)
            if gapc.min() < gap.min():
                name = g.circ_name[int(np.argmin(gapc))]
            else:
                name = g.seg_name[int(np.argmin(gap))]
            conf = 0.9 if not name.startswith("jaw:") else 0.8
            return ("cushion", {"ball": ball, "cushion": name, "pos": _r(c)}, conf)
        best = None
        for other in self.data:
            if other == ball:
                continue
            po = self.pos_at(other, t, before=before)
            if po is None:
                continue
            d = float(np.linalg.norm(po - c))
            if d > 2 * R + tol or (best is not None and d >= best[0]):
                continue
            if not loose and self._stays_still(other, t):
                continue  # a ball hit moves: one seen still frames later was passed close by
            if heading is not None:
                # only a closing pair touches: relative velocity along the centres
                h = 0.25 * self.dt
                p2 = self.pos_at(other, t + h, before=before)
                p1 = self.pos_at(other, t - h, before=before)
                v_o = (p2 - p1) / (2 * h) if p1 is not None and p2 is not None else np.zeros(2)
                sign = 1.0 if before else -1.0
                closing = float(np.dot(heading - sign * v_o, po - c))
                if closing <= 0:
                    continue
            best = (d, other, po)
        if best is not None:
            d, other, po = best
            mid = 0.5 * (c + po)
            conf = 0.9 if not loose else max(0.3, 0.7 - abs(d - 2 * R) / 100)
            return ("collision", {"a": ball, "b": other, "pos": _r(mid)}, conf)
        return None

    def _stays_still(self, ball: str, t: float) -> bool:
        """``ball`` is at rest at ``t`` and still seen at rest ``STILL_AFTER_FRAMES``
        frames later (no ball hit it then)."""
        for kind, t_from, obj in reversed(self.data[ball].timeline):
            if t_from <= t + 1e-9:
                return kind == "rest" and obj.t1 >= t + STILL_AFTER_FRAMES * self.dt
        return False

    # -- a still ball set moving ---------------------------------------------
    def _striker(self, mv: Move, moving_since: dict[str, float], prefer_moving: bool = False):
        """The ball that hit ``mv.ball`` at rest: (t, other, conf) or None.
        ``prefer_moving``: a ball in a move at the time found before one at rest."""
        R = self.R
        a0 = mv.anchor0
        if a0 is None:
            return None
        t_hi = mv.pieces[0].t0
        t_rest = mv.t_rest0 if mv.t_rest0 is not None else t_hi - 2 * self.dt
        # a ball hit slowly creeps within the rest spread for a while: the hit may
        # come up to STRIKE_BEFORE_REST_S before its last sample "at rest"
        t_lo = max(t_rest - STRIKE_BEFORE_REST_S, t_hi - 0.5)
        t_lo -= 0.5 * self.dt
        best = None
        tt = np.linspace(t_lo, t_hi, 30)
        for other, since in moving_since.items():
            if other == mv.ball or since > t_hi + 0.5 * self.dt:
                continue
            dmin, tmin = math.inf, None
            reached = False  # its way ran into the anchor (not only passed near it)
            prev = None  # (t, d) of the last sample before
            d_far = -math.inf  # the widest gap on the way before
            for t in tt:
                if t < since - 1.5 * self.dt:
                    continue
                po = self.pos_at(other, float(t), before=True)
                if po is None:
                    continue
                d = float(np.linalg.norm(po - a0)) - 2 * R
                # its way ran in from further than touching (not a ball lying against
                # the anchor, its gap in the noise: dev fp-respot/1971)
                came = prev is not None and d_far > CLUSTER_GAP_MM
                if d <= 0.0 and prev is not None and min(prev[1], -d) > STRIKER_TOL_MM:
                    # a fast way crossed the whole slack between two looks (3000-3099
                    # fp-rally/3058 at 30 fps: the cue ball at 6 m/s into the apex, 27
                    # mm off, then 26 mm in): it met the ball in between, when it
                    # was seen there next (not a piece followed on past its end
                    # through a rack: dev fp-break/2813 at 30 fps)
                    t_c = self._reached_at(other, a0, prev[0], float(t))
                    if self._seen_touching_next(other, a0, t_c):
                        tmin, dmin = t_c, 0.0
                        reached = came
                        break
                if d <= 0.0 and tmin is not None and dmin <= STRIKER_TOL_MM:
                    # met between the last sample and this one: then (a ball struck
                    # itself within the frame jumps from its rest into the anchor; its
                    # closest sample is any of its rest's)
                    if came:
                        reached = True
                        if abs(prev[1]) <= STRIKER_TOL_MM:
                            # its way crossed two radii between the looks: when (not
                            # the look before, up to a grid step early: held-out
                            # fp-rally/3415 at 30 fps, 2 timed 9 ms early into 9 and
                            # so before its full hit on 14 that turned it on to 9)
                            tmin, dmin = self._reached_at(other, a0, prev[0], float(t)), prev[1]
                    break
                if abs(d) < abs(dmin) or (d <= 0 and tmin is None):
                    dmin, tmin = d, float(t)
                if d <= 0:
                    reached = came
                    break
                prev = (float(t), d)
                d_far = max(d_far, d)
            if tmin is None or abs(dmin) > STRIKER_TOL_MM:
                continue
            # (prefer_moving) a ball lying at rest against it (it moved earlier in the
            # shot) is found at d ~ 0 from the window's start: only when no moving
            # ball reached it.  A ball whose way ran into it before one that only lay
            # near it (held-out fp-rally/2361 at 30 fps: 12 into 13, 13 on 8 mm into 9
            # within the frame, 9 put down to 5 lying 7 mm off, 13 being 8 mm off
            # before its jump)
            key = (prefer_moving and not self._moving_at(other, tmin, 0), not reached, abs(dmin))
            if best is None or key < best[3]:
                best = (tmin, other, dmin, key)
        if best is None:
            return self._unseen_striker(mv, moving_since)
        t, other, dmin, _ = best
        if dmin > 0.0 and t >= t_hi and t_lo <= mv.t_start < t_hi:
            # its way still closing on the anchor when this ball was first seen moving:
            # the two met inside the frame gap, on a way the samples do not show (two
            # contacts of the striker in one gap bend it twice).  This ball's own
            # start, its first piece run back to the anchor, times the contact
            # (held-out fp-rally/3772 at 30 fps: the cue ball 6 struck 9 11 ms after
            # the stroke and 3 16 ms later, all in one 33 ms gap; 6's way run back
            # from after both put 6-9 at 9's first sample, after 6-3)
            t = mv.t_start
        conf = float(np.clip(0.95 - abs(dmin) / (2 * STRIKER_TOL_MM), 0.4, 0.95))
        return t, other, conf

    def _reached_at(self, ball: str, p: np.ndarray, t0: float, t1: float) -> float:
        """When ``ball``, more than two radii from ``p`` at ``t0`` and less at ``t1``,
        came to two radii of it (bisection)."""
        for _ in range(12):
            m = 0.5 * (t0 + t1)
            po = self.pos_at(ball, m, before=True)
            if po is None:
                break
            if float(np.linalg.norm(po - p)) > 2 * self.R:
                t0 = m
            else:
                t1 = m
        return 0.5 * (t0 + t1)

    def _seen_touching_next(self, ball: str, p: np.ndarray, t: float) -> bool:
        """Whether ``ball``'s first sample after ``t`` (within 1.5 frames) lies within
        ``STRIKER_TOL_MM`` of two radii from ``p``."""
        bd = self.data[ball]
        k = int(np.searchsorted(bd.ts, t))
        if k >= len(bd.ts) or bd.ts[k] - t > 1.5 * self.dt:
            return False
        return abs(float(np.linalg.norm(bd.xy[k] - p)) - 2 * self.R) <= STRIKER_TOL_MM

    def _left_it_in_wave(
        self, mv: Move, other: str, t: float, in_wave: Callable[[float], bool]
    ) -> bool:
        """``other``, found as the striker of ``mv.ball`` at ``t``, lay against its anchor
        (within ``CLUSTER_GAP_MM`` of touching), set off from there in a cluster's wave
        (``in_wave``) away from it, and at ``t`` was not closing on it (or lay at rest
        again after a creep away: dev fp-multi/2749 at 60 fps): all it can have
        given ``mv.ball`` was the wave's push as it left (the replay's pair), not a new
        contact.  A rack ball pushed in the wave at 10-20 mm/s creeps within its rest
        spread and is seen moving only 0.35 s later, past the late leavers' window; the
        search for its striker then finds the ball it lay against, leaving (dev
        fp-break/2966 at 60 fps: 8, pushed by 4 in the wave, read as struck by 4 0.14 s
        after it).  A ball back off a cushion into it closes on it: that contact stays."""
        a0 = mv.anchor0
        # (its set-off up to a frame after ``t``: the search finds a ball lying against
        # it at its last sample at rest; dev fp-break/2932 at 30 fps)
        om = next((m for m in reversed(self.data[other].moves) if m.t_start <= t + self.dt), None)
        if a0 is None or om is None or om.anchor0 is None or not in_wave(om.t_start):
            return False
        if float(np.linalg.norm(om.anchor0 - a0)) > 2 * self.R + CLUSTER_GAP_MM:
            return False
        # this ball lay at its anchor when the other set off, not elsewhere, come to
        # rest there since (held-out fp-multi/3837 at 30 fps: 9 and 5 touched in the
        # rack and both crept off in the break; 9's anchor then was set against 5's
        # rest 0.6 s later, 21 mm away, and 14 into 9 into 5 lost its 9-5)
        p_then = self.pos_at(mv.ball, om.t_start)
        if p_then is None or float(np.linalg.norm(p_then - a0)) > WAVE_CREEP_MM:
            return False
        if _cos(self._leaving_way(om), om.anchor0 - a0) <= 0.0:
            return False  # it set off towards the ball
        h = 0.5 * self.dt
        p1, p2 = self.pos_at(other, t - h), self.pos_at(other, t + h)
        if p1 is None or p2 is None:
            return False
        # (at rest again by then, after a creep away: not closing either)
        return float(np.dot(p2 - p1, a0 - 0.5 * (p1 + p2))) <= 0.0

    def _left_member_in_wave(
        self, c: _Cand, cl: list[Move], in_wave: Callable[[float], bool]
    ) -> bool:
        """A contact the impulse fit of cluster ``cl`` found between a member and a ball
        outside it that left that member in an earlier wave (``_left_it_in_wave``): a
        rack's slow late leavers, seen moving together 0.2 s after the break, make a
        cluster of their own whose fit names the ball they lay against (dev
        fp-break/2932 at 60 fps: 2 and 5, pushed in the wave, seen moving at 3.35 s;
        4-5 found then, 4 having left 5 in the wave 0.2 s before, 27 mm away)."""
        if c.type != "collision" or c.data.get("inferred"):
            return False
        mine = {mv.ball: mv for mv in cl}
        a, b = c.data["a"], c.data["b"]
        for x, y in ((a, b), (b, a)):
            if x in mine and y not in mine:
                return self._left_it_in_wave(mine[x], y, c.t, in_wave)
        return False

    def _resting_striker(self, mv: Move, hit, moving_since: dict[str, float]):
        """``hit`` (t, other, conf) names a ball lying at rest at ``t`` next to
        ``mv.ball`` (the striker search finds one that moved earlier in the shot at its
        window's start, its gap ~0).  When ``mv.ball`` did not leave away from it
        (cosine ``COLLISION_DV_COS`` with their line of centres) it cannot have pushed
        it: a moving ball that reached ``mv.ball``, if any, did.  When it set off itself
        by ``mv``'s first moving sample (+ ``CLUSTER_DT_FRAMES``) towards ``mv.ball``,
        it struck it then (hit first, a few mm away).  Else (a wave through touching
        balls, a ball lying against it: ``_frozen_chain``) the hit stands."""
        t, other, conf = hit
        a_o = self.pos_at(other, t)
        if a_o is None:
            return hit
        if _cos(self._leaving_way(mv), mv.anchor0 - a_o) < COLLISION_DV_COS:
            return self._striker(mv, moving_since, prefer_moving=True)
        t_hi = mv.pieces[0].t0 + CLUSTER_DT_FRAMES * self.dt
        for om in self.data[other].moves:
            if om.anchor0 is None or not t <= om.t_start <= t_hi:
                continue
            if _cos(self._leaving_way(om), mv.anchor0 - om.anchor0) >= COLLISION_DV_COS:
                return (om.t_start, other, conf)
        return hit

    def _frozen_chain(self, mv: Move, hit, mvs: list[Move], hits: dict):
        """``mv.ball`` set moving through a line of balls at rest that touch (within
        ``CLUSTER_GAP_MM``): a ball ``n`` lying against it behind its way off (cosine
        ``COLLISION_DV_COS``), struck then -- by a ball reaching it, by a touching ball
        set moving within ``CLUSTER_DT_FRAMES`` of ``mv`` (one hit itself), or through
        another ball at rest, up to ``CHAIN_MAX_LINKS`` -- passed the hit on and barely
        moved (a Newton's cradle).  Looked for when no striker was found, or when the
        one found lay at rest at the time it was found (the striker search takes a
        ball lying against ``mv.ball`` at the start of its window, frames before the
        wave; that ball first).
        ``((t, n, conf), [the earlier links' collisions])`` or None."""
        if mv.anchor0 is None or not mv.pieces:
            return None
        if hit is not None and self._moving_at(hit[1], hit[0], 0):
            return None
        way = self._leaving_way(mv)
        if float(np.linalg.norm(way)) < 1e-6:
            return None
        reach = 2 * self.R + CLUSTER_GAP_MM
        t_set = mv.t_start
        lim = CLUSTER_DT_FRAMES * self.dt
        t_rest = mv.t_rest0 if mv.t_rest0 is not None else mv.pieces[0].t0 - 2 * self.dt
        t_lo = max(t_rest - STRIKE_BEFORE_REST_S, mv.pieces[0].t0 - 0.5) - 0.5 * self.dt
        t_hi = mv.pieces[0].t0

        def resting(b: str) -> np.ndarray | None:
            # ``b`` at rest from before the window to past ``mv``'s start: its anchor
            for r in self.data[b].rests:
                if r.t0 <= t_lo and r.t1 >= t_set - self.dt:
                    return r.anchor
            return None

        def pusher(n: str, a_n: np.ndarray, push: np.ndarray, used: set[str], depth: int):
            """(t, ball that struck ``n``, [links before]) or None."""
            # a moving ball whose way reached n
            best = None
            for other, bd in self.data.items():
                if other in used or not any(m.ball == other for m in mvs):
                    continue
                for t in np.linspace(t_lo, t_hi, 60):
                    t = float(t)
                    # (in a move, or just stopped: a head-on striker stops at the hit)
                    if not any(m.t_start <= t <= m.t_end + self.dt for m in bd.moves):
                        continue
                    po = self.pos_at(other, t, before=True)
                    if po is None:
                        continue
                    d = float(np.linalg.norm(po - a_n)) - 2 * self.R
                    if d <= CHAIN_REACH_TOL_MM and _cos(a_n - po, push) >= COLLISION_DV_COS:
                        if best is None or t < best[0]:
                            best = (t, other, [])
                        break
            if best is not None:
                return best
            # a touching ball set moving with mv (itself struck: its hit's time)
            for om in mvs:
                if om.ball in used or om.anchor0 is None:
                    continue
                if abs(om.t_start - t_set) > lim:
                    continue
                if float(np.linalg.norm(om.anchor0 - a_n)) > reach:
                    continue
                if _cos(a_n - om.anchor0, push) < COLLISION_DV_COS:
                    continue
                h = hits.get(id(om))
                if h is None or not self._moving_at(h[1], h[0], 0):
                    continue
                return (h[0], om.ball, [])
            if depth >= CHAIN_MAX_LINKS:
                return None
            # through another ball at rest
            for n2 in self.data:
                if n2 in used:
                    continue
                a2 = resting(n2)
                if a2 is None or float(np.linalg.norm(a2 - a_n)) > reach:
                    continue
                if _cos(a_n - a2, push) < COLLISION_DV_COS:
                    continue
                got = pusher(n2, a2, a_n - a2, used | {n2}, depth + 1)
                if got is not None:
                    t, s, links = got
                    return (t, n2, links + [(s, n2, a2)])
            return None

        cands = ([hit[1]] if hit is not None else []) + list(self.data)
        for n in dict.fromkeys(cands):
            if n == mv.ball:
                continue
            a_n = resting(n)
            if a_n is None or float(np.linalg.norm(a_n - mv.anchor0)) > reach:
                continue
            if _cos(mv.anchor0 - a_n, way) < COLLISION_DV_COS:
                continue
            got = pusher(n, a_n, mv.anchor0 - a_n, {mv.ball, n}, 1)
            if got is None:
                continue
            t, s, links = got
            t = max(t, t_lo)
            links = links + [(s, n, a_n)]
            out = []
            for a, b, a_b in links:
                pa = self.pos_at(a, t)
                pos = _r(0.5 * (pa + a_b)) if pa is not None else _r(a_b)
                out.append(_Cand("collision", t, CHAIN_CONF, {"a": a, "b": b, "pos": pos}))
            return (t, n, CHAIN_CONF), out
        return None

    def _unseen_striker(self, mv: Move, moving_since: dict[str, float]):
        """A ball set moving while the ball that hit it was unseen (under a body, an
        arm): one that left its rest before ``mv.ball`` moved, was first seen moving
        again after, and whose straight way from its anchor to where it was first seen
        passes within two radii of ``mv.ball`` (it reached it on the way; the struck
        ball leaves away from it).  (t, other, ``UNSEEN_STRIKER_CONF``) or None; the
        striker's centre at the hit is kept in ``self._hit_at``."""
        R = self.R
        a0 = mv.anchor0
        if a0 is None or not mv.pieces:
            return None
        t_mv = mv.pieces[0].t0
        v_mv = mv.pieces[0].at(mv.pieces[0].t0) - a0
        for other, since in moving_since.items():
            if other == mv.ball or since > t_mv:
                continue
            for om in self.data[other].moves:
                if om.anchor0 is None or om.t_rest0 is None or not om.pieces:
                    continue
                if not (om.t_rest0 < mv.t_start and om.pieces[0].t0 >= t_mv):
                    continue  # seen on its way when the ball set off: the usual search
                if om.pieces[0].t0 - om.t_rest0 > UNSEEN_STRIKER_MAX_S:
                    continue
                b1 = om.pieces[0].at(om.pieces[0].t0)
                way = b1 - om.anchor0
                ln = float(np.linalg.norm(way))
                if ln < 2 * R:
                    continue
                u = way / ln
                along = float((a0 - om.anchor0) @ u)
                off = abs(float((a0 - om.anchor0) @ np.array([-u[1], u[0]])))
                c_hit = None
                if off <= 2 * R:
                    s_hit = along - math.sqrt(4 * R * R - off * off)
                    if 0.0 <= s_hit <= ln:
                        c_hit = om.anchor0 + s_hit * u
                if c_hit is None and om.way_unseen:
                    # the hit bent its way: no straight line from its anchor to where
                    # it was first seen (a struck ball set off between two frames
                    # while the striker rose from under the cue: dev fp-jump/1659)
                    got = self._momentum_way(om, mv)
                    c_hit = None if got is None else got[0]
                if c_hit is None or _cos(v_mv, a0 - c_hit) < COLLISION_DV_COS:
                    continue
                self._hit_at[id(mv)] = c_hit
                return max(mv.t_start, om.t_rest0), other, UNSEEN_STRIKER_CONF
        return None

    # -- putting it together ------------------------------------------------
    def _assemble(self) -> list[Event]:
        R = self.R
        moves = sorted(
            (mv for bd in self.data.values() for mv in bd.moves), key=lambda m: m.t_start
        )
        # initial table: balls at rest at the start
        t_first = float(self.T[0])
        init: dict[str, list[float]] = {}
        hidden0 = self.frames[0].hidden
        for b, bd in self.data.items():
            first_rest = bd.rests and (not bd.moves or bd.rests[0].t0 <= bd.moves[0].t_start)
            # seen at rest at the start, or covered at the start and on the table all along
            if first_rest and (bd.rests[0].t0 <= t_first + 0.5 or b in hidden0):
                init[b] = _r(bd.rests[0].anchor)
        cands: list[_Cand] = []
        # shots: a move from a table at rest starts one; moves that start while
        # something moves belong to it; it ends when everything is at rest again
        shots: list[dict] = []
        cur: dict | None = None
        for mv in moves:
            if mv.anchor0 is None:
                continue  # appeared moving (placed by a rolling hand?), handled below
            speed0 = _start_speed(mv)
            if cur is not None and mv.t_start <= cur["t_end"] + 0.5 * self.dt:
                if self._struck_while_moving(mv, cur, speed0):
                    # GR-15.2: a stroke before the table came to rest ends the running one
                    cur["cut_at"] = mv.t_start
                    cur = {
                        "moves": [mv],
                        "t_start": mv.t_start,
                        "t_end": max(cur["t_end"], mv.t_end),
                    }
                    shots.append(cur)
                    continue
                cur["moves"].append(mv)
                cur["t_end"] = max(cur["t_end"], mv.t_end)
                continue
            if (
                cur is not None
                and mv.t_start <= cur["t_end"] + CREEP_MERGE_S
                and (
                    any(m.ball == mv.ball for m in cur["moves"])
                    or self._pushed_at_end(mv, cur["moves"])
                )
                # slow, or (a speed fitted to a few samples of a slow push overshoots:
                # 2900-2999 fp-pots/2972, a yellow pushed 13 mm at 50 mm/s read at 220
                # mm/s as a stroke of its own) moved less than a ball's width
                and (speed0 < 3 * STROKE_MIN_SPEED_MM_S or _path_len(mv) < 2 * R)
            ):
                cur["moves"].append(mv)
                cur["t_end"] = max(cur["t_end"], mv.t_end)
                continue
            if speed0 < STROKE_MIN_SPEED_MM_S and _path_len(mv) < 2 * R:
                mv.shot = -2  # a nudge between strokes
                continue
            cur = {"moves": [mv], "t_start": mv.t_start, "t_end": mv.t_end}
            shots.append(cur)
        for k, s in enumerate(shots):
            for mv in s["moves"]:
                mv.shot = k
        for s in shots:
            cands += self._shot_events(s)
        hand = self._hand_events(init, shots)
        cands = self._struck_into_pockets(self._rattled_out(cands, hand, shots))
        # the stream: table_state, then everything in time order (clamped into place)
        events = [make("table_state", t_first, int(self.F[0]), 1.0, game=self.game, positions=init)]
        cands.sort(key=lambda c: (c.t, _ORDER.get(c.type, 5)))
        for c in cands:
            data = dict(c.data)
            conf = float(np.clip(c.conf, 0.0, 1.0))
            if conf < LOW_CONFIDENCE:
                data["uncertain"] = True
            events.append(make(c.type, c.t, self._frame_of(c.t), round(conf, 3), **data))
        return take_up(self._consistent(events), self.profile, self.game)

    def _pushed_at_end(self, mv: Move, moves: list[Move]) -> bool:
        """``mv`` set off (slowly, after the stroke seemed over) from where a ball of that
        stroke came to rest against it (anchors within two radii + ``CLUSTER_GAP_MM``):
        that ball rolled into it and stopped there; a slow ball pushed is seen leaving
        its rest only frames later (5 mm at 60 mm/s: 80 ms; dev fp-pots/1340 at 60
        fps, a 7 crawling into a 6 read as a new stroke of the 6)."""
        reach = 2 * self.R + CLUSTER_GAP_MM
        return any(
            m.end == "rest"
            and m.anchor1 is not None
            and float(np.linalg.norm(m.anchor1 - mv.anchor0)) <= reach
            for m in moves
        )

    def _consistent(self, events: list[Event]) -> list[Event]:
        """Make the stream one the rules accept whatever the tracker gave (a ball that
        shows up out of nowhere, one that vanished without a pocket): a ball the stream
        has not put on the table is placed (confidence 0.3, uncertain) before the stroke
        it first appears in; a ball on the table missing from a ``shot_end`` keeps its
        last known position there; a ball the running stroke pocketed is not listed
        at its end; a new ball put on another one is a tracker ghost, left out."""
        on: dict[str, list[float]] = {}
        last_pos: dict[str, list[float]] = {}
        out: list[Event] = []
        stroke_at: int | None = None  # index in out of the running stroke's shot_start
        gone: set[str] = set()  # balls the running stroke took off the table
        potted: set[str] = set()  # balls pocketed and not put back by a hand since

        def ghost(b: str, pos) -> bool:
            """A ball put where another one stands (centres closer than a radius): a
            second id the tracker gave one ball, not a ball."""
            return any(c != b and math.dist(p, pos) < self.R for c, p in on.items())

        def place(b: str, pos, at: int | None) -> None:
            pos = list(pos) if pos is not None else last_pos.get(b, [self.L / 2, self.W / 2])
            if at is None or at >= len(out):
                t = out[-1].t if out else float(self.T[0])
                ev = make("ball_placed", t, self._frame_of(t), 0.3, ball=b, pos=pos, uncertain=True)
                out.append(ev)
            else:
                t = out[at].t
                ev = make("ball_placed", t, self._frame_of(t), 0.3, ball=b, pos=pos, uncertain=True)
                out.insert(at, ev)
            on[b] = pos

        def need(b: str, pos=None) -> None:
            nonlocal stroke_at
            if b not in on:
                place(b, pos, stroke_at)
                if stroke_at is not None:
                    stroke_at += 1

        ghosts: set[str] = set()  # ids the tracker reused for something that is no ball
        skipping = False  # inside a stroke a ghost started: its events are dropped
        prev: tuple[int, set[str]] | None = None  # the last stroke's start index and gone

        def is_ghost(b) -> bool:
            """A pocketed ball back in play with no hand seen putting it back (or an id
            already found to be a ghost): the tracker gave a pocketed ball's id to
            something else (an arm, a cue tip, a reflection)."""
            if b in ghosts or (b not in on and b in potted):
                ghosts.add(b)
                return True
            return False

        for e in events:
            typ = e.type
            if typ == "table_state":
                on = {b: list(v) for b, v in e["positions"].items()}
                last_pos.update(on)
                out.append(e)
                continue
            if skipping:
                skipping = typ != "shot_end"
                continue
            balls = [e.get(k) for k in ("cue_ball", "ball", "a", "b") if e.get(k) is not None]
            if typ == "ball_placed":
                b = e["ball"]
                real = e.confidence >= LOW_CONFIDENCE and not ghost(b, e["pos"])
                if b in ghosts and real:
                    ghosts.discard(b)  # a hand seen putting it back: a ball again
            if typ != "ball_placed" and any(is_ghost(b) for b in balls):
                if typ != "shot_start":
                    continue  # a ghost's contact, cushion, pot...: not a ball's
                cut = out[-1] if out and prev is not None else None
                if cut is not None and cut.type == "shot_end" and cut.get("at_rest") is False:
                    out.pop()  # the ghost's "stroke" cut the last one short: it runs on
                    stroke_at, gone = prev[0], prev[1]
                else:
                    skipping = True  # a stroke of a ghost alone: dropped to its end
                continue
            if typ == "ball_placed" and e["ball"] in ghosts:
                continue
            if typ == "shot_start":
                if stroke_at is None:
                    stroke_at = len(out)
                need(e["cue_ball"])
            elif typ == "collision":
                need(e["a"], e.get("pos"))
                need(e["b"], e.get("pos"))
            elif typ in ("cushion", "line_cross", "bounce_out", "hang", "off_table", "pocket"):
                need(e["ball"], e.get("pos"))
                if typ in ("off_table", "pocket"):
                    on.pop(e["ball"], None)
                    gone.add(e["ball"])
                    if typ == "pocket":
                        potted.add(e["ball"])
            elif typ == "hang_fall":
                need(e["ball"])
                on.pop(e["ball"], None)
                gone.add(e["ball"])
                potted.add(e["ball"])
            elif typ == "ball_moved":
                need(e["ball"], e.get("pos"))
                on[e["ball"]] = list(e["pos"])
            elif typ == "ball_placed":
                b = e["ball"]
                if b in on and math.dist(on[b], e["pos"]) <= 2 * START_MM:
                    continue  # already put there (placed before the stroke it showed up in)
                if b not in on and ghost(b, e["pos"]):
                    continue
                on[b] = list(e["pos"])
                potted.discard(b)
            elif typ == "ball_removed":
                if e["ball"] not in on:
                    continue  # never on the table as far as this stream goes
                on.pop(e["ball"], None)
            elif typ == "shot_end":
                pos = dict(e["positions"])
                for b in list(pos):
                    if b in gone or (b not in on and (is_ghost(b) or ghost(b, pos[b]))):
                        # the stroke pocketed it; the tracker still lists it (or lists an
                        # earlier pocketed ball again, unseen by hand); a second id on a ball
                        del pos[b]
                    else:
                        need(b, pos[b])
                gone_before_end = set(gone)
                gone.clear()
                for b, p in on.items():
                    pos.setdefault(b, p)
                for b in list(pos):
                    if b not in on:
                        del pos[b]
                on.update({b: list(v) for b, v in pos.items()})
                last_pos.update(on)
                e = Event(e.type, e.t, e.frame, e.confidence, {**e.data, "positions": pos})
                if stroke_at is not None:
                    prev = (stroke_at, set(gone_before_end))
                stroke_at = None
            for k in ("pos",):
                if k in e.data and e.get("ball") in on:
                    last_pos[e["ball"]] = list(e[k])
            out.append(e)
        return out

    def _shot_events(self, s: dict) -> list[_Cand]:
        out: list[_Cand] = []
        mvs: list[Move] = self._cue_first(sorted(s["moves"], key=lambda m: m.t_start))
        first = mvs[0]
        t0 = first.t_start
        starts = [first]
        # a lag: a second ball set moving at once, far from the first, hit by nothing
        for mv in mvs[1:]:
            if mv.t_start - t0 > LAG_WINDOW_S:
                break
            if self._lag_pair(first, mv):
                starts.append(mv)
        if len(starts) != 2:
            starts = [first]
        lag = len(starts) == 2
        for mv in starts:
            d = {"cue_ball": mv.ball}
            if lag:
                d["lag"] = True
            out.append(_Cand("shot_start", mv.t_start, 0.95 if not lag else 0.7, d))
        moving_since: dict[str, float] = {mv.ball: mv.t_start for mv in starts}
        hits: dict[str, tuple[float, str, float] | None] = {}
        open_hits: dict[int, tuple[float, str, float] | None] = {}
        for mv in mvs:
            if mv in starts:
                continue
            h = hits[id(mv)] = self._striker(mv, moving_since)
            if h is not None and not self._moving_at(h[1], h[0], 0):
                # a ball at rest found as the striker (it lay against this one; on the
                # open table only: a rack's replay keeps its own striker)
                open_hits[id(mv)] = self._resting_striker(mv, h, moving_since)
            moving_since.setdefault(mv.ball, mv.t_start)
        clusters = self._clusters([mv for mv in mvs if mv not in starts])
        in_cluster = {id(mv) for cl in clusters for mv in cl}
        t_waves = [min(x.t_start for x in cl) for cl in clusters]

        def in_wave(t: float) -> bool:
            # a cluster's wave (a rack broken): a rack ball lying against another pushes
            # it, and a slow one's own start comes frames late
            lim = CLUSTER_DT_FRAMES * self.dt
            return any(t_k - lim <= t <= t_k + CLUSTER_QUIET_S for t_k in t_waves)

        for mv in mvs:
            h = hits.get(id(mv))
            if id(mv) in open_hits and id(mv) not in in_cluster and not in_wave(h[0]):
                hits[id(mv)] = open_hits[id(mv)]
        # a ball set off through balls at rest that touch it (a line of frozen balls:
        # the wave passes through and the middle ones barely move)
        chain_links: dict[int, list[_Cand]] = {}
        for mv in mvs:
            if mv in starts or id(mv) in in_cluster or in_wave(mv.t_start):
                continue
            ch = self._frozen_chain(mv, hits.get(id(mv)), mvs, hits)
            if ch is not None:
                hits[id(mv)], chain_links[id(mv)] = ch
        # a ball lying against a cluster that set off after it (slowly) went with it
        late = self._late_leavers(clusters, [mv for mv in mvs if mv not in starts])
        for b, ks in self._rest_neighbours(clusters).items():
            late.setdefault(b, set()).update(ks)
        t_cl = [min(x.t_start for x in cl) for cl in clusters]
        lim_cl = CLUSTER_DT_FRAMES * self.dt
        broken = BrokenClusters.build(
            [[m.ball for m in cl] for cl in clusters],
            t_cl,
            [[h[1] for m in cl if (h := hits.get(id(m))) is not None] for cl in clusters],
            late,
            own_s=lim_cl,
            quiet_s=CLUSTER_QUIET_S,
            parted_mm=CLUSTER_PARTED_MM,
            touch_parted_mm=PAIR_PARTED_MM,
            max_gap=self._max_pair_gap,
        )

        waves: list[_Wave] = []  # replayed waves
        for k, cl in enumerate(clusters):
            # (a cluster of late leavers: its pairs with the earlier one's balls were
            # that one's wave)
            got = [
                c
                for c in self._cluster_contacts(cl, hits)
                if not broken.broke_with(c.data["a"], c.data["b"], c.t, t_cl[k] - lim_cl)
                and not self._left_member_in_wave(c, cl, in_wave)
            ]
            inferred = [c for c in got if c.data.get("inferred")]
            if inferred:
                waves.append(self._wave_start(inferred, cl))
            out += got
        seen_from = len(out)  # the contacts seen on the open table from here
        for mv in mvs:
            if mv in starts or id(mv) in in_cluster:
                continue
            hit = hits.get(id(mv))
            if hit is not None:
                t, other, conf = hit
                if broken.jammed(other, mv.ball, t):
                    continue  # a rack ball jammed a moment, moving on: not a new contact
                if self._left_it_in_wave(mv, other, t, in_wave):
                    continue  # pushed in the wave as the other left: the replay's pair
                t = max(t, t0)
                po = self._hit_at.get(id(mv))
                if po is None:
                    po = self.pos_at(other, t)
                mid = _r(0.5 * (po + mv.anchor0)) if po is not None else _r(mv.anchor0)
                out.append(_Cand("collision", t, conf, {"a": other, "b": mv.ball, "pos": mid}))
                out += chain_links.get(id(mv), [])
                if po is not None:
                    out += self._struck_into_cushion(mv, po, t)
            elif not self._roll_tail(mv):
                a0 = mv.anchor0 if mv.anchor0 is not None else mv.pieces[0].at(mv.pieces[0].t0)
                out.append(_Cand("ball_moved", mv.t_start, 0.5, {"ball": mv.ball, "pos": _r(a0)}))
        # breaks inside each move (balls of a cluster just broken up separate slowly
        # side by side: bends between them right after are not new contacts)
        jammed: list[_Cand] = []
        for mv in mvs:
            solid = [pc for pc in mv.pieces if pc.n >= 2] or mv.pieces
            head = mv.pieces[0] if _bent_head(mv.pieces[0]) else None
            if head is None and mv.way_unseen and mv.pieces[0].n == 1:
                # a first sample alone after an unseen way (the cue hid the strike): the
                # next piece, followed back to it, meets what bent its way out (held-out
                # fp-rally/3840: 8 into the foot cushion 6 ms after that sample)
                head = mv.pieces[0]
            if head is not None and solid[0] is not head:
                solid = [head] + solid  # the bend after it: a cushion (dev fb-rally/1451)
            bent_at: set[int] = set()  # breaks where a cushion was found
            for k, (p, q) in enumerate(zip(solid, solid[1:], strict=False)):
                for t, typ, fields, conf in self._contacts_between(mv.ball, p, q):
                    if typ == "cushion":
                        bent_at.add(k)
                    if typ == "collision" and broken.jammed(fields["a"], fields["b"], t):
                        jammed.append(_Cand(typ, max(t, t0), conf, fields))
                        continue
                    if typ == "collision" and p is head:
                        # its struck balls found it (``_striker``); its first sample may
                        # lie past them (dev fp-rally/1426: two hits before it)
                        continue
                    if typ == "cushion":
                        t, fields = self._touch_time(mv, t, fields)
                    out.append(_Cand(typ, max(t, t0), conf, fields))
            out += self._across_two_samples(mv, solid, bent_at)
            out += [c for c in self._cushion_reversals(mv) if c.t >= t0]
            # a ball that creeps into a cushion and stops against it touched it
            last = solid[-1]
            v_end = last.vel(last.t1)
            if mv.end == "rest":
                hit = self._object_near(mv.ball, mv.t_end, mv.anchor1, False, True, None)
                if hit is None:
                    hit = self._crept_to_nose(mv, v_end) or self._stopped_in_jaws(mv, last)
                toward = (
                    hit is not None
                    and hit[0] == "cushion"
                    and (
                        self._object_near(mv.ball, mv.t_end, mv.anchor1, True, True, v_end)
                        is not None
                        or float(np.linalg.norm(v_end)) < 20.0
                    )
                )
                if toward:
                    bd = self.data[mv.ball]
                    near = [
                        float(t)
                        for t, xy in zip(bd.ts[mv.idx], bd.xy[mv.idx], strict=False)
                        if np.linalg.norm(xy - mv.anchor1) <= REST_SPREAD_MM
                    ]
                    t_touch = near[0] if near else mv.t_end
                    # timed by the gap's V; its rest's first samples hold the rise
                    ext = self._with_rest_head(mv)
                    t_touch, fields = self._touch_time(ext, t_touch, hit[1])
                    out.append(_Cand("cushion", t_touch, 0.5, fields))
                else:
                    out += self._bounced_to_rest(mv, out)
        out[seen_from:] = [self._pair_retimed(c, t0) for c in out[seen_from:]]
        out += self._pair_reversals(mvs, s["t_end"], out, broken.jammed)
        out += self._rest_nudges(mvs, s["t_end"], out, broken.jammed)
        cl_starts = broken.break_times()
        out += [
            self._pair_retimed(c, t0)
            for c in jammed
            if self._struck_anew(c, out, cl_starts, lim_cl)
        ]
        out[seen_from:] = [self._not_before_wave(c, waves) for c in out[seen_from:]]
        out = self._jaw_finds_before_touch(out)
        out = _dedupe(
            out,
            max(1.6 * self.dt, DEDUPE_MIN_S),
            DEDUPE_SAME_SPOT_FRAMES * self.dt,
            self.profile.ball_radius_mm,
            self._met_anew,
        )
        out = self._unparted_repeats(out)
        out = self._pushed_creeps(out, mvs)
        out = self._unleft_cushion_repeats(out)
        out = self._nose_or_rounding(out)
        # a ball touching a jaw side again within JAW_RETOUCH_S: its fall into the
        # pocket bent its way there (a rattle goes from one side to the other)
        jaw_seen: dict = {}
        kept = []
        for c in out:
            if c.type == "cushion" and c.data["cushion"].startswith("jaw:"):
                k = (c.data["ball"], c.data["cushion"])
                nrm = self.shape.jaw_normal(np.asarray(c.data["pos"], dtype=float), k[1])
                prev = jaw_seen.get(k)
                if (
                    prev is not None
                    and c.t - prev[0] <= JAW_RETOUCH_S
                    and (
                        float(np.dot(nrm, prev[1])) >= JAW_SAME_SIDE_COS
                        or self._sinking(c.data["ball"], c.t)
                    )
                ):
                    continue
                jaw_seen[k] = (c.t, nrm)
            kept.append(c)
        out = kept
        # endings: pots, off table, hangs, bounce-outs, line crosses
        ended = s["t_end"]
        for mv in mvs:
            out += self._mouth_events(mv)
            out += self._line_events(mv)
        out += self._jaws_before_pots(out)
        gone = {c.data["ball"] for c in out if c.type in ("pocket", "off_table")}
        cut = s.get("cut_at")
        if cut is not None:
            # the next stroke came before the rest: end this one where the balls are
            gone = {c.data["ball"] for c in out if c.type in ("pocket", "off_table") and c.t < cut}
            positions = {}
            for b in self.data:
                p = self.pos_at(b, cut)
                if b not in gone and p is not None:
                    positions[b] = _r(p)
            t_end = cut - 1e-4
            out.append(_Cand("shot_end", t_end, 0.8, {"positions": positions, "at_rest": False}))
            s["t_end_event"] = t_end
            s["positions"] = positions
            return out
        positions = {}
        for b, bd in self.data.items():
            if b in gone:
                continue
            p = self._rest_after(bd, ended)
            if p is not None:
                positions[b] = _r(p)
        t_end = max([ended] + [c.t for c in out])
        out.append(_Cand("shot_end", t_end, 0.9, {"positions": positions}))
        s["t_end_event"] = t_end
        s["positions"] = positions
        return out

    @staticmethod
    def _pushed_creeps(cands: list[_Cand], mvs: list[Move]) -> list[_Cand]:
        """``cands`` without a ``ball_moved`` of a ball found in a collision less than
        ``CREEP_MERGE_S`` before, whose move sets off slower than ``3 *
        STROKE_MIN_SPEED_MM_S``: a ball pushed slowly (a rack's remains nudged by the
        wave) creeps off by less than ``START_MM`` at first, inside its rest, and its
        move starts only when the creep has added up (held-out fp-multi/2239 at 60 fps:
        ball 2, pushed at 2.99 s, crept 5 mm and was flagged at 3.42 s).  The contact
        moved it, not a cue or a sleeve."""
        slow = {
            (mv.ball, mv.t_start)
            for mv in mvs
            if mv.pieces
            and float(np.linalg.norm(mv.pieces[0].vel(mv.pieces[0].t0))) < 3 * STROKE_MIN_SPEED_MM_S
        }
        hit_at: dict[str, list[float]] = {}
        for c in cands:
            if c.type == "collision":
                hit_at.setdefault(c.data["a"], []).append(c.t)
                hit_at.setdefault(c.data["b"], []).append(c.t)
        return [
            c
            for c in cands
            if not (
                c.type == "ball_moved"
                and (c.data["ball"], c.t) in slow
                and any(0.0 < c.t - t <= CREEP_MERGE_S for t in hit_at.get(c.data["ball"], ()))
            )
        ]

    @staticmethod
    def _struck_anew(
        c: _Cand, found: list[_Cand], cl_starts: dict[str, list[float]], lim: float
    ) -> bool:
        """A contact between two balls of one broken cluster (read as the wave's jam)
        where one of them was struck, after the break and before it, by a ball that
        had parted from the cluster (a contact seen on the open table): new energy, a
        new contact (fp-multi/1950 at 60 fps: 13 back off the foot cushion into 14,
        14 on into 6 a frame later, 0.33 s after the break)."""
        a, b = c.data["a"], c.data["b"]
        # each ball's last cluster broken by the contact (``cl_starts``: ball -> when
        # each cluster it was in broke)
        starts = [
            max(ts)
            for ts in ([t for t in cl_starts.get(x, ()) if t <= c.t + lim] for x in (a, b))
            if ts
        ]
        if not starts:
            return False
        since = min(starts)
        for o in found:
            if o.type != "collision" or o.data.get("inferred"):
                continue
            pair = {o.data["a"], o.data["b"]}
            if pair != {a, b} and pair & {a, b} and since + lim < o.t < c.t:
                return True
        return False

    def _cushion_reversals(self, mv: Move) -> list[_Cand]:
        """Cushion contacts seen in the gap between the ball and each contact line.

        A touch reverses the velocity across the line: the gap falls to zero and rises
        again.  A line is fitted to the gap on each side of its smallest sample (the
        vertex put on either side of it, the better fit kept); where the falling and
        rising lines meet within ``REVERSAL_TOL_MM`` of a zero gap the ball touched
        that line.  This finds the contacts no path break shows: a slow ball's bend
        fits one piece of constant acceleration, and near a corner the break is put
        down to the first line the extrapolated path reaches."""
        bd = self.data[mv.ball]
        idx = np.asarray(mv.idx)
        if len(idx) < 3:
            return []
        ts, xy = bd.ts[idx], bd.xy[idx]
        g, R = self.geom, self.R
        rel = xy[:, None, :] - g.seg_a[None]
        along = np.einsum("nsk,sk->ns", rel, g.seg_d)
        gap_s = np.einsum("nsk,sk->ns", rel, g.seg_n) - R
        # the line beyond its ends too (a ball comes from the corner past the end):
        # the contact itself must fall on the segment
        reach = 2 * R
        gap_s = np.where((along >= -reach) & (along <= g.seg_len + reach), gap_s, np.inf)
        rc = xy[:, None, :] - g.circ_c[None]
        gap_c = np.hypot(rc[..., 0], rc[..., 1]) - g.circ_r - R
        gaps = np.concatenate([gap_s, gap_c], axis=1)
        names = g.seg_name + g.circ_name
        out: list[_Cand] = []
        on_nose: list[bool] = []  # found on a nose's line, clear of its ends
        for j in np.nonzero(np.min(gaps, axis=0) <= REVERSAL_FAST_NEAR_MM)[0]:
            col = gaps[:, j]
            for m in gap_series.run_minima(col, REVERSAL_NEAR_MM) + gap_series.fast_minima(col):
                hit = gap_series.gap_vertex(ts, col, m, snap_frac=REVERSAL_SNAP_FRAC)
                if hit is None:
                    hit = gap_series.gap_vertex(
                        ts, col, m, snap_frac=REVERSAL_SNAP_FRAC, side=REVERSAL_SIDE_SAMPLES_SLOW
                    )
                if hit is not None and j >= len(g.seg_name):
                    # the gap to a point falls and rises as a ball merely passes it:
                    # a touch turns the velocity's own component along the normal
                    t_c, _, a, b = hit
                    cc = g.circ_c[j - len(g.seg_name)]
                    c_at = xy[m] - cc
                    nrm = c_at / max(float(np.linalg.norm(c_at)), 1e-9)
                    va = np.polyfit(ts[a], xy[a], 1)[0] @ nrm
                    vb = np.polyfit(ts[b], xy[b], 1)[0] @ nrm
                    if va > -REVERSAL_MIN_MM_S or vb < REVERSAL_MIN_MM_S:
                        hit = None
                if hit is not None:
                    t_c, gap0 = hit[:2]
                    f = float(np.clip(np.interp(t_c, ts, np.arange(len(ts))), 0, len(ts) - 1))
                    i0 = int(min(f, len(ts) - 2))
                    c = xy[i0] + (f - i0) * (xy[i0 + 1] - xy[i0])
                    if j < len(g.seg_name):
                        a_c = float(np.dot(c - g.seg_a[j], g.seg_d[j]))
                        if not -REVERSAL_TOL_MM <= a_c <= g.seg_len[j] + REVERSAL_TOL_MM:
                            continue
                    pk = self.shape.in_mouth_zone(c)
                    if pk is not None and self.shape.mouth_depth(c, pk) > REVERSAL_MAX_DEPTH_R * R:
                        continue  # falling into the pocket: its last samples tell nothing
                    name = names[j]
                    if j >= len(g.seg_name):
                        name = self.shape.nose_under(c) or name
                    conf = 0.9 if not name.startswith("jaw:") else 0.8
                    fields = {"ball": mv.ball, "cushion": name, "pos": _r(c)}
                    out.append(_Cand("cushion", t_c, conf, fields, abs(gap0)))
                    # on a nose, clear of its ends (there a jaw's touch is as near:
                    # `_nose_or_rounding` makes one of the two, by their times)
                    on_nose.append(
                        j < len(g.seg_name)
                        and NOSE_JAW_SAME_SPOT_MM <= a_c <= g.seg_len[j] - NOSE_JAW_SAME_SPOT_MM
                    )
        # a ball near a corner is near two lines at once: one touch, the closest line
        order = sorted(range(len(out)), key=lambda i: out[i].gap)
        kept: list[_Cand] = []
        kept_t: list[float] = []  # (the times as found, before any is timed again)
        for i in order:
            c = out[i]
            if all(abs(c.t - t) > self.dt for t in kept_t):
                kept_t.append(c.t)
                kept.append(self._reversal_retimed(mv, c) if on_nose[i] else c)
        return sorted(kept, key=lambda c: c.t)

    def _with_rest_head(self, mv: Move) -> Move:
        """A move that ended at rest with its rest's samples of the next
        ``TOUCH_FIT_SPAN_S`` added: a ball that bounced off a nose by a millimetre or
        two is 'at rest' (within the rest's spread) before its touch, and its rise off
        the nose lies in those samples."""
        ts = self.data[mv.ball].ts
        t_last = ts[int(mv.idx[-1])]
        more = np.nonzero((ts > t_last) & (ts <= t_last + TOUCH_FIT_SPAN_S))[0]
        return replace(mv, idx=list(mv.idx) + [int(i) for i in more])

    def _reversal_retimed(self, mv: Move, c: _Cand) -> _Cand:
        """A nose touch found by the gap's reversal, timed by the V over the whole run
        of samples near the nose (``_touch_time``): a glancing touch turns the gap so
        little that its smallest sample, and the lines fitted around it, fall frames
        late (dev fp-rally/2633 ball 11 at 60 fps, 6.5 frames)."""
        t_v, fields = self._touch_time(mv, c.t, c.data)
        return _Cand("cushion", t_v, c.conf, fields, c.gap)

    def _pair_reversals(self, mvs: list[Move], t_end: float, found: list[_Cand], soon) -> list:
        """Collisions seen in the gap between two balls falling to zero and rising again
        with their relative velocity along the line of centres turned from closing to
        parting (a ball passing another keeps it: no contact).  This finds the hits no
        path break shows: a slow or glancing hit whose bend fits one piece, two balls
        both moving."""
        R = self.R
        t_lo, t_hi = min(m.t_start for m in mvs) - self.dt, t_end + self.dt
        moving = {m.ball for m in mvs}
        balls = [b for b, bd in self.data.items() if len(bd.ts)]
        win: dict[str, np.ndarray] = {}
        for b in balls:
            bd = self.data[b]
            win[b] = np.nonzero((bd.ts >= t_lo) & (bd.ts <= t_hi))[0]
        out: list[_Cand] = []
        for i, a in enumerate(balls):
            for b in balls[i + 1 :]:
                if a not in moving and b not in moving:
                    continue
                da, db = self.data[a], self.data[b]
                _, ia, ib = np.intersect1d(
                    da.frames[win[a]], db.frames[win[b]], assume_unique=True, return_indices=True
                )
                if len(ia) < 4:
                    continue
                ia, ib = win[a][ia], win[b][ib]
                ts = da.ts[ia]
                rel = db.xy[ib] - da.xy[ia]
                col = np.hypot(rel[:, 0], rel[:, 1]) - 2 * R
                if col.min() > PAIR_NEAR_MM:
                    continue
                for m in gap_series.run_dips(
                    ts, col, PAIR_NEAR_MM, PAIR_DIP_RISE_MM, PAIR_DIP_SMOOTH_S
                ):
                    nrm = rel[m] / max(float(np.linalg.norm(rel[m])), 1e-9)
                    hit = None
                    for side in PAIR_SIDE_SAMPLES:
                        hit = gap_series.gap_vertex(
                            ts, col, m, PAIR_TOL_MM, PAIR_SNAP_FRAC, skip_closest=True, side=side
                        )
                        if hit is not None and not self._pair_turned(ts, rel, hit, nrm, side):
                            hit = None
                        if hit is not None:
                            break
                    if hit is None or self._wide_fit_not_closing(ts, col, rel, m, nrm, side):
                        continue
                    t_c = hit[0]
                    if not (self._moving_at(a, t_c) or self._moving_at(b, t_c)):
                        continue  # two balls at rest side by side: jitter
                    if self._rests_through(a, t_c) or self._rests_through(b, t_c):
                        continue  # a ball hit moves: one at rest long after was passed close by
                    if soon(a, b, t_c) or any(
                        c.type == "collision"
                        and {c.data["a"], c.data["b"]} == {a, b}
                        and abs(c.t - t_c) <= PAIR_KNOWN_FRAMES * self.dt
                        for c in found
                    ):
                        continue
                    pa = self.pos_at(a, t_c)
                    pb = self.pos_at(b, t_c)
                    if pa is None or pb is None:
                        continue
                    first, second = (a, b) if a in moving else (b, a)
                    fields = {"a": first, "b": second, "pos": _r(0.5 * (pa + pb))}
                    out.append(_Cand("collision", t_c, 0.75, fields))
        return out

    @staticmethod
    def _pair_turned(ts: np.ndarray, rel: np.ndarray, hit, nrm: np.ndarray, side: int) -> bool:
        """Whether two balls' relative velocity along their line of centres ``nrm``,
        fitted over the samples either side of the gap's vertex ``hit`` (from
        ``gap_series.gap_vertex`` over ``side`` samples a side), turned from closing to
        parting: closing at ``REVERSAL_MIN_MM_S`` or more, then parting as fast, or parting at
        ``PAIR_FIT_MIN_RISE_MM_S`` or more after a turn of ``PAIR_TURN_MM_S`` (a hit whose
        balls went on nearly together).  Over the wider fit the turn must also reach
        ``PAIR_SLOW_TURN_MM_S``: it is looked at where three samples a side showed none,
        and two balls rolling by each other close show a vertex too."""
        v_in, v_out = gap_series.along(ts, rel, hit[2], nrm), gap_series.along(ts, rel, hit[3], nrm)
        if v_in > -REVERSAL_MIN_MM_S:
            return False
        if (
            v_out < REVERSAL_MIN_MM_S
            and not (v_out >= PAIR_FIT_MIN_RISE_MM_S and v_out - v_in >= PAIR_TURN_MM_S)
            and not EventExtractor._pair_glanced(ts, rel, hit, nrm, side, v_out - v_in)
        ):
            return False
        return side == PAIR_SIDE_SAMPLES[0] or v_out - v_in >= PAIR_SLOW_TURN_MM_S

    def _wide_fit_not_closing(
        self, ts: np.ndarray, col: np.ndarray, rel: np.ndarray, m: int, nrm: np.ndarray, side: int
    ) -> bool:
        """Whether a reversal of two balls' gap seen over the narrow fit (``side``, the
        first of ``PAIR_SIDE_SAMPLES``) around its smallest sample ``m`` is noise: over
        the wider fit the two were not closing along their centres ``nrm`` at all.  Two
        balls rolling side by side a few mm apart jitter through a V of three samples a
        side (dev fp-rally/2786 at 60 fps: 10 and the yellow 5-10 mm apart for 0.15 s,
        closing at 100 mm/s over the three samples before, parting at 24 over the six)."""
        if side != PAIR_SIDE_SAMPLES[0]:
            return False
        wide = gap_series.gap_vertex(
            ts, col, m, PAIR_TOL_MM, PAIR_SNAP_FRAC, skip_closest=True, side=PAIR_SIDE_SAMPLES[1]
        )
        return wide is not None and gap_series.along(ts, rel, wide[2], nrm) >= 0.0

    @staticmethod
    def _pair_glanced(
        ts: np.ndarray, rel: np.ndarray, hit, nrm: np.ndarray, side: int, turn: float
    ) -> bool:
        """Whether two fast balls that glanced off each other, their relative velocity
        along the centres (``nrm``, read at the gap's smallest sample) turned by ``turn``
        over the wider fit, turned by ``PAIR_GLANCE_TURN_MM_S`` or more over both the
        wider and the narrower fit (``side`` samples a side, and the nearest
        ``PAIR_SIDE_SAMPLES[0]`` of them).  Their parting along ``nrm`` may read as
        still closing: they pass each other fast, and the smallest sample falls a
        fraction of a frame before the touch, so ``nrm`` lags the line of centres
        there by a few degrees.  Balls rolling by each other keep their velocities:
        no turn."""
        if side != PAIR_SIDE_SAMPLES[1] or turn < PAIR_GLANCE_TURN_MM_S:
            return False
        n = PAIR_SIDE_SAMPLES[0]
        near = gap_series.along(ts, rel, hit[3][:n], nrm) - gap_series.along(
            ts, rel, hit[2][-n:], nrm
        )
        return near >= PAIR_GLANCE_TURN_MM_S

    def _rest_nudges(self, mvs: list[Move], t_end: float, found: list[_Cand], soon) -> list:
        """Collisions seen in a ball at rest moved, not set moving: a glancing or slow
        hit that moves the struck ball 1.5-5 mm (under ``START_MM``, inside its rest)
        and bends the striker's path by too little to see.  A moving ball whose fitted
        path passes within two radii + ``NUDGE_TOL_MM`` of a ball at rest, whose rest
        (its mean before the pass vs after, as in ``_rests_through``) moved by
        ``NUDGE_MIN_MM`` or more away from the passer along their line of centres
        (cosine ``NUDGE_MIN_COS``), touched it where its way in first reaches two radii
        (else, a graze, at its closest approach); not a ball it lay against when it set
        off (a rack's balls parting slowly; the wave pushed it)."""
        R = self.R
        after_s = STRIKE_BEFORE_REST_S + STILL_AFTER_FRAMES * self.dt
        out: list[_Cand] = []
        for mv in mvs:
            bd = self.data[mv.ball]
            idx = np.asarray(mv.idx)
            ts, xy = bd.ts[idx], bd.xy[idx]
            for b, db in self.data.items():
                if b == mv.ball or not len(db.ts):
                    continue
                for r in db.rests:
                    if r.t1 < mv.t_start or r.t0 > min(mv.t_end, t_end):
                        continue
                    col = np.linalg.norm(xy - r.anchor, axis=1) - 2 * R
                    for m in gap_series.run_minima(col, PAIR_NEAR_MM):
                        t_m = float(ts[m])
                        k0 = m  # the run of samples near it
                        while k0 > 0 and col[k0 - 1] <= PAIR_NEAR_MM:
                            k0 -= 1
                        if k0 == 0:
                            continue  # they lay together when it set off: not a pass
                        # the passer's way in: a piece fitted back from its nearest
                        # sample (a long piece that a graze barely bent misses it by mm);
                        # when that one lies against the ball, from the run's first within
                        # NUDGE_TOL_MM of it (a slow push lies against the ball for frames
                        # after the touch, and a piece fitted back from the end of that is
                        # its way out, not in: dev fp-multi/2290 at 30 fps, 0.28 s early)
                        f = m
                        if col[m] <= 0.0:
                            f = k0 + int(np.argmax(col[k0 : m + 1] <= col[m] + NUDGE_TOL_MM))
                        pc = incoming_piece(bd, float(ts[f]))
                        if pc is None:
                            continue
                        # the touch: where that way first reaches two radii (a slow
                        # push: the gap stays near zero for frames), else (a graze)
                        # its closest approach
                        tt = np.linspace(float(ts[k0]) - self.dt, t_m + self.dt, 49)
                        g = np.array([np.linalg.norm(pc.at(float(t)) - r.anchor) for t in tt])
                        inside = np.flatnonzero(g <= 2 * R)
                        t_c = float(tt[inside[0] if len(inside) else int(np.argmin(g))])
                        c = pc.at(t_c)
                        if float(np.linalg.norm(c - r.anchor)) - 2 * R > NUDGE_TOL_MM:
                            continue
                        if not (r.t0 <= t_c - REST_WINDOW_S and r.t1 >= t_c + 2 * after_s):
                            continue  # not at rest long enough either side to tell
                        pre = db.xy[(db.ts >= t_c - REST_WINDOW_S) & (db.ts <= t_c - self.dt)]
                        post = db.xy[(db.ts >= t_c + after_s) & (db.ts <= t_c + 2 * after_s)]
                        if len(pre) < REST_MIN_SAMPLES or len(post) < REST_MIN_SAMPLES:
                            continue
                        shift = post.mean(axis=0) - pre.mean(axis=0)
                        if float(np.linalg.norm(shift)) < NUDGE_MIN_MM:
                            continue
                        if _cos(shift, r.anchor - c) < NUDGE_MIN_COS:
                            continue
                        if soon(mv.ball, b, t_c) or any(
                            c2.type == "collision"
                            and {c2.data["a"], c2.data["b"]} == {mv.ball, b}
                            and abs(c2.t - t_c) <= PAIR_KNOWN_FRAMES * self.dt
                            for c2 in found + out
                        ):
                            continue
                        fields = {"a": mv.ball, "b": b, "pos": _r(0.5 * (c + r.anchor))}
                        # (timed again from the pair's gap where it shows the touch)
                        tv = self._pair_touch_time(mv.ball, b, t_c)
                        out.append(_Cand("collision", t_c if tv is None else tv, 0.65, fields))
        return out

    def _wave_start(self, inferred: list[_Cand], cl: list[Move]) -> _Wave:
        """The wave of a replayed cluster ``cl`` from the replay's contacts ``inferred``.
        Its strikers: its balls still moving ``RACK_DEPART_BACK_S`` before the wave's
        first contact (a rack ball's start comes early by its noise, never by that
        much)."""
        balls = {m.ball for m in cl} | {x for c in inferred for x in (c.data["a"], c.data["b"])}
        t0 = min(c.t for c in inferred)
        strikers = {b for b in balls if self._moving_at(b, t0 - RACK_DEPART_BACK_S)}
        struck = [c.t for c in inferred if {c.data["a"], c.data["b"]} & strikers]
        t_rest = min((m.t_rest0 for m in cl if m.t_rest0 is not None), default=t0)
        pairs = {frozenset((c.data["a"], c.data["b"])): c.t for c in inferred}
        return _Wave(min(struck or [t0]), balls - strikers, strikers, t_rest, pairs)

    def _reaches(
        self,
        striker: str,
        ball: str,
        t_rest: float,
        t_hi: float,
        others: frozenset[str] | set[str] = frozenset(),
    ) -> bool:
        """``striker``'s incoming path (fitted back from its last sample before
        ``t_rest``) comes within two radii of ``ball``'s place at rest by ``t_hi``, and
        within two radii and the fit's slack (``FIT_TOL_MM``) of none of ``others`` at
        rest before that: it met that one first (held-out fp-multi/3939 at 30 fps, a
        break at 9.7 m/s: the path run on passed 2 by 3.9 mm beyond two radii, the
        physics' first contact, and reached 4 behind it; the bend's Y-4 was kept as a
        thin first hit the replay missed, and the first contact read 4)."""
        piece = incoming_piece(self.data[striker], t_rest)
        at = self.pos_at(ball, t_rest)
        if piece is None or at is None:
            return False
        tt = np.linspace(piece.t1, t_hi, 120)
        path = np.stack([piece.at(float(t)) for t in tt])
        near = np.nonzero(np.linalg.norm(path - at, axis=1) <= 2 * self.R)[0]
        if not len(near):
            return False
        before, lim = path[: near[0]], 2 * self.R + FIT_TOL_MM
        for o in others - {ball, striker}:
            po = self.pos_at(o, t_rest)
            if po is not None and np.any(np.linalg.norm(before - po, axis=1) <= lim):
                return False
        return True

    def _not_before_wave(self, c: _Cand, waves: list[_Wave]) -> _Cand:
        """A collision seen with a ball of a replayed cluster (a rack) before the replay's
        first contact, moved to just after it: the cluster lay at rest until its striker
        reached it, so the contact is one of its wave's.  A rack ball's start put early
        by its noise (its striker found then), or the striker's path bent by the wave
        and followed back past a rack ball, put it there -- before the cue ball's first
        contact (dev fp-multi/1338 at 60 fps: 6-3 and Y-1 found 5-10 ms before the
        wave's Y-6).  A contact of the striker with a ball its incoming path does reach
        stays: a thin first hit the replay missed (dev fp-multi/1355: Y-2, 1 ms before
        the replay's Y-4).  One the replay holds too is timed as the replay has it: the
        replay puts the striker's contacts on one clock, the seen one comes from the
        striker's bend, a few ms off (held-out fp-multi/3616 at 30 fps, a side break:
        Y met 4, then 7 0.4 ms later; the replay had Y-4 then Y-7, the bend put Y-7
        2.4 ms before the replay's Y-4, and the first contact read 7)."""
        if c.type != "collision" or c.data.get("inferred"):
            return c
        pair = {c.data["a"], c.data["b"]}
        for w in waves:
            if not pair & w.at_rest or c.t >= w.t_w:
                continue
            hitter = pair & w.strikers
            t_replay = w.pairs.get(frozenset(pair))
            if hitter and t_replay is not None:
                return _Cand(c.type, t_replay, c.conf, c.data, c.gap)
            if hitter and self._reaches(
                next(iter(hitter)),
                next(iter(pair & w.at_rest)),
                w.t_rest,
                w.t_w + self.dt,
                w.at_rest,
            ):
                continue
            return _Cand(c.type, w.t_w + WAVE_AFTER_S, c.conf, c.data, c.gap)
        return c

    def _unparted_repeats(self, cands: list[_Cand]) -> list[_Cand]:
        """One collision per touch: two balls found colliding again within
        ``PAIR_REPEAT_S`` whose gap (on the frames both are seen in between) never
        opened beyond ``PAIR_PARTED_MM`` did not part and meet again -- two rules found
        the one touch frames apart (the later one, a bend located late).  The earlier
        finding is kept.  Only for a pair that came together (its gap beyond
        ``PAIR_PARTED_MM`` within ``PAIR_FIT_SPAN_S`` before the earlier finding)."""
        out: list[_Cand] = []
        for c in sorted(cands, key=lambda c: c.t):
            if c.type == "collision":
                pair = {c.data["a"], c.data["b"]}
                o = next(
                    (
                        o
                        for o in reversed(out)
                        if o.type == "collision"
                        and {o.data["a"], o.data["b"]} == pair
                        and c.t - o.t <= PAIR_REPEAT_S
                    ),
                    None,
                )
                if o is not None:
                    mid, half = 0.5 * (o.t + c.t), 0.5 * (c.t - o.t) - 0.25 * self.dt
                    _, gap = self._pair_gap(c.data["a"], c.data["b"], mid, max(half, 0.0))
                    # (two balls lying together before the earlier finding are not
                    # told apart by their gap: both findings stay)
                    ts_b, gap_b = self._pair_gap(c.data["a"], c.data["b"], o.t, PAIR_FIT_SPAN_S)
                    came = gap_b[ts_b < o.t]
                    if not len(came) or float(np.max(came)) <= PAIR_PARTED_MM:
                        o = None
                if o is not None and (not len(gap) or float(np.max(gap)) <= PAIR_PARTED_MM):
                    o.conf = min(0.99, max(o.conf, c.conf) + 0.05)
                    continue
            out.append(c)
        return out

    def _unleft_cushion_repeats(self, cands: list[_Cand]) -> list[_Cand]:
        """One cushion contact per touch: a ball found touching the same cushion again
        within ``CUSHION_REPEAT_S``, never seen ``CUSHION_LEFT_MM`` or more off it in
        between, did not leave it and come back.  A ball sliding along a cushion after
        its touch sits within the noise of it, and the noise bends its way there: two
        rules found the touch and a vertex of that noise 50-120 ms later (dev
        fb-rally/1706 R1, fb-rally/1774 K, the gap at most 2.7 / 4.0 mm between).  The
        earlier finding is kept.  Jaws are left to their own rules."""
        out: list[_Cand] = []
        for c in sorted(cands, key=lambda c: c.t):
            if c.type == "cushion" and not c.data["cushion"].startswith("jaw:"):
                b, name = c.data["ball"], c.data["cushion"]
                o = next(
                    (
                        o
                        for o in reversed(out)
                        if o.type == "cushion"
                        and o.data["ball"] == b
                        and o.data["cushion"] == name
                        and c.t - o.t <= CUSHION_REPEAT_S
                    ),
                    None,
                )
                if o is not None:
                    gap = self._cushion_gap(b, name, o.t, c.t)
                    if len(gap) and float(np.max(gap)) < CUSHION_LEFT_MM:
                        o.conf = min(0.99, max(o.conf, c.conf) + 0.05)
                        continue
            out.append(c)
        return out

    def _cushion_gap(self, ball: str, name: str, t0: float, t1: float) -> np.ndarray:
        """The gaps (mm) of ``ball`` to the cushion ``name`` (``TableShape.jaw_gap``: any
        named cushion) on its samples strictly between ``t0`` and ``t1``."""
        bd = self.data[ball]
        k = (bd.ts > t0) & (bd.ts < t1)
        return np.array([self.shape.jaw_gap(p, name) for p in bd.xy[k]])

    def _rests_through(self, ball: str, t: float) -> bool:
        """``ball`` is at rest at ``t``, stays at that rest past
        ``STRIKE_BEFORE_REST_S`` + ``STILL_AFTER_FRAMES`` frames (a ball hit slowly
        creeps inside its rest spread for up to ``STRIKE_BEFORE_REST_S``) and its mean
        position there moved by under ``REST_SHIFT_MM``: it was not hit."""
        after_s = STRIKE_BEFORE_REST_S + STILL_AFTER_FRAMES * self.dt
        for kind, t_from, obj in reversed(self.data[ball].timeline):
            if t_from <= t + 1e-9:
                if kind != "rest" or obj.t1 < t + after_s:
                    return False
                # ... and did not creep off its spot inside the rest spread (a slow
                # glancing hit moves a ball 1-4 mm): its mean before and after
                bd = self.data[ball]
                pre = bd.xy[(bd.ts >= t - REST_WINDOW_S) & (bd.ts <= t)]
                post = bd.xy[(bd.ts >= t + after_s) & (bd.ts <= min(obj.t1, t + 2 * after_s))]
                if not len(pre) or not len(post):
                    return True
                return float(np.linalg.norm(post.mean(axis=0) - pre.mean(axis=0))) < REST_SHIFT_MM
        return False

    def _pair_gap(self, a: str, b: str, t_c: float, span_s: float):
        """Times and gaps (centre distance minus two radii) of balls ``a`` and ``b`` on
        the frames both are seen within ``span_s`` of ``t_c``."""
        da, db = self.data[a], self.data[b]
        ka = np.nonzero(np.abs(da.ts - t_c) <= span_s)[0]
        kb = np.nonzero(np.abs(db.ts - t_c) <= span_s)[0]
        _, ia, ib = np.intersect1d(
            da.frames[ka], db.frames[kb], assume_unique=True, return_indices=True
        )
        gap = np.linalg.norm(db.xy[kb[ib]] - da.xy[ka[ia]], axis=1) - 2 * self.R
        return da.ts[ka[ia]], gap

    def _met_anew(self, first: _Cand, then: _Cand) -> bool:
        """Whether the pair of collision ``first`` was seen parting by
        ``DEDUPE_MET_ANEW_MM`` or more after it, and closing by as much again by
        collision ``then`` (a frame of slack): two touches, not one found twice.  The
        parting is seen as a rise after the first finding, or from a gap within
        ``PAIR_FIT_NEAR_MM`` at it: a finding made early, while the pair still closed,
        sees the gap only fall."""
        a, b = first.data["a"], first.data["b"]
        t0, t1 = first.t - self.dt, then.t + self.dt
        ts, gap = self._pair_gap(a, b, 0.5 * (t0 + t1), 0.5 * (t1 - t0))
        after = gap[ts > first.t]
        if len(after) < 2:
            return False
        j = int(np.argmax(after))
        if (
            after[j] < DEDUPE_MET_ANEW_MM
            or j + 1 == len(after)
            or float(np.min(after[j + 1 :])) > after[j] - DEDUPE_MET_ANEW_MM
        ):
            return False
        at = gap[ts <= first.t + 0.5 * self.dt]
        return j > 0 or (len(at) > 0 and float(at[-1]) <= PAIR_FIT_NEAR_MM)

    def _max_pair_gap(self, a: str, b: str, t0: float, t1: float) -> float | None:
        """The widest gap between balls ``a`` and ``b`` on the frames both are seen from
        ``t0`` to ``t1`` (None: no such frame)."""
        _, gap = self._pair_gap(a, b, 0.5 * (t0 + t1), 0.5 * (t1 - t0))
        return float(np.max(gap)) if len(gap) else None

    def _pair_touch_time(self, a: str, b: str, t_c: float) -> float | None:
        """When balls ``a`` and ``b`` touched near ``t_c``, from their gap on the frames
        both are seen: two lines meeting at one point, falling then rising (each at
        ``REVERSAL_MIN_MM_S`` or more), fitted to the run of samples within
        ``PAIR_FIT_NEAR_MM`` nearest ``t_c`` (``PAIR_FIT_WIDE_MM`` when that run is too
        short for the fit: a fast pair); their vertex, when it lies within
        ``PAIR_TOL_MM`` of a zero gap and ``PAIR_FIT_MAX_SHIFT_S`` of ``t_c``.  None
        when the gap shows no such touch.

        A slow or glancing hit bends a path so little that its break, and the time a
        piece followed on reaches two radii of a ball at rest, fall frames off; the
        pair's own gap falls to zero at the touch and rises as the balls part."""
        ts, gap = self._pair_gap(a, b, t_c, PAIR_FIT_SPAN_S)
        fit = None
        for near_mm in (PAIR_FIT_NEAR_MM, PAIR_FIT_WIDE_MM):
            runs = gap_series.runs(gap, near_mm)
            if not runs:
                return None
            lo, hi = min(runs, key=lambda r: max(ts[r[0]] - t_c, t_c - ts[r[1] - 1], 0.0))
            wide = near_mm == PAIR_FIT_WIDE_MM
            if wide and not gap_series.one_dip(gap[lo:hi], PAIR_FIT_WIDE_NOISE_MM):
                return None
            fit = gap_series.v_fit(ts[lo:hi], gap[lo:hi], TOUCH_FIT_MIN_SAMPLES)
            if fit is not None:
                break
        if fit is None:
            return None
        tv, g0, v_in, v_out = fit
        if v_in > -REVERSAL_MIN_MM_S or v_out < PAIR_FIT_MIN_RISE_MM_S or abs(g0) > PAIR_TOL_MM:
            return None
        return tv if abs(tv - t_c) <= PAIR_FIT_MAX_SHIFT_S else None

    def _pair_retimed(self, c: _Cand, t0: float) -> _Cand:
        """A collision seen on the open table, timed again by ``_pair_touch_time`` (not
        before the stroke's start ``t0``)."""
        if c.type != "collision":
            return c
        tv = self._pair_touch_time(c.data["a"], c.data["b"], c.t)
        if tv is None:
            return c
        return _Cand(c.type, max(tv, t0), c.conf, c.data, c.gap)

    def _struck_into_cushion(self, mv: Move, striker_at: np.ndarray, t_hit: float) -> list:
        """A ball struck at rest next to a cushion that meets it within the frame gap
        of the hit: its first piece of path, followed back from its first sample,
        reaches the nose after the hit, on the side the ball was struck towards
        (a ball struck away from a cushion it stood by comes from it, not off it)."""
        solid = [pc for pc in mv.pieces if pc.n >= 2]
        a0 = mv.anchor0
        if not solid or a0 is None:
            return []
        q = solid[0]
        t_lo = min(t_hit, mv.t_start) - 0.5 * self.dt
        if q.t0 - t_lo > STRUCK_BOUNCE_FRAMES * self.dt:
            return []
        tt = np.linspace(q.t0, t_lo, 30)
        hit = self._first_contact(mv.ball, q, tt, before=False)
        if hit is None or hit[1] != "cushion" or hit[0] < t_lo:
            return []
        c = np.asarray(hit[2]["pos"], dtype=float)
        if _cos(c - a0, a0 - striker_at) < STRUCK_MIN_COS:
            return []
        # samples before the first piece lie on the way from the anchor to the nose
        bd = self.data[mv.ball]
        way = c - a0
        for i in mv.idx:
            if bd.ts[i] >= q.t0:
                break
            f = float(np.clip((bd.xy[i] - a0) @ way / max(float(way @ way), 1e-9), 0.0, 1.0))
            if np.linalg.norm(bd.xy[i] - (a0 + f * way)) > STRUCK_WAY_TOL_MM:
                return []
        return [_Cand("cushion", hit[0], 0.7, hit[2])]

    def _touch_time(self, mv: Move, t_c: float, fields: dict) -> tuple[float, dict]:
        """A cushion nose touch found at a break, timed again from the gap to the nose.

        A ball meeting a nose slowly (a glancing touch) bends its path so little that
        the break falls 3-10 frames after the touch, and the piece before it, followed
        on, reaches the nose late.  The gap (ball to nose, minus a radius) over the
        samples near the nose around the touch is fitted by two lines meeting at one
        point (falling, then rising): their vertex is the touch."""
        g = self.geom
        name = fields["cushion"]
        if name.startswith("jaw:") or name not in g.seg_name:
            return t_c, fields
        jaw = self._past_nose_end(mv, t_c, name)
        if jaw is not None:
            return t_c, {**fields, "cushion": jaw}
        j = g.seg_name.index(name)
        bd = self.data[mv.ball]
        idx = np.asarray(mv.idx)
        ts, xy = bd.ts[idx], bd.xy[idx]
        gap = (xy - g.seg_a[j]) @ g.seg_n[j] - self.R
        k = int(np.argmin(np.abs(ts - t_c)))
        near = (gap <= TOUCH_FIT_NEAR_MM) & (np.abs(ts - t_c) <= TOUCH_FIT_SPAN_S)
        if not near[k]:
            return t_c, fields
        lo, hi = k, k
        while lo > 0 and near[lo - 1]:
            lo -= 1
        while hi + 1 < len(ts) and near[hi + 1]:
            hi += 1
        fit = gap_series.v_fit(ts[lo : hi + 1], gap[lo : hi + 1], TOUCH_FIT_MIN_SAMPLES)
        if fit is None:
            return t_c, fields
        tv, g0, v_in, v_out = fit
        if not (-TOUCH_FIT_MAX_MM_S <= v_in < 0.0 < v_out) or abs(g0) > REVERSAL_TOL_MM:
            return t_c, fields
        if tv > t_c + self.dt:
            # a vertex frames after a ball that met the nose fast (the break's piece
            # into it faster than TOUCH_FIT_MAX_MM_S): that ball was bent at the break,
            # and its samples near the nose begin there, so the falling line is its
            # slide along the nose after the touch and the vertex a later touch (dev
            # fp-rally/2208 at 30 fps: 11 at 430 mm/s into the left-foot nose, put at
            # its second touch 0.1 s on, and the first was lost)
            # The piece that ran in: the last one ended by the touch, or the one the
            # touch lies inside (the break's search may put the touch before that
            # piece's last sample -- held-out fp-rally/3194 at 60 fps -- or just after
            # the first sample of the piece after it: dev fp-rally/2208, above)
            solid = [pc for pc in mv.pieces if pc.n >= 2]
            into = [pc for pc in solid if pc.t1 <= t_c + 1e-9][-1:]
            into += [pc for pc in solid if pc.t0 < t_c < pc.t1]
            if into and max(-float(g.seg_n[j] @ pc.vel(t_c)) for pc in into) > TOUCH_FIT_MAX_MM_S:
                return t_c, fields
        f = float(np.interp(tv, ts, np.arange(len(ts))))
        i0 = int(min(f, len(ts) - 2))
        c = xy[i0] + (f - i0) * (xy[i0 + 1] - xy[i0])
        return tv, {**fields, "pos": _r(c)}

    def _nose_or_rounding(self, cands: list[_Cand]) -> list[_Cand]:
        """One contact where a cushion nose ends at a pocket: a ball found touching the
        nose and the jaw rounding tangent to the nose's end within a frame of each other
        and ``NOSE_JAW_SAME_SPOT_MM`` of each other (the break and the gap reversal each
        name one of the two lines) touched one of them (a fast ball can touch both in
        turn, 20 mm and more apart).  The rounding lies beyond the nose's end: a
        contact point (the mean of the two found) inside the nose's ends (or within
        ``NOSE_END_SLACK_MM`` past them: there the two lines meet, tangent) is the
        nose's, one further the jaw's."""
        g = self.geom
        drop: set[int] = set()
        cush = [c for c in cands if c.type == "cushion"]
        for a in cush:
            name = a.data["cushion"]
            if name.startswith("jaw:") or name not in g.seg_name:
                continue
            j = g.seg_name.index(name)
            ends = (g.seg_a[j], g.seg_a[j] + g.seg_d[j] * g.seg_len[j])
            roundings = {
                g.circ_name[k]
                for e in ends
                for k in range(len(g.circ_name))
                if float(np.linalg.norm(g.circ_c[k] - e)) <= g.circ_r[k] + 1.0
            }
            for b in cush:
                if (
                    id(b) in drop
                    or id(a) in drop
                    or b.data["ball"] != a.data["ball"]
                    or b.data["cushion"] not in roundings
                    or abs(b.t - a.t) > self.dt
                    or not _same_spot(a, b, NOSE_JAW_SAME_SPOT_MM)
                ):
                    continue
                c = 0.5 * (np.asarray(a.data["pos"], float) + np.asarray(b.data["pos"], float))
                along = float((c - g.seg_a[j]) @ g.seg_d[j])
                inside = -NOSE_END_SLACK_MM <= along <= g.seg_len[j] + NOSE_END_SLACK_MM
                drop.add(id(b) if inside else id(a))
        return [c for c in cands if id(c) not in drop]

    def _past_nose_end(self, mv: Move, t_c: float, name: str) -> str | None:
        """The jaw a nose touch found at a break really was: the ball is seen
        ``NOSE_PASSED_MM`` or more beyond the nose's contact line, past the nose's end,
        within ``NOSE_PASSED_S`` after the touch.  A ball that touches a nose
        bounces off it (its centre never crosses that line); one seen beyond it went by
        the nose's end into the mouth, and the path that reached the nose's line within
        the contact slack (a fast ball heading for a corner pocket along a cushion,
        ~3 mm of noise a sample) met the jaw there: the jaw rounding at that end (None
        when nothing says so)."""
        g = self.geom
        j = g.seg_name.index(name)
        bd = self.data[mv.ball]
        idx = np.asarray(mv.idx)
        ts, xy = bd.ts[idx], bd.xy[idx]
        after = (ts > t_c) & (ts <= t_c + NOSE_PASSED_S)
        rel = xy[after] - g.seg_a[j]
        gap = rel @ g.seg_n[j] - self.R
        along = rel @ g.seg_d[j]
        past = (gap < -NOSE_PASSED_MM) & ((along < 0.0) | (along > g.seg_len[j]))
        if not past.any():
            return None
        end = g.seg_a[j] + (g.seg_d[j] * g.seg_len[j] if along[past][0] > 0 else 0.0)
        k = int(np.argmin(np.hypot(*(g.circ_c - end).T)))
        return g.circ_name[k]

    def _bounced_to_rest(self, mv: Move, found: list[_Cand]) -> list[_Cand]:
        """A slow ball that meets a cushion nose and comes to rest a few millimetres off
        it: its way in (a line fitted to the gap over the last ``REVERSAL_SIDE_S`` up to
        its closest sample, falling at most ``TOUCH_FIT_MAX_MM_S``) reaches the nose
        within ``REVERSAL_TOL_MM``, ``REVERSAL_EDGE_MM`` or more inside its ends, and it
        rests ``BOUNCE_BACK_MM`` or more further off (up to ``REVERSAL_NEAR_MM``), no other
        ball beside it.  A straight way cannot turn back from a line by itself; the rise
        after the touch is too short and slow (a 40 mm/s bounce stops within 6 mm) for
        the gap reversal to see (confidence 0.5)."""
        if mv.anchor1 is None:
            return []
        g, R = self.geom, self.R
        bd = self.data[mv.ball]
        idx = np.asarray(mv.idx)
        ts, xy = bd.ts[idx], bd.xy[idx]
        rel = mv.anchor1 - g.seg_a
        along = np.einsum("ij,ij->i", rel, g.seg_d)
        gap_rest = np.einsum("ij,ij->i", rel, g.seg_n) - R
        out: list[_Cand] = []
        for j, name in enumerate(g.seg_name):
            if name.startswith("jaw:") or not 0.0 <= along[j] <= g.seg_len[j]:
                continue
            if not 0.0 < gap_rest[j] <= REVERSAL_NEAR_MM:
                continue
            gap = (xy - g.seg_a[j]) @ g.seg_n[j] - R
            m = int(np.argmin(gap))
            a = np.nonzero((ts <= ts[m]) & (ts >= ts[m] - REVERSAL_SIDE_S))[0]
            if len(a) < TOUCH_FIT_MIN_SAMPLES:
                continue
            v_in, g_m = np.polyfit(ts[a] - ts[m], gap[a], 1)
            if not -TOUCH_FIT_MAX_MM_S <= v_in <= -REVERSAL_MIN_MM_S:
                continue
            if abs(g_m) > REVERSAL_TOL_MM or gap_rest[j] - g_m < BOUNCE_BACK_MM:
                continue
            t_c = float(ts[m] + min(max(-g_m / v_in, -REVERSAL_SIDE_S), 0.0))
            c = xy[m]
            a_c = float((c - g.seg_a[j]) @ g.seg_d[j])
            if not REVERSAL_EDGE_MM <= a_c <= g.seg_len[j] - REVERSAL_EDGE_MM:
                continue  # met at the nose's end: the jaw rounding there, or nothing
            if self._ball_beside(mv.ball, c, t_c):
                continue  # a ball beside it may have turned it
            if any(
                o.type == "cushion"
                and o.data["ball"] == mv.ball
                and o.data["cushion"] == name
                and abs(o.t - t_c) <= TOUCH_FIT_SPAN_S
                for o in found
            ):
                continue
            out.append(_Cand("cushion", t_c, 0.5, {"ball": mv.ball, "cushion": name, "pos": _r(c)}))
        return out

    def _across_two_samples(self, mv: Move, solid: list[Piece], bent_at: set[int]) -> list:
        """Cushion touches inside a two-sample piece: the two samples of a fast ball
        either side of a bounce make a piece of their own, a chord across the cushion's
        corner with no velocity of the ball's; neither break beside it is followed to
        the nose.  When neither showed a cushion, the pieces before and after it are
        followed through it.  The sample at the bounce may be unseen (a miss at speed)
        or the bounce may fall between two seen frames (dev fp-multi/2460 at 60 fps:
        11 at 5.8 m/s into the foot nose, seen 31 and 40 mm off it either side)."""
        out = []
        for k in range(1, len(solid) - 1):
            q = solid[k]
            if q.n != 2:
                continue
            if k - 1 in bent_at or k in bent_at:
                continue
            p, r = solid[k - 1], solid[k + 1]
            for t, typ, fields, conf in self._contacts_between(mv.ball, p, r):
                if typ == "cushion" and p.t1 <= t <= r.t0:
                    out.append(_Cand(typ, t, conf, fields))
        return out

    def _crept_to_nose(self, mv: Move, v_end: np.ndarray):
        """A slow ball whose rest anchor lies within ``REST_SPREAD_MM`` of a cushion nose
        (beyond the contact slack) that it was heading into fast enough to roll that far
        (``CREEP_ROLL_DECEL_MM_S2``): it reached the nose inside its rest window (the
        last millimetres in and the bounce back fall within the rest's spread) and the
        mean of the window lies off it.  As ``_object_near``'s cushion hit, or None."""
        g, R = self.geom, self.R
        rel = mv.anchor1 - g.seg_a
        along = np.einsum("ij,ij->i", rel, g.seg_d)
        gap = np.einsum("ij,ij->i", rel, g.seg_n) - R
        v_in = -(g.seg_n @ v_end)  # speed into each line
        ok = (
            (along >= 0.0)
            & (along <= g.seg_len)
            & (gap > 0.0)
            & (gap <= REST_SPREAD_MM)
            & (v_in > 0.0)
            & (v_in**2 / (2.0 * CREEP_ROLL_DECEL_MM_S2) >= gap)
        )
        ok &= np.array([not n.startswith("jaw:") for n in g.seg_name])
        if not ok.any():
            return None
        j = int(np.argmin(np.where(ok, gap, np.inf)))
        fields = {"ball": mv.ball, "cushion": g.seg_name[j], "pos": _r(mv.anchor1)}
        return ("cushion", fields, 0.5)

    def _ball_beside(self, ball: str, c: np.ndarray, t: float) -> bool:
        """Whether another ball lies within ``PAIR_NEAR_MM`` of touching ``ball`` centred
        at ``c`` at ``t``."""
        return any(
            other != ball
            and (po := self.pos_at(other, t)) is not None
            and float(np.linalg.norm(po - c)) <= 2 * self.R + PAIR_NEAR_MM
            for other in self.data
        )

    def _stopped_in_jaws(self, mv: Move, last: Piece):
        """A ball whose last piece runs into a pocket's mouth at ``JAW_STOP_MIN_MM_S`` or
        more and that lies still from the next frames on, in that mouth within
        ``REST_SPREAD_MM`` of a jaw rounding, no other ball beside it: rolling cannot stop
        a ball that fast, the jaws did (dev fp-rally/2888 at 60 fps: 15 into the
        foot-right jaws at 450 mm/s, four touches in 0.15 s, its rest 3 mm off one
        rounding and 5 mm off the other, beyond the contact slack; none was found).
        As ``_object_near``'s cushion hit, or None."""
        pocket = self.shape.in_mouth_zone(mv.anchor1)
        if pocket is None or mv.t_end - last.t1 > JAW_STOP_FRAMES * self.dt:
            return None
        v = last.vel(last.t1)
        if float(v @ self.pockets[pocket].inward) < JAW_STOP_MIN_MM_S:
            return None
        g, R = self.geom, self.R
        gap = np.hypot(*(mv.anchor1 - g.circ_c).T) - g.circ_r - R
        ok = gap <= REST_SPREAD_MM
        if not ok.any():
            return None
        if self._ball_beside(mv.ball, mv.anchor1, mv.t_end):
            return None  # a ball beside it may have stopped it
        k = int(np.argmin(np.where(ok, gap, np.inf)))
        fields = {"ball": mv.ball, "cushion": g.circ_name[k], "pos": _r(mv.anchor1)}
        return ("cushion", fields, 0.5)

    def _sinking(self, ball: str, t: float) -> bool:
        """``ball`` is inside a move at ``t`` that ends vanishing within ``FALL_LOST_S``: at
        ``t`` it was already sinking into the pocket (the bend of its fall, read as a touch
        of the jaw across the throat; the tracker loses a sinking ball 0.3-1.2 radii deep,
        0.05-0.09 s into its fall)."""
        for mv in self.data[ball].moves:
            if mv.t_start <= t <= mv.t_end + self.dt:
                return mv.end == "vanish" and mv.t_end - t <= FALL_LOST_S
        return False

    def _jaw_finds_before_touch(self, cands: list[_Cand]) -> list[_Cand]:
        """``cands`` without a jaw contact that a later find of the same ball and jaw
        (within ``JAW_RETOUCH_S``) follows while the ball is seen still coming to that
        jaw in between (``_still_on_way_to_jaw``): the later one is the touch.  (Left
        in, the earlier would win: ``_dedupe`` keeps the first of two finds.)"""
        jaw = [c for c in cands if c.type == "cushion" and c.data["cushion"].startswith("jaw:")]
        early = {
            id(a)
            for a in jaw
            for b in jaw
            if b.data["ball"] == a.data["ball"]
            and b.data["cushion"] == a.data["cushion"]
            and 0.0 < b.t - a.t <= JAW_RETOUCH_S
            and self._still_on_way_to_jaw(a.data["ball"], a.data["cushion"], a.t, b.t)
        }
        return [c for c in cands if id(c) not in early]

    def _still_on_way_to_jaw(self, ball: str, name: str, t_first: float, t_next: float) -> bool:
        """Whether ``ball``, found touching jaw ``name`` at ``t_first`` and again at
        ``t_next``, is seen still coming to it in between: at its first sample after
        ``t_first`` at least ``JAW_STILL_AWAY_MM`` off the jaw, its gap not rising
        (beyond ``JAW_GAP_NOISE_MM``) from the sample before ``t_first`` to the last one
        before ``t_next``.  A ball that touched bounces off or slides along; one still
        closing in had not touched (dev fb-luikka/1755 at 60 fps: a jitter's bend 30 mm
        before the jaw, extrapolated onto it, 47 ms before the touch)."""
        bd = self.data[ball]
        i0 = int(np.searchsorted(bd.ts, t_first, side="right"))
        i1 = int(np.searchsorted(bd.ts, t_next, side="left"))
        if i0 < 1 or i1 <= i0:
            return False
        gaps = [self.shape.jaw_gap(bd.xy[i], name) for i in range(i0 - 1, i1)]
        if not gaps[1] >= JAW_STILL_AWAY_MM or not all(math.isfinite(x) for x in gaps):
            return False
        return all(b <= a + JAW_GAP_NOISE_MM for a, b in zip(gaps, gaps[1:], strict=False))

    def _moving_at(self, ball: str, t: float, slack_frames: float = 1.0) -> bool:
        """``ball`` is inside one of its moves at ``t`` (within ``slack_frames`` frames;
        0: it has left its anchor by ``t`` and not yet stopped)."""
        e = slack_frames * self.dt
        return any(mv.t_start - e <= t <= mv.t_end + e for mv in self.data[ball].moves)

    def _leaving_way(self, mv: Move) -> np.ndarray:
        """Where ``mv`` went from its anchor: to its first sample a radius or more away
        (else its last sample)."""
        bd = self.data[mv.ball]
        xy = bd.xy[np.asarray(mv.idx)]
        far = np.nonzero(np.linalg.norm(xy - mv.anchor0, axis=1) >= self.R)[0]
        return xy[far[0] if len(far) else -1] - mv.anchor0

    def _cue_first(self, mvs: list[Move]) -> list[Move]:
        """A stroke's moves with its cue ball first.  The cue ball struck into a ball
        it (nearly) touches sets it moving within the frame: which left its anchor
        first is noise.  The struck ball leaves along the line of centres, away from
        the striker; the striker keeps its way across that line (or stops, or follows
        the struck ball).  When the second ball set moving (within
        ``CLUSTER_DT_FRAMES``, anchors within ``CLUSTER_GAP_MM`` of touching) left
        away from the first's anchor it was struck (the order holds); when it did not
        but the first left away from its anchor, the second was the cue ball.  Anchors
        further apart than that count too when the second ball's first frame of travel
        covers the gap (a stroke at 3 m/s closes 6.6 mm in 2 ms: dev fp-rally/1392)."""
        if len(mvs) < 2:
            return mvs
        a, b = mvs[0], mvs[1]
        if a.anchor0 is None or b.anchor0 is None or not a.idx or not b.idx:
            return mvs
        if b.t_start - a.t_start > CLUSTER_DT_FRAMES * self.dt:
            return mvs
        gap = float(np.linalg.norm(b.anchor0 - a.anchor0)) - 2 * self.R
        if gap > CLUSTER_GAP_MM and gap > self._first_way_in_frame(b):
            return mvs
        if _cos(self._leaving_way(b), b.anchor0 - a.anchor0) >= COLLISION_DV_COS:
            return mvs
        if _cos(self._leaving_way(a), a.anchor0 - b.anchor0) < COLLISION_DV_COS:
            return mvs
        return [b, a] + mvs[2:]

    def _first_way_in_frame(self, mv: Move) -> float:
        """How far ``mv`` went in its first frame interval from its anchor (mm): the
        speed of its first piece with two or more samples, times the frame interval."""
        pc = next((p for p in mv.pieces if p.n >= 2), None)
        if pc is None:
            return 0.0
        return float(np.linalg.norm(pc.vel(pc.t0))) * self.dt

    def _lag_pair(self, first: Move, mv: Move) -> bool:
        """GR-8: ``mv`` set moving with ``first`` (within ``LAG_WINDOW_S``), far from it
        and hit by nothing, both from the house towards the foot cushion."""
        R = self.R
        return (
            mv is not first
            and 0.0 <= mv.t_start - first.t_start <= LAG_WINDOW_S
            and mv.anchor0 is not None
            and first.anchor0 is not None
            and np.linalg.norm(mv.anchor0 - first.anchor0) > 6 * R
            and abs(mv.anchor0[1] - first.anchor0[1]) > 4 * R
            and max(mv.anchor0[0], first.anchor0[0]) < self.L / 4  # both in the house
            and min(m.pieces[0].vel(m.pieces[0].t0)[0] for m in (mv, first)) > 0  # to the foot
            and self._striker(mv, {first.ball: first.t_start}) is None
        )

    def _struck_while_moving(self, mv: Move, cur: dict, speed0: float) -> bool:
        """A ball set moving fast, far from every moving ball, with no ball reaching it,
        while the last stroke still runs: a new stroke before the table came to rest."""
        R = self.R
        if mv.anchor0 is None or speed0 < BEFORE_REST_MIN_SPEED_MM_S:
            return False
        if len(cur["moves"]) == 1 and self._lag_pair(cur["moves"][0], mv):
            return False  # the second ball of a lag
        for m in cur["moves"]:
            p = self.pos_at(m.ball, mv.t_start)
            if p is not None and np.linalg.norm(p - mv.anchor0) < BEFORE_REST_CLEAR_RADII * R:
                return False
        for bd in self.data.values():  # a frozen neighbour set moving at the same time
            for m in bd.moves:
                if (
                    m is not mv
                    and m.anchor0 is not None
                    and abs(m.t_start - mv.t_start) <= CLUSTER_DT_FRAMES * self.dt
                    and np.linalg.norm(m.anchor0 - mv.anchor0) <= 2 * R + CLUSTER_GAP_MM
                ):
                    return False
        return self._striker(mv, {m.ball: m.t_start for m in cur["moves"]}) is None

    def _clusters(self, mvs: list[Move]) -> list[list[Move]]:
        """Touching balls set moving together (a rack, a cluster): groups of 2 or more."""
        mvs = [m for m in mvs if m.anchor0 is not None]
        lim = CLUSTER_DT_FRAMES * self.dt
        groups = self._touching_groups(
            mvs, lambda i, j: abs(mvs[i].t_start - mvs[j].t_start) <= lim
        )
        out = [g for g in groups if len(g) >= 2]
        if self.replay_racks:
            out = self._rack_clusters(mvs, out)
        return out

    def _touching_groups(
        self, mvs: list[Move], together: Callable[[int, int], bool]
    ) -> list[list[Move]]:
        """``mvs`` (all with an anchor) joined into groups, transitively: two balls whose
        anchors touched (within ``CLUSTER_GAP_MM``) and that ``together(i, j)`` says set
        off at one time; in order of each group's first member."""
        reach = 2 * self.R + CLUSTER_GAP_MM
        parent = list(range(len(mvs)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for i, a in enumerate(mvs):
            for j in range(i + 1, len(mvs)):
                if np.linalg.norm(a.anchor0 - mvs[j].anchor0) <= reach and together(i, j):
                    parent[find(i)] = find(j)
        groups: dict[int, list[Move]] = {}
        for i, m in enumerate(mvs):
            groups.setdefault(find(i), []).append(m)
        return list(groups.values())

    def _late_leavers(self, clusters: list[list[Move]], mvs: list[Move]) -> dict[str, set[int]]:
        """Balls (moves not in cluster ``k``) that lay against a member of cluster ``k``
        (anchors within ``LATE_LEAVER_GAP_MM`` of touching) and set off after it broke,
        leaving their anchors (``_departure``) within ``CLUSTER_QUIET_S``: ball -> those
        ``k``.  A rack's slow back balls (70-200 mm/s at the wave) are seen leaving their
        rests frames after the wave (5 mm from the anchor takes 25-70 ms): they were
        pushed in it, not hit anew.  The departure, not the start: a ball pushed at
        30-60 mm/s is seen 5 mm off its anchor only 0.2-0.4 s later (dev fp-multi/2749
        at 30 fps: 5, pushed by 2 in the wave, seen moving 0.37 s after it, was read as
        struck then by 9, which lay against it and crept off the other way)."""
        reach = 2 * self.R + LATE_LEAVER_GAP_MM
        out: dict[str, set[int]] = {}
        for k, cl in enumerate(clusters):
            t_k = min(x.t_start for x in cl)
            anchors = [x.anchor0 for x in cl if x.anchor0 is not None]
            for mv in mvs:
                if mv.anchor0 is None or any(x is mv for x in cl):
                    continue
                if mv.t_start <= t_k or self._departure(mv) - t_k >= CLUSTER_QUIET_S:
                    continue
                if any(np.linalg.norm(mv.anchor0 - a) <= reach for a in anchors):
                    out.setdefault(mv.ball, set()).add(k)
        return out

    def _rest_neighbours(self, clusters: list[list[Move]]) -> dict[str, set[int]]:
        """Balls at rest when cluster ``k`` broke, lying against one of its members
        (within ``LATE_LEAVER_GAP_MM`` of touching): ball -> those ``k``.  The wave
        pushes such a ball too, so slowly that it may never be seen to leave its rest;
        the member it lay against parts from it through the noise, and that gap's dip
        and rise is the wave's touch, not a new one (dev fp-rally/2837 at 60 fps: 5,
        pushed by 3 in the wave and still within its rest spread, read as struck by 3
        again 85 ms later).  Their pairs with the members are the cluster's only while
        their gap never opened (``BrokenClusters.broke_with``)."""
        reach = 2 * self.R + LATE_LEAVER_GAP_MM
        out: dict[str, set[int]] = {}
        for k, cl in enumerate(clusters):
            t_k = min(x.t_start for x in cl)
            mine = {x.ball for x in cl}
            anchors = [x.anchor0 for x in cl if x.anchor0 is not None]
            for b in self.data:
                if b in mine or self._moving_at(b, t_k, 0):
                    continue
                p = self.pos_at(b, t_k)
                if p is not None and any(np.linalg.norm(p - a) <= reach for a in anchors):
                    out.setdefault(b, set()).add(k)
        return out

    def _on_its_way(self, ball: str, t: float) -> bool:
        """``ball`` had left its anchor by ``t`` (``_departure``) and not yet stopped."""
        return any(
            mv.anchor0 is not None and self._departure(mv) <= t <= mv.t_end
            for mv in self.data[ball].moves
        ) or self._moving_at(ball, t, 0)

    def _departure(self, mv: Move) -> float:
        """When a ball at rest left its anchor: its first piece's closest approach to the
        anchor, followed back up to ``RACK_DEPART_BACK_S`` (not only to its last sample
        at rest, which a slow ball leaves late), or its start when that is earlier.  A
        first piece of one sample has no velocity to follow back: its start (every time
        is that piece's "closest approach"; the earliest put a ball of a rack's second
        wave 0.2 s early, into a cluster with a late leaver of the first: dev
        fp-multi/1763 at 60 fps, that wave's contacts timed 10 frames early)."""
        pc = mv.pieces[0]
        if pc.n < 2:
            return mv.t_start
        t = self._closest_time(pc, mv.anchor0, pc.t0 - RACK_DEPART_BACK_S, pc.t0, 81)
        return min(mv.t_start, t)

    def _rack_clusters(self, mvs: list[Move], groups: list[list[Move]]) -> list[list[Move]]:
        """The clusters again with touching balls joined by when they left their anchors
        (``_departure``): a joined group of a rack replay's size replaces the clusters
        inside it (a rack broken at 60 fps, its slow back balls seen moving 3-6 frames
        after the wave, fell apart into clusters of 3-5: dev fp-break/1011, /1198).
        A ball set moving inside such a group's span of starts, lying against one of
        its balls, was pushed in its wave too and joins it (held-out fp-rally/2327 at
        60 fps: the back corner 11 and 7 left 3 and 15 ms after the apex, their other
        neighbours 4 and 12 60 ms later; a cluster of their own, 11 struck the rack
        "from outside", and with two strikers the rack was not replayed)."""
        from .rack_wave import MIN_MEMBERS

        dep = [self._departure(m) for m in mvs]
        lim = CLUSTER_DT_FRAMES * self.dt
        reach = 2 * self.R + CLUSTER_GAP_MM

        def together(i: int, j: int) -> bool:
            return abs(mvs[i].t_start - mvs[j].t_start) <= lim or abs(dep[i] - dep[j]) <= lim

        big = [g for g in self._touching_groups(mvs, together) if len(g) >= MIN_MEMBERS]
        inside = {id(m) for g in big for m in g}
        for g in big:
            lo, hi = min(m.t_start for m in g), max(m.t_start for m in g)
            grew = True
            while grew:
                grew = False
                for m in mvs:
                    if id(m) in inside or not lo <= m.t_start <= hi:
                        continue
                    if any(np.linalg.norm(m.anchor0 - x.anchor0) <= reach for x in g):
                        g.append(m)
                        inside.add(id(m))
                        grew = True
        return big + [g for g in groups if not any(id(m) in inside for m in g)]

    def _incoming_hits(self, o: str, mvs: list[Move]) -> dict[str, float]:
        """When the striker ``o``'s incoming path reaches two radii from each ball of
        a cluster at rest (ball -> time; only those it reaches).

        The path is one piece fitted backwards from ``o``'s last sample before the
        cluster moved, as far as the samples stay within ``FIT_TOL_MM`` plus the
        ``INCOMING_TOL_PER_MM_S`` speed share (a fast ball is located less precisely,
        so the ordinary pieces of a fast ball are short and bend with the noise)."""
        bd = self.data[o]
        t_rest = min((m.t_rest0 for m in mvs if m.t_rest0 is not None), default=None)
        if t_rest is None:
            return {}
        piece = incoming_piece(bd, t_rest)
        if piece is None:
            return {}
        t_hi = max(m.pieces[0].t0 for m in mvs)
        tt = np.linspace(piece.t1, t_hi, 120)
        path = np.stack([piece.at(float(t)) for t in tt])
        out: dict[str, float] = {}
        for m in mvs:
            d = np.linalg.norm(path - m.anchor0, axis=1)
            inside = np.nonzero(d <= 2 * self.R)[0]
            if len(inside):
                out[m.ball] = float(tt[inside[0]])
        return out

    def _first_velocity(self, mv: Move, t_c: float) -> np.ndarray:
        pc = mv.pieces[0]
        if pc.n >= 2:
            return pc.vel(pc.t0)
        dt = max(pc.t0 - t_c, 0.5 * self.dt)
        return (pc.at(pc.t0) - mv.anchor0) / dt

    def _dv_at(self, ball: str, t_c: float) -> np.ndarray | None:
        """Velocity change of a moving ball across ``t_c`` (None: unknown)."""
        for mv in self.data[ball].moves:
            if not (mv.t_start - self.dt <= t_c <= mv.t_end + self.dt):
                continue
            before = [p for p in mv.pieces if p.t1 <= t_c + 0.5 * self.dt and p.n >= 2]
            after = [p for p in mv.pieces if p.t0 >= t_c - 0.5 * self.dt and p.n >= 2]
            if not before:
                return None
            vb = before[-1].vel(before[-1].t1)
            if not after:
                return -vb if mv.end == "rest" else None
            return after[0].vel(after[0].t0) - vb
        return None

    def _cluster_contacts(self, cl: list[Move], hits: dict) -> list[_Cand]:
        """Which touching pairs passed momentum in a cluster set moving at once.

        Each contact pushes its two balls apart along their line of centres with an
        impulse >= 0: solve the members' (and outside strikers') velocity changes for
        the impulses by non-negative least squares; contacts with a clear impulse are
        collisions."""
        from scipy.optimize import nnls

        R = self.R
        lim = CLUSTER_DT_FRAMES * self.dt
        t_c = min(m.t_start for m in cl)
        members = {m.ball: m for m in cl}
        pos = {m.ball: m.anchor0 for m in cl}
        outside: dict[str, float] = {}
        for m in cl:
            h = hits.get(id(m))
            if h is not None and h[1] not in members:
                outside[h[1]] = h[2]
        if self.replay_racks and len(outside) <= 1:  # replayed (vision/rack_wave.py)
            from .rack_wave import cluster_collisions

            replayed = cluster_collisions(self, cl, next(iter(outside), None))
            if replayed is not None:
                return replayed
        pairs: list[tuple[str, str]] = []
        names = list(members)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if np.linalg.norm(pos[a] - pos[b]) <= 2 * R + CLUSTER_PAIR_GAP_MM:
                    pairs.append((a, b))
        # the wave's time: an outside striker's hit on a member set moving in the
        # wave's first frames, when it was seen on its way (the members' first moving
        # samples come up to a few frames after: held-out fp-rally/2378, 13 into 5 and
        # Y, 2.2 frames late at 30 fps; fp-break/2354, 12 into 13, 13 on into 8 and 9,
        # 2.5 frames late at 60).  The striker on its way then (left its anchor, as
        # ``_departure`` follows it back): one lying at rest near a member is found at
        # its window's start (dev fp-multi/1763, a rack's second wave put 0.2 s early).
        t_wave = min(
            [
                h[0]
                for m in cl
                if m.t_start <= t_c + lim
                and (h := hits.get(id(m))) is not None
                and h[1] in outside
                and t_c - 2 * lim <= h[0] <= t_c
                and self._on_its_way(h[1], h[0])
            ],
            default=t_c,
        )
        for o in outside:
            po = self.pos_at(o, t_c)
            if po is None:
                continue
            pos[o] = po
            # the striker meets the member its path reaches first
            # when would the striker's path have reached each member (whatever ball each
            # member's own start was put down to: in a frozen cluster they start at once)
            hit_t = self._incoming_hits(o, [members[b] for b in names])
            if not hit_t:
                for b in names:
                    h = self._striker(members[b], {o: -math.inf})
                    if h is not None:
                        hit_t[b] = h[0]
            t_first = min(hit_t.values()) if hit_t else None
            for b in names:
                if t_first is not None:
                    first = b in hit_t and hit_t[b] <= t_first + 1e-3
                else:
                    first = np.linalg.norm(po - pos[b]) <= 2 * R + STRIKER_TOL_MM
                if first:
                    pairs.append((o, b))
        rows: list[str] = list(names)
        dv: dict[str, np.ndarray] = {b: self._first_velocity(members[b], t_c) for b in names}
        for o in outside:
            d = self._dv_at(o, t_c)
            if d is not None:
                dv[o] = d
                rows.append(o)
        if not pairs:
            return []
        A = np.zeros((2 * len(rows), len(pairs)))
        y = np.zeros(2 * len(rows))
        for r, b in enumerate(rows):
            y[2 * r : 2 * r + 2] = dv[b]
        for k, (a, b) in enumerate(pairs):
            n = pos[b] - pos[a]
            n = n / max(np.linalg.norm(n), 1e-9)
            if a in rows:
                A[2 * rows.index(a) : 2 * rows.index(a) + 2, k] -= n
            if b in rows:
                A[2 * rows.index(b) : 2 * rows.index(b) + 2, k] += n
        J, _ = nnls(A, y)
        jmax = float(J.max()) if len(J) else 0.0
        out = []
        # (the striker's contacts first: the wave went on from them)
        for k in sorted(range(len(pairs)), key=lambda k: pairs[k][0] not in outside):
            a, b = pairs[k]
            from_outside = a in outside
            if J[k] >= max(CLUSTER_MIN_DV_MM_S, CLUSTER_MIN_FRACTION * jmax) or (
                from_outside and J[k] == max(J[kk] for kk, p in enumerate(pairs) if p[0] in outside)
            ):
                conf = float(np.clip(0.5 + 0.45 * J[k] / max(jmax, 1e-9), 0.5, 0.9))
                mid = _r(0.5 * (pos[a] + pos[b]))
                out.append(_Cand("collision", t_wave, conf, {"a": a, "b": b, "pos": mid}))
        return out

    def _rest_after(self, bd: BallData, t: float) -> np.ndarray | None:
        """Where a ball on the table lies at the end of a shot (None: not on the table)."""
        last = None
        for r in bd.rests:
            if r.t0 <= t + 1e-6 or r.t0 <= t + 2 * self.dt:
                last = r
        mv_last = None
        for mv in bd.moves:
            if mv.t_start <= t + 1e-6:
                mv_last = mv
        if mv_last is not None and (last is None or mv_last.t_start > last.t0):
            if mv_last.end == "rest":
                return mv_last.anchor1
            if mv_last.end == "open":
                return mv_last.pieces[-1].at(mv_last.t_end)
            return None
        return None if last is None else last.anchor

    def _jaws_before_pots(self, cands: list[_Cand]) -> list[_Cand]:
        """A pocketed ball with no jaw contact found on its way in: one where its last
        samples before the pot pass within a radius (+ ``JAW_POT_TOL_MM``) of that
        pocket's jaws, heading into them (confidence 0.6): the first point within
        ``JAW_GAP_NOISE_MM`` of the jaw, else the closest (a ball sliding along a jaw
        into the pocket is seen within the noise of it for frames before a sample
        happens to read it touching: dev fb-rally/1757 at 60 fps, 90 ms late).  Most
        pots touch a jaw (the physics' own scenes: 4 in 5), often only between two
        frames."""
        g = self.geom
        out: list[_Cand] = []
        for c in cands:
            if c.type != "pocket":
                continue
            b, name = c.data["ball"], "jaw:" + c.data["pocket"]
            if any(
                o.type == "cushion"
                and o.data["ball"] == b
                and o.data["cushion"] == name
                and c.t - JAW_POT_WINDOW_S <= o.t <= c.t + self.dt
                for o in cands
            ):
                continue
            bd = self.data[b]
            k = (bd.ts >= c.t - JAW_POT_WINDOW_S) & (bd.ts <= c.t + self.dt)
            ts, xy = bd.ts[k], bd.xy[k]
            if len(ts) < 2:
                continue
            best = touch = None
            for i in range(len(ts) - 1):  # along the straight chord between samples
                for f in np.linspace(0.0, 1.0, 9):
                    p = xy[i] + f * (xy[i + 1] - xy[i])
                    v = (xy[i + 1] - xy[i]) / max(ts[i + 1] - ts[i], 1e-9)
                    gap = math.inf
                    into = JAW_POT_MIN_COS * float(np.linalg.norm(v))  # heading into it
                    for j, nm in enumerate(g.circ_name):
                        if nm == name:
                            rc = p - g.circ_c[j]
                            dc = float(np.linalg.norm(rc))
                            if float(np.dot(rc, v)) < -into * dc:
                                gap = min(gap, dc - g.circ_r[j] - self.R)
                    for j, nm in enumerate(g.seg_name):
                        if nm == name:
                            rel = p - g.seg_a[j]
                            along = float(np.dot(rel, g.seg_d[j]))
                            if 0 <= along <= g.seg_len[j] and float(np.dot(g.seg_n[j], v)) < -into:
                                gap = min(gap, float(np.dot(rel, g.seg_n[j])) - self.R)
                    t = float(ts[i] + f * (ts[i + 1] - ts[i]))
                    if gap <= JAW_GAP_NOISE_MM and touch is None:
                        touch = (gap, t, p)  # the first point on the jaw (within the noise)
                    if gap <= JAW_POT_TOL_MM and (best is None or gap < best[0]):
                        best = (gap, t, p)  # else the closest one within the slack
            best = touch or best
            if best is not None and best[1] <= c.t + 1e-6:
                fields = {"ball": b, "cushion": name, "pos": _r(best[2])}
                out.append(_Cand("cushion", best[1], 0.6, fields))
        return out

    def _mouth_events(self, mv: Move) -> list[_Cand]:
        """Pots, bounce-outs, hangs and off-table for one move."""
        R = self.R
        out: list[_Cand] = []
        bd = self.data[mv.ball]
        idx = np.array(mv.idx)
        pts, tts = bd.xy[idx], bd.ts[idx]
        # bounce-outs: in the mouth (centre past the mouth line), then back on the bed
        inside = None
        for p, t in zip(pts, tts, strict=False):
            name = self.shape.in_mouth_zone(p)
            if name is not None and self.shape.mouth_depth(p, name) > 0.25 * R:
                inside = inside or (name, float(t))
            elif inside is not None and self.shape.mouth_depth(p, inside[0]) < -0.5 * R:
                out.append(
                    _Cand("bounce_out", float(t), 0.7, {"ball": mv.ball, "pocket": inside[0]})
                )
                inside = None
        if mv.end == "rest":
            name = self.shape.in_mouth_zone(mv.anchor1)
            if name is None or self.shape.mouth_depth(mv.anchor1, name) <= 0.0:
                name = self.shape.over_drop(mv.anchor1)  # on the lip of the drop hole
            if name is not None:
                out.append(_Cand("hang", mv.t_end, 0.7, {"ball": mv.ball, "pocket": name}))
            return out
        if mv.end != "vanish":
            return out
        last = self._heading_piece(mv)
        t_last = float(tts[-1])
        p_last = pts[-1]
        # follow the last piece a little: where was it heading?
        path = [last.at(t_last + k * EXTRAPOLATE_S / 8) for k in range(9)]
        best = None
        for k, p in enumerate(path):
            name, d = self.shape.nearest_pocket(p)
            pk = self.pockets[name]
            near = d - 0.5 * pk.spec.mouth_mm
            if near < POCKET_NEAR_MM and (best is None or near < best[1]):
                best = (name, near, k)
                if self.shape.mouth_depth(p, name) > 0:
                    break
        if best is None and (drop := self.shape.over_drop(p_last)) is not None:
            # last seen over a drop hole, past the mouth's reach: it fell in (held-out
            # fp-rally/3925 at 30 fps: 14 at 3.5 m/s into the foot-right corner, rattled
            # deep to the drop's far side, 50 mm from the mouth's centre)
            best = (drop, 0.0, 0)
        if best is not None:
            name = best[0]
            # time it crossed the mouth line (or when last seen)
            t_cross = t_last
            for k in range(9):
                tk = t_last + k * EXTRAPOLATE_S / 8
                if self.shape.mouth_depth(last.at(tk), name) >= 0:
                    t_cross = tk
                    break
            depth = self.shape.mouth_depth(p_last, name)
            conf = 0.95 if depth > -R else (0.8 if best[2] <= 4 else 0.6)
            out = [c for c in out if c.type != "bounce_out" or c.t < t_last]
            out.append(_Cand("pocket", t_cross, conf, {"ball": mv.ball, "pocket": name}))
        else:
            conf = 0.8 if self.shape.min_edge(p_last) < 3 * R else 0.5
            out.append(_Cand("off_table", t_last, conf, {"ball": mv.ball}))
        return out

    def _heading_piece(self, mv: Move) -> Piece:
        """The move's last piece, to follow where a vanished ball was heading.  A last
        piece of one sample has no velocity: the ball's way into that sample (from the
        piece before, or from its anchor when it left it) stands in for it (a ball hit
        towards a pocket, seen once on the way and then lost, went on that way)."""
        last = mv.pieces[-1]
        if last.n >= 2:
            return last
        p1 = last.at(last.t0)
        if len(mv.pieces) >= 2:
            prev = mv.pieces[-2]
            p0, t0 = prev.at(prev.t1), prev.t1
        elif mv.anchor0 is not None:
            p0, t0 = mv.anchor0, min(mv.t_start, last.t0 - 0.5 * self.dt)
        else:
            return last
        v = (p1 - p0) / max(last.t0 - t0, 0.5 * self.dt)
        zero = np.zeros(1)
        return Piece(
            last.t0,
            last.t1,
            last.t0,
            np.concatenate([[p1[0], v[0]], zero]),
            np.concatenate([[p1[1], v[1]], zero]),
            2,
        )

    def _line_events(self, mv: Move) -> list[_Cand]:
        out: list[_Cand] = []
        bd = self.data[mv.ball]
        idx = list(mv.idx)
        pts = [mv.anchor0] if mv.anchor0 is not None else []
        tts = [mv.t_start] if mv.anchor0 is not None else []
        pts += [bd.xy[i] for i in idx]
        tts += [float(bd.ts[i]) for i in idx]
        h = LINE_HYSTERESIS_MM
        for name, ax, v in self.geom.lines:  # centre, house, axis (the physics' own)
            side = None
            for p, t in zip(pts, tts, strict=False):
                s = 1 if p[ax] > v + h else (-1 if p[ax] < v - h else 0)
                if s == 0:
                    continue
                if side is not None and s != side[0]:
                    p0, t0 = side[1], side[2]
                    f = (v - p0[ax]) / (p[ax] - p0[ax]) if p[ax] != p0[ax] else 0.5
                    tc = t0 + f * (t - t0)
                    if ax == 0:
                        direction = "to-foot" if s > 0 else "to-head"
                    else:
                        direction = "to-right" if s > 0 else "to-left"
                    out.append(
                        _Cand(
                            "line_cross",
                            float(tc),
                            0.9,
                            {"ball": mv.ball, "line": name, "direction": direction},
                        )
                    )
                side = (s, p, t)
        return out

    def _struck_into_pockets(self, cands: list[_Cand]) -> list[_Cand]:
        """A ball at rest beside a pocket (within ``POCKET_NEAR_MM`` of its mouth), hit and
        never seen again from the frame of the hit (``STRUCK_IN_FRAMES``), fell in between
        two images: a slow camera (LukasSeglias video_9, 15 fps) shows no sample of its way.
        Its ``ball_removed`` after the shot is a ``pocket`` at the hit (confidence 0.6)."""
        hits = [c for c in cands if c.type == "collision"]
        out = []
        for c in cands:
            b = c.data.get("ball")
            bd = self.data.get(b) if c.type == "ball_removed" else None
            if bd is not None and bd.rests and len(bd.ts):
                t_last = float(bd.ts[-1])
                win = STRUCK_IN_FRAMES * self.dt
                hit = any(
                    b in (h.data["a"], h.data["b"]) and abs(h.t - t_last) <= win for h in hits
                )
                name, d = self.shape.nearest_pocket(bd.rests[-1].anchor)
                near = d - 0.5 * self.pockets[name].spec.mouth_mm
                if hit and near < POCKET_NEAR_MM:
                    c = _Cand("pocket", t_last + self.dt, 0.6, {"ball": b, "pocket": name})
            out.append(c)
        return out

    def _roll_tail(self, mv: Move) -> bool:
        """Whether move ``mv``, which nothing struck, is the tail of the ball's own roll: it
        came to rest less than ``CREEP_MERGE_S`` before, sets off slower than
        ``3 * STROKE_MIN_SPEED_MM_S`` (or ends less than ``START_MM`` from where it set
        off: no speed to read) and goes on the way it was rolling (a ball creeping
        to a stop looks still for a moment in a real camera's noise), or any way when
        it lies in a pocket's mouth before and after (settling in the jaws).  A ball moved by
        nothing starts from a real rest, or another way (LukasSeglias video_12's white)."""
        if mv.anchor0 is None or mv.anchor1 is None or not mv.pieces:
            return False
        prev = [
            m
            for m in self.data[mv.ball].moves
            if m is not mv and m.end == "rest" and m.anchor1 is not None and m.t_end <= mv.t_start
        ]
        if not prev:
            return False
        p = max(prev, key=lambda m: m.t_end)
        # a move that ends less than START_MM from where it set off has no start speed
        # worth the name: two or three samples' noise (held-out fp-break/3629 at 60 fps:
        # 12 creeping to a stop at ~40 mm/s, read at rest for 0.33 s, then 3.7 mm more
        # over two samples, one 3 mm off, read as setting off at 278 mm/s)
        short = float(np.linalg.norm(mv.anchor1 - mv.anchor0)) < START_MM
        speed0 = _start_speed(mv)
        if mv.t_start - p.t_end > CREEP_MERGE_S or (
            speed0 >= 3 * STROKE_MIN_SPEED_MM_S and not short
        ):
            return False
        if (
            self.shape.in_mouth_zone(p.anchor1) is not None
            and self.shape.in_mouth_zone(mv.anchor1) is not None
        ):
            # it stopped in a pocket's mouth and settles there: a ball rattled in the
            # jaws rolls back down their slope any way (fp-rally/2888 at 60 fps: 15
            # lay still 0.2 s after four jaw touches, then drifted 5 mm)
            return True
        last = next((pc for pc in reversed(p.pieces) if pc.n >= 2), None)
        if last is None:
            return False
        was = p.anchor1 - last.at(last.t0)
        now = mv.anchor1 - mv.anchor0
        nw, nn = float(np.linalg.norm(was)), float(np.linalg.norm(now))
        return nw > 0 and nn > 0 and float(was @ now) > ROLL_TAIL_COS * nw * nn

    def _rattled_out(self, cands: list[_Cand], hand: list[_Cand], shots: list[dict]) -> list:
        """A ball pocketed by a stroke and found lying beside that pocket (within
        ``RATTLE_OUT_RADII`` of its mouth) before the stroke ended came back out of it (a
        ball that rattles out is not pocketed): the tracker lost it in the jaws and gave
        its id back when it lay still.  Its ``pocket`` becomes a ``bounce_out`` and its
        ``ball_placed`` after the shot goes (the james-ecd break's red in the middle
        pocket)."""
        pots = {c.data["ball"]: c for c in cands if c.type == "pocket"}
        drop: set[int] = set()
        out_hand = []
        for h in hand:
            pot = pots.get(h.data.get("ball")) if h.type == "ball_placed" else None
            if pot is None:
                out_hand.append(h)
                continue
            b, name = pot.data["ball"], pot.data["pocket"]
            rest = next(
                (r for r in self.data[b].rests if r.t0 > pot.t and _r(r.anchor) == h.data["pos"]),
                None,
            )
            shot = next(
                (s for s in shots if s["t_start"] - 1e-6 <= pot.t <= s["t_end_event"] + 1e-6),
                None,
            )
            mouth = self.pockets[name].mouth_centre
            near = (
                rest is not None
                and shot is not None
                and rest.t0 <= shot["t_end_event"] + 1e-6
                and math.dist(rest.anchor, mouth) < RATTLE_OUT_RADII * self.R
            )
            if not near:
                out_hand.append(h)
                continue
            drop.add(id(pot))
            out_hand.append(_Cand("bounce_out", rest.t0, 0.6, {"ball": b, "pocket": name}))
        return [c for c in cands if id(c) not in drop] + out_hand

    def _hand_events(self, init: dict[str, list[float]], shots: list[dict]) -> list[_Cand]:
        """Placings, removals and nudges outside the strokes."""
        out: list[_Cand] = []

        def in_shot(t: float) -> bool:
            return any(s["t_start"] - 1e-6 <= t <= s["t_end_event"] + 1e-6 for s in shots)

        for b, bd in self.data.items():
            # appearances: a rest that does not continue a move or the initial table
            for k, r in enumerate(bd.rests):
                if k == 0 and b in init:
                    continue
                # a rest after a move from a known rest is just where it stopped; after a
                # ball appeared moving (a hand rolling it in) it is a placing
                follows_move = any(
                    mv.end == "rest"
                    and abs(mv.t_end - r.t0) <= 2 * self.dt
                    and (mv.anchor0 is not None or k > 0 or b in init)
                    for mv in bd.moves
                )
                if follows_move:
                    continue
                prev = bd.rests[k - 1] if k > 0 else None
                if prev is not None and np.linalg.norm(prev.anchor - r.anchor) <= START_MM * 2:
                    continue  # hidden a while, back where it was
                t = r.t0
                if in_shot(t):
                    t = self._after_shot(t, shots)
                out.append(_Cand("ball_placed", t, 0.9, {"ball": b, "pos": _r(r.anchor)}))
            # disappearances at rest
            if bd.absent_after is not None and len(bd.ts):
                t_last = float(bd.ts[-1])
                last_mv = bd.moves[-1] if bd.moves else None
                if last_mv is not None and last_mv.end == "vanish":
                    continue  # pocketed / off the table (shot events)
                r = bd.rests[-1] if bd.rests else None
                pocket = self.shape.in_mouth_zone(r.anchor) if r is not None else None
                if r is not None and (
                    pocket is None or self.shape.mouth_depth(r.anchor, pocket) <= 0
                ):
                    pocket = self.shape.over_drop(r.anchor)  # on the lip of the drop hole
                if pocket is not None:
                    t = t_last
                    out.append(_Cand("hang_fall", t, 0.7, {"ball": b, "pocket": pocket}))
                    continue
                t = t_last
                if in_shot(t):
                    t = self._after_shot(t, shots)
                out.append(_Cand("ball_removed", t, 0.85, {"ball": b}))
            # nudges
            for mv in bd.moves:
                if mv.shot == -2 and self._left_its_rest(bd, mv):
                    out.append(
                        _Cand(
                            "ball_moved",
                            mv.t_start,
                            0.5,
                            {
                                "ball": b,
                                "pos": _r(mv.anchor1 if mv.anchor1 is not None else mv.anchor0),
                            },
                        )
                    )
        return out

    @staticmethod
    def _left_its_rest(bd: BallData, mv: Move) -> bool:
        """A nudge between strokes moved the ball: where it lay over the last
        ``NUDGE_LAY_S`` before the move (the median of those samples) and where it rests
        after lie more than ``START_MM`` apart.  A rest's anchor is the mean of its first
        samples, and a ball that crept into its rest leaves it some millimetres off where
        the ball came to lie: the noise alone then reads as a move from it (dev
        fp-break/1946 at 30 fps: ball 7 anchored 3.8 mm off, still, 'moved' 7.5 s later)."""
        k = (bd.ts >= mv.t_start - NUDGE_LAY_S) & (bd.ts < mv.t_start - 1e-9)
        if mv.anchor1 is None or not k.any():
            return True
        lay = np.median(bd.xy[k], axis=0)
        return float(np.linalg.norm(mv.anchor1 - lay)) > START_MM

    def _after_shot(self, t: float, shots: list[dict]) -> float:
        for s in shots:
            if s["t_start"] - 1e-6 <= t <= s["t_end_event"] + 1e-6:
                return s["t_end_event"] + 1e-3
        return t


_ORDER = {
    "shot_start": 0,
    "collision": 1,
    "cushion": 1,
    "line_cross": 2,
    "bounce_out": 2,
    "pocket": 3,
    "off_table": 3,
    "hang": 3,
    "shot_end": 4,
    "hang_fall": 5,
    "ball_removed": 5,
    "ball_placed": 6,
    "ball_moved": 6,
}


def _bent_head(pc: Piece) -> bool:
    """A one-sample piece with a velocity: a move's first sample split off a first piece
    that bent on its way (``_bent_off_anchor``)."""
    return pc.n == 1 and bool(pc.cx[1] or pc.cy[1])


def _r(p) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na > 0 and nb > 0 else 0.0


def _path_len(mv: Move) -> float:
    ps = mv.pieces
    if not ps:
        return 0.0
    a = mv.anchor0 if mv.anchor0 is not None else ps[0].at(ps[0].t0)
    b = mv.anchor1 if mv.anchor1 is not None else ps[-1].at(ps[-1].t1)
    return float(np.linalg.norm(np.asarray(b) - np.asarray(a)))


def _start_speed(mv: Move) -> float:
    """The speed (mm/s) a move sets off at: its first piece's.  A first piece of one
    sample has no velocity of its own when the ball struck another within a frame or two
    of leaving its rest (its one sample before the hit): then at least the way from the
    rest to that sample over the time since it was last seen there (dev fp-rally/2769 at
    30 fps: 7 at 2 m/s into 12, read as a ball moved by hand and 12 as the cue ball)."""
    pc = mv.pieces[0]
    v = float(np.linalg.norm(pc.vel(pc.t0)))
    if v > 0.0 or pc.n != 1 or mv.anchor0 is None or mv.t_rest0 is None:
        return v
    d = float(np.linalg.norm(pc.at(pc.t0) - mv.anchor0))
    return d / max(pc.t0 - mv.t_rest0, 1e-9)


def _key(c: _Cand) -> tuple:
    if c.type == "collision":
        return ("collision", frozenset((c.data["a"], c.data["b"])))
    if c.type == "cushion":
        return ("cushion", c.data["ball"], c.data["cushion"])
    return (c.type, c.data.get("ball"), c.data.get("cue_ball"))


def _same_contact(a, b) -> bool:
    if a[1] != b[1]:
        return False
    fa, fb = a[2], b[2]
    if a[1] == "collision":
        return {fa["a"], fa["b"]} == {fb["a"], fb["b"]}
    return fa.get("cushion") == fb.get("cushion")


def _dedupe(
    cands: list[_Cand],
    window_s: float,
    spot_window_s: float = 0.0,
    spot_mm: float = 0.0,
    met_anew: Callable[[_Cand, _Cand], bool] | None = None,
) -> list[_Cand]:
    """One event per contact: the same pair / ball and cushion found twice close in time
    (``window_s``), or found twice at the same spot (``spot_mm``) a little later
    (``spot_window_s``: one contact whose bend two rules located a frame or two apart)
    -- unless ``met_anew(earlier, later)`` says a pair parted and met again."""
    out: list[_Cand] = []
    for c in sorted(cands, key=lambda c: c.t):
        if c.type in ("collision", "cushion"):
            k = _key(c)
            dup = next(
                (
                    o
                    for o in reversed(out)
                    if _key(o) == k
                    and (
                        abs(o.t - c.t) <= window_s
                        or (abs(o.t - c.t) <= spot_window_s and _same_spot(o, c, spot_mm))
                    )
                    and not (c.type == "collision" and met_anew is not None and met_anew(o, c))
                ),
                None,
            )
            if dup is not None:  # keep the earlier finding: the later one re-finds it
                dup.conf = min(0.99, max(dup.conf, c.conf) + 0.05)
                continue
        out.append(c)
    return out


def _same_spot(a: _Cand, b: _Cand, within_mm: float) -> bool:
    pa, pb = a.data.get("pos"), b.data.get("pos")
    if pa is None or pb is None:
        return False
    return math.hypot(pa[0] - pb[0], pa[1] - pb[1]) <= within_mm


def _before_first_stroke(events: Sequence[Event]) -> dict[str, tuple[float, float]]:
    """The balls on the table when the first stroke starts (the stream's end if none)."""
    on: dict[str, tuple[float, float]] = {}
    for e in events:
        if e.type == "table_state":
            on = {b: (float(v[0]), float(v[1])) for b, v in e["positions"].items()}
        elif e.type == "shot_start":
            break
        elif e.type in ("ball_placed", "ball_moved"):
            on[e["ball"]] = (float(e["pos"][0]), float(e["pos"][1]))
        elif e.type in ("ball_removed", "pocket", "off_table", "hang_fall"):
            on.pop(e["ball"], None)
    return on


def is_break_setup(
    positions: dict[str, tuple[float, float]], profile: TableProfile, game: str
) -> bool:
    """True when ``positions`` are the game's opening set-up, within ``SETUP_TOL_RADII``.

    Free Pyramid (GR-9): 16 balls, 15 of them on the triangle's points.  Five Ball
    (FB-4): the kaisa on the centre spot and a red on each of the head- and foot-line
    spots."""
    tol = SETUP_TOL_RADII * profile.ball_radius_mm
    if game == "free-pyramid":
        if len(positions) != 16:
            return False
        pts = profile.rack_positions(5)
        free = list(positions.values())
        for q in pts:  # every rack point holds a ball (closest first, each ball once)
            d = [math.dist(q, p) for p in free]
            if not d or min(d) > tol:
                return False
            free.pop(int(np.argmin(d)))
        return True
    if game == "five-ball":
        if len(positions) != 5:
            return False
        L, W = profile.length_mm, profile.width_mm
        sp = profile.spots
        centre = sp.get("fb-centre", (L / 2, W / 2))
        hl, fl = sp.get("fb-head-line", (L / 4, W / 2)), sp.get("fb-foot-line", (3 * L / 4, W / 2))
        k = positions.get("K")
        reds = [positions.get("R1"), positions.get("R2")]
        if k is None or None in reds or math.dist(k, centre) > tol:
            return False
        r1, r2 = reds
        return (
            max(math.dist(r1, hl), math.dist(r2, fl)) <= tol
            or max(math.dist(r1, fl), math.dist(r2, hl)) <= tol
        )
    return True


def take_up_score(n_on_table: int, game: str) -> dict[str, int]:
    """The placeholder score of a game taken up mid-way (the camera cannot know it).

    Free Pyramid: every ball off the table is a point (the rules check that they add
    up to 16), shared as evenly as possible, ``A`` the larger half.  Five Ball: 0-0."""
    if game == "free-pyramid":
        m = max(0, 16 - n_on_table)
        return {"A": (m + 1) // 2, "B": m // 2}
    return {"A": 0, "B": 0}


def take_up(events: list[Event], profile: TableProfile, game: str) -> list[Event]:
    """A stream that does not open on the game's set-up is a game taken up mid-way.

    Its ``table_state`` gets ``score`` (:func:`take_up_score`, a placeholder) and
    ``"take_up": true`` so the rules score it from there instead of refusing a break
    from a broken rack.  A stream that already carries ``score`` is left alone."""
    if not events or events[0].type != "table_state" or "score" in events[0].data:
        return events
    first = next((e for e in events if e.type == "shot_start"), None)
    if first is not None and first.get("lag"):
        return events  # a lag (GR-8) comes before the rack: the game has not started
    on = _before_first_stroke(events)
    if is_break_setup(on, profile, game):
        return events
    ts = events[0]
    rest = list(events[1:])
    positions = dict(ts["positions"])
    if game == "free-pyramid":
        # A ball the stream first puts on the table after the first stroke was there
        # all along, unseen (a Free Pyramid ball off the table at the take-up is a
        # point, and a scored ball never comes back, GR-22): it stands in the
        # table_state from the start, where it was first seen.
        # A hand seen putting it down keeps its event (the rules take it as a ball
        # put where it stands); the stream's own stand-in placement goes.
        known = set(on)
        started = False
        late: dict[str, list[float]] = {}
        for e in list(rest):
            started = started or e.type == "shot_start"
            b = e.get("ball")
            if e.type == "ball_placed" and started and b not in known:
                late[b] = positions[b] = list(e["pos"])
                on[b] = (float(e["pos"][0]), float(e["pos"][1]))
                if e.confidence < LOW_CONFIDENCE:
                    rest.remove(e)
            for k in ("cue_ball", "ball", "a", "b"):
                if e.get(k) is not None:
                    known.add(e.get(k))
        if late:  # every shot_end before its placement lists it where it stands
            seen: set[str] = set()
            for i, e in enumerate(rest):
                if e.type == "ball_placed" and e.get("ball") in late:
                    seen.add(e["ball"])
                if e.type == "shot_end":
                    add = {b: p for b, p in late.items() if b not in seen}
                    if add:
                        data = {**e.data, "positions": {**e["positions"], **add}}
                        rest[i] = Event(e.type, e.t, e.frame, e.confidence, data)
    data = {**ts.data, "positions": positions}
    data.update(score=take_up_score(len(on), game), take_up=True)
    return [Event(ts.type, ts.t, ts.frame, ts.confidence, data), *rest]


def extract_events(
    frames: Sequence[FrameObs], profile: TableProfile, game: str, replay_racks: bool = True
) -> list[Event]:
    """The event stream (``table_state`` first) from per-frame ball positions.

    ``replay_racks``: a breaking rack's collisions from physics replays of the wave
    (``vision/rack_wave.py``, ~5-7 s of CPU a break) instead of the impulse fit alone; a
    live scoreboard, which needs no pair inside the rack, turns it off to keep up."""
    return EventExtractor(profile, game, replay_racks).extract(frames)
