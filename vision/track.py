"""Tracking: ball identities kept over time, in table millimetres.

Points, not boxes: each track is a ball id (DESIGN.md) with a centre and a
velocity in table mm.  Per frame:

1. Predict every track with the table's physics (:class:`MotionModel`: rolling
   friction, cushion reflection with the cushion's restitution, capture by a
   pocket mouth).  A ball at rest predicts itself where it is.
2. Assign detections to tracks by optimal assignment (scipy
   ``linear_sum_assignment``), norfair-style with an injected distance: the
   distance in mm plus a class term (``-log P(class)``), gated.  Two passes:
   first a tight gate around each prediction (a ball at rest only accepts a
   detection within ``REST_GATE_RADII`` of where it lies -- so a ball at rest
   stays put and look-alike neighbours cannot swap), then a wide,
   speed-limited gate for balls that have left their spot (struck, kissed).
3. Unmatched tracks are *hidden*, not dropped: a ball under a hand or a cue keeps
   its last position.  One that vanishes while moving towards a pocket mouth
   is a pot candidate, confirmed after ``POT_CONFIRM_S``; elsewhere it is a
   jump or a hand (``off_table`` / ``ball_removed`` once the table is at rest).
4. Unmatched detections become a ball only when an id of that class is free
   (pocketed, removed, never seen) and the detection persists
   (``ball_placed``) -- the ball set of a game is fixed, so clutter never
   becomes a ball.

Identities among 15 identical ivory balls come from the rack (or the first
frame, by position) and are then only ever carried, never re-guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np
from scipy.optimize import linear_sum_assignment

from luza.calibration.profiles import TableProfile
from luza.events import BALLS_BY_GAME, Event, make

from .detections import STREAK_END_MAX_SCORE, Detections

INIT_MIN_CLASS_PROB = 0.02  # a first-frame detection below this for a class cannot be that ball
INIT_NO_MATCH_COST = 1e6
GATED_COST = 1e6  # an assignment pair outside every gate ...
GATE_OPEN_COST = 1e5  # ... and any cost below this: a pair inside one

G_MM_S2 = 9810.0
REST_SPEED_MM_S = 25.0  # below this a ball counts as still
REST_GATE_RADII = 0.45  # a still ball accepts a detection this close (ball radii)
MOVING_GATE_RADII = 1.2  # plus this around a moving ball's prediction
MAX_SPEED_MM_S = 12000.0  # fastest ball (a hard break) -- the wide gate's limit
POT_CONFIRM_S = 0.25  # a ball gone this long near a pocket is pocketed
POCKET_NEAR_RADII = 3.0  # "near a pocket": within this of a mouth (ball radii)
PLACE_CONFIRM_FRAMES = 8  # a new ball must be seen this many frames running, still ...
PLACE_CONFIRM_S = 0.4  # ... for at least this long
HIDDEN_STILL_JUMP_S = 0.1  # a still ball hidden longer than this reappears only in place
HAND_SPEED_MM_S = 2000.0  # a ball lost under a hand goes with it at most this fast
REST_CONFIRM_S = 0.5  # the table is at rest after every ball is still this long
GONE_CONFIRM_S = 1.0  # a hidden ball missing this long at rest is off the table
CLASS_COST_MM = 40.0  # cost (mm) of a class log-probability unit
STILL_DRIFT_MM = 4.0  # a still ball measured further than this from its spot is rolling
JITTER_ALPHA = 0.15  # smoothing of a still ball's position (median-like)
EVIDENCE_DECAY = 0.995  # per observation: old class evidence fades over a few hundred frames
SWAP_EVIDENCE_NATS = 12.0  # W1/W2 evidence margin that swaps the two whites
# ... and only if neither white's own views speak against it by more than this: a swap
# renames both balls, so both must look like the other one (or be undecided)
SWAP_OPPOSED_NATS = 1.0
REST_VIEWS_MAX = 6.0  # a still ball's views on one spot weigh at most this many views
VELOCITY_ALPHA = 0.6  # weight of the measured velocity against the predicted
HIDDEN_SPEED_FACTOR = 1.5  # a ball lost while moving is found within this x its speed ...
HIDDEN_SPEED_MARGIN_MM_S = 1000.0  # ... plus this (a kiss unseen may speed it up a little)
# A ball rolling in plain view that no other ball can reach cannot speed up: it is
# found within this many times its own travel of where it was (a cushion or a still
# ball it meets only turns it) ...
LONE_TRAVEL_FACTOR = 2.0
LONE_MIN_MOVING_OBS = 2  # ... once its speed comes from this many moving observations
# A ball whose centre is seen this far inside a pocket's drop hole falls: it never comes
# back (a ball on the lip, within the margin of the edge, may hang there).  What is seen
# of it afterwards -- the top of a ball sinking into the pocket, which the bed-plane
# parallax correction puts back out on the bed -- is not that ball on the table.
DROP_MARGIN_RADII = 0.25
# A first-frame detection that does not look like a whole ball alone on the cloth (the
# pipeline says which: a hand, an arm, or a rack ball crowded by its neighbours) gets
# its id only provisionally: it must stay exactly where it is, seen every frame, this
# long before it counts as a ball; one that moves or goes is dropped without an event.
PROVISIONAL_CONFIRM_S = 0.3
PROVISIONAL_GATE_RADII = 0.25
# A still ball the physics predicts was kissed into motion between two frames, found
# within this many radii of where the physics put it, takes the physics' velocity --
# and within this fraction of the step the physics predicted for it (or the floor, in
# radii): a ball seen a third of the way the chain sent it got less of the break's
# energy than the chain gave it (a rack's contacts are near-simultaneous; the chain
# plays them one by one), and its physics' speed then crossed a neighbour's path
KISS_AGREE_RADII = 1.5
KISS_AGREE_STEP_FRACTION = 0.5
KISS_AGREE_FLOOR_RADII = 0.5
# A ball lost from view while moving rolls on in the prediction this long (a red on a red
# cloth, a white whose blur streak is too faint: predicted along its path, found again)
HIDDEN_ROLL_S = 1.0
STREAK_GAP_HALF_LENGTHS = 8.0  # a streak starts at most this many half lengths from its spot
STREAK_GAP_MAX_FRAMES = 3  # ... for each frame the ball has been unseen, up to this many
# ... and, when it starts at least this many radii from it, with cloth showing somewhere
# between (a struck ball leaves its way behind it bare; a cue's shaft covers it all)
COVERED_GAP_MIN_RADII = 2.0
# A ball's smear moves on by at least its own length a frame (the exposure is at most a
# frame long): a streak no ball took that is seen again within a radius of where it lay
# up to this long before is something lying there (a cue's shaft, a rest's head), and
# no still ball is struck into it.
STATIC_STREAK_S = 0.2
RACK_FILL_MIN = 10  # Free Pyramid: this many rack slots filled at the start is the rack
# A still ball that vanishes with no arm or hand over it was struck and flew off unseen
# (a streak too faint to find): it is looked for anywhere for this long before the
# table at rest counts it as gone.  Kept short: a hand that takes a ball near a corner
# is not always seen as an arm (its blob lies mostly over the rail), and a penalty ball
# taken by hand must be removed before the next stroke (the bundled fp-penalty clip
# ends 1.6 s after the take; 3 s lost its ball_removed)
STRUCK_GONE_S = 1.2
# A ball found still within this of the mouth of a pocket a ball went into during the same
# shot rattled out of it (ball radii): it takes that ball's id back, even when it reads as
# another class -- if its own class has no free id and it does not read as "none"
RATTLE_OUT_RADII = 6.0
RATTLE_OUT_MAX_NONE = 0.5
# A still ball under a hand (its spot in a player's arm) is not struck by the hand: a blob
# in that arm without a crisp rim (below this detector score) is the hand's as much as the
# ball's -- within the rest gate a view of the ball that does not move it, beyond it none.
# A hand taking a penalty ball drew it away: a false shot_start, the ball off the table.
HAND_BLOB_MAX_SCORE = 0.7
# A ball lost from view while rolling that no other ball can have met unseen goes straight
# on: a streak (no rim, no class: only where it lies tells whose it is) further than this
# to the side of its line is not its smear.  A cue shaft lying on the cloth read as a
# 148 mm streak 150 mm to the side of a white lost under the bridge hand, and the white
# took it (fb-rally_s9011_720p60).  Balls meet when their paths pass within MEET_RADII.
LOST_LINE_RADII = 1.5
MEET_RADII = 3.0
# A ball lost from view while rolling into a cushion (faster than JUMP_MIN_SPEED_MM_S
# towards it, reaching it within JUMP_REACH_S) and then not found on its predicted way
# back for JUMP_UNSEEN_FRAMES frames running, though that way shows plain cloth, went
# over the rail: it is no longer rolled on in the prediction, and what shows up far from
# where it went is not it -- it may only fall back onto the bed within JUMP_BACK_RADII of
# there, or be put back by hand (a still view confirmed as a new ball).  The yellow of
# fp-jump_s9309_720p60, gone over the rail, rolled on unseen for 0.8 s and took the
# bridge hand 900 mm away as itself (18 false views).
JUMP_MIN_SPEED_MM_S = 2000.0
JUMP_REACH_S = 0.035
JUMP_UNSEEN_FRAMES = 3
JUMP_BACK_RADII = 3.0
# A still ball gone from its spot unseen (struck under a cue, its spot now plain cloth)
# may be anywhere -- but not a view the classifier gives its colour less than this
# (W1 and W2 are one colour): fp-jump_s9309_720p60, an ivory ball hidden for a frame
# under a sleeve the cloth's colour took the yellow put back by hand 576 mm away (P(Y) 1.0).
STILL_MIN_COLOUR_PROB = 0.02
# ... nor, while its spot is covered, does it turn into something the classifier reads
# as "none" at least this many times as well as its colour: a palm's edge beside the
# yellow as a hand covered it (rim score 0.75, none 0.48, yellow 0.21) took the yellow
# 46 mm away, and it sat on the palm for two seconds (fp-rally_s9931_1080p60: 122 false
# detections).  A streak has no row.  A spot showing cloth again is a ball gone: a red
# struck on a red cloth reads "none" as much as red (fb-kaisa-middle_s9816_720p60).
STILL_NONE_OVER_COLOUR = 1.0
# ... unless its rim is this crisp: the white struck in LukasSeglias video_13, the cue
# over its spot, read none 0.97 on a full rim (1.0) 42 mm from it -- the ball itself
# (the pipeline keeps such a rim near a still ball's spot whatever the classifier says)
STILL_NONE_MAX_SCORE = 0.9


# A provisional first-frame id given up goes to a ball that reads as its class by this
# much more than as its own (log-probability, summed over its views; see _give_freed_id)
FREED_ID_NATS = 3.0


# Which detection class each ball id has.
def ball_class(game: str, ball: str) -> str:
    if game == "free-pyramid":
        return "Y" if ball == "Y" else "ivory"
    return {"W1": "W1", "W2": "W2", "R1": "red", "R2": "red", "K": "K"}[ball]


def _colour(cls: str) -> str:
    """A class's colour: white 1 and white 2 are one."""
    return "white" if cls in ("W1", "W2") else cls


