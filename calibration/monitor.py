"""While tracking: notice that the camera was knocked or zoomed, and recalibrate.

The check is cheap and looks at what matters: points along the four cushion
noses, where the calibration says they are.  Each check measures, across each
nose, how far the image edge now lies from where it lay when the table was
calibrated.  When the median shift passes ``moved_px`` (or the edges are gone
from where they were) on ``confirm`` checks in a row, the table has moved: the
monitor recalibrates from the most recent frames (the camera settles after a
knock) and carries on with the new calibration.

    mon = TableMonitor(cal)
    for i, frame in enumerate(frames):
        ev = mon.update(frame, i)
        if ev is not None:
            log(ev)            # "recalibrated" or "recalibration_failed", with the shift
        cal = mon.calibration  # always the current one
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from luza.calibration.calib import Calibration, CalibrationError, calibrate

CHECK_EVERY_FRAMES = 10
MOVED_PX = 1.5  # median shift of the nose edges that means the camera moved
SEARCH_PX = 12.0  # how far across each nose an edge is looked for
MIN_EDGE_FRACTION = 0.35  # fewer nose points with an edge than this: the table is gone
RECAL_FRAMES = 5


@dataclass
class MonitorEvent:
    """What the monitor noticed (plain data, JSON-friendly via ``to_dict``)."""

    type: str  # "recalibrated" | "recalibration_failed"
    frame: int
    shift_px: float
    edge_fraction: float
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "type": self.type,
            "frame": self.frame,
            "shift_px": round(self.shift_px, 2),
            "edge_fraction": round(self.edge_fraction, 3),
            **self.detail,
        }


def _grey(img: np.ndarray) -> np.ndarray:
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    return cv2.GaussianBlur(g.astype(np.float32), (0, 0), 1.2)


class TableMonitor:
    """Keeps a calibration valid over a live or recorded stream."""

    def __init__(
        self,
        calibration: Calibration,
        reference: np.ndarray | None = None,
        check_every: int = CHECK_EVERY_FRAMES,
        moved_px: float = MOVED_PX,
        confirm: int = 2,
    ) -> None:
        self.check_every = max(1, int(check_every))
        self.moved_px = moved_px
        self.confirm = max(1, int(confirm))
        self._recent: deque[np.ndarray] = deque(maxlen=RECAL_FRAMES)
        self._strikes = 0
        self._lost = False
        self._set_calibration(calibration, reference)

    # ------------------------------------------------------------------ state
    @property
    def calibration(self) -> Calibration:
        return self._cal

    @property
    def lost(self) -> bool:
        """True after the table moved and could not be recalibrated yet."""
        return self._lost

    def _set_calibration(self, cal: Calibration, reference: np.ndarray | None) -> None:
        self._cal = cal
        p = cal.profile
        L, W, hn = p.length_mm, p.width_mm, p.cushion_nose_height_mm
        pts, inward = [], []
        for (a, b), nrm in (
            (((0.0, 0.0), (0.0, W)), (1.0, 0.0)),
            (((L, 0.0), (L, W)), (-1.0, 0.0)),
            (((0.0, 0.0), (L, 0.0)), (0.0, 1.0)),
            (((0.0, W), (L, W)), (0.0, -1.0)),
        ):
            t = np.linspace(0.08, 0.92, 40)
            if abs(b[0] - a[0]) > 0:  # long cushion: skip the middle pocket
                t = t[np.abs(t - 0.5) > 0.05]
            xy = np.array(a) + (np.array(b) - np.array(a)) * t[:, None]
            pts.append(xy)
            inward.append(np.tile(nrm, (len(t), 1)))
        xy = np.concatenate(pts)
        nin = np.concatenate(inward)
        px = cal.to_image(xy, hn)
        px_in = cal.to_image(xy + 10.0 * nin, hn)
        d = px_in - px
        self._px = px
        self._normal = d / np.linalg.norm(d, axis=1, keepdims=True)
        self._offsets = np.arange(-SEARCH_PX, SEARCH_PX + 0.01, 0.5)
        self._ref = None
        if reference is not None:
            self._ref, _ = self._measure(reference)

    # ------------------------------------------------------------------ checks
    def _measure(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per nose point: offset (px) of the strongest edge across the nose, and its strength."""
        g = _grey(frame)
        o = self._offsets
        pts = self._px[:, None, :] + o[None, :, None] * self._normal[:, None, :]
        m = pts.reshape(-1, 1, 2).astype(np.float32)
        vals = cv2.remap(g, m[..., 0], m[..., 1], cv2.INTER_LINEAR, borderValue=0.0)
        prof = vals.reshape(len(self._px), len(o))
        grad = np.abs(np.gradient(prof, 0.5, axis=1))
        k = np.argmax(grad, axis=1)
        strength = grad[np.arange(len(k)), k]
        return o[k], strength

    def check(self, frame: np.ndarray) -> tuple[float, float]:
        """(median shift in px of the nose edges since calibration, fraction still found)."""
        off, strength = self._measure(frame)
        if self._ref is None:
            self._ref = off
            self._ref_strength = float(np.median(strength))
        ref_s = getattr(self, "_ref_strength", float(np.median(strength)))
        good = strength > 0.4 * ref_s
        frac = float(good.mean())
        if good.sum() < 5:
            return float("inf"), frac
        return float(np.median(np.abs(off[good] - self._ref[good]))), frac

    def update(self, frame: np.ndarray, index: int) -> MonitorEvent | None:
        """Feed every frame; returns an event when something happened."""
        self._recent.append(frame)
        if self._ref is None:
            self.check(frame)  # the first frame is the reference
            return None
        if index % self.check_every != 0 and not self._lost and self._strikes == 0:
            return None
        shift, frac = self.check(frame)
        moved = shift > self.moved_px or frac < MIN_EDGE_FRACTION
        if not moved and not self._lost:
            self._strikes = 0
            return None
        if self._strikes == 0:
            # the view changed: recalibrate from frames of the new view only
            self._recent.clear()
            self._recent.append(frame)
        self._strikes += 1
        if self._strikes < self.confirm and not self._lost:
            return None
        if len(self._recent) < self._recent.maxlen:
            return None  # let a few frames of the new view arrive
        return self._recalibrate(index, shift, frac)

    def _recalibrate(self, index: int, shift: float, frac: float) -> MonitorEvent:
        was_lost = self._lost
        try:
            # newest first: with a camera still moving, the frames kept as still (see
            # find_table.still_frames) are those of the view now
            cal = calibrate(list(self._recent)[::-1], self._cal.profile)
        except CalibrationError as e:
            self._lost = True
            self._strikes = 0
            self._recent.clear()
            return MonitorEvent("recalibration_failed", index, shift, frac, {"reason": str(e)})
        self._set_calibration(cal, self._recent[-1])
        self._ref_strength = float(np.median(self._measure(self._recent[-1])[1]))
        self._lost = False
        self._strikes = 0
        return MonitorEvent(
            "recalibrated",
            index,
            shift,
            frac,
            {"after_lost": was_lost, "confidence": cal.quality.get("confidence")},
        )
