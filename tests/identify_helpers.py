"""The committed ball classifier for identification tests (skipped when it is absent)."""

from __future__ import annotations

import pytest

from luza.vision.identify import BallIdentifier


def model_identifier(game: str) -> BallIdentifier:
    """A ``BallIdentifier`` for ``game`` that runs the CNN; the test is skipped when
    ``models/ball_classifier.onnx`` is not installed."""
    ident = BallIdentifier(game)
    if not ident.has_model:
        pytest.skip("models/ball_classifier.onnx not installed")
    return ident