@dataclass
class Track:
    ball: str
    cls: str
    xy: np.ndarray
    v: np.ndarray = field(default_factory=lambda: np.zeros(2))
    state: str = "table"  # table | hidden | pocketed | off
    last_seen_t: float = 0.0
    last_seen_frame: int = 0
    still_since_t: float | None = 0.0
    pocket: str | None = None
    seen: int = 0
    lost_moving: bool = False  # it was moving when it was last seen
    removed_at_rest: bool = False  # given up still, its spot reading as cloth (ball_removed)
    evidence: np.ndarray | None = None  # decayed sum of class log-probabilities
    evidence_classes: tuple[str, ...] = ()
    seen_xy: np.ndarray | None = None  # where it was last observed
    lost_speed: float = 0.0  # its speed when it was lost from view
    last_view: np.ndarray | None = None  # the class row last added to the evidence
    moving_obs: int = 0  # observations in a row that found it moving
    meas_speed: float = 0.0  # its speed measured between its last two observations
    falling: str | None = None  # the pocket whose drop hole it was seen over
    provisional_until: float | None = None  # a doubtful first-frame ball, confirmed then
    lost_in_arm: bool = True  # a still ball that went from view under an arm or a hand
    top_speed: float = 0.0  # its fastest lately, less what friction took since
    rail_lost: bool = False  # lost while rolling into a cushion (see JUMP_MIN_SPEED_MM_S)
    unseen_bare: int = 0  # frames running its predicted way showed plain cloth
    jumped: bool = False  # ... long enough: it went over the rail
    # Its views while lying still on one spot weigh as REST_VIEWS_MAX views at most (their
    # mean): where that rest began, the evidence before it, the sum and count of its views
    rest_xy: np.ndarray | None = None
    rest_base: np.ndarray | None = None
    rest_sum: np.ndarray | None = None
    rest_n: int = 0

    @property
    def speed(self) -> float:
        v = self.v  # (not hypot(*v): unpacking an array costs 4x as much; asked ~300 a frame)
        return math.hypot(v[0], v[1])

    @property
    def on_table(self) -> bool:
        return self.state in ("table", "hidden")


def _swap_states(a: Track, b: Track) -> None:
    """Exchange everything two tracks know but their ids and classes (a renaming)."""
    for f in fields(Track):
        if f.name not in ("ball", "cls"):
            va, vb = getattr(a, f.name), getattr(b, f.name)
            setattr(a, f.name, vb)
            setattr(b, f.name, va)


