"""Plain data types the physics hands to its users (the renderer, scenes, the tracker)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class BallPose:
    """Where one ball is at one instant, for drawing and for ground truth.

    ``x_mm, y_mm``: the centre projected onto the bed (table mm, DESIGN.md).
    ``lift_mm``: height of the ball's lowest point above the cloth -- 0 on the bed,
    positive in the air (a jump), negative while it drops into a pocket.
    ``rotation``: 3x3 body -> world rotation (world as in ``calibration.camera``:
    z points down into the bed), so printed numbers and dots turn as it rolls.
    ``on_table``: False once the ball is pocketed, off the table or taken away.
    """

    x_mm: float
    y_mm: float
    lift_mm: float = 0.0
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    on_table: bool = True


@dataclass(frozen=True)
class Strike:
    """A cue stroke on one ball.

    ``speed_mm_s``: cue-ball speed just after the tip leaves it.
    ``angle_rad``: direction of travel in table coordinates (0 = +x, towards the foot).
    ``follow``: vertical tip offset as a fraction of the radius (+ top/follow, - draw).
    ``side``: horizontal tip offset as a fraction of the radius (+ right english).
    ``elevation_deg``: cue elevation (a jump needs a steep cue and a fast stroke).
    """

    ball: str
    speed_mm_s: float
    angle_rad: float
    follow: float = 0.0
    side: float = 0.0
    elevation_deg: float = 5.0
