"""`luza batch` (luza.app.batch): a real local Dask cluster, resuming, bad input.

The videos are the bundled 720p clips (tracked with their ``.truth.json``
camera, no annotated video), each also under a second name, so a batch has
four jobs; every test has its own folders and its cluster picks free ports.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from luza.app import batch
from luza.app.batch import BatchError, run_batch
from luza.app.records import MatchStore
from luza.cli import main

CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"
TRUTH = "{dir}/{stem}.truth.json"
SAME_FILES = ("events.jsonl", "record.jsonl", "scoresheet.txt", "scoresheet.csv", "stats.json")

pytestmark = pytest.mark.skipif(
    not (CLIPS / "fp-break_s0_720p30.mp4").is_file(), reason="bundled clips missing"
)


def clip_dir(tmp: Path, clips: list[str], copies: bool = True) -> Path:
    """A folder of links to the bundled clips (and each again as 'copy-<name>')."""
    d = tmp / "videos"
    d.mkdir()
    for c in clips:
        names = [c, f"copy-{c}"] if copies else [c]
        for n in names:
            (d / f"{n}.mp4").symlink_to(CLIPS / f"{c}.mp4")
            (d / f"{n}.truth.json").symlink_to(CLIPS / f"{c}.truth.json")
    return d


def analyze_one(video: Path, out: Path, game: str, db: Path) -> dict:
    from luza.app.analyze import analyze_video

    return analyze_video(
        str(video),
        out,
        game,
        calibration=str(video.with_suffix(".truth.json")),
        db=str(db),
        video_out=False,
        progress=False,
    )


# -- bad input (no cluster) ------------------------------------------------------------
@pytest.fixture(autouse=True)
def _own_default_db(tmp_path: Path, monkeypatch):
    """`luza batch` stores into the default database unless told: keep it in tmp_path."""
    monkeypatch.setenv("LUZA_DB", str(tmp_path / "default.sqlite"))


def test_bad_input_gives_clear_messages(tmp_path: Path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a video")
    with pytest.raises(BatchError, match="no videos matched"):
        run_batch(str(empty), tmp_path / "out", "free-pyramid")
    with pytest.raises(BatchError, match="no videos matched"):
        run_batch(str(tmp_path / "*.mp4"), tmp_path / "out", "free-pyramid")
    with pytest.raises(BatchError, match="no such folder or file"):
        run_batch(str(tmp_path / "missing"), tmp_path / "out", "free-pyramid")
    with pytest.raises(BatchError, match="unknown game 'snooker'"):
        run_batch(str(empty), tmp_path / "out", "snooker")
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "match.mp4").write_bytes(b"x")
    with pytest.raises(BatchError, match="two videos would write to"):
        run_batch(str(tmp_path / "*" / "*.mp4"), tmp_path / "out", "free-pyramid")
    with pytest.raises(BatchError, match="a template may use"):
        run_batch(str(a), tmp_path / "out", "free-pyramid", calibration="{video}.json")
    assert main(["batch", str(empty), "-o", str(tmp_path / "out"), "--game", "five-ball"]) == 2
    err = capsys.readouterr().err
    assert "luza batch: error: no videos matched" in err and "Traceback" not in err


def test_unreachable_scheduler_fails_within_the_timeout(tmp_path: Path, capsys):
    d = tmp_path / "v"
    d.mkdir()
    (d / "m.mp4").write_bytes(b"x")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    argv = ["batch", str(d), "-o", str(tmp_path / "out"), "--game", "free-pyramid"]
    argv += ["--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "1"]
    assert main(argv) == 2
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 1 s" in err
    assert not (tmp_path / "out" / "m" / "done.json").exists()


def test_calibration_template_and_video_order(tmp_path: Path):
    d = clip_dir(tmp_path, ["fp-break_s0_720p30"])
    videos = batch.find_videos(str(d))
    assert [v.name for v in videos] == ["copy-fp-break_s0_720p30.mp4", "fp-break_s0_720p30.mp4"]
    jobs = batch.plan_jobs(videos, tmp_path / "out", TRUTH)
    assert [j.calibration for j in jobs] == [str(v.with_suffix(".truth.json")) for v in videos]
    assert [j.out_dir.name for j in jobs] == [v.stem for v in videos]
    assert batch.plan_jobs(videos, tmp_path, "auto")[0].calibration == "auto"
    # operator inputs: one file for all, or per video where its file exists
    (d / "fp-break_s0_720p30.inputs.jsonl").write_text('{"type": "foul", "t": 1, "kind": "push"}')
    jobs = batch.plan_jobs(videos, tmp_path, "auto", "{dir}/{stem}.inputs.jsonl")
    assert [j.inputs for j in jobs] == [None, str(d / "fp-break_s0_720p30.inputs.jsonl")]
    one = str(d / "fp-break_s0_720p30.inputs.jsonl")
    assert [j.inputs for j in batch.plan_jobs(videos, tmp_path, "auto", one)] == [one, one]
    with pytest.raises(BatchError, match="operator inputs not found"):
        batch.plan_jobs(videos, tmp_path, "auto", str(d / "missing.jsonl"))


# -- a real cluster ----------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_batch_on_a_dask_cluster_matches_one_by_one(tmp_path: Path):
    pytest.importorskip("luza.app.analyze")
    from dask.distributed import LocalCluster

    clips = ["fb-ball-in-hand_s0_720p30", "fb-kaisa-middle_s0_720p30"]
    d = clip_dir(tmp_path, clips)
    videos = batch.find_videos(str(d))
    assert len(videos) == 4
    ref_db = tmp_path / "ref.sqlite"
    ref = {v.stem: analyze_one(v, tmp_path / "ref" / v.stem, "five-ball", ref_db) for v in videos}

    out, db = tmp_path / "out", tmp_path / "batch.sqlite"
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        scheduler_port=0,
        dashboard_address=None,
    ) as cluster:
        lines: list[str] = []
        outcomes = run_batch(
            str(d),
            out,
            "five-ball",
            scheduler=cluster.scheduler_address,
            calibration=TRUTH,
            db=db,
            video_out=False,
            log=lines.append,
        )
    assert [o.status for o in outcomes] == ["done"] * 4, [o.error for o in outcomes]
    assert any(line.startswith("[4/4] ") and "ETA 0:00" in line for line in lines)
    for o in outcomes:
        stem = o.job.stem
        for name in SAME_FILES:
            got = (out / stem / name).read_bytes()
            assert got == (tmp_path / "ref" / stem / name).read_bytes(), (stem, name)
        done = json.loads((out / stem / "done.json").read_text())
        assert done["summary"]["score"] == ref[stem]["score"]
        assert done["summary"]["n_shots"] == ref[stem]["n_shots"]
        assert done["summary"]["db"] is None  # workers never touched a database
    # the same matches in both databases: same rulings and final lines, record for record
    with MatchStore(ref_db) as r, MatchStore(db) as b:
        want = {m.source: r.record_lines(m.id) for m in r.list_matches()}
        got = {m.source: b.record_lines(m.id) for m in b.list_matches()}
    assert got == want and len(got) == 4
    text = batch.summary_text(outcomes)
    assert text.splitlines()[-1] == "4 analyzed, 0 already done, 0 failed"


def _done(out: Path) -> dict[str, int]:
    return {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/done.json")}


def test_interrupted_batch_resumes_without_redoing(tmp_path: Path):
    pytest.importorskip("luza.app.analyze")
    d = clip_dir(tmp_path, ["fp-break_s0_720p30", "fp-penalty_s0_720p30"])
    (d / "broken.mp4").write_bytes(os.urandom(4096))  # fails; the batch goes on
    out, db = tmp_path / "out", tmp_path / "m.sqlite"
    cmd = [sys.executable, "-m", "luza.cli", "batch", str(d), "-o", str(out)]
    cmd += ["--game", "free-pyramid", "--workers", "2", "--calibration", TRUTH]
    cmd += ["--no-video", "--db", str(db)]
    p = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 300
        while len(_done(out)) < 2 and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        # Ctrl-C on a terminal: SIGINT to the whole group, the Dask workers too (they must
        # leave the stop to the batch, without a traceback each)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == -signal.SIGINT, err  # ended by the signal, as a shell expects
    assert "luza batch: interrupted" in err and "Traceback" not in err, err
    first = _done(out)
    assert 2 <= len(first) < 4, first

    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr  # broken.mp4 failed
    assert f"5 video(s), {len(first)} already done, {5 - len(first)} to analyze" in r.stderr
    after = _done(out)
    assert len(after) == 4
    assert {k: after[k] for k in first} == first  # the done ones were not redone
    rows = {line.split()[0]: line.split()[1] for line in r.stdout.splitlines()[2:7]}
    assert rows["broken"] == "failed"
    assert sorted(k for k, v in rows.items() if v == "skipped") == sorted(first)
    assert sorted(k for k, v in rows.items() if v == "done") == sorted(set(after) - set(first))
    assert "broken: " in r.stdout and "Traceback" not in r.stdout + r.stderr
    with MatchStore(db) as st:
        sources = [m.source for m in st.list_matches()]
    assert sorted(sources) == sorted(str(d / f"{k}.mp4") for k in after)  # each once


def test_a_local_worker_process_keeps_to_its_share_of_the_cores(tmp_path: Path, monkeypatch):
    """A local cluster runs a process per core: each job's OpenCV (and so the detector's
    window threads) is held to that process's share."""
    import cv2

    seen: list[int] = []

    def fake(video, out, game, **kw):
        seen.append(cv2.getNumThreads())
        return {"strokes": 0}

    monkeypatch.setattr(batch, "_analyzer", lambda spec: fake)
    before = cv2.getNumThreads()
    try:
        res = batch.run_job("v.mp4", str(tmp_path / "a"), "free-pyramid", cv_threads=1)
        assert res["ok"] and res["done"]["summary"] == {"strokes": 0}
        assert seen == [1]
        assert batch.cpu_share(os.cpu_count() or 1) == 1
        assert batch.cpu_share(1) == (os.cpu_count() or 1)
    finally:
        cv2.setNumThreads(before)