class MotionModel:
    """Free-ball prediction on one table: rolling friction, cushions, pockets."""

    def __init__(self, profile: TableProfile) -> None:
        self.profile = profile
        self.R = profile.ball_radius_mm
        ph = profile.physics
        self.decel_mm_s2 = ph.get("mu_roll", 0.012) * G_MM_S2
        self.e_cushion = ph.get("e_cushion", 0.6)
        self.pockets = profile.pockets()
        self._mouths = [
            (float(x), float(y)) for x, y in (p.mouth_centre for p in self.pockets.values())
        ]
        self._names = list(self.pockets)

    def nearest_pocket(self, xy: np.ndarray) -> tuple[str, float]:
        # plain floats over the six mouths: asked for every ball every frame and at every
        # prediction sub-step, where numpy's per-call cost was most of the tracker's time
        x, y = float(xy[0]), float(xy[1])
        best, i = math.inf, 0
        for k, (mx, my) in enumerate(self._mouths):
            dx, dy = mx - x, my - y
            d2 = dx * dx + dy * dy
            if d2 < best:
                best, i = d2, k
        return self._names[i], math.sqrt(best)

    def in_mouth(self, xy: np.ndarray) -> bool:
        name, d = self.nearest_pocket(xy)
        return d < 0.5 * self.pockets[name].spec.mouth_mm

    def over_drop(self, xy: np.ndarray, margin_mm: float = 0.0) -> str | None:
        """The pocket whose drop hole the centre ``xy`` is over (``margin_mm`` inside its
        edge), or None."""
        name, _ = self.nearest_pocket(xy)
        pk = self.pockets[name]
        d = math.hypot(xy[0] - pk.centre[0], xy[1] - pk.centre[1])
        return name if d < pk.spec.drop_radius_mm - margin_mm else None

    def predict(self, xy: np.ndarray, v: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """Position and velocity after ``dt`` seconds (a few sub-steps; cushion bounces;
        a ball whose centre reaches a pocket's drop hole falls in and stops there)."""
        speed = math.hypot(v[0], v[1])
        if speed < 1e-6 or dt <= 0:
            return xy.copy(), np.zeros(2)
        t_stop = speed / self.decel_mm_s2
        dt_eff = min(dt, t_stop)
        n = max(1, int(math.ceil(speed * dt_eff / (0.5 * self.R))))
        h = dt_eff / n
        p, vel = xy.astype(float).copy(), v.astype(float).copy()
        L, W, R = self.profile.length_mm, self.profile.width_mm, self.R
        for _ in range(n):
            s = math.hypot(vel[0], vel[1])
            if s < 1e-6:
                break
            a = -self.decel_mm_s2 * vel / s
            p = p + vel * h + 0.5 * a * h * h
            vel = vel + a * h
            if self.over_drop(p) is not None:
                return p, np.zeros(2)  # past the mouth, over the hole: it falls
            if self.in_mouth(p):
                continue  # no cushion inside a pocket mouth
            for k, hi in ((0, L - R), (1, W - R)):
                if p[k] < R:
                    p[k] = 2 * R - p[k]
                    vel[k] = -vel[k] * self.e_cushion
                elif p[k] > hi:
                    p[k] = 2 * hi - p[k]
                    vel[k] = -vel[k] * self.e_cushion
        if dt >= t_stop:
            vel = np.zeros(2)
        return p, vel

    def predict_all(
        self, xy: np.ndarray, v: np.ndarray, dt: float, max_events: int = 64
    ) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
        """Predict several balls together over ``dt``: ball-ball collisions included.

        Event-driven over the interval: the earliest touching pair is resolved with
        an equal-mass collision (normal components exchanged, restitution
        ``e_ball``), which is how a struck ball sets a resting one -- or the whole
        rack -- in motion between two frames.  Then friction and cushions per ball.
        Returns positions, velocities and the colliding pairs.
        """
        P = np.asarray(xy, float).copy()
        V = np.asarray(v, float).copy()
        n = len(P)
        pairs: list[tuple[int, int]] = []
        if n == 0 or dt <= 0:
            return P, V, pairs
        D2 = (2 * self.R) ** 2
        e = self.profile.physics.get("e_ball", 0.93)
        t = 0.0
        moving0 = np.hypot(V[:, 0], V[:, 1]) > 1e-6
        if not moving0.any():
            return P, V, pairs
        for _ in range(max_events):
            dP = P[:, None, :] - P[None, :, :]
            dV = V[:, None, :] - V[None, :, :]
            a = (dV**2).sum(-1)
            b = (dP * dV).sum(-1)
            c = (dP**2).sum(-1) - D2
            disc = b * b - a * c
            with np.errstate(divide="ignore", invalid="ignore"):
                s = np.where((b < 0) & (disc >= 0) & (a > 1e-9), (-b - np.sqrt(disc)) / a, np.inf)
            s[np.eye(n, dtype=bool)] = np.inf
            s = np.where(s < -1e-9, np.where(c < 0, 0.0, np.inf), np.maximum(s, 0.0))
            k = int(np.argmin(s))
            i, j = divmod(k, n)
            si = float(s[i, j])
            if not math.isfinite(si) or t + si > dt:
                break
            P += V * si
            t += si
            nv = P[j] - P[i]
            nn = np.linalg.norm(nv)
            if nn < 1e-9:
                break
            nv /= nn
            vi, vj = float(V[i] @ nv), float(V[j] @ nv)
            if vi - vj <= 0:
                break
            # equal masses: exchange the normal components (with restitution)
            ci = 0.5 * (vi + vj) - 0.5 * e * (vi - vj)
            cj = 0.5 * (vi + vj) + 0.5 * e * (vi - vj)
            V[i] += (ci - vi) * nv
            V[j] += (cj - vj) * nv
            pairs.append((i, j))
        rem = dt - t
        for i in range(n):
            P[i], V[i] = self.predict(P[i], V[i], rem) if rem > 0 else (P[i], V[i])
        return P, V, pairs


@dataclass
class TrackerOutput:
    frame: int
    t: float
    positions: dict[str, tuple[float, float]]  # balls on the table (hidden included)
    visible: set[str]
    events: list[Event]


class BallTracker:
    """Keeps ball identities over frames of one game on one table."""

    def __init__(self, profile: TableProfile, game: str) -> None:
        if game not in BALLS_BY_GAME:
            raise ValueError(f"unknown game {game!r}")
        self.profile = profile
        self.game = game
        self.R = profile.ball_radius_mm
        self.motion = MotionModel(profile)
        self.tracks: dict[str, Track] = {}
        self.t: float | None = None
        self.frame = -1
        self._pending: list[tuple[np.ndarray, str, int, float]] = []  # xy, cls, count, t
        self.table_still_since: float | None = None
        self.in_shot = False
        self.shot_start_t = -math.inf
        self.started = False
        self._last_match: dict[str, int] = {}
        self._last_xy: np.ndarray | None = None
        self._last_n_unmatched = 0
        # occluded(xy_mm) -> bool: is something (not cloth) over that spot now?  Set by
        # the pipeline; without it a hidden ball is never given up.
        self.occluded = None
        # bare(xy_mm) -> bool: does that spot show plain cloth now (stricter than "not
        # occluded")?  Set by the pipeline; without it, "not occluded" is plain cloth.
        self.bare = None
        # spot_changed(xy_mm) -> bool: did the pixels over that spot change this frame?
        # Set by the pipeline; without it every spot counts as changed.
        self.spot_changed = None
        # spot_changed_lately(xy_mm) -> bool: ... in this frame or one of the
        # STREAK_GAP_MAX_FRAMES before it?  Set by the pipeline; without it, yes.
        self.spot_changed_lately = None
        # in_arm(xy_mm) -> bool: does that spot lie in a player's arm, hand or body (a
        # large foreground blob reaching in over a cushion)?  Set by the pipeline; a
        # provisional ball there is not confirmed while it is.
        self.in_arm = None
        # cue_ahead(xy_mm, u) -> bool: does a thin line (a cue) run on from that point
        # along unit vector u?  Set by the pipeline; without it, never.
        self.cue_ahead = None
        self._vanished: dict[tuple[int, str], bool] = {}
        # Per row of the last update's detections: taken by a ball, or merged into
        # another row as the far end of a motion-blur streak (read by the pipeline)
        self.rows_taken = np.zeros(0, bool)
        self.rows_merged = np.zeros(0, bool)
        self._rows_placed: list[int] = []  # rows a ball was placed on (put down, back, found)
        self._loose_streaks: list[tuple[float, np.ndarray]] = []  # (t, xy): no ball took them
        self._freed: list[str] = []  # ids given up by provisional first-frame blobs

    # ----------------------------------------------------------------- set-up
    def initialise(self, det: Detections, provisional: np.ndarray | None = None) -> list[Event]:
        """Give ids to the first frame's detections (rack order where it fits);
        ``provisional`` rows get theirs only provisionally (``PROVISIONAL_CONFIRM_S``)."""
        ids = BALLS_BY_GAME[self.game]
        if provisional is None or len(provisional) != len(det):
            provisional = np.zeros(len(det), bool)
        if det.is_streak.any():
            provisional = provisional[~det.is_streak]
            det = det[~det.is_streak]  # a blur streak is no ball to give an id
        labels = det.labels
        xy = det.xy_mm
        free = {c: [b for b in ids if ball_class(self.game, b) == c] for c in set(self._classes())}
        # One detection per id, the best overall: an optimal assignment of detections
        # to the game's ids on class probability x detection score, so two balls
        # whose best guess is the same class (white 2 read as white 1) both get an
        # id -- one of them the other class -- instead of one being dropped.
        slots = [c for c, balls in free.items() for _ in balls]
        relabel: dict[int, str] = {}
        chosen: list[int] = []
        if len(det) and slots:
            cost = np.full((len(det), len(slots)), INIT_NO_MATCH_COST)
            k = {c: j for j, c in enumerate(det.classes)} if det.classes else {}
            for i in range(len(det)):
                for j, c in enumerate(slots):
                    if k and det.cls_prob.shape[1]:
                        p = float(det.cls_prob[i, k[c]]) if c in k else 0.0
                    else:
                        p = 1.0 if (labels[i] or self._classes()[0]) == c else 0.0
                    if p >= INIT_MIN_CLASS_PROB:
                        cost[i, j] = -math.log(p) - math.log(max(float(det.score[i]), 1e-6))
            rows, cols = linear_sum_assignment(cost)
            for i, j in zip(rows, cols, strict=True):
                if cost[i, j] < INIT_NO_MATCH_COST:
                    chosen.append(int(i))
                    relabel[int(i)] = slots[j]
        labels = [relabel.get(i, lab) for i, lab in enumerate(labels)]
        order = [i for i in self._id_order(xy, labels) if i in set(chosen)]
        holes = self._rack_holes(xy[[i for i in order if labels[i] == "ivory"]])
        used = set()
        for i in self._with_holes(order, holes, xy):
            c = labels[i] if i >= 0 and labels[i] else self._classes()[0]
            if i < 0:
                c = "ivory"
            cands = [b for b in free.get(c, []) if b not in used]
            if not cands:
                continue
            b = cands[0]
            used.add(b)
            if i < 0:  # a rack ball the detector missed: there, unseen
                slot = holes[-1 - i]
                self.tracks[b] = Track(b, c, slot.copy(), state="hidden", last_seen_t=det.t)
                continue
            self.tracks[b] = Track(b, c, xy[i].copy(), last_seen_t=det.t, seen=1)
            if provisional[i]:
                self.tracks[b].provisional_until = det.t + PROVISIONAL_CONFIRM_S
            self._evidence(self.tracks[b], det, i)
        for b in ids:
            if b not in self.tracks:
                self.tracks[b] = Track(
                    b, ball_class(self.game, b), np.zeros(2), state="off", still_since_t=None
                )
        self.t, self.frame = det.t, det.frame
        self.started = True
        return [
            make("table_state", det.t, det.frame, 1.0, game=self.game, positions=self._rounded())
        ]

    def _classes(self) -> list[str]:
        return sorted({ball_class(self.game, b) for b in BALLS_BY_GAME[self.game]})

    def on_rack(self, xy: np.ndarray) -> np.ndarray:
        """Free Pyramid: which of these points lie on the rack's slots, when at least
        ``RACK_FILL_MIN`` slots are filled (then they are the rack's balls, however
        crowded they look); all False otherwise."""
        out = np.zeros(len(xy), bool)
        if self.game != "free-pyramid" or "rear" not in self.profile.spots or not len(xy):
            return out
        rack = np.array(self.profile.rack_positions())
        d = np.linalg.norm(np.asarray(xy)[:, None] - rack[None], axis=2)
        near = d < 0.5 * self.R
        if near.any(axis=0).sum() >= RACK_FILL_MIN:
            out = near.any(axis=1)
        return out

    def _rack_holes(self, ivory_xy: np.ndarray) -> list[np.ndarray]:
        """Free Pyramid: the rack slots no detection fills when most are filled (the
        detector missed a ball or two in the tight rack: they are there all the same,
        and a ball the tracker does not know of takes a neighbour's id at the break)."""
        if self.game != "free-pyramid" or "rear" not in self.profile.spots or not len(ivory_xy):
            return []
        rack = np.array(self.profile.rack_positions())
        d = np.linalg.norm(rack[:, None] - ivory_xy[None], axis=2)
        filled = (d < 0.5 * self.R).any(axis=1)
        if filled.sum() < RACK_FILL_MIN or filled.all():
            return []
        return [rack[j] for j in np.nonzero(~filled)[0]]

    def _with_holes(self, order: list[int], holes: list[np.ndarray], xy: np.ndarray) -> list:
        """Detection indices in numbering order with the rack holes (as -1, -2, ...)
        in their rack slots' places."""
        if not holes:
            return order
        rack = np.array(self.profile.rack_positions())

        def slot(p: np.ndarray) -> float:
            d = np.linalg.norm(rack - p, axis=1)
            j = int(np.argmin(d))
            return float(j) if d[j] < 0.5 * self.R else math.inf  # off the rack: after

        keyed = [(slot(xy[i]), n, i) for n, i in enumerate(order)]
        keyed += [(slot(h), -1, -1 - k) for k, h in enumerate(holes)]
        return [i for _, _, i in sorted(keyed)]

    def _id_order(self, xy: np.ndarray, labels: list[str]) -> list[int]:
        """Detection order for numbering: rack positions first, then by x then y."""
        rack = None
        if self.game == "free-pyramid" and "rear" in self.profile.spots:
            rack = np.array(self.profile.rack_positions())
        keyed = []
        for i in range(len(xy)):
            k = (1, float(xy[i, 0]), float(xy[i, 1]))
            if rack is not None:
                d = np.linalg.norm(rack - xy[i], axis=1)
                j = int(np.argmin(d))
                if d[j] < 0.5 * self.R:
                    k = (0, float(j), 0.0)
            keyed.append((k, i))
        return [i for _, i in sorted(keyed)]

    # ----------------------------------------------------------------- update
    def update(self, det: Detections, provisional: np.ndarray | None = None) -> TrackerOutput:
        """One frame's detections -> positions, visible balls, events.  ``provisional``
        (first frame only): rows that may be no ball (see ``PROVISIONAL_CONFIRM_S``)."""
        n_in = len(det)
        self.rows_merged = np.zeros(n_in, bool)
        if not self.started:
            events = self.initialise(det, provisional)
            self.rows_taken = np.ones(n_in, bool)
            seen = {b for b, t in self.tracks.items() if t.state == "table"}
            return self._output(det, events, seen)
        dt = max(1e-4, det.t - (self.t if self.t is not None else det.t))
        self.t, self.frame = det.t, det.frame
        events: list[Event] = []
        live = [tr for tr in self.tracks.values() if tr.on_table]
        if self._unchanged(det, live):
            # Nothing moves and the detections are those of the last frame: same matches.
            self.rows_taken = np.zeros(n_in, bool)
            self.rows_taken[list(self._last_match.values())] = True
            visible = set()
            for tr in live:
                if tr.ball in self._last_match:
                    tr.last_seen_t, tr.last_seen_frame = det.t, det.frame
                    tr.seen += 1
                    visible.add(tr.ball)
                else:
                    self._miss(tr, (tr.xy, tr.v), det, events)
            self._settle_provisional(set(self._last_match), det)
            self._pending = [p for p in self._pending if det.t - p[3] < 0.2]
            self._table_rest(det, events)
            return self._output(det, events, visible)
        pred = {}
        if live:
            P, V, _pairs = self.motion.predict_all(
                np.array([tr.xy for tr in live]),
                # a ball lost while moving rolls on unseen (``_miss`` keeps its velocity
                # for a while): two balls passing each other out of view are found
                # again ahead of where they were lost, not swapped
                np.array(
                    [tr.v if tr.state == "table" or tr.lost_moving else np.zeros(2) for tr in live]
                ),
                dt,
            )
            for k, tr in enumerate(live):
                pred[tr.ball] = (P[k], V[k])
        det = self._merge_streaks(det, live, pred, dt)
        n_det = len(det)
        matched_det: set[int] = set()
        matched: dict[str, int] = {}
        cls_cost = self._class_cost(det, live)
        # Pass 1: tight gates around predictions.
        if live and n_det:
            C = np.full((len(live), n_det), GATED_COST)
            Pm = np.array([pred[tr.ball][0] for tr in live])
            D = np.sqrt(((Pm[:, None, :] - det.xy_mm[None, :, :]) ** 2).sum(-1))
            for i, tr in enumerate(live):
                if tr.falling:
                    continue  # into a pocket: what is seen there now is not it on the bed
                if tr.provisional_until is not None:
                    ok = D[i] <= PROVISIONAL_GATE_RADII * self.R  # exactly where it was
                    C[i, ok] = D[i, ok]
                    continue
                p, vp = pred[tr.ball]
                d = D[i]
                gate = REST_GATE_RADII * self.R
                speed = max(tr.speed, float(np.hypot(*vp)))
                if speed > REST_SPEED_MM_S or (tr.state == "hidden" and tr.lost_moving):
                    gate = MOVING_GATE_RADII * self.R + 0.5 * speed * dt
                    if tr.speed <= REST_SPEED_MM_S or (
                        tr.state == "table" and self.motion.in_mouth(p)
                    ):
                        # it may also be found where it was last seen: predicted to be
                        # struck, it may still lie there; predicted on into a pocket's
                        # mouth (the prediction knows no jaws), it may have been thrown
                        # straight back (fp-rally_s10629_720p30 frame 418: ball 12,
                        # struck into the foot corner's jaws, came back; the striker,
                        # 43 and 47 mm from the two views, took 12's for a frame)
                        d = np.minimum(d, np.linalg.norm(det.xy_mm - tr.xy[None], axis=1))
                ok = d <= gate
                C[i, ok] = d[ok] + cls_cost[i, ok]
            r, c = linear_sum_assignment(C)
            for i, j in zip(r, c, strict=True):
                if C[i, j] < GATE_OPEN_COST:
                    matched[live[i].ball] = int(j)
                    matched_det.add(int(j))
        # Pass 2: wide, speed-limited gates for balls that left their spot.
        # A still ball hidden for a while (under a hand, a body) comes back only
        # where it lay: it does not jump to whatever appears nearby.
        # A motion-blur streak, though, points back along its path: a still ball that
        # vanished (struck under the cue, under a hand) continues into a streak that
        # starts where it lay.
        streak = det.is_streak
        rest_tr = [tr for tr in live if tr.ball not in matched]
        rest_det = [j for j in range(n_det) if j not in matched_det]
        if rest_tr and rest_det:
            C = np.full((len(rest_tr), len(rest_det)), GATED_COST)
            none_p = self._colour_prob(det, "none")
            # rows a still ball with its spot covered does not take if they read 'none'
            doubtful = ~streak & (det.score < STILL_NONE_MAX_SCORE)
            for i, tr in enumerate(rest_tr):
                if tr.falling or tr.provisional_until is not None:
                    continue
                ti = live.index(tr)
                p, _ = pred[tr.ball]
                since = max(dt, det.t - tr.last_seen_t)
                reach = self.reach_mm(tr, since)
                moving = tr.speed > REST_SPEED_MM_S or (tr.state == "hidden" and tr.lost_moving)
                stuck = self.stays_put(tr, det)
                back = self._cannot_turn_back(tr, since)
                line = self._lost_line(tr, since) if tr.state == "hidden" else None
                # a view (not a smear) to the side is held off only while no cushion was
                # in reach: a bounce unseen may have sent it anywhere off that line
                views_on_line = line is not None and not self._cushion_in_reach(tr, since)
                colour_p = None if moving else self._colour_prob(det, tr.cls)
                reads_none = None
                if colour_p is not None and none_p is not None and self.occluded is not None:
                    reads_none = doubtful & (none_p >= STILL_NONE_OVER_COLOUR * colour_p)
                    # its spot covered (one foreground look, only when a row is in doubt):
                    # the ball may lie there still, under a hand
                    if not reads_none[rest_det].any() or not self.occluded(tr.xy):
                        reads_none = None
                for jj, j in enumerate(rest_det):
                    if streak[j] and not moving and not self.struck_into(tr, det, j):
                        continue
                    if line is not None and (streak[j] or views_on_line):
                        if self._off_line(line, det.xy_mm[j]):
                            continue  # a lone ball lost rolling: nothing to the side of its way
                        if views_on_line and self._behind(tr, line, det.xy_mm[j]):
                            continue  # ... nor behind where it was last seen
                    if stuck and not streak[j]:
                        continue
                    if back is not None and float((det.xy_mm[j] - tr.xy) @ back) > 2 * self.R:
                        continue  # behind a ball in motion that nothing can send back
                    if (
                        colour_p is not None
                        and (
                            colour_p[j] < STILL_MIN_COLOUR_PROB
                            or (reads_none is not None and reads_none[j])
                        )
                        and float(np.linalg.norm(det.xy_mm[j] - tr.xy)) > REST_GATE_RADII * self.R
                    ):
                        continue  # a still ball struck unseen keeps its colour
                    d = float(np.linalg.norm(det.xy_mm[j] - p))
                    if d <= (self.reach_mm(tr, since, True) if streak[j] else reach):
                        C[i, jj] = d + cls_cost[ti, j] + 2 * self.R
            self._hands_hold(rest_tr, det, C, rest_det)
            self._out_of_play_hold(rest_tr, det, C, rest_det)
            r, c = linear_sum_assignment(C)
            for i, jj in zip(r, c, strict=True):
                if C[i, jj] < GATE_OPEN_COST:
                    matched[rest_tr[i].ball] = rest_det[jj]
                    matched_det.add(rest_det[jj])
        visible = set()
        for tr in live:
            if tr.ball in matched:
                j = matched[tr.ball]
                z = det.xy_mm[j]
                if self._hand_blob(tr, det, j):
                    z = tr.xy.copy()  # the hand over it, in place: it stays where it lay
                self._apply(tr, z, pred[tr.ball], dt, det, events)
                self._evidence(tr, det, j)
                visible.add(tr.ball)
            else:
                self._miss(tr, pred[tr.ball], det, events)
        self._settle_provisional(set(matched), det)
        loose = [j for j in np.nonzero(streak)[0] if int(j) not in matched_det]
        self.note_loose_streaks(det.t, det.xy_mm[loose])
        self._rows_placed = []
        self._new_balls(det, [j for j in range(n_det) if j not in matched_det], events, visible)
        self._table_rest(det, events)
        self._reidentify_whites()
        self._last_match = dict(matched)
        self._last_xy = det.xy_mm
        rows = np.nonzero(~self.rows_merged)[0]
        self.rows_taken = np.zeros(n_in, bool)
        self.rows_taken[rows[sorted(matched_det | set(self._rows_placed))]] = True
        self._last_n_unmatched = n_det - len(matched_det)
        return self._output(det, events, visible)

    def _hand_blob(self, tr: Track, det: Detections, j: int, blob_in_arm=None) -> bool:
        """Whether detection ``j`` off the spot of still ball ``tr`` is a blob of the hand
        over that spot: no crisp rim (score below ``HAND_BLOB_MAX_SCORE``), not a streak,
        the ball's spot and the blob both in a player's arm (``blob_in_arm(j)``, when
        given, answers the blob's part: one look per detection for many balls)."""
        if self.in_arm is None or det.score[j] >= HAND_BLOB_MAX_SCORE or det.is_streak[j]:
            return False
        if tr.speed > REST_SPEED_MM_S or (tr.state == "hidden" and tr.lost_moving):
            return False
        if tr.provisional_until is not None:
            return False  # matched only in place already
        if float(np.linalg.norm(det.xy_mm[j] - tr.xy)) <= STILL_DRIFT_MM:
            return False
        if not self.in_arm(tr.xy):
            return False
        return blob_in_arm(j) if blob_in_arm else bool(self.in_arm(det.xy_mm[j]))

    def _hands_hold(self, tracks: list[Track], det: Detections, C: np.ndarray, cols) -> None:
        """Gate (in the wide pass's cost matrix ``C``: rows ``tracks``, columns detections
        ``cols``) the pairs of a ball with a blob of a player's hand: a still ball under
        the hand (``_hand_blob``), and a ball rolling on the bed with any weak blob in an
        arm.  The wide pass reaches as far as the fastest ball could go; a ball rolling
        slowly under a hand resting on the cloth took the hand's blob 57 mm off its way
        there, and the jump became a speed nothing gave it, which widened its reach
        until it took a fingertip 300 mm away (fp-rally_s7003_720p60).  Inside its own
        moving gate (the first pass) a rolling ball still takes such a blob."""
        if self.in_arm is None:
            return
        weak = [jj for jj, j in enumerate(cols) if det.score[j] < HAND_BLOB_MAX_SCORE]
        looked: dict[int, bool] = {}  # the arm test costs a foreground look: once a blob

        def blob_in_arm(j: int) -> bool:
            if j not in looked:
                looked[j] = bool(self.in_arm(det.xy_mm[j]))
            return looked[j]

        for i, tr in enumerate(tracks):
            for jj in weak:
                j = cols[jj]
                if C[i, jj] < GATE_OPEN_COST and (
                    self._hand_blob(tr, det, j, blob_in_arm)
                    or self._rolling_into_hand(tr, det, j, blob_in_arm)
                ):
                    C[i, jj] = GATED_COST

    def _out_of_play_hold(self, tracks: list[Track], det: Detections, C: np.ndarray, cols) -> None:
        """Gate (in the wide pass's cost matrix ``C``: rows ``tracks``, columns detections
        ``cols``) the pairs of a still ball with a view off its spot that cannot be it.  A
        view on the spot of a ball of its class given up at rest (``removed_at_rest``) is
        that ball back, not this one moved there.  And a hidden still ball for which the
        shot is out of play (``_out_of_play``: balls roll, none of which can have reached
        it since it was last seen) takes no view off its spot: a stroke is not played
        while balls roll, and only a ball sets a still one moving, whatever its spot
        shows.  fp-rally_s9102_720p60: a dark sleeve the colour of the cloth over ball 13
        made its spot read as bare cloth ("moved unseen"); 13 took the view of 14 140 mm
        away (given up under the sleeve, back on its spot) and, kept off that, a hand
        blob at the sleeve's edge.  A ball missing from its spot for the first frame is
        not held: one struck while another ball still rolls is seen leaving at once."""
        gate = REST_GATE_RADII * self.R
        xy = det.xy_mm[cols]
        removed = [o for o in self.tracks.values() if o.state == "off" and o.removed_at_rest]
        for i, tr in enumerate(tracks):
            if tr.speed > REST_SPEED_MM_S or (tr.state == "hidden" and tr.lost_moving):
                continue
            if tr.provisional_until is not None or not (C[i] < GATE_OPEN_COST).any():
                continue
            far = np.linalg.norm(xy - tr.xy, axis=1) > gate
            for o in removed:
                if o.cls == tr.cls:
                    C[i, far & (np.linalg.norm(xy - o.xy, axis=1) < gate)] = GATED_COST
            if tr.state != "hidden" or not self._out_of_play(tr, det.t):
                continue
            C[i, far & (C[i] < GATE_OPEN_COST)] = GATED_COST

    def _rolling_into_hand(self, tr: Track, det: Detections, j: int, blob_in_arm) -> bool:
        """Whether weak detection ``j`` (no crisp rim, not a streak) lies in a player's arm
        (``blob_in_arm(j)``) while ``tr`` rolls on the bed in view: the hand's, for the
        wide pass."""
        if tr.state != "table" or tr.speed <= REST_SPEED_MM_S or det.is_streak[j]:
            return False
        return det.score[j] < HAND_BLOB_MAX_SCORE and blob_in_arm(j)

    def vanished(self, tr: Track, frame: int) -> bool:
        """A still ball lost from view whose spot now shows plain cloth: it moved while
        unseen (struck under the cue or a hand) and may be anywhere its class fits.
        Plain cloth, not merely "not covered": a ball half uncovered by a sleeve the
        colour of the cloth is still there (fp-rally_s9126_720p60: counted as moved,
        the yellow took the bridge hand 380 mm away)."""
        if tr.state != "hidden" or tr.lost_moving or self.occluded is None:
            return False
        key = (frame, tr.ball)
        if key not in self._vanished:
            if len(self._vanished) > 64:
                self._vanished.clear()
            if self.bare is not None:
                self._vanished[key] = bool(self.bare(tr.xy))
            else:
                self._vanished[key] = not self.occluded(tr.xy)
        return self._vanished[key]

    def stays_put(self, tr: Track, det: Detections) -> bool:
        """Whether still ball ``tr``, not seen on its spot now, can be found again only
        there (or as a streak leaving it while its pixels change): hidden longer than
        ``HIDDEN_STILL_JUMP_S`` (a ball struck under the cue shows up elsewhere sooner),
        or at once while other balls roll and none of them can have reached it -- during
        a shot only a ball sets a still one moving; a hand or a cue passing over it (the
        bridge hand drawn back after the stroke) only hides it.  Not when its spot now
        shows plain cloth: it moved unseen."""
        if tr.state == "hidden" and tr.lost_moving:
            return False
        if tr.state == "hidden" and det.t - tr.last_seen_t > HIDDEN_STILL_JUMP_S:
            return not self.vanished(tr, det.frame)
        if not tr.on_table or tr.speed > REST_SPEED_MM_S or not self._out_of_play(tr, det.t):
            return False
        if tr.state == "hidden":
            return not self.vanished(tr, det.frame)
        return self.occluded is None or bool(self.occluded(tr.xy))

    def _out_of_play(self, tr: Track, t: float) -> bool:
        """Whether a shot is under way (a ball rolls in view) and no rolling ball can have
        reached still ball ``tr`` since it was last seen (each within its own speed's
        reach, as a ball lost while moving is looked for).  False while a ball is lost
        on its way (it may be anywhere near) and while nothing rolls (a stroke may be
        being played) -- unless no stroke can have set ``tr`` moving (``_unstruck``)."""
        since = max(0.0, t - tr.last_seen_t)
        x, y = tr.xy[0], tr.xy[1]
        rolling = False
        for o in self.tracks.values():
            if o is tr or not o.on_table:
                continue
            if o.state == "hidden":
                if o.lost_moving and not o.jumped:
                    return False
                continue
            if o.speed <= REST_SPEED_MM_S:
                continue
            rolling = True
            own = max(o.speed, o.meas_speed, o.top_speed)
            reach = (HIDDEN_SPEED_FACTOR * own + HIDDEN_SPEED_MARGIN_MM_S) * since + 4 * self.R
            if math.hypot(o.xy[0] - x, o.xy[1] - y) < reach:
                return False
        return rolling or self._unstruck(tr, t)

    def _unstruck(self, tr: Track, t: float) -> bool:
        """Whether no stroke can have set still ball ``tr`` moving since it was last
        seen, nothing rolling.  In Five Ball each player strikes his own cue ball, a
        white (FB-2.2, FB-3.1): a red or the kaisa moves only when a ball reaches it.
        So a red or the kaisa hidden longer than ``HIDDEN_STILL_JUMP_S`` (a white struck
        just now can have hit a ball just lost) while every white on the table lay in
        view (none struck unseen) has not moved.  fb-ball-in-hand_s10306_1080p30 frame
        20: the kaisa lay under the player's sleeve, the colour of the cloth, its spot
        reading bare ("moved unseen") while nothing rolled; it took the white being put
        down from the hand 558 mm away."""
        if self.game != "five-ball" or _colour(tr.cls) == "white":
            return False
        if tr.state != "hidden" or t - tr.last_seen_t <= HIDDEN_STILL_JUMP_S:
            return False
        return all(
            o.state == "table"
            for o in self.tracks.values()
            if o.on_table and _colour(o.cls) == "white"
        )

    def reach_mm(self, tr: Track, since: float, streak: bool = False) -> float:
        """How far from its prediction a ball unseen for ``since`` seconds may be found.

        A ball on view (or just struck out of view) may have been hit by anything:
        the fastest ball's reach.  One lost while moving keeps to its own speed (a
        ball does not speed up unseen); a pot candidate only bounces out of its
        pocket's mouth."""
        if tr.state == "hidden" and tr.jumped:
            return JUMP_BACK_RADII * self.R  # over the rail: it may only fall back there
        reach = MAX_SPEED_MM_S * min(since, 0.2) + 2 * self.R
        if (
            streak
            and tr.state == "hidden"
            and tr.lost_moving
            and self._out_of_play(tr, tr.last_seen_t + since)
        ):
            # a smear far off is a ball struck hard -- not one lost rolling slowly while
            # other balls roll, none of which can have reached it (no stroke is played
            # while balls roll): it keeps to its own speed.  fp-rally_s10329_720p30
            # frame 454: ball 1, still but read 26 mm/s as an arm covered part of it,
            # was lost "rolling" and took a streak 1.8 m away as ball 11 rolled far off
            own = HIDDEN_SPEED_FACTOR * tr.lost_speed + HIDDEN_SPEED_MARGIN_MM_S
            return min(reach, own * min(since, 0.5) + 2 * self.R)
        if self._lone_rolling(tr, since):
            own = max(tr.speed, tr.meas_speed)
            return min(reach, MOVING_GATE_RADII * self.R + LONE_TRAVEL_FACTOR * own * since)
        if tr.state == "hidden" and since > HIDDEN_STILL_JUMP_S and not streak:
            if tr.pocket:
                return POCKET_NEAR_RADII * self.R
            if tr.lost_moving:
                own = HIDDEN_SPEED_FACTOR * tr.lost_speed + HIDDEN_SPEED_MARGIN_MM_S
                return min(reach, own * min(since, 0.5) + 2 * self.R)
            if not tr.lost_in_arm:  # struck unseen: the whole table, soon
                return MAX_SPEED_MM_S * min(since, 0.5) + 2 * self.R
        if (
            tr.state == "hidden"
            and not streak
            and not tr.lost_moving
            and tr.lost_in_arm
            and self.in_arm is not None
            and self.occluded is not None
            and self.occluded(tr.xy)
        ):
            # a still ball gone under an arm, a hand or a body that still covers its
            # spot was struck by no cue: it moves with the hand, if at all
            return min(reach, HAND_SPEED_MM_S * since + 2 * self.R)
        return reach

    def _cannot_turn_back(self, tr: Track, since: float) -> np.ndarray | None:
        """For a ball rolling in plain view that no moving (or lost) ball ahead of it
        can hit head-on within ``since``: the unit vector pointing back along its way
        (it is not found there -- however its speed estimate lags, a struck ball goes
        forward, and a cushion or a still ball only turns it).  None otherwise."""
        if tr.state != "table" or tr.speed <= REST_SPEED_MM_S:
            return None
        u = tr.v / tr.speed
        near = MAX_SPEED_MM_S * min(since, 0.2) + 4 * self.R
        for o in self.tracks.values():
            if o is tr or not o.on_table:
                continue
            if o.state == "hidden" or o.speed > REST_SPEED_MM_S:
                w = o.xy - tr.xy
                if float(w @ u) > -2 * self.R and float(np.hypot(*w)) < near:
                    return None
        return -u

    def _lost_line(self, tr: Track, since: float) -> tuple[np.ndarray, np.ndarray] | None:
        """For a ball lost from view while rolling, unseen for at most ``HIDDEN_ROLL_S``,
        whose straight path over that time passes no other moving or lost ball within
        ``MEET_RADII``: the line it rolls on (a point and its unit direction).  Only its
        own way is its own: nothing met it.  None otherwise."""
        if tr.state != "hidden" or not tr.lost_moving or tr.speed <= REST_SPEED_MM_S:
            return None
        if since > HIDDEN_ROLL_S:
            return None
        for o in self.tracks.values():
            if o is tr or not o.on_table:
                continue
            if o.state == "hidden" or o.speed > REST_SPEED_MM_S:
                # the two straight paths' closest approach while it was unseen
                rp, rv = o.xy - tr.xy, o.v - tr.v
                vv = float(rv @ rv)
                s = 0.0 if vv < 1e-9 else min(0.0, max(-since, -float(rp @ rv) / vv))
                if float(np.hypot(*(rp + rv * s))) < MEET_RADII * self.R:
                    return None
        return tr.xy, tr.v / tr.speed

    def _cushion_in_reach(self, tr: Track, since: float) -> bool:
        """Whether ball ``tr``, lost rolling, can have met a cushion in the ``since``
        seconds it has been unseen: last seen at one (its centre outside the cushion
        noses' line: a view a few mm off), or a cushion along its line, either way (the
        prediction's heading may be the one before a bounce or after it), within as far
        as it may be found from its prediction (``reach_mm``: at first the fastest
        ball's reach, then its own speed's)."""
        origin = tr.seen_xy if tr.seen_xy is not None else tr.xy
        speed = tr.speed
        if speed <= 0.0:
            return True
        u = tr.v / speed
        way = self.reach_mm(tr, since)
        R = self.R
        for k, hi in ((0, self.profile.length_mm - R), (1, self.profile.width_mm - R)):
            if not R <= origin[k] <= hi:
                return True
            if abs(u[k]) > 1e-9 and min(hi - origin[k], origin[k] - R) / abs(u[k]) <= way:
                return True
        return False

    def _behind(self, tr: Track, line: tuple[np.ndarray, np.ndarray], xy: np.ndarray) -> bool:
        """Whether ``xy`` lies more than a diameter behind where ball ``tr``, lost rolling
        along ``line``, was last seen: only a cushion or a ball can send it back."""
        origin = tr.seen_xy if tr.seen_xy is not None else tr.xy
        return float((xy - origin) @ line[1]) < -2 * self.R

    def _off_line(self, line: tuple[np.ndarray, np.ndarray], xy: np.ndarray) -> bool:
        """Whether ``xy`` lies more than ``LOST_LINE_RADII`` to the side of ``line``."""
        origin, u = line
        w = xy - origin
        return abs(float(w[0] * u[1] - w[1] * u[0])) > LOST_LINE_RADII * self.R

    def _lone_rolling(self, tr: Track, since: float) -> bool:
        """A ball rolling in plain view, its speed known, that no other ball can reach
        within ``since`` (no other ball moving, or lost from view, nearby): only the
        physics moves it, so it cannot be found far ahead of its own way."""
        if tr.state != "table" or tr.speed <= REST_SPEED_MM_S:
            return False
        if tr.moving_obs < LONE_MIN_MOVING_OBS:
            return False  # just struck: its speed estimate may lag
        own = max(tr.speed, tr.meas_speed) * since
        near = MAX_SPEED_MM_S * min(since, 0.2) + own + 4 * self.R
        x, y = tr.xy[0], tr.xy[1]
        for o in self.tracks.values():
            if o is tr:
                continue
            state = o.state  # a ball hidden, or on view and moving, may come this way
            moving = state == "hidden" or (state == "table" and o.speed > REST_SPEED_MM_S)
            if moving and math.hypot(o.xy[0] - x, o.xy[1] - y) < near:
                return False
        return True

    def struck_into(self, tr: Track, det: Detections, j: int) -> bool:
        """Whether still ball ``tr`` can have been struck into streak ``j``: the streak
        starts at its spot, and -- for a ball long hidden under something (a cue tip,
        a hand) -- its spot's pixels changed now.  A bridge hand or a cue lies on the
        line through the cue ball, so a streak-like hand points back to its spot; but
        a ball leaves its spot only when something moves there, and leaves bare cloth
        behind it (not a cue's shaft read as a streak: ``_covered_way``)."""
        unseen = min(max(det.frame - tr.last_seen_frame, 1), STREAK_GAP_MAX_FRAMES)
        if not self._from_spot(tr.xy, det, j, unseen) or self._covered_way(tr.xy, det, j):
            return False
        if self._static_streak(det.xy_mm[j], det.t) or self._cue_beyond(tr.xy, det, j):
            return False
        if self.stays_put(tr, det):
            return self.spot_changed is None or bool(self.spot_changed(tr.xy))
        if (
            tr.state == "hidden"
            and not tr.lost_moving
            and det.t - tr.last_seen_t > HIDDEN_STILL_JUMP_S
            and self.spot_changed_lately is not None
        ):
            # hidden long, its spot reading bare: it moved unseen -- but not into this
            # streak unless its spot's pixels changed within the frames the streak's way
            # allows (``_from_spot``): a ball leaving changes them.  fp-pots_s10207_720p60
            # frame 215: ball 5 under a sleeve the colour of the cloth, its spot reading
            # 0.159 for fifteen frames and 0.145 (bare) as the arm shifted, took the fist
            # on the cue 168 mm away, streak-shaped on a line through its spot
            return bool(self.spot_changed_lately(tr.xy))
        return True

    def _cue_beyond(self, xy: np.ndarray, det: Detections, j: int) -> bool:
        """Whether a cue runs on past the far end of streak ``j`` (the end away from spot
        ``xy``): the streak is the fist on its butt.  A ball struck from ``xy`` flies
        away from the cue's tip, which follows it, so its cue lies behind it, on the
        spot's side.  fp-pots_s10207_720p60 frame 222: ball 5 hidden under a sleeve the
        colour of the cloth, the player's fist on the cue passed over its spot and
        read as a streak starting there; the cue ran on from the fist's far end."""
        if self.cue_ahead is None:
            return False
        u, hl, _ = self._axis_from_spot(xy, det, j)
        return bool(self.cue_ahead(det.xy_mm[j] + u * hl, u))

    def _axis_from_spot(self, xy: np.ndarray, det: Detections, j: int) -> tuple:
        """Streak ``j``'s axis seen from spot ``xy``: the unit vector from the spot's side
        through the streak, its half length (mm) and the spot's distance (mm) from its
        middle along the axis.  ``_from_spot`` has checked the streak has a length."""
        half = det.blur_mm[j]
        hl = float(np.hypot(*half))
        u = half / hl
        along = float((np.asarray(xy) - det.xy_mm[j]) @ u)
        return (-u if along > 0 else u), hl, abs(along)

    def _static_streak(self, xy: np.ndarray, t: float) -> bool:
        """Whether a streak seen at ``xy`` at time ``t`` lies within a radius of where a
        streak no ball took lay in an earlier frame of the last ``STATIC_STREAK_S``: a
        smear that stays put is no ball in flight.  fp-rally_s9729_720p30: a rest's
        head on the cue read as a streak for 25 frames, its axis on the line back to
        ball 3 under the player's body; once its way did not read as covered, it took
        ball 3 1.1 m away."""
        return any(
            tl < t and t - tl <= STATIC_STREAK_S and float(np.hypot(*(p - xy))) < self.R
            for tl, p in self._loose_streaks
        )

    def note_loose_streaks(self, t: float, xy_mm: np.ndarray) -> None:
        """Remember streaks seen at time ``t`` that no ball took (turned away before the
        tracker, or left unmatched by it): see ``_static_streak``."""
        keep = [(tl, p) for tl, p in self._loose_streaks if t - tl <= STATIC_STREAK_S]
        keep += [(t, np.array(p, float)) for p in np.asarray(xy_mm, float).reshape(-1, 2)]
        self._loose_streaks = keep

    def _from_spot(self, xy: np.ndarray, det: Detections, j: int, frames_unseen: int = 1) -> bool:
        """Whether streak ``j`` starts at ``xy``: the point lies on the streak's axis
        (within a radius), behind its middle by at least the streak's half length, and
        its near end within ``STREAK_GAP_HALF_LENGTHS`` half lengths of the spot for each
        of the ``frames_unseen`` frames since the ball was last seen there (a ball struck
        just after a frame travels a frame's way each frame; its smear was not found in
        the first: bundled fp-break_s0_720p30 with its auto camera, the yellow's 8 m/s
        smear found only two frames on, 507 mm from its spot, and the yellow left
        'hidden' there for the whole break)."""
        half = det.blur_mm[j]
        hl = float(np.hypot(*half))
        if hl < 1e-6:
            return False
        along = abs(float((np.asarray(xy) - det.xy_mm[j]) @ half)) / hl
        # and not far behind its near end: the ball, struck about now, has travelled
        # at most a few smears' lengths (a streak-shaped bridge hand on the cue line
        # points back at the cue ball from far off)
        near_end = along - hl <= STREAK_GAP_HALF_LENGTHS * hl * frames_unseen + 2 * self.R
        return self._off_axis(xy, det, j) < self.R and along >= hl - self.R and near_end

    def _covered_way(self, xy: np.ndarray, det: Detections, j: int) -> bool:
        """Whether something not cloth covers the whole way between spot ``xy`` and the
        near end of streak ``j``, when that way is at least ``COVERED_GAP_MIN_RADII``
        long: a cue lying on the line through the ball, its shaft read as a streak.  A
        struck ball leaves the way it rolled bare behind it (only its cue's tip follows,
        slower than the ball).  fp-rally_s9420_1080p30 frame 879: the shaft 290 mm back
        along the cue over ball 3, whose spot changed as the cue moved over it, took
        ball 3 (the clip's identity switch)."""
        if self.occluded is None:
            return False
        u, hl, along = self._axis_from_spot(xy, det, j)
        w = -u  # from the streak towards the spot
        gap = along - hl - self.R  # from the near end to the spot's edge
        if gap < COVERED_GAP_MIN_RADII * self.R:
            return False
        near = det.xy_mm[j] + w * hl
        steps = np.linspace(0.0, gap, int(math.ceil(gap / self.R)) + 1)
        return all(self.occluded(near + w * s) for s in steps)

    def _off_axis(self, xy: np.ndarray, det: Detections, j: int) -> float:
        """Distance (mm) of a point from the axis line of streak ``j``."""
        half = det.blur_mm[j]
        hl = float(np.hypot(*half))
        d = np.asarray(xy) - det.xy_mm[j]
        if hl < 1e-6:
            return float(np.hypot(*d))
        return abs(float(d[0] * half[1] - d[1] * half[0])) / hl

    def _unchanged(self, det: Detections, live: list[Track]) -> bool:
        if self._last_xy is None or self._last_n_unmatched or self._pending:
            return False
        if any(tr.speed > 0.0 for tr in live):
            return False
        return det.xy_mm is self._last_xy or (
            det.xy_mm.shape == self._last_xy.shape and np.array_equal(det.xy_mm, self._last_xy)
        )

    def _merge_streaks(self, det: Detections, live: list[Track], pred, dt: float) -> Detections:
        """Motion blur: a fast ball's streak has two rounded ends that the detector may
        report as two balls.  Two detections near a fast track's prediction, lined up
        with its velocity and 1.3-7 radii apart, are one ball at their middle -- if
        neither is a crisp rim (``STREAK_END_MAX_SCORE``): a streak's ends are both
        blurred.  fp-multi_s9422_1080p60 frame 184: a rack ball's crisp rim paired with
        its neighbour's, scored low by the clutter of the rack, made a phantom ball
        between them on the path of the yellow rushing in unseen, which took it.  Nor is
        a still ball's own view (on its spot) an end: a ball rushing in has not gone
        through it.  fp-rally_s10518_720p30 frame 91 (the twenty-third report set): the
        yellow's blurred front at 7.7 m/s paired with the view of a rack ball behind the
        apex, scored low by the rack's clutter, 210 mm on; the yellow took their middle,
        148 mm past where it was, beyond the apex ball it had not yet reached."""
        R = self.R
        if len(det) < 2:
            return det
        drop: set[int] = set()
        xy = det.xy_mm.copy()
        streak = det.is_streak
        labels = det.labels
        on_still = None  # rows on a still ball's spot: worked out once, if a ball is fast
        for tr in live:
            p, vp = pred[tr.ball]
            speed = float(np.hypot(*vp))
            # a ball smears over what it travels within this frame: one kicked late in
            # the interval (a break's kiss chain) has its new speed but travelled little
            travel = speed * dt
            if tr.state == "table":
                travel = min(travel, float(np.linalg.norm(p - tr.xy)))
            if travel < 0.5 * R:
                continue
            u = vp / speed
            d = np.linalg.norm(xy - p[None], axis=1)
            near = d < 4 * R + 0.5 * travel
            if (near & streak).any():
                continue  # the streak itself was found: its ends are other balls
            if on_still is None:
                on_still = self._on_still_spots(xy, live)
            cand = [j for j in np.nonzero(near & ~on_still)[0] if j not in drop]
            best = None
            for a in range(len(cand)):
                for b in range(a + 1, len(cand)):
                    i, j = cand[a], cand[b]
                    if max(det.score[i], det.score[j]) >= STREAK_END_MAX_SCORE:
                        continue  # a crisp rim: a ball, not a streak's end
                    if labels[i] and labels[j] and labels[i] != labels[j]:
                        continue
                    dv = xy[j] - xy[i]
                    along = abs(float(dv @ u))
                    perp = abs(float(dv[0] * u[1] - dv[1] * u[0]))
                    # a streak is at most as long as the ball travels in a frame
                    longest = min(7 * R, travel + R)
                    if 1.3 * R < along < longest and perp < 0.6 * R:
                        mid = 0.5 * (xy[i] + xy[j])
                        e = float(np.linalg.norm(mid - p))
                        if e < 0.5 * travel + R and (best is None or e < best[0]):
                            best = (e, i, j)
            if best is not None:
                _, i, j = best
                xy[i] = 0.5 * (xy[i] + xy[j])
                det.xy_px[i] = 0.5 * (det.xy_px[i] + det.xy_px[j])
                drop.add(j)
        if not drop:
            return det
        det.xy_mm = xy
        keep = np.array([k not in drop for k in range(len(det))])
        self.rows_merged = ~keep
        return det[keep]

    def _on_still_spots(self, xy: np.ndarray, live: list[Track]) -> np.ndarray:
        """Which of the points ``xy`` (mm) lie within the rest gate of a still ball."""
        still = [t.xy for t in live if t.state == "table" and t.speed <= REST_SPEED_MM_S]
        if not still:
            return np.zeros(len(xy), bool)
        d = np.linalg.norm(xy[:, None] - np.array(still)[None], axis=2)
        return d.min(axis=1) < REST_GATE_RADII * self.R

    def _colour_prob(self, det: Detections, cls: str) -> np.ndarray | None:
        """Per detection, the classifier's probability of class ``cls``'s colour (W1 and
        W2 summed); None without class rows."""
        if not det.classes or det.cls_prob.shape[1] == 0 or cls not in det.classes:
            return None
        cols = [k for k, c in enumerate(det.classes) if _colour(c) == _colour(cls)]
        return det.cls_prob[:, cols].sum(axis=1)

    def _class_cost(self, det: Detections, live: list[Track]) -> np.ndarray:
        C = np.zeros((len(live), len(det)))
        if not det.classes or det.cls_prob.shape[1] == 0:
            return C
        idx = {c: k for k, c in enumerate(det.classes)}
        for i, tr in enumerate(live):
            k = idx.get(tr.cls)
            if k is None:
                continue
            p = np.clip(det.cls_prob[:, k], 1e-4, 1.0)
            C[i] = -np.log(p) * CLASS_COST_MM
        return C

    def _evidence(self, tr: Track, det: Detections, j: int) -> None:
        """Accumulate (with a slow decay) the class log-likelihoods a track's detections gave.

        Only fresh views count: the pipeline carries a still ball's detection (and its
        class row) over from frame to frame while its pixels do not change, and one
        view repeated for hundreds of frames is still one view (a W2 whose pair of dots
        was seen edge-on once would otherwise outweigh every later look)."""
        if not det.classes or det.cls_prob.shape[1] == 0:
            return
        row = det.cls_prob[j]
        if tr.last_view is not None and np.array_equal(tr.last_view, row):
            return
        tr.last_view = row.copy()
        lp = np.log(np.clip(row, 1e-3, 1.0))
        if tr.evidence is None or len(tr.evidence) != len(lp):
            tr.evidence = np.zeros(len(lp))
            tr.evidence_classes = det.classes
            tr.rest_n = 0
        still = tr.speed <= REST_SPEED_MM_S
        if (
            still
            and tr.rest_n
            and tr.rest_xy is not None
            and math.hypot(tr.xy[0] - tr.rest_xy[0], tr.xy[1] - tr.rest_xy[1]) <= STILL_DRIFT_MM
        ):
            # the same still ball on the same spot: its pixels re-read (a hand passed,
            # the light flickered) are no independent evidence -- all its views there
            # count as a few, their mean times at most ``REST_VIEWS_MAX`` (fb-break_s2003:
            # a still white 1 whose blurred view read W2 0.72, re-read a hundred times,
            # swapped the two whites)
            tr.rest_sum = tr.rest_sum + lp
            tr.rest_n += 1
            tr.evidence = tr.rest_base + tr.rest_sum * (min(tr.rest_n, REST_VIEWS_MAX) / tr.rest_n)
            return
        base = EVIDENCE_DECAY * tr.evidence
        if still:
            tr.rest_xy, tr.rest_base, tr.rest_sum, tr.rest_n = tr.xy.copy(), base, lp, 1
        else:
            tr.rest_xy, tr.rest_n = None, 0
        tr.evidence = base + lp

    def _reidentify_whites(self) -> None:
        """Five Ball: if the dots say the two whites are the other way round, swap them.

        The first frames may give W1/W2 wrongly (a dot hidden, a hand over a ball);
        the evidence of every later frame outweighs them.  Tracking keeps the two
        balls apart; this only corrects which of them is which."""
        if self.game != "five-ball":
            return
        a, b = self.tracks.get("W1"), self.tracks.get("W2")
        if a is None or b is None or a.evidence is None or b.evidence is None:
            return
        if not (a.on_table and b.on_table) or a.evidence_classes != b.evidence_classes:
            return
        k1, k2 = a.evidence_classes.index("W1"), a.evidence_classes.index("W2")
        keep = a.evidence[k1] + b.evidence[k2]
        swap = a.evidence[k2] + b.evidence[k1]
        # fb-break_s2003: the rolling white 1's blurred crops read W2 for a while (the
        # classifier's error, 0.99 at times) while the still white 2 read W2 too: one
        # ball's reads alone do not rename both
        opposed = min(a.evidence[k2] - a.evidence[k1], b.evidence[k1] - b.evidence[k2])
        if swap - keep > SWAP_EVIDENCE_NATS and opposed >= -SWAP_OPPOSED_NATS:
            _swap_states(a, b)

    def _give_freed_id(self, freed: Track) -> bool:
        """A provisional first-frame id just dropped (a hand, a head: it moved) goes to
        the ball on the table whose views read as its class by more than
        ``FREED_ID_NATS`` over the ball's own (another colour: the whites have their own
        rule): LukasSeglias video_13's red, named the yellow while the player's red
        hair held both red ids, takes a red id when the hair's blob is given up.  True
        when there is nothing more to give (given, or the id taken back meanwhile)."""
        if freed.state != "off":
            return True  # the id is back on the table (a ball put down took it)
        best: tuple[float, Track] | None = None
        for o in self.tracks.values():
            if o is freed or not o.on_table or o.evidence is None:
                continue
            cls = o.evidence_classes
            if freed.cls not in cls or o.cls not in cls or _colour(o.cls) == _colour(freed.cls):
                continue
            gain = float(o.evidence[cls.index(freed.cls)] - o.evidence[cls.index(o.cls)])
            if gain > FREED_ID_NATS and (best is None or gain > best[0]):
                best = (gain, o)
        if best is None:
            return False
        _swap_states(best[1], freed)
        return True

    def _apply(self, tr: Track, z: np.ndarray, pred, dt: float, det, events) -> None:
        p_pred, v_pred = pred
        was_still = tr.speed <= REST_SPEED_MM_S
        step = np.linalg.norm(z - tr.xy)
        if tr.provisional_until is not None:
            # doubtful: it stays on its first spot (a match is only ever in place there)
            tr.xy = tr.xy + JITTER_ALPHA * (z - tr.xy)
            tr.v = np.zeros(2)
        elif was_still and step < STILL_DRIFT_MM:
            # A ball at rest stays put: damp the measurement jitter.
            tr.xy = tr.xy + JITTER_ALPHA * (z - tr.xy)
            tr.v = np.zeros(2)
        else:
            since = max(dt, det.t - tr.last_seen_t)
            seen = tr.seen_xy if tr.seen_xy is not None else tr.xy
            v_meas = (z - seen) / since
            tr.meas_speed = float(math.hypot(*v_meas))
            kissed = (
                was_still
                and tr.state == "table"
                and math.hypot(*v_pred) > REST_SPEED_MM_S
                and self._agrees_with_kiss(tr, z, p_pred)
                and self._left_along(tr, z, v_pred)
            )
            if kissed:
                # set in motion between two frames by a ball the physics saw hit it, and
                # found where the physics put it: the physics' speed (the step since the
                # last frame covers only the time after the contact, and says less)
                tr.v = np.asarray(v_pred, float).copy()
            elif was_still or tr.state == "hidden":
                # just struck, or found again after a gap: the prediction knows nothing
                # of the new speed (a still ball predicts rest; a lost one was guessed)
                tr.v = v_meas
            else:
                tr.v = VELOCITY_ALPHA * v_meas + (1 - VELOCITY_ALPHA) * v_pred
            tr.xy = z.copy()
            if was_still and tr.speed > REST_SPEED_MM_S:
                tr.still_since_t = None
                self._started_moving(tr, det, events)
        if tr.speed <= REST_SPEED_MM_S and tr.still_since_t is None:
            tr.still_since_t = det.t
        tr.moving_obs = tr.moving_obs + 1 if tr.speed > REST_SPEED_MM_S else 0
        if tr.speed > REST_SPEED_MM_S:
            since = max(dt, det.t - tr.last_seen_t)
            tr.top_speed = max(tr.speed, tr.top_speed - self.motion.decel_mm_s2 * since)
        else:
            tr.top_speed = 0.0
        if tr.state == "hidden":
            tr.state = "table"
        tr.last_seen_t, tr.last_seen_frame = det.t, det.frame
        tr.seen_xy = tr.xy.copy()
        tr.seen += 1
        tr.pocket = None
        tr.falling = self.motion.over_drop(tr.xy, DROP_MARGIN_RADII * self.R)

    def _agrees_with_kiss(self, tr: Track, z: np.ndarray, p_kiss: np.ndarray) -> bool:
        """Whether a still ball seen at ``z`` is where the physics' kiss put it
        (``p_kiss``): within ``KISS_AGREE_RADII``, and off by no more than
        ``KISS_AGREE_STEP_FRACTION`` of the step the kiss predicted (at least
        ``KISS_AGREE_FLOOR_RADII``).  A breaking rack's chain, played contact by contact,
        can give a ball three times the speed it got (fp-multi_s9605_720p30: ball 2 seen
        18 mm off its spot where the chain put it 54 mm off at 4.5 m/s; it really left at
        1.7 m/s): with the chain's speed its next prediction crossed its neighbour 4's
        path, and the assignment swapped the two.  Seen that short of the kiss, it takes
        the velocity its own step measures."""
        off = float(np.linalg.norm(z - p_kiss))
        step = float(np.linalg.norm(np.asarray(p_kiss, float) - tr.xy))
        slack = max(KISS_AGREE_FLOOR_RADII * self.R, KISS_AGREE_STEP_FRACTION * step)
        return off < KISS_AGREE_RADII * self.R and off <= slack

    def _left_along(self, tr: Track, z: np.ndarray, v_kiss: np.ndarray) -> bool:
        """A ball kissed from rest leaves its spot along the kiss: seen on the far side of
        its spot from where the physics sends it, it was not sent that way, and takes the
        velocity its own step measures.  A break's kiss chain played from rack spots a
        millimetre or two off can turn a ball's predicted velocity right round
        (fp-rally_s9026_720p30: 137 degrees off), and the next frame's prediction then
        crossed two neighbours, which the assignment swapped."""
        return float((z - tr.xy) @ np.asarray(v_kiss, float)) > 0.0

    def _started_moving(self, tr: Track, det: Detections, events: list[Event]) -> None:
        if not self.in_shot:
            self.in_shot = True
            self.shot_start_t = det.t
            events.append(make("shot_start", det.t, det.frame, 0.9, cue_ball=tr.ball))

    def _miss(self, tr: Track, pred, det: Detections, events: list[Event]) -> None:
        p_pred, v_pred = pred
        kissed_in = False
        if (
            tr.state == "table"
            and tr.speed <= REST_SPEED_MM_S
            and tr.provisional_until is None
            and math.hypot(*v_pred) > REST_SPEED_MM_S
        ):
            # the physics saw a rolling ball hit it since the last frame, and it is gone
            # from its spot: kissed away, lost while moving
            tr.v = np.asarray(v_pred, float).copy()
            tr.still_since_t = None
        elif (
            tr.state == "table"
            and tr.speed <= REST_SPEED_MM_S
            and tr.provisional_until is None
            and math.hypot(p_pred[0] - tr.xy[0], p_pred[1] - tr.xy[1]) > STILL_DRIFT_MM
            and self.motion.over_drop(p_pred) is not None
        ):
            # ... and sent it into a pocket's hole, where the prediction stops it: gone
            # from its spot, it went that way (a pot candidate at that pocket, not a ball
            # still lying where it was -- LukasSeglias video_9's red, kissed into the
            # pocket between two images of a 15 fps camera and never seen moving)
            kissed_in = True
            tr.still_since_t = None
        moving = tr.speed > REST_SPEED_MM_S or kissed_in
        if tr.state == "table":
            # one slow (blurred) measurement may lower a lone ball's speed estimate;
            # friction alone slows it no faster than this (a kiss may, near others)
            lone = self._lone_rolling(tr, max(1e-3, det.t - tr.last_seen_t))
            tr.lost_speed = max(tr.speed, tr.top_speed) if lone else tr.speed
            tr.state = "hidden"
            tr.lost_moving = moving
            name, d = self.motion.nearest_pocket(p_pred if moving else tr.xy)
            if d < POCKET_NEAR_RADII * self.R or (
                d < POCKET_NEAR_RADII * self.R + tr.speed * 0.05
                and self._heads_into(name, p_pred, v_pred)
            ):
                tr.pocket = name
            if tr.falling:
                tr.pocket = tr.falling
            tr.lost_in_arm = moving or self.in_arm is None or bool(self.in_arm(tr.xy))
            tr.rail_lost = moving and tr.pocket is None and self._into_rail(tr.xy, tr.v)
            tr.unseen_bare, tr.jumped = 0, False
        if moving:
            # a ball lost while moving rolls on in the prediction (friction, cushions,
            # other balls) where it may be found again; after a while it is frozen
            if det.t - tr.last_seen_t < HIDDEN_ROLL_S:
                xy0, v0 = tr.xy, tr.v
                tr.xy, tr.v = p_pred, v_pred
                drop = self.motion.over_drop(tr.xy)
                if drop is not None:
                    tr.pocket = drop  # rolled into a pocket unseen: a pot candidate
                elif (np.sign(v_pred) * np.sign(v0) < 0).any():
                    # bounced in the prediction: off a cushion at a pocket's mouth (its
                    # jaws) a few degrees of heading decide jaw or hole -- a pot candidate
                    name, d0 = self.motion.nearest_pocket(xy0)
                    _, d1 = self.motion.nearest_pocket(tr.xy)
                    if min(d0, d1) < POCKET_NEAR_RADII * self.R:
                        tr.pocket = name
                self._over_the_rail(tr)
            else:
                tr.v = np.zeros(2)
        if tr.pocket and det.t - tr.last_seen_t >= POT_CONFIRM_S:
            self._pocketed(tr, 0.8, events)

    def _into_rail(self, xy: np.ndarray, v: np.ndarray) -> bool:
        """Whether a ball at ``xy`` rolling with velocity ``v`` runs into a cushion faster
        than ``JUMP_MIN_SPEED_MM_S`` and reaches it within ``JUMP_REACH_S``."""
        R = self.R
        for k, far in ((0, self.profile.length_mm), (1, self.profile.width_mm)):
            for nose, sign in ((0.0, -1.0), (far, 1.0)):
                vn = sign * float(v[k])
                if vn >= JUMP_MIN_SPEED_MM_S and abs(float(xy[k]) - nose) - R <= vn * JUMP_REACH_S:
                    return True
        return False

    def _over_the_rail(self, tr: Track) -> None:
        """A ball lost rolling into a cushion whose predicted way shows plain cloth
        ``JUMP_UNSEEN_FRAMES`` frames running went over the rail: it stops where it was
        last seen (see ``JUMP_BACK_RADII``)."""
        if not tr.rail_lost or tr.jumped or tr.pocket is not None or self.bare is None:
            return
        tr.unseen_bare = tr.unseen_bare + 1 if self.bare(tr.xy) else 0
        if tr.unseen_bare >= JUMP_UNSEEN_FRAMES:
            tr.jumped = True
            if tr.seen_xy is not None:
                tr.xy = np.asarray(tr.seen_xy, float).copy()
            tr.v = np.zeros(2)

    def _heads_into(self, pocket: str, xy: np.ndarray, v: np.ndarray) -> bool:
        """Whether a ball at ``xy`` rolling with velocity ``v`` heads into the mouth of
        ``pocket``: its straight way passes within half the mouth plus a radius of the
        mouth's centre, ahead of it.  The 50 ms of rolling that widen the pot-candidate
        distance are along its way, not any way: a ball lost as it bounced off the foot
        cushion 311 mm from the corner, rolling 300 mm wide of the mouth, was pocketed
        and rolled on untracked (fp-multi_s9104_1080p30)."""
        p = self.motion.pockets[pocket]
        c = np.asarray(p.mouth_centre, float) - np.asarray(xy, float)
        speed = math.hypot(float(v[0]), float(v[1]))
        if speed < 1e-9 or float(c @ v) <= 0.0:
            return False
        off = abs(float(c[0] * v[1] - c[1] * v[0])) / speed
        return off <= 0.5 * p.spec.mouth_mm + self.R

    def _pocketed(self, tr: Track, confidence: float, events: list[Event]) -> None:
        """A ball gone at a pocket's mouth: pocketed when it was last seen."""
        tr.state = "pocketed"
        events.append(
            make(
                "pocket",
                tr.last_seen_t,
                tr.last_seen_frame,
                confidence,
                ball=tr.ball,
                pocket=tr.pocket,
            )
        )

    def _new_balls(self, det: Detections, unmatched: list[int], events, visible: set[str]) -> None:
        labels = det.labels
        still_pending = []
        streak = det.is_streak
        for j in unmatched:
            if streak[j]:
                continue  # a fast ball no track explains: never a new ball
            c = labels[j] if labels[j] else self._classes()[0]
            z = det.xy_mm[j]
            if self.motion.over_drop(z, DROP_MARGIN_RADII * self.R):
                continue  # a ball over a pocket's hole is falling in, not put down
            hit = None
            for k, pend in enumerate(self._pending):
                if pend is None:
                    continue
                xy, cc = pend[0], pend[1]
                if cc == c and np.linalg.norm(xy - z) < REST_GATE_RADII * self.R:
                    hit = k
                    break
            n = 1 if hit is None else self._pending[hit][2] + 1
            t_first = det.t if hit is None else self._pending[hit][4]
            # where it was first seen: a blob creeping along (a hand) never settles
            anchor = z.copy() if hit is None else self._pending[hit][0]
            if hit is not None:
                self._pending[hit] = None  # consumed
            confirmed = n >= PLACE_CONFIRM_FRAMES and det.t - t_first >= PLACE_CONFIRM_S
            back = not confirmed and self._back_on_spot(c, z)
            if confirmed or back:
                free = self._free_ids(c, z, det, j)
                if free:
                    self._rows_placed.append(j)  # the ball's view: the pipeline reports it
                    tr = free[0]
                    lost = self._lost_rolling(tr, det.t)  # rolled unseen, stopped here
                    # gone over the rail, not yet given up
                    over_rail = tr.state == "hidden" and not lost
                    if over_rail and not self.in_shot:
                        # put back by hand before the table's rest gave it up: it was off
                        events.append(
                            make("off_table", tr.last_seen_t, tr.last_seen_frame, 0.6, ball=tr.ball)
                        )
                    tr.jumped = tr.rail_lost = False
                    if lost:
                        tr.lost_moving = False
                    tr.state, tr.xy, tr.v = "table", z.copy(), np.zeros(2)
                    tr.removed_at_rest = False
                    tr.last_seen_t, tr.last_seen_frame, tr.still_since_t = det.t, det.frame, det.t
                    tr.pocket = tr.falling = None
                    visible.add(tr.ball)
                    pos = [round(float(z[0]), 1), round(float(z[1]), 1)]
                    if lost or (over_rail and self.in_shot):
                        continue  # it had not left the table: found again where it stopped
                    events.append(make("ball_placed", det.t, det.frame, 0.8, ball=tr.ball, pos=pos))
                    continue
            still_pending.append((anchor, c, n, det.t, t_first))
        self._pending = [p for p in self._pending if p is not None and det.t - p[3] < 0.2]
        self._pending += still_pending

    def _lost_rolling(self, tr: Track, t: float) -> bool:
        """A ball lost from view while rolling (not over a rail, not at a pocket) and
        unseen for longer than its prediction is followed (``HIDDEN_ROLL_S``): where it
        stopped, a still ball of its class confirmed there is that ball found again.
        Its speed may have been misjudged -- struck between two frames, the yellow of
        fp-multi_s9502_1080p60 left its spot at 9 m/s, measured 355 mm/s from one
        frame, was never seen on its way and stayed 'hidden' 1.4 m from where it
        stopped, while the only yellow on the table waited unclaimed for 6 s."""
        return (
            tr.state == "hidden"
            and tr.lost_moving
            and not tr.jumped
            and tr.pocket is None
            and t - tr.last_seen_t > HIDDEN_ROLL_S
        )

    def _back_on_spot(self, c: str, z: np.ndarray) -> bool:
        """Whether an untracked view of class ``c`` at ``z`` is a ball given up at rest come
        back into view: a view of its class where it lay.  Given up only because
        its spot read as cloth (a dark sleeve over it), it was never taken: found again on
        its spot at once, as a hidden ball is, not after a newcomer's confirmation."""
        gate = REST_GATE_RADII * self.R
        return any(
            tr.state == "off"
            and tr.removed_at_rest
            and tr.cls == c
            and float(np.hypot(*(tr.xy - z))) < gate
            for tr in self.tracks.values()
        )

    def could_be_a_ball(self, det: Detections, j: int) -> bool:
        """Whether detection ``j`` of this frame, taken by no ball, could be one: a ball
        of the colour it reads as went unseen in this frame (hidden, pocketed, off the
        table: found again, or put down), or an id it may take is free
        (``_free_ids``).  With every ball of that colour seen elsewhere in this very
        frame it can only be something else."""
        labels = det.labels
        c = labels[j] if labels[j] else self._classes()[0]
        col = _colour(c)  # white 1 and white 2 alike: the classifier may swap them
        if any(_colour(t.cls) == col and t.last_seen_t < det.t for t in self.tracks.values()):
            return True
        return bool(self._free_ids(c, det.xy_mm[j], det, j))

    def _free_ids(self, c: str, z: np.ndarray, det: Detections, j: int) -> list[Track]:
        """The free ids (pocketed or off) a new still ball of class ``c`` at ``z`` may
        take, best first: its own class's, a ball given up while still on this very
        spot first, then a ball that rattled out of a pocket it went into during this
        shot (a ball that rattles out is not pocketed).  When its
        class has none free, a ball that rattled out may be one the tracker had under
        another class (a red pool ball followed as an ivory one): the pocketed ball
        nearest it, if the detection does not read as "none" (a hand)."""
        free = [
            tr
            for tr in self.tracks.values()
            if tr.state in ("pocketed", "off")
            or (tr.state == "hidden" and tr.jumped)
            or self._lost_rolling(tr, det.t)
        ]
        rattled = []
        if self.in_shot:
            name, d_mouth = self.motion.nearest_pocket(z)
            if d_mouth < RATTLE_OUT_RADII * self.R:
                rattled = [
                    tr
                    for tr in free
                    if tr.state == "pocketed"
                    and tr.pocket == name
                    and tr.last_seen_t >= self.shot_start_t
                ]
        near = sorted(rattled, key=lambda tr: float(np.hypot(*(tr.xy - z))))
        own = [tr for tr in free if tr.cls == c]
        if own:
            first = {tr.ball for tr in near}
            # a ball given up at rest (covered by something that reads as cloth -- a dark
            # sleeve -- it counted as taken by a hand) and seen again where it lay is that
            # ball, before any other free id of its class (fp-rally_s9102_720p60: 9 came
            # back on its spot as 7, potted a shot earlier)
            back = {
                tr.ball
                for tr in own
                if tr.state == "off"
                and not tr.lost_moving
                and float(np.hypot(*(tr.xy - z))) < REST_GATE_RADII * self.R
            }
            # during a shot, a ball that rolled out of sight comes before one put back
            lost = {tr.ball for tr in own if self.in_shot and self._lost_rolling(tr, det.t)}
            return sorted(
                own, key=lambda tr: (tr.ball not in back, tr.ball not in lost, tr.ball not in first)
            )
        classes = tuple(det.classes)
        if not near or "none" not in classes or len(det.cls_prob) <= j:
            return []
        p_none = float(det.cls_prob[j][classes.index("none")])
        return near if p_none < RATTLE_OUT_MAX_NONE else []

    def _table_rest(self, det: Detections, events: list[Event]) -> None:
        live = [tr for tr in self.tracks.values() if tr.state == "table"]
        still = all(tr.speed <= REST_SPEED_MM_S for tr in live)
        if not still:
            self.table_still_since = None
            return
        if self.table_still_since is None:
            self.table_still_since = det.t
        if self.in_shot and det.t - self.table_still_since >= REST_CONFIRM_S:
            self.in_shot = False
            events.append(make("shot_end", det.t, det.frame, 0.9, positions=self._rounded()))
        # Reconcile the ball count at rest: a hidden ball whose spot is plainly cloth
        # is gone -- it jumped off (it was moving) or a hand took it (it was still).
        if det.t - self.table_still_since >= GONE_CONFIRM_S:
            for tr in self.tracks.values():
                if tr.state != "hidden" or det.t - tr.last_seen_t < GONE_CONFIRM_S:
                    continue
                if tr.pocket:
                    self._pocketed(tr, 0.6, events)
                elif self.occluded is None or self.occluded(tr.xy):
                    continue  # under a hand, a cue, a body: kept where it was
                elif not tr.lost_in_arm and det.t - tr.last_seen_t < STRUCK_GONE_S:
                    continue  # struck unseen: it may yet be found where it rolled
                elif tr.lost_moving:
                    tr.state = "off"
                    events.append(
                        make("off_table", tr.last_seen_t, tr.last_seen_frame, 0.6, ball=tr.ball)
                    )
                else:
                    tr.state, tr.removed_at_rest = "off", True
                    events.append(make("ball_removed", det.t, det.frame, 0.6, ball=tr.ball))

    def _settle_provisional(self, matched: set[str], det: Detections) -> None:
        """A provisional first-frame ball seen in place long enough is a ball; one not
        seen in place (it moved: a hand) is dropped, without an event -- it never was
        one; its id may go to another ball until the first stroke (``_give_freed_id``)."""
        if self._freed:
            if self.in_shot:
                self._freed = []
            else:
                self._freed = [b for b in self._freed if not self._give_freed_id(self.tracks[b])]
        for tr in self.tracks.values():
            if tr.provisional_until is None:
                continue
            if tr.ball not in matched:
                tr.state, tr.provisional_until = "off", None
                tr.v = np.zeros(2)
                self._freed.append(tr.ball)
            elif self.in_arm is not None and self.in_arm(tr.xy):
                tr.provisional_until = det.t + PROVISIONAL_CONFIRM_S  # a hand holds still
            elif det.t >= tr.provisional_until - 1e-9:
                tr.provisional_until = None

    def _reported(self, tr: Track) -> bool:
        return tr.on_table and tr.provisional_until is None

    def _rounded(self) -> dict[str, list[float]]:
        return {
            b: [round(float(v), 1) for v in tr.xy]
            for b, tr in self.tracks.items()
            if self._reported(tr)
        }

    def _output(self, det: Detections, events: list[Event], visible: set[str]) -> TrackerOutput:
        pos = {
            b: (float(tr.xy[0]), float(tr.xy[1]))
            for b, tr in self.tracks.items()
            if self._reported(tr)
        }
        visible = {b for b in visible if b in pos}
        return TrackerOutput(det.frame, det.t, pos, visible, events)
