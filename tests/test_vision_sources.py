"""Frame sources: files through both decoders, arrays, and clear errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from luza.vision.sources import ArraySource, SourceError, decode_rate, open_source


def _write_clip(path, n=12, size=(160, 96), fps=25.0):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    assert w.isOpened()
    for i in range(n):
        img = np.zeros((size[1], size[0], 3), np.uint8)
        cv2.circle(img, (10 + 10 * i, 48), 8, (255, 255, 255), -1)
        w.write(img)
    w.release()
    return path


@pytest.mark.parametrize("backend", ["opencv", "pyav"])
def test_file_frames_indices_and_times(tmp_path, backend):
    p = _write_clip(tmp_path / "clip.mp4")
    with open_source(p, backend) as src:
        assert src.size == (160, 96)
        assert src.fps == pytest.approx(25.0, rel=0.01)
        frames = list(src)
    assert len(frames) == 12
    assert [f.index for f in frames] == list(range(12))
    ts = np.array([f.t for f in frames])
    assert ts[0] == pytest.approx(0.0, abs=1e-6)
    assert np.allclose(np.diff(ts), 1 / 25.0, atol=2e-3)
    # the white disc moves 10 px a frame: the decoded images are the real frames
    xs = [np.nonzero(f.image[48, :, 0] > 128)[0].mean() for f in frames]
    assert np.allclose(np.diff(xs), 10.0, atol=1.0)
    assert frames[0].image.dtype == np.uint8 and frames[0].image.shape == (96, 160, 3)


def test_decode_rate_is_positive(tmp_path):
    p = _write_clip(tmp_path / "clip.mp4")
    assert decode_rate(p) > 0
    assert decode_rate(p, "pyav", max_frames=5) > 0


def test_missing_file_is_a_clear_error(tmp_path):
    for backend in ("auto", "pyav"):
        with pytest.raises(SourceError, match="not found"):
            open_source(tmp_path / "nothere.mp4", backend)


def test_broken_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"this is not a video at all" * 10)
    for backend in ("auto", "pyav"):
        with pytest.raises(SourceError):
            src = open_source(bad, backend)
            list(src)


def test_absent_camera_is_a_clear_error():
    with pytest.raises(SourceError, match="camera 97"):
        open_source(97)


def test_unknown_backend():
    with pytest.raises(SourceError, match="backend"):
        open_source("x.mp4", "gstreamer")


def test_array_source():
    imgs = [np.full((4, 6, 3), i, np.uint8) for i in range(3)]
    src = ArraySource(imgs, fps=10)
    out = list(src)
    assert src.size == (6, 4)
    assert [f.t for f in out] == pytest.approx([0.0, 0.1, 0.2])
    assert out[2].image[0, 0, 0] == 2
    with pytest.raises(SourceError):
        ArraySource([])


def test_live_reader_drops_frames_a_slow_consumer_cannot_take(tmp_path):
    """A consumer slower than a live source for good skips the oldest frames: it lags
    by the backlog at most and always gets the newest frame."""
    import time

    from luza.vision.sources import CvCaptureSource

    p = _write_clip(tmp_path / "clip.mp4", n=40)
    src = CvCaptureSource(str(p), live=True, backlog_s=0.2)  # 5 frames at 25 fps
    assert src.backlog == 5
    got = []
    for fr in src:
        got.append(fr.index)
        time.sleep(0.02)  # slower than the reader
    assert got == sorted(got) and len(set(got)) == len(got)
    assert got[-1] == 39
    assert src.dropped > 0 and len(got) + src.dropped == 40
    assert src.max_backlog <= src.backlog


def test_live_reader_keeps_the_frames_of_a_short_stall(tmp_path):
    """A consumer that stalls for a few frames (the tracker at a break) gets every frame,
    late, and the source says how late: nothing is dropped within the backlog."""
    import time

    from luza.vision.sources import CvCaptureSource

    p = _write_clip(tmp_path / "clip.mp4", n=30)
    src = CvCaptureSource(str(p), live=True, pace=True, backlog_s=1.0)  # 25 frames
    got = []
    for fr in src:
        got.append(fr.index)
        if fr.index == 2:
            time.sleep(0.25)  # ~6 frames of the 25 fps source arrive meanwhile
    src.close()
    assert got == list(range(30))
    assert src.dropped == 0
    assert src.max_backlog >= 3
    assert src.max_wait_s >= 0.1
    # with room for one frame only, the same stall drops the frames it covered
    src = CvCaptureSource(str(p), live=True, pace=True, backlog_s=0.0)
    got = []
    for fr in src:
        got.append(fr.index)
        if fr.index == 2:
            time.sleep(0.25)
    src.close()
    assert src.backlog == 1 and src.dropped >= 3
    assert got[-1] == 29 and len(got) + src.dropped == 30
