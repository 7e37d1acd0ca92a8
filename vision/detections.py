"""The one interchange type between detection, identification and tracking.

Supervision-style: parallel numpy arrays, one row a detected ball, plus the frame
index and time.  ``xy_px`` is the centre of the ball's image (distorted pixels of
the source frame); ``xy_mm`` is the ball centre projected onto the bed (parallax
corrected: the image point unprojected at ball-centre height).  ``cls_prob`` holds
class probabilities over ``classes`` once identification has run (``labels``
is its arg-max; empty before).  ``blur_mm`` is, for a motion-blurred streak
(a ball too fast to show a round rim), half the path its centre swept during the
exposure (a vector in table mm, the streak's axis); zero for a round ball.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# A round detection scoring less than this may be a motion-blur streak's blurred end
# (the detector drops such ends on a streak; the tracker never pairs a crisp rim).
STREAK_END_MAX_SCORE = 0.6


@dataclass
class Detections:
    frame: int
    t: float
    xy_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    xy_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    radius_px: np.ndarray = field(default_factory=lambda: np.zeros(0))
    score: np.ndarray = field(default_factory=lambda: np.zeros(0))
    cls_prob: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    classes: tuple[str, ...] = ()
    blur_mm: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = len(self.xy_px)
        if self.blur_mm is None:
            self.blur_mm = np.zeros((n, 2))
        self.blur_mm = np.asarray(self.blur_mm, dtype=np.float64).reshape(n, 2)
        self.xy_px = np.asarray(self.xy_px, dtype=np.float64).reshape(n, 2)
        self.xy_mm = np.asarray(self.xy_mm, dtype=np.float64).reshape(n, 2)
        self.radius_px = np.asarray(self.radius_px, dtype=np.float64).reshape(n)
        self.score = np.asarray(self.score, dtype=np.float64).reshape(n)
        cp = np.asarray(self.cls_prob, dtype=np.float64)
        k = len(self.classes)
        if k and cp.size == n * k:
            self.cls_prob = cp.reshape(n, k)  # n == 0 included: no rows, still k classes
        elif cp.size:
            self.cls_prob = cp.reshape(n, -1)
        else:
            self.cls_prob = np.zeros((n, 0))

    def __len__(self) -> int:
        return len(self.xy_px)

    @property
    def is_streak(self) -> np.ndarray:
        """Which rows are motion-blur streaks (no round rim: position only)."""
        return np.abs(self.blur_mm).sum(axis=1) > 0

    @property
    def labels(self) -> list[str]:
        """The most probable class of each detection ('' before identification, or
        where no class stands out: a row of equal probabilities)."""
        if not self.classes or self.cls_prob.shape[1] == 0:
            return [""] * len(self)
        if self.cls_prob.shape[1] == 1:
            return [self.classes[0]] * len(self)
        top2 = np.sort(self.cls_prob, axis=1)[:, -2:]
        best = np.argmax(self.cls_prob, axis=1)
        return [
            self.classes[b] if top2[i, 1] - top2[i, 0] > 1e-9 else "" for i, b in enumerate(best)
        ]

    def __getitem__(self, index: np.ndarray | slice | list[int]) -> Detections:
        """Select rows (a boolean mask, an index array or a slice)."""
        cp = self.cls_prob[index] if self.cls_prob.shape[1] else np.zeros((0, 0))
        return Detections(
            self.frame,
            self.t,
            self.xy_px[index],
            self.xy_mm[index],
            self.radius_px[index],
            self.score[index],
            cp,
            self.classes if self.cls_prob.shape[1] else (),
            self.blur_mm[index],
        )

    @classmethod
    def empty(cls, frame: int = 0, t: float = 0.0) -> Detections:
        return cls(frame, t)

    @classmethod
    def merge(cls, parts: list[Detections]) -> Detections:
        """Concatenate detections of the same frame."""
        if not parts:
            return cls.empty()
        classes = next((p.classes for p in parts if p.classes), ())
        has_cls = all(p.cls_prob.shape[1] == len(classes) for p in parts) and classes
        return cls(
            parts[0].frame,
            parts[0].t,
            np.concatenate([p.xy_px for p in parts]),
            np.concatenate([p.xy_mm for p in parts]),
            np.concatenate([p.radius_px for p in parts]),
            np.concatenate([p.score for p in parts]),
            np.concatenate([p.cls_prob for p in parts]) if has_cls else np.zeros((0, 0)),
            classes if has_cls else (),
            np.concatenate([p.blur_mm for p in parts]),
        )
