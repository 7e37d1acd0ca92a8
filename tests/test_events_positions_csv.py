"""``read_positions_csv`` refuses what it cannot read as one ball's place per frame,
with the line, instead of extracting events from it: a number that is not finite, a
ball twice in one frame, a frame whose rows disagree on its time, time running
backwards.  ``luza events`` prints the error and exits non-zero."""

from __future__ import annotations

import pytest

from luza.cli import main
from luza.vision.events import EventsError, read_positions_csv

HEAD = "frame,t,ball,x_mm,y_mm"


def _csv(tmp_path, *rows: str):
    p = tmp_path / "positions.csv"
    p.write_text("\n".join([HEAD, *rows]) + "\n")
    return p


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        (["0,0.0,W1,100,200", "1,0.0333,W1,nan,200"], ":3: not a finite number"),
        (["0,0.0,W1,100,inf"], ":2: not a finite number"),
        (["0,0.0,W1,100,200", "0,0.0,W1,300,200"], ":3: ball W1 twice in frame 0"),
        (["0,0.0,W1,100,200", "0,0.01,R1,300,200"], ":3: frame 0 at t=0.01 here"),
        (["0,0.5,W1,100,200", "1,0.2,W1,300,200"], "frame 1 at t=0.2 is not after frame 0"),
        (["0,0.0,W1,100,abc"], ":2: bad number"),
    ],
)
def test_what_is_not_one_place_per_ball_per_frame_is_refused(tmp_path, rows, says):
    with pytest.raises(EventsError, match=says):
        read_positions_csv(_csv(tmp_path, *rows))


def test_rows_in_any_order_read_as_frames_in_time_order(tmp_path):
    frames = read_positions_csv(
        _csv(tmp_path, "1,0.0333,W1,101,200", "0,0.0,R1,500,600", "0,0.0,W1,100,200")
    )
    assert [f.frame for f in frames] == [0, 1]
    assert frames[0].seen == {"R1": (500.0, 600.0), "W1": (100.0, 200.0)}
    assert frames[1].seen == {"W1": (101.0, 200.0)}


def test_luza_events_says_what_is_wrong_and_fails(tmp_path, capsys):
    p = _csv(tmp_path, "0,0.0,W1,100,200", "0,0.0,W1,300,200")
    out = tmp_path / "events.jsonl"
    rc = main(["events", str(p), "--game", "five-ball", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc != 0
    assert "ball W1 twice in frame 0" in err and "Traceback" not in err
    assert not out.exists()


def test_positions_off_the_table_are_refused(tmp_path, capsys):
    """Positions measured from elsewhere (here from the table's centre) or in other units
    lie far off the bed: events from them would be garbage.  A ball in a
    pocket mouth, beyond the cushion nose, is on the table, and a ball flying off it is
    seen beyond the rails for a few frames."""
    rows = [f"{k},{k / 30:.4f},W1,{-1500 - k},200" for k in range(10)]
    rows += [f"{k},{k / 30:.4f},R1,-60,-40" for k in range(10)]  # the head-left mouth
    out = tmp_path / "events.jsonl"
    rc = main(["events", str(_csv(tmp_path, *rows)), "--game", "five-ball", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and not out.exists()
    assert "10 of 20 positions lie more than 1000 mm off the 3550 x 1775 mm bed" in err
    assert "ball W1 at (-1500, 200) mm in frame 0" in err
    assert "Traceback" not in err
    rows = [f"{k},{k / 30:.4f},W1,{900 - k},1000" for k in range(10)] + rows[10:]
    rows.append("10,0.3333,W1,890,2900")  # in the air, 1125 mm beyond the left cushion
    assert main(["events", str(_csv(tmp_path, *rows)), "--game", "five-ball", "-o", str(out)]) == 0
