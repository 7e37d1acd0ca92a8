"""A small, fast ray-traced table image for vision tests and training crops.

Not the project's full renderer (``luza.samples.render``): one lamp, Lambert +
Blinn shading, soft contact shadows, pocket holes, optional motion blur, printed
dots (Five Ball white 1: one dot, white 2: two dots), sensor noise, and a skin
coloured occluder polygon.  Geometry is exact: each ball is a sphere ray-traced
through the :class:`CameraModel` (lens distortion included), so the image of a
ball centre is where ``camera.project(xy, R)`` says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile

# Linear-ish BGR albedos (0..1).
CLOTH_BGR = (0.10, 0.42, 0.08)
RAIL_BGR = (0.04, 0.09, 0.22)
BALL_BGR = {
    "ivory": (0.62, 0.80, 0.86),
    "yellow": (0.05, 0.62, 0.90),
    "red": (0.06, 0.06, 0.72),
    "white": (0.86, 0.88, 0.88),
}
DOT_BGR = (0.08, 0.08, 0.1)
SKIN_BGR = (0.35, 0.45, 0.70)
DOT_ANGLE_RAD = 0.22  # angular radius of a printed dot
DOT_PAIR_RAD = 0.38  # angular offset of each dot of the two-dot pair from its axis


@dataclass(frozen=True)
class SynthBall:
    """A ball to draw: table mm centre, colour key, dots (0, 1, 2), body rotation, velocity."""

    x_mm: float
    y_mm: float
    colour: str = "ivory"
    dots: int = 0
    rotation: np.ndarray | None = None
    vx_mm_s: float = 0.0
    vy_mm_s: float = 0.0


def _rays(camera: CameraModel, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    px = np.stack([xs, ys], -1).reshape(-1, 2).astype(np.float64)
    und = camera.undistort_px(px)
    d = np.linalg.solve(camera.K, np.column_stack([und, np.ones(len(und))]).T)
    d = camera.R.T @ d
    d /= np.linalg.norm(d, axis=0)
    return d.T.reshape(*xs.shape, 3)


def _dot_axes(n: int, rotation: np.ndarray) -> np.ndarray:
    """World directions of a ball's dots (body axes rotated into the world)."""
    if n == 0:
        return np.zeros((0, 3))
    if n == 1:
        body = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, 1.0]])  # a dot on both poles
    else:
        s, c = math.sin(DOT_PAIR_RAD), math.cos(DOT_PAIR_RAD)
        body = np.array([[s, 0, -c], [-s, 0, -c], [s, 0, c], [-s, 0, c]])
    return body @ rotation.T


