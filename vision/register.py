"""Per-frame registration for a camera that is not fixed (handheld, bumped, drifting).

The tracker works in the image of one calibrated camera.  When the camera moves,
each frame is mapped back onto the reference frame (the one the calibration was
made on) by a homography of the table plane, estimated from what does not move:
the rails, cushions and pocket castings around the bed.  The bed itself is left
out (its balls move and its cloth has no texture).  ORB features matched to the
reference and a RANSAC homography give the first estimate; an ECC refinement on
the rails band makes it sub-pixel.  Then :func:`RegisteredSource` feeds the
warped frames to :class:`~luza.vision.pipeline.VisionPipeline` unchanged.

A homography is exact only for the plane it is estimated on: the rails stand a
cushion's height above the bed, so with a camera ~2 m up a 10 cm sideways move
shifts the bed by ~0.2 px more than the rails -- negligible.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from luza.errors import LuzaError

from .sources import Frame

WORK_WIDTH_PX = 960  # features are found on frames shrunk to this width
N_FEATURES = 3000
RATIO_TEST = 0.8  # Lowe's ratio for a good match
RANSAC_PX = 2.0  # inlier distance at the work scale
MIN_INLIERS = 25
ECC_ITERATIONS = 50
ECC_EPS = 1e-5


class RegistrationError(LuzaError):
    """A frame cannot be registered to the reference (too few rail features)."""


@dataclass
class Registration:
    H: np.ndarray  # frame pixels -> reference pixels
    inliers: int
    ecc: float | None  # ECC correlation after refinement (None: not refined)


def rails_mask(size: tuple[int, int], bed_px: np.ndarray, band_px: float) -> np.ndarray:
    """The band ``band_px`` wide outside the bed polygon (the rails and cushions)."""
    w, h = size
    outer = np.zeros((h, w), np.uint8)
    inner = np.zeros((h, w), np.uint8)
    poly = np.asarray(bed_px, np.float64)
    c = poly.mean(axis=0)
    grow = poly + (poly - c) / np.linalg.norm(poly - c, axis=1, keepdims=True) * band_px
    cv2.fillPoly(outer, [np.round(grow).astype(np.int32)], 255)
    cv2.fillPoly(inner, [np.round(poly).astype(np.int32)], 255)
    return cv2.subtract(outer, inner)


class FrameRegistrar:
    """Registers frames to a reference frame on a fixed region (the rails)."""

    def __init__(self, reference: np.ndarray, mask: np.ndarray | None = None) -> None:
        h, w = reference.shape[:2]
        self.size = (w, h)
        self.scale = min(1.0, WORK_WIDTH_PX / w)
        self._S = np.diag([self.scale, self.scale, 1.0])
        self._ref = self._grey(reference)
        m = np.full(self._ref.shape, 255, np.uint8) if mask is None else self._small_mask(mask)
        self._mask = m
        self._orb = cv2.ORB_create(N_FEATURES)
        self._kp, self._des = self._orb.detectAndCompute(self._ref, self._mask)
        if self._des is None or len(self._kp) < MIN_INLIERS:
            raise RegistrationError("too few features on the reference's rails to register")
        self._matcher = cv2.BFMatcher(cv2.NORM_HAMMING)

    def _grey(self, image: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        if self.scale < 1.0:
            g = cv2.resize(g, None, fx=self.scale, fy=self.scale, interpolation=cv2.INTER_AREA)
        return g

    def _small_mask(self, mask: np.ndarray) -> np.ndarray:
        if self.scale >= 1.0:
            return mask
        size = (self._ref.shape[1], self._ref.shape[0])
        return cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)

    def register(self, image: np.ndarray, refine: bool = True) -> Registration:
        """The homography taking ``image``'s pixels to the reference's."""
        g = self._grey(image)
        kp, des = self._orb.detectAndCompute(g, None)
        if des is None or len(kp) < MIN_INLIERS:
            raise RegistrationError("too few features in the frame to register")
        pairs = self._matcher.knnMatch(des, self._des, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO_TEST * p[1].distance]
        if len(good) < MIN_INLIERS:
            raise RegistrationError(f"only {len(good)} rail features matched the reference")
        src = np.float32([kp[m.queryIdx].pt for m in good])
        dst = np.float32([self._kp[m.trainIdx].pt for m in good])
        Hs, inl = cv2.findHomography(src, dst, cv2.RANSAC, RANSAC_PX)
        n_in = int(inl.sum()) if inl is not None else 0
        if Hs is None or n_in < MIN_INLIERS:
            raise RegistrationError(f"no consistent homography ({n_in} inliers)")
        ecc = None
        if refine:
            try:
                warp = Hs.astype(np.float32)
                crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, ECC_ITERATIONS, ECC_EPS)
                ecc, warp = cv2.findTransformECC(
                    self._ref,
                    g,
                    np.linalg.inv(warp).astype(np.float32),
                    cv2.MOTION_HOMOGRAPHY,
                    crit,
                    self._mask,
                    5,
                )
                Hs = np.linalg.inv(warp.astype(np.float64))
            except cv2.error:
                ecc = None  # keep the feature estimate
        H = np.linalg.inv(self._S) @ Hs @ self._S
        H /= H[2, 2]
        return Registration(H, n_in, ecc)

    def warp(self, image: np.ndarray, H: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(image, H, self.size, flags=cv2.INTER_LINEAR)


def registered_frames(frames, registrar: FrameRegistrar, log: list | None = None):
    """Frames mapped onto the reference (a generator; ``log`` collects the Registrations)."""
    for fr in frames:
        reg = registrar.register(fr.image)
        if log is not None:
            log.append(reg)
        yield Frame(fr.index, fr.t, registrar.warp(fr.image, reg.H))
