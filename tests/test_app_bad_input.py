"""Bad input to the product commands, as a user gives it: one ``luza CMD: error: ...`` line and
exit 2 (or a clean stop), never a traceback, never a half-written output that looks finished.

Most cases are refused before any tracking (fast); the few that need a tracked clip use
``--max-frames`` and the clip's true camera.  ``luza live`` cases that need a server are in
``test_app_live_cli.py``; Dask runs in ``test_app_batch.py``.
"""

from __future__ import annotations

import contextlib
import os
import random
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from app_helpers import db_count

from luza.app import records
from luza.app.records import MatchStore
from luza.cli import main
from luza.output_files import OutputError, atomic_file, part_path
from luza.rules.record import score_items, write_record
from luza.rules.stream import load_stream

CLIPS = Path(__file__).resolve().parents[1] / "samples" / "clips"
CLIP = CLIPS / "fp-break_s0_720p30.mp4"
TRUTH = CLIPS / "fp-break_s0_720p30.truth.json"
GAME = "free-pyramid"
EXAMPLE = Path(__file__).resolve().parents[1] / "rules" / "examples" / "free_pyramid_game.jsonl"


def run(argv: list[str], capsys) -> tuple[int, str]:
    """``luza ARGV`` in this process: (exit code, stderr).  Anything but a LuzaError (which
    the CLI turns into its message) would raise here and fail the test."""
    capsys.readouterr()
    try:
        rc = main([str(a) for a in argv])
    except SystemExit as e:  # argparse refuses a choice itself
        rc = e.code
    return rc, capsys.readouterr().err


def refused(argv: list[str], capsys, words: str) -> str:
    rc, err = run(argv, capsys)
    assert rc == 2, err
    cmd = argv[0]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"luza {cmd}: error: ") and words in last, err
    assert "Traceback" not in err
    return last


