"""H.264 round trip through PyAV: what the renderer writes, the tracker reads back."""

from __future__ import annotations

import numpy as np
import pytest

from luza.errors import LuzaError
from luza.samples.video import VideoWriter, probe, read_frames


def _frames(n: int, w: int, h: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for i in range(n):
        f = np.zeros((h, w, 3), np.uint8)
        f[..., 0] = (xx * 255 // w).astype(np.uint8)
        f[..., 1] = 90
        f[..., 2] = (yy * 255 // h).astype(np.uint8)
        # A bright square moving across: the content changes frame to frame.
        x0 = 20 + 12 * i
        f[60:100, x0 : x0 + 40] = (240, 240, 230)
        f = np.clip(f.astype(int) + rng.integers(-3, 4, f.shape), 0, 255).astype(np.uint8)
        out.append(f)
    return out


@pytest.mark.parametrize("fps,size", [(30, (320, 240)), (60, (256, 144))])
def test_write_and_read_back(tmp_path, fps, size):
    w, h = size
    frames = _frames(12, w, h)
    path = tmp_path / "clip.mp4"
    with VideoWriter(path, fps, (w, h), crf=18) as vw:
        for f in frames:
            vw.write(f)
    assert vw.frames_written == 12
    back = list(read_frames(path))
    assert len(back) == len(frames)
    for a, b in zip(frames, back, strict=True):
        assert b.shape == a.shape and b.dtype == np.uint8
        assert np.abs(a.astype(int) - b.astype(int)).mean() < 4.0
    # The moving square is where it was written.
    assert back[5][80, 20 + 12 * 5 + 20].mean() > 200
    info = probe(path)
    assert (info.width, info.height) == (w, h)
    assert info.codec == "h264"
    assert info.fps == pytest.approx(fps)
    assert info.frames in (0, 12)


def test_bad_inputs_are_luza_errors(tmp_path):
    with pytest.raises(LuzaError):
        list(read_frames(tmp_path / "missing.mp4"))
    with pytest.raises(LuzaError):
        VideoWriter(tmp_path / "odd.mp4", 30, (321, 240))
    with VideoWriter(tmp_path / "x.mp4", 30, (64, 48)) as vw, pytest.raises(LuzaError):
        vw.write(np.zeros((48, 60, 3), np.uint8))
    (tmp_path / "junk.mp4").write_bytes(b"not a video")
    with pytest.raises(LuzaError):
        list(read_frames(tmp_path / "junk.mp4"))
