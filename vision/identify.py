"""Ball identification: which kind of ball each detection is.

A small CNN run with onnxruntime (``models/ball_classifier.onnx``, trained by
``models/train_ball_classifier.py`` on crops the project renders itself) looks at
a crop around each detection and says ivory, white 1 (one dot), white 2 (two
dots), red, yellow -- or ``none`` (a hand, a cue: not a ball).  Colour cannot tell
the whites apart; the CNN sees the dots, but at 1080p it read a white 2 whose dots lay
~2 px apart as white 1.  So in Five Ball a second CNN (``models/white_dots.onnx``,
``models/train_white_dots.py``), on a finer crop of the ball alone, says which white
a pale crop is.  Without the model file, colour rules
take over: the median hue/saturation of a ball's core (highlights left out)
separates pale balls from coloured ones and red from yellow; both whites then
stay 50/50 and the tracker keeps them apart by motion alone.

Classes per game (``GAME_CLASSES``): Free Pyramid ``ivory``/``Y``; Five Ball
``W1``/``W2``/``red``/``K``; both with ``none``.  The tracker turns classes into
ball ids (two reds are told apart by tracking, as are the 15 ivory balls).
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from .detections import Detections

GAME_CLASSES: dict[str, tuple[str, ...]] = {
    "free-pyramid": ("ivory", "Y", "none"),
    "five-ball": ("W1", "W2", "red", "K", "none"),
}
PALE_SATURATION = 0.40  # HSV saturation (0..1) splitting pale from coloured balls
SATURATION_SOFTNESS = 0.06  # logistic width of that split
RED_HUE_DEG = 18.0  # hue within this of 0/360 degrees is red, else yellow
CORE_FRACTION = 0.6  # radius of the sampled core / ball radius
CROP_SIZE_PX = 40  # CNN input: a ball crop resampled to this size (1080p: about native)
CROP_DIAMETERS = 1.33  # the crop spans this many ball diameters
MODEL_NAME = "ball_classifier.onnx"
# The white-dots model (models/train_white_dots.py): white 1 or white 2, on a finer crop
# of the ball alone (720p: upsampled about 1.7x, 1080p: about native).
DOTS_CROP_PX = 32
DOTS_CROP_DIAMETERS = 1.15
DOTS_MODEL_NAME = "white_dots.onnx"
DOTS_MIN_WHITE_PROB = 0.2  # the dots model looks at crops the first model calls this white
# The CNN's classes (models/train_ball_classifier.py) and how they map to each game's.
CNN_CLASSES = ("ivory", "W1", "W2", "red", "yellow", "none")
CNN_TO_GAME = {
    "free-pyramid": {
        "ivory": {"ivory": 1.0, "W1": 1.0, "W2": 1.0},
        "Y": {"red": 1.0, "yellow": 1.0},
        "none": {"none": 1.0},
    },
    "five-ball": {
        "W1": {"W1": 1.0, "ivory": 0.5},
        "W2": {"W2": 1.0, "ivory": 0.5},
        "red": {"red": 1.0},
        "K": {"yellow": 1.0},
        "none": {"none": 1.0},
    },
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def core_hsv(image: np.ndarray, xy_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """Median (hue deg, saturation, value) of each ball's core, highlights left out."""
    h, w = image.shape[:2]
    out = np.zeros((len(xy_px), 3))
    for i, ((x, y), r) in enumerate(zip(xy_px, radius_px, strict=True)):
        k = max(1, int(round(CORE_FRACTION * r)))
        ix, iy = int(round(x)), int(round(y))
        x0, y0, x1, y1 = max(0, ix - k), max(0, iy - k), min(w, ix + k + 1), min(h, iy + k + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        patch = image[y0:y1, x0:x1].reshape(-1, 3).astype(np.float32) / 255.0
        v = patch.max(1)
        mn = patch.min(1)
        s = np.where(v > 1e-3, (v - mn) / np.maximum(v, 1e-3), 0.0)
        keep = v < np.percentile(v, 85) + 1e-6  # drop the specular highlight
        b, g, rr = patch[keep].T
        hue = np.degrees(np.arctan2(math.sqrt(3) * (g - b), 2 * rr - g - b)) % 360.0
        # circular median-ish: mean of unit vectors
        a = np.radians(hue)
        hmean = math.degrees(math.atan2(np.sin(a).mean(), np.cos(a).mean())) % 360.0
        out[i] = (hmean, float(np.median(s[keep])), float(np.median(v[keep])))
    return out


class BallIdentifier:
    """Adds ``cls_prob`` over ``GAME_CLASSES[game]`` to detections.

    With the CNN (the default when ``models/ball_classifier.onnx`` is installed) every
    class comes from it, ``none`` included (a hand, a cue, a reflection: the pipeline
    drops those); without it, colour rules give the classes and ``none`` stays 0.
    """

    def __init__(
        self,
        game: str,
        model_path: str | Path | None = None,
        use_model: bool = True,
        dots_model_path: str | Path | None = None,
    ) -> None:
        if game not in GAME_CLASSES:
            raise ValueError(f"unknown game {game!r}")
        self.game = game
        self.classes = GAME_CLASSES[game]
        self._session = _load_model(model_path, MODEL_NAME) if use_model else None
        # white 1 or white 2: only Five Ball has dotted whites
        self._dots = (
            _load_model(dots_model_path, DOTS_MODEL_NAME)
            if self._session is not None and game == "five-ball"
            else None
        )
        cols = []
        for c in self.classes:
            w = CNN_TO_GAME[game][c]
            cols.append([w.get(k, 0.0) for k in CNN_CLASSES])
        self._map = np.array(cols).T  # (CNN classes, game classes)

    @property
    def has_model(self) -> bool:
        return self._session is not None

    @property
    def has_dots_model(self) -> bool:
        """Whether white 1 vs white 2 comes from the white-dots model."""
        return self._dots is not None

    def identify(self, image: np.ndarray, det: Detections) -> Detections:
        n = len(det)
        det.classes = self.classes
        if n == 0:
            det.cls_prob = np.zeros((0, len(self.classes)))
            return det
        if self._session is not None:
            det.cls_prob = self.cnn_probabilities(image, det.xy_px, det.radius_px) @ self._map
            return det
        det.cls_prob = self.colour_probabilities(image, det)
        return det

    def colour_probabilities(self, image: np.ndarray, det: Detections) -> np.ndarray:
        """Colour rules: pale vs coloured by saturation, red vs yellow by hue."""
        n = len(det)
        hsv = core_hsv(image, det.xy_px, det.radius_px)
        p_col = _sigmoid((hsv[:, 1] - PALE_SATURATION) / SATURATION_SOFTNESS)
        hue_from_red = np.minimum(hsv[:, 0], 360.0 - hsv[:, 0])
        p_red = _sigmoid((RED_HUE_DEG - hue_from_red) / 4.0)
        zero = np.zeros(n)
        if self.game == "free-pyramid":
            return np.column_stack([1.0 - p_col, p_col, zero])
        half = 0.5 * (1 - p_col)
        return np.column_stack([half, half, p_col * p_red, p_col * (1 - p_red), zero])

    def cnn_probabilities(self, image: np.ndarray, xy_px: np.ndarray, radius_px) -> np.ndarray:
        """Softmax over ``CNN_CLASSES`` for ball crops.

        With the white-dots model (Five Ball), a crop the first model calls pale (ivory,
        white 1 and white 2 together at least ``DOTS_MIN_WHITE_PROB``: Five Ball has no
        ivory ball, an ivory read is a white whose dots it did not see) keeps that
        probability, split between white 1 and white 2 as the dots model says.
        """
        crops = np.stack([ball_crop(image, xy, r) for xy, r in zip(xy_px, radius_px, strict=True)])
        p = _softmax(self._session.run(None, {"crops": crops})[0])
        if self._dots is None:
            return p
        pale = [CNN_CLASSES.index(c) for c in ("ivory", "W1", "W2")]
        white = p[:, pale].sum(1)
        sel = np.nonzero(white >= DOTS_MIN_WHITE_PROB)[0]
        if len(sel):
            dots = np.stack(
                [normalise_crop(dots_crop_pixels(image, xy_px[i], radius_px[i])) for i in sel]
            )
            p_w2 = _softmax(self._dots.run(None, {"crops": dots})[0])[:, 1]
            p[sel, pale[0]] = 0.0
            p[sel, pale[1]] = white[sel] * (1.0 - p_w2)
            p[sel, pale[2]] = white[sel] * p_w2
        return p


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def ball_crop(image: np.ndarray, xy_px, radius_px: float) -> np.ndarray:
    """A (3, CROP_SIZE_PX, CROP_SIZE_PX) float32 crop centred on a ball, scaled to size."""
    return normalise_crop(crop_pixels(image, xy_px, radius_px))


def crop_pixels(image: np.ndarray, xy_px, radius_px: float) -> np.ndarray:
    """The (CROP_SIZE_PX, CROP_SIZE_PX, 3) uint8 pixels of a ball's crop, before normalising."""
    return _square(image, xy_px, radius_px, CROP_SIZE_PX, CROP_DIAMETERS, cv2.INTER_AREA)


def dots_crop_pixels(image: np.ndarray, xy_px, radius_px: float) -> np.ndarray:
    """The (DOTS_CROP_PX, DOTS_CROP_PX, 3) uint8 pixels the white-dots model looks at."""
    return _square(image, xy_px, radius_px, DOTS_CROP_PX, DOTS_CROP_DIAMETERS, cv2.INTER_LINEAR)


def _square(image: np.ndarray, xy_px, radius_px: float, size: int, diameters: float, interp: int):
    half = diameters * float(radius_px)
    s = size / (2 * half)
    x, y = float(xy_px[0]), float(xy_px[1])
    M = np.array([[s, 0, size / 2 - s * x], [0, s, size / 2 - s * y]])
    return cv2.warpAffine(image, M, (size, size), flags=interp, borderMode=cv2.BORDER_REFLECT)


def normalise_crop(pixels: np.ndarray) -> np.ndarray:
    """The CNN's input from ``crop_pixels``: (3, S, S) float32, zero mean, unit spread."""
    c = pixels.astype(np.float32) / 255.0
    c = (c - c.mean()) / (c.std() + 1e-3)
    return c.transpose(2, 0, 1).copy()


def _load_model(model_path: str | Path | None, name: str):
    try:
        import onnxruntime as ort
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    if model_path is None:
        res = resources.files("luza.models") / name
        if not res.is_file():
            return None
        model_path = Path(str(res))
    p = Path(model_path)
    if not p.exists():
        return None
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(p), opts, providers=["CPUExecutionProvider"])
