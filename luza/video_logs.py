"""FFmpeg's and OpenCV's own log lines, left unsaid: a command says what went wrong with
a video in one line of its own (``luza/cli.py`` quiets them for every command)."""

from __future__ import annotations

import os
import sys


def quiet_video_logs() -> None:
    """Leave FFmpeg's and OpenCV's own log lines unsaid (``moov atom not found``, a camera
    backend's warnings).  Set in the environment, so batch workers started later inherit
    it; a user who wants those lines sets ``OPENCV_FFMPEG_LOGLEVEL`` / ``OPENCV_LOG_LEVEL``
    and they are left alone."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    if os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR") == "ERROR" and "cv2" in sys.modules:
        import cv2  # already loaded: its level is set now (else it reads the environment)

        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
