"""Hand-made detections for tracker tests: a confident class row, a frame's Detections."""

from __future__ import annotations

import numpy as np

from luza.vision.detections import Detections

CLASSES = ("W1", "W2", "red", "K", "none")  # the Five Ball classifier's outputs


def class_row(cls: str) -> list[float]:
    """Class probabilities that read ``cls`` with 0.96 (the rest 0.01 each, normalised)."""
    p = np.full(len(CLASSES), 0.01)
    p[CLASSES.index(cls)] = 0.96
    return list(p / p.sum())


def detections(f: int, pts, rows, fps: float) -> Detections:
    """Frame ``f``'s detections at table points ``pts`` (mm) with class ``rows``."""
    xy = np.asarray(pts, float).reshape(-1, 2)
    return Detections(
        f, f / fps, 0.5 * xy, xy, np.full(len(xy), 10.0), np.full(len(xy), 0.9),
        np.array(rows).reshape(len(xy), len(CLASSES)), CLASSES,
    )  # fmt: skip


def recorded(rows, frame: int, fps: float, classes: tuple[str, ...]) -> Detections:
    """A frame's detections as recorded from a clip: one row per detection, ``x_mm, y_mm,
    score``, one probability per class of ``classes``, then ``blur_mm`` (x, y)."""
    a = np.array(rows, float)
    k = 3 + len(classes)
    return Detections(
        frame, frame / fps, np.zeros((len(a), 2)), a[:, :2], np.full(len(a), 10.4), a[:, 2],
        a[:, 3:k], classes, blur_mm=a[:, k : k + 2],
    )  # fmt: skip


def ivory_and_streak(frame: int, pts, fps: float, half_mm: float | None = None) -> Detections:
    """Free Pyramid detections: round ivory balls at ``pts`` (table mm); with
    ``half_mm``, the last one a motion-blur streak of that half length along x (score
    0.5, ivory and yellow alike)."""
    pts = np.asarray(pts, float).reshape(-1, 2)
    n = len(pts)
    blur = np.zeros((n, 2))
    score = np.ones(n)
    if half_mm is not None:
        blur[-1] = [half_mm, 0.0]
        score[-1] = 0.5
    streak = np.abs(blur).sum(1) > 0
    prob = np.where(streak[:, None], [[0.5, 0.5, 0.0]], [[1.0, 0.0, 0.0]])
    return Detections(
        frame, frame / fps, np.zeros_like(pts), pts, np.full(n, 10.0), score, prob,
        ("ivory", "Y", "none"), blur_mm=blur,
    )  # fmt: skip