@pytest.fixture()
def bad(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    """The bad files a user may hand over, and a default database kept in tmp_path."""
    monkeypatch.setenv("LUZA_DB", str(tmp_path / "default.sqlite"))
    monkeypatch.setattr(records, "DEFAULT_TIMEOUT_S", 0.2)  # a locked database: said quickly
    f = {
        "random_mp4": tmp_path / "random.mp4",
        "truncated_mp4": tmp_path / "truncated.mp4",
        "garbled_cal": tmp_path / "garbled.json",
        "damaged_db": tmp_path / "damaged.sqlite",
        "truncated_db": tmp_path / "truncated.sqlite",
        "a_file": tmp_path / "a_file",
        "good_db": tmp_path / "good.sqlite",
        "record": tmp_path / "fp.jsonl",
    }
    # fixed bytes: about one random 50 kB file in eighty is opened by FFmpeg as some
    # container and fails later, with another one-line message ("no frame could be read")
    f["random_mp4"].write_bytes(random.Random(0).randbytes(50_000))
    f["truncated_mp4"].write_bytes(CLIP.read_bytes()[:200_000])
    f["garbled_cal"].write_text('{"camera": {"K": [1, 2')
    f["damaged_db"].write_bytes(os.urandom(8192))
    f["a_file"].write_text("x")
    write_record(f["record"], score_items(load_stream(EXAMPLE)), "pyramid-12ft", None)
    with MatchStore(f["good_db"]) as st:
        st.import_jsonl(f["record"])
    f["truncated_db"].write_bytes(f["good_db"].read_bytes()[:3000])
    return f


def resolve(bad: dict[str, Path], a: str, tmp_path: Path) -> str:
    """``"damaged_db"`` -> that file, ``"a_file/m.sqlite"`` -> a path under it, ``"{tmp}"``
    -> the test's folder; anything else as it is."""
    if a == "{tmp}":
        return str(tmp_path)
    head, _, rest = a.partition("/")
    if head not in bad:
        return a
    return str(bad[head] / rest) if rest else str(bad[head])


@contextlib.contextmanager
def locked(db: Path):
    """Another program holding the database's write lock (``BEGIN EXCLUSIVE``)."""
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


def analyze(out: Path, *extra, video=CLIP, cal=TRUTH) -> list:
    return ["analyze", video, "--game", GAME, "-o", out, "--calibration", cal, *extra]


# -- luza analyze ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("video", "extra", "words"),
    [
        ("random_mp4", (), "cannot open"),
        ("truncated_mp4", (), "cannot open"),
        ("7", (), "cannot open camera 7"),
        ("rtsp://127.0.0.1:9/none", (), "cannot open rtsp://127.0.0.1:9/none"),
        (None, ("--calibration", "garbled_cal"), "not a JSON calibration"),
        (None, ("--calibration", "{tmp}"), "is not a file"),
        (None, ("--db", "damaged_db"), "is not a luza match database"),
        (None, ("--db", "truncated_db"), "is not a luza match database"),
        (None, ("--db", "a_file/m.sqlite"), "a_file"),
        (None, ("--players", "Ann"), "--players needs two different names"),
        (None, ("--max-frames", "-5"), "--max-frames wants 0 (all) or more"),
        (None, ("--option", "target_points"), "--option wants KEY=VALUE"),
        (None, ("--table", "no-such-table"), "unknown table profile 'no-such-table'"),
        (None, ("--inputs", "garbled_cal"), "garbled.json:1: not valid JSON"),
    ],
)
def test_analyze_refuses_bad_input_before_tracking(bad, tmp_path, capsys, video, extra, words):
    src = resolve(bad, video or str(CLIP), tmp_path)
    argv = ["analyze", src, "--game", GAME, "-o", tmp_path / "out", "--no-video"]
    extra = [resolve(bad, a, tmp_path) for a in extra]
    if "--db" not in extra:
        extra.append("--no-db")
    if "--calibration" not in extra:
        extra += ["--calibration", str(TRUTH)]
    refused([*argv, *extra], capsys, words)
    out = tmp_path / "out"
    assert not out.exists() or not [p.name for p in out.iterdir()]  # nothing written


