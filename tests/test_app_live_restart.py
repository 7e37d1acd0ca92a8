"""Kill ``luza live`` (SIGKILL) once a shot is stored, restart it: the match goes on from its
record with no shot lost or counted twice, and ends with the score of an uninterrupted run.

The clip: a foul stroke, then the opponent takes a penalty ball off the table
(FP-7) -- after the kill, so the restarted run must see it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from app_helpers import CLIPS, clip_runner, db_count, live_cmd

from luza.app.records import MatchStore

CLIP = CLIPS / "fp-penalty_s0_720p30.mp4"


def _cmd(db: Path) -> list[str]:
    # --speed 2: the penalty ball is taken >= 0.8 s after the stroke is stored: time to kill
    args = ("--token", "t", "--players", "Ann,Bob", "--speed", "2", "--exit-when-done")
    return live_cmd(CLIP, db, *args)


def _shots(db: Path) -> int:
    return db_count(db, "SELECT COUNT(*) FROM shots")


def _uninterrupted(tmp_path: Path):
    store = MatchStore(tmp_path / "ref.sqlite")
    r = clip_runner(store, CLIP, players=["Ann", "Bob"])
    r.start()
    r.join(timeout=120)
    assert r.error is None
    info = store.get(r.match_id)
    items, rulings, _ = store.match_state(r.match_id)
    store.close()
    return info, items, rulings


def _strokes(items) -> list[tuple]:
    return [
        (e.type, e.get("cue_ball") or e.get("ball"), round(e.t, 1))
        for e in items
        if e.type in ("shot_start", "shot_end", "pocket", "ball_removed", "ball_placed")
    ]


def test_kill_and_restart_loses_no_shot_and_counts_none_twice(tmp_path):
    db = tmp_path / "live.sqlite"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen(_cmd(db), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while _shots(db) < 1:
            assert p.poll() is None, p.stderr.read().decode()
            assert time.monotonic() < deadline, "no shot stored in time"
            time.sleep(0.05)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stderr.close()
    with MatchStore(db) as store:
        (killed,) = store.list_matches()
        assert killed.status == "open", "killed too late: the clip had already ended"
        assert killed.n_shots >= 1

    r = subprocess.run(_cmd(db), env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert f"took up match {killed.id}" in r.stderr

    ref_info, ref_items, ref_rulings = _uninterrupted(tmp_path)
    with MatchStore(db) as store:
        (info,) = store.list_matches()  # the same match, not a new one
        items, rulings, _ = store.match_state(info.id)
    assert info.status == "finished"
    assert info.n_shots == ref_info.n_shots >= 1
    assert info.score == ref_info.score and info.winner == ref_info.winner
    assert [r["shot"] for r in rulings] == [r["shot"] for r in ref_rulings]
    assert _strokes(items) == _strokes(ref_items)
    # the penalty ball taken after the kill is in the record once
    assert [e.type for e in items].count("ball_removed") == 1
    assert json.dumps(info.score) == json.dumps(ref_info.score)  # same players, same order
