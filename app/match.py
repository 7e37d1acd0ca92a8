"""The reusable core of the product commands: a video in, tracked frames and events out,
and the events scored with the rules (operator inputs merged by time).

    run = track_video("match.mp4", "free-pyramid")          # calibrate ('auto'), track, events
    scored = score_run(run.events, "free-pyramid", run.table)  # rulings + final score

``luza analyze``, ``luza batch`` and ``luza live`` all build on these two calls.
Errors a user can act on are :class:`luza.errors.LuzaError` s: ``SourceError``
(missing / corrupt video, absent camera), ``TrackError`` / ``CalibrationError``
(bad calibration), :class:`MatchError` (anything else this module refuses), the
rules' ``RuleError`` / ``EventError`` (a stream the rules cannot accept).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luza.calibration.calib import Calibration, CalibrationError, calibrate
from luza.calibration.camera import CameraModel
from luza.calibration.profiles import TableProfile, load_profile
from luza.errors import LuzaError
from luza.events import GAMES, Event
from luza.rules.engine import Item
from luza.rules.record import Scored, score_items
from luza.rules.stream import merge_inputs, parse_items
from luza.vision.cli import (
    AUTO_CALIBRATION_FRAMES,
    DEFAULT_TABLE,
    calibration_images,
    load_camera,
)
from luza.vision.events import (
    FrameObs,
    extract_events,
    frames_from_tracker,
    is_break_setup,
    take_up_score,
)
from luza.vision.pipeline import VisionPipeline
from luza.vision.sources import Frame, open_source, tracker_threads

ProgressFn = Callable[[int, int], None]

TAKEN_UP_NOTE = "game taken up mid-way"


class MatchError(LuzaError):
    """The match cannot be tracked or scored (the message says why)."""


@dataclass
class VideoRun:
    """Everything one tracking pass over a video produced."""

    events: list[Event]  # the DESIGN.md stream, table_state first
    frames: list[FrameObs]  # per-frame positions (table mm), seen and hidden balls
    camera: CameraModel
    profile: TableProfile
    fps: float
    size: tuple[int, int]  # (width, height) px
    n_frames: int
    calibration: Calibration | None = None
    game: str = ""
    source: str = ""
    track_s: float = 0.0  # wall time of the tracking pass
    stats: dict[str, Any] = field(default_factory=dict)  # the pipeline's counters
    notes: list[str] = field(default_factory=list)  # what a user should know (a short read)

    @property
    def table(self) -> str:
        """The table profile's name (what the rules and the match record name)."""
        return self.profile.name


def check_game(game: str) -> str:
    if game not in GAMES:
        raise MatchError(f"unknown game '{game}' (known: {', '.join(GAMES)})")
    return game


