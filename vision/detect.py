"""Ball detection: every ball on the bed in one frame -> :class:`Detections`.

The method (designed for touching balls and for speed):

1. Work image.  Crop the bed's bounding box and shrink it so a ball's radius is
   about ``WORK_RADIUS_PX`` pixels; the camera model says how big a ball is
   everywhere, so the scale is fixed once per camera.
2. Foreground.  A ball differs from the cloth in chromaticity (a colour ratio
   that ignores shading, so the balls' own shadows stay cloth), or is much
   brighter (ivory/white highlights) or much darker (black ball) than the cloth
   around it.  The cloth model is a smooth field of chromaticity and brightness
   estimated from the frame itself (or a background frame of an empty bed).
3. Ball-sized matched filter.  The foreground is averaged over a disc slightly
   smaller than a ball: the average is ~1 at a ball's centre and falls off
   towards the contact point of two touching balls (~0.8), so each ball of a
   cluster -- even the 15-ball rack -- keeps its own local maximum.
4. Peaks (local maxima, suppression closer than ~1.4 radii), then a sub-pixel
   centre by a few mean-shift steps on the foreground inside 0.75 radius (a
   window that stays inside the ball even when its neighbours touch it).
5. Table mm: the image centre is the projection of the ball centre, so it is
   unprojected at ball-centre height (the parallax correction of DESIGN.md).

Regions that are not bed (rails, pocket holes) never hold a centre: a centre must
unproject inside the bed shrunk by most of a radius, or into a pocket mouth.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile

from .detections import STREAK_END_MAX_SCORE, Detections

WORK_RADIUS_PX = 7.0  # ball radius in the work image (pixels)
# The frame -> work shrink is an area mean (INTER_AREA) at a whole-number ratio (2:1,
# 3:1, ...), OpenCV's fast path; at any other it is cheaper but not the same (see
# ``shrink_to_work``).  A scale above 1/k by up to this fraction (relative) is taken
# down to 1/k (a smaller work image: the work radius 5.6-7 px) ...
WORK_SCALE_SNAP_FRACTION = 0.25
# ... and one below it up only by a rounding's worth: an 8 % larger work radius (a
# 720p real clip's 15 px ball, LukasSeglias video_9, 0.4628 -> 0.5) lost a struck
# white's first streaks.
WORK_SCALE_SNAP_UP_FRACTION = 0.01
SUPPRESS_RADII = 1.35  # two peaks closer than this many radii are one ball
CHROMA_FLOOR = 0.06  # chromaticity distance still cloth (shadows shift it ~0.05)
CHROMA_SCALE = 0.08  # further distance over which it becomes fully "not cloth"
BRIGHT_REL = 1.25  # brighter than the cloth by this factor starts to count
DARK_REL = 0.42  # darker than the cloth below this factor starts to count
CLOTH_SMOOTH_RADII = 12.0  # the cloth model is smooth over this many ball radii
CENTRE_MARGIN_RADII = 0.6  # a centre may sit this close (in radii) to a cushion nose
EDGE_MIN_GRAD = 40.0  # Sobel magnitude (per channel, 8-bit) below which a pixel does not vote
EDGE_FULL_GRAD = 160.0  # a pixel with this gradient or more gives a full vote
VOTE_BLUR_PX = 1.0  # smoothing of the vote image (work pixels)
VOTE_THRESHOLD = 0.25  # fraction of a full rim needed for a candidate
FG_SUPPORT = 0.58  # mean foreground a candidate needs over its central disc
FG_CORE_FRACTION = 0.5  # that disc's radius / ball radius (shadows between balls fail it)
# A ball of the cloth's own hue (a red ball on red cloth) has no colour cue and is
# only a little brighter than the cloth; a sphere's shading gives it away: its body
# is brighter than the cloth ring just around it (its own shadow darkens that ring).
# Candidates the colour/brightness foreground rejects get this second test.
SHADED_VOTE_THRESHOLD = 0.18  # rim vote such a candidate needs (its rim is faint)
SHADED_CORE_REL = 1.12  # median brightness over its core / the cloth model's, at least
SHADED_RING_CONTRAST = 1.20  # core median / median of the ring 1.6 radii out, at least
SHADED_RING_MIN_REL = 0.6  # a ring darker than this (a pocket hole, a rail) is no cloth
SHADED_FULL_CONTRAST = 1.45  # contrast giving full support (the score of a clear ball)
POCKET_DARK_REL = 0.45  # a dark blob in a pocket mouth is the hole, not a ball
# A centre over a pocket's drop hole (this far inside its edge, in ball radii) is a
# ball already falling; unless it is bright it is the hole's own furniture (a real
# table's pocket cup or liner with its highlights), not a ball.
HOLE_MARGIN_RADII = 0.4
HOLE_BALL_MIN_REL = 1.2  # mean brightness / the cloth's a thing over the hole needs
NEIGHBOUR_COS = math.cos(math.radians(50.0))  # rim pixels this close to a neighbour's side
CLUTTER_RING_RADII = 1.6  # ring around a peak checked for unexplained foreground ...
CLUTTER_RING_FRACTION = 0.5  # ... more of it than this: a finger or a ball in a hand ...
CLUTTER_SCORE_FACTOR = 0.3  # ... whose score is scaled by this
# A crisp ball put down is vetted by that ring too (``surroundings``), a ring point
# counting only when the point this far out on the same ray is unexplained foreground
# as well: a coloured ball's rim bleeds into the cloth (the video's half-resolution
# colour), at 720p a yellow on blue cloth by 3-4 px, far enough to reach the 1.6-radii
# ring (a hand goes on past it)
SURROUND_OUTER_RING_RADII = 2.0
REFINE_MIN_SCORE = 0.6  # detections scoring less (motion blur) keep their coarse centre
# (a ball found by its shading scores low for its weak foreground, not for a blurred rim,
# and is fitted all the same: its vote peak lies off-centre, its shaded lower limb fading
# into the cloth -- a red ball under a lamp on a red cloth, fb-kaisa-corner_s10108_1080p60:
# 8-9 mm off at its peak, 3.5-6 mm after the fit)
# A rim pixel's weight in the full-resolution fit: its gradient to this power.  A limb in
# a lamp's shade fades into the cloth and its strongest gradient lies inside the silhouette
# (its vote lands off-centre); the sharp, lit side's edge is the silhouette.  Weights capped
# at EDGE_FULL_GRAD counted the shaded limb as much: centres leant off by 0.3-1 px towards
# the table's ends (90 development clips at rest: median / p95 1.06 / 2.72 mm capped,
# 0.94 / 2.34 mm squared; a cube gave more false detections).
REFINE_WEIGHT_EXPONENT = 2.0
FULL_RIM_COVERAGE = 260.0  # degrees of free rim for a free-radius circle fit ...
COVER_BINS = 24  # ... counted in sectors of 15 degrees
# Motion blur: a ball faster than about a diameter per exposure leaves a streak with
# straight sides and no round rim to vote.  It is found as a solid stadium-shaped
# blob of foreground, one ball wide and longer than a ball (a cue is far thinner;
# a hand or an arm is rarely that regular, and the tracker only lets a streak
# continue a ball that is moving or was just struck, along its axis).
STREAK_FG = 0.35  # foreground level of a streak's pixels
STREAK_OPEN_RADII = 0.5  # opening (ball radii) that removes a cue and thin lines
STREAK_WIDTH_RADII = (1.3, 3.0)  # a streak's width (ball radii; soft edges widen it)
STREAK_MIN_LENGTH_RADII = 2.7  # shorter: a round ball, the rim vote's job
STREAK_MAX_LENGTH_RADII = 16.0  # longer: not one ball
STREAK_FILL = 0.8  # area / the stadium's area of the same length and width
STREAK_SCORE = 0.5
STREAK_MIN_REL = 0.8  # a streak's mean brightness / the cloth's (a ball is not darker)
# Worker threads: the windows searched in one frame are independent of each other, so
# with more than one core (live: decoding takes a fraction of one) they run in parallel
# -- the same detections.  Auto: as many threads (the caller's included) as OpenCV may
# use, at most this many.
MAX_WORKERS = 4
WINDOW_MARGIN_RADII = 2.2  # a searched box's window reaches this far around it
_CHANNEL_SUM = np.ones((1, 3), np.float32)  # cv2.transform: the sum of a pixel's channels
PEAK_WINDOW_HALF = 2  # a vote peak's sub-pixel centroid is taken in a 5x5 window
_PEAK_OFFSETS = tuple(  # that window's row and column offsets, flattened
    a.ravel()
    for a in np.mgrid[
        -PEAK_WINDOW_HALF : PEAK_WINDOW_HALF + 1, -PEAK_WINDOW_HALF : PEAK_WINDOW_HALF + 1
    ].astype(np.float64)
)


def _snapped_scale(scale: float) -> float:
    """The frame -> work scale (at most 1), ``1/k`` when down to it within
    ``WORK_SCALE_SNAP_FRACTION`` or up within ``WORK_SCALE_SNAP_UP_FRACTION`` (the
    shrink's fast path)."""
    scale = min(1.0, scale)
    k = round(1.0 / scale)
    if k >= 2 and -WORK_SCALE_SNAP_FRACTION <= 1.0 - k * scale <= WORK_SCALE_SNAP_UP_FRACTION:
        return 1.0 / k
    return scale


def shrink_to_work(
    crop: np.ndarray, size: tuple[int, int], scale: float, offset: tuple[float, float] = (0, 0)
) -> np.ndarray:
    """A frame crop shrunk to ``size`` (width, height) work pixels at the frame -> work
    ``scale``: work pixel x lies at crop pixel ``(x + 0.5) / scale - 0.5 + offset[0]``
    (the detector's geometry; ``offset``: where the work box's edge lies in the crop,
    under half a pixel when the crop's corner was rounded to a whole pixel).

    At a whole-number ratio (1/k) an area mean, OpenCV's fast path (offset 0: the box
    lies on whole pixels).  Otherwise OpenCV's area mean costs ~10 times as much (~0.35
    ms a searched window, 3 ms a frame at a 1080p break): the crop is shrunk by the
    largest whole ratio k below the scale (an area mean, when k >= 2), then sampled
    bilinearly where each work pixel lies."""
    h, w = crop.shape[:2]
    if (w, h) == tuple(size):
        return crop
    k = int(1.0 / scale + 1e-9)
    if k < 1 or abs(k * scale - 1.0) < 1e-9:
        return cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    if k >= 2 and w >= k and h >= k:
        whole = crop[: h - h % k, : w - w % k]
        crop = cv2.resize(whole, (w // k, h // k), interpolation=cv2.INTER_AREA)
    else:
        k = 1
    # a part pixel u covers crop pixels [u k, (u + 1) k): crop pixel c is part pixel
    # (c + 0.5) / k - 0.5
    a = 1.0 / (scale * k)
    m = np.array([[a, 0.0, 0.5 * a + offset[0] / k - 0.5], [0.0, a, 0.5 * a + offset[1] / k - 0.5]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    return cv2.warpAffine(crop, m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)


def _whole_steps(a: int, b: int, size: int, scale: float) -> tuple[int, int]:
    """Widen pixel span ``[a, b)`` of ``[0, size)`` to a whole number of ``1/scale``
    steps (when that is whole), so the work image is an exact k:1 shrink of it."""
    k = round(1.0 / scale)
    if k < 2 or abs(k * scale - 1.0) > 1e-12 or (b - a) % k == 0:
        return a, b
    span = min(size - size % k, (b - a) + k - (b - a) % k)
    b = min(size, a + span)
    return b - span, b


@dataclass(frozen=True)
class DetectorConfig:
    work_radius_px: float = WORK_RADIUS_PX
    suppress_radii: float = SUPPRESS_RADII
    chroma_floor: float = CHROMA_FLOOR
    chroma_scale: float = CHROMA_SCALE


class BallDetector:
    """Finds balls in frames of one camera looking at one table."""

    def __init__(
        self,
        camera: CameraModel,
        profile: TableProfile,
        config: DetectorConfig | None = None,
    ) -> None:
        self.camera = camera
        self.profile = profile
        self.cfg = config or DetectorConfig()
        R = profile.ball_radius_mm
        self.R_mm = R
        L, W = profile.length_mm, profile.width_mm
        # Expected radius in pixels over the bed (the ball's silhouette ~ its centre depth).
        grid = np.array([(x, y) for x in np.linspace(0, L, 7) for y in np.linspace(0, W, 5)])
        cen = camera.project(grid, R)
        off = camera.project(grid + np.array([R, 0.0]), R)
        offy = camera.project(grid + np.array([0.0, R]), R)
        rad = 0.5 * (np.linalg.norm(off - cen, axis=1) + np.linalg.norm(offy - cen, axis=1))
        self.radius_px_min = float(rad.min())
        self.radius_px_max = float(rad.max())
        self._rad_grid = (grid, rad)
        self._shape_grid = (cen, *_limb_shapes(camera, grid, cen, R, rad))
        # Region of interest: the bed (plus pocket mouths) at ball height, with a margin.
        outline = np.array(
            [(x, y) for x in np.linspace(-R, L + R, 25) for y in (-R, W + R)]
            + [(x, y) for y in np.linspace(-R, W + R, 13) for x in (-R, L + R)]
        )
        px = camera.project(outline, R)
        w, h = camera.image_size
        m = 3 * self.radius_px_max
        x0 = int(max(0, math.floor(px[:, 0].min() - m)))
        y0 = int(max(0, math.floor(px[:, 1].min() - m)))
        x1 = int(min(w, math.ceil(px[:, 0].max() + m)))
        y1 = int(min(h, math.ceil(px[:, 1].max() + m)))
        self.scale = _snapped_scale(self.cfg.work_radius_px / self.radius_px_min)
        x0, x1 = _whole_steps(x0, x1, w, self.scale)
        y0, y1 = _whole_steps(y0, y1, h, self.scale)
        self.roi = (x0, y0, x1, y1)
        self.work_size = (
            max(8, int(round((x1 - x0) * self.scale))),
            max(8, int(round((y1 - y0) * self.scale))),
        )
        self.r_work = self.radius_px_min * self.scale
        self.r_vote = 0.5 * (self.radius_px_min + self.radius_px_max) * self.scale
        # Table mm of every work pixel (at ball-centre height) -> where centres may lie.
        ww, wh = self.work_size
        gx, gy = np.meshgrid(np.arange(ww), np.arange(wh))
        full = np.stack([gx, gy], -1).reshape(-1, 2).astype(np.float64)
        full = (full + 0.5) / self.scale - 0.5 + np.array([x0, y0])
        self._xy_mm_map = camera.unproject(full, R).reshape(wh, ww, 2).astype(np.float32)
        self._radius_rel_map: np.ndarray | None = None  # see _radius_rel
        self.centre_mask = self._centre_region(self._xy_mm_map)
        self.pocket_zone = self._pocket_zone(self._xy_mm_map)
        self.hole_zone = self._hole_zone(self._xy_mm_map)
        rk = max(1.2, FG_CORE_FRACTION * self.r_work)
        k = int(math.ceil(rk))
        yy, xx = np.mgrid[-k : k + 1, -k : k + 1]
        disc = ((xx**2 + yy**2) <= rk * rk).astype(np.float32)
        self._core = disc / disc.sum()
        self._cloth: tuple[np.ndarray, np.ndarray] | None = None  # fixed cloth model
        self._image: np.ndarray | None = None
        self._nadir_px: np.ndarray | None = None  # the camera's nadir in the image
        self.inward_edges = True  # rim edges get brighter towards the centre (no dark balls)
        self.reject_clutter = True  # lower the score of peaks inside unexplained foreground
        self.edge_radius_factor = 1.0  # measured rim radius / expected radius (free rims)
        self._radius_ratios: list[float] = []
        self.find_streaks = True  # also report motion-blur streaks (Detections.blur_mm)
        self.threads: int | None = None  # worker threads for a frame's windows (None: auto)
        self._coarse_px: np.ndarray | None = None  # moving balls: no full-resolution fit
        ksz = int(2 * round(0.9 * self.r_work) + 1)  # a vote peak is the largest this near
        self._peak_kernel = np.ones((ksz, ksz), np.uint8)
        ko = int(2 * round(STREAK_OPEN_RADII * self.r_work) + 1)
        self._open_kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko))
        ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)  # the clutter ring's points
        ray = np.stack([np.cos(ang), np.sin(ang)], 1)
        self._ring = ray * CLUTTER_RING_RADII * self.r_work
        self._outer_ring = ray * SURROUND_OUTER_RING_RADII * self.r_work

    # ------------------------------------------------------------------ geometry
    def _centre_region(self, xy: np.ndarray) -> np.ndarray:
        p = self.profile
        mgn = CENTRE_MARGIN_RADII * self.R_mm
        inside = p.in_bed(xy, margin_mm=mgn)
        for pk in p.pockets().values():
            mc = np.array(pk.mouth_centre)
            half = 0.5 * pk.spec.mouth_mm
            inside |= np.linalg.norm(xy - mc, axis=-1) < half
        return inside

    def _pocket_zone(self, xy: np.ndarray) -> np.ndarray:
        zone = np.zeros(xy.shape[:2], bool)
        for pk in self.profile.pockets().values():
            c = np.array(pk.centre)
            zone |= np.linalg.norm(xy - c, axis=-1) < pk.spec.drop_radius_mm + 1.5 * self.R_mm
        return zone

    def _hole_zone(self, xy: np.ndarray) -> np.ndarray:
        zone = np.zeros(xy.shape[:2], bool)
        for pk in self.profile.pockets().values():
            c = np.array(pk.centre)
            r = pk.spec.drop_radius_mm - HOLE_MARGIN_RADII * self.R_mm
            zone |= np.linalg.norm(xy - c, axis=-1) < r
        return zone

    def expected_radius_px(self, xy_mm: np.ndarray) -> np.ndarray:
        """Expected image radius (px) of a ball centred at table points."""
        grid, rad = self._rad_grid
        xy = np.atleast_2d(np.asarray(xy_mm, float))
        d = np.linalg.norm(xy[:, None, :] - grid[None], axis=2)
        w = 1.0 / (d + 1.0) ** 2
        return (w * rad).sum(1) / w.sum(1)

    # -------------------------------------------------------------------- images
    def work_image(self, image: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self.roi
        crop = image[y0:y1, x0:x1]
        if self.scale >= 1.0:
            return crop
        return shrink_to_work(crop, self.work_size, self.scale)

    def frame_span(self, box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        """The frame pixels under work box ``box``: x0, y0, x1, y1 (rounded to whole
        pixels; ``work_pixels`` accounts for the rounding)."""
        x0, y0 = self.roi[:2]
        s = self.scale
        bx0, by0, bx1, by1 = box
        return (
            int(round(x0 + bx0 / s)),
            int(round(y0 + by0 / s)),
            int(round(x0 + bx1 / s)),
            int(round(y0 + by1 / s)),
        )

    def work_pixels(self, image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
        """Work box ``box`` of a frame, in work pixels (None when no frame pixel lies
        under it)."""
        fx0, fy0, fx1, fy1 = self.frame_span(box)
        crop = image[fy0:fy1, fx0:fx1]
        if crop.size == 0:
            return None
        x0, y0 = self.roi[:2]
        bx0, by0, bx1, by1 = box
        offset = (x0 + bx0 / self.scale - fx0, y0 + by0 / self.scale - fy0)
        return shrink_to_work(crop, (bx1 - bx0, by1 - by0), self.scale, offset)

    def _chroma_intensity(self, work: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = work.astype(np.float32)
        s = f[..., 0] + f[..., 1] + f[..., 2] + 3.0
        return f / s[..., None], s

    def _estimate_cloth(self, chroma: np.ndarray, inten: np.ndarray) -> tuple:
        """A smooth cloth model (chromaticity field, brightness field) from one frame."""
        region = self.centre_mask
        c0 = np.median(chroma[region], axis=0)
        dc = np.linalg.norm(chroma - c0, axis=2)
        i0 = np.median(inten[region])
        rel = inten / i0
        cloth = region & (dc < self.cfg.chroma_floor) & (rel > 0.55) & (rel < 1.25)
        ksz = int(2 * round(CLOTH_SMOOTH_RADII * self.r_work) + 1)
        wgt = cv2.blur(cloth.astype(np.float32), (ksz, ksz))
        ok = wgt > 1e-3
        cf = np.empty_like(chroma)
        for ch in range(3):
            num = cv2.blur(chroma[..., ch] * cloth, (ksz, ksz))
            cf[..., ch] = np.where(ok, num / np.maximum(wgt, 1e-3), c0[ch])
        num = cv2.blur(inten * cloth, (ksz, ksz))
        inf = np.where(ok, num / np.maximum(wgt, 1e-3), i0)
        return cf.astype(np.float32), inf.astype(np.float32)

    def set_background(self, image: np.ndarray | None) -> None:
        """Fix the cloth model from a frame (ideally an empty bed); None: per frame."""
        if image is None:
            self._cloth = None
            return
        chroma, inten = self._chroma_intensity(self.work_image(image))
        self._cloth = self._estimate_cloth(chroma, inten)

    def foreground(
        self, work: np.ndarray, off: tuple[int, int] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Soft foreground (0..1) and brightness relative to the cloth, in work pixels.

        ``off``: the work-pixel offset of a window (needs a fixed cloth model).
        """
        if self._cloth is not None:
            cf, inf = self._cloth
            if off is not None:
                h, w = work.shape[:2]
                cf = cf[off[1] : off[1] + h, off[0] : off[0] + w]
                inf = inf[off[1] : off[1] + h, off[0] : off[0] + w]
            # the per-frame path: _chroma_intensity's arithmetic with OpenCV's
            # per-pixel channel sums (exact: sums of integers, and of three squares)
            f = work.astype(np.float32)
            inten = cv2.transform(f, _CHANNEL_SUM)
            inten += 3.0
            # each channel over the sum: IEEE division whatever the layout, so the same
            # quotients as numpy's broadcast ``f / inten[..., None]``, ~6x faster
            dd = cv2.subtract(np.divide(f, cv2.merge((inten, inten, inten))), cf)
            dc = np.sqrt(cv2.transform(cv2.multiply(dd, dd), _CHANNEL_SUM))
        else:
            chroma, inten = self._chroma_intensity(work)
            cf, inf = self._estimate_cloth(chroma, inten)
            dd = chroma - cf
            dd *= dd
            dc = np.sqrt(dd[..., 0] + dd[..., 1] + dd[..., 2])
        rel = inten / inf
        # max((dc - floor) / scale, (rel - BRIGHT_REL) / 0.3, (DARK_REL - rel) / 0.15)
        # clipped to 0..1, each step in place (the same float32 operations)
        fg = np.subtract(dc, self.cfg.chroma_floor, dtype=np.float32)
        fg /= self.cfg.chroma_scale
        tmp = rel - BRIGHT_REL
        tmp /= 0.3
        np.maximum(fg, tmp, out=fg)
        np.subtract(DARK_REL, rel, out=tmp)
        tmp /= 0.15
        np.maximum(fg, tmp, out=fg)
        np.maximum(fg, 0.0, out=fg)
        np.minimum(fg, 1.0, out=fg)
        return fg, rel

    # ----------------------------------------------------------------- detection
    def rim_votes(self, work: np.ndarray) -> np.ndarray:
        """Single-radius circle Hough: each edge pixel votes one radius along its gradient.

        Votes go both ways (a ball may be darker or brighter than the cloth); a
        ball's silhouette concentrates ~2*pi*r votes on its centre, a straight edge
        spreads them along a line, a soft shadow edge hardly votes.  Normalised so
        a full, crisp rim gives ~1.
        """
        grads = _ChannelGradients(work)
        g_lo = EDGE_MIN_GRAD
        h, w = grads.shape
        flat = np.flatnonzero(grads.m > g_lo * g_lo)
        acc = np.zeros(h * w, np.float32)
        if len(flat):
            ys, xs = np.divmod(flat, w)
            gx, gy, m = grads.at(flat)
            g = np.sqrt(m)
            ux, uy = gx / g, gy / g
            wt = np.minimum(g / EDGE_FULL_GRAD, 1.0).astype(np.float32)
            r = self.r_vote
            for sgn in (1.0, -1.0):
                cx = np.rint(xs + sgn * r * ux).astype(np.int32)
                cy = np.rint(ys + sgn * r * uy).astype(np.int32)
                ok = (cx >= 0) & (cx < w) & (cy >= 0) & (cy < h)
                acc += np.bincount(cy[ok] * w + cx[ok], weights=wt[ok], minlength=h * w).astype(
                    np.float32
                )
        acc = cv2.GaussianBlur(acc.reshape(h, w), (0, 0), VOTE_BLUR_PX)
        return acc * (2.0 * math.pi * VOTE_BLUR_PX**2) / (2.0 * math.pi * self.r_vote)

    def detect(self, image: np.ndarray, frame: int = 0, t: float = 0.0) -> Detections:
        """Every ball in a frame."""
        self._image = image
        work = self.work_image(image)
        fg, rel = self.foreground(work)
        votes = self.rim_votes(work)
        det = self._from_votes(fg, rel, votes, frame, t, (0, 0))
        if not self.find_streaks:
            return det
        crisp = det.xy_px[det.score >= STREAK_END_MAX_SCORE]
        st = self._streaks(fg, rel, (0, 0), None, crisp, frame, t)
        if st is None:
            return det
        return Detections.merge([det[~_on_streaks_xy(det.xy_mm, det.score, st, self.R_mm)], st])

    def _to_work(self, xy_px: np.ndarray) -> np.ndarray:
        """Frame pixels -> work pixels (of the whole bed ROI)."""
        x0, y0 = self.roi[:2]
        return (np.asarray(xy_px, float) - np.array([x0, y0]) + 0.5) * self.scale - 0.5

    @property
    def window_margin(self) -> int:
        """Work pixels searched around a box in :meth:`detect_regions` (a ball's whole
        rim, and the ring around it that tells a ball from a hand)."""
        return int(math.ceil(WINDOW_MARGIN_RADII * self.r_work))

    def work_box(self, box_px: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """A box in frame pixels -> the covering box in work pixels (clipped)."""
        x0, y0 = self.roi[:2]
        ww, wh = self.work_size
        bx0 = int(max(0, math.floor((box_px[0] - x0) * self.scale)))
        by0 = int(max(0, math.floor((box_px[1] - y0) * self.scale)))
        bx1 = int(min(ww, math.ceil((box_px[2] - x0) * self.scale) + 1))
        by1 = int(min(wh, math.ceil((box_px[3] - y0) * self.scale) + 1))
        return bx0, by0, bx1, by1

    def detect_regions(
        self,
        image: np.ndarray,
        boxes_work: list[tuple[int, int, int, int]],
        frame: int = 0,
        t: float = 0.0,
        skip_px: np.ndarray | None = None,
        neighbours_px: np.ndarray | None = None,
        streaks: bool | None = None,
        coarse_px: np.ndarray | None = None,
    ) -> Detections:
        """Balls whose centre lies inside the given work-pixel boxes (fixed cloth model).

        ``skip_px``: frame pixels of balls known to be there unchanged; peaks within
        half a radius of one are left out (the caller keeps its old detection).
        ``neighbours_px``: other balls known elsewhere (for the rim fit next to them).
        ``streaks``: also look for motion-blur streaks (default ``find_streaks``).
        ``coarse_px``: where moving balls are expected: a detection within a radius
        of one keeps its work-image centre (no full-resolution rim fit: speed).

        Each box is processed with a margin of two ball radii so votes from a
        ball's whole rim are in, and only peaks inside the box are kept -- the
        incremental mode of :class:`~luza.vision.pipeline.VisionPipeline`.
        """
        if self._cloth is None:
            self.set_background(image)
        self._image = image
        self._coarse_px = None if coarse_px is None else np.asarray(coarse_px, float).reshape(-1, 2)
        ww, wh = self.work_size
        m = self.window_margin
        jobs = []  # per searched box: the frame, its window (work pixels), the keep box
        for bx0, by0, bx1, by1 in boxes_work:
            ex0, ey0 = max(0, bx0 - m), max(0, by0 - m)
            ex1, ey1 = min(ww, bx1 + m), min(wh, by1 + m)
            if ex1 - ex0 < 3 or ey1 - ey0 < 3:
                continue
            fx0, fy0, fx1, fy1 = self.frame_span((ex0, ey0, ex1, ey1))
            if image[fy0:fy1, fx0:fx1].size == 0:
                continue
            keep = (bx0 - ex0, by0 - ey0, bx1 - ex0, by1 - ey0)
            jobs.append((image, (ex0, ey0, ex1, ey1), keep, skip_px, neighbours_px))
        # per searched box: foreground, brightness, origin, box, candidates (each window
        # on its own: with worker threads, in parallel -- the same results, in order)
        windows = self._map(
            self._window, jobs, size=lambda job: (job[1][2] - job[1][0]) * (job[1][3] - job[1][1])
        )
        if not windows:
            self._coarse_px = None
            return Detections.empty(frame, t)
        # every window's candidates unprojected at once (a call costs more than a point),
        # and their rim fits in one batch (each ball's neighbours: every other candidate
        # of the frame and the balls known elsewhere; a batch costs ~3 single fits, and
        # the 15 balls rolling after a break made ~6 windows a frame)
        xy_px = np.concatenate([w[4] for w in windows])
        score = np.concatenate([w[5] for w in windows])
        fit = np.concatenate([w[6] for w in windows])
        ends = np.cumsum([len(w[4]) for w in windows])
        spans = [(int(b) - len(w[4]), int(b)) for w, b in zip(windows, ends, strict=True)]
        xy_mm = self.camera.unproject(xy_px, self.R_mm) if len(xy_px) else np.zeros((0, 2))
        radius = self.expected_radius_px(xy_mm) if len(xy_px) else np.zeros(0)
        known = neighbours_px if neighbours_px is not None else skip_px
        refined = self._refine_crisp(xy_px, fit, radius, known)  # in place
        if refined.any():
            xy_mm[refined] = self.camera.unproject(xy_px[refined], self.R_mm)
        self._coarse_px = None
        find_streaks = self.find_streaks if streaks is None else streaks
        extra = [
            np.asarray(e, float).reshape(-1, 2)
            for e in (skip_px, neighbours_px)
            if e is not None and len(e)
        ]
        if not find_streaks:
            return Detections(frame, t, xy_px, xy_mm, radius, score)
        # each window's streaks (a streak's rounded ends may vote as blurred, low-score
        # balls: only crisp rims and the balls known elsewhere make a blob "a ball's");
        # then window by window: its streaks, its round detections not on them (rows of
        # the arrays above), all in one Detections
        found = self._map(
            lambda job: self._streaks(*job, frame, t),
            [
                (
                    fg,
                    rel,
                    off,
                    keep,
                    np.vstack([xy_px[a:b][score[a:b] >= STREAK_END_MAX_SCORE], *extra]),
                )
                for (fg, rel, off, keep, _, _, _), (a, b) in zip(windows, spans, strict=True)
            ],
            size=lambda job: job[0].size,
        )
        parts: list[Detections | np.ndarray] = []
        for st, (a, b) in zip(found, spans, strict=True):
            rows = np.arange(a, b)
            if st is not None:
                rows = rows[~_on_streaks_xy(xy_mm[a:b], score[a:b], st, self.R_mm)]
                parts.append(st)
            parts.append(rows)
        if not any(isinstance(p, Detections) for p in parts):
            return Detections(frame, t, xy_px, xy_mm, radius, score)
        cols = list(
            zip(
                *(
                    (p.xy_px, p.xy_mm, p.radius_px, p.score, p.blur_mm)
                    if isinstance(p, Detections)
                    else (xy_px[p], xy_mm[p], radius[p], score[p], np.zeros((len(p), 2)))
                    for p in parts
                ),
                strict=True,
            )
        )
        a_px, a_mm, a_rad, a_score, a_blur = (np.concatenate(c) for c in cols)
        return Detections(frame, t, a_px, a_mm, a_rad, a_score, blur_mm=a_blur)

    def _window(self, job: tuple) -> tuple:
        """One searched window: its foreground, brightness, origin, keep box and the
        candidates (coarse centres in frame pixels, scores, rims worth a fit) -- a pure
        function of the frame's pixels (no detector state changes), so windows may run in
        parallel."""
        image, (ex0, ey0, ex1, ey1), keep, skip_px, neighbours_px = job
        work = self.work_pixels(image, (ex0, ey0, ex1, ey1))
        fg, rel = self.foreground(work, (ex0, ey0))
        votes = self.rim_votes(work)
        cand = self._candidates(fg, rel, votes, (ex0, ey0), keep, skip_px, neighbours_px)
        return (fg, rel, (ex0, ey0), keep, *cand)

    def _map(self, fn, jobs: list, size=None) -> list:
        """``[fn(j) for j in jobs]``, on this thread and ``workers() - 1`` worker threads
        when there are several jobs (OpenCV, numpy's loops and the image work release the
        GIL): each thread takes the next job, the largest first (``size(job)``), so the
        slowest window starts at once; the results come back in the jobs' order."""
        n = min(self.workers(), len(jobs))
        if n <= 1:
            return [fn(j) for j in jobs]
        order = list(range(len(jobs)))
        if size is not None:
            order.sort(key=lambda i: -size(jobs[i]))
        todo = iter(order)
        lock = threading.Lock()
        out: list = [None] * len(jobs)

        def drain() -> None:
            while True:
                with lock:
                    i = next(todo, None)
                if i is None:
                    return
                out[i] = fn(jobs[i])

        helpers = [_pool(self.workers() - 1).submit(drain) for _ in range(n - 1)]
        try:
            drain()
        finally:
            for h in helpers:
                h.result()  # all done (and a helper's error raised here)
        return out

    def workers(self) -> int:
        """Threads for the windows of a frame, the caller's included: ``threads`` if set,
        else as many as OpenCV is allowed (``cv2.setNumThreads``; benchmarks of one core
        set 1)."""
        if self.threads is not None:
            return max(1, int(self.threads))
        return max(1, min(cv2.getNumThreads(), MAX_WORKERS))

    def _from_votes(
        self,
        fg,
        rel,
        votes,
        frame: int,
        t: float,
        off: tuple[int, int],
        keep_box=None,
        skip_px: np.ndarray | None = None,
        neighbours_px: np.ndarray | None = None,
    ) -> Detections:
        xy_px, score, fit = self._candidates(fg, rel, votes, off, keep_box, skip_px, neighbours_px)
        if len(xy_px) == 0:
            return Detections.empty(frame, t)
        xy_mm = self.camera.unproject(xy_px, self.R_mm)
        radius = self.expected_radius_px(xy_mm)
        known = neighbours_px if neighbours_px is not None else skip_px
        refined = self._refine_crisp(xy_px, fit, radius, known)
        if refined.any():
            xy_mm[refined] = self.camera.unproject(xy_px[refined], self.R_mm)
        return Detections(frame, t, xy_px, xy_mm, radius, score)

    def _candidates(
        self,
        fg: np.ndarray,
        rel: np.ndarray,
        votes: np.ndarray,
        off: tuple[int, int],
        keep_box=None,
        skip_px: np.ndarray | None = None,
        neighbours_px: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The balls of a window's rim votes (work pixels at ``off``; peaks only inside
        ``keep_box``, none within half a radius of ``skip_px``): their coarse centres in
        frame pixels, their scores and whether each rim is crisp enough for a
        full-resolution fit."""
        none = np.zeros((0, 2)), np.zeros(0), np.zeros(0, bool)
        rw = self.r_work
        h, w = votes.shape
        ox, oy = off
        dil = cv2.dilate(votes, self._peak_kernel)  # the whole window: its margin counts
        kx0, ky0, kx1, ky1 = (0, 0, w, h) if keep_box is None else keep_box
        ky0, kx0 = max(0, ky0), max(0, kx0)
        # peaks looked for inside the keep box only (the same points, in the same order)
        sub = (slice(ky0, ky1), slice(kx0, kx1))
        cmask = self.centre_mask[oy : oy + h, ox : ox + w][sub]
        v = votes[sub]
        peaks = (v >= dil[sub] - 1e-6) & (v >= SHADED_VOTE_THRESHOLD) & cmask
        ys, xs = np.nonzero(peaks)
        if len(xs) == 0:
            return none
        ys += ky0
        xs += kx0
        # Foreground support: the core of a ball is not cloth (nor a shadow between balls).
        sup = self._core_support(fg, xs, ys)
        pv = votes[ys, xs]
        ok = (sup >= FG_SUPPORT) & (pv >= VOTE_THRESHOLD)
        # the rest: balls of the cloth's hue, by their shading (ranked after all the
        # others, so they never displace a ball the foreground found)
        rest = np.flatnonzero(~ok)
        if len(rest):
            sh = self._shaded_support(rel, xs[rest], ys[rest])
            good = sh > sup[rest]
            rest, sh = rest[good], sh[good]
            sup[rest] = sh
        second = np.zeros(len(xs), bool)
        second[rest] = True
        vals = pv * (0.5 + sup)
        ok |= second
        xs, ys, vals, second = xs[ok], ys[ok], vals[ok], second[ok]
        order = np.lexsort((-vals, second))
        xs, ys, vals, second = xs[order], ys[order], vals[order], second[order]
        keep: list[int] = []
        sup2 = (self.cfg.suppress_radii * rw) ** 2
        xl, yl = xs.tolist(), ys.tolist()  # Python ints: the same exact sums, cheaper
        for i in range(len(xl)):
            xi, yi = xl[i], yl[i]
            if all((xi - xl[j]) ** 2 + (yi - yl[j]) ** 2 > sup2 for j in keep):
                keep.append(i)
        if skip_px is not None and len(skip_px) and keep:
            sk = self._to_work(skip_px) - np.array([ox, oy])
            kk = np.array(keep)
            d2 = (xs[kk, None] - sk[None, :, 0]) ** 2 + (ys[kk, None] - sk[None, :, 1]) ** 2
            keep = [int(i) for i in kk[d2.min(1) > (0.5 * rw) ** 2]]
        if not keep:
            return none
        pts = np.stack([xs[keep], ys[keep]], 1).astype(np.float64)
        score = np.clip(vals[keep], 0, 1)
        shaded_rim = second[keep]  # found by its shading: see REFINE_MIN_SCORE
        pts = self._peak_centroid(votes, pts)
        ix = np.clip(np.round(pts).astype(int), 0, [w - 1, h - 1])
        mrel = self._core_rel(rel, pts)
        bad = (mrel < POCKET_DARK_REL) & self.pocket_zone[oy + ix[:, 1], ox + ix[:, 0]]
        bad |= (mrel < HOLE_BALL_MIN_REL) & self.hole_zone[oy + ix[:, 1], ox + ix[:, 0]]
        if self.reject_clutter and len(pts):
            others = pts
            known = neighbours_px if neighbours_px is not None else skip_px
            if known is not None and len(known):
                nb = self._to_work(known) - np.array([ox, oy])
                others = np.vstack([pts, nb])
            ring = self._unexplained_ring(fg, pts, others, self._radius_rel(pts + [ox, oy]))
            # inside a hand: either a finger or a ball held by it -- the score says so,
            # the classifier decides (see pipeline._balls_only)
            cluttered = ring > CLUTTER_RING_FRACTION
            score = np.where(cluttered, score * CLUTTER_SCORE_FACTOR, score)
            shaded_rim &= ~cluttered
        fit = (score >= REFINE_MIN_SCORE) | shaded_rim
        pts, score, fit = pts[~bad], score[~bad], fit[~bad]
        x0, y0 = self.roi[:2]
        xy_px = (pts + np.array([ox, oy]) + 0.5) / self.scale - 0.5 + np.array([x0, y0])
        return xy_px, score, fit

    def _refine_crisp(
        self, xy_px: np.ndarray, fit: np.ndarray, radius: np.ndarray, known: np.ndarray | None
    ) -> np.ndarray:
        """Full-resolution rim fits (in place) of the balls at ``xy_px`` whose rims are
        crisp (``fit``: see :meth:`_candidates`; a motion-blurred rim is not worth one),
        ``known``: the balls elsewhere; which ones were refined.  Also when the work
        image is the frame itself (a small image): the vote peak alone is no rim fit (its
        centres were off by up to 2.4 mm)."""
        crisp = np.zeros(len(xy_px), bool)
        if self._image is None:
            return crisp
        crisp = fit.copy()
        if crisp.any() and self._coarse_px is not None and len(self._coarse_px):
            # a ball on the move: its coarse centre is as good as it needs to be
            dc = np.linalg.norm(xy_px[:, None] - self._coarse_px[None], axis=2)
            crisp &= dc.min(axis=1) > radius
        if crisp.any():
            xy_px[crisp] = self.refine_full(
                self._image, xy_px[crisp], radius[crisp], _others(xy_px, crisp, known)
            )
        return crisp

    def _streaks(
        self,
        fg: np.ndarray,
        rel: np.ndarray,
        off: tuple[int, int],
        keep_box,
        balls_px: np.ndarray,
        frame: int,
        t: float,
    ) -> Detections | None:
        """Motion-blur streaks in a foreground window (work pixels at ``off``); None: none.

        A blob of foreground that is one ball wide, longer than a ball, solid (its
        area fills the stadium of its length and width) and holds no known ball
        (``balls_px``, frame pixels) is a fast ball: its centre is the blob's centroid
        (the middle of the exposure), its ``blur_mm`` half the swept path.
        """
        rw = self.r_work
        h, w = fg.shape
        ox, oy = off
        mask = (fg > STREAK_FG).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, self._open_kernel)
        min_area = 0.7 * STREAK_WIDTH_RADII[0] * STREAK_MIN_LENGTH_RADII * rw * rw
        n, lab, stats, _cen = cv2.connectedComponentsWithStats(mask, connectivity=8)
        ww, wh = self.work_size
        # a blob holding a known ball is that ball's (and its neighbours', a hand's)
        known = np.zeros(n, bool)
        if len(balls_px):
            bi = np.round(self._to_work(balls_px) - np.array([ox, oy])).astype(int)
            inside = (bi[:, 0] >= 0) & (bi[:, 0] < w) & (bi[:, 1] >= 0) & (bi[:, 1] < h)
            known[lab[bi[inside, 1], bi[inside, 0]]] = True
        out_px, out_half = [], []
        big = np.nonzero(stats[:, cv2.CC_STAT_AREA] >= min_area)[0]
        for i in big[(big > 0) & ~known[big]]:
            x, y, bxw, bxh, area = (int(v) for v in stats[i])
            # cut by the window (not by the image): partial, the neighbouring box has it
            if (x == 0 and ox > 0) or (y == 0 and oy > 0):
                continue
            if (x + bxw >= w and ox + w < ww) or (y + bxh >= h and oy + h < wh):
                continue
            sub = lab[y : y + bxh, x : x + bxw] == i
            ys, xs = np.nonzero(sub)
            xs = xs.astype(np.float64) + x
            ys = ys.astype(np.float64) + y
            c = np.array([xs.mean(), ys.mean()])
            if keep_box is not None:
                kx0, ky0, kx1, ky1 = keep_box
                if not (kx0 <= c[0] < kx1 and ky0 <= c[1] < ky1):
                    continue
            ci = np.clip(np.round(c).astype(int), 0, [w - 1, h - 1])
            if (
                not self.centre_mask[oy + ci[1], ox + ci[0]]
                or self.pocket_zone[oy + ci[1], ox + ci[0]]
            ):
                continue  # off the bed, or a pocket's hole and jaws
            if float(rel[y : y + bxh, x : x + bxw][sub].mean()) < STREAK_MIN_REL:
                continue  # darker than the cloth: a sleeve, a shadow, a hole
            ev, evec = np.linalg.eigh(np.cov(np.vstack([xs, ys])))
            u = evec[:, 1]
            along = (xs - c[0]) * u[0] + (ys - c[1]) * u[1]
            across = (xs - c[0]) * -u[1] + (ys - c[1]) * u[0]
            length = float(along.max() - along.min() + 1.0)
            width = float(across.max() - across.min() + 1.0)
            if not (STREAK_WIDTH_RADII[0] * rw <= width <= STREAK_WIDTH_RADII[1] * rw):
                continue
            if not (STREAK_MIN_LENGTH_RADII * rw <= length <= STREAK_MAX_LENGTH_RADII * rw):
                continue
            stadium = width * (length - width) + 0.25 * math.pi * width * width
            if area < STREAK_FILL * stadium:
                continue
            half = 0.5 * (length - width) * u
            out_px.append(c + np.array([ox, oy]))
            out_half.append(half)
        if not out_px:
            return None
        x0, y0 = self.roi[:2]
        wp = np.array(out_px)
        hv = np.array(out_half)
        to_px = lambda q: (q + 0.5) / self.scale - 0.5 + np.array([x0, y0])  # noqa: E731
        xy_px = to_px(wp)
        xy_mm = self.camera.unproject(xy_px, self.R_mm)
        ends = self.camera.unproject(to_px(wp + hv), self.R_mm)
        radius = self.expected_radius_px(xy_mm)
        score = np.full(len(wp), STREAK_SCORE)
        return Detections(frame, t, xy_px, xy_mm, radius, score, blur_mm=ends - xy_mm)

    def refine_full(
        self,
        image: np.ndarray,
        xy_px: np.ndarray,
        radius_px: np.ndarray,
        others_px: np.ndarray | None = None,
    ) -> np.ndarray:
        """Sub-pixel centres from the full-resolution rim.

        Edge pixels near the expected rim whose gradient runs along the radius are
        the rim.  Where a neighbour touches, the rim is a dark crease whose edges
        lie inside the silhouette, so rim pixels facing a neighbour (``xy_px`` and
        ``others_px``) are left out unless the ball is surrounded.  A full free rim
        is fitted as a circle (its radius free); a partial one gives the centre as
        the mean of its fixed-radius votes, the radius scaled by what the free rims
        of isolated balls measured (``edge_radius_factor``), so an arc on one side
        does not pull the centre.
        """
        out = np.asarray(xy_px, float).reshape(-1, 2).copy()
        radius = np.asarray(radius_px, float).reshape(-1)
        n = len(out)
        if n == 0:
            return out
        if others_px is not None and len(others_px) and n >= 2:
            # every ball against the same neighbours: all at once
            out, ratios = self._refine_batch(image, out, radius, np.vstack([out, others_px]))
        else:
            # one ball, or no other balls: then each ball's neighbours are the others
            # of ``xy_px`` as refined so far (those before it moved already)
            allp = out if others_px is None or len(others_px) == 0 else np.vstack([out, others_px])
            ratios = []
            for i in range(n):
                out[i], rat = self._refine_one(image, out[i], float(radius[i]), allp)
                ratios += rat
        if ratios:  # else the last 200 are the ones the factor was taken from
            self._radius_ratios += ratios
            if len(self._radius_ratios) >= 3:
                self._radius_ratios = self._radius_ratios[-200:]
                self.edge_radius_factor = _median(self._radius_ratios)
        return out

    def _limb_shape(self, xy_px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For balls at frame pixels ``xy_px``: the shape of their silhouette (``(n, 3)``:
        see :func:`_limb_shapes`) and its mean radius over the expected one, interpolated
        from the bed grid's."""
        grid_px, shapes, means = self._shape_grid
        d = np.linalg.norm(np.asarray(xy_px, float).reshape(-1, 2)[:, None] - grid_px[None], axis=2)
        w = 1.0 / (d + 1.0) ** 2
        w /= w.sum(1, keepdims=True)
        return w @ shapes, w @ means

    def _in_front(self, xy_px: np.ndarray, others_px: np.ndarray) -> np.ndarray:
        """``[i, j]``: whether ball ``others_px[j]`` lies nearer the camera's nadir in the
        image than ball ``xy_px[i]`` (by a tenth of a radius or more).  Seen from the
        side, two touching balls overlap in the image and the one nearer the nadir is in
        front: the edge on the far ball's side facing it is the near ball's rim."""
        if self._nadir_px is None:
            c = np.asarray(self.camera.centre_world, float)
            self._nadir_px = self.camera.project(c[None, :2], 0.0).reshape(2)
        da = np.hypot(*(np.asarray(xy_px, float).reshape(-1, 2) - self._nadir_px).T)
        db = np.hypot(*(np.asarray(others_px, float).reshape(-1, 2) - self._nadir_px).T)
        return db[None, :] < da[:, None] - 0.1 * self.radius_px_min

    def _refine_one(
        self, image: np.ndarray, xy: np.ndarray, r: float, nbr_px: np.ndarray
    ) -> tuple[np.ndarray, list[float]]:
        """:meth:`refine_full` of one ball (neighbours at ``nbr_px``): its centre and the
        free rim's radius ratios.  The arithmetic of :meth:`_refine_batch` (a test
        holds the two to the same results), without its per-ball bookkeeping, which
        costs more than it saves for a single ball."""
        h, w = image.shape[:2]
        out = np.array(xy, float)
        k = int(math.ceil(1.45 * r)) + 1
        dn = nbr_px - out
        dd = np.hypot(dn[:, 0], dn[:, 1])
        close = (dd > 0.5 * r) & (dd < 2.5 * r)
        nbr = dn[close] / dd[close, None]
        nbr_front = self._in_front(out[None], nbr_px)[0, close]
        ix, iy = int(round(out[0])), int(round(out[1]))
        if ix - k < 1 or iy - k < 1 or ix + k >= w - 1 or iy + k >= h - 1:
            return out, []
        patch = image[iy - k - 1 : iy + k + 2, ix - k - 1 : ix + k + 2]
        xx, yy, gx, gy, mag = _strong_edges(patch, k)
        if len(mag) < 8:
            return out, []
        xx, yy = xx.astype(np.float32), yy.astype(np.float32)
        ratios = []
        shape, mean_shape = self._limb_shape(out[None])
        re = r * self.edge_radius_factor
        for _ in range(2):
            px_, py_ = xx + (ix - out[0]), yy + (iy - out[1])  # relative to the centre
            d2 = px_ * px_ + py_ * py_
            sel = (d2 > (0.6 * r) ** 2) & (d2 < (1.35 * r) ** 2)
            if np.count_nonzero(sel) < 8:
                break
            g = mag[sel]
            ux, uy = gx[sel] / g, gy[sel] / g
            qx, qy = px_[sel], py_[sel]
            outward = qx * ux + qy * uy > 0
            s = np.where(outward, -1.0, 1.0) * re * _limb_stretch(shape[0], ux, uy)
            vx, vy = qx + s * ux, qy + s * uy
            near = vx * vx + vy * vy < (0.3 * r) ** 2
            if self.inward_edges:
                near &= ~outward  # the ball is the brighter side of its own rim
            free = own = near
            if len(nbr):
                qd = np.hypot(qx, qy) + 1e-9
                cosang = (qx[:, None] * nbr[None, :, 0] + qy[:, None] * nbr[None, :, 1]) / qd[
                    :, None
                ]
                free = near & (cosang.max(axis=1) < NEIGHBOUR_COS)
                own = near & ~((cosang >= NEIGHBOUR_COS) & nbr_front[None, :]).any(axis=1)
            use = own if np.count_nonzero(own) >= 8 else near
            use = free if np.count_nonzero(free) >= 8 else use
            if np.count_nonzero(use) < 8:
                break
            wt = g[use].astype(np.float64) ** REFINE_WEIGHT_EXPONENT
            qx, qy, vx, vy = qx[use], qy[use], vx[use], vy[use]
            sw = wt.sum()
            step = np.array([(wt * vx).sum() / sw, (wt * vy).sum() / sw])
            bins = _cover_bins(qx, qy)
            sectors = np.count_nonzero(np.bincount(bins, minlength=COVER_BINS))
            if 360.0 * sectors / COVER_BINS >= FULL_RIM_COVERAGE:
                fit = _circle_fit_one(qx, qy, wt)
                if fit is not None and abs(fit[2] - r) < 0.15 * r:
                    step = np.array(fit[:2])
                    if not len(nbr):
                        ratios.append(float(fit[2] / (r * mean_shape[0])))
            out += step
            if abs(step[0]) + abs(step[1]) < 0.05:
                break
        return out, ratios

    def _refine_batch(
        self, image: np.ndarray, xy: np.ndarray, radius: np.ndarray, nbr_px: np.ndarray
    ) -> tuple[np.ndarray, list[float]]:
        """:meth:`refine_full` of several balls against the same neighbours ``nbr_px``:
        the centres, and the free rims' radius / expected radius ratios (isolated
        balls) to add to ``_radius_ratios``.

        Every ball's strong edge pixels in a window of ``1.45 r + 1`` around it go into
        one list (one Sobel over the balls' patches stacked), and each iteration
        works on that list with per-ball sums -- the per-ball loop's arithmetic, a
        few numpy calls per iteration for all balls instead of ~90 per ball.
        """
        h, w = image.shape[:2]
        out = xy.astype(float).copy()
        n = len(out)
        r = radius
        k = (np.ceil(1.45 * r)).astype(int) + 1
        ix, iy = (np.rint(out[:, 0]).astype(int), np.rint(out[:, 1]).astype(int))
        valid = (ix - k >= 1) & (iy - k >= 1) & (ix + k < w - 1) & (iy + k < h - 1)
        if not valid.any():
            return out, []
        # neighbour directions (unit vectors), zero-padded: a zero never reaches the cos
        dn = nbr_px[None, :, :] - out[:, None, :]
        dd = np.hypot(dn[..., 0], dn[..., 1])
        close = (dd > 0.5 * r[:, None]) & (dd < 2.5 * r[:, None])
        n_nb = close.sum(axis=1)
        nb = np.zeros((n, max(1, int(n_nb.max())), 2))
        nb_front = np.zeros((n, nb.shape[1]), bool)  # that neighbour hides this ball's side
        front = self._in_front(out, nbr_px)
        for i in np.nonzero(n_nb)[0]:
            nb[i, : n_nb[i]] = dn[i, close[i]] / dd[i, close[i], None]
            nb_front[i, : n_nb[i]] = front[i, close[i]]
        # one gradient for all balls: their patches (a pixel of border) stacked
        kmax = int(k[valid].max())
        K = 2 * kmax + 3
        chans = image.shape[2:] if image.ndim == 3 else ()
        balls = np.nonzero(valid)[0]
        stack = np.zeros((len(balls), K, K, *chans), image.dtype)
        for j, i in enumerate(balls):
            y0, x0 = iy[i] - kmax - 1, ix[i] - kmax - 1
            sy0, sx0 = max(0, y0), max(0, x0)
            sy1, sx1 = min(h, y0 + K), min(w, x0 + K)
            stack[j, sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = image[sy0:sy1, sx0:sx1]
        xx, yy, gx, gy, mag = _strong_edges(stack.reshape(len(balls) * K, K, *chans), kmax)
        bj, yy = np.divmod(yy + (kmax + 1), K)  # the stack's rows: patch, row in it
        yy -= kmax + 1
        cb = balls[bj]  # the ball of each candidate pixel
        own = (np.abs(xx) <= k[cb]) & (np.abs(yy) <= k[cb])  # the ball's own window
        xx, yy, gx, gy, mag, cb = (
            xx[own].astype(np.float32),
            yy[own].astype(np.float32),
            gx[own],
            gy[own],
            mag[own],
            cb[own],
        )
        re_all = r * self.edge_radius_factor
        shape, mean_shape = self._limb_shape(out)
        active = valid.copy()
        ratios: list[tuple[np.ndarray, np.ndarray]] = []
        for _ in range(2):
            live = active[cb]
            b = cb[live]
            px_ = xx[live] + (ix[b] - out[b, 0])  # relative to the centre
            py_ = yy[live] + (iy[b] - out[b, 1])
            d2 = px_ * px_ + py_ * py_
            rb = r[b]
            sel = (d2 > (0.6 * rb) ** 2) & (d2 < (1.35 * rb) ** 2)
            active &= np.bincount(b[sel], minlength=n) >= 8
            sel &= active[b]
            b = b[sel]
            g = mag[live][sel]
            ux, uy = gx[live][sel] / g, gy[live][sel] / g
            qx, qy = px_[sel], py_[sel]
            outward = qx * ux + qy * uy > 0
            s = np.where(outward, -1.0, 1.0) * re_all[b] * _limb_stretch(shape[b], ux, uy)
            vx, vy = qx + s * ux, qy + s * uy
            near = vx * vx + vy * vy < (0.3 * r[b]) ** 2
            if self.inward_edges:
                near &= ~outward  # the ball is the brighter side of its own rim
            free = near.copy()
            own = near.copy()  # not facing a neighbour in front of the ball
            ask = np.nonzero(near & (n_nb[b] > 0))[0]  # rim votes of balls with neighbours
            if len(ask):
                fx, fy = qx[ask], qy[ask]
                qd = np.hypot(fx, fy) + 1e-9
                nbb = nb[b[ask]]
                cosang = (fx[:, None] * nbb[:, :, 0] + fy[:, None] * nbb[:, :, 1]) / qd[:, None]
                free[ask] = cosang.max(axis=1) < NEIGHBOUR_COS
                facing = cosang >= NEIGHBOUR_COS
                own[ask] = ~(facing & nb_front[b[ask]]).any(axis=1)
            fallback = np.where(np.bincount(b[own], minlength=n)[b] >= 8, own, near)
            use = np.where(np.bincount(b[free], minlength=n)[b] >= 8, free, fallback)
            active &= np.bincount(b[use], minlength=n) >= 8
            use &= active[b]
            if not use.any():
                break
            b = b[use]
            wt = g[use].astype(np.float64) ** REFINE_WEIGHT_EXPONENT
            qx, qy, vx, vy = qx[use], qy[use], vx[use], vy[use]
            sw = np.bincount(b, wt, minlength=n)
            on = active & (sw > 0)
            step = np.zeros((n, 2))
            step[on, 0] = np.bincount(b, wt * vx, minlength=n)[on] / sw[on]
            step[on, 1] = np.bincount(b, wt * vy, minlength=n)[on] / sw[on]
            bins = _cover_bins(qx, qy)
            hit = np.bincount(b * COVER_BINS + bins, minlength=n * COVER_BINS) > 0
            cover = 360.0 * hit.reshape(n, COVER_BINS).sum(axis=1) / COVER_BINS
            full = on & (cover >= FULL_RIM_COVERAGE)
            if full.any():
                pick = full[b]
                fit = _circle_fits(qx[pick], qy[pick], wt[pick], b[pick], n)
                good = full & np.isfinite(fit[:, 2]) & (np.abs(fit[:, 2] - r) < 0.15 * r)
                step[good] = fit[good, :2]
                alone = good & (n_nb == 0)
                if alone.any():
                    idx = np.nonzero(alone)[0]
                    ratios.append((idx, fit[idx, 2] / (r[idx] * mean_shape[idx])))
            out[on] += step[on]
            active &= on & (np.abs(step[:, 0]) + np.abs(step[:, 1]) >= 0.05)
            if not active.any():
                break
        if not ratios:
            return out, []
        # in the per-ball loop's order: by ball, then by iteration
        idx = np.concatenate([i for i, _ in ratios])
        val = np.concatenate([v for _, v in ratios])
        return out, [float(v) for v in val[np.argsort(idx, kind="stable")]]

    def surroundings(
        self,
        image: np.ndarray,
        xy_px: np.ndarray,
        others_px: np.ndarray,
        outer: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """For balls at frame pixels ``xy_px``: the fraction of the ring around each that
        is foreground no ball explains (``others_px``: the other balls), and the core's
        brightness relative to the cloth.  A ball on the cloth has a clean ring and is
        not darker than the cloth; a knuckle, an elbow or a sleeve fails one of them.
        ``outer`` (per ball): count only foreground that goes on past a colour fringe
        (``SURROUND_OUTER_RING_RADII``)."""
        n = len(xy_px)
        outer = np.zeros(n, bool) if outer is None else np.asarray(outer, bool)
        ring, rel_core = np.zeros(n), np.ones(n)
        if self._cloth is None:
            return ring, rel_core
        k = self.window_margin
        x0, y0 = self.roi[:2]
        wxy = self._to_work(xy_px)
        wot = self._to_work(others_px) if len(others_px) else np.zeros((0, 2))
        for i in range(n):
            cx, cy = int(round(wxy[i, 0])), int(round(wxy[i, 1]))
            bx0, by0, bx1, by1 = self.work_box(
                (
                    x0 + (cx - k) / self.scale,
                    y0 + (cy - k) / self.scale,
                    x0 + (cx + k) / self.scale,
                    y0 + (cy + k) / self.scale,
                )
            )
            if bx1 - bx0 < 3 or by1 - by0 < 3:
                continue
            work = self.work_pixels(image, (bx0, by0, bx1, by1))
            if work is None:
                continue
            fg, rel = self.foreground(work, (bx0, by0))
            p = wxy[i : i + 1] - np.array([bx0, by0])
            oth = np.vstack([p, wot - np.array([bx0, by0])])
            ring[i] = self._unexplained_ring(fg, p, oth, outer=bool(outer[i]))[0]
            rel_core[i] = self._core_rel(rel, p)[0]
        return ring, rel_core

    def _radius_rel(self, wxy: np.ndarray) -> np.ndarray:
        """A ball's expected radius at work pixels ``wxy`` (the whole work image's) in
        units of ``r_work``, the smallest over the bed: at 1 in the far corners of a
        wide lens, 1.3 in the middle of a low camera's view.  Read from a map of every
        work pixel, made on first use (0.13 s at 1080p): worked out per call (68 us,
        several calls a frame) it took 3 % of a busy clip's time
        (fp-multi_s10752_1080p60); read from the map, 10 us."""
        if self._radius_rel_map is None:
            mm = self._xy_mm_map.reshape(-1, 2)
            rel = np.empty(len(mm))
            for i in range(0, len(mm), 4096):  # a few MB of distances at a time
                rel[i : i + 4096] = self.expected_radius_px(mm[i : i + 4096])
            rel = rel * self.scale / self.r_work
            self._radius_rel_map = rel.reshape(self._xy_mm_map.shape[:2])
        h, w = self._radius_rel_map.shape
        q = np.rint(wxy).astype(np.intp)  # np.round's halves to even, its overhead spared
        ix = np.minimum(np.maximum(q[:, 0], 0), w - 1)  # np.clip costs more on a few
        iy = np.minimum(np.maximum(q[:, 1], 0), h - 1)
        return self._radius_rel_map[iy, ix]

    def _unexplained_ring(
        self,
        fg: np.ndarray,
        pts: np.ndarray,
        others: np.ndarray,
        radius_rel: np.ndarray | None = None,
        outer: bool = False,
    ) -> np.ndarray:
        """Fraction of a ring 1.6 radii around each peak that is foreground no ball explains.

        Around a ball lies cloth, or the balls touching it; around a finger or a
        knuckle lies the rest of the hand.  Points of the ring within a radius of
        another ball (found or known) count as explained.  The radius is ``r_work``,
        the bed's smallest, times ``radius_rel`` (per peak; None: 1).  The peaks' own
        test passes the ball's radius where it lies: with the smallest, the ring of a
        ball a low camera sees 30 % larger lay on its rim and in the rack's gaps, and
        8-12 of a rack's 15 balls read as cluttered, left without a rim fit, 3-6 mm
        off (fp-break_s10603_1080p60, fp-break_s10621_720p30).  The newcomer tests
        (:meth:`surroundings`) keep the smallest: their limits were set with it, and
        with the ball's own radius two more hand views got through on
        fp-rally_s10624_720p60.  ``outer``: a point counts only if the ring
        ``SURROUND_OUTER_RING_RADII`` out is unexplained foreground on the same ray too
        (foreground that goes on past a colour fringe)."""
        out = self._ring_hits(fg, pts, others, self._ring, radius_rel)
        if outer:
            out &= self._ring_hits(fg, pts, others, self._outer_ring, radius_rel)
        return out.mean(axis=1)

    def _ring_hits(
        self,
        fg: np.ndarray,
        pts: np.ndarray,
        others: np.ndarray,
        ring: np.ndarray,
        radius_rel: np.ndarray | None,
    ) -> np.ndarray:
        """Per peak and ring point: unexplained foreground there (see ``_unexplained_ring``)."""
        rel = np.ones(len(pts)) if radius_rel is None else np.asarray(radius_rel, float)
        h, w = fg.shape
        n = len(pts)
        q = pts[:, None, :] + ring[None] * rel[:, None, None]  # (peak, ring point, xy)
        qi = np.round(q).astype(int)
        inside = (qi[..., 0] >= 0) & (qi[..., 0] < w) & (qi[..., 1] >= 0) & (qi[..., 1] < h)
        f = np.zeros(inside.shape)
        f[inside] = fg[qi[..., 1][inside], qi[..., 0][inside]]
        dq = q[:, :, None] - others[None, None]
        d = np.sqrt(dq[..., 0] * dq[..., 0] + dq[..., 1] * dq[..., 1])
        d[np.arange(n), :, np.arange(n)] = (
            np.inf
        )  # the peak itself (``others`` starts with ``pts``)
        explained = d.min(axis=2) < 1.05 * self.r_work * rel[:, None]
        return (f > 0.5) & ~explained

    def _core_support(self, fg: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Mean foreground over the central disc at each (x, y) work pixel."""
        core = self._core
        k = core.shape[0] // 2
        fgp = cv2.copyMakeBorder(fg, k, k, k, k, cv2.BORDER_CONSTANT, value=0)  # np.pad's zeros
        win = _windows(fgp, ys, xs, core.shape[0]) * core.ravel()
        return win.sum(axis=1)  # each window summed as one row

    def _shaded_support(self, rel: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Support (0..1, 0: none) from a sphere's shading at work pixels ``(xs, ys)``:
        the median brightness over the core against the cloth model and against the
        median of a ring 1.6 radii out (the cloth and shadow just around a ball)."""
        h, w = rel.shape
        pts = np.stack([xs, ys], 1).astype(np.float64)
        core = self._core_rel(rel, pts, np.median, floor=SHADED_CORE_REL)
        out = np.zeros(len(pts))
        # most such peaks are cloth (no brighter than it): their rings are not read
        lit = np.flatnonzero(core >= SHADED_CORE_REL)
        if not len(lit):
            return out
        core = core[lit]
        q = np.round(pts[lit, None, :] + self._ring[None]).astype(int)
        qx = np.clip(q[..., 0], 0, w - 1)
        qy = np.clip(q[..., 1], 0, h - 1)
        ring = np.median(rel[qy, qx], axis=1)
        contrast = core / np.maximum(ring, 1e-3)
        good = (ring >= SHADED_RING_MIN_REL) & (contrast >= SHADED_RING_CONTRAST)
        span = SHADED_FULL_CONTRAST - SHADED_RING_CONTRAST
        s = FG_SUPPORT + (1.0 - FG_SUPPORT) * np.clip(
            (contrast - SHADED_RING_CONTRAST) / span, 0, 1
        )
        out[lit] = np.where(good, s, 0.0)
        return out

    def _peak_centroid(self, acc: np.ndarray, pts: np.ndarray) -> np.ndarray:
        """Sub-pixel peak: centroid of the votes above half the peak in a small window."""
        k = PEAK_WINDOW_HALF
        h, w = acc.shape
        out = pts.copy()
        yy, xx = _PEAK_OFFSETS
        ip = pts.astype(int)
        x, y = ip[:, 0], ip[:, 1]
        ok = np.nonzero((x >= k) & (y >= k) & (x < w - k) & (y < h - k))[0]
        if not len(ok):
            return out
        win = _windows(acc, y[ok] - k, x[ok] - k, 2 * k + 1).astype(np.float64)
        win = np.maximum(win - 0.5 * win.max(axis=1, keepdims=True), 0.0)
        s = win.sum(axis=1)
        sx = (win * xx).sum(axis=1)
        sy = (win * yy).sum(axis=1)
        pos = s > 0
        i = ok[pos]
        out[i, 0] = x[i] + sx[pos] / s[pos]
        out[i, 1] = y[i] + sy[pos] / s[pos]
        return out

    def _core_rel(
        self, rel: np.ndarray, pts: np.ndarray, stat=np.mean, floor: float | None = None
    ) -> np.ndarray:
        """``stat`` (mean, median) of the relative brightness over each point's core
        (a square of 0.6 work radii either side).  ``floor`` (median only): a core whose
        brightest pixel is below it gives that pixel's value instead, below ``floor`` as
        its median is (a max costs a fraction of a median's partition, and most of the
        peaks asked about are cloth)."""
        r = max(1, int(round(0.6 * self.r_work)))
        out = np.empty(len(pts))
        h, w = rel.shape
        ip = np.round(pts).astype(int)
        todo = range(len(ip))
        if len(ip):
            x, y = ip[:, 0], ip[:, 1]
            inside = (x >= r) & (y >= r) & (x < w - r) & (y < h - r)
            if stat is np.mean and inside.all():  # the common case: one gather, a mean a row
                return _windows(rel, y - r, x - r, 2 * r + 1).mean(axis=1, dtype=np.float64)
            if stat is np.median and inside.any():
                # a row's median is the window's (the same partition and middle mean)
                i = np.flatnonzero(inside)
                win = _windows(rel, y[i] - r, x[i] - r, 2 * r + 1)
                if floor is None:
                    out[i] = np.median(win, axis=1)
                else:
                    top = win.max(axis=1)
                    need = top >= floor
                    out[i] = top
                    if need.any():
                        out[i[need]] = np.median(win[need], axis=1)
                todo = np.flatnonzero(~inside)
        for i in todo:
            x, y = ip[i]
            win = rel[max(0, y - r) : min(h, y + r + 1), max(0, x - r) : min(w, x + r + 1)]
            out[i] = stat(win)
        return out


_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(n: int) -> ThreadPoolExecutor:
    """The process's pool of ``n`` worker threads (made on first use, then kept; keyed by
    process id too: a forked child has none of its parent's threads)."""
    key = (os.getpid(), n)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = ThreadPoolExecutor(n, thread_name_prefix="luza-detect")
        return pool


def _on_streaks_xy(
    xy_mm: np.ndarray, score: np.ndarray, streaks: Detections, R_mm: float
) -> np.ndarray:
    """Blurred round detections (table mm, scores) lying on a streak (its ends, voting
    as balls)."""
    out = np.zeros(len(xy_mm), bool)
    for c, half in zip(streaks.xy_mm, streaks.blur_mm, strict=True):
        hl = float(np.hypot(*half))
        d = xy_mm - c
        along = np.abs(d @ half) / max(hl, 1e-9)
        across = np.abs(d[:, 0] * half[1] - d[:, 1] * half[0]) / max(hl, 1e-9)
        out |= (along <= hl + R_mm) & (across <= R_mm) & (score < STREAK_END_MAX_SCORE)
    return out


def _others(xy_px: np.ndarray, sel: np.ndarray, extra: np.ndarray | None) -> np.ndarray:
    """The balls not being refined (neighbours whose side of a rim is left out)."""
    rest = xy_px[~sel]
    if extra is not None and len(extra):
        rest = np.vstack([rest, extra])
    return rest


class _ChannelGradients:
    """Per-channel Sobel gradients of an image and, per pixel, the largest squared
    magnitude over the channels (``m``); :meth:`at` picks the strongest channel's
    ``gx, gy, m`` at a few flat pixel indices: the gradient of the channel with the
    strongest edge, for the strong edge pixels only (the ones anything looks at).
    Colour edges count: a red ball on green cloth may have no edge in brightness.

    ``margin``: pixels cut off each side after the filter (a patch read with a
    border, so the kept pixels' gradients are not the filter's border guesses).
    """

    def __init__(self, img: np.ndarray, margin: int = 0) -> None:
        # Sobel of the 8-bit image straight to float32: the same exact integer sums
        # as on a float copy, without the copy
        gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)
        self._full = (gx, gy)  # the filtered arrays whole: :meth:`at` reads them flat
        self._margin = margin
        if margin:
            gx = gx[margin:-margin, margin:-margin]
            gy = gy[margin:-margin, margin:-margin]
        m = gx * gx
        m += gy * gy  # in place: the same float32 sums, one array fewer
        self.shape = m.shape[:2]
        if m.ndim == 2:
            self._c = 1
            self.m = m
        else:
            self._c = m.shape[2]
            best = m[..., 0]
            for c in range(1, self._c):
                best = np.maximum(best, m[..., c])
            self.m = best
        self._g = (gx, gy, m)

    def at(self, flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``gx, gy, m`` of the strongest channel (the first one on a tie) at flat
        indices of ``shape``."""
        gx, gy, m = self._g
        if self._c == 1:
            return gx.ravel()[flat], gy.ravel()[flat], m.ravel()[flat]
        c = self._c
        mm = m.reshape(-1, c)[flat]  # ``m`` is a contiguous array of ``shape``
        k = mm.argmax(axis=1)
        src = flat
        if self._margin:  # the same pixels' flat indices in the whole filtered arrays
            mg = self._margin
            ys, xs = np.divmod(flat, self.shape[1])
            src = (ys + mg) * self._full[0].shape[1] + (xs + mg)
        idx = src * c + k
        fx, fy = self._full
        return fx.reshape(-1)[idx], fy.reshape(-1)[idx], mm[np.arange(len(k)), k]


def _strong_edges(
    img: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edge pixels of a patch (a pixel of border around a ``2k+1`` wide window)
    whose strongest channel's gradient exceeds ``EDGE_MIN_GRAD``, in row order: their
    column and row offsets from the window's centre (``xx, yy``, integers; rows past
    the first window continue downwards in a stack of patches), that channel's
    ``gx, gy`` and the gradient magnitude."""
    grads = _ChannelGradients(img, margin=1)
    cand = np.flatnonzero(grads.m > EDGE_MIN_GRAD * EDGE_MIN_GRAD)
    mag = np.sqrt(grads.m.ravel()[cand])
    strong = mag > EDGE_MIN_GRAD  # exactly the test on the square root
    cand, mag = cand[strong], mag[strong]
    gx, gy = grads.at(cand)[:2]
    row, col = np.divmod(cand, grads.shape[1])
    return col - k, row - k, gx, gy, mag


def _cover_bins(qx: np.ndarray, qy: np.ndarray) -> np.ndarray:
    """The sector (of ``COVER_BINS``) of each rim point's direction from the centre."""
    ang = np.arctan2(qy, qx)
    return ((ang + math.pi) / (2 * math.pi) * COVER_BINS).astype(int) % COVER_BINS


def _windows(img: np.ndarray, ys: np.ndarray, xs: np.ndarray, size: int) -> np.ndarray:
    """The ``size`` x ``size`` windows of a 2-D image whose top-left corners are at
    ``(ys, xs)`` (all inside), one flattened window a row."""
    w = img.shape[1]
    dy, dx = np.divmod(np.arange(size * size), size)
    return img.ravel()[(ys * w + xs)[:, None] + (dy * w + dx)[None, :]]


def _limb_shapes(
    camera: CameraModel, grid_mm: np.ndarray, centre_px: np.ndarray, R: float, radius_px
) -> tuple[np.ndarray, np.ndarray]:
    """The silhouette of a ball at each table point of ``grid_mm`` (its centre seen at
    ``centre_px``): the limb (the circle where the camera's rays touch the sphere)
    projected, as an ellipse ``x^T N x = 1`` in units of the expected radius
    ``radius_px`` (``N`` as ``(Nxx, Nxy, Nyy)``), and its mean radius in those units.
    Seen off the optical axis a ball's image is stretched towards the image centre's
    side and away from it (by ~5 % a metre off the axis at three metres): a rim arc
    fitted with a round radius moves the centre."""
    o = np.asarray(camera.centre_world, float)
    k = np.linspace(0.0, 2.0 * np.pi, 32, endpoint=False)
    shapes, means = [], []
    for (x, y), cp, r_px in zip(grid_mm, centre_px, radius_px, strict=True):
        c = np.array([x, y, -R])  # world z points down into the bed
        v = o - c
        dist = float(np.linalg.norm(v))
        v /= dist
        a = np.cross(v, [0.0, 0.0, 1.0] if abs(v[2]) < 0.9 else [1.0, 0.0, 0.0])
        a /= np.linalg.norm(a)
        b = np.cross(v, a)
        rho = R * math.sqrt(max(0.0, 1.0 - (R / dist) ** 2))
        limb = c + (R * R / dist) * v + rho * (np.cos(k)[:, None] * a + np.sin(k)[:, None] * b)
        px = camera.project(limb[:, :2], -limb[:, 2]).reshape(-1, 2)
        q = (px - cp) / r_px
        # least squares N: qx^2 Nxx + 2 qx qy Nxy + qy^2 Nyy = 1
        A = np.stack([q[:, 0] ** 2, 2 * q[:, 0] * q[:, 1], q[:, 1] ** 2], axis=1)
        n, *_ = np.linalg.lstsq(A, np.ones(len(q)), rcond=None)
        shapes.append(n)
        means.append(float(np.hypot(q[:, 0], q[:, 1]).mean()))
    return np.array(shapes), np.array(means)


def _limb_stretch(shape: np.ndarray, ux: np.ndarray, uy: np.ndarray) -> np.ndarray:
    """A ball's silhouette radius along unit directions ``(ux, uy)``, in units of its
    expected radius (``shape``: one ``(Nxx, Nxy, Nyy)`` or one row per direction)."""
    shape = np.asarray(shape, float)
    nxx, nxy, nyy = (shape[..., 0], shape[..., 1], shape[..., 2])
    return 1.0 / np.sqrt(np.maximum(nxx * ux * ux + 2 * nxy * ux * uy + nyy * uy * uy, 1e-6))


def _median(values: list[float]) -> float:
    """``np.median`` of a list of finite numbers (the same value: the middle one, or the
    mean of the middle two), without its generic machinery."""
    a = np.array(values, dtype=np.float64)
    k = len(a) // 2
    if len(a) % 2:
        return float(np.partition(a, k)[k])
    p = np.partition(a, (k - 1, k))
    return float((p[k - 1] + p[k]) / 2.0)


def _circle_fit_one(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple | None:
    """:func:`_circle_fits` of one ball's points: ``(cx, cy, r)``, None when degenerate
    (the same normal equations and solver, without the per-ball bookkeeping)."""
    if not len(x):
        return None
    d = np.empty((len(x), 4))
    d[:, 0], d[:, 1], d[:, 2], d[:, 3] = x, y, 1.0, x * x + y * y
    mom = (d * w[:, None]).T @ d
    try:
        sol = np.linalg.solve(mom[None, :3, :3], mom[None, :3, 3:])[0, :, 0]
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(mom[:3, :3], mom[:3, 3], rcond=None)[0]
    cx, cy = float(sol[0]) / 2, float(sol[1]) / 2
    r2 = float(sol[2]) + cx * cx + cy * cy
    if not (math.isfinite(r2) and r2 > 0):
        return None
    return cx, cy, math.sqrt(r2)


def _circle_fits(
    x: np.ndarray, y: np.ndarray, w: np.ndarray, ball: np.ndarray, n: int
) -> np.ndarray:
    """Weighted algebraic (Kasa) circle fits of the points of each of ``n`` balls
    (``ball``: each point's ball, in ascending order): (cx, cy, r) rows, NaN for a
    ball without points or with a degenerate fit.

    Unlike the mean of fixed-radius votes it does not need the radius, so an
    unevenly lit rim (one side weaker) does not pull the centre.  The least-squares
    solution of ``[x y 1] . (a, b, c) = x^2 + y^2`` by its normal equations, whose
    sums come from one product per point and one segment sum per ball.
    """
    out = np.full((n, 3), np.nan)
    if not len(x):
        return out
    d = np.empty((len(x), 4))
    d[:, 0], d[:, 1], d[:, 2], d[:, 3] = x, y, 1.0, x * x + y * y
    dw = d * w[:, None]
    if ball[0] == ball[-1]:  # one ball (the common case): one product
        balls = ball[:1]
        mom = (dw.T @ d)[None]
    else:
        starts = np.concatenate(([0], np.flatnonzero(ball[1:] != ball[:-1]) + 1))
        balls = ball[starts]
        # sum w d d^T, its first three rows only (all the solve reads)
        mom = np.add.reduceat(dw[:, :3, None] * d[:, None, :], starts, axis=0)
    try:
        sol = np.linalg.solve(mom[:, :3, :3], mom[:, :3, 3:])[..., 0]
    except np.linalg.LinAlgError:  # a singular system (never with a full rim): one by one
        sol = np.array([np.linalg.lstsq(m[:3, :3], m[:3, 3], rcond=None)[0] for m in mom])
    cx, cy = sol[:, 0] / 2, sol[:, 1] / 2
    r2 = sol[:, 2] + cx * cx + cy * cy
    ok = np.isfinite(r2) & (r2 > 0)
    out[balls[ok]] = np.stack([cx[ok], cy[ok], np.sqrt(r2[ok])], axis=1)
    return out