def test_analyze_with_a_locked_database_stops_before_tracking(bad, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")  # an earlier, finished run: left as it is
    with locked(bad["good_db"]):
        t0 = time.monotonic()
        refused(analyze(out, "--db", bad["good_db"]), capsys, "is locked by another program")
        assert time.monotonic() - t0 < 5  # no minutes of tracking first
    assert sorted(p.name for p in out.iterdir()) == ["summary.json"]


@pytest.mark.parametrize("where", ["under_a_file", "read_only"])
def test_analyze_to_an_output_folder_it_cannot_write(bad, tmp_path, capsys, where):
    if where == "under_a_file":
        out, words = bad["a_file"] / "out", "a_file is a file, not a folder"
    elif os.geteuid() == 0:  # root writes into a read-only folder; not into /proc/self
        if not Path("/proc/self").is_dir():
            pytest.skip("root, and no /proc/self to stand for a folder that cannot be written")
        out, words = Path("/proc/self"), "cannot write in the output folder /proc/self"
    else:
        out, words = tmp_path / "ro", "cannot write in the output folder"
        out.mkdir()
        out.chmod(0o555)
    refused(analyze(out, "--no-db"), capsys, words)


def test_an_output_name_taken_by_a_folder_leaves_no_finished_run(bad, tmp_path, capsys):
    out = tmp_path / "out"
    (out / "record.jsonl").mkdir(parents=True)
    (out / "summary.json").write_text("{}")  # an earlier, finished run
    refused(
        analyze(out, "--no-db", "--no-video", "--max-frames", "5"),
        capsys,
        f"cannot replace {out / 'record.jsonl'}",
    )
    assert not (out / "summary.json").exists()
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no partial file left


def test_a_truncated_file_is_scored_as_far_as_it_goes_and_says_so(tmp_path, capsys):
    """A file cut short with its index up front (a recording stopped by a crash) decodes in
    part: the run finishes on what it read, with a note."""
    import av

    fast = tmp_path / "fast.mp4"
    with av.open(str(CLIP)) as src, av.open(str(fast), "w", options={"movflags": "faststart"}) as o:
        s_in = src.streams.video[0]
        s_out = o.add_stream_from_template(s_in)
        for pkt in src.demux(s_in):
            if pkt.dts is not None:
                pkt.stream = s_out
                o.mux(pkt)
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(fast.read_bytes()[: fast.stat().st_size // 3])
    rc, err = run(analyze(tmp_path / "out", "--no-db", "--no-video", video=cut), capsys)
    assert rc == 0 and "Traceback" not in err
    assert "frames could be read (a truncated or damaged file?)" in err


# -- luza live (refused before the server starts) ---------------------------------------
@pytest.mark.parametrize(
    ("source", "extra", "words"),
    [
        ("random_mp4", (), "cannot open"),
        ("truncated_mp4", (), "cannot open"),
        ("rtsp://127.0.0.1:9/none", (), "cannot open rtsp://127.0.0.1:9/none"),
        (None, ("--calibration", "garbled_cal"), "not a JSON calibration"),
        (None, ("--db", "truncated_db"), "is not a luza match database"),
        (None, ("--db", "a_file/m.sqlite"), "a_file is a file, not a folder"),
    ],
)
def test_live_refuses_bad_input(bad, tmp_path, capsys, source, extra, words):
    src = resolve(bad, source or str(CLIP), tmp_path)
    argv = ["live", "--source", src, "--game", GAME, "--port", "0"]
    extra = [resolve(bad, a, tmp_path) for a in extra]
    if "--calibration" not in extra:
        extra += ["--calibration", str(TRUTH)]
    if "--db" not in extra:
        extra += ["--db", str(bad["good_db"])]
    refused([*argv, *extra], capsys, words)


def test_live_with_a_locked_database_opens_no_match(bad, capsys):
    argv = ["live", "--source", CLIP, "--game", GAME, "--calibration", TRUTH, "--port", "0"]
    with locked(bad["good_db"]):
        refused([*argv, "--db", bad["good_db"]], capsys, "is locked by another program")
    with MatchStore(bad["good_db"]) as st:
        assert [m.status for m in st.list_matches()] == ["finished"]  # the imported one only


# -- luza batch (refused before a cluster starts) ---------------------------------------
@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--calibration", "garbled_cal"), "not a JSON calibration"),
        (("--calibration", "nope.json"), "calibration file not found"),
        (("--table", "no-such-table"), "unknown table profile"),
        (("--db", "damaged_db"), "is not a luza match database"),
        (("-o", "a_file"), "exists and is not a folder"),
        (("-o", "a_file/out"), "a_file is a file, not a folder"),
    ],
)
def test_batch_refuses_bad_input_before_any_work(bad, tmp_path, capsys, extra, words):
    videos = tmp_path / "videos"
    videos.mkdir()
    (videos / "m.mp4").symlink_to(CLIP)
    extra = [resolve(bad, a, tmp_path) for a in extra]
    argv = ["batch", videos, "--game", GAME, "--no-video"]
    if "-o" not in extra:
        argv += ["-o", tmp_path / "out"]
    if "--db" not in extra:
        argv.append("--no-db")
    refused([*argv, *extra], capsys, words)
    assert not (tmp_path / "out" / "m").exists()


def test_batch_with_a_locked_database_starts_nothing(bad, tmp_path, capsys):
    videos = tmp_path / "videos"
    videos.mkdir()
    (videos / "m.mp4").symlink_to(CLIP)
    argv = ["batch", videos, "-o", tmp_path / "out", "--game", GAME, "--db", bad["good_db"]]
    with locked(bad["good_db"]):
        refused(argv, capsys, "is locked by another program")
    assert not (tmp_path / "out" / "m").exists()


# -- the match database commands -----------------------------------------------------------
@pytest.mark.parametrize("db", ["damaged_db", "truncated_db"])
@pytest.mark.parametrize(
    "cmd", [["matches"], ["show", "1"], ["export", "1", "-o", "x.jsonl"], ["import", "REC"]]
)
def test_database_commands_on_a_damaged_file(bad, capsys, db, cmd):
    cmd = [str(bad["record"]) if a == "REC" else a for a in cmd]
    refused([*cmd, "--db", bad[db]], capsys, f"{bad[db]} is not a luza match database")


def test_a_locked_database_is_read_but_not_written(bad, tmp_path, capsys):
    db = bad["good_db"]
    with locked(db):
        # readers go on while another program writes (WAL)
        rc, _ = run(["matches", "--db", db], capsys)
        assert rc == 0
        rc, _ = run(["export", "1", "-o", tmp_path / "e.jsonl", "--db", db], capsys)
        assert rc == 0 and (tmp_path / "e.jsonl").is_file()
        refused(["import", bad["record"], "--db", db], capsys, "is locked by another program")
    with MatchStore(db) as st:
        assert len(st.list_matches()) == 1  # nothing half-stored


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\x00\xff\xfe" + bytes(range(256)) * 8, "is not a match record (not text"),
        (b'{"type": "match", "game": "free-pyr', "not valid JSON"),
    ],
    ids=["binary", "truncated"],
)
def test_import_of_a_file_that_is_not_a_record(bad, tmp_path, capsys, content, words):
    f = tmp_path / "rec.jsonl"
    f.write_bytes(content)
    refused(["import", f, "--db", bad["good_db"]], capsys, words)
    refused(["import", tmp_path / "nope.jsonl", "--db", bad["good_db"]], capsys, "not found")