def _calibration_file(spec: str) -> Calibration | None:
    """The :class:`Calibration` in a ``luza calibrate`` file (None for a truth / bare camera)."""
    try:
        d = json.loads(Path(spec).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(d, dict) and "camera" in d and "profile" in d and "frames" not in d:
        try:
            return Calibration.from_dict(d, spec)
        except CalibrationError:
            return None
    return None


def camera_for(
    spec: str, game: str, table: str | None, first_images: list
) -> tuple[CameraModel, TableProfile, Calibration | None]:
    """(camera, profile, calibration) from 'auto' (the first frames) or a file."""
    if spec == "auto":
        if not first_images:
            raise MatchError("--calibration auto needs frames from the video (it has none)")
        profile = load_profile(table or DEFAULT_TABLE[game])
        cal = calibrate(first_images, profile)
        return cal.camera, profile, cal
    if Path(spec).exists() and not Path(spec).is_file():
        raise MatchError(f"--calibration {spec} is not a file (give a calibration JSON or 'auto')")
    try:
        cam, profile = load_camera(spec, table, game, None)
    except OSError as e:  # unreadable (the missing file is the loader's own message)
        raise MatchError(f"cannot read the calibration {spec}: {e.strerror or e}") from None
    cal = _calibration_file(spec)
    return cam, profile, cal


def track_video(
    source: str,
    game: str,
    calibration: str = "auto",
    table: str | None = None,
    progress: ProgressFn | None = None,
    max_frames: int = 0,
) -> VideoRun:
    """Open ``source``, calibrate ('auto') or load a calibration, track every frame and
    extract the event stream.  ``progress(done, total)`` after every frame (total = the
    frame count when known, else 0)."""
    import time

    check_game(game)
    src = open_source(source, for_tracking=True)
    try:
        total = int(src.frame_count or 0)
        if max_frames:
            total = min(total, max_frames) if total else max_frames
        it = iter(src)
        first: list[Frame] = []
        if calibration == "auto":
            for fr in it:
                first.append(fr)
                if len(first) >= AUTO_CALIBRATION_FRAMES:
                    break
        images = calibration_images(source, first) if calibration == "auto" else []
        cam, profile, cal = camera_for(calibration, game, table, images)
        if tuple(cam.image_size) != tuple(src.size):
            raise MatchError(
                f"the calibration is for {cam.image_size[0]}x{cam.image_size[1]} images, "
                f"the video is {src.size[0]}x{src.size[1]}"
            )
        pipe = VisionPipeline(cam, profile, game, threads=tracker_threads(src))
        observed: list[FrameObs] = []

        def frames() -> Iterable[Frame]:
            yield from first
            yield from it

        n = 0
        t0 = time.perf_counter()
        for fr in frames():
            res = pipe.process(fr)
            observed.extend(frames_from_tracker([res.tracked]))
            n += 1
            if progress is not None:
                progress(n, total)
            if max_frames and n >= max_frames:
                break
        track_s = time.perf_counter() - t0
        if not observed:
            raise MatchError(f"{source}: no frame could be read")
        events = extract_events(observed, profile, game)
        notes = []
        if src.frame_count and not max_frames and n < int(src.frame_count) - 1:
            notes.append(
                f"{source}: only {n} of its {int(src.frame_count)} frames could be read "
                "(a truncated or damaged file?); the match is scored up to there"
            )
        return VideoRun(
            events=events,
            frames=observed,
            camera=cam,
            profile=profile,
            fps=float(src.fps),
            size=(int(src.size[0]), int(src.size[1])),
            n_frames=n,
            calibration=cal,
            game=game,
            source=str(source),
            track_s=track_s,
            stats=dict(pipe.stats),
            notes=notes,
        )
    finally:
        src.close()


def _items(events: Iterable[Event | Item], source: str) -> list[Item]:
    out = []
    for i, e in enumerate(events, start=1):
        out.append(e if isinstance(e, Item) else Item(e, f"{source}:{i}"))
    return out


def read_input_items(path: str | Path) -> list[Item]:
    """An operator-inputs file (JSON lines: call / foul / choice / players) as items that
    remember ``file:line`` (so the rules' errors name the file)."""
    p = Path(path)
    if not p.is_file():
        raise MatchError(f"operator inputs not found: {p}")
    with p.open(encoding="utf-8") as f:
        items = list(parse_items(f, str(p)))
    for it in items:
        if not it.event.is_operator_input:
            raise MatchError(
                f"{it.where}: an inputs file holds operator inputs only "
                f"(call, foul, choice, players), not '{it.type}' events"
            )
    return items


def read_inputs(path: str | Path) -> list[Event]:
    """An operator-inputs file as events."""
    return [it.event for it in read_input_items(path)]


def taken_up(events: list[Event], game: str, profile: TableProfile | None = None) -> dict | None:
    """Fields to put on the first table_state of a game taken up mid-way, else None.

    The event stage already marks a stream it extracts (``vision.events.take_up``);
    this does the same, with the same tests, for a stream from elsewhere (a file, a
    live runner): not the game's break set-up, no ``score`` yet, no lag first ->
    a placeholder ``score`` (Free Pyramid: the balls off the table shared, A the odd
    one; the camera cannot know who potted them) and ``take_up: true``."""
    first = next((e for e in events if e.type == "table_state"), None)
    if first is None or first.get("score") is not None or first.get("break") is not None:
        return None
    stroke = next((e for e in events if e.type == "shot_start"), None)
    if stroke is not None and stroke.get("lag"):
        return None  # a lag (GR-8) comes before the rack: the game has not started
    pos = {b: (float(p[0]), float(p[1])) for b, p in first["positions"].items()}
    prof = profile or load_profile(DEFAULT_TABLE[game])
    if is_break_setup(pos, prof, game):
        return None
    return {"score": take_up_score(len(pos), game), "take_up": True}


def with_fields(events: list[Event], fields: dict[str, Any]) -> list[Event]:
    """The stream with ``fields`` added to its first table_state."""
    out = list(events)
    for i, e in enumerate(out):
        if e.type == "table_state":
            out[i] = Event(e.type, e.t, e.frame, e.confidence, {**e.data, **fields})
            break
    return out


def named_score(events: list[Event], names: list[str]) -> list[Event]:
    """A starting score keyed ``A`` / ``B`` (the default players) renamed to the players'
    names, so a ``players`` input and a game taken up mid-way agree."""
    first = next((e for e in events if e.type == "table_state"), None)
    score = first.get("score") if first is not None else None
    if not isinstance(score, dict) or set(score) != {"A", "B"} or len(names) != 2:
        return events
    return with_fields(events, {"score": {names[0]: score["A"], names[1]: score["B"]}})


def start_note(events: list[Event]) -> str | None:
    """ "game taken up mid-way at ..." when the stream does not start a game, else None."""
    first = next((e for e in events if e.type == "table_state"), None)
    if first is None:
        return None
    score = first.get("score")
    if isinstance(score, dict):
        at = " - ".join(f"{k} {v}" for k, v in score.items())
        if first.get("score_given"):
            return f"{TAKEN_UP_NOTE} at {at} (the score given with --start-score)"
        return f"{TAKEN_UP_NOTE} at {at} (the camera cannot know the score before the video)"
    if first.get("break") is False:
        return f"{TAKEN_UP_NOTE} (no break)"
    return None


def score_run(
    events: list[Event],
    game: str,
    table: str,
    options: dict[str, Any] | None = None,
    inputs: list[Event | Item] | None = None,
    start_score: dict[str, int] | None = None,
) -> Scored:
    """Score a stream (``inputs``: operator inputs, merged in by time).

    A stream that does not start from the game's break layout is a game taken up
    mid-way: its first table_state gets the fields that say so (:func:`taken_up`),
    which the match record keeps, so it replays.  ``start_score`` (``{"A": n, "B": m}``,
    breaker first) replaces that placeholder with the score the players say it was; a
    stream that starts a game (the break set-up) refuses one."""
    check_game(game)
    start = taken_up(events, game, load_profile(table))
    first = next((e for e in events if e.type == "table_state"), None)
    if start is None and first is not None and first.get("take_up"):
        start = {"score": first.get("score"), "take_up": True}  # marked by the event stage
    if start_score is not None:
        if start is None:
            raise MatchError(
                "--start-score is for a game taken up mid-way, but this video starts a game "
                "(the balls stand in the break set-up or a lag comes first)"
            )
        start = {**start, "score": dict(start_score), "score_given": True}
    if start is not None:
        events = with_fields(events, start)
    names = next((list(e["names"]) for e in inputs or () if e.type == "players"), None)
    if names is not None:
        events = named_score(events, names)
    stream = _items(events, "events")
    if inputs:
        stream = merge_inputs(stream, _items(inputs, "inputs"))
    return score_items(stream, game, table, options)
