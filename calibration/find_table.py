"""Find the table in a fixed camera's view: bed, cushion noses, camera, markings, head.

Steps (each a plain function on numpy arrays):

1. ``median_background``: the median of several frames (what moves is not the table).
2. ``segment_cloth``: the cloth colour by clustering the image centre, the connected
   region of that colour around it (any cloth colour), filled.
3. ``rough_quad``: four corners of that region's hull (CCW in the image).
4. ``nose_edge_points``: along each side, the first strong edge met walking out from
   the bed (the cushion nose), sub-pixel, then a robust curve fit (RANSAC).
5. ``fit_camera``: a bundle adjustment of focal length, radial distortion
   (plumb-line: the noses are straight) and pose, with the nose points on the plane
   at the cushion-nose height and the markings (spots, lines) on the cloth -- their
   parallax fixes the camera height; a weak focal-length prior keeps it defined.
6. ``measure_markings`` under both head/foot hypotheses: the house line (and any
   asymmetric marking) tells the head end from the foot end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from scipy.optimize import least_squares

from luza.calibration.calib import CalibrationError
from luza.calibration.camera import CameraModel
from luza.calibration.lens import plumb_line, undistort_norm
from luza.calibration.profiles import TableProfile

SEGMENT_WIDTH_PX = 480  # cloth segmentation runs on a copy this wide
MAX_BACKGROUND_FRAMES = 15
STILL_SHIFT_PX = 2.0  # a frame shifted more than this from the first is left out
STILL_PEAK_FRACTION = 0.8
FOCAL_PRIOR_FRAC = 0.72  # focal length / image width of a typical overhead camera
FOCAL_PRIOR_LOG_SIGMA = 0.35
EDGE_SAMPLES_LONG = 80
EDGE_SAMPLES_SHORT = 40
RANSAC_THRESHOLD_PX = 2.0
MARK_SEARCH_MM = 30.0  # how far from its expected place a marking is looked for
SPOT_MAX_RESIDUAL_MM = 5.0
ASPECT_TOLERANCE = 0.25
ASPECT_UNCERTAINTY = 0.005  # a real table's bed aspect ratio, as far as a profile knows it
ASPECT_FREE_WITHOUT_MARKINGS = True
K2_PRIOR_SIGMA = 0.05
BUNDLE_LOSS = "cauchy"  # robust loss of the bundle adjustment (see _bundle)
NOSE_EDGE_DROP_MM = 0.0  # the located edge (the face's outer end) is at the nose top
HEAD_FRAMES = 6  # single frames also searched for the head-end markings
HEAD_MARK_MAX_OFFSET_MM = 20.0  # a head-end marking further off is something else
FAINT_LINE_POSITIONS = 60  # positions along a faint line whose responses are pooled
FAINT_LINE_MIN_SIGNIFICANCE = 10.0  # a faint line this significant at one end only decides
EDGE_BLUR_PX = 0.6  # Gaussian sigma before edge profiles (small: less bias on uneven edges)
NOSE_WINDOW_CW = 2.2  # the nose is looked for up to this many cushion widths inside the rail
EDGE_TRIM_PX = 1.5  # edge points further than this from the fitted nose are dropped
CHROMA_MIN = 0.035  # rgb-chromaticity distance always accepted as "the cloth colour"
CLOTH_MIN_BRIGHTNESS = 0.3  # of the centre: darker than this is not the cloth
EDGE_CHUNK = 6  # profiles averaged to locate the nose before each is refined
EDGE_WINDOW_PX = 3.0  # a profile's own peak is looked for this close to the chunk's
# The nose is the outer end of its edge, not the gradient peak: seen from above, the
# face under the nose is a shaded band a few px wide that brightens towards the nose, and
# the gradient can peak part-way up it (inside the nose line).  The outer half-maximum of
# the gradient lies at the band's outer end plus the blur's half-width (1.18 sigma of
# render blur + EDGE_BLUR_PX + the pixel): measured 1.08 px outside the nose line on
# tuning seeds 0-20 (current renderer), which is taken off.
EDGE_HALF_WIDTH_PX = 1.08
# The half-width above is right on average, but the located edge still moves with the
# width of the shaded face under the nose as seen in the image (``face_band_px``: the
# nose height times the side's horizontal distance from the camera over the camera's
# height) and with the image scale: a narrow band (a long side seen nearly straight
# down) merges the face's brightening with the nose's step and the edge is found inside
# the nose; a wide band (a short side seen obliquely) puts it outside, more so in a
# coarse image.  Measured on tuning seeds 0-59 (140 sides, 35 views): offset (px,
# positive inside the nose) ~ A + B * mm_per_px + C * band_mm, from about +0.2 px
# (720p long side) to -0.35 px (1080p short side), residual 0.18 px rms (was 0.29).
# Uncorrected, the short sides' offset against the long sides' reads as an aspect error
# that k2 and the camera height absorb (a 720p view: height +18 %, bed ends 7 mm off).
EDGE_OFFSET_A_PX = -0.46
EDGE_OFFSET_B = 0.30  # px of offset per mm/px of image scale
EDGE_OFFSET_C_PX_PER_MM = -0.024  # px of offset per mm of face in view
EDGE_BAND_MAX_MM = 45.0  # no extrapolation beyond what was measured
EDGE_BAND_ITERATIONS = 2
EDGE_NOISE_K = 5.0  # an edge is this many robust sigmas above the cloth texture
TANGENT_AVG_PX = 10.0  # half-length along the side over which edge profiles are averaged
CUSHION_CHROMA_TOL = 0.05  # rgb-chromaticity distance within which the cushion is the bed's cloth
# A colour change this big (rgb chromaticity) over this many cushion widths is the rail,
# even when the frame beyond it differs more still (LukasSeglias video_12: a red-brown rail
# 0.2-0.27 from the cloth, 1.3 cushion widths in view, then a near-black red edge at 0.84).
# The run is long: the shaded face under a nose can differ as much over ~0.4 widths.
RAIL_CHROMA_CLEAR = 0.15
RAIL_CLEAR_RUN_CW = 0.8
# An overhead camera further above the table than this many table lengths is a wrong fit
# (a nose taken on a shaded face: focal 6854 px, 11.4 m above a 1.9 m table, k2 -236).
MAX_HEIGHT_TABLE_LENGTHS = 4.0
SIDES = ("head", "right", "foot", "left")  # quad sides in order, see _side_model


@dataclass
class TableFit:
    camera: CameraModel
    quality: dict = field(default_factory=dict)
    edge_points: dict = field(default_factory=dict)  # side -> (N, 2) distorted px


# ------------------------------------------------------------------ input frames
def as_frames(frames: Sequence[np.ndarray] | np.ndarray) -> list[np.ndarray]:
    if isinstance(frames, np.ndarray):
        if frames.ndim == 4:
            frames = list(frames)
        elif frames.ndim in (2, 3):
            frames = [frames]
        else:
            raise CalibrationError(f"a frame must be an HxW(x3) image, got shape {frames.shape}")
    out = []
    for f in frames:
        f = np.asarray(f)
        if f.ndim == 2:
            f = cv2.cvtColor(f, cv2.COLOR_GRAY2BGR)
        if f.ndim != 3 or f.shape[2] != 3 or min(f.shape[:2]) < 64:
            raise CalibrationError(f"a frame must be a BGR image, got shape {f.shape}")
        if f.dtype != np.uint8:
            f = np.clip(f, 0, 255).astype(np.uint8)
        out.append(f)
    if not out:
        raise CalibrationError("no frames to calibrate from")
    if len({f.shape for f in out}) > 1:
        raise CalibrationError("frames differ in size")
    return out


def median_background(frames: list[np.ndarray]) -> np.ndarray:
    if len(frames) == 1:
        return frames[0]
    idx = np.linspace(0, len(frames) - 1, min(len(frames), MAX_BACKGROUND_FRAMES)).astype(int)
    return np.median(np.stack([frames[i] for i in idx]), axis=0).astype(np.uint8)


def still_frames(frames: list[np.ndarray]) -> list[np.ndarray]:
    """The frames taken from where the first one was: a handheld or knocked camera
    moves the whole image, and a median over moved frames smears the table.  Each
    frame's shift from the first is measured by phase correlation (on a small grey
    copy; balls and people move, the table's edges dominate); frames shifted more than
    ``STILL_SHIFT_PX`` are left out."""
    if len(frames) < 2:
        return frames
    h, w = frames[0].shape[:2]
    s = min(1.0, SEGMENT_WIDTH_PX / w)
    size = (round(w * s), round(h * s))
    win = np.outer(np.hanning(size[1]), np.hanning(size[0])).astype(np.float32)

    def spectrum(f: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(cv2.resize(f, size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        g = g.astype(np.float32)
        return np.fft.rfft2((g - g.mean()) * win)

    ref = spectrum(frames[0])
    keep = [frames[0]]
    r = max(1, math.ceil(STILL_SHIFT_PX * s))  # small-image px around no shift
    for f in frames[1:]:
        cross = spectrum(f) * np.conj(ref)
        corr = np.fft.irfft2(cross / (np.abs(cross) + 1e-9), s=(size[1], size[0]))
        near = np.roll(np.roll(corr, r, axis=0), r, axis=1)[: 2 * r + 1, : 2 * r + 1]
        # still: the correlation at (about) no shift is (about) the best one; a cue or an
        # arm can make a far peak as high, a moved camera leaves none at no shift
        if float(near.max()) >= STILL_PEAK_FRACTION * float(corr.max()):
            keep.append(f)
    return keep


def check_light(img: np.ndarray) -> None:
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    p99 = float(np.percentile(grey, 99))
    if p99 < 40 or float(grey.std()) < 4.0:
        raise CalibrationError(
            f"the image is too dark or featureless to find a table (brightest 1% at {p99:.0f}/255)"
        )


# ------------------------------------------------------------------ segmentation
CLUSTER_MERGE_LAB = 8.0  # Lab distance (lightness weighted 0.35): clusters this close are one cloth


def segment_cloth(img: np.ndarray) -> tuple[np.ndarray, float]:
    """Filled mask of the cloth region (at a reduced scale) and that scale."""
    h, w = img.shape[:2]
    s = min(1.0, SEGMENT_WIDTH_PX / w)
    small = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).astype(np.float32)
    hs, ws = lab.shape[:2]
    y0, y1, x0, x1 = int(hs * 0.3), int(hs * 0.7), int(ws * 0.3), int(ws * 0.7)
    patch = lab[y0:y1, x0:x1].reshape(-1, 3)
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    cv2.setRNGSeed(1)
    _, labels, centres = cv2.kmeans(patch, 3, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    counts = np.bincount(labels.ravel(), minlength=3)
    big = int(np.argmax(counts))
    # An evenly lit, empty cloth splits into near-identical clusters: those whose
    # chromaticity is within CLUSTER_MERGE_LAB of the biggest are the same cloth
    # (lightness counts less: lamps fall off towards the rails).
    wl = np.array([0.35, 1.0, 1.0], np.float32)
    same = np.linalg.norm((centres - centres[big]) * wl, axis=1) < CLUSTER_MERGE_LAB
    in_cloth = same[labels.ravel()]
    if in_cloth.sum() < 0.35 * len(patch):
        raise CalibrationError("no table in view: the image centre has no dominant cloth colour")
    member = patch[in_cloth]
    c = member.mean(axis=0)

    def dist(wl: float) -> tuple[np.ndarray, float]:
        wts = np.array([wl, 1.0, 1.0], np.float32)
        spread = float(np.percentile(np.sqrt((((member - c) * wts) ** 2).sum(-1)), 90))
        return np.sqrt((((lab - c) * wts) ** 2).sum(-1)), spread

    # hysteresis: a tight colour match seeds the region, a looser one (less weight
    # on lightness: lamps fall off towards the rails) extends it
    d_tight, sp_tight = dist(0.35)
    strong = (d_tight < max(12.0, 3.0 * sp_tight)).astype(np.uint8)
    # loose: the cloth's chromaticity (r, g, b over their sum: lamps and vignetting
    # change brightness, not hue) and not much darker than the centre
    bgr = small.astype(np.float32) + 1.0
    chroma = bgr / bgr.sum(-1, keepdims=True)
    cpatch = chroma[y0:y1, x0:x1].reshape(-1, 3)[in_cloth]
    c_ref = np.median(cpatch, axis=0)
    c_spread = float(np.percentile(np.linalg.norm(cpatch - c_ref, axis=1), 90))
    c_dist = np.linalg.norm(chroma - c_ref, axis=-1)
    v = bgr.max(-1)
    v_ref = float(np.median(v[y0:y1, x0:x1]))
    weak = ((c_dist < max(CHROMA_MIN, 3.0 * c_spread)) & (v > CLOTH_MIN_BRIGHTNESS * v_ref)).astype(
        np.uint8
    )
    strong = cv2.morphologyEx(strong, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(strong, connectivity=4)
    central = lbl[y0:y1, x0:x1].ravel()
    central = central[central > 0]
    if central.size == 0:
        raise CalibrationError("no table in view: no cloth-coloured region at the image centre")
    keep = int(np.bincount(central).argmax())
    seed_mask = lbl == keep
    weak = cv2.morphologyEx(
        weak | seed_mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)
    )
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(weak, connectivity=4)
    ids = np.unique(lbl[seed_mask])
    ids = ids[ids > 0]
    mask = np.isin(lbl, ids).astype(np.uint8)
    k = max(3, ws // 40) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, [cnt], -1, 1, -1)
    if filled.sum() < 0.08 * hs * ws:
        raise CalibrationError("no table in view: the cloth region covers too little of the image")
    return filled, s


def rough_quad(mask: np.ndarray, scale: float) -> np.ndarray:
    """Four corners (full-res px) of the cloth region, counter-clockwise on screen."""
    hs, ws = mask.shape
    border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    if border.mean() > 0.6:
        raise CalibrationError(
            "no table in view: the centre's colour runs out to the whole image border "
            "(no cushions or rails around it)"
        )
    if border.mean() > 0.04:
        raise CalibrationError(
            "the table is cut off: the cloth reaches the image border "
            f"({100 * border.mean():.0f}% of the border); the whole bed must be in view"
        )
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(cnts, key=cv2.contourArea)).reshape(-1, 2).astype(float)
    (_, _), (rw_, rh_), ang = cv2.minAreaRect(hull.astype(np.float32))
    theta = math.radians(ang) + (0.0 if rw_ >= rh_ else math.pi / 2)
    axes = [
        np.array([math.cos(theta), math.sin(theta)]),
        np.array([-math.sin(theta), math.cos(theta)]),
    ]
    centre = hull.mean(axis=0)
    groups: dict[tuple[int, int], list[np.ndarray]] = {}
    for a, b in zip(hull, np.roll(hull, -1, axis=0), strict=True):
        seg = b - a
        ln = float(np.linalg.norm(seg))
        if ln < 2:
            continue
        for k, ax in enumerate(axes):
            if abs(float(np.dot(seg / ln, ax))) > math.cos(math.radians(20)):
                mid = (a + b) / 2 - centre
                side = int(np.dot(mid, axes[1 - k]) > 0)
                t = np.linspace(0, 1, max(2, int(ln)))[:, None]
                groups.setdefault((k, side), []).append(a + seg * t)
    if len(groups) < 4:
        raise CalibrationError("could not find four cushion sides around the cloth")
    fitted = {}
    for key, pts in groups.items():
        p = np.concatenate(pts).astype(np.float32)
        vx, vy, x0_, y0_ = cv2.fitLine(p, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        fitted[key] = (np.array([x0_, y0_]), np.array([vx, vy]))
    order = [(0, 0), (1, 1), (0, 1), (1, 0)]
    quad = np.array(
        [_line_intersect(*fitted[order[i]], *fitted[order[(i + 1) % 4]]) for i in range(4)]
    )
    # counter-clockwise on screen (y down): negative shoelace sum
    x, y = quad[:, 0], quad[:, 1]
    if np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) > 0:
        quad = quad[::-1]
    return (quad + 0.5) / scale - 0.5


# ------------------------------------------------------------------ edges
def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``img`` (HxWxC float32) at pts (..., 2)."""
    shp = pts.shape[:-1]
    flat = pts.reshape(-1, 2).astype(np.float32)
    n = len(flat)
    cols = 1024
    rows = max(1, -(-n // cols))
    m = np.zeros((rows * cols, 2), np.float32)
    m[:n] = flat
    m = m.reshape(rows, cols, 2)
    out = cv2.remap(img, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(rows * cols, -1)[:n].reshape(*shp, -1)


def _ransac_curve(t: np.ndarray, s: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Inlier mask of a cubic s(t) fitted by RANSAC."""
    n = len(t)
    best = np.zeros(n, bool)
    if n < 6:
        return best
    for _ in range(150):
        idx = rng.choice(n, 3, replace=False)
        try:
            c = np.polyfit(t[idx], s[idx], 2)
        except (np.linalg.LinAlgError, ValueError):
            continue
        inl = np.abs(np.polyval(c, t) - s) < RANSAC_THRESHOLD_PX
        if inl.sum() > best.sum():
            best = inl
    if best.sum() >= 6:
        c = np.polyfit(t[best], s[best], 2)
        best = np.abs(np.polyval(c, t) - s) < RANSAC_THRESHOLD_PX
    return best


def _nose_index(
    g: np.ndarray,
    sg: np.ndarray,
    chroma: np.ndarray,
    bright: np.ndarray,
    thr: float,
    cw_n: float,
    k_bed: int,
) -> int | None:
    """Index of the cushion nose in one (chunk-averaged) profile, bed first, outwards.

    The rail is where the cloth colour ends (chromaticity or brightness: the cushion
    is covered with the bed's cloth, the rail is wood).  The nose is then the
    outermost clear edge about one cushion width inside the rail: beyond it lies
    only the cushion top; inside it may be a darker band (the cushion's face below
    the nose, or the shadow under it, seen obliquely), which is not the nose.
    """
    n = len(g)
    ref_c = np.median(chroma[:k_bed], axis=0)
    ref_b = float(np.median(bright[:k_bed]))
    cdist = np.linalg.norm(chroma - ref_c, axis=1)
    run = max(6, int(0.25 * cw_n))
    dark = bright < CLOTH_MIN_BRIGHTNESS * ref_b

    def first_change(tol: float, run: int = run) -> int | None:
        not_cloth = (cdist > tol) | dark
        for k in range(k_bed, n - run):
            if not_cloth[k : k + run].all():
                return k
        return None

    # the rail differs from the cloth more than anything on the cushion does; but a
    # wood close to the cloth's colour (red cloth, mahogany) only differs by a little,
    # and then the big change is the floor beyond the rail, a rail width further out
    rc_big = first_change(max(CUSHION_CHROMA_TOL, 0.5 * float(cdist[k_bed:].max())))
    rc_clear = first_change(RAIL_CHROMA_CLEAR, max(run, int(RAIL_CLEAR_RUN_CW * cw_n)))
    if rc_clear is not None and (rc_big is None or rc_clear < rc_big):
        rc_big = rc_clear  # a clear rail before the biggest change
    rc_small = first_change(2.0 * CUSHION_CHROMA_TOL)
    rc = rc_big
    if rc_small is not None and (rc is None or rc - rc_small > 1.6 * cw_n):
        rc = rc_small
    if rc is None:
        return None
    lo_r, hi_r = max(0, rc - 6), min(n, rc + 4)
    rc = lo_r + int(np.argmax(g[lo_r:hi_r]))
    lo = max(1, int(rc - NOSE_WINDOW_CW * cw_n))
    hi = min(n - 1, int(rc - 0.35 * cw_n))
    peaks = [
        q for q in range(hi, lo - 1, -1) if g[q] > thr and g[q] >= g[q - 1] and g[q] >= g[q + 1]
    ]
    if not peaks:
        return None
    # seen from above the nose is dark-to-bright going outwards (the face or the
    # shadow under the nose inside, a lit rounded nose outside); prefer such an edge
    rising = [q for q in peaks if sg[q] > 0 and g[q] > 0.25 * max(g[p] for p in peaks)]
    return rising[0] if rising else peaks[0]


def _outer_edge(gj: np.ndarray, k: int, s: np.ndarray, ds: float) -> float | None:
    """Where the edge at gradient peak ``k`` ends on its outer side: the half-maximum
    crossing of the gradient, less the half-width a lone blurred step would have."""
    half = 0.5 * gj[k]
    q = k
    while q + 1 < len(gj) and gj[q + 1] > half:
        q += 1
    if q + 1 >= len(gj):
        return None
    frac = (gj[q] - half) / max(gj[q] - gj[q + 1], 1e-9)
    return float(s[q] + frac * ds) - EDGE_HALF_WIDTH_PX


def nose_edge_points(
    img: np.ndarray, quad: np.ndarray, profile: TableProfile, seed: int = 0
) -> dict[int, np.ndarray]:
    """Sub-pixel cushion-nose points along each side of ``quad`` (index -> (N, 2) px)."""
    f = cv2.GaussianBlur(img, (0, 0), EDGE_BLUR_PX).astype(np.float32)
    # rgb chromaticity: the cushion top is the bed's cloth, however it is lit
    lab = (f + 1.0) / (f.sum(-1, keepdims=True) + 3.0)
    rng = np.random.default_rng(seed)
    centre = quad.mean(axis=0)
    long_first = np.linalg.norm(quad[1] - quad[0]) > np.linalg.norm(quad[2] - quad[1])
    out: dict[int, np.ndarray] = {}
    lens = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = (b - a) / lens[i]
        n = np.array([-d[1], d[0]])
        if np.dot(centre - a, n) < 0:
            n = -n  # n points into the bed
        is_long = (i % 2 == 0) == long_first
        side_mm = profile.length_mm if is_long else profile.width_mm
        ppm = lens[i] / side_mm
        s_in = max(16.0, (profile.cushion_width_mm + 130.0) * ppm)
        s_out = max(8.0, (profile.cushion_width_mm + 0.5 * profile.rail_width_mm) * ppm) + (
            0.03 * lens[i]
        )
        ds = 0.5
        s = np.arange(-s_in, s_out, ds)  # positive: outwards
        m = EDGE_SAMPLES_LONG if is_long else EDGE_SAMPLES_SHORT
        t = np.linspace(0.05, 0.95, m)
        if is_long:
            t = t[np.abs(t - 0.5) > 0.045]
        base = a[None, :] + t[:, None] * (b - a)[None, :]
        pts = base[:, None, :] - s[None, :, None] * n[None, None, :]
        # each profile is the mean of parallel profiles a few pixels apart along the
        # side: the nose is straight at that scale, the cloth texture is not
        half = max(1.0, min(TANGENT_AVG_PX, 0.4 * lens[i] * (t[1] - t[0])))
        offs = np.linspace(-half, half, 2 * int(half) + 1)
        many = pts[:, :, None, :] + offs[None, None, :, None] * d[None, None, None, :]
        prof = _sample(f, many).mean(axis=2)  # (m, len(s), 3)
        g = np.sqrt((np.gradient(prof, ds, axis=1) ** 2).sum(-1))
        ab = _sample(lab, many).mean(axis=2)
        bright = prof.sum(-1)
        cw_n = profile.cushion_width_mm * ppm / ds
        found_t, found_s = [], []
        # the nose's offset from the rough line, from chunk-averaged profiles (the
        # texture averages out, the nose does not), then each profile's own peak near it
        chunks = [slice(c0, min(len(t), c0 + EDGE_CHUNK)) for c0 in range(0, len(t), EDGE_CHUNK)]
        gms = np.array([g[rows].mean(axis=0) for rows in chunks])
        k_bed = max(4, int(0.25 * len(s)))
        inner_m = gms[:, :k_bed]
        med_m = float(np.median(inner_m))
        mad_m = float(np.median(np.abs(inner_m - med_m))) * 1.4826
        thr_m = max(med_m + EDGE_NOISE_K * mad_m, 0.5)
        for rows, gm in zip(chunks, gms, strict=True):
            br_m = bright[rows].mean(axis=0)
            kc = _nose_index(gm, np.gradient(br_m), ab[rows].mean(axis=0), br_m, thr_m, cw_n, k_bed)
            if kc is None:
                continue
            win = max(2, int(EDGE_WINDOW_PX / ds))
            for j in range(rows.start, rows.stop):
                lo, hi = max(1, kc - win), min(len(s) - 2, kc + win)
                gj = g[j]
                peaks = [q for q in range(lo, hi + 1) if gj[q] >= gj[q - 1] and gj[q] >= gj[q + 1]]
                if not peaks:
                    continue
                k = min(peaks, key=lambda q: abs(q - kc))  # this edge, not a neighbour
                if gj[k] < 0.5 * gm[kc]:
                    continue
                s_edge = _outer_edge(gj, k, s, ds)
                if s_edge is None:  # no outer flank in the window: the peak itself
                    y0, y1, y2 = g[j, k - 1], g[j, k], g[j, k + 1]
                    den = y0 - 2 * y1 + y2
                    off = 0.5 * (y0 - y2) / den if den < 0 else 0.0
                    s_edge = s[k] + off * ds
                found_t.append(t[j] * lens[i])
                found_s.append(s_edge)
        if len(found_t) < 6:
            out[i] = np.zeros((0, 2))
            continue
        ft, fs = np.array(found_t), np.array(found_s)
        inl = _ransac_curve(ft, fs, rng)
        pts_px = a[None, :] + ft[inl, None] * d[None, :] - fs[inl, None] * n[None, :]
        out[i] = pts_px
    return out


def face_band_mm(cam: CameraModel, profile: TableProfile, side: int) -> float:
    """Width (mm on the bed plane) of the face under the nose of quad side ``side`` as
    ``cam`` sees it: the nose height times the side's horizontal distance from the
    camera over the camera's height above the nose."""
    ax, v = _side_model(profile)[side]
    hn = _edge_height(profile)
    C = cam.centre_world
    inward = 1.0 if v == 0.0 else -1.0
    dist_mm = (C[ax] - v) * inward  # the camera's horizontal distance inside the side line
    band = hn * dist_mm / max(-C[2] - hn, 1.0)
    return float(np.clip(band, 0.0, EDGE_BAND_MAX_MM))


def edge_offset_px(band_mm: float, mm_per_px: float) -> float:
    """Expected offset of a located nose edge from the nose line (px, positive inside)."""
    return EDGE_OFFSET_A_PX + EDGE_OFFSET_B * mm_per_px + EDGE_OFFSET_C_PX_PER_MM * band_mm


def _band_corrected(
    edges: dict[int, np.ndarray], cam: CameraModel, profile: TableProfile
) -> dict[int, np.ndarray]:
    """Edge points moved across their nose by the offset expected for that side."""
    hn = _edge_height(profile)
    out = {}
    for i, pts in edges.items():
        if len(pts) == 0:
            out[i] = pts
            continue
        ax, v = _side_model(profile)[i]
        mid = [profile.length_mm / 2, profile.width_mm / 2]
        mid[ax] = v
        mm_px = cam.mm_per_px(tuple(mid), hn)
        off_px = edge_offset_px(face_band_mm(cam, profile, i), mm_px)
        xy = cam.unproject(pts, hn)
        inward = 1.0 if v == 0.0 else -1.0
        xy[:, ax] -= inward * off_px * mm_px  # outwards by the offset
        out[i] = cam.project(xy, hn)
    return out


# ------------------------------------------------------------------ camera model
def _rot_about_table(cam: CameraModel, L: float, W: float) -> CameraModel:
    """The same camera with the table frame turned 180 degrees (head <-> foot)."""
    R = cam.R @ np.diag([-1.0, -1.0, 1.0])
    t = cam.tvec + cam.R @ np.array([L, W, 0.0])
    return CameraModel(cam.K, cam.dist, cv2.Rodrigues(R)[0].ravel(), t, cam.image_size)


def _pose_from_homography(H: np.ndarray, K: np.ndarray, plane_h: float) -> tuple:
    """Pose (rvec, tvec) from a plane homography (plane z = -plane_h) and intrinsics."""
    M = np.linalg.solve(K, H)
    lam = 1.0 / np.linalg.norm(M[:, 0])
    if M[2, 2] * lam < 0:
        lam = -lam
    r1, r2, tp = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
    r3 = np.cross(r1, r2)
    U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, r3]))
    R = U @ Vt
    if np.linalg.det(R) < 0:
        R = U @ np.diag([1, 1, -1]) @ Vt
    t = tp + plane_h * R[:, 2]
    return cv2.Rodrigues(R)[0].ravel(), t


def _line_intersect(p1, d1, p2, d2) -> np.ndarray:
    A = np.column_stack([d1, -d2])
    st = np.linalg.solve(A, p2 - p1)
    return p1 + st[0] * d1


@dataclass
class _Obs:
    """Observations for the bundle adjustment (all in distorted pixels)."""

    edges: dict[int, np.ndarray]  # quad side index -> points on that cushion nose
    spots: dict[str, np.ndarray] = field(default_factory=dict)  # name -> px (height 0)
    lines: dict[str, np.ndarray] = field(default_factory=dict)  # name -> px points (height 0)
    # the table's width is a parameter too (log scale, last in p; prior ASPECT_UNCERTAINTY)
    aspect_free: bool = False


class _Model:
    """Camera parameters: log focal, kk1, kk2 (for f_ref), rvec, tvec."""

    def __init__(self, image_size, f_ref: float, hint: CameraModel | None):
        self.w, self.h = image_size
        self.f_ref = f_ref
        self.hint = hint

    def camera(self, p: np.ndarray) -> CameraModel:
        if self.hint is not None:
            return CameraModel(self.hint.K, self.hint.dist, p[0:3], p[3:6], (self.w, self.h))
        f = math.exp(p[0])
        r = f / self.f_ref
        K = np.array([[f, 0, self.w / 2.0], [0, f, self.h / 2.0], [0, 0, 1.0]])
        dist = np.array([p[1] * r**2, p[2] * r**4, 0, 0, 0])
        return CameraModel(K, dist, p[3:6], p[6:9], (self.w, self.h))

    def unproject(self, p: np.ndarray, px: np.ndarray, height: float) -> np.ndarray:
        """Smooth unprojection (fixed-iteration undistortion) for the optimiser."""
        cam = self.camera(p)
        if self.hint is not None:
            und = cam.undistort_px(px)
            xn = (und[:, 0] - cam.K[0, 2]) / cam.K[0, 0]
            yn = (und[:, 1] - cam.K[1, 2]) / cam.K[1, 1]
        else:
            f = cam.K[0, 0]
            xn, yn = undistort_norm(
                (px[:, 0] - self.w / 2.0) / f, (px[:, 1] - self.h / 2.0) / f, *cam.dist[:2]
            )
        rays = cam.R.T @ np.vstack([xn, yn, np.ones_like(xn)])
        C = cam.centre_world
        s = (-height - C[2]) / rays[2]
        return (C[:, None] + rays * s)[:2].T


def _edge_height(profile: TableProfile) -> float:
    """Height of the located cushion edge: the outer end of the shaded face under the
    nose is the nose line itself (``NOSE_EDGE_DROP_MM`` below the nose height, now 0)."""
    return profile.cushion_nose_height_mm - NOSE_EDGE_DROP_MM


def _side_model(profile: TableProfile) -> list[tuple[int, float]]:
    """For quad sides 0..3 (head, right, foot, left): (world axis, value) of the nose line."""
    L, W = profile.length_mm, profile.width_mm
    return [(0, 0.0), (1, W), (0, L), (1, 0.0)]


def _with_focal(model: _Model, p: np.ndarray, profile: TableProfile, f_new: float) -> np.ndarray:
    """Parameters with focal ``f_new`` and the camera moved along its line of sight to the
    table centre so that the table keeps its size in the image."""
    cam = model.camera(p)
    k = f_new / float(cam.K[0, 0])
    centre = np.array([profile.length_mm / 2, profile.width_mm / 2, 0.0])
    xc = cam.R @ centre + cam.tvec  # the table centre in camera coordinates
    t_new = k * xc - cam.R @ centre
    q = np.array(p, float)
    q[0] = math.log(f_new)
    q[6:9] = t_new
    return q


def _bundle(
    model: _Model,
    p0: np.ndarray,
    obs: _Obs,
    profile: TableProfile,
    mm_per_px: float,
    f_prior: float,
) -> tuple[np.ndarray, dict]:
    hn = _edge_height(profile)
    sides = _side_model(profile)
    spot_names = list(obs.spots)
    spot_mm = np.array([profile.spots[k] for k in spot_names]).reshape(-1, 2)
    spot_px = np.array([obs.spots[k] for k in spot_names]).reshape(-1, 2)

    def line_x(name: str) -> tuple[int, float]:
        (x0, y0), (x1, y1) = profile.lines[name]
        return (0, x0) if abs(x1 - x0) < abs(y1 - y0) else (1, y0)

    def res(p: np.ndarray) -> np.ndarray:
        out = []
        w_scale = math.exp(p[-1]) if obs.aspect_free else 1.0
        for i, pts in obs.edges.items():
            if len(pts) == 0:
                continue
            ax, v = sides[i]
            v = v * w_scale if ax == 1 else v
            out.append((model.unproject(p, pts, hn)[:, ax] - v) / mm_per_px)
        if obs.aspect_free:
            out.append(np.array([p[-1] / ASPECT_UNCERTAINTY]))
        for name, pts in obs.lines.items():
            ax, v = line_x(name)
            out.append((model.unproject(p, pts, 0.0)[:, ax] - v) / mm_per_px)
        if spot_names:
            out.append((model.camera(p).project(spot_mm, 0.0) - spot_px).ravel())
        if model.hint is None:
            out.append(
                np.array(
                    [(p[0] - math.log(f_prior)) / FOCAL_PRIOR_LOG_SIGMA, p[2] / K2_PRIOR_SIGMA]
                )
            )
        return np.concatenate(out)

    lo = np.full(len(p0), -np.inf)
    hi = np.full(len(p0), np.inf)
    if model.hint is None:
        lo[:3] = [math.log(0.15 * model.w), -1.0, -1.0]
        hi[:3] = [math.log(6.0 * model.w), 0.5, 1.0]
    p0 = np.clip(p0, lo + 1e-9, hi - 1e-9)
    # Cauchy, not Huber: a run of wrong edge points (strong barrel distortion bends a
    # short side's far end away from the rough line) must not bend k2 and the height
    sol = least_squares(
        res, p0, loss=BUNDLE_LOSS, f_scale=1.0, x_scale="jac", max_nfev=200, bounds=(lo, hi)
    )
    r = res(sol.x)
    info = {"cost": float(sol.cost), "residuals": r}
    return sol.x, info


# ------------------------------------------------------------------ markings
def _grey(img: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.GaussianBlur(g, (0, 0), 0.7)[..., None]


def measure_line(grey, cam: CameraModel, profile: TableProfile, name: str) -> dict | None:
    """Find a straight marked line on the cloth near where ``cam`` puts it."""
    (x0, y0), (x1, y1) = profile.lines[name]
    p0, p1 = np.array([x0, y0]), np.array([x1, y1])
    d = (p1 - p0) / np.linalg.norm(p1 - p0)
    n = np.array([-d[1], d[0]])
    t = np.linspace(0.06, 0.94, 40)
    # a thin line: the centre differs from both sides a few pixels away
    mm_px = cam.mm_per_px(tuple((p0 + p1) / 2), 0.0)
    side_mm = max(6.0, 4.0 * mm_px)
    step = 0.5
    k = int(round(side_mm / step))
    u = np.arange(-MARK_SEARCH_MM - 2 * side_mm, MARK_SEARCH_MM + 2 * side_mm + 0.01, step)
    world = p0 + t[:, None, None] * (p1 - p0) + u[None, :, None] * n
    px = cam.project(world.reshape(-1, 2), 0.0).reshape(len(t), len(u), 2)
    prof = _sample(grey, px)[..., 0]
    c = prof[:, k:-k]
    resp = c - 0.5 * (prof[:, : -2 * k] + prof[:, 2 * k :])
    mp = np.median(resp, axis=0)
    uu = u[k:-k]
    inside = np.abs(uu) <= MARK_SEARCH_MM
    sign = 1.0 if mp[inside].max() > -mp[inside].min() else -1.0
    mp = sign * mp
    j = int(np.argmax(np.where(inside, mp, -np.inf)))
    far = np.abs(np.arange(len(mp)) - j) > 1.5 * k
    rf = resp[:, far] if far.sum() >= 4 else resp
    noise = 1.4826 * float(np.median(np.abs(rf - np.median(rf)))) + 0.5
    sig = float(mp[j] / noise)
    if sig < 4.0 or mp[j] < 2.0:
        return {"significance": sig, "found": False}
    # per-position sub-pixel peaks near the common peak
    pts = []
    for row in sign * resp:
        lo, hi = max(1, j - 6), min(len(row) - 1, j + 7)
        q = lo + int(np.argmax(row[lo:hi]))
        if q <= 0 or q + 1 >= len(row) or row[q] < 0.5 * mp[j]:
            pts.append(None)
            continue
        a, b, cc = row[q - 1], row[q], row[q + 1]
        den = a - 2 * b + cc
        off = 0.5 * (a - cc) / den if den < 0 else 0.0
        pts.append(uu[q] + off * 0.5)
    keep = [i for i, v in enumerate(pts) if v is not None]
    if len(keep) < 8:
        return {"significance": sig, "found": False}
    wpts = np.array([p0 + t[i] * (p1 - p0) + pts[i] * n for i in keep])
    return {
        "significance": sig,
        "found": True,
        "offset_mm": float(np.median([pts[i] for i in keep])),
        "px": cam.project(wpts, 0.0),
    }


def line_evidence(grey, cam: CameraModel, profile: TableProfile, name: str) -> dict:
    """Matched filter for a faint marked line near where ``cam`` puts it (head or foot).

    Like :func:`measure_line` but for telling the head from the foot when the line is
    too faint to be measured (a worn pencil line, 1-2 grey levels): the thin-line
    response is taken at many positions along the expected line, their median (robust
    to balls, a rack or a cue over part of it) is searched within ``MARK_SEARCH_MM``
    of the expected place, and its significance is that median over the noise of a
    median of as many positions (from the positions' spread away from the peak).
    Returns ``contrast`` (grey levels, signed: negative for a dark line),
    ``offset_mm`` and ``significance``.
    """
    (x0, y0), (x1, y1) = profile.lines[name]
    p0, p1 = np.array([x0, y0]), np.array([x1, y1])
    d = (p1 - p0) / np.linalg.norm(p1 - p0)
    n = np.array([-d[1], d[0]])
    t = np.linspace(0.04, 0.96, FAINT_LINE_POSITIONS)
    mm_px = cam.mm_per_px(tuple((p0 + p1) / 2), 0.0)
    side_mm = max(6.0, 3.0 * mm_px)
    step = 0.5
    k = int(round(side_mm / step))
    u = np.arange(-MARK_SEARCH_MM - 2 * side_mm, MARK_SEARCH_MM + 2 * side_mm + 0.01, step)
    world = p0 + t[:, None, None] * (p1 - p0) + u[None, :, None] * n
    # each position is itself a short average along the line (a few mm of it)
    along = np.linspace(-0.4, 0.4, 5) * (t[1] - t[0]) * np.linalg.norm(p1 - p0)
    many = world[:, :, None, :] + along[None, None, :, None] * d
    px = cam.project(many.reshape(-1, 2), 0.0).reshape(len(t), len(u), len(along), 2)
    prof = _sample(grey, px)[..., 0].mean(axis=2)
    resp = prof[:, k:-k] - 0.5 * (prof[:, : -2 * k] + prof[:, 2 * k :])
    uu = u[k:-k]
    mp = np.median(resp, axis=0)
    inside = np.abs(uu) <= MARK_SEARCH_MM
    j = int(np.argmax(np.where(inside, np.abs(mp), -np.inf)))
    far = np.abs(np.arange(len(uu)) - j) > 2 * k
    rf = resp[:, far] if far.sum() >= 4 else resp
    sigma_one = 1.4826 * float(np.median(np.abs(rf - np.median(rf, axis=0))))
    sigma_med = 1.2533 * sigma_one / math.sqrt(len(t)) + 1e-3
    return {
        "contrast": round(float(mp[j]), 2),
        "offset_mm": round(float(uu[j]), 1),
        "significance": round(float(abs(mp[j]) / sigma_med), 1),
    }


def measure_spot(grey, cam: CameraModel, profile: TableProfile, name: str) -> dict | None:
    """Find a small round spot on the cloth near where ``cam`` puts it."""
    x, y = profile.spots[name]
    step = 1.0
    u = np.arange(-MARK_SEARCH_MM - 15, MARK_SEARCH_MM + 15.01, step)
    gx, gy = np.meshgrid(u, u)
    world = np.stack([x + gx, y + gy], -1)
    px = cam.project(world.reshape(-1, 2), 0.0).reshape(len(u), len(u), 2)
    patch = _sample(grey, px)[..., 0]
    sigma_mm = max(7.0, 1.6 * cam.mm_per_px((x, y), 0.0))
    log = -cv2.GaussianBlur(patch, (0, 0), sigma_mm) + cv2.GaussianBlur(
        patch, (0, 0), 2.5 * sigma_mm
    )
    m = 15
    core = log[m:-m, m:-m]
    sign = 1.0 if core.max() > -core.min() else -1.0
    core = sign * core
    iy, ix = np.unravel_index(int(np.argmax(core)), core.shape)
    noise = 1.4826 * float(np.median(np.abs(core - np.median(core)))) + 0.2
    sig = float(core[iy, ix] / noise)
    if sig < 6.0 or core[iy, ix] < 1.5:
        return {"significance": sig, "found": False}
    # sub-pixel by an intensity-weighted centroid of the positive response
    y0, y1 = max(0, iy - 4), min(core.shape[0], iy + 5)
    x0, x1 = max(0, ix - 4), min(core.shape[1], ix + 5)
    wgt = np.clip(core[y0:y1, x0:x1] - 0.5 * core[iy, ix], 0, None)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    cy = (wgt * yy).sum() / wgt.sum()
    cx = (wgt * xx).sum() / wgt.sum()
    wx = x + u[m] + cx * step
    wy = y + u[m] + cy * step
    return {
        "significance": sig,
        "found": True,
        "offset_mm": float(math.hypot(wx - x, wy - y)),
        "px": cam.project(np.array([wx, wy]), 0.0),
    }


def _faint_line_ends(
    greys: list[np.ndarray],
    cams: tuple[CameraModel, CameraModel],
    profile: TableProfile,
    names: list[str],
) -> dict:
    """:func:`line_evidence` of the head-end lines under both head/foot hypotheses
    (``cams``), the median over the background and single frames.  ``decisive`` when
    one end has a line at ``FAINT_LINE_MIN_SIGNIFICANCE`` or more and the other less
    than half that."""
    sig, con, off = [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]
    for k, cam in enumerate(cams):
        for name in names:
            ev = [line_evidence(g, cam, profile, name) for g in greys]
            s = [
                e["significance"] if abs(e["offset_mm"]) < HEAD_MARK_MAX_OFFSET_MM else 0.0
                for e in ev
            ]
            sig[k] += float(np.median(s))
            con[k] += float(np.median([e["contrast"] for e in ev]))
            off[k] = float(np.median([e["offset_mm"] for e in ev]))
    decisive = max(sig) >= FAINT_LINE_MIN_SIGNIFICANCE and min(sig) < 0.5 * max(sig)
    return {
        "lines": list(names),
        "significance": [round(v, 1) for v in sig],
        "contrast": [round(v, 2) for v in con],
        "offset_mm": [round(v, 1) for v in off],
        "decisive": bool(decisive),
    }


def _mirror_names(profile: TableProfile) -> tuple[list[str], list[str]]:
    """Marked lines and spots whose 180-degree image is not also marked (they tell head/foot)."""
    L, W = profile.length_mm, profile.width_mm

    def mirrored(p) -> tuple[float, float]:
        return (L - p[0], W - p[1])

    spots = [profile.spots[s] for s in profile.marked_spots]
    asym_spots = [
        s
        for s in profile.marked_spots
        if not any(np.hypot(*np.subtract(mirrored(profile.spots[s]), q)) < 20 for q in spots)
    ]
    asym_lines = []
    for name in profile.marked_lines:
        a, b = profile.lines[name]
        ma, mb = mirrored(a), mirrored(b)
        same = False
        for other in profile.marked_lines:
            c, d = profile.lines[other]
            for p, q in ((ma, mb), (mb, ma)):
                if np.hypot(*np.subtract(p, c)) < 20 and np.hypot(*np.subtract(q, d)) < 20:
                    same = True
        if not same:
            asym_lines.append(name)
    return asym_lines, asym_spots


def _image_side(cam: CameraModel, profile: TableProfile) -> str:
    """Where the head cushion is in the image: left, right, top or bottom."""
    head = cam.project(np.array([0.0, profile.width_mm / 2]), 0.0)
    mid = cam.project(np.array([profile.length_mm / 2, profile.width_mm / 2]), 0.0)
    dx, dy = head - mid
    if abs(dx) >= abs(dy):
        return "left" if dx < 0 else "right"
    return "top" if dy < 0 else "bottom"


# ------------------------------------------------------------------ main entry
def find_table(
    frames: Sequence[np.ndarray] | np.ndarray,
    profile: TableProfile,
    camera_hint: CameraModel | None = None,
    head: str | None = None,
    check: bool = True,
) -> TableFit:
    """Calibrate from frames of a fixed camera; ``check=False`` skips the final
    plausibility checks (for looking at a failed fit)."""
    t_start = time.perf_counter()
    frames_l = as_frames(frames)
    n_given = len(frames_l)
    frames_l = still_frames(frames_l)
    img = median_background(frames_l)
    h, w = img.shape[:2]
    check_light(img)
    if camera_hint is not None and tuple(camera_hint.image_size) != (w, h):
        raise CalibrationError(
            f"the camera file is for {camera_hint.image_size[0]}x{camera_hint.image_size[1]} "
            f"images, the video is {w}x{h}"
        )
    mask, scale = segment_cloth(img)
    quad = rough_quad(mask, scale)
    lens = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    if lens[0] + lens[2] > lens[1] + lens[3]:
        quad = np.roll(quad, -1, axis=0)  # side 0 is a short side
        lens = lens[1:] + lens[:1]
    ratio = (lens[1] + lens[3]) / (lens[0] + lens[2])
    if abs(ratio / profile.aspect - 1.0) > ASPECT_TOLERANCE:
        raise CalibrationError(
            f"wrong table profile? the table in view is about {ratio:.2f}:1, "
            f"profile '{profile.name}' is {profile.aspect:.2f}:1"
        )
    f_prior = FOCAL_PRIOR_FRAC * w
    if camera_hint is not None:
        f_prior = float(camera_hint.K[0, 0])
    model = _Model((w, h), f_prior, camera_hint)
    hn = _edge_height(profile)
    L, W = profile.length_mm, profile.width_mm
    world = np.array([[0, 0], [0, W], [L, W], [L, 0]], float)  # head-left, head-right, ...
    mm_per_px = (L + W) / (lens[0] + lens[1] + lens[2] + lens[3]) * 2.0

    def first_fit(quad_in: np.ndarray) -> tuple[np.ndarray, _Obs, list[int]]:
        """Nose points along ``quad_in``'s sides and a camera fitted to them.  One
        side may be missing (covered, or a poor first guess of the cloth's outline):
        the table's known size places it."""
        edges = nose_edge_points(img, quad_in, profile)
        missing = [i for i, pts in edges.items() if len(pts) < 6]
        if len(missing) > 1:
            raise CalibrationError(
                f"could not find the cushion nose along {len(missing)} sides of the table "
                "(covered, or too little contrast)"
            )
        have = [i for i in range(4) if i not in missing]
        # initial camera: plumb-line distortion, lines, homography, pose
        if camera_hint is None:
            kk1, kk2, _ = plumb_line([edges[i] for i in have], (w, h), f_prior)
        else:
            kk1 = kk2 = 0.0

        def undist(px: np.ndarray) -> np.ndarray:
            if camera_hint is not None:
                return camera_hint.undistort_px(px)
            x, y = undistort_norm(
                (px[:, 0] - w / 2) / f_prior, (px[:, 1] - h / 2) / f_prior, kk1, kk2
            )
            return np.column_stack([x * f_prior + w / 2, y * f_prior + h / 2])

        lines = []
        for i in range(4):
            if i in missing:  # the first guess of that side, for a start
                u = undist(np.array([quad_in[i], quad_in[(i + 1) % 4]]))
                lines.append((u[0], (u[1] - u[0]) / np.linalg.norm(u[1] - u[0])))
                continue
            u = undist(edges[i]).astype(np.float32)
            vx, vy, x0, y0 = cv2.fitLine(u, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
        corners_u = np.array(
            [_line_intersect(*lines[(i - 1) % 4], *lines[i]) for i in range(4)]
        )  # corner i starts side i
        Hm, _ = cv2.findHomography(world, corners_u)
        if Hm is None:
            raise CalibrationError("could not fit the table's outline")
        K0 = (
            camera_hint.K
            if camera_hint is not None
            else np.array([[f_prior, 0, w / 2], [0, f_prior, h / 2], [0, 0, 1.0]])
        )
        rvec, tvec = _pose_from_homography(Hm, K0, hn)
        if camera_hint is not None:
            p0 = np.concatenate([rvec, tvec])
        else:
            p0 = np.concatenate([[math.log(f_prior), kk1, kk2], rvec, tvec])
        obs = _Obs({i: edges[i] for i in have})
        p, _ = _bundle(model, p0, obs, profile, mm_per_px, f_prior)
        # drop edge points the fitted model disagrees with (an arm over a cushion, a
        # ball against it), then fit again
        for _ in range(2):
            kept = {}
            for i, pts in obs.edges.items():
                ax, v = _side_model(profile)[i]
                r = np.abs(model.unproject(p, pts, hn)[:, ax] - v) / mm_per_px
                sig = 1.4826 * float(np.median(r)) + 0.3
                keep = r < max(EDGE_TRIM_PX, 3.0 * sig)
                kept[i] = pts[keep] if keep.sum() >= 6 else pts
            obs.edges = kept
            p, _ = _bundle(model, p, obs, profile, mm_per_px, f_prior)
        return p, obs, missing

    p, obs, missing = first_fit(quad)
    if missing:
        # look again along the sides where the fitted camera puts them
        quad = model.camera(p).project(world, hn)
        p, obs, missing = first_fit(quad)
        if missing:
            raise CalibrationError(
                f"could not find the cushion nose along side {missing[0]} of the table "
                "(covered, or too little contrast)"
            )
    # the located edge's offset from the nose depends on how much of the face under the
    # nose is in view (see face_band_mm): correct each side for it and fit again
    located = dict(obs.edges)
    for _ in range(EDGE_BAND_ITERATIONS):
        obs.edges = _band_corrected(located, model.camera(p), profile)
        p, _ = _bundle(model, p, obs, profile, mm_per_px, f_prior)
    edges = dict(obs.edges)
    cam_a = model.camera(p)

    # ---- head or foot: the asymmetric markings under both hypotheses
    grey = _grey(img)
    cam_b = _rot_about_table(cam_a, L, W)
    asym_lines, asym_spots = _mirror_names(profile)
    # on the background and on single frames (a cue or an arm lying where a marking
    # would be under the wrong hypothesis is in few of them), near the expected place
    step = max(1, len(frames_l) // HEAD_FRAMES)
    greys = (
        [grey] + [_grey(f) for f in frames_l[::step][:HEAD_FRAMES]] if len(frames_l) > 1 else [grey]
    )

    def evidence(measure, cam: CameraModel, name: str) -> float:
        vals = []
        for g in greys:
            r = measure(g, cam, profile, name)
            ok = r["found"] and abs(r["offset_mm"]) < HEAD_MARK_MAX_OFFSET_MM
            vals.append(r["significance"] if ok else 0.0)
        return float(np.median(vals))

    score = [0.0, 0.0]
    for k, cam in enumerate((cam_a, cam_b)):
        for name in asym_lines:
            score[k] += evidence(measure_line, cam, name)
        for name in asym_spots:
            score[k] += evidence(measure_spot, cam, name)
    decided_by = "markings"
    faint: dict | None = None
    if not (max(score) > 0 and min(score) < 0.5 * max(score)) and asym_lines:
        # no line clear enough to measure: a faint one (a worn pencil line) may still
        # be seen at one end and not at the other
        faint = _faint_line_ends(greys, (cam_a, cam_b), profile, asym_lines)
    if max(score) > 0 and min(score) < 0.5 * max(score):
        use_b = score[1] > score[0]
    elif faint is not None and faint["decisive"]:
        use_b = faint["significance"][1] > faint["significance"][0]
        decided_by = "faint markings"
    else:
        use_b = None
        if head is not None:
            decided_by = "hint"
            want = head.lower()
            if want not in ("left", "right", "top", "bottom"):
                raise CalibrationError(f"--head must be left, right, top or bottom, not '{head}'")
            if _image_side(cam_a, profile) == want:
                use_b = False
            elif _image_side(cam_b, profile) == want:
                use_b = True
            else:
                raise CalibrationError(f"the table's head cushion cannot be at the {want}")
        else:
            decided_by = "assumed"
            # no evidence: the head at the image left (or top)
            use_b = _image_side(cam_a, profile) not in ("left", "top")
    if use_b:
        p_list = list(p)
        cam_b_p = cam_b
        if camera_hint is None:
            p = np.concatenate([p_list[:3], cam_b_p.rvec, cam_b_p.tvec])
        else:
            p = np.concatenate([cam_b_p.rvec, cam_b_p.tvec])
        obs.edges = {(i + 2) % 4: v for i, v in edges.items()}
    cam = model.camera(p)

    # ---- all markings, then the final bundle with their parallax
    found_marks: dict[str, dict] = {}
    for _round in range(2):
        obs.spots, obs.lines = {}, {}
        found_marks = {}
        for name in profile.marked_lines:
            r = measure_line(grey, cam, profile, name)
            if r and r["found"]:
                obs.lines[name] = r["px"]
                found_marks[f"line:{name}"] = r
        for name in profile.marked_spots:
            r = measure_spot(grey, cam, profile, name)
            if r and r["found"]:
                obs.spots[name] = r["px"]
                found_marks[f"spot:{name}"] = r
        p, info = _bundle(model, p, obs, profile, mm_per_px, f_prior)
        cam = model.camera(p)
    # drop spots the final model disagrees with (a ball on the spot, a stain)
    bad = []
    for name, px in list(obs.spots.items()):
        err = float(np.linalg.norm(cam.unproject(px, 0.0) - np.array(profile.spots[name])))
        if err > SPOT_MAX_RESIDUAL_MM:
            bad.append(name)
            del obs.spots[name]
            del found_marks[f"spot:{name}"]
    if bad:
        p, info = _bundle(model, p, obs, profile, mm_per_px, f_prior)
        cam = model.camera(p)

    aspect_scale = None
    if camera_hint is None and not found_marks and ASPECT_FREE_WITHOUT_MARKINGS:
        # no marking's parallax: the focal length would come from the outline's exact
        # aspect ratio alone, which a real table only matches to a fraction of a per
        # cent; let the width be off by that much and the focal prior speak
        obs.aspect_free = True
        # the valley along focal x aspect is flat: start from this fit and from the
        # prior's focal (the camera moved back along its axis to keep the table's size)
        starts = [np.append(p, 0.0), np.append(_with_focal(model, p, profile, f_prior), 0.0)]
        fits = [_bundle(model, p0, obs, profile, mm_per_px, f_prior) for p0 in starts]
        pe = min(fits, key=lambda fi: fi[1]["cost"])[0]
        obs.aspect_free = False
        p, aspect_scale = pe[:-1], float(math.exp(pe[-1]))
        cam = model.camera(p)
    # residuals against the table the camera was fitted to
    prof_q = profile if aspect_scale is None else replace(profile, width_mm=W * aspect_scale)
    quality = _quality(
        cam, prof_q, img, obs, found_marks, decided_by, score, camera_hint, len(frames_l)
    )
    if aspect_scale is not None:
        quality["camera"]["width_scale_fitted"] = round(aspect_scale, 4)
    if camera_hint is None and not found_marks:
        quality["camera"].update(_focal_spread(model, p, obs, profile, mm_per_px, f_prior))
    if faint is not None:
        # the matched filter at the end taken as the head and at the other end
        ends = (1, 0) if use_b else (0, 1)
        quality["head_end"]["faint_lines"] = {
            "lines": faint["lines"],
            "decisive": faint["decisive"],
            **{
                end: {key: faint[key][k] for key in ("significance", "contrast", "offset_mm")}
                for end, k in zip(("head", "foot"), ends, strict=True)
            },
        }
    if len(frames_l) < n_given:
        quality["frames_moved"] = n_given - len(frames_l)  # the camera moved: not used
    quality["seconds"] = round(time.perf_counter() - t_start, 3)
    if check:
        _sanity(cam, profile, quality)
        _matches_cloth(cam, profile, quad)
    return TableFit(cam, quality, obs.edges)


def _focal_spread(
    model: _Model, p: np.ndarray, obs: _Obs, profile: TableProfile, mm_per_px: float, f_prior
) -> dict:
    """With no markings on the cloth (no parallax), the focal length and the camera height
    come from the outline's perspective alone, i.e. from the table's aspect ratio, which
    a near-overhead view turns into a focal length very steeply (james-ecd: 0.5 % of
    aspect moves it 2x).  Refit with the width ``ASPECT_UNCERTAINTY`` off either way and
    report the range a real table's tolerance leaves open."""
    fs, hs = [], []
    for e in (-ASPECT_UNCERTAINTY, ASPECT_UNCERTAINTY):
        prof_e = replace(profile, width_mm=profile.width_mm * (1.0 + e))
        try:
            pe, _ = _bundle(model, p, obs, prof_e, mm_per_px, f_prior)
        except (ValueError, np.linalg.LinAlgError):
            continue
        cam_e = model.camera(pe)
        fs.append(float(cam_e.K[0, 0]))
        hs.append(float(-cam_e.centre_world[2]))
    cam = model.camera(p)
    fs.append(float(cam.K[0, 0]))
    hs.append(float(-cam.centre_world[2]))
    return {
        "focal_px_range": [round(min(fs), 1), round(max(fs), 1)],
        "height_mm_range": [round(min(hs), 1), round(max(hs), 1)],
        "range_for_aspect_off_by": ASPECT_UNCERTAINTY,
    }


def _quality(cam, profile, img, obs: _Obs, found_marks, decided_by, score, hint, n_frames) -> dict:
    hn = _edge_height(profile)
    sides = _side_model(profile)
    res_mm = []
    per_side = {}
    for i, pts in obs.edges.items():
        ax, v = sides[i]
        r = cam.unproject(pts, hn)[:, ax] - v
        res_mm.append(r)
        per_side[SIDES[i]] = int(len(pts))
    allr = np.concatenate(res_mm)
    edge_rms_mm = float(np.sqrt(np.mean(allr**2)))
    mm_px = cam.mm_per_px((profile.length_mm / 2, profile.width_mm / 2))
    marks_found, marks_missing = {}, []
    for name in profile.marked_lines:
        key = f"line:{name}"
        if key in found_marks:
            ax_v = profile.lines[name][0]
            xs = cam.unproject(obs.lines[name], 0.0)
            vert = abs(profile.lines[name][1][0] - ax_v[0]) < 1e-6
            d = xs[:, 0] - ax_v[0] if vert else xs[:, 1] - ax_v[1]
            marks_found[key] = {"residual_mm": round(float(np.sqrt(np.mean(d**2))), 2)}
        else:
            marks_missing.append(key)
    for name in profile.marked_spots:
        key = f"spot:{name}"
        if key in found_marks:
            e = np.linalg.norm(cam.unproject(obs.spots[name], 0.0) - profile.spots[name])
            marks_found[key] = {"residual_mm": round(float(e), 2)}
        else:
            marks_missing.append(key)
    # pockets: a dark hole where the model puts each one
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    cloth = float(
        np.median(
            _sample(
                grey[..., None],
                cam.project(
                    np.array(
                        [
                            [profile.length_mm * a, profile.width_mm * b]
                            for a in (0.3, 0.6, 0.7)
                            for b in (0.3, 0.7)
                        ]
                    ),
                    0.0,
                ),
            )
        )
    )
    pockets_found, pockets_missing = [], []
    for name, pk in profile.pockets().items():
        r = pk.spec.drop_radius_mm * 0.5
        ring = np.array(
            [
                [pk.centre[0] + r * math.cos(a), pk.centre[1] + r * math.sin(a)]
                for a in np.linspace(0, 2 * math.pi, 12, endpoint=False)
            ]
            + [pk.centre]
        )
        v = float(np.median(_sample(grey[..., None], cam.project(ring, hn))))
        (pockets_found if v < 0.7 * cloth else pockets_missing).append(name)
    C = cam.centre_world
    axis = cam.R.T @ np.array([0.0, 0.0, 1.0])
    tilt = math.degrees(math.acos(min(1.0, abs(axis[2]))))
    n_marks = len(profile.marked_spots) + len(profile.marked_lines)
    if hint is not None:
        focal_source = "camera file"
    elif found_marks:
        focal_source = "markings parallax + perspective + prior"
    else:
        focal_source = "perspective + prior (no markings found: camera height is a guess)"
    conf = 1.0
    conf *= min(1.0, 1.0 / max(edge_rms_mm / max(mm_px, 1e-6), 0.5))  # ~1 px rms or better
    if n_marks:
        conf *= 0.6 + 0.4 * len(marks_found) / n_marks
    if decided_by == "faint markings":
        conf *= 0.85
    elif decided_by != "markings":
        conf *= 0.6
    conf *= 0.7 + 0.3 * len(pockets_found) / 6
    return {
        "frames_used": n_frames,
        "edge_points": per_side,
        "edge_rms_mm": round(edge_rms_mm, 2),
        "edge_rms_px": round(edge_rms_mm / mm_px, 3),
        "mm_per_px_centre": round(mm_px, 3),
        "markings": {
            "found": marks_found,
            "missing": marks_missing,
            "fallback": "profile geometry" if marks_missing else None,
        },
        "pockets": {"found": pockets_found, "missing": pockets_missing},
        "head_end": {
            "image_side": _image_side(cam, profile),
            "decided_by": decided_by,
            "evidence": [round(s, 1) for s in score],
        },
        "camera": {
            "focal_px": round(float(cam.K[0, 0]), 1),
            "height_mm": round(float(-C[2]), 1),
            "tilt_deg": round(tilt, 2),
            "k1": round(float(cam.dist[0]), 4),
            "k2": round(float(cam.dist[1]), 4),
            "focal_source": focal_source,
        },
        "confidence": round(float(conf), 3),
    }


def _matches_cloth(cam: CameraModel, profile: TableProfile, quad: np.ndarray) -> None:
    """The fitted nose rectangle must lie in the image, where the cloth was found."""
    w, h = cam.image_size
    diag = float(np.hypot(w, h))
    corners = np.array(list(profile.bed_corners().values()))
    fitted = cam.project(corners, profile.cushion_nose_height_mm)
    margin = 0.02 * diag
    inside = bool((fitted > -margin).all() and (fitted < [w + margin, h + margin]).all())
    gap = min(float(np.abs(np.roll(fitted, r, axis=0) - quad).max()) for r in range(4))
    if not inside or gap > 0.08 * diag:
        raise CalibrationError(
            "the fitted table does not match the cloth region found in the image "
            "(cushions covered, or too little contrast at the cushion noses)"
        )


def _sanity(cam: CameraModel, profile: TableProfile, q: dict) -> None:
    w = cam.image_size[0]
    f = cam.K[0, 0]
    if not (0.15 * w < f < 6.0 * w) or q["camera"]["tilt_deg"] > 50:
        raise CalibrationError(
            "the fitted camera is implausible (focal "
            f"{f:.0f} px, tilt {q['camera']['tilt_deg']:.0f} deg): wrong table profile?"
        )
    height_mm = q["camera"]["height_mm"]
    if height_mm > MAX_HEIGHT_TABLE_LENGTHS * profile.length_mm:
        raise CalibrationError(
            f"the fitted camera is implausible ({height_mm / 1000:.1f} m above a "
            f"{profile.length_mm / 1000:.2f} m table, focal {f:.0f} px): a cushion nose was "
            "probably found on the wrong edge (a shadow, the rail): see it with --overlay"
        )
    if q["edge_rms_px"] > 4.0:
        raise CalibrationError(
            f"the cushion lines do not fit profile '{profile.name}' "
            f"(rms {q['edge_rms_px']:.1f} px): wrong profile or table not found"
        )
