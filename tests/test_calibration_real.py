"""Real overhead footage (skipped when /work/shared/realdata is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from luza.calibration.calib import calibrate
from luza.calibration.profiles import load_profile

REAL = Path("/work/shared/realdata")
GT_DIR = REAL / (
    "LukasSeglias__billiard-ai/test/billiard_detection/resources/test_detection/"
    "with_projector_on/without_halo"
)
JAMES = REAL / "james-ecd__pool-ball-tracker/resources/video-1531832402.mp4"
pytestmark = pytest.mark.skipif(not REAL.exists(), reason="real data not present")


def test_lukasseglias_pixel_to_mm_matches_ground_truth_balls():
    prof = load_profile("snooker-lukasseglias")
    frames = [cv2.imread(str(p)) for p in sorted(GT_DIR.glob("*.png"))]
    cal = calibrate(frames, prof)
    L, W = prof.size_mm
    mm, px = [], []
    for case in json.loads((GT_DIR / "testcases.json").read_text())["cases"]:
        for b in case["balls"]:
            mm.append((b["x"] + L / 2, W / 2 - b["y"]))  # their origin: centre, +y up
            px.append((b["pixelX"], b["pixelY"]))
    err = np.linalg.norm(cal.ball_to_table(np.array(px)) - np.array(mm), axis=1)
    assert len(err) == 176
    assert np.median(err) < 3.5 and np.percentile(err, 95) < 5.0
    assert cal.quality["head_end"]["decided_by"] == "markings"  # the baulk line
    assert cal.quality["head_end"]["image_side"] == "left"
    assert len(cal.quality["pockets"]["found"]) == 6


def test_james_ecd_handheld_table_is_found():
    cap = cv2.VideoCapture(str(JAMES))
    frames = []
    for _ in range(8):
        ok, f = cap.read()
        if ok:
            frames.append(f)
    cal = calibrate(frames, load_profile("pool-uk-7ft"))
    assert cal.quality["edge_rms_px"] < 1.5
    assert len(cal.quality["pockets"]["found"]) >= 5
    # the bed corners lie near the rough cloth corners noted in its PROVENANCE.md
    rough = np.array([(97, 78), (140, 578), (1100, 560), (1135, 68)], float)  # TL, BL, BR, TR
    ours = np.array(
        [
            cal.image_points["bed_corners"][k]
            for k in ("head-left", "head-right", "foot-right", "foot-left")
        ]
    )
    assert np.abs(ours - rough).max() < 30
