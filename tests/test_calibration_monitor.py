"""The monitor notices a knocked camera and recalibrates; a still camera is left alone.

Frames come from the project renderer (``tests/render_helpers.py``).  The recalibration
works from the median of several frames, i.e. the clean cloth, which the calibrator must
accept (``test_calibration_find.test_clean_cloth_is_a_table``).
"""

from __future__ import annotations

import numpy as np
from render_helpers import renderer, table_frame

from luza.calibration.calib import calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.monitor import TableMonitor
from luza.calibration.profiles import load_profile

PYR = load_profile("pyramid-12ft")


def _cam(**kw) -> CameraModel:
    return CameraModel.looking_down(
        PYR.size_mm, (1280, 720), height_mm=3000, tilt_deg=(2, -1), **kw
    )


def test_knocked_camera_is_noticed_and_recalibrated():
    rng = np.random.default_rng(1)
    a, b = _cam(), _cam(roll_deg=1.0, offset_mm=(40.0, 0.0))

    def frames(cam, n, s0):
        out = []
        for i in range(n):
            balls = [(rng.uniform(100, 3400), rng.uniform(100, 1700)) for _ in range(4)]
            out.append(table_frame(renderer(cam), seed=s0 + i, balls=balls))
        return out

    before, after = frames(a, 8, 0), frames(b, 10, 100)
    mon = TableMonitor(calibrate(before[:2], PYR), check_every=4)
    events = [ev for i, f in enumerate(before + after) if (ev := mon.update(f, i)) is not None]
    assert [e.type for e in events] == ["recalibrated"]
    assert 8 <= events[0].frame <= 8 + 9  # within two checks and a few frames of the knock
    grid = np.array([[300.0, 200.0], [1775.0, 887.0], [3300.0, 1600.0]])
    err = np.linalg.norm(mon.calibration.to_table(b.project(grid, 0.0), 0.0) - grid, axis=1)
    assert err.max() < 8.0
    assert not mon.lost


def test_still_camera_with_moving_balls_raises_nothing():
    cam = _cam()
    rng = np.random.default_rng(2)
    frames = [
        table_frame(
            renderer(cam),
            seed=i,
            arm=i % 3 == 0,
            balls=[(rng.uniform(100, 3400), rng.uniform(100, 1700)) for _ in range(8)],
        )
        for i in range(6)
    ]
    mon = TableMonitor(calibrate(frames[:2], PYR), check_every=2)
    assert all(mon.update(f, i) is None for i, f in enumerate(frames))
    shift, frac = mon.check(frames[-1])
    assert shift < 1.0 and frac > 0.8