@pytest.mark.parametrize(
    ("out", "words"), [("{tmp}", "it is a folder"), ("a_file/x.jsonl", "cannot write")]
)
def test_export_where_it_cannot_write(bad, tmp_path, capsys, out, words):
    target = tmp_path if out == "{tmp}" else bad["a_file"] / "x.jsonl"
    refused(["export", "1", "-o", target, "--db", bad["good_db"]], capsys, words)
    refused(["show", "one", "--db", bad["good_db"]], capsys, "a match is named by its number")
    refused(["show", "9", "--db", bad["good_db"]], capsys, "no match 9 in")


# -- whole or nothing ------------------------------------------------------------------------
def test_atomic_file_leaves_the_old_file_on_failure_and_interrupt(tmp_path):
    p = tmp_path / "record.jsonl"
    p.write_text("the earlier run\n")
    for exc in (OSError(28, "No space left on device"), KeyboardInterrupt()):
        want = OutputError if isinstance(exc, OSError) else KeyboardInterrupt
        with pytest.raises(want), atomic_file(p) as tmp:
            tmp.write_text("half of the new")
            raise exc
        assert p.read_text() == "the earlier run\n" and not part_path(p).exists()
    with atomic_file(p) as tmp:
        tmp.write_text("new\n")
    assert p.read_text() == "new\n" and sorted(x.name for x in tmp_path.iterdir()) == [p.name]


