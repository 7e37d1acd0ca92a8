"""H.264 video in and out through PyAV (OpenCV's wheel cannot encode H.264).

``VideoWriter(path, fps, size, crf=23)`` is a context manager taking BGR uint8
frames; ``read_frames(path)`` yields them back as BGR arrays; ``probe(path)`` says
what a file holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from luza.errors import LuzaError


class VideoError(LuzaError):
    """A video cannot be written or read."""


class VideoWriter:
    """Writes BGR frames to an H.264 (yuv420p) MP4/MKV file.

    ``size`` is ``(width, height)`` (even numbers, as yuv420p needs); ``crf`` the
    constant-rate quality (18 visually lossless .. 30 visibly compressed);
    ``preset`` the x264 speed/size trade-off.
    """

    def __init__(
        self,
        path: str | Path,
        fps: float,
        size: tuple[int, int],
        crf: int = 23,
        preset: str = "veryfast",
    ) -> None:
        self.path = Path(path)
        self.fps = fps
        self.size = (int(size[0]), int(size[1]))
        if self.size[0] % 2 or self.size[1] % 2:
            raise VideoError(f"{self.path}: frame size {self.size} must be even for yuv420p")
        self.crf = int(crf)
        self.preset = preset
        self._container = None
        self._stream = None
        self.frames_written = 0

    def __enter__(self) -> VideoWriter:
        self.open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._container = av.open(str(self.path), mode="w")
        except (OSError, av.error.FFmpegError) as e:
            raise VideoError(f"cannot open {self.path} for writing: {e}") from None
        rate = Fraction(self.fps).limit_denominator(1001)
        s = self._container.add_stream("libx264", rate=rate)
        s.width, s.height = self.size
        s.pix_fmt = "yuv420p"
        s.options = {"crf": str(self.crf), "preset": self.preset}
        self._stream = s

    def write(self, frame_bgr: np.ndarray) -> None:
        if self._stream is None:
            raise VideoError("VideoWriter is not open (use it as a context manager)")
        f = np.asarray(frame_bgr)
        if f.dtype != np.uint8 or f.ndim != 3 or f.shape[2] != 3:
            raise VideoError(f"expected an HxWx3 uint8 BGR frame, got {f.dtype} {f.shape}")
        if (f.shape[1], f.shape[0]) != self.size:
            raise VideoError(f"frame size {f.shape[1]}x{f.shape[0]} != writer size {self.size}")
        vf = av.VideoFrame.from_ndarray(np.ascontiguousarray(f), format="bgr24")
        for packet in self._stream.encode(vf):
            self._container.mux(packet)
        self.frames_written += 1

    def close(self) -> None:
        if self._container is None:
            return
        try:
            for packet in self._stream.encode():
                self._container.mux(packet)
        finally:
            self._container.close()
            self._container = None
            self._stream = None


def read_frames(path: str | Path) -> Iterator[np.ndarray]:
    """Decode every frame of a video file as a BGR uint8 array (H, W, 3)."""
    p = Path(path)
    if not p.exists():
        raise VideoError(f"video not found: {p}")
    try:
        container = av.open(str(p))
    except av.error.FFmpegError as e:
        raise VideoError(f"cannot read {p}: {e}") from None
    try:
        if not container.streams.video:
            raise VideoError(f"{p} has no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for frame in container.decode(stream):
            yield frame.to_ndarray(format="bgr24")
    finally:
        container.close()


@dataclass(frozen=True)
class VideoInfo:
    width: int
    height: int
    fps: float
    frames: int  # as the container reports it (0 when unknown)
    codec: str
    duration_s: float


def probe(path: str | Path) -> VideoInfo:
    """Size, frame rate, frame count and codec of a video file."""
    p = Path(path)
    if not p.exists():
        raise VideoError(f"video not found: {p}")
    try:
        with av.open(str(p)) as c:
            if not c.streams.video:
                raise VideoError(f"{p} has no video stream")
            s = c.streams.video[0]
            fps = float(s.average_rate or s.base_rate or 0.0)
            dur = float(s.duration * s.time_base) if s.duration else float(c.duration or 0) / 1e6
            return VideoInfo(
                width=s.codec_context.width,
                height=s.codec_context.height,
                fps=fps,
                frames=int(s.frames or 0),
                codec=s.codec_context.name,
                duration_s=dur,
            )
    except av.error.FFmpegError as e:
        raise VideoError(f"cannot read {p}: {e}") from None
