"""Frame sources: a video file, a camera index or a stream URL behind one interface.

``open_source(spec)`` returns a :class:`FrameSource`; iterate it for :class:`Frame`
objects (BGR ``uint8`` image, frame index, time in seconds from the start of the
source).  Everything goes through ``cv2.VideoCapture`` by default: on this machine
it decodes a 720p H.264 file at ~300-350 frames/s against ~180 for PyAV with
``to_ndarray("bgr24")`` (``benchmarks/bench_track.py`` prints both); PyAV stays
available as ``backend="pyav"``.

Errors a user can act on (a missing file, a file that is not a video, an absent
camera) raise :class:`SourceError`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from luza.errors import LuzaError

STREAM_PREFIXES = ("rtsp://", "rtmp://", "http://", "https://", "udp://", "tcp://")


class SourceError(LuzaError):
    """A video source is missing, unreadable or broken."""


@dataclass(frozen=True)
class Frame:
    """One decoded frame: ``image`` is BGR uint8 (H, W, 3)."""

    index: int
    t: float
    image: np.ndarray


class FrameSource:
    """Common interface: ``fps``, ``size`` (width, height), ``frame_count`` (or None), iteration."""

    fps: float
    size: tuple[int, int]
    frame_count: int | None
    name: str

    def __iter__(self) -> Iterator[Frame]:  # pragma: no cover - interface
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PyAVFileSource(FrameSource):
    """A video file decoded with PyAV (threaded decoding, BGR output)."""

    def __init__(self, path: str | Path, threads: int = 0) -> None:
        import av

        p = Path(path)
        if not p.exists():
            raise SourceError(f"video not found: {p}")
        if p.is_dir():
            raise SourceError(f"{p} is a directory, not a video")
        try:
            self._container = av.open(str(p))
            streams = self._container.streams.video
        except (av.error.FFmpegError, OSError, UnicodeDecodeError) as e:
            raise SourceError(f"{p}: cannot open as a video ({e})") from None
        if not streams:
            self._container.close()
            raise SourceError(f"{p}: has no video stream")
        self._stream = streams[0]
        self._stream.thread_type = "AUTO"
        if threads:
            self._stream.thread_count = threads
        rate = self._stream.average_rate or self._stream.guessed_rate
        self.fps = float(rate) if rate else 30.0
        cc = self._stream.codec_context
        self.size = (int(cc.width), int(cc.height))
        self.frame_count = int(self._stream.frames) or None
        self.name = str(p)
        self._path = p

    def __iter__(self) -> Iterator[Frame]:
        import av

        tb = self._stream.time_base
        t0: float | None = None
        try:
            for i, fr in enumerate(self._container.decode(self._stream)):
                if fr.pts is not None and tb is not None:
                    t = float(fr.pts * tb)
                    if t0 is None:
                        t0 = t
                    t -= t0
                else:
                    t = i / self.fps
                yield Frame(i, t, fr.to_ndarray(format="bgr24"))
        except av.error.FFmpegError as e:
            raise SourceError(f"{self._path}: broken video ({e})") from None

    def close(self) -> None:
        self._container.close()


class CvCaptureSource(FrameSource):
    """A camera index, a stream URL or a file through ``cv2.VideoCapture``."""

    def __init__(self, spec: str | int, live: bool | None = None, pace: bool = False) -> None:
        import cv2

        self._spec = spec
        is_index = isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit())
        if not is_index and not str(spec).startswith(STREAM_PREFIXES):
            p = Path(spec)
            if not p.exists():
                raise SourceError(f"video not found: {p}")
        self._cap = cv2.VideoCapture(int(spec) if is_index else str(spec))
        if not self._cap.isOpened():
            what = f"camera {spec}" if is_index else f"{spec}"
            raise SourceError(f"cannot open {what} (absent, busy or not a video)")
        self.live = is_index or str(spec).startswith(STREAM_PREFIXES) if live is None else live
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and fps > 0 else 30.0
        self.size = (
            int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        n = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self.frame_count = None if self.live or n <= 0 else n
        self.name = str(spec)
        self.drop_late = True  # live: skip frames the consumer cannot keep up with
        self.dropped = 0
        self.pace = pace  # a file replayed in real time, as a camera would deliver it

    def __iter__(self) -> Iterator[Frame]:
        if self.live and self.drop_late:
            yield from self._iter_latest()
            return
        yield from self._iter_all()

    def _iter_latest(self) -> Iterator[Frame]:
        """Live: a reader thread keeps only the newest frame, so a consumer that is
        slower than the camera skips frames instead of falling ever further behind
        (``dropped`` counts them; the tracker copes with the longer time steps)."""
        import threading

        lock = threading.Condition()
        box: dict = {"frame": None, "done": False, "n": 0}

        def reader() -> None:
            for fr in self._iter_all():
                with lock:
                    if box["frame"] is not None:
                        self.dropped += 1
                    box["frame"] = fr
                    lock.notify()
                if box["done"]:
                    break
            with lock:
                box["done"] = True
                lock.notify()

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        try:
            while True:
                with lock:
                    while box["frame"] is None and not box["done"]:
                        lock.wait(1.0)
                    fr, box["frame"] = box["frame"], None
                    if fr is None and box["done"]:
                        return
                if fr is not None:
                    yield fr
        finally:
            box["done"] = True

    def _iter_all(self) -> Iterator[Frame]:
        import cv2

        i = 0
        start = time.monotonic()
        while True:
            ok, img = self._cap.read()
            if not ok or img is None:
                if i == 0:
                    raise SourceError(f"{self._spec}: no frame could be read")
                return
            if self.pace:
                t = i / self.fps
                wait = start + t - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
            elif self.live:
                t = time.monotonic() - start
            else:
                ms = self._cap.get(cv2.CAP_PROP_POS_MSEC)
                t = ms / 1000.0 if ms > 0 or i == 0 else i / self.fps
            yield Frame(i, t, img)
            i += 1

    def close(self) -> None:
        self._cap.release()


class ArraySource(FrameSource):
    """Frames already in memory (tests, rendered clips)."""

    def __init__(self, images: list[np.ndarray], fps: float = 30.0, name: str = "<frames>"):
        if not images:
            raise SourceError(f"{name}: no frames")
        self._images = images
        self.fps = float(fps)
        h, w = images[0].shape[:2]
        self.size = (w, h)
        self.frame_count = len(images)
        self.name = name

    def __iter__(self) -> Iterator[Frame]:
        for i, img in enumerate(self._images):
            yield Frame(i, i / self.fps, img)


def open_source(spec: str | int | Path, backend: str = "auto") -> FrameSource:
    """Open a file path, a camera index (``0`` or ``"0"``) or a stream URL.

    ``backend``: ``"auto"`` (= ``"opencv"``, the faster decoder here) or ``"pyav"``
    (files only).
    """
    s = str(spec)
    is_camera = isinstance(spec, int) or s.isdigit()
    is_stream = s.startswith(STREAM_PREFIXES)
    if backend not in ("auto", "pyav", "opencv"):
        raise SourceError(f"unknown video backend '{backend}' (auto, pyav, opencv)")
    if is_camera or is_stream or backend in ("auto", "opencv"):
        return CvCaptureSource(spec if not isinstance(spec, Path) else str(spec))
    return PyAVFileSource(spec)


def decode_rate(spec: str | Path, backend: str = "auto", max_frames: int | None = None) -> float:
    """Decode-only frames per second of a file (the yardstick for end-to-end speed)."""
    n = 0
    t0 = time.perf_counter()
    with open_source(spec, backend) as src:
        for _ in src:
            n += 1
            if max_frames and n >= max_frames:
                break
    dt = time.perf_counter() - t0
    return n / dt if dt > 0 else float("inf")
