"""Hand-made tracker output for event tests: frames of seen (and hidden) balls."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from luza.vision.events import FrameObs


def frame_at(fps: float) -> Callable[..., FrameObs]:
    """``frame(k, seen, hidden=())``: frame ``k`` at ``fps`` with balls ``seen`` (id ->
    table mm) and ``hidden`` (ids on the table, out of view)."""

    def frame(k: int, seen: dict, hidden=()) -> FrameObs:
        xy = {b: (float(x), float(y)) for b, (x, y) in seen.items()}
        return FrameObs(k, k / fps, xy, frozenset(hidden))

    return frame


def rolled_away(ball: str, rest, way: Sequence, other: tuple, fps: float) -> list[FrameObs]:
    """``ball`` still at ``rest`` for 40 frames, seen along ``way`` (one point a frame),
    then gone for 60 frames; ball "3" lies still at ``other`` all along."""
    frame = frame_at(fps)
    pts = [rest] * 40 + list(way)
    frames = [frame(k, {ball: p, "3": other}) for k, p in enumerate(pts)]
    return frames + [frame(k, {"3": other}) for k in range(len(pts), len(pts) + 60)]
