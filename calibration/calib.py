"""The calibration of one camera view of one table, and ``calibrate()`` to find it.

A :class:`Calibration` ties a :class:`CameraModel` (intrinsics, lens distortion,
pose) to a :class:`TableProfile`, so any image pixel maps to table millimetres
on any plane above the cloth (``height_mm``: 0 for the cloth, the ball radius for
ball centres, the cushion nose height for the cushion noses) and back.

``calib.json`` stands alone: it embeds the profile and the camera and holds the
image points of the bed corners, pockets and spots in pixels of the original
(distorted) image, plus the quality report.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, profile_from_dict
from luza.errors import LuzaError
from luza.output_files import atomic_file

FORMAT = "luza-calibration/1"


class CalibrationError(LuzaError):
    """The table could not be calibrated (the message says why)."""


def _profile_to_dict(p: TableProfile) -> dict:
    def spec(s) -> dict:
        return {
            "mouth_mm": s.mouth_mm,
            "jaw_radius_mm": s.jaw_radius_mm,
            "jaw_angle_deg": s.jaw_angle_deg,
            "channel_mm": s.channel_mm,
            "drop_radius_mm": s.drop_radius_mm,
            "drop_depth_mm": s.drop_depth_mm,
        }

    return {
        "name": p.name,
        "description": p.description,
        "length_mm": p.length_mm,
        "width_mm": p.width_mm,
        "ball_diameter_mm": p.ball_diameter_mm,
        "ball_mass_kg": p.ball_mass_kg,
        "cushion_nose_height_mm": p.cushion_nose_height_mm,
        "cushion_width_mm": p.cushion_width_mm,
        "rail_width_mm": p.rail_width_mm,
        "pockets": {"corner": spec(p.corner), "middle": spec(p.middle)},
        "spots": {k: {"mm": list(v)} for k, v in p.spots.items()},
        "marked_spots": list(p.marked_spots),
        "lines": {
            k: {"from": {"mm": list(a)}, "to": {"mm": list(b)}} for k, (a, b) in p.lines.items()
        },
        "marked_lines": list(p.marked_lines),
        "physics": dict(p.physics),
    }


def image_points_for(camera: CameraModel, profile: TableProfile) -> dict:
    """Bed corners (cushion-nose rectangle), pocket centres and spots in distorted pixels."""
    hn = profile.cushion_nose_height_mm
    corners = profile.bed_corners()
    pockets = profile.pockets()
    out = {
        "bed_corners": {
            k: camera.project(np.array(v), hn).round(3).tolist() for k, v in corners.items()
        },
        # the pocket opening is seen at the height of the cushion nose / rail top
        "pockets": {
            k: camera.project(np.array(p.centre), hn).round(3).tolist() for k, p in pockets.items()
        },
        "spots": {
            k: camera.project(np.array(v), 0.0).round(3).tolist() for k, v in profile.spots.items()
        },
    }
    return out


@dataclass
class Calibration:
    """A camera model for one view of one table, plus how it was found."""

    camera: CameraModel
    profile: TableProfile
    quality: dict = field(default_factory=dict)
    image_points: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.image_points:
            self.image_points = image_points_for(self.camera, self.profile)

    # ------------------------------------------------------------- mapping
    def to_table(self, px: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Distorted image pixels -> table mm on the plane ``height_mm`` above the cloth."""
        return self.camera.unproject(np.asarray(px, dtype=float), height_mm)

    def to_image(self, xy_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table mm at ``height_mm`` above the cloth -> distorted image pixels."""
        return self.camera.project(np.asarray(xy_mm, dtype=float), height_mm)

    def ball_to_table(self, px: np.ndarray) -> np.ndarray:
        """A ball's image centre -> its centre on the bed (parallax of the ball radius)."""
        return self.to_table(px, self.profile.ball_radius_mm)

    @property
    def image_size(self) -> tuple[int, int]:
        return self.camera.image_size

    # ------------------------------------------------------------- files
    def to_dict(self) -> dict:
        return {
            "format": FORMAT,
            "image_size": list(self.camera.image_size),
            "image_points": self.image_points,
            "camera": self.camera.to_dict(),
            "profile": _profile_to_dict(self.profile),
            "quality": self.quality,
        }

    def save(self, path: str | Path) -> None:
        """Write the calibration JSON whole or not at all (``OutputError`` if it cannot)."""
        with atomic_file(path) as tmp:
            tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, d: dict, source: str = "<dict>") -> Calibration:
        if not isinstance(d, dict) or "camera" not in d or "profile" not in d:
            raise CalibrationError(
                f"{source}: not a luza calibration (needs 'camera' and 'profile')"
            )
        try:
            camera = CameraModel.from_dict(d["camera"])
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationError(f"{source}: malformed camera ({e})") from None
        profile = profile_from_dict(d["profile"], source)
        return cls(camera, profile, dict(d.get("quality", {})), dict(d.get("image_points", {})))

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        p = Path(path)
        if not p.exists():
            raise CalibrationError(f"calibration file not found: {p}")
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CalibrationError(f"{p}: not valid JSON ({e})") from None
        return cls.from_dict(d, str(p))


def calibrate(
    frames: Sequence[np.ndarray] | np.ndarray,
    profile: TableProfile,
    camera_hint: CameraModel | None = None,
    head: str | None = None,
) -> Calibration:
    """Find the table in one frame or several frames of a fixed camera.

    ``camera_hint`` (e.g. from ``luza calibrate-camera``) fixes the intrinsics and
    distortion; otherwise they are estimated from the table itself.  ``head``
    (``left|right|top|bottom``: where the head cushion is in the image) is used
    only when the markings cannot tell the head from the foot.
    Raises :class:`CalibrationError` with the reason when it cannot calibrate.
    """
    from luza.calibration.find_table import find_table

    fit = find_table(frames, profile, camera_hint=camera_hint, head=head)
    return Calibration(fit.camera, profile, fit.quality)
