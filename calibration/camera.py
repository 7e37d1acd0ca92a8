"""Pinhole camera with lens distortion, looking at the table.

World frame: table millimetres (DESIGN.md), ``x`` along the table from the head
cushion nose, ``y`` across from the left cushion nose.  To keep the frame
right-handed the third axis ``z`` points *down* into the bed, so a point at
height ``h`` above the cloth has ``z = -h`` (a ball centre: ``z = -D/2``).

Distortion follows OpenCV's model ``(k1, k2, p1, p2, k3)``; pixel coordinates
are those of the original (distorted) image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np


def _as_xy(points: np.ndarray) -> np.ndarray:
    p = np.asarray(points, dtype=np.float64)
    if p.shape[-1] != 2:
        raise ValueError(f"expected points with 2 coordinates, got shape {p.shape}")
    return p


@dataclass
class CameraModel:
    """Intrinsics ``K``, distortion ``dist`` and pose ``rvec, tvec`` (world -> camera)."""

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    image_size: tuple[int, int]  # (width, height) in pixels
    _R: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        self.dist = np.asarray(self.dist, dtype=np.float64).ravel()
        if self.dist.size < 5:
            self.dist = np.concatenate([self.dist, np.zeros(5 - self.dist.size)])
        self.rvec = np.asarray(self.rvec, dtype=np.float64).reshape(3)
        self.tvec = np.asarray(self.tvec, dtype=np.float64).reshape(3)
        self.image_size = (int(self.image_size[0]), int(self.image_size[1]))
        self._R = cv2.Rodrigues(self.rvec)[0]

    # ------------------------------------------------------------ construction
    @classmethod
    def looking_down(
        cls,
        table_size_mm: tuple[float, float],
        image_size: tuple[int, int],
        height_mm: float = 3000.0,
        focal_px: float | None = None,
        fill: float = 0.9,
        tilt_deg: tuple[float, float] = (0.0, 0.0),
        roll_deg: float = 0.0,
        offset_mm: tuple[float, float] = (0.0, 0.0),
        dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
        principal_offset_px: tuple[float, float] = (0.0, 0.0),
    ) -> CameraModel:
        """A camera above the bed centre, the table's long axis along the image's x axis.

        ``height_mm`` is the camera's height above the cloth; ``focal_px`` defaults to
        the focal length at which the bed (plus rails) fills ``fill`` of the image.
        ``tilt_deg`` tips the optical axis (about the table's y and x axes), ``roll_deg``
        turns the image about the optical axis, ``offset_mm`` moves the camera
        sideways.  The head cushion is at the left of the image.
        """
        L, W = table_size_mm
        w, h = image_size
        if focal_px is None:
            span_x, span_y = L + 400.0, W + 400.0
            focal_px = fill * min(w * height_mm / span_x, h * height_mm / span_y)
        K = np.array(
            [
                [focal_px, 0.0, w / 2.0 + principal_offset_px[0]],
                [0.0, focal_px, h / 2.0 + principal_offset_px[1]],
                [0.0, 0.0, 1.0],
            ]
        )
        # Base orientation: camera x = world x (head at the image left), camera y =
        # world y (left cushion at the top), camera z = world z (down into the bed).
        R = np.eye(3)
        ty, tx = (math.radians(a) for a in tilt_deg)
        rz = math.radians(roll_deg)
        Ry = cv2.Rodrigues(np.array([0.0, ty, 0.0]))[0]
        Rx = cv2.Rodrigues(np.array([tx, 0.0, 0.0]))[0]
        Rz = cv2.Rodrigues(np.array([0.0, 0.0, rz]))[0]
        R = Rz @ Rx @ Ry @ R  # world -> camera
        # Camera centre in world: above the bed centre (z = -height).
        C = np.array([L / 2.0 + offset_mm[0], W / 2.0 + offset_mm[1], -height_mm])
        # Aim: rotate about the camera centre so the optical axis still meets the
        # bed near its centre -- tilt moves the centre, compensate so the table stays framed.
        axis_hit = C + R.T @ np.array([0.0, 0.0, 1.0]) * height_mm / max(
            1e-9, (R.T @ np.array([0.0, 0.0, 1.0]))[2]
        )
        shift = np.array([L / 2.0, W / 2.0, 0.0]) - axis_hit
        C = C + np.array([shift[0], shift[1], 0.0])
        tvec = -R @ C
        rvec = cv2.Rodrigues(R)[0].ravel()
        return cls(K, np.asarray(dist, dtype=float), rvec, tvec, (w, h))

    # --------------------------------------------------------------- geometry
    @property
    def R(self) -> np.ndarray:
        return self._R

    @property
    def centre_world(self) -> np.ndarray:
        """Camera centre in world coordinates (``z`` negative: above the bed)."""
        return -self._R.T @ self.tvec

    def project(self, xy_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table mm at a height above the cloth -> pixels of the distorted image."""
        xy = _as_xy(xy_mm)
        shape = xy.shape[:-1]
        flat = xy.reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), shape).reshape(-1)
        obj = np.column_stack([flat, z])
        if obj.shape[0] == 0:
            return np.zeros((*shape, 2))
        px, _ = cv2.projectPoints(obj, self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(*shape, 2)

    def undistort_px(self, px: np.ndarray) -> np.ndarray:
        """Distorted pixels -> ideal (undistorted) pixels with the same ``K``."""
        p = _as_xy(px)
        shape = p.shape[:-1]
        flat = p.reshape(-1, 1, 2)
        if flat.shape[0] == 0:
            return np.zeros((*shape, 2))
        u = cv2.undistortPoints(
            flat,
            self.K,
            self.dist,
            R=None,
            P=self.K,
            criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6),
        )
        return u.reshape(*shape, 2)

    def unproject(self, px: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Pixels of the distorted image -> table mm on the plane at ``height_mm``."""
        p = _as_xy(px)
        shape = p.shape[:-1]
        und = self.undistort_px(p).reshape(-1, 2)
        rays_cam = np.linalg.solve(self.K, np.column_stack([und, np.ones(len(und))]).T)
        rays = self._R.T @ rays_cam  # world directions
        C = self.centre_world
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), shape).reshape(-1)
        s = (z - C[2]) / rays[2]
        world = C[:, None] + rays * s
        return world[:2].T.reshape(*shape, 2)

    def homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 map from table mm (plane at ``height_mm``) to *undistorted* pixels."""
        z = -height_mm
        P = self.K @ np.column_stack([self._R, self.tvec])
        H = np.column_stack([P[:, 0], P[:, 1], P[:, 2] * z + P[:, 3]])
        return H / H[2, 2]

    def mm_per_px(self, xy_mm: tuple[float, float], height_mm: float = 0.0) -> float:
        """Approximate scale near a table point (mm per pixel)."""
        p = np.array([xy_mm, (xy_mm[0] + 10.0, xy_mm[1]), (xy_mm[0], xy_mm[1] + 10.0)])
        q = self.project(p, height_mm)
        d = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[0]))
        return 10.0 / d

    # ----------------------------------------------------------- serialising
    def to_dict(self) -> dict:
        return {
            "K": self.K.tolist(),
            "dist": self.dist.tolist(),
            "rvec": self.rvec.tolist(),
            "tvec": self.tvec.tolist(),
            "image_size": list(self.image_size),
        }

    @classmethod
    def from_dict(cls, d: dict) -> CameraModel:
        return cls(d["K"], d["dist"], d["rvec"], d["tvec"], tuple(d["image_size"]))