class SynthTable:
    """Draws frames of one camera over one table."""

    def __init__(self, camera: CameraModel, profile: TableProfile, seed: int = 0) -> None:
        self.camera = camera
        self.profile = profile
        self.R = profile.ball_radius_mm
        w, h = camera.image_size
        gx, gy = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        bed = camera.unproject(np.stack([gx, gy], -1).reshape(-1, 2), 0.0).reshape(h, w, 2)
        L, W = profile.length_mm, profile.width_mm
        cx, cy = L / 2, W / 2
        rng = np.random.default_rng(seed)
        # Lamp fall-off towards the ends and sides, a little cloth texture.
        light = 1.0 - 0.25 * (((bed[..., 0] - cx) / L) ** 2 * 2 + ((bed[..., 1] - cy) / W) ** 2)
        tex = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 2.0)
        tex = 1.0 + 0.04 * tex / max(1e-6, float(tex.std()))
        inside = profile.in_bed(bed, -0.0)
        cushion = profile.in_bed(bed, -profile.cushion_width_mm) & ~inside
        img = np.empty((h, w, 3), np.float32)
        img[:] = RAIL_BGR
        cl = np.array(CLOTH_BGR, np.float32)
        img[inside | cushion] = cl
        img[cushion] *= 0.85
        img *= (light * tex)[..., None].astype(np.float32)
        for pk in profile.pockets().values():
            d = np.linalg.norm(bed - np.array(pk.centre), axis=-1)
            img[d < pk.spec.drop_radius_mm] = 0.02
        self._light_map = light.astype(np.float32)
        self.background = img
        self._bed = bed

    def render(
        self,
        balls: list[SynthBall],
        exposure_s: float = 0.0,
        noise: float = 2.0,
        occluder_mm: np.ndarray | None = None,
        seed: int = 0,
    ) -> np.ndarray:
        """A BGR uint8 frame. ``exposure_s`` > 0 smears moving balls (motion blur)."""
        img = self.background.copy()
        cam, R = self.camera, self.R
        C = cam.centre_world
        lamp = np.array([0.25, -0.15, -1.0])
        lamp /= np.linalg.norm(lamp)
        # Soft contact shadows first (on the cloth), then the balls.
        for b in balls:
            self._shadow(img, b)
        for b in balls:
            n_sub = 1
            if exposure_s > 0:
                speed = math.hypot(b.vx_mm_s, b.vy_mm_s) * exposure_s
                n_sub = max(1, min(24, int(speed / (0.25 * R)) + 1))
            acc = None
            cov_acc = None
            for k in range(n_sub):
                f = (k + 0.5) / n_sub - 0.5 if n_sub > 1 else 0.0
                x = b.x_mm + b.vx_mm_s * exposure_s * f
                y = b.y_mm + b.vy_mm_s * exposure_s * f
                out = self._ball(b, x, y, C, lamp)
                if out is None:
                    continue
                box, col, cov = out
                if acc is None:
                    acc, cov_acc, box0 = [col * cov[..., None]], [cov], [box]
                else:
                    acc.append(col * cov[..., None])
                    cov_acc.append(cov)
                    box0.append(box)
            if acc is None:
                continue
            for col_c, cov, box in zip(acc, cov_acc, box0, strict=True):
                x0, y0, x1, y1 = box
                a = cov[..., None] / n_sub
                reg = img[y0:y1, x0:x1]
                img[y0:y1, x0:x1] = reg * (1 - a) + (col_c / np.maximum(cov[..., None], 1e-6)) * a
        if occluder_mm is not None:
            poly = cam.project(np.asarray(occluder_mm, float), 60.0).astype(np.int32)
            mask = np.zeros(img.shape[:2], np.uint8)
            cv2.fillPoly(mask, [poly], 255)
            img[mask > 0] = SKIN_BGR
        out = img * 255.0
        if noise > 0:
            rng = np.random.default_rng(seed)
            out = out + rng.normal(0, noise, out.shape).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8)

    def _shadow(self, img: np.ndarray, b: SynthBall) -> None:
        R = self.R
        sx, sy = b.x_mm - 0.25 * R, b.y_mm + 0.15 * R
        box = self._box(sx, sy, 2.2 * R, 0.0)
        if box is None:
            return
        x0, y0, x1, y1 = box
        d = np.linalg.norm(self._bed[y0:y1, x0:x1] - np.array([sx, sy]), axis=-1)
        f = 1.0 - 0.45 * np.clip(1.6 - d / R, 0.0, 1.0)
        img[y0:y1, x0:x1] *= f[..., None].astype(np.float32)

    def _box(self, x: float, y: float, r_mm: float, h_mm: float):
        w, h = self.camera.image_size
        ring = np.array(
            [(x + r_mm * math.cos(a), y + r_mm * math.sin(a)) for a in np.linspace(0, 6.3, 16)]
        )
        p = self.camera.project(ring, h_mm)
        x0, y0 = np.floor(p.min(0)).astype(int) - 2
        x1, y1 = np.ceil(p.max(0)).astype(int) + 3
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def _ball(self, b: SynthBall, x: float, y: float, C: np.ndarray, lamp: np.ndarray):
        R = self.R
        box = self._box(x, y, 1.4 * R, R)
        if box is None:
            return None
        x0, y0, x1, y1 = box
        ss = 3  # supersampling per axis
        off = (np.arange(ss) + 0.5) / ss - 0.5
        gx, gy = np.meshgrid(
            np.arange(x0, x1, dtype=np.float64), np.arange(y0, y1, dtype=np.float64)
        )
        sxs = (gx[..., None, None] + off[None, None, None, :]).repeat(ss, axis=2)
        sys_ = (gy[..., None, None] + off[None, None, :, None]).repeat(ss, axis=3)
        d = _rays(self.camera, sxs, sys_)
        S = np.array([x, y, -R])
        oc = C - S
        bq = d @ oc
        cq = oc @ oc - R * R
        disc = bq * bq - cq
        hit = disc > 0
        s = -bq - np.sqrt(np.maximum(disc, 0))
        P = C + d * s[..., None]
        n = (P - S) / R
        lam = np.clip(n @ lamp, 0, 1)
        hv = lamp - d
        hv /= np.linalg.norm(hv, axis=-1, keepdims=True)
        spec = np.clip((n * hv).sum(-1), 0, 1) ** 60
        alb = np.broadcast_to(np.array(BALL_BGR[b.colour], np.float64), n.shape).copy()
        if b.dots:
            rot = b.rotation if b.rotation is not None else np.eye(3)
            axes = _dot_axes(b.dots, rot)
            cosang = n @ axes.T
            on_dot = (cosang > math.cos(DOT_ANGLE_RAD)).any(-1)
            alb[on_dot] = DOT_BGR
        col = alb * (0.3 + 0.7 * lam)[..., None] + 0.9 * spec[..., None]
        lm = self._light_map[y0:y1, x0:x1][..., None, None, None]
        col = col * lm
        col = np.where(hit[..., None], col, 0.0)
        cov = hit.mean(axis=(2, 3))
        col = col.sum(axis=(2, 3)) / (ss * ss)
        return (x0, y0, x1, y1), col.astype(np.float32), cov.astype(np.float32)


def pyramid_camera(profile: TableProfile, image_size=(1920, 1080), **kw) -> CameraModel:
    """A typical overhead camera for tests: 3 m up, slight tilt, mild barrel distortion."""
    kw.setdefault("height_mm", 3000.0)
    kw.setdefault("tilt_deg", (1.0, -0.5))
    kw.setdefault("dist", (-0.05, 0.01, 0.0, 0.0, 0.0))
    return CameraModel.looking_down(profile.size_mm, image_size, **kw)
