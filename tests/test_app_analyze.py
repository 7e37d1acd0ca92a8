"""``luza analyze`` end to end on a bundled clip: every file written, and all agreeing."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from luza.app.analyze import FILES, analyze_video
from luza.app.records import MatchStore
from luza.cli import main
from luza.events import read_jsonl
from luza.rules.record import read_record, replay
from luza.samples.video import probe, read_frames

CLIPS = Path(__file__).resolve().parent.parent / "samples" / "clips"
CLIP = CLIPS / "fb-kaisa-middle_s0_720p30.mp4"
TRUTH = CLIPS / "fb-kaisa-middle_s0_720p30.truth.json"
GAME = "five-ball"


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    d = tmp_path_factory.mktemp("analyze")
    summary = analyze_video(
        str(CLIP),
        d / "out",
        GAME,
        calibration=str(TRUTH),
        players="Ann,Bob",
        db=str(d / "m.sqlite"),
        progress=False,
    )
    return d, summary


def test_every_file_is_written_and_the_summary_says_so(done):
    d, s = done
    out = d / "out"
    for key, name in FILES.items():
        if key == "calibration":  # only for --calibration auto
            assert not (out / name).exists()
            continue
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
        assert s["files"][key] == str(out / name)
    assert json.loads((out / "summary.json").read_text()) == s
    truth = json.loads(TRUTH.read_text())
    assert s["n_frames"] == truth["n_frames"] and s["size"] == truth["size"]


def test_the_record_replays_and_matches_the_event_log(done):
    d, s = done
    out = d / "out"
    scored, rec = replay(out / "record.jsonl")
    assert len(rec.rulings) == s["n_shots"] >= 1
    assert scored.final["score"] == s["score"] and scored.final["winner"] == s["winner"]
    assert set(s["score"]) == {"Ann", "Bob"}
    # the record holds the event log's events (plus the players input), in order
    events = read_jsonl(out / "events.jsonl")
    assert len(events) == s["n_events"]
    rec_events = [it.event for it in read_record(out / "record.jsonl").items]
    assert [e.type for e in rec_events if e.type != "players"] == [e.type for e in events]
    assert [e.t for e in rec_events if e.type != "players"] == [e.t for e in events]


def test_score_sheet_rows_are_the_rulings(done):
    d, _ = done
    out = d / "out"
    rulings = [r for _, r in read_record(out / "record.jsonl").rulings]
    with open(out / "scoresheet.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(rulings)
    events = read_jsonl(out / "events.jsonl")
    starts = [e for e in events if e.type == "shot_start"]
    for row, r, st in zip(rows, rulings, starts, strict=True):
        assert int(row["shot"]) == r["shot"] and row["player"] == r["player"]
        assert row["cue_ball"] == r["cue_ball"] == st["cue_ball"]
        assert row["rules"] == " ".join(r["rules"]) and int(row["points"]) == r["points"]
        assert row["score"] == " ".join(f"{k} {v}" for k, v in r["score"].items())
        assert float(row["t_start_s"]) == pytest.approx(st.t, abs=0.006)
    text = (out / "scoresheet.txt").read_text()
    assert "players: Ann, Bob" in text
    for r in rulings:
        assert ", ".join(r["rules"]) in text
    pots = [e for e in events if e.type == "pocket"]
    for p in pots:
        assert f"{p['ball']} in {p['pocket']}" in text


def test_stats_agree_with_the_events_and_positions(done):
    d, _ = done
    out = d / "out"
    st = json.loads((out / "stats.json").read_text())
    events = read_jsonl(out / "events.jsonl")
    starts = [e for e in events if e.type == "shot_start" and not e.get("lag")]
    ends = [e for e in events if e.type == "shot_end"]
    assert len(st["shots"]) == len(starts) == st["totals"]["shots"]
    pos = events[0]["positions"]  # where every ball stood before the first stroke
    for shot, s0, e1 in zip(st["shots"], starts, ends, strict=True):
        cue = shot["cue_ball"]
        assert cue == s0["cue_ball"]
        assert shot["cue_peak_speed_mm_s"] >= shot["cue_mean_speed_mm_s"] > 0
        assert shot["cushions"] == sum(
            1 for e in events if e.type == "cushion" and s0.t <= e.t <= e1.t
        )
        # a ball travels at least as far as from where it stood to where it stopped
        for b, p0 in pos.items():
            p1 = e1["positions"].get(b)
            if p1 is not None:
                assert shot["distance_mm"].get(b, 0.0) >= math.dist(p0, p1) - 30.0, b
        pos = e1["positions"]
    assert st["totals"]["cue_distance_mm"] == pytest.approx(
        sum(s["cue_distance_mm"] for s in st["shots"]), abs=0.5
    )
    assert sum(c[2] for c in st["heatmap"]["cells"]) == st["heatmap"]["samples"] > 0


def test_annotated_video_has_every_frame(done):
    d, s = done
    out = d / "out"
    info = probe(out / "annotated.mp4")
    assert info.codec == "h264" and (info.width, info.height) == tuple(s["size"])
    n = sum(1 for _ in read_frames(out / "annotated.mp4"))
    assert n == s["n_frames"]


def test_the_match_is_in_the_database(done):
    d, s = done
    ms = MatchStore(d / "m.sqlite")
    try:
        info = ms.get(s["match_id"])
    finally:
        ms.close()
    assert info.game == GAME and info.source == str(CLIP) and info.status == "finished"
    assert info.score == s["score"] and info.n_shots == s["n_shots"]
    assert list(info.players.values()) == ["Ann", "Bob"]


def test_same_input_same_files(done, tmp_path):
    d, _ = done
    s2 = analyze_video(
        str(CLIP),
        tmp_path / "again",
        GAME,
        calibration=str(TRUTH),
        players="Ann,Bob",
        video_out=False,
        progress=False,
        store=False,
    )
    assert "video" not in s2["files"] and s2["match_id"] is None
    for key in ("events", "record", "scoresheet", "scoresheet_csv", "stats"):
        a = (d / "out" / FILES[key]).read_bytes()
        b = (tmp_path / "again" / FILES[key]).read_bytes()
        assert a == b, key


def test_auto_calibration_the_whole_way(tmp_path, capsys):
    rc = main(
        [
            "analyze", str(CLIP), "--game", GAME, "-o", str(tmp_path / "auto"),
            "--no-video", "--no-db", "--quiet",
        ]
    )  # fmt: skip
    assert rc == 0
    err = capsys.readouterr().err
    assert "luza analyze:" in err and "strokes" in err  # the one summary line
    out = tmp_path / "auto"
    cal = json.loads((out / "calibration.json").read_text())
    assert cal["image_size"] == json.loads(TRUTH.read_text())["size"]
    s = json.loads((out / "summary.json").read_text())
    assert s["n_shots"] >= 1
    scored, _ = replay(out / "record.jsonl")
    assert len(scored.rulings) == s["n_shots"]
    # the cue ball found with the auto camera is the one the clip struck
    truth_events = json.loads(TRUTH.read_text())["events"]
    first = next(e for e in read_jsonl(out / "events.jsonl") if e.type == "shot_start")
    want = next(e for e in truth_events if e["type"] == "shot_start")
    assert first["cue_ball"] == want["cue_ball"]
    assert first.t == pytest.approx(want["t"], abs=0.1)


@pytest.mark.parametrize(
    "args, words",
    [
        (["nope.mp4", "--game", GAME], "video not found"),
        (["{corrupt}", "--game", GAME], "corrupt.mp4"),
        (["{clip}", "--game", "snooker"], "invalid choice"),
        (["{clip}", "--game", GAME, "--calibration", "nope.json"], "calibration file not found"),
        (["{clip}", "--game", GAME, "--players", "Ann"], "two different names"),
        (["{clip}", "--game", GAME, "--db", "{damaged}"], "damaged.sqlite"),
        (["{clip}", "--game", GAME, "--option", "foo=1"], "unknown option 'foo'"),
    ],
)
def test_bad_input_exits_2_with_a_message(args, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "corrupt.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 20)
    (tmp_path / "damaged.sqlite").write_bytes(b"this is not a database" * 100)
    repl = {
        "{clip}": str(CLIP),
        "{corrupt}": str(tmp_path / "corrupt.mp4"),
        "{damaged}": str(tmp_path / "damaged.sqlite"),
    }
    argv = ["analyze", *[repl.get(a, a) for a in args], "-o", str(tmp_path / "o")]
    if "--db" not in args:
        argv.append("--no-db")
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "summary.json").write_text("{}")  # a finished earlier run
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse refuses a wrong game name itself
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
    # refused before touching DIR: the earlier run stands; else it no longer looks finished
    untouched = words in (
        "invalid choice", "two different names", "unknown option 'foo'", "damaged.sqlite"
    )  # fmt: skip
    assert (tmp_path / "o" / "summary.json").exists() == untouched


def test_an_output_that_is_a_file_is_refused(tmp_path, capsys):
    f = tmp_path / "taken"
    f.write_text("x")
    assert main(["analyze", str(CLIP), "--game", GAME, "-o", str(f), "--no-db"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_operator_inputs_are_merged_by_time_and_named_in_errors(done, tmp_path):
    from luza.app.analyze import operator_inputs
    from luza.app.match import score_run
    from luza.rules.engine import RuleError

    d, s = done
    events = read_jsonl(d / "out" / "events.jsonl")
    start = next(e for e in events if e.type == "shot_start")
    route = {"cushions": [], "cue_cushions": [], "via": None, "combination": None, "jaw": False}
    call = {"type": "call", "t": start.t - 0.5, "ball": "K", "pocket": "middle-right"}
    f = tmp_path / "ops.jsonl"
    f.write_text(json.dumps({**call, "route": route}) + "\n")
    scored = score_run(events, GAME, s["table"], None, operator_inputs(events, str(f), None))
    types = [it.type for it in scored.items]
    assert types.index("call") == types.index("shot_start") - 1  # just before the stroke
    assert not any("auto-call" in n for n in scored.rulings[0].notes)  # the call was used
    f.write_text(json.dumps({**call, "ball": "Q"}) + "\n")
    with pytest.raises(RuleError, match=f"{f}:1: unknown ball id 'Q'"):
        score_run(events, GAME, s["table"], None, operator_inputs(events, str(f), None))
