"""Realistic overhead footage of a pyramid table, rendered per pixel from the camera model.

Pipeline (per :class:`Renderer`):

* once: every pixel of the *distorted* image gets its world ray (``CameraModel``'s
  intrinsics, distortion and pose); the rays are marched through a height field of
  the table built from the profile (bed, rounded cushion nose at
  ``cushion_nose_height_mm``, the cushion top sloping up to the wooden rail, six
  pocket holes cut by ``profile.pockets()``, the floor boards outside).  The hit
  points are shaded with the look's lamps (brighter centre, fall-off), textured
  (cloth nap and brushing, worn patches, chalk, wood grain, markings, sights),
  vignetted, blurred and gamma-encoded: the static background.
* per frame: each ball is ray-cast as a sphere in a small patch around it (exact
  perspective and parallax: centre at ``R + lift`` above the cloth; hidden where
  the table is in front of it, e.g. dropping into a pocket), shaded with the lamps
  (diffuse, specular highlights, cloth bounce, Fresnel, shadows of its neighbours),
  printed numbers or dots turning with ``BallPose.rotation``, with soft lamp
  shadows and contact occlusion on whatever surface lies under it; then people
  (cue, arms, hands, heads: :mod:`luza.samples.people`) with their shadows; then
  signal-dependent sensor noise.  ``render_exposure`` averages sub-frames in the
  regions of moving balls (and of a moving cue or hand) only.

Ball marks: ``1``..``15`` carry their number on two opposite poles (6 and 9
underlined); ``W1`` has a single dot and ``W2`` a pair of dots at each of the six
poles of the ball's body axes, so at least one mark is in view from any side.

Where a ball appears (the truth a detector is measured against): the centre of the
ball's silhouette in the image.  Under perspective the silhouette of a sphere is an
ellipse whose centre differs from the projected sphere centre
``camera.project([x, y], R + lift)`` by ``~f tan(theta) (R / Z)^2`` -- below 0.1 px for
these cameras -- so the projected sphere centre is the truth and
``tests/test_render_ball_centre.py`` checks the rendered silhouette against it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError
from luza.events import GAMES
from luza.physics.state import BallPose
from luza.samples import textures
from luza.samples.look import Look
from luza.samples.people import Capsule, Ellipsoid, flatten


class RenderError(LuzaError):
    """The renderer cannot be set up as asked (unknown game, unusable camera)."""


GAMMA = 2.2
FLOOR_DEPTH_MM = 780.0  # floor below the cloth
POCKET_DEPTH_MM = 110.0  # where the ray stops inside a pocket hole (the net)
RASTER_MM = 1.5  # cell size of the table's height/material maps
CUSHION_RISE_MM = 5.0  # cushion top: from the nose up to the rail
RAIL_ABOVE_CUSHION_MM = 2.0
NOSE_ROUND_MM = 7.0
OCCLUDER_SUBFRAMES = 4  # sub-frames for moving people in render_exposure
SPOT_RADIUS_MM = 6.0
LINE_WIDTH_MM = 2.0
MARK_DOT_RADIUS_MM = 5.0  # Five Ball W1/W2 dots
MARK_PAIR_GAP_MM = 14.0  # centre distance of W2's two dots
NUMBER_DECAL_HALF_ANGLE = 0.62  # rad: half-size of the printed number on the sphere

# Material ids in the table map.
M_FLOOR, M_APRON, M_RAIL, M_CUSHION, M_BED, M_HOLE, M_TRIM, M_SIGHT = range(8)


def _lin(rgb) -> np.ndarray:
    """Linear RGB tuple -> BGR float32 array."""
    r, g, b = rgb
    return np.array([b, g, r], np.float32)


def _smoothstep(e0, e1, x):
    u = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return u * u * (3.0 - 2.0 * u)


class Renderer:
    """Renders frames of one table seen by one camera with one look.

    ``game`` chooses how ball ids are painted ("free-pyramid": ``Y`` coloured, ``1``..``15``
    ivory with numbers; "five-ball": ``W1`` one dot, ``W2`` two dots, ``R1``/``R2`` red,
    ``K`` yellow).  Ids of both sets are understood whatever ``game`` says.
    """

    def __init__(
        self,
        profile: TableProfile,
        camera: CameraModel,
        look: Look | None = None,
        game: str = "free-pyramid",
        seed: int = 0,
    ) -> None:
        if game not in GAMES:
            raise RenderError(f"unknown game '{game}'; games: {', '.join(GAMES)}")
        w, h = camera.image_size
        if w < 16 or h < 16:
            raise RenderError(f"image size {w}x{h} is too small to render")
        self.profile = profile
        self.camera = camera
        self.look = look or Look()
        self.game = game
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._tints: dict[str, np.ndarray] = {}
        self.width, self.height = camera.image_size
        self._f = float(camera.K[0, 0])
        self._C = camera.centre_world.astype(np.float64)
        self._Rcw = camera.R.astype(np.float64)
        self._setup_lamps()
        self._gamma_lut = (np.linspace(0.0, 1.0, 4096) ** (1.0 / GAMMA) * 255.0).astype(np.float32)
        self._build_rays()
        self._build_table_maps()
        self._march()
        self._shade_background()
        # The table maps are only needed to build the background: free them.
        del self._H, self._mat, self._alb, self._ao_map, self._gx, self._gy, self._gloss_map
        self._setup_noise()

    # ------------------------------------------------------------------ set-up
    def _setup_lamps(self) -> None:
        L, W = self.profile.length_mm, self.profile.width_mm
        lamps = self.look.lamps
        self._lamp_pos = np.array(
            [[lp.x_frac * L, lp.y_frac * W, -lp.height_mm] for lp in lamps], np.float64
        )
        self._lamp_power = np.array([lp.power for lp in lamps], np.float64)
        self._lamp_cone = np.array([lp.cone_exp for lp in lamps], np.float64)
        self._lamp_radius = np.array([lp.radius_mm for lp in lamps], np.float64)
        self._href2 = float(np.mean([lp.height_mm for lp in lamps])) ** 2
        lc = np.array(self.look.light_rgb, np.float64)
        self._light = _lin(lc / lc.max())
        centre = np.array([[L / 2, W / 2, 0.0]])
        up = np.array([[0.0, 0.0, -1.0]])
        self._E0 = float(self._irradiance(centre, up).sum())
        self._cloth = _lin(self.look.cloth_rgb)

    def _irradiance(self, P: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Per-lamp irradiance (N, K) at points ``P`` (N, 3) with normals ``n`` (N, 3)."""
        if P.shape[0] > 20000:  # big arrays: lamp by lamp in float32, no (N, K, 3) temporaries
            P32 = P.astype(np.float32)
            n32 = n.astype(np.float32)
            out = np.empty((P.shape[0], len(self._lamp_pos)), np.float32)
            for k, Lk in enumerate(self._lamp_pos.astype(np.float32)):
                v = Lk[None, :] - P32
                d2 = np.einsum("nc,nc->n", v, v)
                inv = 1.0 / np.sqrt(d2)
                cos_inc = np.maximum(np.einsum("nc,nc->n", v, n32) * inv, 0.0)
                cos_down = np.maximum(-v[:, 2] * inv, 0.0)
                out[:, k] = (
                    self._lamp_power[k]
                    * cos_down ** self._lamp_cone[k]
                    * cos_inc
                    * self._href2
                    / d2
                )
            return out
        v = self._lamp_pos[None, :, :] - P[:, None, :]  # to the lamp
        d2 = np.einsum("nkc,nkc->nk", v, v)
        inv = 1.0 / np.sqrt(d2)
        cos_inc = np.maximum(np.einsum("nkc,nc->nk", v, n) * inv, 0.0)
        cos_down = np.maximum(-v[..., 2] * inv, 0.0)
        cone = cos_down ** self._lamp_cone[None, :]
        return self._lamp_power[None, :] * cone * cos_inc * self._href2 / d2

    def _build_rays(self) -> None:
        w, h = self.width, self.height
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        und = self.camera.undistort_px(np.stack([u, v], -1).reshape(-1, 2))
        Kinv = np.linalg.inv(self.camera.K)
        rc = (Kinv[:, :2] @ und.T) + Kinv[:, 2:3]
        rw = self._Rcw.T @ rc
        rw /= np.linalg.norm(rw, axis=0, keepdims=True)
        self._rays = np.ascontiguousarray(rw.T.reshape(h, w, 3).astype(np.float32))
        # Vignetting: relative illumination falls towards the image corners.
        cx, cy = self.camera.K[0, 2], self.camera.K[1, 2]
        rr = ((u - cx) ** 2 + (v - cy) ** 2) / (0.25 * (w * w + h * h))
        vig = (1.0 - self.look.vignetting * rr) / (1.0 + 0.15 * self.look.vignetting * rr)
        self._vig = np.clip(vig, 0.05, 1.0).astype(np.float32)

    def _build_table_maps(self) -> None:
        """Height (mm), material and albedo maps of the table on a raster in table mm."""
        pr, look = self.profile, self.look
        rng = self._rng
        L, W = pr.length_mm, pr.width_mm
        cw, rw = pr.cushion_width_mm, pr.rail_width_mm
        margin = cw + rw + 60.0
        c = RASTER_MM
        self._ox, self._oy = -margin, -margin
        nx = int(math.ceil((L + 2 * margin) / c))
        ny = int(math.ceil((W + 2 * margin) / c))
        X = (self._ox + (np.arange(nx) + 0.5) * c).astype(np.float32)[None, :]
        Y = (self._oy + (np.arange(ny) + 0.5) * c).astype(np.float32)[:, None]
        X = np.broadcast_to(X, (ny, nx))
        Y = np.broadcast_to(Y, (ny, nx))
        dx = np.maximum(np.maximum(-X, X - L), 0.0)
        dy = np.maximum(np.maximum(-Y, Y - W), 0.0)
        d = np.maximum(dx, dy)  # distance outside the bed (square rings)
        nose = pr.cushion_nose_height_mm
        top = nose + 0.45 * NOSE_ROUND_MM + CUSHION_RISE_MM
        rail_h = top + RAIL_ABOVE_CUSHION_MM
        outer = cw + rw
        H = np.zeros((ny, nx), np.float32)
        mat = np.full((ny, nx), M_BED, np.uint8)
        cush = (d > 0) & (d <= cw)
        # Cushion: the nose (its outermost line, what the camera sees as the cushion's
        # edge) at exactly `cushion_nose_height_mm`; the rubber rounds up behind it and
        # the top slopes up to the rail.
        dn = np.clip(d / NOSE_ROUND_MM, 0.0, 1.0)
        nose_profile = nose + 0.45 * NOSE_ROUND_MM * (1.0 - (1.0 - dn) ** 2)
        slope = CUSHION_RISE_MM * _smoothstep(0.0, 1.0, d / cw)
        H[cush] = (nose_profile + slope)[cush]
        mat[cush] = M_CUSHION
        rail = (d > cw) & (d <= outer)
        edge = np.clip((outer - d) / 12.0, 0.0, 1.0)
        H[rail] = (rail_h - 8.0 * (1.0 - np.sqrt(1.0 - (1.0 - edge) ** 2)))[rail]
        mat[rail] = M_RAIL
        out = d > outer
        H[out] = -FLOOR_DEPTH_MM
        mat[out] = M_FLOOR

        # Pockets: the channel between the jaws and the drop hole.
        def to_px(pts):
            a = np.asarray(pts, np.float64)
            return np.round(
                np.column_stack([(a[:, 0] - self._ox) / c - 0.5, (a[:, 1] - self._oy) / c - 0.5])
                * 16
            ).astype(np.int32)

        cut_channel = np.zeros((ny, nx), np.uint8)
        cut_hole = np.zeros((ny, nx), np.uint8)
        trim = np.zeros((ny, nx), np.uint8)
        for p in pr.pockets().values():
            ja, jb, cen = np.array(p.jaw_a), np.array(p.jaw_b), np.array(p.centre)
            inward = np.array(p.inward)
            across = np.array([-inward[1], inward[0]])
            rd = p.spec.drop_radius_mm
            # Order the jaws so the polygon does not cross itself.
            if np.dot(ja - jb, across) < 0:
                ja, jb = jb, ja
            poly = [ja, cen + across * rd * 0.97, cen - across * rd * 0.97, jb]
            cv2.fillPoly(cut_channel, [to_px(poly)], 1, cv2.LINE_8, shift=4)
            ctr = tuple(int(v) for v in to_px([cen])[0])
            cv2.circle(cut_hole, ctr, int(round(rd / c * 16)), 1, -1, cv2.LINE_8, shift=4)
            cv2.circle(trim, ctr, int(round((rd + 14.0) / c * 16)), 1, -1, cv2.LINE_8, shift=4)
        # Round the jaws a little (the cushion rubber is rounded at the pocket).
        k = max(1, int(round(3.0 / c)))
        cut_channel = cv2.morphologyEx(
            cut_channel,
            cv2.MORPH_CLOSE,
            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1,) * 2),
        )
        hole = (cut_hole > 0) | ((cut_channel > 0) & (d > 0) & (d <= outer))
        trim_m = (trim > 0) & rail & ~hole
        mat[trim_m] = M_TRIM
        H[trim_m] += 1.5
        H[hole] = -POCKET_DEPTH_MM
        mat[hole] = M_HOLE

        # Sights (diamonds) on the rails: mother-of-pearl inlays.
        sight = np.zeros((ny, nx), np.uint8)
        mid = cw + rw * 0.5
        for i in (1, 2, 3, 5, 6, 7):
            for yy in (-mid, W + mid):
                ctr = tuple(int(v) for v in to_px([(L * i / 8, yy)])[0])
                cv2.circle(sight, ctr, int(6.0 / c * 16), 1, -1, cv2.LINE_AA, shift=4)
        for i in (1, 2, 3):
            for xx in (-mid, L + mid):
                ctr = tuple(int(v) for v in to_px([(xx, W * i / 4)])[0])
                cv2.circle(sight, ctr, int(6.0 / c * 16), 1, -1, cv2.LINE_AA, shift=4)
        sight_m = (sight > 0) & (mat == M_RAIL)
        mat[sight_m] = M_SIGHT

        # Albedo (BGR linear).
        alb = np.zeros((ny, nx, 3), np.float32)
        cloth = _lin(look.cloth_rgb)
        nap = (
            0.55 * textures.value_noise(rng, (ny, nx), 4.0 / c)
            + 0.35 * textures.value_noise(rng, (ny, nx), 30.0 / c, octaves=2)
            + 0.45 * textures.value_noise(rng, (ny, nx), 260.0 / c, octaves=2)
        )
        # Brushing streaks along the table (the nap runs from head to foot).
        streak = textures.value_noise(rng, (ny, nx), 3.0 / c)
        streak = cv2.GaussianBlur(streak, (0, 0), sigmaX=25.0 / c, sigmaY=0.8)
        streak /= float(streak.std()) or 1.0
        tex = 1.0 + look.cloth_texture * (nap + 0.6 * streak)
        # Worn (lighter) areas around the spots and along the axis where balls roll most.
        wear = np.zeros((ny, nx), np.float32)
        for name in ("centre", "front", "rear"):
            if name in pr.spots:
                sx, sy = pr.spots[name]
                wear += np.exp(-((X - sx) ** 2 + (Y - sy) ** 2) / (2 * 140.0**2))
        wear += 0.5 * np.exp(-((Y - W / 2) ** 2) / (2 * 300.0**2))
        tex = tex * (1.0 + look.cloth_wear * wear)
        cloth_map = cloth[None, None, :] * tex[..., None]
        alb[:] = cloth_map
        # Cushion cloth is the same cloth, a touch darker where it wraps the rubber.
        alb[mat == M_CUSHION] *= 0.93
        # Markings on the bed.
        mark = np.zeros((ny, nx), np.uint8)
        for name in pr.marked_lines:
            (x0, y0), (x1, y1) = pr.lines[name]
            a, b = to_px([(x0, y0), (x1, y1)])
            cv2.line(
                mark,
                tuple(a),
                tuple(b),
                150,
                max(1, int(round(LINE_WIDTH_MM / c))),
                cv2.LINE_AA,
                shift=4,
            )
        for name in pr.marked_spots:
            ctr = tuple(int(v) for v in to_px([pr.spots[name]])[0])
            cv2.circle(mark, ctr, int(SPOT_RADIUS_MM / c * 16), 255, -1, cv2.LINE_AA, shift=4)
        # Chalk: a few faint blue smudges where cue tips touched the cloth.
        chalk = np.zeros((ny, nx), np.float32)
        for _ in range(look.chalk_marks):
            cx_mm = float(rng.uniform(60.0, L - 60.0))
            cy_mm = float(rng.uniform(60.0, W - 60.0))
            ctr = tuple(int(v) for v in to_px([(cx_mm, cy_mm)])[0])
            rad = int(rng.uniform(3.0, 9.0) / c * 16)
            cv2.circle(chalk, ctr, rad, float(rng.uniform(0.15, 0.5)), -1, cv2.LINE_AA, shift=4)
        chalk = cv2.GaussianBlur(chalk, (0, 0), 2.0 / c) * (mat == M_BED)
        chalk_rgb = _lin((0.05, 0.16, 0.45))
        alb = alb * (1.0 - chalk[..., None]) + chalk_rgb[None, None, :] * chalk[..., None]
        m = (mark.astype(np.float32) / 255.0) * (mat == M_BED)
        mcol = _lin(look.marking_rgb)
        alb = alb * (1.0 - m[..., None]) + mcol[None, None, :] * m[..., None]
        # Wood.
        wood = _lin(look.wood_rgb)
        along = np.where(dy > dx, X, Y)
        acr = np.where(dy > dx, Y, X)
        grain = textures.wood_grain(rng, along.astype(np.float32), acr.astype(np.float32), c)
        g = 1.0 + look.wood_grain * (2.0 * grain - 1.0)
        wood_map = wood[None, None, :] * g[..., None]
        is_wood = mat == M_RAIL
        alb[is_wood] = wood_map[is_wood]
        alb[mat == M_SIGHT] = np.array([0.62, 0.66, 0.66], np.float32)
        alb[mat == M_TRIM] = _lin(look.pocket_trim_rgb) * (
            1.0 + 0.15 * textures.value_noise(rng, (ny, nx), 4.0 / c)[mat == M_TRIM, None]
        )
        alb[mat == M_HOLE] = np.array([0.004, 0.004, 0.005], np.float32)
        floor = _lin(look.floor_rgb)
        fl = 1.0 + 0.25 * textures.value_noise(rng, (ny, nx), 40.0 / c, octaves=2)
        alb[mat == M_FLOOR] = floor[None, :] * fl[mat == M_FLOOR, None]
        # Ambient occlusion: the cloth under the cushion nose and in the pocket throats.
        near_hole = cv2.GaussianBlur((mat == M_HOLE).astype(np.float32), (0, 0), 10.0 / c)
        d_in = np.minimum(np.minimum(X, L - X), np.minimum(Y, W - Y))
        ao = np.ones((ny, nx), np.float32)
        bed = mat == M_BED
        ao[bed] = (1.0 - 0.45 * np.exp(-np.maximum(d_in, 0.0) / 9.0))[bed]
        ao *= 1.0 - 0.6 * near_hole * (mat != M_HOLE)
        self._ao_map = ao
        # Where the varnish can catch the lamps: the rail's top, not its edges.
        self._gloss_map = ((mat == M_RAIL) & (d > cw + 4.0) & (d < outer - 8.0)).astype(np.float32)
        # Normals from the height field (cliffs excluded).
        gy, gx = np.gradient(H, c)
        cliff = (np.abs(gx) > 1.0) | (np.abs(gy) > 1.0)
        gx[cliff] = 0.0
        gy[cliff] = 0.0
        self._H = H
        self._mat = mat
        self._alb = alb
        self._gx, self._gy = gx.astype(np.float32), gy.astype(np.float32)
        self._H_max = float(H.max())

    def _table_lookup(self, src: np.ndarray, X: np.ndarray, Y: np.ndarray, nearest=False):
        mx = ((X - self._ox) / RASTER_MM - 0.5).astype(np.float32)
        my = ((Y - self._oy) / RASTER_MM - 0.5).astype(np.float32)
        interp = cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR
        shape = mx.shape
        if max(shape) >= 32000:  # remap's maps must be smaller than SHRT_MAX a side
            n = mx.size
            cols = 2048
            rows = (n + cols - 1) // cols
            pad = rows * cols - n
            mx = np.concatenate([mx.ravel(), np.zeros(pad, np.float32)]).reshape(rows, cols)
            my = np.concatenate([my.ravel(), np.zeros(pad, np.float32)]).reshape(rows, cols)
            out = cv2.remap(src, mx, my, interp, borderMode=cv2.BORDER_REPLICATE)
            out = out.reshape(rows * cols, *out.shape[2:])[:n]
            return out.reshape(*shape, *out.shape[1:])
        return cv2.remap(src, mx, my, interp, borderMode=cv2.BORDER_REPLICATE)

    def _march(self) -> None:
        """Ray-march every pixel into the table's height field."""
        C = self._C
        rays = self._rays.reshape(-1, 3).astype(np.float64)
        dz = np.where(np.abs(rays[:, 2]) < 1e-9, 1e-9, rays[:, 2])
        n = rays.shape[0]
        hit_h = np.full(n, np.nan)
        idx = np.arange(n)

        def sample(h_level: float, sel: np.ndarray):
            s = (-h_level - C[2]) / dz[sel]
            X = (C[0] + rays[sel, 0] * s).astype(np.float32)
            Y = (C[1] + rays[sel, 1] * s).astype(np.float32)
            Hs = self._table_lookup(self._H, X[None, :], Y[None, :])[0]
            return Hs

        def descend(levels, sel):
            prev_h, prev_f = None, None
            for h in levels:
                if sel.size == 0:
                    break
                f = h - sample(h, sel)
                if prev_f is None:
                    hit = f <= 0
                    hit_h[sel[hit]] = h
                else:
                    hit = f <= 0
                    pf = prev_f[hit]
                    frac = pf / np.maximum(pf - f[hit], 1e-6)
                    hit_h[sel[hit]] = prev_h - frac * (prev_h - h)
                keep = ~hit
                sel = sel[keep]
                prev_f = f[keep]
                prev_h = h
            return sel

        top = self._H_max + 1.0
        # Shortcut: a ray that is over the open bed both at the rail-top height and at
        # the cloth hits the cloth (most of the image); only the rest is marched.
        pr = self.profile
        margin = 3.0
        s0 = (0.0 - C[2]) / dz
        s1 = (-top - C[2]) / dz
        x0, y0 = C[0] + rays[:, 0] * s0, C[1] + rays[:, 1] * s0
        x1, y1 = C[0] + rays[:, 0] * s1, C[1] + rays[:, 1] * s1
        xy0 = np.column_stack([x0, y0])
        xy1 = np.column_stack([x1, y1])
        easy = pr.in_bed(xy0, margin) & pr.in_bed(xy1, margin)
        for pk in pr.pockets().values():
            reach = pk.spec.drop_radius_mm + pk.spec.mouth_mm + 2 * margin
            cx, cy = pk.centre
            easy &= (x0 - cx) ** 2 + (y0 - cy) ** 2 > reach * reach
        hit_h[easy] = 0.0
        # Outside the table's footprint at the rail-top height: a ray moving away from
        # the camera's foot point never comes back over the (convex) table -> floor.
        outer = pr.cushion_width_mm + pr.rail_width_mm + 1.0
        nadir_in = pr.in_bed(C[None, :2], -outer)[0]
        if nadir_in:
            away = ~pr.in_bed(xy1, -outer)
            hit_h[away] = -FLOOR_DEPTH_MM
            easy |= away
        fine = np.arange(top, -3.0, -1.25)
        rest = descend(fine, idx[~easy])
        # Rays that went down a pocket hole stop at its bottom (the net, in the dark).
        s_b = (3.0 - C[2]) / dz[rest]
        Xb = (C[0] + rays[rest, 0] * s_b).astype(np.float32)
        Yb = (C[1] + rays[rest, 1] * s_b).astype(np.float32)
        m_b = self._table_lookup(self._mat, Xb[None, :], Yb[None, :], nearest=True)[0]
        in_hole = m_b == M_HOLE
        hole_idx = rest[in_hole]
        hit_h[hole_idx] = -POCKET_DEPTH_MM
        # ... unless the hole's (cylindrical) wall stops the ray first.
        for pk in pr.pockets().values():
            cx, cy = pk.centre
            rd = pk.spec.drop_radius_mm
            sel = hole_idx[(Xb[in_hole] - cx) ** 2 + (Yb[in_hole] - cy) ** 2 <= (rd + 25.0) ** 2]
            if sel.size == 0:
                continue
            # Horizontal path of the ray below the cloth: xy(s) = C + r s; exit the circle.
            ox, oy = C[0] - cx, C[1] - cy
            rx, ry = rays[sel, 0], rays[sel, 1]
            a = rx * rx + ry * ry
            b = ox * rx + oy * ry
            c = ox * ox + oy * oy - rd * rd
            disc = np.maximum(b * b - a * c, 0.0)
            s_exit = (-b + np.sqrt(disc)) / np.maximum(a, 1e-12)
            h_exit = -(C[2] + rays[sel, 2] * s_exit)
            hit_h[sel] = np.maximum(np.minimum(h_exit, 0.0), -POCKET_DEPTH_MM)
        rest = rest[~in_hole]
        coarse = np.arange(-3.0, -FLOOR_DEPTH_MM - 10.0, -8.0)
        rest = descend(coarse, rest)
        hit_h[rest] = -FLOOR_DEPTH_MM
        s = (-hit_h - C[2]) / dz
        P = C[None, :] + rays * s[:, None]
        h, w = self.height, self.width
        self._t_surf = s.reshape(h, w).astype(np.float32)
        self._P_surf = P.reshape(h, w, 3).astype(np.float32)
        self._hit_h = hit_h.reshape(h, w).astype(np.float32)

    def _shade_background(self) -> None:
        look = self.look
        h, w = self.height, self.width
        X = self._P_surf[..., 0]
        Y = self._P_surf[..., 1]
        Hs = self._table_lookup(self._H, X, Y)
        wall = (Hs - self._hit_h) > 3.0
        mat = self._table_lookup(self._mat, X, Y, nearest=True)
        alb = self._table_lookup(self._alb, X, Y)
        ao = self._table_lookup(self._ao_map, X, Y)
        gx = self._table_lookup(self._gx, X, Y)
        gy = self._table_lookup(self._gy, X, Y)
        n = np.stack([-gx, -gy, -np.ones_like(gx)], -1)
        n /= np.linalg.norm(n, axis=-1, keepdims=True)
        # Walls: the side of the pocket holes (dark) or the table's apron.
        near_pocket = np.zeros((h, w), bool)
        for pk in self.profile.pockets().values():
            cx, cy = pk.centre
            r = pk.spec.drop_radius_mm + pk.spec.drop_depth_mm + 10.0
            near_pocket |= (X - cx) ** 2 + (Y - cy) ** 2 < r * r
        in_hole_region = (mat == M_HOLE) | (mat == M_BED) | near_pocket
        hole_wall = wall & in_hole_region
        # The face under the cushion nose (undercut, in its own shadow).
        nose_face = wall & (mat == M_CUSHION)
        nose_face &= ~near_pocket
        apron = wall & ~in_hole_region & ~nose_face
        alb[hole_wall] = np.array([0.006, 0.006, 0.007], np.float32)
        alb[apron] = _lin(look.apron_rgb)
        alb[nose_face] = self._cloth * 0.45
        n[wall] = -self._rays[wall]
        floor_px = self._hit_h <= -FLOOR_DEPTH_MM + 1.0
        if floor_px.any():
            alb[floor_px] = self._floor_albedo(X[floor_px], Y[floor_px])
        P = self._P_surf.reshape(-1, 3).astype(np.float64)
        E = self._irradiance(P, n.reshape(-1, 3).astype(np.float64)).sum(1) / self._E0
        E = E.reshape(h, w).astype(np.float32)
        # Pocket interiors: light barely reaches down there.
        depth = np.clip(-self._hit_h, 0.0, None)
        in_pocket = ((self._hit_h < -1.0) & (self._hit_h > -FLOOR_DEPTH_MM + 1.0)) | hole_wall
        deep = (0.03 + 0.3 * np.exp(-depth / 30.0)).astype(np.float32)
        E = E * np.where(in_pocket, deep, 1.0)
        amb = look.ambient * np.where(in_pocket, deep, 1.0)
        # The floor: the lamps' shades keep most light on the table; the room lights it.
        floor = self._hit_h <= -FLOOR_DEPTH_MM + 1.0
        amb = np.where(floor, 1.5 * look.ambient, amb)
        shade = (amb + E) * ao / (1.0 + look.ambient)
        lin = alb * shade[..., None] * self._light[None, None, :] * look.brightness
        # Varnished rails reflect the lamps as soft streaks.
        gloss_w = self._table_lookup(self._gloss_map, X, Y)
        varnish = (gloss_w > 0.0) & ~wall
        if look.rail_gloss > 0 and varnish.any():
            dv = self._rays[varnish].astype(np.float64)
            nv = n[varnish].astype(np.float64)
            dn = np.einsum("nc,nc->n", dv, nv)
            r = dv - 2.0 * dn[:, None] * nv
            Pv = self._P_surf[varnish].astype(np.float64)
            spec = np.zeros(len(Pv))
            for k, Lk in enumerate(self._lamp_pos):
                lv = Lk[None, :] - Pv
                cosr = np.einsum("nc,nc->n", r, lv) / np.linalg.norm(lv, axis=1)
                spec += self._lamp_power[k] * np.maximum(cosr, 0.0) ** 60
            spec *= gloss_w[varnish]
            lin[varnish] += (
                (look.rail_gloss * spec)[:, None] * self._light[None, :] * look.brightness
            ).astype(np.float32)
        lin *= self._vig[..., None]
        if look.blur_px > 0:
            lin = cv2.GaussianBlur(lin, (0, 0), look.blur_px)
        self._bg_u8 = self._encode(lin)

    def _floor_albedo(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Floor boards (150 mm planks along the table) around the table, BGR linear."""
        rng = np.random.default_rng(self.seed + 17)
        plank_mm = 150.0
        tone = np.exp(rng.normal(0.0, 0.18, 512)).astype(np.float32)
        offs = rng.uniform(0, 2400.0, 512)
        row = np.floor(Y / plank_mm).astype(np.int64) % 512
        # Board ends: every 2.4 m, staggered per row.
        xb = X + offs[row]
        board = (row * 7 + np.floor(xb / 2400.0).astype(np.int64)) % 512
        tex = textures.value_noise(rng, (256, 256), 6.0)
        u = ((xb / 40.0) % 256).astype(np.float32)
        v = ((Y / 3.0 + row * 37.0) % 256).astype(np.float32)
        grain = tex[v.astype(np.int64) % 256, u.astype(np.int64) % 256]
        edge = np.minimum((Y % plank_mm), plank_mm - (Y % plank_mm))
        seam = np.clip(edge / 3.0, 0.35, 1.0)
        f = tone[board] * (1.0 + 0.15 * grain) * seam
        return _lin(self.look.floor_rgb)[None, :] * f[:, None]

    def _encode(self, lin: np.ndarray) -> np.ndarray:
        idx = np.clip(lin * 4095.0, 0, 4095).astype(np.int32)
        return np.round(self._gamma_lut[idx]).astype(np.uint8)

    def _setup_noise(self) -> None:
        """A bank of sensor noise, cropped at a random offset each frame."""
        look = self.look
        h, w = self.height, self.width
        pad = 64
        nz = self._rng.standard_normal((h + pad, w + pad, 3)).astype(np.float32)
        # Demosaicing correlates neighbours a little; colour noise is weaker than luma noise.
        nz = cv2.GaussianBlur(nz, (0, 0), 0.6)
        nz /= float(nz.std())
        luma = nz.mean(axis=2, keepdims=True)
        nz = 0.7 * luma + 0.45 * (nz - luma)
        nz /= float(nz.std())
        self._noise = np.clip(np.round(nz * 16.0), -127, 127).astype(np.int8)
        self._noise_pad = pad
        # sigma (8-bit levels) of signal-dependent noise, tabulated per encoded level.
        v = np.arange(256, dtype=np.float64)
        lin = (v / 255.0) ** GAMMA
        # Shot noise in linear light, converted to encoded levels (d(enc)/d(lin)).
        slope = 255.0 / GAMMA * np.maximum(lin, 1e-4) ** (1.0 / GAMMA - 1.0)
        shot = look.noise * np.sqrt(lin / 0.2) * 0.2 / GAMMA * slope / 255.0 * GAMMA
        sig = np.sqrt(look.noise_floor**2 + shot**2)
        sig = np.minimum(sig, 12.0)
        self._noise_lut = np.clip(np.round(sig * 16.0), 0, 255).astype(np.uint8)

    # ------------------------------------------------------------------ public
    def surface_at(self, px: np.ndarray) -> np.ndarray:
        """What the static scene shows at pixels ``px`` (N, 2), as table points
        ``(x_mm, y_mm, height_mm)`` (nearest pixel; the floor is at ``-FLOOR_DEPTH_MM``)."""
        p = np.round(np.asarray(px, np.float64).reshape(-1, 2)).astype(np.int64)
        u = np.clip(p[:, 0], 0, self.width - 1)
        v = np.clip(p[:, 1], 0, self.height - 1)
        P = self._P_surf[v, u].astype(np.float64)
        return np.column_stack([P[:, 0], P[:, 1], -P[:, 2]])

    def background(self) -> np.ndarray:
        """The empty table (no balls, no people, no noise), BGR uint8."""
        return self._bg_u8.copy()

    def render(
        self,
        poses: Mapping[str, BallPose],
        occluders: Iterable = (),
        t: float = 0.0,
        noise: bool = True,
    ) -> np.ndarray:
        """One frame: the balls at ``poses``, people ``occluders`` over them, sensor noise."""
        img = self._bg_u8.copy()
        self._draw_balls(img, poses)
        occ = flatten(occluders)
        if occ:
            self._draw_occluders(img, occ)
        if noise:
            self._add_noise(img, t)
        return img

    def render_exposure(
        self,
        pose_fn: Callable[[float], Mapping[str, BallPose]],
        t0: float,
        exposure_s: float,
        n_sub: int = 8,
        occluders_fn: Callable[[float], Iterable] | None = None,
        noise: bool = True,
    ) -> np.ndarray:
        """A frame exposed from ``t0`` for ``exposure_s``: moving balls are motion-blurred.

        The exposure is sampled at ``n_sub`` instants; balls whose pose does not change
        are drawn once, moving ones are averaged over the sub-frames in their region
        only.  People are drawn at the middle of the exposure when they keep still, else
        averaged over up to ``OCCLUDER_SUBFRAMES`` instants (a cue pushed through the strike).
        """
        n_sub = max(1, int(n_sub))
        ts = t0 + (np.arange(n_sub) + 0.5) / n_sub * exposure_s
        subs = [dict(pose_fn(float(t))) for t in ts]
        # sorted: a set's order follows the process's string hashing, and balls that
        # overlap in a sub-frame are drawn in this order (renders differed run to run)
        ids = sorted(set().union(*[s.keys() for s in subs]))
        static: dict[str, BallPose] = {}
        moving: list[str] = []
        for b in ids:
            ps = [s.get(b) for s in subs]
            if all(p is not None for p in ps) and all(_same_pose(ps[0], p) for p in ps[1:]):
                static[b] = ps[0]
            else:
                moving.append(b)
        img = self._bg_u8.copy()
        if len(moving) == 0 or n_sub == 1:
            self._draw_balls(img, subs[len(subs) // 2])
        else:
            self._draw_balls(img, static)
            boxes = []
            for s in subs:
                for b in moving:
                    p = s.get(b)
                    if p is not None and p.on_table:
                        box = self._ball_box(p)
                        if box is not None:
                            boxes.append(box)
            if boxes:
                y0 = min(b[0] for b in boxes)
                y1 = max(b[1] for b in boxes)
                x0 = min(b[2] for b in boxes)
                x1 = max(b[3] for b in boxes)
                base = img[y0:y1, x0:x1].copy()
                acc = np.zeros(base.shape, np.float32)
                # Static balls near the moving ones are redrawn on top in each sub-frame
                # only through `base` (they are already in it).
                for s in subs:
                    reg = base.copy()
                    mv = {b: s[b] for b in moving if b in s}
                    self._draw_balls(reg, mv, origin=(y0, x0))
                    acc += reg
                img[y0:y1, x0:x1] = np.round(acc / n_sub).astype(np.uint8)
        if occluders_fn is not None:
            k = min(n_sub, OCCLUDER_SUBFRAMES)
            tk = t0 + (np.arange(k) + 0.5) / k * exposure_s
            layers = [flatten(occluders_fn(float(t))) for t in tk]
            if k == 1 or all(layer == layers[0] for layer in layers[1:]):
                occ = flatten(occluders_fn(float(t0 + exposure_s / 2)))
                if occ:
                    self._draw_occluders(img, occ)
            else:  # a moving cue or hand: average a few sub-frames
                acc = np.zeros(img.shape, np.float32)
                for layer in layers:
                    tmp = img.copy()
                    if layer:
                        self._draw_occluders(tmp, layer)
                    acc += tmp
                img = np.round(acc / k).astype(np.uint8)
        if noise:
            self._add_noise(img, t0)
        return img

    # ------------------------------------------------------------------ noise
    def _add_noise(self, img: np.ndarray, t: float) -> None:
        h, w = self.height, self.width
        pad = self._noise_pad
        oy, ox = (int(v) for v in self._rng.integers(0, pad, 2))
        nz = self._noise[oy : oy + h, ox : ox + w]
        sig = cv2.LUT(img, self._noise_lut)
        delta = (nz.astype(np.int16) * sig.astype(np.int16) + 128) >> 8
        out = img.astype(np.int16) + delta
        np.clip(out, 0, 255, out=out)
        img[:] = out.astype(np.uint8)

    # ------------------------------------------------------------------ balls
    def _px(self, P: np.ndarray) -> np.ndarray:
        """World points (N, 3) -> distorted pixels, robust for points outside the view."""
        P = np.asarray(P, np.float64).reshape(-1, 3)
        pc = (self._Rcw @ P.T).T + self.camera.tvec[None, :]
        z = np.maximum(pc[:, 2], 1.0)
        xn = pc[:, :2] / z[:, None]
        # Clamp far-off points before distortion (the polynomial folds back out there).
        w, h = self.width, self.height
        K = self.camera.K
        lim = 1.15 * max(
            abs((0 - K[0, 2]) / K[0, 0]),
            abs((w - K[0, 2]) / K[0, 0]),
            abs((0 - K[1, 2]) / K[1, 1]),
            abs((h - K[1, 2]) / K[1, 1]),
        )
        r = np.linalg.norm(xn, axis=1)
        big = r > lim
        xn[big] *= (lim / r[big])[:, None]
        pts = np.column_stack([xn, np.ones(len(xn))])
        px, _ = cv2.projectPoints(pts, np.zeros(3), np.zeros(3), K, self.camera.dist)
        return px.reshape(-1, 2)

    def _ball_geometry(self, p: BallPose):
        R = self.profile.ball_radius_mm
        S = np.array([p.x_mm, p.y_mm, -(R + p.lift_mm)], np.float64)
        depth = float((self._Rcw @ (S - self._C))[2])
        r_px = self._f * R / max(depth, 1.0)
        # Shadow centres: where the lamp->centre lines meet the bed plane.
        Lp = self._lamp_pos
        s = (0.0 - Lp[:, 2]) / (S[2] - Lp[:, 2])
        Q = Lp + (S[None, :] - Lp) * np.maximum(s, 1.0)[:, None]
        return S, r_px, Q, np.maximum(s, 1.0)

    def _clip_box(self, pts: np.ndarray, rad: np.ndarray):
        x0 = int(math.floor(np.min(pts[:, 0] - rad)))
        x1 = int(math.ceil(np.max(pts[:, 0] + rad))) + 1
        y0 = int(math.floor(np.min(pts[:, 1] - rad)))
        y1 = int(math.ceil(np.max(pts[:, 1] + rad))) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.width), min(y1, self.height)
        if x1 <= x0 or y1 <= y0:
            return None
        return (y0, y1, x0, x1)

    def _ball_boxes(self, p: BallPose):
        """Pixel boxes ``(y0, y1, x0, x1)`` of a ball's shadows and of the ball itself."""
        S, r_px, Q, scale = self._ball_geometry(p)
        pts = self._px(np.vstack([S[None, :], Q]))
        rad = np.concatenate([[1.25 * r_px + 3.0], 1.7 * r_px * scale + 4.0])
        shadow = self._clip_box(pts, rad)
        sphere = self._clip_box(pts[:1], np.array([1.15 * r_px + 2.0 + 3.0 * self.look.blur_px]))
        return shadow, sphere

    def _ball_box(self, p: BallPose):
        return self._ball_boxes(p)[0]

    def _tint(self, ball: str) -> np.ndarray:
        """A ball's own slight colour deviation (aged ivory is not all the same white)."""
        if ball not in self._tints:
            h = sum((i + 1) * ord(ch) for i, ch in enumerate(ball))
            rng = np.random.default_rng([self.seed, h])
            f = 1.0 + rng.normal(0.0, self.look.ball_tint, 3) + rng.normal(0.0, 0.01)
            self._tints[ball] = np.clip(f, 0.8, 1.2).astype(np.float32)
        return self._tints[ball]

    def _ball_albedo(self, ball: str, nb: np.ndarray, pix_ang: np.ndarray) -> np.ndarray:
        """Albedo (N, 3) of ``ball`` at body-frame unit normals ``nb`` (N, 3)."""
        look = self.look
        n = nb.shape[0]
        if ball in ("R1", "R2"):
            base = _lin(look.red_ball_rgb)
        elif ball == "K":
            base = _lin(look.yellow_ball_rgb)
        elif ball == "Y":
            base = _lin(look.coloured_ball_rgb)
        else:
            base = _lin(look.ivory_rgb)
        alb = np.broadcast_to(base * self._tint(ball), (n, 3)).copy()
        ink = np.zeros(n, np.float32)
        if ball.isdigit():
            g = textures.glyph(ball, 64, underline=ball in ("6", "9"))
            sa = math.sin(NUMBER_DECAL_HALF_ANGLE)
            for sign in (-1.0, 1.0):
                front = nb[:, 2] * sign > 0.2
                if not front.any():
                    continue
                u = nb[front, 0] / sa
                v = -sign * nb[front, 1] / sa
                gx = ((u * 0.5 + 0.5) * 63.0).astype(np.float32)
                gy = ((v * 0.5 + 0.5) * 63.0).astype(np.float32)
                val = cv2.remap(
                    g,
                    gx[None, :],
                    gy[None, :],
                    cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_CONSTANT,
                    borderValue=0.0,
                )[0]
                ink[front] = np.maximum(ink[front], val)
        elif ball in ("W1", "W2"):
            R = self.profile.ball_radius_mm
            rd = MARK_DOT_RADIUS_MM / R
            off = MARK_PAIR_GAP_MM / 2.0 / R
            aa = np.maximum(pix_ang, 0.02)
            for axis in range(3):
                e1 = np.zeros(3)
                e1[(axis + 1) % 3] = 1.0
                e2 = np.zeros(3)
                e2[(axis + 2) % 3] = 1.0
                for sign in (-1.0, 1.0):
                    front = nb[:, axis] * sign > 0.3
                    if not front.any():
                        continue
                    a = nb[front] @ e1
                    b = nb[front] @ e2
                    centres = [(0.0, 0.0)] if ball == "W1" else [(-off, 0.0), (off, 0.0)]
                    for ca, cb in centres:
                        dist = np.sqrt((a - ca) ** 2 + (b - cb) ** 2)
                        cov = np.clip((rd - dist) / aa[front] + 0.5, 0.0, 1.0)
                        ink[front] = np.maximum(ink[front], cov)
        if ink.any():
            pc = _lin(look.print_rgb)
            alb = alb * (1.0 - ink[:, None]) + pc[None, :] * ink[:, None]
        return alb

    def _draw_balls(
        self, img: np.ndarray, poses: Mapping[str, BallPose], origin: tuple[int, int] = (0, 0)
    ) -> None:
        items = [(b, p) for b, p in poses.items() if p is not None and p.on_table]
        if not items:
            return
        oy, ox = origin

        def clip(box):
            if box is None:
                return None
            y0, y1, x0, x1 = box
            y0c, y1c = max(y0, oy), min(y1, oy + img.shape[0])
            x0c, x1c = max(x0, ox), min(x1, ox + img.shape[1])
            if y1c <= y0c or x1c <= x0c:
                return None
            return (y0c, y1c, x0c, x1c)

        geo = []
        for b, p in items:
            shadow, sphere = (clip(bx) for bx in self._ball_boxes(p))
            if shadow is None:
                continue
            S = np.array([p.x_mm, p.y_mm, -(self.profile.ball_radius_mm + p.lift_mm)])
            dist = float(np.linalg.norm(S - self._C))
            geo.append((dist, b, p, shadow, sphere))
        if self.look.shadow_strength > 0:
            for _, _b, p, shadow, _s in geo:
                self._shadow(img, p, shadow, origin)
        R = self.profile.ball_radius_mm
        centres = {
            b: np.array([p.x_mm, p.y_mm, -(R + p.lift_mm)])
            for b, p in poses.items()
            if p is not None and p.on_table
        }
        for _, b, p, _sh, sphere in sorted(geo, key=lambda g: -g[0]):
            if sphere is not None:
                me = centres[b]
                near = [
                    c
                    for k, c in centres.items()
                    if k != b and float(np.sum((c - me) ** 2)) < (3.2 * R) ** 2
                ]
                self._ball(img, b, p, sphere, origin, near)

    def _shadow(self, img, p: BallPose, box, origin) -> None:
        """Soft lamp shadows and contact occlusion of one ball on the surface under it.

        Each lamp's shadow is the ball's cross-section projected from the lamp onto the
        horizontal plane through each surface point, with a penumbra growing with the
        lamp's size and the distance from the ball; lamp weights are taken at the
        contact point (they barely change over a patch).
        """
        y0, y1, x0, x1 = box
        R = self.profile.ball_radius_mm
        S = np.array([p.x_mm, p.y_mm, -(R + p.lift_mm)], np.float64)
        P = self._P_surf[y0:y1, x0:x1].reshape(-1, 3)
        Px, Py, Pz = P[:, 0:1], P[:, 1:2], P[:, 2:3]
        Lp = self._lamp_pos.astype(np.float32)
        Lx, Ly, Lz = Lp[None, :, 0], Lp[None, :, 1], Lp[None, :, 2]
        den = np.float32(S[2]) - Lz
        scale = (Pz - Lz) / den  # (N, K): >= 1 below the ball's centre
        qx = Lx + (np.float32(S[0]) - Lx) * scale
        qy = Ly + (np.float32(S[1]) - Ly) * scale
        d = np.sqrt((Px - qx) ** 2 + (Py - qy) ** 2)
        rs = np.float32(R) * scale
        pen = np.maximum(self._lamp_radius[None, :].astype(np.float32) * (scale - 1.0), 1.0)
        occ = _smoothstep(rs + pen, rs - pen, d) * (scale > 1.0)
        contact = np.array([[p.x_mm, p.y_mm, 0.0]])
        Ek = self._irradiance(contact, np.array([[0.0, 0.0, -1.0]]))[0].astype(np.float32)
        amb = np.float32(self.look.ambient * self._E0)
        lit = (amb + ((1.0 - occ) * Ek[None, :]).sum(1)) / (amb + Ek.sum())
        # Contact occlusion right under the ball (light from the room blocked by the sphere).
        dxy2 = (P[:, 0] - np.float32(S[0])) ** 2 + (P[:, 1] - np.float32(S[1])) ** 2
        near = math.exp(-max(p.lift_mm, 0.0) / 20.0)
        ao = (1.0 - 0.55 * near * np.exp(-dxy2 / np.float32((0.62 * R) ** 2))) * (
            1.0 - 0.25 * near * np.exp(-dxy2 / np.float32((1.1 * R) ** 2))
        )
        f = 1.0 - self.look.shadow_strength * (1.0 - lit * ao)
        fg = (np.clip(f, 0.0, 1.0) ** (1.0 / GAMMA)).astype(np.float32).reshape(y1 - y0, x1 - x0)
        oy, ox = origin
        reg = img[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
        reg[:] = np.round(reg.astype(np.float32) * fg[..., None]).astype(np.uint8)

    def _sphere(self, p: BallPose, box):
        """Ray-sphere test in ``box``: coverage (anti-aliased, hidden parts removed) etc."""
        y0, y1, x0, x1 = box
        R = self.profile.ball_radius_mm
        S = np.array([p.x_mm, p.y_mm, -(R + p.lift_mm)], np.float64)
        d = self._rays[y0:y1, x0:x1].reshape(-1, 3).astype(np.float64)
        oc = self._C - S
        b = d @ oc
        cc = float(oc @ oc) - R * R
        disc = b * b - cc
        dperp = np.sqrt(np.maximum(float(oc @ oc) - b * b, 0.0))
        pix_mm = np.maximum(-b, 1.0) / self._f
        cov = np.clip((R - dperp) / pix_mm + 0.5, 0.0, 1.0)
        t_hit = -b - np.sqrt(np.maximum(disc, 0.0))
        t_surf = self._t_surf[y0:y1, x0:x1].reshape(-1)
        cov = cov * (t_hit < t_surf + 0.5)
        return S, d, b, disc, t_hit, pix_mm, cov

    def ball_coverage(self, pose: BallPose) -> tuple[int, int, np.ndarray] | None:
        """Where a ball is seen: ``(y0, x0, alpha)`` with ``alpha`` its anti-aliased
        silhouette (0..1, before lens blur) in the patch whose top-left pixel is
        ``(y0, x0)``; parts hidden by the table (a ball dropping into a pocket, behind a
        cushion nose) are removed.  ``None`` when it is out of view.  Ground truth for
        segmentation and for the ball-centre test.
        """
        if not pose.on_table:
            return None
        box = self._ball_boxes(pose)[1]
        if box is None:
            return None
        cov = self._sphere(pose, box)[-1]
        y0, y1, x0, x1 = box
        return y0, x0, cov.reshape(y1 - y0, x1 - x0).astype(np.float32)

    def visibility(
        self, poses: Mapping[str, BallPose], occluders: Iterable = ()
    ) -> dict[str, float]:
        """Fraction (0..1) of each ball's silhouette that people leave in view.

        Balls off the table or out of the image get 0.  The table itself (a ball in a
        pocket's mouth) is accounted for by the silhouette; other balls are not.
        Truth for "this ball is hidden under the arm" in a clip's ground truth.
        """
        pieces = self._pieces(flatten(occluders))
        out: dict[str, float] = {}
        for b, p in poses.items():
            cov = self.ball_coverage(p) if p is not None else None
            if cov is None or cov[2].sum() <= 0:
                out[b] = 0.0
                continue
            y0, x0, a = cov
            y1, x1 = y0 + a.shape[0], x0 + a.shape[1]
            hidden = np.zeros(a.shape, np.float32)
            for o, open0, open1, (py0, py1, px0, px1) in pieces:
                oy0, oy1 = max(y0, py0), min(y1, py1)
                ox0, ox1 = max(x0, px0), min(x1, px1)
                if oy1 <= oy0 or ox1 <= ox0:
                    continue
                d = self._rays[oy0:oy1, ox0:ox1].reshape(-1, 3)
                idx, c, _t, _n, _l = self._hit_prim(o, d, open0, open1)
                if idx.size == 0:
                    continue
                w = ox1 - ox0
                sub = hidden[oy0 - y0 : oy1 - y0, ox0 - x0 : ox1 - x0].reshape(-1)
                sub[idx] = np.maximum(sub[idx], c)
                hidden[oy0 - y0 : oy1 - y0, ox0 - x0 : ox1 - x0] = sub.reshape(-1, w)
            out[b] = float((a * (1.0 - hidden)).sum() / a.sum())
        return out

    def _ball(self, img, ball: str, p: BallPose, box, origin, near=()) -> None:
        y0, y1, x0, x1 = box
        R = self.profile.ball_radius_mm
        C = self._C
        S, d, b, disc, t_hit, pix_mm, cov = self._sphere(p, box)
        sel = cov > 0
        if not sel.any():
            return
        ds, ts, bs = d[sel], t_hit[sel], b[sel]
        inside = disc[sel] > 0
        Ph = C[None, :] + ds * ts[:, None]
        n_hit = (Ph - S[None, :]) / R
        Pc = C[None, :] + ds * (-bs)[:, None]
        rv = Pc - S[None, :]
        n_rim = rv / np.maximum(np.linalg.norm(rv, axis=1, keepdims=True), 1e-9)
        n = np.where(inside[:, None], n_hit, n_rim)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        P = S[None, :] + n * R
        nb = n @ np.asarray(p.rotation, np.float64)  # body = R^T world (row form)
        pix_ang = (pix_mm[sel] / R).astype(np.float64)
        alb = self._ball_albedo(ball, nb, pix_ang)
        look = self.look
        E = self._irradiance(P, n)  # (N, K)
        # Neighbouring balls shade this one: their lamp shadows, and less room light
        # near the contact points.
        vis_amb = np.ones(len(P))
        if len(near):
            Cn = np.asarray(near, np.float64)  # (M, 3) neighbour centres
            Pf = P.astype(np.float32)
            v = (self._lamp_pos[None, :, :] - P[:, None, :]).astype(np.float32)  # (N, K, 3)
            vv = np.einsum("nkc,nkc->nk", v, v)
            vlen = np.sqrt(vv)
            w = Cn[None, :, :].astype(np.float32) - Pf[:, None, :]  # (N, M, 3)
            wv = np.einsum("nmc,nkc->nmk", w, v)  # (N, M, K)
            along = wv / vv[:, None, :]
            ww = np.einsum("nmc,nmc->nm", w, w)
            dperp = np.sqrt(np.maximum(ww[..., None] - wv * along, 0.0))
            dist = along * vlen[:, None, :]
            pen = np.maximum(self._lamp_radius[None, None, :] * dist / vlen[:, None, :], 1.0)
            occ = _smoothstep(R + pen, R - pen, dperp) * (along > 0)
            E = E * np.prod(1.0 - occ, axis=1)
            gap = np.sqrt(ww) - R  # (N, M)
            vis_amb = np.prod(1.0 - 0.6 * np.exp(-np.maximum(gap, 0.0) / (0.25 * R)), axis=1)
        diffuse = E.sum(1) / self._E0
        # Cloth bounce from below and the room from above.
        up_f = np.clip(-n[:, 2], 0.0, 1.0)
        down_f = np.clip(n[:, 2], 0.0, 1.0)
        bounce = self._cloth[None, :] * ((0.9 * down_f + 0.15) * vis_amb)[:, None]
        amb = look.ambient * (0.4 + 0.6 * up_f) * vis_amb
        lin = alb * (amb[:, None] + diffuse[:, None] * self._light[None, :] + bounce)
        # Specular: the lamps' openings reflected, and a gloss + Fresnel environment.
        dn = np.einsum("nc,nc->n", ds, n)
        r = ds - 2.0 * dn[:, None] * n
        v = self._lamp_pos[None, :, :] - P[:, None, :]
        vlen = np.linalg.norm(v, axis=2)
        cosr = np.einsum("nc,nkc->nk", r, v) / vlen
        ang = self._lamp_radius[None, :] / vlen
        spot = _smoothstep(np.cos(ang * 1.25), np.cos(ang * 0.75), cosr)
        glow = np.maximum(cosr, 0.0) ** 300
        spec = (self._lamp_power[None, :] * (2.2 * spot + 0.25 * glow)).sum(1)
        fres = 0.04 + 0.96 * (1.0 - np.abs(dn)) ** 5
        env = np.where(r[:, 2] > 0, 1.0, 0.0)[:, None] * self._cloth[None, :] * 0.8 + 0.03
        g = look.ball_gloss
        lin = lin + g * (spec[:, None] * self._light[None, :] + fres[:, None] * env)
        lin *= look.brightness
        h, w = y1 - y0, x1 - x0
        col = np.zeros((h * w, 3), np.float32)
        col[sel] = lin
        col = col.reshape(h, w, 3) * self._vig[y0:y1, x0:x1, None]
        a = cov.reshape(h, w).astype(np.float32)
        enc = self._gamma_lut[np.clip(col * 4095.0, 0, 4095).astype(np.int32)]
        pm = enc * a[..., None]
        if look.blur_px > 0:
            pm = cv2.GaussianBlur(pm, (0, 0), look.blur_px)
            a = cv2.GaussianBlur(a, (0, 0), look.blur_px)
        oy, ox = origin
        reg = img[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
        out = reg.astype(np.float32) * (1.0 - a[..., None]) + pm
        reg[:] = np.clip(np.round(out), 0, 255).astype(np.uint8)

    # ------------------------------------------------------------------ people
    def _prim_points(self, o) -> tuple[np.ndarray, float]:
        """Sample points (world) covering a primitive, and its largest radius (mm)."""
        if isinstance(o, Capsule):
            p0 = np.array([o.p0[0], o.p0[1], -o.p0[2]])
            p1 = np.array([o.p1[0], o.p1[1], -o.p1[2]])
            s = np.linspace(0.0, 1.0, 9)[:, None]
            return p0 + (p1 - p0) * s, max(o.r0_mm, o.r1_mm)
        c = np.array([o.centre[0], o.centre[1], -o.centre[2]])
        r = max(o.radii_mm)
        return c[None, :], r

    def _prim_box(self, o):
        pts, r = self._prim_points(o)
        px = self._px(pts)
        pc = (self._Rcw @ (pts - self._C).T).T
        rad = self._f * r / np.maximum(pc[:, 2], 1.0) * 1.35 + 3.0
        x0 = int(math.floor(np.min(px[:, 0] - rad)))
        x1 = int(math.ceil(np.max(px[:, 0] + rad))) + 1
        y0 = int(math.floor(np.min(px[:, 1] - rad)))
        y1 = int(math.ceil(np.max(px[:, 1] + rad))) + 1
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.width), min(y1, self.height)
        if x1 <= x0 or y1 <= y0:
            return None
        return (y0, y1, x0, x1)

    def _hit_prim(self, o, d: np.ndarray, open0: bool = False, open1: bool = False):
        """Ray-cast a primitive along rays ``d`` (N, 3, float32).

        Returns ``(idx, cov, t, n, local)`` for the rays that touch it: their indices,
        anti-aliased coverage, hit distance, unit normal and local surface coordinates
        (capsule: along-axis mm and angle around it; ellipsoid: body-frame mm).
        ``open0`` / ``open1``: a capsule piece cut from a longer one has no cap there.
        """
        C = self._C.astype(np.float32)
        f = np.float32(self._f)
        if isinstance(o, Capsule):
            p0 = np.array([o.p0[0], o.p0[1], -o.p0[2]], np.float32)
            p1 = np.array([o.p1[0], o.p1[1], -o.p1[2]], np.float32)
            v = p1 - p0
            w0 = C - p0
            bb = d @ v
            cc = float(v @ v)
            dd = d @ w0
            ee = float(v @ w0)
            den = np.maximum(cc - bb * bb, 1e-6)
            s_raw = (ee - bb * dd) / den
            s_ax = np.clip(s_raw, 0.0, 1.0)
            s_ray = bb * s_ax - dd
            # Re-project onto the axis once more for the clamped cases.
            q = C[None, :] + d * s_ray[:, None]
            s_ax = np.clip(((q - p0[None, :]) @ v) / max(cc, 1e-9), 0.0, 1.0)
            ax = p0[None, :] + s_ax[:, None] * v[None, :]
            s_ray = np.einsum("nc,nc->n", ax - C[None, :], d)
            q = C[None, :] + d * s_ray[:, None]
            rad = o.r0_mm + (o.r1_mm - o.r0_mm) * s_ax
            dist = np.linalg.norm(q - ax, axis=1)
            pix = np.maximum(s_ray, 1.0) / f
            cov = np.clip((rad - dist) / pix + 0.5, 0.0, 1.0)
            if open0:
                cov = cov * (s_raw >= 0.0)
            if open1:
                cov = cov * (s_raw < 1.0)
            idx = np.flatnonzero(cov > 0)
            if idx.size == 0:
                return idx, None, None, None, None
            ds, ax, rad, dist = d[idx], ax[idx], rad[idx], dist[idx]
            back = np.sqrt(np.maximum(rad * rad - dist * dist, 0.0))
            t = s_ray[idx] - back
            n = C[None, :] + ds * t[:, None] - ax
            n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
            # Local coordinates: position along the axis and the angle around it.
            vu = v / max(math.sqrt(cc), 1e-9)
            e1 = np.cross(vu, [0.0, 0.0, 1.0])
            e1 /= max(np.linalg.norm(e1), 1e-9)
            e2 = np.cross(vu, e1)
            local = np.column_stack([(ax @ vu), np.arctan2(n @ e2, n @ e1)])
            return idx, cov[idx], t, n, local
        cy, sy = math.cos(o.yaw_rad), math.sin(o.yaw_rad)
        M = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, -1.0]], np.float32)
        rad = np.array(o.radii_mm, np.float32)
        c = np.array([o.centre[0], o.centre[1], -o.centre[2]], np.float32)
        q0 = (M.T @ (C - c)) / rad
        qd = (d @ M) / rad[None, :]
        A = np.einsum("nc,nc->n", qd, qd)
        B = qd @ q0
        Cq = float(q0 @ q0) - 1.0
        # Perpendicular distance in the unit-sphere space -> coverage.
        dperp = np.sqrt(np.maximum(Cq + 1.0 - B * B / A, 0.0))
        t_c = -B / A
        pix = np.maximum(t_c, 1.0) / f
        cov = np.clip((1.0 - dperp) * rad.min() / pix + 0.5, 0.0, 1.0)
        idx = np.flatnonzero(cov > 0)
        if idx.size == 0:
            return idx, None, None, None, None
        A, B, t_c = A[idx], B[idx], t_c[idx]
        disc = B * B - A * Cq
        t = np.where(disc > 0, (-B - np.sqrt(np.maximum(disc, 0.0))) / A, t_c)
        qh = q0[None, :] + qd[idx] * t[:, None]
        n = (qh / rad[None, :]) @ M.T
        n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
        return idx, cov[idx], t, n, qh * rad[None, :]

    def _pieces(self, occ: list):
        """Primitives cut into pieces about 48 px long, with their pixel boxes.

        A long capsule (the cue) is split so each piece is ray-cast only in a small box;
        an interior cut is 'open' (no end cap), so the pieces tile the capsule exactly.
        Returns ``[(prim, open0, open1, box)]``.
        """
        caps = [o for o in occ if isinstance(o, Capsule)]
        ells = [o for o in occ if isinstance(o, Ellipsoid)]
        out = []
        if caps:
            ends = np.array(
                [[o.p0[0], o.p0[1], -o.p0[2]] for o in caps]
                + [[o.p1[0], o.p1[1], -o.p1[2]] for o in caps]
            )
            px = self._px(ends)
            n = len(caps)
            pieces, pts = [], []
            for i, o in enumerate(caps):
                length = float(np.linalg.norm(px[i] - px[n + i]))
                k = max(1, min(40, int(math.ceil(length / 48.0))))
                p0, p1 = ends[i], ends[n + i]
                for j in range(k):
                    u0, u1 = j / k, (j + 1) / k
                    a = p0 + (p1 - p0) * u0
                    b = p0 + (p1 - p0) * u1
                    piece = Capsule(
                        (a[0], a[1], -a[2]),
                        (b[0], b[1], -b[2]),
                        o.r0_mm + (o.r1_mm - o.r0_mm) * u0,
                        o.r0_mm + (o.r1_mm - o.r0_mm) * u1,
                        o.rgb,
                        o.gloss,
                        o.kind,
                    )
                    pieces.append((piece, j > 0, j < k - 1))
                    pts.append(a)
                    pts.append(b)
            pts = np.array(pts)
            ppx = self._px(pts)
            pc = (self._Rcw @ (pts - self._C).T).T
            for i, (piece, o0, o1) in enumerate(pieces):
                r = max(piece.r0_mm, piece.r1_mm)
                rad = self._f * r / np.maximum(pc[2 * i : 2 * i + 2, 2], 1.0) * 1.35 + 3.0
                box = self._clip_box(ppx[2 * i : 2 * i + 2], rad)
                if box is not None:
                    out.append((piece, o0, o1, box))
        for o in ells:
            # The 8 corners of the ellipsoid's oriented bounding box.
            cy, sy = math.cos(o.yaw_rad), math.sin(o.yaw_rad)
            M = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, -1.0]])
            sg = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
            c = np.array([o.centre[0], o.centre[1], -o.centre[2]])
            corners = c[None, :] + (sg * np.array(o.radii_mm)[None, :]) @ M.T
            px = self._px(corners)
            box = self._clip_box(px, np.full(len(px), 3.0))
            if box is not None:
                out.append((o, False, False, box))
        return out

    def _draw_occluders(self, img: np.ndarray, occ: list) -> None:
        look = self.look
        if self.look.shadow_strength > 0:
            self._occluder_shadows(img, occ)
        pieces = self._pieces(occ)
        if not pieces:
            return
        Y0 = min(p[3][0] for p in pieces)
        Y1 = max(p[3][1] for p in pieces)
        X0 = min(p[3][2] for p in pieces)
        X1 = max(p[3][3] for p in pieces)
        m = 4 if look.blur_px > 0 else 0  # room for the blur
        Y0, X0 = max(0, Y0 - m), max(0, X0 - m)
        Y1, X1 = min(self.height, Y1 + m), min(self.width, X1 + m)
        hh, ww = Y1 - Y0, X1 - X0
        col = np.zeros((hh * ww, 3), np.float32)
        alpha = np.zeros(hh * ww, np.float32)

        def height(o):
            return o.centre[2] if isinstance(o, Ellipsoid) else 0.5 * (o.p0[2] + o.p1[2])

        for o, open0, open1, (y0, y1, x0, x1) in sorted(pieces, key=lambda p: height(p[0])):
            d = self._rays[y0:y1, x0:x1].reshape(-1, 3)
            sel, cov_s, t_s, ns, local_s = self._hit_prim(o, d, open0, open1)
            if sel.size == 0:
                continue
            ds = d[sel].astype(np.float64)
            ns = ns.astype(np.float64)
            P = self._C[None, :] + ds * t_s.astype(np.float64)[:, None]
            # People are close to the lamps: clamp, as a camera's exposure would clip anyway.
            E = np.minimum(self._irradiance(P, ns).sum(1) / self._E0, 1.4)
            alb = _lin(o.rgb)[None, :] * _surface_detail(o, local_s)[:, None]
            up_f = np.clip(-ns[:, 2], 0.0, 1.0)
            shade = look.ambient * (0.5 + 0.5 * up_f) + E
            lin = alb * (shade[:, None] * self._light[None, :]) + (
                self._cloth[None, :] * 0.25 * alb * np.clip(ns[:, 2], 0, 1)[:, None]
            )
            if o.gloss > 0:
                dn = np.einsum("nc,nc->n", ds, ns)
                r = ds - 2.0 * dn[:, None] * ns
                v = self._lamp_pos[None, :, :] - P[:, None, :]
                cosr = np.einsum("nc,nkc->nk", r, v) / np.linalg.norm(v, axis=2)
                spec = (self._lamp_power[None, :] * np.maximum(cosr, 0.0) ** 40).sum(1)
                lin = lin + (0.35 * o.gloss * spec)[:, None] * self._light[None, :]
            lin *= look.brightness
            w = x1 - x0
            gidx = (sel // w + (y0 - Y0)) * ww + (sel % w + (x0 - X0))
            a = cov_s.astype(np.float32)
            col[gidx] = col[gidx] * (1.0 - a[:, None]) + lin * a[:, None]
            alpha[gidx] = alpha[gidx] * (1.0 - a) + a
        col = col.reshape(hh, ww, 3) * self._vig[Y0:Y1, X0:X1, None]
        alpha = alpha.reshape(hh, ww)
        # `col` holds premultiplied linear colour; encode the un-premultiplied colour.
        un = col / np.maximum(alpha[..., None], 1e-6)
        enc = self._gamma_lut[np.clip(un * 4095.0, 0, 4095).astype(np.int32)]
        pm = enc * alpha[..., None]
        a = alpha
        if look.blur_px > 0:
            pm = cv2.GaussianBlur(pm, (0, 0), look.blur_px)
            a = cv2.GaussianBlur(alpha, (0, 0), look.blur_px)
        reg = img[Y0:Y1, X0:X1]
        out = reg.astype(np.float32) * (1.0 - a[..., None]) + pm
        reg[:] = np.clip(np.round(out), 0, 255).astype(np.uint8)

    def _occluder_shadows(self, img: np.ndarray, occ: list) -> None:
        """Soft shadows of people on the table: each primitive projected from each lamp
        onto the bed plane, drawn at quarter resolution and blurred by the penumbra."""
        ds = 4  # shadow mask resolution (pixels per cell)
        hs, ws = (self.height + ds - 1) // ds, (self.width + ds - 1) // ds
        Lp = self._lamp_pos
        wts = self._lamp_power / self._lamp_power.sum()
        pts_l, rad_l, seg_l = [], [], []  # sample points, radii, which primitive (-1: blob)
        for i, o in enumerate(occ):
            pts, _r = self._prim_points(o)
            if isinstance(o, Capsule):
                s = np.linspace(0.0, 1.0, pts.shape[0])
                rads = o.r0_mm + (o.r1_mm - o.r0_mm) * s
                seg = np.full(len(pts), i)
            else:
                rads = np.array([0.8 * math.sqrt(o.radii_mm[0] * o.radii_mm[1])])
                seg = np.array([-1])
            pts_l.append(pts)
            rad_l.append(rads)
            seg_l.append(seg)
        if not pts_l:
            return
        pts = np.vstack(pts_l)
        rads = np.concatenate(rad_l)
        seg = np.concatenate(seg_l)
        hgt = -pts[:, 2]
        K = len(Lp)
        ok = hgt[None, :] < (-Lp[:, 2:3] - 50.0)  # (K, M): below the lamp
        sc = (0.0 - Lp[:, 2:3]) / (pts[None, :, 2] - Lp[:, 2:3])  # (K, M)
        Q = Lp[:, None, :] + (pts[None, :, :] - Lp[:, None, :]) * sc[..., None]
        Q[..., 2] = 0.0
        qpx = (self._px(Q.reshape(-1, 3)) / ds).reshape(K, -1, 2)
        rpx = rads[None, :] * sc * self._f / (-self._C[2]) / ds
        acc = np.zeros((hs, ws), np.float32)
        lim = 200.0
        for k in range(K):
            m = np.zeros((hs, ws), np.uint8)
            q, rr, okk = qpx[k], rpx[k], ok[k]
            q4 = np.round(q * 4).astype(np.int64)
            vis = (q[:, 0] > -lim) & (q[:, 0] < ws + lim) & (q[:, 1] > -lim) & (q[:, 1] < hs + lim)
            for j in range(len(q)):
                if not (okk[j] and vis[j]):
                    continue
                if seg[j] >= 0:
                    if j + 1 < len(q) and seg[j + 1] == seg[j] and okk[j + 1] and vis[j + 1]:
                        th = max(1, int(round(rr[j] + rr[j + 1])))
                        cv2.line(m, tuple(q4[j]), tuple(q4[j + 1]), 255, th, cv2.LINE_AA, shift=2)
                else:
                    cv2.circle(
                        m, tuple(q4[j]), max(1, int(rr[j] * 4)), 255, -1, cv2.LINE_AA, shift=2
                    )
            acc += wts[k] * m.astype(np.float32) / 255.0
        if not acc.any():
            return
        hmean = float(np.median(hgt))
        lamp_r = float(np.mean(self._lamp_radius))
        lamp_h = float(np.mean(-Lp[:, 2]))
        pen_mm = lamp_r * hmean / max(lamp_h - hmean, 50.0)
        sig = max(0.8, pen_mm * self._f / (-self._C[2]) / ds * 0.6)
        acc = cv2.GaussianBlur(acc, (0, 0), sig)
        ys, xs = np.nonzero(acc > 0.003)
        if ys.size == 0:
            return
        cy0, cy1 = ys.min(), ys.max() + 1
        cx0, cx1 = xs.min(), xs.max() + 1
        y0, y1 = cy0 * ds, min(self.height, cy1 * ds)
        x0, x1 = cx0 * ds, min(self.width, cx1 * ds)
        part = cv2.resize(
            acc[cy0:cy1, cx0:cx1],
            ((cx1 - cx0) * ds, (cy1 - cy0) * ds),
            interpolation=cv2.INTER_LINEAR,
        )[: y1 - y0, : x1 - x0]
        amb = self.look.ambient
        f = 1.0 - self.look.shadow_strength * part / (1.0 + amb) * 0.95
        fg = (np.clip(f, 0.0, 1.0) ** (1.0 / GAMMA)).astype(np.float32)
        reg = img[y0:y1, x0:x1]
        reg[:] = np.round(reg.astype(np.float32) * fg[..., None]).astype(np.uint8)


def _surface_detail(o, local: np.ndarray) -> np.ndarray:
    """Albedo factor for folds in clothing and strands of hair (local coordinates from
    ``_hit_prim``: capsule ``(along_mm, angle)``, ellipsoid ``(x, y, z)`` in mm)."""
    if o.kind == "cloth":
        if isinstance(o, Capsule):
            along, ang = local[:, 0], local[:, 1]
            w = np.sin(along / 23.0 + 1.7 * np.sin(ang * 2.0 + along / 61.0))
        else:
            x, y = local[:, 0], local[:, 1]
            w = np.sin(x / 31.0 + 2.2 * np.sin(y / 47.0)) * np.cos(y / 83.0 + x / 140.0)
        return (0.86 + 0.14 * w - 0.22 * np.maximum(-w, 0.0) ** 3).astype(np.float32)
    if o.kind == "hair":
        x, y = local[:, 0], local[:, 1]
        w = np.sin(y / 2.3 + 3.0 * np.sin(x / 37.0)) * np.sin(x / 11.0 + y / 29.0)
        return (0.8 + 0.35 * w).astype(np.float32)
    return np.ones(len(local), np.float32)


def _same_pose(a: BallPose, b: BallPose) -> bool:
    return (
        a.on_table == b.on_table
        and abs(a.x_mm - b.x_mm) < 1e-6
        and abs(a.y_mm - b.y_mm) < 1e-6
        and abs(a.lift_mm - b.lift_mm) < 1e-6
        and np.allclose(np.asarray(a.rotation), np.asarray(b.rotation), atol=1e-9)
    )
