"""Frame sources: a video file, a camera index or a stream URL behind one interface.

``open_source(spec)`` returns a :class:`FrameSource`; iterate it for :class:`Frame`
objects (BGR ``uint8`` image, frame index, time in seconds from the start of the
source).  Everything goes through ``cv2.VideoCapture`` by default: on this machine
it decodes a 720p H.264 file at ~300-350 frames/s against ~180 for PyAV with
``to_ndarray("bgr24")`` (``benchmarks/bench_track.py`` prints both); PyAV stays
available as ``backend="pyav"``.

A file is decoded ahead of its consumer by a thread (as many frames as
``PREFETCH_BYTES`` hold, at least ``PREFETCH_MIN_FRAMES``): the decoders release the
GIL, so tracking runs while the next frames decode and end to end approaches the
slower of the two instead of their sum.  The reserve is deep because a tracker's
pace swings: a break (every ball moving) takes it several times a frame's decoding,
a table at rest a fraction of it; a deep queue lets the decoder bank the frames of
the slow stretch and the tracker spend them in the fast one instead of waiting.
Frames still come in order, none is lost, an error in the decoder is raised in
the consumer, and the thread stops when the iteration ends, is abandoned
(``break``) or the source is closed.

A live source (a camera, a stream, or a file replayed in real time) is read by its
own thread as frames come.  A consumer that falls behind (the tracker at a break:
fifteen balls moving for a few seconds) finds the frames it has not taken yet
waiting, up to ``LIVE_BACKLOG_S`` of them; only beyond that are the oldest dropped,
so a burst of slow frames costs a little delay instead of frames, and a consumer
slower for good still keeps up, skipping frames.  The source counts what it
dropped (``dropped``), the longest backlog (``max_backlog``, frames) and the longest
time a frame waited to be taken (``max_wait_s``).

Errors a user can act on (a missing file, a file that is not a video, an absent
camera) raise :class:`SourceError`.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from luza.errors import LuzaError

STREAM_PREFIXES = ("rtsp://", "rtmp://", "http://", "https://", "udp://", "tcp://")
# a file's frames decoded ahead of the consumer: at most this much memory (1080p BGR:
# 43 frames; 4 frames of 1080p had end to end ~14 % slower on a rally), at least
# PREFETCH_MIN_FRAMES
PREFETCH_BYTES = 256 * 2**20
PREFETCH_MIN_FRAMES = 4
READER_JOIN_S = 5.0  # closing waits this long for a camera / stream read to return
LIVE_BACKLOG_S = 1.0  # live: frames a slow consumer has not taken wait this long at most
LIVE_BACKLOG_BYTES = 512 * 2**20  # ... and take this much memory at most (1080p: 85 frames)
# a file read by a tracker in the same process: FFmpeg's own choice is a decoding thread
# per core, which then takes turns on the tracker's core; one thread decodes 1080p at
# about twice the tracker's rate, so up to this many pixels a frame it decodes alone
# and leaves the other core to the tracker (bigger frames: FFmpeg's choice)
TRACKING_DECODE_MAX_PX = 1920 * 1088
_POLL_S = 0.05  # how often a blocked decode thread looks whether it should stop


class SourceError(LuzaError):
    """A video source is missing, unreadable or broken."""


@dataclass(frozen=True)
class Frame:
    """One decoded frame: ``image`` is BGR uint8 (H, W, 3)."""

    index: int
    t: float
    image: np.ndarray


def prefetch_depth(prefetch: int | None, size: tuple[int, int]) -> int:
    """Frames a file's decoder may run ahead: ``prefetch`` if given, else as many BGR
    frames of ``size`` (width, height) as ``PREFETCH_BYTES`` hold, at least
    ``PREFETCH_MIN_FRAMES``."""
    if prefetch is not None:
        return max(0, int(prefetch))
    frame_bytes = max(1, 3 * size[0] * size[1])
    return max(PREFETCH_MIN_FRAMES, PREFETCH_BYTES // frame_bytes)


class _Prefetch:
    """Runs an iterator in a thread, at most ``depth`` items ahead of the consumer.

    Iterate it once: the thread starts with the first item asked for; items come in
    order; the producer's exception (a broken video) is raised here; ending,
    abandoning the iteration or :meth:`stop` ends the thread (the producer's
    iterator is closed in its own thread, so its ``finally`` runs there, never
    concurrently with the consumer).
    """

    _ITEM, _END, _ERROR = range(3)

    def __init__(self, make_iter: Callable[[], Iterator], depth: int) -> None:
        self._q: queue.Queue = queue.Queue(maxsize=max(1, depth))
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(make_iter,), name="luza-decode", daemon=True
        )

    def _put(self, item: tuple) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def _run(self, make_iter: Callable[[], Iterator]) -> None:
        it = None
        try:
            it = make_iter()
            for x in it:
                if not self._put((self._ITEM, x)):
                    return
            self._put((self._END, None))
        except BaseException as e:  # handed to the consumer, raised there
            self._put((self._ERROR, e))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()

    def __iter__(self) -> Iterator:
        if self._stop.is_set():
            return
        self._thread.start()
        try:
            while True:
                kind, x = self._q.get()
                if kind == self._ITEM:
                    yield x
                elif kind == self._END:
                    return
                else:
                    raise x
        finally:
            self.stop()

    def stop(self) -> None:
        """End the producer thread (idempotent); frames decoded ahead are dropped."""
        self._stop.set()
        if threading.current_thread() is self._thread or self._thread.ident is None:
            return  # the producer itself, or a thread never started
        while self._thread.is_alive():
            try:  # unblock a producer waiting on a full queue
                while True:
                    self._q.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(_POLL_S)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()


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

    def __init__(self, path: str | Path, threads: int = 0, prefetch: int | None = None) -> None:
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
        self.prefetch = prefetch_depth(prefetch, self.size)
        self._ahead: _Prefetch | None = None

    def __iter__(self) -> Iterator[Frame]:
        if self.prefetch > 0:
            self._ahead = _Prefetch(self._decode, self.prefetch)
            return iter(self._ahead)
        return self._decode()

    def _decode(self) -> Iterator[Frame]:
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
        if self._ahead is not None:
            self._ahead.stop()
        self._container.close()


class CvCaptureSource(FrameSource):
    """A camera index, a stream URL or a file through ``cv2.VideoCapture``."""

    def __init__(
        self,
        spec: str | int,
        live: bool | None = None,
        pace: bool = False,
        prefetch: int | None = None,
        backlog_s: float = LIVE_BACKLOG_S,
        for_tracking: bool = False,
    ) -> None:
        import cv2

        self._spec = spec
        is_index = isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit())
        is_file = not is_index and not str(spec).startswith(STREAM_PREFIXES)
        if is_file:
            p = Path(spec)
            if not p.exists():
                raise SourceError(f"video not found: {p}")
        self._cap = cv2.VideoCapture(int(spec) if is_index else str(spec))
        if for_tracking and is_file and self._cap.isOpened() and self._one_thread_keeps_up():
            self._cap.release()
            self._cap = cv2.VideoCapture(str(spec), cv2.CAP_ANY, [cv2.CAP_PROP_N_THREADS, 1])
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
        # live: frames kept for a consumer that fell behind (at least the newest one)
        self.backlog_s = backlog_s
        frame_bytes = max(1, 3 * self.size[0] * self.size[1])
        self.backlog = max(
            1, min(int(round(backlog_s * self.fps)), LIVE_BACKLOG_BYTES // frame_bytes)
        )
        self.dropped = 0
        self.max_backlog = 0  # the most frames that waited at once
        self.max_wait_s = 0.0  # the longest a frame waited for the consumer
        self.pace = pace  # a file replayed in real time, as a camera would deliver it
        # a file (not live, not paced): frames decoded ahead
        self.prefetch = prefetch_depth(prefetch, self.size)
        self._ahead: _Prefetch | None = None
        self._reader: threading.Thread | None = None
        self._reader_done: dict | None = None

    def _one_thread_keeps_up(self) -> bool:
        """Whether one decoding thread is enough for a tracker (``TRACKING_DECODE_MAX_PX``)."""
        import cv2

        w = self._cap.get(cv2.CAP_PROP_FRAME_WIDTH)
        h = self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT)
        return 0 < w * h <= TRACKING_DECODE_MAX_PX

    def __iter__(self) -> Iterator[Frame]:
        if self.live and self.drop_late:
            return self._iter_latest()
        if not self.live and not self.pace and self.prefetch > 0:
            self._ahead = _Prefetch(self._iter_all, self.prefetch)
            return iter(self._ahead)
        return self._iter_all()

    def _iter_latest(self) -> Iterator[Frame]:
        """Live: a reader thread keeps the frames the consumer has not taken yet, the
        newest ``backlog`` of them and none older than ``backlog_s``, so a consumer
        slower than the camera for a while takes every frame a little late, and one
        slower for good skips the oldest frames instead of falling ever further behind
        (``dropped`` counts them; the tracker copes with the longer time steps)."""
        lock = threading.Condition()
        box: dict = {"frames": collections.deque(), "done": False, "error": None}
        waiting = box["frames"]  # (frame, when it came)

        def reader() -> None:
            try:
                for fr in self._iter_all():
                    with lock:
                        waiting.append((fr, time.monotonic()))
                        if len(waiting) > self.backlog:
                            waiting.popleft()
                            self.dropped += 1
                        self.max_backlog = max(self.max_backlog, len(waiting))
                        lock.notify()
                    if box["done"]:
                        break
            except BaseException as e:  # raised in the consumer
                box["error"] = e
            with lock:
                box["done"] = True
                lock.notify()

        th = threading.Thread(target=reader, name="luza-camera", daemon=True)
        self._reader, self._reader_done = th, box
        th.start()
        try:
            while True:
                with lock:
                    while not waiting and not box["done"]:
                        lock.wait(1.0)
                    if not waiting:  # done, and nothing left
                        if box["error"] is not None:
                            raise box["error"]
                        return
                    now = time.monotonic()
                    # older than the backlog (the source came slower than its rate): late
                    while len(waiting) > 1 and now - waiting[0][1] > self.backlog_s:
                        waiting.popleft()
                        self.dropped += 1
                    fr, came = waiting.popleft()
                    self.max_wait_s = max(self.max_wait_s, now - came)
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
        """Stop the decode / reader thread (no read runs while the capture is released)."""
        if self._ahead is not None:
            self._ahead.stop()
        if self._reader is not None and self._reader_done is not None:
            self._reader_done["done"] = True
            self._reader.join(READER_JOIN_S)
            if self._reader.is_alive():
                return  # a stream stuck in a read: released with the object, not under it
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


def open_source(
    spec: str | int | Path,
    backend: str = "auto",
    prefetch: int | None = None,
    for_tracking: bool = False,
) -> FrameSource:
    """Open a file path, a camera index (``0`` or ``"0"``) or a stream URL.

    ``backend``: ``"auto"`` (= ``"opencv"``, the faster decoder here) or ``"pyav"``
    (files only).  ``prefetch``: frames of a file decoded ahead in a thread (0: none;
    None: as many as ``PREFETCH_BYTES`` hold).
    ``for_tracking``: a tracker in this process takes the frames -- a file up to 1080p
    is decoded on one thread, leaving the other cores to it (``TRACKING_DECODE_MAX_PX``).
    """
    s = str(spec)
    is_camera = isinstance(spec, int) or s.isdigit()
    is_stream = s.startswith(STREAM_PREFIXES)
    if backend not in ("auto", "pyav", "opencv"):
        raise SourceError(f"unknown video backend '{backend}' (auto, pyav, opencv)")
    if is_camera or is_stream or backend in ("auto", "opencv"):
        return CvCaptureSource(
            spec if not isinstance(spec, Path) else str(spec),
            prefetch=prefetch,
            for_tracking=for_tracking,
        )
    return PyAVFileSource(spec, prefetch=prefetch)


def tracker_threads(src: FrameSource) -> int | None:
    """Threads a tracker in this process should give its per-frame work (the detector's
    search windows) beside ``src``: a file decoded ahead keeps a core of its own busy, so
    one fewer than the machine's cores, at least 1 (on two cores, windows on a second
    thread only took turns with the decoder: end to end 5-10 % slower on 1080p files),
    and never more than OpenCV may use (``cv2.setNumThreads``: a batch worker's share of
    the machine); None -- the detector's own choice -- for a live source, whose decoding
    takes a fraction of a core."""
    import cv2

    if getattr(src, "live", False) or getattr(src, "pace", False):
        return None
    return max(1, min((os.cpu_count() or 1) - 1, cv2.getNumThreads()))


def decode_rate(
    spec: str | Path,
    backend: str = "auto",
    max_frames: int | None = None,
    prefetch: int | None = None,
) -> float:
    """Decode-only frames per second of a file (the yardstick for end-to-end speed)."""
    n = 0
    t0 = time.perf_counter()
    with open_source(spec, backend, prefetch) as src:
        for _ in src:
            n += 1
            if max_frames and n >= max_frames:
                break
    dt = time.perf_counter() - t0
    return n / dt if dt > 0 else float("inf")
