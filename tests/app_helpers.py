"""What the ``luza live`` tests (and ``benchmarks/bench_live.py``) share: a clip tracked with its
true camera, a live runner that took up a stored match, the ``luza live`` command line, and
stroke / contact summaries to compare two event streams.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from luza.app.live_runner import LiveRunner
from luza.app.match import camera_for
from luza.calibration.profiles import load_profile
from luza.events import Event, read_jsonl
from luza.rules.engine import Item
from luza.rules.record import Scored, score_items
from luza.vision.events import FrameObs, frames_from_tracker
from luza.vision.pipeline import VisionPipeline
from luza.vision.sources import open_source

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ROOT / "samples" / "clips"
EXAMPLES = ROOT / "rules" / "examples"


def truth_of(clip: Path) -> Path:
    """A bundled clip's ``.truth.json`` (its camera, game and events)."""
    return clip.with_suffix("").with_suffix(".truth.json")


def game_of(clip: Path) -> str:
    return json.loads(truth_of(clip).read_text())["game"]


def true_camera(clip: Path, game: str | None = None):
    """(camera, profile) of a bundled clip, from its truth file (no calibration run)."""
    cam, profile, _ = camera_for(str(truth_of(clip)), game or game_of(clip), None, [])
    return cam, profile


def track_clip(clip: Path, game: str | None = None) -> tuple[list[FrameObs], float]:
    """Every frame of a clip tracked with its true camera: (observations, fps)."""
    game = game or game_of(clip)
    cam, profile = true_camera(clip, game)
    pipe = VisionPipeline(cam, profile, game)
    with open_source(clip) as src:
        return [frames_from_tracker([pipe.process(fr).tracked])[0] for fr in src], src.fps


def score_events(events: Iterable[Event], game: str | None = None) -> Scored:
    """A stream scored at once (the reference a live run must agree with)."""
    return score_items([Item(e, f"w:{i}") for i, e in enumerate(events)], game)


def example_events(name: str, n_shots: int | None = None) -> list[Event]:
    """A rules example stream (``five_ball_game``...), up to its ``n_shots``-th shot_end."""
    out, ends = [], 0
    for e in read_jsonl(EXAMPLES / f"{name}.jsonl"):
        out.append(e)
        if e.type == "shot_end":
            ends += 1
            if ends == n_shots:
                break
    return out


def clip_runner(
    store,
    clip: Path,
    source: str | None = None,
    open_frames: Callable[[], Any] | None = None,
    live: bool = False,
    players: list[str] | None = None,
    game: str | None = None,
    **kw,
) -> LiveRunner:
    """A live runner that tracks ``clip`` with its true camera as fast as it can (speed 0);
    ``open_frames`` may stand in for the clip (a camera that drops out...)."""
    game = game or game_of(clip)
    cam, profile = true_camera(clip, game)
    return LiveRunner(
        source=source or str(clip),
        open_frames=open_frames or (lambda: open_source(clip)),
        live=live,
        make_pipeline=lambda: VisionPipeline(cam, profile, game),
        profile=profile,
        game=game,
        store=store,
        players=players,
        speed=0,
        **kw,
    )


def camera_runner(
    store,
    game: str,
    stored: list[Event] | None = None,
    source: str = "cam-test",
    on_state: Callable[[dict], None] | None = None,
) -> LiveRunner:
    """A runner on a camera that gives no frames.  With ``stored`` events it takes up the
    match they were stored as (so every input is judged against a real game state)."""
    if stored:
        mid = store.start_match(game, "pyramid-12ft", {}, {}, source=source)
        store.append(mid, stored, [], resume_t=stored[-1].t)
    return LiveRunner(
        source=source,
        open_frames=lambda: [],
        live=True,
        make_pipeline=lambda: None,
        profile=load_profile("pyramid-12ft"),
        game=game,
        store=store,
        on_state=on_state,
    )


def live_cmd(clip: Path, db: Path, *extra: str) -> list[str]:
    """``luza live`` on a bundled clip (its true camera), any free port, as a subprocess."""
    return [
        sys.executable, "-m", "luza.cli", "live",
        "--source", str(clip), "--game", game_of(clip), "--calibration", str(truth_of(clip)),
        "--db", str(db), "--port", "0", *extra,
    ]  # fmt: skip


def db_count(db: Path, sql: str) -> int:
    """A read-only look into a database another process is writing (0 while it cannot)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
        try:
            return int(con.execute(sql).fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


# -- comparing two event streams ----------------------------------------------------------
def stroke_summary(events: Iterable[Event]) -> list[tuple]:
    """Strokes (cue ball, t to 0.1 s, first ball touched, pots) and hand events."""
    out: list[tuple] = []
    cur = None
    for e in events:
        if e.type == "shot_start":
            cur = {"cue": e["cue_ball"], "t": round(e.t, 1), "first": None, "pots": []}
        elif cur is not None and e.type == "collision" and cur["first"] is None:
            if cur["cue"] in (e["a"], e["b"]):
                cur["first"] = e["b"] if e["a"] == cur["cue"] else e["a"]
        elif cur is not None and e.type == "pocket":
            cur["pots"].append((e["ball"], e["pocket"]))
        elif e.type == "shot_end" and cur is not None:
            out.append(("shot", cur["cue"], cur["t"], cur["first"], tuple(cur["pots"])))
            cur = None
        elif e.type in ("ball_placed", "ball_removed"):
            out.append((e.type, e["ball"], round(e.t, 1)))
    return out


def contacts(events: Iterable[Event]) -> list[tuple[tuple, float]]:
    """Contacts as ((type, balls / cushion), t)."""
    out = []
    for e in events:
        if e.type == "collision":
            out.append((("collision", *sorted((e["a"], e["b"]))), e.t))
        elif e.type == "cushion":
            out.append((("cushion", e["ball"], e["cushion"]), e.t))
    return out


def unmatched_contacts(a: list[Event], b: list[Event], tol_s: float = 0.05) -> list:
    """Contacts of ``a`` with no contact of ``b`` of the same kind within ``tol_s`` (1:1)."""
    left = contacts(b)
    missing = []
    for key, t in contacts(a):
        k = next((i for i, (kb, tb) in enumerate(left) if kb == key and abs(tb - t) <= tol_s), None)
        if k is None:
            missing.append((key, t))
        else:
            left.pop(k)
    return missing
