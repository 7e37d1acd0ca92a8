"""Files decoded ahead in a thread: same frames, in order, errors raised, no thread left."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from luza.vision.sources import (
    PREFETCH_BYTES,
    PREFETCH_MIN_FRAMES,
    CvCaptureSource,
    SourceError,
    _Prefetch,
    open_source,
    prefetch_depth,
    tracker_threads,
)


def _decode_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "luza-decode" and t.is_alive()]


def _write(path, fourcc="mp4v", n=30, size=(160, 96), fps=25.0):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*fourcc), fps, size)
    assert w.isOpened()
    for i in range(n):
        img = np.zeros((size[1], size[0], 3), np.uint8)
        cv2.circle(img, (10 + 4 * i, 48), 8, (255, 255, 255), -1)
        cv2.putText(img, str(i), (5, 90), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 200, 0))
        w.write(img)
    w.release()
    return path


@pytest.mark.parametrize("backend", ["opencv", "pyav"])
def test_prefetched_frames_are_the_inline_frames(tmp_path, backend):
    p = _write(tmp_path / "clip.mp4")
    with open_source(p, backend, prefetch=0) as src:
        inline = list(src)
    with open_source(p, backend, prefetch=3) as src:
        ahead = []
        for fr in src:
            ahead.append(fr)
            time.sleep(0.002)  # a consumer slower than the decoder: the queue fills up
    assert len(ahead) == len(inline) == 30
    assert [f.index for f in ahead] == list(range(30))
    for a, b in zip(ahead, inline, strict=True):
        assert a.t == pytest.approx(b.t)
        assert np.array_equal(a.image, b.image)
    assert not _decode_threads()


@pytest.mark.parametrize("backend", ["opencv", "pyav"])
def test_abandoned_iteration_and_close_leave_no_thread(tmp_path, backend):
    p = _write(tmp_path / "clip.mp4")
    src = open_source(p, backend)
    for fr in src:
        if fr.index == 2:
            break
    src.close()
    assert not _decode_threads()
    # closed while a consumer still holds the iterator (the decoder queue is full)
    src = open_source(p, backend)
    it = iter(src)
    assert next(it).index == 0
    time.sleep(0.05)
    src.close()
    assert not _decode_threads()
    # the iterator dropped without close(): its thread ends with it
    src = open_source(p, backend)
    it = iter(src)
    next(it)
    del it
    assert not _decode_threads()
    src.close()
    # an iterator never started starts no thread
    src = open_source(p, backend)
    it = iter(src)
    assert not _decode_threads()
    del it
    src.close()


def test_truncated_video_gives_a_prefix_or_a_source_error(tmp_path):
    """An AVI cut in the middle: its first frames in order, then the end (OpenCV) or a
    SourceError raised in the consumer (PyAV sees the broken packet)."""
    p = _write(tmp_path / "clip.avi", fourcc="MJPG", n=40)
    data = p.read_bytes()
    cut = tmp_path / "cut.avi"
    cut.write_bytes(data[: len(data) // 2])
    for backend in ("opencv", "pyav"):
        got = []
        try:
            with open_source(cut, backend) as src:
                for fr in src:
                    got.append(fr.index)
        except SourceError as e:
            assert "cut.avi" in str(e)
        assert 5 <= len(got) < 40
        assert got == list(range(len(got)))
        assert not _decode_threads()


def test_producer_error_is_raised_in_the_consumer_after_the_frames_before_it():
    def gen():
        yield from range(3)
        raise SourceError("broken at 3")

    got = []
    with pytest.raises(SourceError, match="broken at 3"):
        for x in _Prefetch(gen, 2):
            got.append(x)
    assert got == [0, 1, 2]
    assert not _decode_threads()


def test_producer_runs_at_most_depth_ahead_and_is_closed_in_its_thread():
    made = []
    closed = []

    def gen():
        try:
            for i in range(100):
                made.append(i)
                yield i
        finally:
            closed.append(threading.current_thread().name)

    ahead = _Prefetch(gen, 3)
    it = iter(ahead)
    assert next(it) == 0
    time.sleep(0.1)
    # one handed out, three queued, one made and waiting for room
    assert len(made) <= 1 + 3 + 1
    ahead.stop()
    assert not ahead.running
    assert closed == ["luza-decode"]


def test_default_read_ahead_is_a_memory_budget_not_a_few_frames():
    """A tracker's pace swings (a break: several decodes a frame; a table at rest: a
    fraction of one), so the decoder banks frames in the slow stretch: by default as
    many as PREFETCH_BYTES hold -- 43 frames of 1080p -- never fewer than the minimum."""
    assert prefetch_depth(None, (1920, 1080)) == PREFETCH_BYTES // (3 * 1920 * 1080) == 43
    assert prefetch_depth(None, (7680, 4320)) == PREFETCH_MIN_FRAMES
    assert prefetch_depth(0, (1920, 1080)) == 0
    assert prefetch_depth(3, (1920, 1080)) == 3


@pytest.mark.parametrize("backend", ["opencv", "pyav"])
def test_a_small_clip_is_decoded_whole_while_the_consumer_holds_its_first_frame(tmp_path, backend):
    p = _write(tmp_path / "clip.mp4", n=30)  # 30 frames of 46 KB: far within the budget
    with open_source(p, backend) as src:
        it = iter(src)
        assert next(it).index == 0
        deadline = time.monotonic() + 10.0
        while _decode_threads() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _decode_threads()  # the decoder reached the end, nothing was taken
        assert [f.index for f in it] == list(range(1, 30))


def test_a_files_tracker_leaves_the_decoder_a_core_a_live_one_does_not(tmp_path, monkeypatch):
    """A file decoded ahead keeps a core busy: the detector's windows get the others (on
    two cores, one thread -- a second only took turns with the decoder); a live source
    leaves the detector its own choice."""
    p = _write(tmp_path / "clip.mp4")
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    with open_source(p, for_tracking=True) as src:
        assert tracker_threads(src) == 1
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    n = cv2.getNumThreads()
    try:
        cv2.setNumThreads(8)
        with open_source(p, "pyav") as src:
            assert tracker_threads(src) == 7
            cv2.setNumThreads(1)  # a batch worker's share of the machine: one core
            assert tracker_threads(src) == 1
    finally:
        cv2.setNumThreads(n)
    live = CvCaptureSource(str(p), live=True)
    try:
        assert tracker_threads(live) is None
    finally:
        live.close()
    paced = CvCaptureSource(str(p), pace=True)
    try:
        assert tracker_threads(paced) is None
    finally:
        paced.close()
