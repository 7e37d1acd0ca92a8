"""Match records in SQLite (luza.app.records) and `luza matches/show/export/import`.

Matches are scored from the rules' example streams (no video), so these run in seconds."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from luza.app import records
from luza.app.records import MatchStore, RecordsError
from luza.cli import main
from luza.rules.record import replay, score_items, write_record
from luza.rules.stream import load_stream

EXAMPLES = Path(__file__).resolve().parents[1] / "rules" / "examples"
GAMES = ["free_pyramid_game", "five_ball_game"]


def scored_example(name: str):
    return score_items(load_stream(EXAMPLES / f"{name}.jsonl"))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "matches.sqlite"


@pytest.mark.parametrize("name", GAMES)
def test_save_export_replay_import_round_trip(db: Path, tmp_path: Path, name: str):
    sc = scored_example(name)
    want = [r.to_dict() for r in sc.rulings]
    with MatchStore(db) as st:
        mid = st.save_scored(sc, "pyramid-12ft", None, None, f"{name}.mp4")
        info = st.get(mid)
        assert info.game == sc.game.name
        assert info.status == records.STATUS_FINISHED
        assert info.score == sc.final["score"]
        assert info.winner == sc.final["winner"]
        assert info.n_shots == sum(1 for r in want if r["shot"] > 0)
        assert list(info.players.values()) == list(sc.final["score"])
        # the export is byte for byte what `luza score --record` writes
        out = tmp_path / "export.jsonl"
        st.export_jsonl(mid, out)
        ref = tmp_path / "ref.jsonl"
        write_record(ref, sc, "pyramid-12ft", sc.game.options)
        assert out.read_text() == ref.read_text()
        replayed, rec = replay(out)
        assert [r.to_dict() for r in replayed.rulings] == want
        mid2 = st.import_jsonl(out)
        assert mid2 != mid
        _, rulings2, _ = st.match_state(mid2)
        assert rulings2 == want
        assert st.get(mid2).score == info.score
        assert st.record_lines(mid2) == st.record_lines(mid)


def test_store_survives_reopen_and_lists_in_order(db: Path):
    ids = []
    for name in GAMES:
        with MatchStore(db) as st:
            ids.append(st.save_scored(scored_example(name), "pyramid-12ft", source=name))
    with MatchStore(db) as st:
        infos = st.list_matches()
    assert [i.id for i in infos] == ids
    assert [i.source for i in infos] == GAMES
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA user_version").fetchone()[0] == records.SCHEMA_VERSION
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    shots = con.execute("SELECT shot, t, player FROM shots WHERE match_id=? ORDER BY shot", (1,))
    rows = shots.fetchall()
    starts = [
        json.loads(line)
        for line in (EXAMPLES / "free_pyramid_game.jsonl").read_text().splitlines()
        if '"shot_start"' in line
    ]
    assert [r[1] for r in rows] == [s["t"] for s in starts]  # no lag in this example
    assert [r[2] for r in rows] == [s.get("player") for s in starts]
    con.close()


def _batches(sc, cuts: list[int]):
    """(events, rulings decided before the cut) for each prefix of the stream."""
    events = [it.event for it in sc.items]
    rulings = [r.to_dict() for r in sc.rulings]
    for c in cuts:
        yield events[:c], [r for r, at in zip(rulings, sc.at, strict=True) if at <= c]


@pytest.mark.parametrize("name", GAMES)
def test_live_append_is_idempotent(db: Path, name: str):
    sc = scored_example(name)
    events = [it.event for it in sc.items]
    n = len(events)
    with MatchStore(db) as st:
        mid = st.start_match(sc.game.name, "pyramid-12ft", sc.game.options, None, "camera:0")
        assert st.open_match() == mid
        assert st.open_match("camera:0") == mid
        assert st.open_match("camera:1") is None
        assert st.match_state(mid) == ([], [], None)
        # every batch resends everything so far (a restart resends from the start):
        # overlapping items and rulings must be stored once
        for evs, rul in _batches(sc, [n // 3, n // 2, n // 2, 2 * n // 3, n]):
            st.append(mid, evs, rul, evs[-1].t)
        # and the same tail once more, as after a crash just before finishing
        added = st.append(mid, events[n // 2 :], [r.to_dict() for r in sc.rulings])
        assert added == (0, 0)
        items, rulings, resume_t = st.match_state(mid)
        assert [e.to_json() for e in items] == [e.to_json() for e in events]
        assert rulings == [r.to_dict() for r in sc.rulings]
        assert resume_t == events[-1].t
        shots = [r["shot"] for r in rulings]
        assert len(shots) == len(set(shots)) == len(rulings)
        assert st.get(mid).status == records.STATUS_OPEN
        st.finish(mid, sc.final)
        assert st.open_match() is None
        info = st.get(mid)
        assert info.status == records.STATUS_FINISHED
        assert info.score == sc.final["score"]


def test_live_resume_after_a_crash(db: Path, tmp_path: Path):
    sc = scored_example("free_pyramid_game")
    events = [it.event for it in sc.items]
    cut = len(events) // 2
    (evs, rul), *_ = list(_batches(sc, [cut]))
    with MatchStore(db) as st:
        mid = st.start_match(sc.game.name, "pyramid-12ft", sc.game.options, None, "cam")
        st.append(mid, evs, rul, evs[-1].t)
    # a new process (the restarted live command) picks the match up from the file
    with MatchStore(db) as st:
        mid2 = st.open_match("cam")
        assert mid2 == mid
        items, rulings, resume_t = st.match_state(mid2)
        assert resume_t == evs[-1].t
        assert len(items) == cut
        # the replayed source sends the whole match again
        st.append(mid2, events, [r.to_dict() for r in sc.rulings], events[-1].t)
        st.finish(mid2, sc.final)
        out = tmp_path / "live.jsonl"
        st.export_jsonl(mid2, out)
    replayed, _ = replay(out)  # every ruling and the final line as if scored at once
    assert replayed.final == sc.final


def test_unknown_match_and_appending_to_a_finished_one(db: Path):
    with MatchStore(db) as st:
        mid = st.save_scored(scored_example("five_ball_game"), "pyramid-12ft", source="x")
        for call in (st.get, st.record_lines, st.match_state):
            with pytest.raises(RecordsError, match=r"no match 77 in .*luza matches"):
                call(77)
        with pytest.raises(RecordsError, match="no match 77"):
            st.finish(77, {"type": "final", "score": {}, "winner": None})
        with pytest.raises(RecordsError, match="is finished"):
            st.append(mid, [], [], 1.0)


def test_locked_database(db: Path):
    with MatchStore(db) as st:
        st.save_scored(scored_example("five_ball_game"), "pyramid-12ft", source="x")
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with MatchStore(db, timeout_s=0.2) as st:
            assert len(st.list_matches()) == 1  # WAL: reading goes on
            with pytest.raises(RecordsError, match=r"is locked by another program"):
                st.start_match("five-ball", "pyramid-12ft", None, None, "cam")
            with pytest.raises(RecordsError, match=r"is locked by another program"):
                st.save_scored(scored_example("free_pyramid_game"), "pyramid-12ft")
    finally:
        other.execute("ROLLBACK")
        other.close()
    with MatchStore(db) as st:  # the lock is gone, nothing half-written
        assert len(st.list_matches()) == 1


def test_locked_database_exits_2_via_the_cli(db: Path, tmp_path: Path, monkeypatch, capsys):
    rec = tmp_path / "fp.jsonl"
    write_record(rec, scored_example("free_pyramid_game"), "pyramid-12ft", None)
    assert main(["import", str(rec), "--db", str(db)]) == 0
    monkeypatch.setattr(records, "DEFAULT_TIMEOUT_S", 0.2)
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("PRAGMA locking_mode=EXCLUSIVE")  # a program that keeps the file to itself
    other.execute("BEGIN EXCLUSIVE")
    other.execute("UPDATE matches SET source=source")
    try:
        capsys.readouterr()
        assert main(["import", str(rec), "--db", str(db)]) == 2
        err = capsys.readouterr().err
        assert f"luza import: error: the match database {db} is locked by another program" in err
        assert main(["matches", "--db", str(db)]) == 2
        assert "is locked by another program" in capsys.readouterr().err
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert main(["matches", "--db", str(db)]) == 0


@pytest.mark.parametrize(
    "content",
    [bytes(range(256)) * 16, b"name,score\nAnn,8\n" * 50, b"SQLite format 3\x00" + b"\x07" * 2000],
    ids=["random-bytes", "text-file", "truncated-sqlite"],
)
def test_damaged_or_foreign_file(tmp_path: Path, content: bytes, capsys):
    p = tmp_path / "matches.sqlite"
    p.write_bytes(content)
    with pytest.raises(RecordsError, match="is not a luza match database"):
        MatchStore(p)
    assert main(["matches", "--db", str(p)]) == 2
    err = capsys.readouterr().err
    assert f"luza matches: error: {p} is not a luza match database (damaged or another" in err
    assert "Traceback" not in err
    assert p.read_bytes() == content  # never "repaired" by overwriting


def test_another_programs_database_and_a_newer_schema(tmp_path: Path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE contacts(name TEXT)")
    con.commit()
    con.close()
    with pytest.raises(RecordsError, match="is not a luza match database"):
        MatchStore(p)
    q = tmp_path / "newer.sqlite"
    MatchStore(q).close()
    con = sqlite3.connect(q)
    con.execute(f"PRAGMA user_version={records.SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(RecordsError, match="written by a newer luza"):
        MatchStore(q)


def test_cli_round_trip(db: Path, tmp_path: Path, capsys):
    sc = scored_example("free_pyramid_game")
    rec = tmp_path / "rec.jsonl"
    write_record(rec, sc, "pyramid-12ft", sc.game.options)
    assert main(["import", str(rec), "--db", str(db)]) == 0
    assert "as match 1" in capsys.readouterr().out
    assert main(["matches", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    header, rule, row = out.splitlines()
    assert header.split()[:3] == ["id", "date", "(UTC)"]
    assert row.split()[0] == "1" and "free-pyramid" in row and "Ann v Bob" in row
    assert "Ann 2 Bob 8" in row and row.split()[-3:] == ["Bob", "11", "finished"]
    assert main(["matches", "--db", str(db), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0]["score"] == sc.final["score"] and listed[0]["n_shots"] == 11
    assert main(["show", "1", "--db", str(db)]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[0].startswith("match 1: free-pyramid on pyramid-12ft | Ann v Bob")
    texts = "\n".join(r.to_text() for r in sc.rulings).splitlines()
    assert shown[2 : 2 + len(texts)] == texts  # the same lines `luza score` prints
    assert shown[-1] == "final: Ann 2 Bob 8 | winner Bob"
    assert main(["show", "1", "--db", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rulings"] == [r.to_dict() for r in sc.rulings] and doc["final"] == sc.final
    out = tmp_path / "out.jsonl"
    assert main(["export", "1", "-o", str(out), "--db", str(db)]) == 0
    assert out.read_text() == rec.read_text()
    assert main(["replay", str(out)]) == 0
    for argv, msg in [
        (["show", "5", "--db", str(db)], "no match 5 in"),
        (["show", "first", "--db", str(db)], "is named by its number"),
        (["export", "9", "-o", str(out), "--db", str(db)], "no match 9 in"),
        (["import", str(tmp_path / "missing.jsonl"), "--db", str(db)], "not found"),
    ]:
        capsys.readouterr()
        assert main(argv) == 2, argv
        assert msg in capsys.readouterr().err


def test_import_refuses_a_record_that_does_not_replay(db: Path, tmp_path: Path, capsys):
    sc = scored_example("free_pyramid_game")
    rec = tmp_path / "rec.jsonl"
    write_record(rec, sc, "pyramid-12ft", sc.game.options)
    lines = rec.read_text().splitlines()
    k = next(i for i, s in enumerate(lines) if '"type": "ruling"' in s and '"points": 1' in s)
    lines[k] = lines[k].replace('"points": 1', '"points": 5')
    rec.write_text("\n".join(lines) + "\n")
    assert main(["import", str(rec), "--db", str(db)]) == 2
    assert "replay differs from the recorded ruling" in capsys.readouterr().err
    with MatchStore(db) as st:
        assert st.list_matches() == []


def test_default_db_path(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("LUZA_DB", str(tmp_path / "x" / "m.sqlite"))
    assert records.default_db_path() == tmp_path / "x" / "m.sqlite"
    monkeypatch.delenv("LUZA_DB")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    p = records.default_db_path()
    assert p == tmp_path / "home" / ".luza" / "matches.sqlite" and p.parent.is_dir()


def test_threads_share_one_store(db: Path):
    sc = scored_example("five_ball_game")
    with MatchStore(db) as st:
        errors: list[BaseException] = []

        def save() -> None:
            try:
                st.save_scored(sc, "pyramid-12ft", source=threading.current_thread().name)
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        ts = [threading.Thread(target=save) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert not errors
        assert len(st.list_matches()) == 4


def test_two_processes_write_one_database(db: Path):
    """Two programs saving at once wait for each other instead of failing."""
    MatchStore(db).close()
    code = (
        "import sys; from pathlib import Path;"
        "from luza.app.records import MatchStore;"
        "from luza.rules.record import score_items;"
        "from luza.rules.stream import load_stream;"
        f"sc = score_items(load_stream(Path({str(EXAMPLES)!r}) / 'five_ball_game.jsonl'));"
        "st = MatchStore(sys.argv[1]);"
        "[st.save_scored(sc, 'pyramid-12ft', source=str(i)) for i in range(5)]"
    )
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db)], env=env) for _ in range(2)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    with MatchStore(db) as st:
        assert len(st.list_matches()) == 10


@pytest.mark.parametrize("name", GAMES)
def test_live_rescoring_each_batch_stores_the_latest_rulings(db: Path, tmp_path: Path, name: str):
    """The live runner rescores the whole stream at every batch and sends every ruling: the
    last stroke's ruling can change when what followed it arrives (an operator foul, a hand
    event); the stored match must end as the whole stream scores, each shot once."""
    sc = scored_example(name)
    events = [it.event for it in sc.items]
    changed = 0
    with MatchStore(db) as st:
        mid = st.start_match(sc.game.name, "pyramid-12ft", sc.game.options, None, "cam")
        sent = 0
        prev: dict[int, dict] = {}
        for cut in range(1, len(events) + 1):
            try:
                part = score_items(sc.items[:cut], sc.game.name)
            except Exception:  # noqa: BLE001 - a stream cut inside a stroke
                continue
            rulings = [r.to_dict() for r in part.rulings]
            changed += sum(1 for r in rulings if r["shot"] in prev and prev[r["shot"]] != r)
            prev.update({r["shot"]: r for r in rulings})
            st.append(mid, events[sent:cut], rulings, events[cut - 1].t)
            sent = cut
        st.finish(mid, sc.final)
        _, stored, _ = st.match_state(mid)
        out = tmp_path / "live.jsonl"
        st.export_jsonl(mid, out)
        assert st.get(mid).n_shots == sum(1 for r in stored if r["shot"] > 0)
    assert stored == [r.to_dict() for r in sc.rulings]
    replayed, _ = replay(out)
    assert replayed.final == sc.final
    if name == "free_pyramid_game":
        assert changed > 0  # the example has rulings that change as the stream goes on


def test_a_killed_writer_leaves_whole_batches(db: Path):
    """SIGKILL between (or during) appends: each append is all or nothing, and resending the
    whole match after the restart stores every shot once."""
    sc = scored_example("free_pyramid_game")
    events = [it.event for it in sc.items]
    cuts = [c for c in range(5, len(events), 5)]
    with MatchStore(db) as st:
        mid = st.start_match(sc.game.name, "pyramid-12ft", sc.game.options, None, "cam")
    code = (
        "import sys, time; from pathlib import Path;"
        "from luza.app.records import MatchStore;"
        "from luza.rules.record import score_items;"
        "from luza.rules.stream import load_stream;"
        f"sc = score_items(load_stream(Path({str(EXAMPLES)!r}) / 'free_pyramid_game.jsonl'));"
        "ev = [i.event for i in sc.items]; st = MatchStore(sys.argv[1]);"
        f"cuts = {cuts!r}; prev = 0\n"
        "for c in cuts:\n"
        "    st.append(int(sys.argv[2]), ev[prev:c], [], ev[c - 1].t); prev = c\n"
        "    print(c, flush=True); time.sleep(0.2)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, str(db), str(mid)], stdout=subprocess.PIPE, text=True
    )
    seen = [int(p.stdout.readline()) for _ in range(3)]
    p.kill()
    p.wait(timeout=30)
    p.stdout.close()
    with MatchStore(db) as st:
        items, _, resume_t = st.match_state(mid)
        assert len(items) in cuts and len(items) >= seen[-1]  # whole batches only
        assert resume_t == events[len(items) - 1].t
        st.append(mid, events, [r.to_dict() for r in sc.rulings], events[-1].t)
        st.finish(mid, sc.final)
        items, rulings, _ = st.match_state(mid)
    assert [e.to_json() for e in items] == [e.to_json() for e in events]
    assert rulings == [r.to_dict() for r in sc.rulings]


def test_cli_on_an_empty_database_and_an_open_match(db: Path, capsys):
    assert main(["matches", "--db", str(db)]) == 0
    assert "no matches in" in capsys.readouterr().out
    # a stream (not a match record) is refused with a message
    assert main(["import", str(EXAMPLES / "five_ball_game.jsonl"), "--db", str(db)]) == 2
    assert "not a match record" in capsys.readouterr().err
    sc = scored_example("five_ball_game")
    events = [it.event for it in sc.items]
    (evs, rul), *_ = list(_batches(sc, [len(events) // 2]))
    with MatchStore(db) as st:
        mid = st.start_match(sc.game.name, "pyramid-12ft", sc.game.options, None, "camera:0")
        st.append(mid, evs, rul, evs[-1].t)
    assert main(["show", str(mid), "--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("| open") and out[1] == "source: camera:0"
    score = " ".join(f"{k} {v}" for k, v in rul[-1]["score"].items())
    assert out[-1] == f"in progress: {score} (stored up to t={evs[-1].t:.2f} s)"
    assert main(["matches", "--db", str(db)]) == 0
    row = capsys.readouterr().out.splitlines()[2].split()
    assert row[0] == str(mid) and row[-1] == "open" and row[-2] == str(len(rul))


def test_import_once_stores_a_record_of_a_source_once(db: Path, tmp_path: Path):
    sc = scored_example("free_pyramid_game")
    rec = tmp_path / "rec.jsonl"
    write_record(rec, sc, "pyramid-12ft", sc.game.options)
    with MatchStore(db) as st:
        a = st.import_jsonl(rec, source="v1.mp4", once=True)
        assert st.import_jsonl(rec, source="v1.mp4", once=True) == a
        assert st.matches_from("v1.mp4") == [a]
        b = st.import_jsonl(rec, source="v2.mp4", once=True)  # another video: its own match
        c = st.import_jsonl(rec, source="v1.mp4")  # not asked to dedupe
        other = tmp_path / "other.jsonl"
        write_record(other, scored_example("five_ball_game"), "pyramid-12ft", None)
        d = st.import_jsonl(other, source="v1.mp4", once=True)  # a new analysis of v1
        assert len({a, b, c, d}) == 4
        assert st.matches_from("v1.mp4") == [a, c, d]
