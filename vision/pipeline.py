"""Frames -> detections -> identities -> positions and events, fast enough for live.

:class:`VisionPipeline` runs the detector on the whole bed only on the first
frame (and when most of the bed changes, e.g. the light); afterwards it compares
each frame with a reference on a sparse pixel grid (a ball is several grid cells
wide, so any ball that moves changes some) and re-detects only in the changed
boxes and around balls that are moving.  Balls at rest cost nothing.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile

from .detect import CLUTTER_RING_FRACTION, CLUTTER_SCORE_FACTOR, BallDetector
from .detections import Detections
from .identify import BallIdentifier
from .sources import Frame
from .track import (
    DROP_MARGIN_RADII,
    HAND_BLOB_MAX_SCORE,
    HIDDEN_ROLL_S,
    HIDDEN_STILL_JUMP_S,
    REST_GATE_RADII,
    REST_SPEED_MM_S,
    STILL_DRIFT_MM,
    STREAK_GAP_MAX_FRAMES,
    BallTracker,
    TrackerOutput,
)

CHANGE_LEVEL = 28  # 8-bit difference (any channel) that counts as a change
GRID_RADII = 0.5  # change-grid spacing in ball radii
TILE_RADII = 6.0  # side of a change tile in ball radii
CHANGE_PAD_RADII = 1.0  # a change is searched this far around (a ball's centre lies within)
FULL_REDETECT_FRACTION = 0.35  # more of the grid changed than this: detect everywhere
SETTLE_S = 1.5  # for this long after a ball stops, it is searched again ...
SETTLE_EVERY_S = 4 / 30  # ... this often (every 4th frame at 30 fps, 8th at 60)
FAR_CHANGE_EVERY_FRAMES = 1  # >1 searches changes away from all balls less often (3 lost balls)
RECLASSIFY_EVERY_S = 0.2  # continuations of tracked balls are classified this often
# Detections scored below this whose ring is unexplained foreground (the detector's
# clutter test) lie in a hand or an arm ...
CLUTTER_SCORE = 0.3
HELD_BALL_PROB = 0.9  # ... and are kept only when the classifier is this sure of a ball
NONE_DROP = 0.5  # P(none) from which a detection is not a ball
OCCLUDED_FOREGROUND = 0.3  # mean foreground over a lost ball's spot that means "covered"
# ... and at most this, "plain cloth" (bare cloth reads 0.00-0.06; a ball's spot half
# uncovered by a sleeve the colour of the cloth reads 0.17-0.31)
BARE_FOREGROUND = 0.15
# A cue running on ahead of a streak: across the streak's axis, at each of these
# distances (ball radii) past its far end, within this half width (radii) of the axis,
# foreground of at least this level over a band no wider than this (radii), read every
# CUE_PROFILE_STEP_RADII across -- leaving out what lies within CUE_BALL_CLEAR_RADII of
# a ball on the table (one beside the way shows a thin band at both steps) and within
# CUE_MARKING_CLEAR_MM of a line marked on the cloth (it reads as foreground).
CUE_AHEAD_STEPS_RADII = (2.0, 3.0)
CUE_AHEAD_HALF_WIDTH_RADII = 1.5
CUE_PROFILE_STEP_RADII = 0.1
CUE_BALL_CLEAR_RADII = 1.2
CUE_MARKING_CLEAR_MM = 10.0
CUE_FOREGROUND = 0.25
CUE_MAX_WIDTH_RADII = 1.0
# A player's arm, hand or body over the table: a blob of foreground (this level) inside
# the bed, reaching its edge (in over a cushion), larger than this many balls
ARM_FOREGROUND = 0.5
ARM_MIN_BALLS = 4.0
ARM_OPEN_RADII = 0.6  # opening (ball radii) that removes the cue from the arm's blob
ARM_WINDOW_RADII = 10.0  # the blob is looked at this far around the point (ball radii)
DUPLICATE_RADII = 0.8  # a new detection this close (radii) to a carried one is that one
# A detection no tracked ball explains (a newcomer: a ball placed, or a hand, a cue,
# an elbow taken for one) must look like a whole ball alone on the cloth:
NEW_MIN_SCORE = 0.7  # a crisp, full rim (partial rims and clutter score lower)
NEW_MAX_RING = 0.2  # little unexplained foreground around it (not part of a hand/arm)
NEW_CRISP_SCORE = 0.9  # a rim this crisp: the ring counts only foreground past a colour fringe
NEW_MIN_REL = 0.75  # not darker than the cloth (a sleeve, a shadow)
NEW_MAX_NONE = 0.3  # the classifier does not call it 'none'
# A newcomer turned away (a hand still beside a ball it has just put down) is searched
# again for this long: the change grid's reference took in its pixels when its box was
# searched, so nothing would look at it again.  The yellow put on its spot after a jump
# was first seen with the fingers at its side, turned away, and then never searched
# while it lay there in plain view (fp-jump_s9115_720p30: 43 frames).
RECHECK_S = 2.0
# ... unless a tracked ball lies within this (ball radii): a grip fist resting over a
# still ball, searched again every frame, was taken for that ball (fp-rally_s9026)
RECHECK_CLEAR_RADII = 4.0
EXPLAIN_RADII = 1.0  # a still (or hidden) ball explains a detection this close
FAR_MIN_SCORE = 0.5  # a ball lost while moving is found again far away only on a fair rim
AHEAD_COS = math.cos(math.radians(35.0))  # a moving ball explains what lies this near its way
WAY_MIN_SCORE = 0.7  # a crisp rim on a moving ball's way is kept even if the CNN says 'none'
# ... and one this crisp on a still hidden ball's spot is that ball (a cue across it)
COVERED_MIN_SCORE = 0.9
# ... and one where a still ball just gone from its spot can be, struck, within this many
# ball radii of that spot: the CNN, trained on sharp balls, reads a ball smeared by its
# first motion 'none', and a rim still round (a smear under a radius) with an exposure of
# a third of the frame interval or more lies within three radii of where it started.  The
# palm of a hand reaching over the table, crisp and 'none' (0.99) to the classifier, was
# taken for a still ball struck from under the sleeve 227 mm away (fp-jump_s9309_720p60;
# in last round's 30 clips four such palms 178-243 mm off, the one ball struck 59 mm).
STRUCK_SMEAR_RADII = 3.0
STREAK_MIN_TRAVEL_RADII = 0.7  # a ball moving this far a frame may smear into a streak
STREAK_LOST_S = 0.3  # a ball lost this lately may be a streak somewhere
# A frame in which nothing changed while a ball rolled at least this far (radii) since the
# last one repeats the last image (a camera at half the stream's frame rate)
REPEAT_TRAVEL_RADII = 0.5
REPEAT_MAX_FRAMES = 2  # at most this many repeated frames in a row
HOLD_RADII = 0.5  # a searched box holds a ball's centre at least this far inside (radii)
# Two searched boxes are searched as one window when that costs fewer work pixels than
# their two windows and this many more: a window's fixed cost (~25 numpy and OpenCV
# calls, ~0.4 ms) is the pixel work of about as many work pixels (~33 ns each).  After
# a break, 15 rolling balls made ~10 windows a frame, most of them holding 1-3 vote
# peaks, and the fixed costs were half the windows' time.
WINDOW_MERGE_SLACK_WORK_PX = 12000
COARSE_TRAVEL_RADII = 0.1  # a ball moving this far a frame is located in the work image only
# A pocket a ball went into during the stroke: its mouth is searched until the stroke ends
# (every SETTLE_EVERY_S; every frame while a ball is found there), this far (ball radii)
# past either jaw (a ball hanging in the jaws lies still there, nothing changing around it,
# after the tracker lost it rolling in)
POCKET_WATCH_RADII = 2.0
JAWS_MIN_CLASS_PROB = 0.5  # a view there is that ball when the classifier reads its class


@dataclass
class FrameResult:
    tracked: TrackerOutput
    detections: Detections
    full: bool  # whether the whole bed was searched


class VisionPipeline:
    def __init__(
        self,
        camera: CameraModel,
        profile: TableProfile,
        game: str,
        identifier: BallIdentifier | None = None,
        threads: int | None = None,
    ) -> None:
        self.detector = BallDetector(camera, profile)
        self.detector.threads = threads  # its search windows' threads (None: its choice)
        self.identifier = identifier or BallIdentifier(game)
        self.tracker = BallTracker(profile, game)
        self.profile = profile
        self.camera = camera
        self.stride = max(1, int(round(GRID_RADII * self.detector.radius_px_min)))
        self._ref: np.ndarray | None = None
        self._last: Detections | None = None  # carried to the next frame
        self._last_shown: Detections | None = None  # reported (FrameResult.detections)
        self._prev_t: float | None = None  # the last frame processed (not repeated)
        self._jaws_seen = False  # the last vetting found a ball in a watched pocket mouth
        self._img: np.ndarray | None = None
        self.stats = {"frames": 0, "full": 0, "boxes": 0}
        self._forced = np.zeros((0, 2))  # frame pixels to search again next frame
        self._recheck: list[tuple[np.ndarray, float]] = []  # turned away: (pixels, until)
        self.tracker.occluded = self._occluded
        self.tracker.bare = self._bare
        self.tracker.spot_changed = self._spot_changed
        self.tracker.spot_changed_lately = self._spot_changed_lately
        self.tracker.in_arm = self._in_arm
        self.tracker.cue_ahead = self._cue_ahead
        self._bed_work: np.ndarray | None = None
        k = int(2 * round(ARM_OPEN_RADII * self.detector.r_work) + 1)
        self._arm_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        self._changed_now: np.ndarray | None = None  # this frame's change grid (None: all)
        # ... and those of the frames before it that a struck ball's streak may be found
        # in (``STREAK_GAP_MAX_FRAMES``), oldest first
        self._recent_changes: collections.deque = collections.deque(
            maxlen=STREAK_GAP_MAX_FRAMES + 1
        )
        self._prev_grid: np.ndarray | None = None  # the last frame's change grid image
        self._last_out: TrackerOutput | None = None
        self._repeats = 0  # repeated frames in a row so far

    def _grid(self, image: np.ndarray) -> np.ndarray:
        """Every ``stride``-th pixel of the bed's box (nearest-neighbour shrink: a copy
        that OpenCV makes faster than numpy's strided view)."""
        x0, y0, x1, y1 = self.detector.roi
        s = self.stride
        size = (-(-(x1 - x0) // s), -(-(y1 - y0) // s))
        return cv2.resize(image[y0:y1, x0:x1], size, interpolation=cv2.INTER_NEAREST)

    def _changed(self, grid: np.ndarray) -> np.ndarray:
        """Grid cells where any colour channel moved by more than ``CHANGE_LEVEL``."""
        d = cv2.absdiff(grid, self._ref)
        if d.ndim == 3:
            c = cv2.split(d)
            d = cv2.max(cv2.max(c[0], c[1]), c[2])
        return d > CHANGE_LEVEL

    def process(self, frame: Frame) -> FrameResult:
        img = frame.image
        self._img = img
        grid = self._grid(img)
        prev, self._prev_grid = self._prev_grid, grid
        if self._is_repeat(grid, prev, frame):
            return self._repeated(frame)
        self._repeats = 0
        full = False
        n_boxes = 0
        self._changed_now = None
        if self._ref is None or self._last is None:
            self.detector.set_background(img)
            det = self.detector.detect(img, frame.index, frame.t)
            det = self._balls_only(img, self._classify(img, det), whole_frame=True)
            self._ref = grid.copy()
            full = True
            self._recent_changes.append(None)
        else:
            changed = self._changed(grid)
            self._changed_now = changed
            self._recent_changes.append(changed)
            boxes = self._near_balls_or_due(self._change_boxes(changed), frame.index)
            boxes += self._moving_boxes()
            boxes += self._pocket_watch_boxes(frame.t, every_frame=self._jaws_seen)
            self._jaws_seen = False
            forced = self._forced
            self._forced = np.zeros((0, 2))
            r = self.detector.radius_px_max
            for x, y in self._rechecks_due(frame.t):
                boxes.append(self.detector.work_box((x - 2 * r, y - 2 * r, x + 2 * r, y + 2 * r)))
            for x, y in forced:
                boxes.append(self.detector.work_box((x - 2 * r, y - 2 * r, x + 2 * r, y + 2 * r)))
            if changed.mean() > FULL_REDETECT_FRACTION:
                det = self.detector.detect(img, frame.index, frame.t)
                det = self._balls_only(img, self._classify(img, det), whole_frame=True)
                self._ref = grid.copy()
                full = True
            elif boxes:
                wxy = self._work_xy(self._last.xy_px)
                # the overlapping boxes first, then those cheaper searched as one window
                boxes = _merge_boxes(
                    _merge_boxes(boxes),
                    self.detector.window_margin,
                    self.detector.work_size,
                    WINDOW_MERGE_SLACK_WORK_PX,
                )
                boxes = _hold_whole_balls(boxes, wxy, self._hold_margin())
                n_boxes = len(boxes)
                in_box = np.zeros(len(self._last), bool)
                for bx0, by0, bx1, by1 in boxes:
                    in_box |= (
                        (wxy[:, 0] >= bx0)
                        & (wxy[:, 0] < bx1)
                        & (wxy[:, 1] >= by0)
                        & (wxy[:, 1] < by1)
                    )
                # a ball in a searched box whose own pixels did not change stays as it was
                unchanged = ~self._changed_near(changed, self._last.xy_px)
                static = in_box & unchanged
                # a streak is a ball that was moving fast: it is never carried over
                in_box |= self._last.is_streak
                static &= ~self._last.is_streak
                if len(forced):
                    # balls that just stopped get one careful look (their last, moving
                    # detection may have been a coarse one)
                    dfo = np.linalg.norm(self._last.xy_px[:, None] - forced[None], axis=2)
                    static &= dfo.min(axis=1) > self.detector.radius_px_min
                new = self.detector.detect_regions(
                    img,
                    boxes,
                    frame.index,
                    frame.t,
                    skip_px=self._last.xy_px[static],
                    neighbours_px=self._last.xy_px[~in_box | static],
                    streaks=self._streaks_possible(frame, in_box & ~unchanged),
                    coarse_px=self._moving_px(frame),
                )
                old = self._last[~in_box | static]
                old.frame, old.t = frame.index, frame.t
                way = self._on_the_way(new, frame)
                if self.tracker.t is not None:
                    dt = max(frame.t - self.tracker.t, 1e-3)
                    way |= self._near_missing(
                        new, dt, carried_mm=old.xy_mm, max_mm=self._smear_mm()
                    )
                new = self._balls_only(img, self._classify(img, new, frame), way)
                if len(old) and len(new):
                    # a ball on a box's edge may be found again: keep the carried one
                    dd = np.linalg.norm(new.xy_px[:, None] - old.xy_px[None], axis=2)
                    new = new[dd.min(axis=1) > DUPLICATE_RADII * self.detector.radius_px_min]
                det = Detections.merge([old, new]) if len(old) else new
                det.frame, det.t = frame.index, frame.t
                self._update_ref(grid, boxes, held_px=self._last.xy_px[static])
            else:
                det = self._last
                if det.is_streak.any():
                    det = det[~det.is_streak]
                det = dataclasses.replace(det, frame=frame.index, t=frame.t)
        if full or n_boxes:  # else: the last frame's detections, vetted then
            vetted = self._plausible(img, det)
            self._turned_away(det, vetted, frame.t)
            det = vetted
        doubtful = None if self.tracker.started else self._doubtful(img, det)
        out = self.tracker.update(det, doubtful)
        ok = self._report_mask(det)
        shown = ok & ~self._unclaimable(det)
        self._last = det if ok.all() else det[ok]
        self._last_shown = det if shown.all() else det[shown]
        self._last_out = out
        # Balls that stopped lately get a careful look now and then while they settle
        # (a creeping ball changes too little a frame to trigger the change grid).
        settle_due = _period_crossed(self._prev_t, frame.t, SETTLE_EVERY_S)
        stopped = [
            tr.xy
            for tr in self.tracker.tracks.values()
            if tr.state == "table"
            and tr.seen > 1
            and tr.still_since_t is not None
            and (
                tr.still_since_t == frame.t
                or (settle_due and frame.t - tr.still_since_t < SETTLE_S)
            )
        ]
        if stopped:
            R = self.profile.ball_radius_mm
            self._forced = self.camera.project(np.array(stopped), R).reshape(-1, 2)
        self._prev_t = frame.t
        self.stats["frames"] += 1
        self.stats["full"] += full
        self.stats["boxes"] += n_boxes
        return FrameResult(out, self._last_shown, full)

    # ------------------------------------------------------------------ helpers
    def _is_repeat(self, grid: np.ndarray, prev: np.ndarray | None, frame: Frame) -> bool:
        """Whether this frame repeats the last one: nothing changed anywhere while a
        ball was rolling fast enough to change pixels.  A camera at half the stream's
        rate (or a capture that dropped frames) sends each image twice; taken as an
        observation, a repeat stops every rolling ball for a frame, halves its speed
        estimate and loses it from its own prediction.  At most ``REPEAT_MAX_FRAMES``
        in a row: a ball really stopped short (unseen) cannot freeze the tracker."""
        tr = self.tracker
        if prev is None or self._last_out is None or tr.t is None:
            return False
        if self._repeats >= REPEAT_MAX_FRAMES or prev.shape != grid.shape:
            return False
        dt = frame.t - tr.t
        if dt <= 0:
            return False
        travel = REPEAT_TRAVEL_RADII * self.profile.ball_radius_mm
        if not any(t.state == "table" and t.speed * dt >= travel for t in tr.tracks.values()):
            return False
        d = cv2.absdiff(grid, prev)
        return int(d.max()) <= CHANGE_LEVEL

    def _repeated(self, frame: Frame) -> FrameResult:
        """A repeated frame: no new observation.  The tracker is left as it was (its
        next frame spans both intervals); the balls on the move are reported where the
        physics puts them now, not as seen."""
        self._repeats += 1
        tr = self.tracker
        last = self._last_out
        dt = frame.t - tr.t
        pos = dict(last.positions)
        visible = set(last.visible)
        for b, t in tr.tracks.items():
            if b in pos and t.speed > REST_SPEED_MM_S:
                p, _ = tr.motion.predict(t.xy, t.v, dt)
                pos[b] = (float(p[0]), float(p[1]))
                visible.discard(b)
        self.stats["frames"] += 1
        det = dataclasses.replace(self._last_shown, frame=frame.index, t=frame.t)
        return FrameResult(TrackerOutput(frame.index, frame.t, pos, visible, []), det, False)

    def _plausible(self, img: np.ndarray, det: Detections) -> Detections:
        """Drop newcomers (detections no tracked ball explains) that do not look like a
        whole ball alone on the cloth.  The game's balls are all known: a new one only
        appears when a hand puts it down, and then it is clean and round."""
        tr = self.tracker
        if len(det) == 0 or not tr.started:
            return det
        R = self.profile.ball_radius_mm
        dt = max(0.0, det.t - tr.t) if tr.t is not None else 0.0
        pts, rad = [], []
        far_pts, far_rad = [], []  # balls lost while moving: anywhere within their reach
        far_stale = []  # ... lost so long ago that their prediction gave up
        ahead = np.zeros(len(det), bool)  # on the way of a ball that moves
        for t in tr.tracks.values():
            if not t.on_table:
                continue
            if t.state == "table" and t.speed > REST_SPEED_MM_S:
                pts.append(t.xy + t.v * dt)
                rad.append(1.2 * R + t.speed * dt)
                # its speed may lag (just struck): anything it can reach along its way
                ahead |= self._ahead(t, det.xy_mm, max(dt, 1e-3))
            elif t.state == "hidden" and t.lost_moving:
                pts.append(t.xy)
                rad.append(EXPLAIN_RADII * R)
                far_pts.append(t.xy)
                far_rad.append(tr.reach_mm(t, max(dt, det.t - t.last_seen_t)))
                far_stale.append(det.t - t.last_seen_t > HIDDEN_ROLL_S)
            # (a still ball gone from its spot unseen -- struck -- explains nothing far
            # away: what it may have become is vetted below as a struck ball)
            else:
                pts.append(t.xy)
                rad.append(EXPLAIN_RADII * R)
        streak = det.is_streak
        new = ~streak & ~ahead
        if pts:
            d = np.linalg.norm(det.xy_mm[:, None] - np.array(pts)[None], axis=2)
            new &= ~(d <= np.array(rad)[None]).any(axis=1)
        ok = np.ones(len(det), bool)
        if far_pts and new.any():
            # found again far from where it was lost: a fair rim, not in a player's arm
            d = np.linalg.norm(det.xy_mm[:, None] - np.array(far_pts)[None], axis=2)
            within = d <= np.array(far_rad)[None]
            far = new & within.any(axis=1)
            for j in np.nonzero(far)[0]:
                ok[j] = det.score[j] >= FAR_MIN_SCORE and not self._in_arm(det.xy_mm[j])
            # only balls whose prediction gave up long ago (frozen, after HIDDEN_ROLL_S)
            # can be it: where it shows up says nothing of their motion, so it must look
            # like a ball put down -- alone on the cloth (a cue's shadow on a red cloth,
            # 5 s after a red went down unseen, was taken for that red)
            stale = far & ok & ~(within & ~np.array(far_stale)[None]).any(axis=1)
            idx = np.nonzero(stale)[0]
            if len(idx):
                ok[idx] = self._alone_on_cloth(img, det, idx)
            new &= ~far
        jaws = new & self._in_watched_mouth(det)
        self._jaws_seen = bool(jaws.any())
        for j in np.nonzero(jaws)[0]:
            # a ball hanging in the jaws of a pocket that ball went into: the hole
            # around it is no hand's foreground (not alone on the cloth), so a fair rim
            # the classifier reads as that ball's class, not in a player's arm
            ok[j] = det.score[j] >= FAR_MIN_SCORE and not self._in_arm(det.xy_mm[j])
        new &= ~jaws
        for j in np.nonzero(streak)[0]:
            ok[j] = self._streak_explained(det, j, dt)
        if (streak & ~ok).any():
            tr.note_loose_streaks(det.t, det.xy_mm[streak & ~ok])
        if not new.any():
            return det if ok.all() else det[ok]
        # a still ball missing from its spot this frame may have been struck (the cue
        # still behind it): a crisp ball it could reach needs no clean surroundings,
        # and one next to the cue (its score lowered as clutter) is kept when the
        # classifier is sure it is a ball
        struck = self._near_missing(det, dt)
        sure = np.zeros(len(det), bool)
        if "none" in det.classes and det.cls_prob.shape[1]:
            k = det.classes.index("none")
            sure = np.delete(det.cls_prob, k, axis=1).max(axis=1) >= HELD_BALL_PROB
        held = struck & sure & (det.score >= NEW_MIN_SCORE * CLUTTER_SCORE_FACTOR)
        ok[new] = (det.score >= NEW_MIN_SCORE)[new] | held[new]
        # the classifier's 'none' vetoes a newcomer -- but not a crisp rim where a still
        # ball just gone from its spot can be (struck: the CNN, trained on sharp balls,
        # may call a ball smeared by its first frames of motion 'none')
        smeared = self._near_missing(det, dt, max_mm=self._smear_mm()) if struck.any() else struck
        ok &= ~new | (_none_prob(det) < NEW_MAX_NONE) | (smeared & (det.score >= WAY_MIN_SCORE))
        idx = np.nonzero(new & ok & ~struck)[0]
        if len(idx):
            # a crisp rim's colour fringe is no hand around it (fp-jump_s9709_720p60: the
            # yellow put back after it jumped off, turned away to the end of the clip);
            # a knuckle read as a ball rarely has a crisp rim (0.71-0.73 on fp-rally_s9729)
            ok[idx] = self._alone_on_cloth(img, det, idx, outer=det.score[idx] >= NEW_CRISP_SCORE)
        # and not part of a player's arm or hand (a fingertip can look like a clean ball;
        # the classifier, trained on rendered balls, may even be sure of a real hand)
        for j in np.nonzero(new & ok)[0]:
            ok[j] = not self._in_arm(det.xy_mm[j])
        return det if ok.all() else det[ok]

    def _balls_only(
        self,
        img: np.ndarray,
        det: Detections,
        keep: np.ndarray | None = None,
        whole_frame: bool = False,
    ) -> Detections:
        """``_balls_only`` with its clutter rows -- those scored low that have unexplained
        foreground around them (a low score alone may be a faint rim: a red ball on red
        cloth is found by its shading, its rim votes weak; fb-kaisa-middle_s9816_720p60's
        reds scored 0.27-0.28 and were dropped in every frame) -- and the rack's crisp
        rims kept as balls (``_rack_rows``), 'none' taken out of their class rows; on a
        ``whole_frame`` detection the lone crisp rims too (``_lone_crisp_rims``)."""
        low = np.nonzero(det.score < CLUTTER_SCORE)[0]
        clutter = np.zeros(len(det), bool)
        if len(low):
            ring, _ = self.detector.surroundings(img, det.xy_px[low], det.xy_px)
            clutter[low] = ring > CLUTTER_RING_FRACTION
        rack = self._rack_rows(det)
        if whole_frame:
            rack |= self._lone_crisp_rims(img, det)
        if rack.any():
            keep = rack if keep is None else keep | rack
            if "none" in det.classes and det.cls_prob.shape[1]:
                # a ball: its class is the classifier's best among the balls
                p = det.cls_prob[rack]
                p[:, det.classes.index("none")] = 0.0
                det.cls_prob[rack] = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
        return _balls_only(det, keep, clutter)

    def _lone_crisp_rims(self, img: np.ndarray, det: Detections) -> np.ndarray:
        """Rows the classifier would drop as 'none' that are balls all the same: a crisp
        rim (``NEW_CRISP_SCORE``) alone on the cloth -- a clean ring past its colour
        fringe, not darker than the cloth, in no arm: what a newcomer must show, less the
        classifier's word.  Only on a whole-frame detection (the first frame), where a
        ball at rest that is dropped is not looked at again while nothing changes there:
        fp-pots_s10007_720p60's orange ball on a red cloth in a dim corner, rim 1.0, read
        none 0.84 / yellow 0.13, was missed in all its 926 frames."""
        out = np.zeros(len(det), bool)
        idx = np.nonzero(_read_as_none(det) & (det.score >= NEW_CRISP_SCORE))[0]
        if not len(idx):
            return out
        out[idx] = self._alone_on_cloth(img, det, idx, outer=np.ones(len(idx), bool))
        for j in np.nonzero(out)[0]:
            out[j] = not self._in_arm(det.xy_mm[j])
        return out

    def _alone_on_cloth(
        self, img: np.ndarray, det: Detections, idx: np.ndarray, outer: np.ndarray | None = None
    ) -> np.ndarray:
        """For rows ``idx``: little unexplained foreground around each (``outer``: past a
        crisp rim's colour fringe) and a core not darker than the cloth -- a ball put
        down, not a knuckle, an elbow or a sleeve.  Only the other detections explain
        foreground, not the rows vetted with it: two knuckles of a hand held still,
        side by side, each explained the other's ring (fp-rally_s9729_720p30, frames
        650-659, reported as balls put down for ten frames)."""
        others = np.delete(det.xy_px, idx, axis=0)
        ring, rel = self.detector.surroundings(img, det.xy_px[idx], others, outer=outer)
        return (ring <= NEW_MAX_RING) & (rel >= NEW_MIN_REL)

    def _rack_rows(self, det: Detections) -> np.ndarray:
        """Crisp rims on the rack's slots while the rack stands (Free Pyramid: ten or
        more slots filled, counting the balls carried from the last frame): balls,
        whatever the classifier makes of a number printed on one (fp-rally_s9820_1080p30:
        ball 4 read 'none' at 0.49 in the first frame; the tracker filled its slot, but
        its view was left out of the frames' detections for 33 frames)."""
        if len(det) == 0:
            return np.zeros(0, bool)
        pts = det.xy_mm if self._last is None else np.vstack([det.xy_mm, self._last.xy_mm])
        return self.tracker.on_rack(pts)[: len(det)] & (det.score >= NEW_CRISP_SCORE)

    def _turned_away(self, det: Detections, vetted: Detections, t: float) -> None:
        """Note the round detections ``_plausible`` dropped (``det`` less ``vetted``) in a
        player's arm and away from every tracked ball -- a ball just put down, the hand
        still at its side -- to be searched again until ``RECHECK_S`` after each was
        first turned away.  Only those: what was turned away alone on the cloth (a pale
        cue crossing a shadow) had its chance, and looked at again every frame one view
        of it would pass."""
        if len(vetted) == len(det):
            return
        r = self.detector.radius_px_min
        for j in np.nonzero(~det.is_streak)[0]:
            p = det.xy_px[j]
            if len(vetted) and np.linalg.norm(vetted.xy_px - p, axis=1).min() < 0.5:
                continue  # kept
            if any(np.linalg.norm(q - p) < r for q, _ in self._recheck):
                continue  # already to be searched again (the cheap test first)
            if self._near_a_ball(det.xy_mm[j]) or not self._in_arm(det.xy_mm[j]):
                continue
            self._recheck.append((p.copy(), t + RECHECK_S))

    def _near_a_ball(self, xy_mm: np.ndarray) -> bool:
        """Whether a ball on the table is tracked within ``RECHECK_CLEAR_RADII`` of
        ``xy_mm``: a view there is that ball's or a hand's over it, not one put down."""
        R = self.profile.ball_radius_mm
        return any(
            t.on_table and float(np.linalg.norm(t.xy - xy_mm)) < RECHECK_CLEAR_RADII * R
            for t in self.tracker.tracks.values()
        )

    def _rechecks_due(self, t: float) -> np.ndarray:
        """Frame pixels of the turned-away detections still to be searched at ``t``."""
        self._recheck = [(p, until) for p, until in self._recheck if t <= until]
        return np.array([p for p, _ in self._recheck]).reshape(-1, 2)

    def _doubtful(self, img: np.ndarray, det: Detections) -> np.ndarray:
        """First frame: which detections do not look like a whole ball alone on the
        cloth (the newcomer test) -- a hand or an arm over the table when the clip
        starts, or a ball crowded by its neighbours in a rack.  The tracker gives them
        ids only provisionally."""
        if len(det) == 0:
            return np.zeros(0, bool)
        ok = det.score >= NEW_MIN_SCORE
        ok &= _none_prob(det) < NEW_MAX_NONE
        idx = np.nonzero(ok)[0]
        if len(idx):
            ring, rel = self.detector.surroundings(img, det.xy_px[idx], det.xy_px)
            ok[idx] = (ring <= NEW_MAX_RING) & (rel >= NEW_MIN_REL)
        # nor in a player's arm or hand over the table (a lit knuckle can look like a
        # clean ball, as for a newcomer)
        for j in np.nonzero(ok)[0]:
            ok[j] = not self._in_arm(det.xy_mm[j])
        # the rack's balls are balls, however crowded (their rims and rings are)
        return ~(ok | self.tracker.on_rack(det.xy_mm))

    def _report_mask(self, det: Detections) -> np.ndarray:
        """What the tracker made of the detections: the ones a ball took, and the rest
        only if each could be a ball put down (a crisp rim the classifier does not call
        'none', not over a pocket's hole, not in a player's arm: a knuckle of a hand
        resting on the cloth read as the yellow, fp-rally_s7003_720p60; a ball put
        down is confirmed when the hand has left it).  A detection let through because a moving
        or hidden ball might be it (a hand's finger next to a rolling ball, the top
        of a ball sinking into a pocket) but that no ball took is nothing: dropped
        from the output and from what is carried to the next frame.  The far end of
        a motion-blur streak merged into its ball's detection goes too."""
        tr = self.tracker
        cand = self._untaken(det)
        if cand is None:
            return np.ones(len(det), bool)
        ok = tr.rows_taken.copy()
        if cand.any():
            crisp = det.score >= NEW_MIN_SCORE
            crisp &= _none_prob(det) < NEW_MAX_NONE
            for j in np.nonzero(cand & crisp)[0]:
                ok[j] = tr.motion.over_drop(
                    det.xy_mm[j], DROP_MARGIN_RADII * tr.R
                ) is None and not self._in_arm(det.xy_mm[j])
        return ok

    def _unclaimable(self, det: Detections) -> np.ndarray:
        """Rows no ball took that no ball could be: every ball of the colour the
        classifier reads was seen elsewhere in this frame and no id it may take is free
        (``BallTracker.could_be_a_ball``).  Carried to the next frame (an id may come
        free: a ball potted while it lies there) but not reported as a ball seen.
        fb-rally_s10523_720p60, frames 233-235 and 383-528: the player's fist on the cue
        butt, a dark sleeve on a grey cloth around it (no arm in the foreground), a
        crisp round rim the classifier read as white 2 -- both whites seen on the table
        -- reported as a ball for 34 frames."""
        out = np.zeros(len(det), bool)
        cand = self._untaken(det)
        if cand is not None:
            for j in np.nonzero(cand)[0]:
                out[j] = not self.tracker.could_be_a_ball(det, j)
        return out

    def _untaken(self, det: Detections) -> np.ndarray | None:
        """The rows of ``det`` no ball took that are neither a streak nor a streak's far
        end merged into its ball; None when every row was taken (or the tracker's row
        flags are not this frame's)."""
        taken, merged = self.tracker.rows_taken, self.tracker.rows_merged
        if len(taken) != len(det) or len(merged) != len(det) or taken.all():
            return None
        return ~taken & ~merged & ~det.is_streak

    def _smear_mm(self) -> float:
        """How far from its spot a struck ball may still read 'none' (STRUCK_SMEAR_RADII)."""
        return STRUCK_SMEAR_RADII * self.profile.ball_radius_mm

    def _near_missing(
        self,
        det: Detections,
        dt: float,
        carried_mm: np.ndarray | None = None,
        max_mm: float = math.inf,
    ) -> np.ndarray:
        """Detections within reach of a still ball that has no detection on its spot
        now and was seen lately (or whose spot shows plain cloth) -- and was not lost
        under a player's arm that still covers its spot: a hand does not strike a ball
        (it takes it, or moves it and puts it down crisp), so what shows in that hand
        is no struck ball smeared past the classifier (fp-penalty_s8110: the palm
        lowered over the penalty ball, read 'none', was kept as the ball struck).
        ``carried_mm``: the detections carried from the last frame (pixels unchanged)
        -- a ball on one of them is still there; without them every still ball outside
        the searched boxes looked struck and lent the fastest ball's reach to a grip
        fist read 'none' (fp-rally_s9026_720p30).  ``max_mm``: only this close to the
        spot, whatever the ball's reach."""
        tr = self.tracker
        out = np.zeros(len(det), bool)
        R = self.profile.ball_radius_mm
        still = [
            t
            for t in tr.tracks.values()
            if t.on_table
            and t.speed <= REST_SPEED_MM_S
            and not (t.state == "hidden" and t.lost_moving)
        ]
        if not still:
            return out
        # every still ball's distances at once (a call per ball cost more than the maths)
        txy = np.array([t.xy for t in still], float).reshape(-1, 2)
        dist = np.linalg.norm(det.xy_mm[None] - txy[:, None], axis=2)
        there = (dist < REST_GATE_RADII * R).any(axis=1)
        if carried_mm is not None and len(carried_mm):
            dc = np.linalg.norm(np.asarray(carried_mm)[None] - txy[:, None], axis=2)
            there |= (dc < REST_GATE_RADII * R).any(axis=1)
        for t, d, seen_there in zip(still, dist, there, strict=True):
            since = max(dt, det.t - t.last_seen_t)
            if (
                t.state == "hidden"
                and since > HIDDEN_STILL_JUMP_S
                and not tr.vanished(t, det.frame)
            ):
                continue
            if seen_there:
                continue  # still there (seen now, or carried: its pixels did not change)
            within = d <= min(tr.reach_mm(t, since), max_mm)
            if not within.any() or (t.state == "hidden" and t.lost_in_arm and self._in_arm(t.xy)):
                continue
            out |= within
        return out

    def _on_the_way(self, det: Detections, frame: Frame) -> np.ndarray:
        """Detections where a moving ball is predicted, or ahead of it within its reach
        (a ball just struck: its speed estimate still lags)."""
        out = np.zeros(len(det), bool)
        tr = self.tracker
        if len(det) == 0 or tr.t is None:
            return out
        dt = max(frame.t - tr.t, 1e-3)
        R = self.profile.ball_radius_mm
        for t in tr.tracks.values():
            if t.state != "table" or t.speed <= REST_SPEED_MM_S:
                continue
            near = np.linalg.norm(det.xy_mm - (t.xy + t.v * dt), axis=1) <= 1.2 * R + t.speed * dt
            out |= near | self._ahead(t, det.xy_mm, dt)
        return out

    def _ahead(self, t, xy_mm: np.ndarray, dt: float) -> np.ndarray:
        """Points ahead of moving track ``t`` (within ``AHEAD_COS``) that it can reach
        in ``dt`` seconds."""
        w = xy_mm - t.xy
        dw = np.linalg.norm(w, axis=1)
        cos = (w @ t.v) / np.maximum(dw * t.speed, 1e-9)
        return (cos > AHEAD_COS) & (dw <= self.tracker.reach_mm(t, dt))

    def _moving_px(self, frame: Frame) -> np.ndarray:
        """Where balls moving faster than ``COARSE_TRAVEL_RADII`` a frame are expected."""
        tr = self.tracker
        if tr.t is None:
            return np.zeros((0, 2))
        dt = max(frame.t - tr.t, 1e-3)
        R = self.profile.ball_radius_mm
        pts = [
            t.xy + t.v * dt
            for t in tr.tracks.values()
            if t.state == "table" and t.speed * dt >= COARSE_TRAVEL_RADII * R
        ]
        if not pts:
            return np.zeros((0, 2))
        return self.camera.project(np.array(pts), R).reshape(-1, 2)

    def _streaks_possible(self, frame: Frame, touched: np.ndarray) -> bool:
        """Whether a motion-blur streak may be in view: a ball moves fast enough to
        smear, one was lost while moving, or a still ball's pixels changed (struck?)."""
        tr = self.tracker
        if tr.t is None:
            return True
        dt = max(frame.t - tr.t, 1e-3)
        R = self.profile.ball_radius_mm
        for t in tr.tracks.values():
            if t.state == "table" and t.speed * dt >= STREAK_MIN_TRAVEL_RADII * R:
                return True
            if t.state == "hidden" and frame.t - t.last_seen_t < STREAK_LOST_S:
                return True  # lost lately: moving, or struck from under the cue
        return bool(touched.any())

    def _streak_explained(self, det: Detections, j: int, dt: float) -> bool:
        """Whether a tracked ball can be streak ``j``: a moving ball whose path it lies
        on, or a still one it starts from (struck) -- the tracker's own gates."""
        tr = self.tracker
        R = self.profile.ball_radius_mm
        z = det.xy_mm[j]
        round_ = det.xy_mm[~det.is_streak]
        for t in tr.tracks.values():
            if not t.on_table:
                continue
            since = max(dt, det.t - t.last_seen_t)
            if float(np.linalg.norm(z - t.xy)) > tr.reach_mm(t, since, streak=True):
                continue
            if t.speed > REST_SPEED_MM_S or (t.state == "hidden" and t.lost_moving):
                # on its way: the streak's axis runs through where it was or is predicted
                p = t.xy + t.v * dt
                if float(np.linalg.norm(z - p)) < 1.5 * R:
                    return True
                if min(tr._off_axis(t.xy, det, j), tr._off_axis(p, det, j)) < 1.5 * R:
                    return True
                continue
            seen_in_place = len(round_) and (
                np.linalg.norm(round_ - t.xy, axis=1).min() < REST_GATE_RADII * R
            )
            if not seen_in_place and tr.struck_into(t, det, j):
                return True  # struck: gone from its spot, along the streak's axis
        return False

    def _classify(self, img: np.ndarray, det: Detections, frame: Frame | None = None):
        """Classes for detections; a motion-blur streak has no ball image to classify
        (uniform over the game's balls: the tracker decides by motion)."""
        ident = self.identifier
        streak = det.is_streak
        round_ = det[~streak] if streak.any() else det
        if frame is not None:
            round_ = self._identify(img, round_, frame)
        else:
            round_ = ident.identify(img, round_)
        if not streak.any():
            return round_
        k = len(ident.classes)
        prob = np.zeros((len(det), k))
        prob[~streak] = round_.cls_prob
        prob[streak] = _uniform_over_balls(ident.classes)
        det.classes, det.cls_prob = ident.classes, prob
        return det

    def _identify(self, img: np.ndarray, det: Detections, frame: Frame) -> Detections:
        """Classify new detections -- except the unambiguous continuations of tracked balls.

        A detection where exactly one tracked ball is predicted (and no other ball
        near) needs no CNN: its row is uniform over the game's balls, which adds
        nothing to the track's class evidence and leaves the match to motion.  Once
        every ``RECLASSIFY_EVERY_S`` a frame classifies everything (a period in seconds,
        not frames: every 6th frame at 60 fps doubled the CNN's work per second of play
        for no more evidence than a ball's class needs).
        """
        ident = self.identifier
        tr = self.tracker
        if (
            len(det) == 0
            or not ident.has_model
            or tr.t is None
            or _period_crossed(tr.t, frame.t, RECLASSIFY_EVERY_S)
        ):
            return ident.identify(img, det)
        R = self.profile.ball_radius_mm
        dt = max(0.0, frame.t - tr.t)
        live = [
            t
            for t in tr.tracks.values()
            if t.state == "table" and t.seen >= 3 and not _looks_like_none(t)
        ]
        # a still ball gone from view where it lay (a cue shaft across it: the crop is
        # mostly the shaft, and the CNN read 'none' for 130 frames on fb-rally_s10819):
        # a crisp rim on its very spot is that ball, whatever the crop shows
        covered = [
            t
            for t in tr.tracks.values()
            if t.state == "hidden"
            and not t.lost_moving
            and not t.jumped
            and t.pocket is None
            and t.seen >= 3
            and not _looks_like_none(t)
        ]
        tracked = live + covered
        if not tracked:
            return ident.identify(img, det)
        P = np.array([t.xy + t.v * dt for t in live] + [t.xy for t in covered])
        gate = np.array(
            [0.5 * R + 0.3 * t.speed * dt for t in live] + [REST_GATE_RADII * R for t in covered]
        )
        d = np.linalg.norm(det.xy_mm[:, None] - P[None], axis=2)
        nearest = np.argmin(d, axis=1)
        near = d[np.arange(len(det)), nearest] <= gate[nearest]
        near &= (nearest < len(live)) | (det.score >= COVERED_MIN_SCORE)
        near &= ~self._off_spot_under_hand(det, tracked, nearest, near)
        # alone: no other ball (hidden ones included: one lost in a kiss) nearby
        seen_covered = {t.ball for t in covered}
        others = [
            t.xy for t in tr.tracks.values() if t.state == "hidden" and t.ball not in seen_covered
        ]
        if others:
            d = np.hstack([d, np.linalg.norm(det.xy_mm[:, None] - np.array(others)[None], axis=2)])
        order = np.sort(d, axis=1)
        alone = order[:, 1] > 2.5 * R if d.shape[1] > 1 else np.ones(len(det), bool)
        known = near & alone
        k = len(ident.classes)
        prob = np.zeros((len(det), k))
        if (~known).any():
            sub = ident.identify(img, det[~known])
            prob[~known] = sub.cls_prob
        prob[known] = _uniform_over_balls(ident.classes)
        det.classes = ident.classes
        det.cls_prob = prob
        return det

    def _off_spot_under_hand(
        self, det: Detections, live: list, nearest: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """Which of ``rows`` (detections near the prediction of track ``live[nearest]``)
        lie off the spot of a still ball -- further than the tracker lets a still ball
        drift before it counts as struck -- that is under a player's arm.  A hand does
        not strike a ball, but its palm, lowered over the ball to take it, shows as a
        fair rim just beside the spot that the tracker would take for the ball set
        rolling (fp-penalty_s5012: the penalty ball followed the palm off the table);
        such a view is the hand's as much as the ball's, no unambiguous continuation:
        the classifier looks at it (a palm reads 'none' and is dropped).  A weak blob
        (no crisp rim) there is left to the tracker's hand rule: it moves no ball."""
        out = np.zeros(len(det), bool)
        for j in np.nonzero(rows & (det.score >= HAND_BLOB_MAX_SCORE))[0]:
            t = live[nearest[j]]
            if t.speed > REST_SPEED_MM_S:
                continue
            if float(np.linalg.norm(det.xy_mm[j] - t.xy)) <= STILL_DRIFT_MM:
                continue
            out[j] = self._in_arm(t.xy)
        return out

    def _bed_mask(self) -> np.ndarray:
        """Work pixels of the bed (inside the cushion noses, at ball-centre height)."""
        if self._bed_work is None:
            L, W = self.profile.length_mm, self.profile.width_mm
            n = 24
            side = np.linspace(0.0, 1.0, n, endpoint=False)
            outline = np.vstack(
                [
                    np.c_[side * L, np.zeros(n)],
                    np.c_[np.full(n, L), side * W],
                    np.c_[L - side * L, np.full(n, W)],
                    np.c_[np.zeros(n), W - side * W],
                ]
            )
            px = self.camera.project(outline, self.profile.ball_radius_mm).reshape(-1, 2)
            w = self._work_xy(px)
            ww, wh = self.detector.work_size
            mask = np.zeros((wh, ww), np.uint8)
            cv2.fillPoly(mask, [np.round(w).astype(np.int32)], 1)
            self._bed_work = mask
        return self._bed_work

    def _in_arm(self, xy_mm: np.ndarray) -> bool:
        """Whether this table point lies in a player's arm, hand or body now: a blob of
        foreground around it (the cue removed by an opening: a ball next to the cue
        tip is not part of the arm that holds it) larger than ``ARM_MIN_BALLS`` balls
        that reaches the bed's edge or beyond ``ARM_WINDOW_RADII`` (balls against a
        cushion, a cluster of balls make small blobs)."""
        if self._img is None:
            return False
        det = self.detector
        px = self.camera.project(np.asarray(xy_mm, float), self.profile.ball_radius_mm)
        px = np.reshape(px, 2)
        h = ARM_WINDOW_RADII * det.radius_px_max
        fg, (bx0, by0) = self._work_fg((px[0] - h, px[1] - h, px[0] + h, px[1] + h))
        if fg is None:
            return False
        hh, ww = fg.shape
        bed = self._bed_mask()[by0 : by0 + hh, bx0 : bx0 + ww]
        blob = ((fg > ARM_FOREGROUND) & (bed > 0)).astype(np.uint8)
        blob = cv2.morphologyEx(blob, cv2.MORPH_OPEN, self._arm_kernel)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(blob, connectivity=8)
        c = self._work_xy(np.reshape(px, (1, 2)))[0] - (bx0, by0)
        cx, cy = int(round(c[0])), int(round(c[1]))
        # a fingertip thinner than the opening is cut from its hand: near it counts
        k = int(round(ARM_OPEN_RADII * det.r_work))
        core = lab[max(0, cy - k) : cy + k + 1, max(0, cx - k) : cx + k + 1]
        ids = [i for i in np.unique(core) if i > 0]
        min_area = ARM_MIN_BALLS * math.pi * det.r_work**2
        ids = [i for i in ids if stats[i, cv2.CC_STAT_AREA] >= min_area]
        if not ids:
            return False
        sel = np.isin(lab, ids)
        # the bed's edge inside the window, or the window's own border (a huge blob)
        edge = (bed > 0) & (cv2.erode(bed, np.ones((5, 5), np.uint8)) == 0)
        edge[[0, -1], :] = True
        edge[:, [0, -1]] = True
        return bool((sel & edge).any())

    def _work_fg(self, box_px) -> tuple[np.ndarray | None, tuple[int, int]]:
        """Soft foreground of a frame-pixel box of the current frame, in work pixels
        (None when the box is empty), and the box's work-pixel origin."""
        bx0, by0, bx1, by1 = self.detector.work_box(box_px)
        if bx1 - bx0 < 2 or by1 - by0 < 2:
            return None, (bx0, by0)
        work = self.detector.work_pixels(self._img, (bx0, by0, bx1, by1))
        if work is None:
            return None, (bx0, by0)
        fg, _ = self.detector.foreground(work, (bx0, by0))
        return fg, (bx0, by0)

    def _spot_changed(self, xy_mm: np.ndarray) -> bool:
        """Did the pixels within 1.2 ball radii of this table point change this frame
        (against the reference)?  True when the whole bed was searched."""
        if self._changed_now is None:
            return True
        px = self.camera.project(np.asarray(xy_mm, float), self.profile.ball_radius_mm)
        return bool(self._changed_near(self._changed_now, np.reshape(px, (1, 2)))[0])

    def _spot_changed_lately(self, xy_mm: np.ndarray) -> bool:
        """Did the pixels within 1.2 ball radii of this table point change in this frame
        or one of the ``STREAK_GAP_MAX_FRAMES`` frames before it (repeated frames not
        counted)?  True when the whole bed was searched in one of them."""
        if not self._recent_changes:
            return True
        px = self.camera.project(np.asarray(xy_mm, float), self.profile.ball_radius_mm)
        px = np.reshape(px, (1, 2))
        return any(ch is None or bool(self._changed_near(ch, px)[0]) for ch in self._recent_changes)

    def _spot_foreground(self, xy_mm: np.ndarray) -> float:
        """Mean foreground (0 cloth .. 1) over a ball's spot at this table point in the
        current frame; 0 off the searched bed, 1 before any frame (nothing known)."""
        if self._img is None:
            return 1.0
        R = self.profile.ball_radius_mm
        px = self.camera.project(np.asarray(xy_mm, float), R)
        r = self.detector.radius_px_min
        fg, _ = self._work_fg((px[0] - r, px[1] - r, px[0] + r, px[1] + r))
        return 0.0 if fg is None else float(fg.mean())

    def _occluded(self, xy_mm: np.ndarray) -> bool:
        """Is something other than cloth over this table point in the current frame?"""
        return self._spot_foreground(xy_mm) > OCCLUDED_FOREGROUND

    def _cue_ahead(self, end_mm: np.ndarray, u: np.ndarray) -> bool:
        """Does a thin line -- a cue, narrower than a ball -- run on from table point
        ``end_mm`` along unit vector ``u``?  At each of ``CUE_AHEAD_STEPS_RADII`` past it
        the foreground across the line (within ``CUE_AHEAD_HALF_WIDTH_RADII``; a fist's
        cue need not leave it through its middle) shows a band of at least
        ``CUE_FOREGROUND``, at most ``CUE_MAX_WIDTH_RADII`` wide.  Plain cloth, a ball
        (two radii wide) or an arm is no such line."""
        if self._img is None:
            return False
        R = self.profile.ball_radius_mm
        u = np.asarray(u, float)
        n = np.array([-u[1], u[0]])
        step = CUE_PROFILE_STEP_RADII
        offs = np.arange(-CUE_AHEAD_HALF_WIDTH_RADII, CUE_AHEAD_HALF_WIDTH_RADII + 1e-9, step)
        along = np.asarray(CUE_AHEAD_STEPS_RADII)
        pts = np.asarray(end_mm, float) + R * (along[:, None, None] * u + offs[None, :, None] * n)
        px = self.camera.project(pts.reshape(-1, 2), R).reshape(-1, 2)
        lo, hi = px.min(0) - 2, px.max(0) + 2
        fg, (bx0, by0) = self._work_fg((lo[0], lo[1], hi[0], hi[1]))
        if fg is None:
            return False
        w = self._work_xy(px)
        ix = np.clip(np.round(w[:, 0] - bx0).astype(int), 0, fg.shape[1] - 1)
        iy = np.clip(np.round(w[:, 1] - by0).astype(int), 0, fg.shape[0] - 1)
        band = (fg[iy, ix] >= CUE_FOREGROUND) & self._not_ball_nor_marking(pts.reshape(-1, 2), px)
        width = band.reshape(len(along), len(offs)).sum(axis=1) * step
        return bool(((width > 0) & (width <= CUE_MAX_WIDTH_RADII)).all())

    def _not_ball_nor_marking(self, pts_mm: np.ndarray, px: np.ndarray) -> np.ndarray:
        """Which table points (at ball-centre height; ``px`` their pixels) lie clear of
        every ball on the table (``CUE_BALL_CLEAR_RADII``) and whose pixels show the
        cloth clear of the lines marked on it (``CUE_MARKING_CLEAR_MM``)."""
        R = self.profile.ball_radius_mm
        keep = np.ones(len(pts_mm), bool)
        balls = [t.xy for t in self.tracker.tracks.values() if t.on_table]
        if balls:
            d = np.linalg.norm(pts_mm[:, None, :] - np.array(balls)[None], axis=2)
            keep &= d.min(axis=1) > CUE_BALL_CLEAR_RADII * R
        cloth = self.camera.unproject(px, 0.0).reshape(-1, 2) if self.profile.marked_lines else None
        for name in self.profile.marked_lines:
            a, b = (np.asarray(q, float) for q in self.profile.lines[name])
            ab = b - a
            s = np.clip((cloth - a) @ ab / max(float(ab @ ab), 1e-9), 0.0, 1.0)
            keep &= np.linalg.norm(cloth - (a + s[:, None] * ab), axis=1) > CUE_MARKING_CLEAR_MM
        return keep

    def _bare(self, xy_mm: np.ndarray) -> bool:
        """Does this table point show plain cloth now (mean foreground over a ball's spot
        at most ``BARE_FOREGROUND``)?  Not merely "not covered": a ball half under a
        sleeve the colour of the cloth shows a sliver of itself, and its spot reads
        between the two levels (fp-rally_s9126_720p60)."""
        return self._spot_foreground(xy_mm) <= BARE_FOREGROUND

    def _hold_margin(self) -> int:
        """Work pixels a searched box keeps around the centre of a ball inside it."""
        return int(math.ceil(HOLD_RADII * self.detector.r_work)) + 1

    def _work_xy(self, xy_px: np.ndarray) -> np.ndarray:
        x0, y0 = self.detector.roi[:2]
        return (np.asarray(xy_px) - np.array([x0, y0]) + 0.5) * self.detector.scale - 0.5

    def _grid_to_work(self, gx0: int, gy0: int, gx1: int, gy1: int) -> tuple:
        x0, y0 = self.detector.roi[:2]
        s = self.stride
        return self.detector.work_box((x0 + gx0 * s, y0 + gy0 * s, x0 + gx1 * s, y0 + gy1 * s))

    def _near_balls_or_due(self, boxes: list, index: int) -> list:
        """Changes away from every ball (a hand, a cue, an arm over empty cloth) are
        searched only every ``FAR_CHANGE_EVERY_FRAMES``-th frame: a ball placed there
        takes far longer than that to be confirmed.  Their reference is not updated
        meanwhile, so the change waits for its turn."""
        if index % FAR_CHANGE_EVERY_FRAMES == 0 or not boxes:
            return boxes
        R = self.profile.ball_radius_mm
        pts = [tr.xy for tr in self.tracker.tracks.values() if tr.on_table]
        if not pts:
            return boxes
        w = self._work_xy(self.camera.project(np.array(pts), R).reshape(-1, 2))
        m = 3.0 * self.detector.r_work
        out = []
        for b in boxes:
            bx0, by0, bx1, by1 = b
            near = (
                (w[:, 0] >= bx0 - m)
                & (w[:, 0] < bx1 + m)
                & (w[:, 1] >= by0 - m)
                & (w[:, 1] < by1 + m)
            )
            if near.any():
                out.append(b)
        return out

    def _changed_near(self, changed: np.ndarray, xy_px: np.ndarray) -> np.ndarray:
        """Whether any grid cell within 1.2 ball radii of each point changed."""
        x0, y0 = self.detector.roi[:2]
        s = self.stride
        k = int(math.ceil(1.2 / GRID_RADII))
        h, w = changed.shape
        out = np.zeros(len(xy_px), bool)
        for i, (x, y) in enumerate(np.asarray(xy_px)):
            gx, gy = int(round((x - x0) / s)), int(round((y - y0) / s))
            out[i] = changed[
                max(0, gy - k) : min(h, gy + k + 1), max(0, gx - k) : min(w, gx + k + 1)
            ].any()
        return out

    def _change_boxes(self, changed: np.ndarray) -> list[tuple[int, int, int, int]]:
        """Boxes around the changed cells: tiles (about 6 radii square) holding a change
        are merged along rows, and each run of tiles is searched over the box of its
        changed cells padded by ``CHANGE_PAD_RADII`` and a cell (a ball that changed a
        cell has its centre within a radius of it; the whole tile was searched before,
        a third to a half more area).

        Tiles rather than one box per blob: a long diagonal cue would otherwise make
        a box as big as the table.
        """
        if not changed.any():
            return []
        tile = max(2, int(round(TILE_RADII / GRID_RADII)))  # grid cells per tile
        p = int(math.ceil(CHANGE_PAD_RADII / GRID_RADII)) + 1  # cells around a change
        h, w = changed.shape
        th, tw = -(-h // tile), -(-w // tile)
        pad = np.zeros((th * tile, tw * tile), bool)
        pad[:h, :w] = changed
        hit = pad.reshape(th, tile, tw, tile).any(axis=(1, 3))
        boxes = []
        for ty in range(th):
            tx = 0
            while tx < tw:
                if not hit[ty, tx]:
                    tx += 1
                    continue
                t0 = tx
                while tx < tw and hit[ty, tx]:
                    tx += 1
                # the run's changed cells, padded by a ball's radius and a cell
                sub = pad[ty * tile : (ty + 1) * tile, t0 * tile : tx * tile]
                rows = np.flatnonzero(sub.any(axis=1))
                cols = np.flatnonzero(sub.any(axis=0))
                boxes.append(
                    self._grid_to_work(
                        t0 * tile + cols[0] - p,
                        ty * tile + rows[0] - p,
                        t0 * tile + cols[-1] + 1 + p,
                        ty * tile + rows[-1] + 1 + p,
                    )
                )
        return boxes

    def _moving_boxes(self) -> list[tuple[int, int, int, int]]:
        R = self.profile.ball_radius_mm
        rects = []
        for tr in self.tracker.tracks.values():
            if not tr.on_table or tr.speed <= REST_SPEED_MM_S:
                continue
            pts = np.array([tr.xy, tr.xy + tr.v / 20.0])  # where it is and ~1/20 s ahead
            rects.append((pts.min(0) - 2 * R, pts.max(0) + 2 * R))
        return self._work_boxes_mm(rects)

    def _work_boxes_mm(self, rects: list) -> list[tuple[int, int, int, int]]:
        """Work boxes holding table rectangles ``(lo_mm, hi_mm)`` seen at ball height:
        all their corners projected at once (a call per rectangle cost 4x as much)."""
        if not rects:
            return []
        corners = [[lo, (hi[0], lo[1]), (lo[0], hi[1]), hi] for lo, hi in rects]
        R = self.profile.ball_radius_mm
        px = self.camera.project(np.array(corners, float).reshape(-1, 2), R).reshape(-1, 4, 2)
        lo_px, hi_px = px.min(axis=1), px.max(axis=1)
        return [self.detector.work_box((*lo_px[i], *hi_px[i])) for i in range(len(rects))]

    def _watched_mouths(self) -> list[tuple[np.ndarray, float, str]]:
        """The mouths of the pockets a ball went into during the stroke still being played:
        each mouth's centre (mm), the half side (mm) of the square searched around it and
        the class of the ball that went in."""
        tr = self.tracker
        if not tr.in_shot:
            return []
        R = self.profile.ball_radius_mm
        out = []
        for t in tr.tracks.values():
            if t.state != "pocketed" or t.pocket is None or t.last_seen_t < tr.shot_start_t:
                continue
            pk = tr.motion.pockets[t.pocket]
            half = 0.5 * pk.spec.mouth_mm + POCKET_WATCH_RADII * R
            out.append((np.asarray(pk.mouth_centre, float), half, t.cls))
        return out

    def _in_watched_mouth(self, det: Detections) -> np.ndarray:
        """Detections in the searched square of a watched pocket mouth
        (:meth:`_watched_mouths`) that the classifier reads as the class of the ball that
        went in there, and not as 'none'."""
        out = np.zeros(len(det), bool)
        mouths = self._watched_mouths() if len(det) else []
        if not mouths or not det.cls_prob.shape[1]:
            return out
        classes = tuple(det.classes)
        for c, half, cls in mouths:
            if cls not in classes:
                continue
            inside = (np.abs(det.xy_mm - c) <= half).all(axis=1)
            p = det.cls_prob[:, classes.index(cls)]
            out |= inside & (p >= JAWS_MIN_CLASS_PROB) & (_none_prob(det) < NEW_MAX_NONE)
        return out

    def _pocket_watch_boxes(
        self, t: float, every_frame: bool = False
    ) -> list[tuple[int, int, int, int]]:
        """Search boxes over the mouths of the pockets a ball went into during this
        stroke, until the stroke ends: a ball hanging in the jaws, lost by the tracker as
        it rolled in, lies still there with nothing changing around it.  Searched every
        ``SETTLE_EVERY_S``, and ``every_frame`` while the last search found such a ball
        (it must be seen frames running to take its id back)."""
        if not (every_frame or _period_crossed(self._prev_t, t, SETTLE_EVERY_S)):
            return []
        return self._work_boxes_mm([(c - h, c + h) for c, h, _ in self._watched_mouths()])

    def _update_ref(self, grid: np.ndarray, boxes, held_px: np.ndarray | None = None) -> None:
        """Renew the reference inside the searched boxes -- but not around ``held_px``,
        the balls carried over unchanged: their spot keeps the reference of the frame
        they were last detected in.  A ball creeping a fraction of a pixel a frame inside
        a box searched every frame (other balls moving nearby) changes its pixels too
        little from one frame to the next; against a reference renewed every frame it
        would be carried over for ever and fall behind, until a second, fresh detection
        of it appeared further on (fp-rally_s2012: ball 6 after the break, 25 mm behind)."""
        s = self.stride
        sc = self.detector.scale
        kept = []
        if held_px is not None and len(held_px):
            x0, y0 = self.detector.roi[:2]
            k = int(math.ceil(1.0 / GRID_RADII))  # the ball's own cells
            h, w = self._ref.shape[:2]
            for x, y in np.asarray(held_px):
                gx, gy = int(round((x - x0) / s)), int(round((y - y0) / s))
                win = (
                    slice(max(0, gy - k), min(h, gy + k + 1)),
                    slice(max(0, gx - k), min(w, gx + k + 1)),
                )
                kept.append((win, self._ref[win].copy()))
        for bx0, by0, bx1, by1 in boxes:
            gx0 = max(0, int(math.floor((bx0 / sc) / s)))
            gy0 = max(0, int(math.floor((by0 / sc) / s)))
            gx1 = int(math.ceil((bx1 / sc) / s)) + 1
            gy1 = int(math.ceil((by1 / sc) / s)) + 1
            self._ref[gy0:gy1, gx0:gx1] = grid[gy0:gy1, gx0:gx1]
        for win, ref in kept:
            self._ref[win] = ref


@functools.cache
def _uniform_over_balls(classes: tuple[str, ...]) -> np.ndarray:
    """The class row that says nothing: equal over the game's balls, 0 for ``none``
    (a streak's, or a tracked ball's unambiguous continuation).  Read-only."""
    row = np.array([0.0 if c == "none" else 1.0 for c in classes])
    row /= row.sum()
    row.flags.writeable = False
    return row


def _looks_like_none(track) -> bool:
    """Whether a track's own class evidence says it is no ball (a hand taken for one)."""
    ev, cls = track.evidence, track.evidence_classes
    if ev is None or "none" not in cls:
        return False
    return int(np.argmax(ev)) == cls.index("none")


def _none_prob(det: Detections) -> np.ndarray:
    """The classifier's P(none) (hands, cues) per detection; zeros without that class."""
    if "none" not in det.classes or not det.cls_prob.shape[1]:
        return np.zeros(len(det))
    return det.cls_prob[:, det.classes.index("none")]


def _read_as_none(det: Detections) -> np.ndarray:
    """Rows the identifier thinks more likely ``none`` (hands, cues) than any ball:
    P(none) from ``NONE_DROP`` on, or above every ball's; none without that class."""
    if len(det) == 0 or "none" not in det.classes or not det.cls_prob.shape[1]:
        return np.zeros(len(det), bool)
    k = det.classes.index("none")
    p_none = det.cls_prob[:, k]
    return (p_none >= NONE_DROP) | (p_none > np.delete(det.cls_prob, k, axis=1).max(axis=1))


def _balls_only(
    det: Detections, keep: np.ndarray | None = None, clutter: np.ndarray | None = None
) -> Detections:
    """Drop what the identifier thinks more likely ``none`` than any ball (hands, cues);
    ``keep``: rows kept whatever the classifier says (a crisp rim on a moving ball's way:
    the CNN was trained on sharp balls and may call a smeared one 'none'); ``clutter``:
    rows in a hand or an arm (default: every row scored below ``CLUTTER_SCORE``)."""
    if "none" not in det.classes or len(det) == 0:
        return det
    balls = np.delete(det.cls_prob, det.classes.index("none"), axis=1)
    best = balls.max(axis=1)
    uniform = best - balls.min(axis=1) < 1e-9  # a tracked ball's continuation
    # inside a hand (a low score) only what the classifier is sure of is a ball
    if clutter is None:
        clutter = det.score < CLUTTER_SCORE
    clutter = clutter & ~uniform & (best < HELD_BALL_PROB)
    ok = ~_read_as_none(det) & ~clutter
    if keep is not None:
        ok |= keep & (det.score >= WAY_MIN_SCORE)
    return det[ok]


def _hold_whole_balls(
    boxes: list[tuple[int, int, int, int]], centres_work: np.ndarray, margin: int
) -> list[tuple[int, int, int, int]]:
    """Grow every box that holds a known ball's centre until the centre lies ``margin``
    work pixels inside it (and merge again).

    The detector keeps only the vote peaks inside a box, on whole pixels, while a ball
    counts as searched when its sub-pixel centre is inside: a box whose edge cuts a ball
    near its centre searched it and dropped its peak, one row out, and the ball was lost
    (a cue tip by a still ball: the change tile's edge through the ball)."""
    if not boxes or not len(centres_work):
        return boxes
    c = np.asarray(centres_work, float)
    out = [list(b) for b in boxes]
    for _ in range(8):
        grown = False
        for b in out:
            inside = (c[:, 0] >= b[0]) & (c[:, 0] < b[2]) & (c[:, 1] >= b[1]) & (c[:, 1] < b[3])
            if not inside.any():
                continue
            lo = np.maximum(np.floor(c[inside].min(axis=0)).astype(int) - margin, 0)
            hi = np.ceil(c[inside].max(axis=0)).astype(int) + margin + 1
            nb = [min(b[0], lo[0]), min(b[1], lo[1]), max(b[2], hi[0]), max(b[3], hi[1])]
            if nb != b:
                b[:] = nb
                grown = True
        if not grown:
            break
        out = [list(b) for b in _merge_boxes([tuple(b) for b in out])]
    return [tuple(int(v) for v in b) for b in out]


def _period_crossed(t_prev: float | None, t: float, period_s: float) -> bool:
    """Whether a whole multiple of ``period_s`` lies in ``(t_prev, t]`` (to a microsecond's
    rounding): a periodic task falls due once a period at any frame rate."""
    if t_prev is None:
        return True
    return math.floor(t / period_s + 1e-6) > math.floor(t_prev / period_s + 1e-6)


def _merge_boxes(
    boxes: list[tuple[int, int, int, int]],
    margin: int = 0,
    size: tuple[int, int] | None = None,
    slack_px: float | None = None,
) -> list[tuple[int, int, int, int]]:
    """Merge overlapping boxes so no ball is searched twice.

    With ``slack_px``, also boxes whose windows -- each box grown by ``margin`` work
    pixels, within the work image of ``size`` (width, height) -- cost more apart than
    together: the window of their bounding box holds at most their two windows' pixels
    and ``slack_px`` more (a window's fixed cost).  The merged box searches the ground
    between the two as well: more pixels searched, never fewer."""
    w, h = size if size is not None else (math.inf, math.inf)

    def area(b: list[int]) -> float:
        return (min(w, b[2] + margin) - max(0, b[0] - margin)) * (
            min(h, b[3] + margin) - max(0, b[1] - margin)
        )

    out = [list(b) for b in boxes]
    merged = len(out) > 1
    while merged:
        merged = False
        res: list[list[int]] = []
        for b in out:
            ab = area(b) if slack_px is not None else 0.0
            for r in res:
                u = [min(r[0], b[0]), min(r[1], b[1]), max(r[2], b[2]), max(r[3], b[3])]
                if (b[0] < r[2] and r[0] < b[2] and b[1] < r[3] and r[1] < b[3]) or (
                    slack_px is not None and area(u) <= ab + area(r) + slack_px
                ):
                    r[:] = u
                    merged = True
                    break
            else:
                res.append(b)
        out = res
    return [tuple(b) for b in out]
