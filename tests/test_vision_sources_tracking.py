"""A file read for a tracker: one decoding thread up to 1080p, the same frames."""

from __future__ import annotations

import cv2
import numpy as np

from luza.vision.sources import TRACKING_DECODE_MAX_PX, open_source


def _write(path, size, n=8, fps=25.0):
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
    assert w.isOpened()
    rng = np.random.default_rng(1)
    for i in range(n):
        img = rng.integers(0, 60, (size[1], size[0], 3), dtype=np.uint8)
        cv2.circle(img, (20 + 15 * i, size[1] // 2), 12, (255, 255, 255), -1)
        w.write(img)
    w.release()
    return path


def _threads(src) -> float:
    return src._cap.get(cv2.CAP_PROP_N_THREADS)


def test_up_to_1080p_a_tracker_gets_the_frames_from_one_decoding_thread(tmp_path):
    p = _write(tmp_path / "clip.mp4", (640, 360))
    with open_source(p) as plain, open_source(p, for_tracking=True) as mine:
        assert _threads(mine) == 1
        assert _threads(plain) != 1 or (cv2.getNumberOfCPUs() == 1)
        a, b = list(plain), list(mine)
    # the same frames, bit for bit, at the same times
    assert len(a) == len(b) == 8
    for fa, fb in zip(a, b, strict=True):
        assert fa.index == fb.index and fa.t == fb.t
        assert np.array_equal(fa.image, fb.image)


def test_bigger_frames_keep_ffmpegs_own_threads(tmp_path):
    w, h = 2048, 1152
    assert w * h > TRACKING_DECODE_MAX_PX
    p = _write(tmp_path / "big.mp4", (w, h), n=3)
    with open_source(p) as plain, open_source(p, for_tracking=True) as mine:
        assert _threads(mine) == _threads(plain)
        assert len(list(mine)) == 3