def _interrupt(
    argv: list[str], ready, timeout_s: float = 120, shell: str | None = None
) -> subprocess.CompletedProcess:
    """Run ``luza ARGV``, send it SIGINT (Ctrl-C) once ``ready()`` holds, wait for it.

    ``shell``: run ``bash -c SHELL`` instead, in a process group of its own, and send the
    SIGINT to the whole group, as a terminal's Ctrl-C reaches its foreground job."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = ["bash", "-c", shell] if shell else [sys.executable, "-m", "luza.cli", *map(str, argv)]
    p = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=bool(shell),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as from a terminal
    )
    try:
        deadline = time.monotonic() + timeout_s
        while not ready():
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline, "never got ready"
            time.sleep(0.02)
        if shell:
            os.killpg(p.pid, signal.SIGINT)
        else:
            p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=30)[1]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, "", err)


def test_ctrl_c_while_the_video_is_written_leaves_no_video(tmp_path):
    out = tmp_path / "out"
    argv = [*analyze(out, "--no-db", "--max-frames", "200"), "--quiet"]
    r = _interrupt(argv, lambda: (out / "stats.png").exists())  # the video comes next
    assert r.returncode == -signal.SIGINT  # ended by Ctrl-C's signal: a shell's $? is 130
    assert r.stderr.strip().endswith("luza analyze: interrupted")
    assert "Traceback" not in r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert "annotated.mp4" not in names and "summary.json" not in names, names
    assert not [n for n in names if n.startswith(".")], names


def test_ctrl_c_stops_the_shell_script_that_runs_luza(tmp_path):
    """``luza analyze a; luza analyze b`` in a script, Ctrl-C during the first: the script
    stops (bash goes on after a command that caught Ctrl-C and merely exited 130)."""
    out = tmp_path / "out"
    luza = shlex.join([sys.executable, "-m", "luza.cli"])
    first = shlex.join(map(str, [*analyze(out, "--no-db", "--max-frames", "200"), "--quiet"]))
    script = f"{luza} {first}; echo the script went on > {tmp_path / 'after'}"
    # Ctrl-C while the first run writes its video
    err = _interrupt([], lambda: (out / "stats.png").exists(), shell=script).stderr
    assert "luza analyze: interrupted" in err and "Traceback" not in err, err
    assert not (tmp_path / "after").exists()


def test_ctrl_c_stops_live_cleanly_and_the_match_can_be_taken_up(tmp_path):
    db = tmp_path / "live.sqlite"
    argv = ["live", "--source", CLIP, "--game", GAME, "--calibration", TRUTH, "--db", db]
    argv += ["--port", "0", "--token", "t"]
    r = _interrupt(argv, lambda: db_count(db, "SELECT COUNT(*) FROM matches") > 0)
    assert r.returncode == -signal.SIGINT
    assert r.stderr.strip().endswith("luza live: interrupted")
    assert "Traceback" not in r.stderr
    with MatchStore(db) as st:
        (m,) = st.list_matches()
    assert m.status == "open"  # not closed as if finished: a restart takes it up


@pytest.mark.parametrize(
    "argv",
    [
        ["analyze", "{random}", "--game", GAME, "-o", "{tmp}/out", "--no-db"],
        ["live", "--source", "7", "--game", GAME, "--db", "{tmp}/m.sqlite", "--port", "0"],
        ["track", "{random}", "--calibration", "auto", "--game", GAME, "-o", "{tmp}/e.jsonl"],
        ["calibrate", "{random}", "--table", "pyramid-12ft", "-o", "{tmp}/c.json"],
    ],
    ids=["corrupt-video", "absent-camera", "track-corrupt-video", "calibrate-corrupt-video"],
)
def test_the_whole_of_stderr_is_one_line(tmp_path, argv):
    """FFmpeg's and OpenCV's own log lines do not come before the message (the corrupt
    file's bytes fixed, as in the fixture above)."""
    random_mp4 = tmp_path / "random.mp4"
    random_mp4.write_bytes(random.Random(0).randbytes(50_000))
    argv = [a.replace("{random}", str(random_mp4)).replace("{tmp}", str(tmp_path)) for a in argv]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCV_")}
    r = subprocess.run(
        [sys.executable, "-m", "luza.cli", *argv],
        capture_output=True, text=True, timeout=60, env={**env, "LUZA_DB": str(tmp_path / "d")},
    )  # fmt: skip
    assert r.returncode == 2
    assert r.stderr.startswith(f"luza {argv[0]}: error: cannot open") and r.stderr.count("\n") == 1
