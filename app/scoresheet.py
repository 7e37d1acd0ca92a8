"""The score sheet: one row per stroke -- who played which cue ball, what happened, the
ruling with its rule numbers, and the running score -- as text (for people) and CSV.

:func:`shot_rows` pairs every ruling of a :class:`luza.rules.record.Scored` with the
shot record it judged (the rules' own grouping of the stream, so the two always
line up); :func:`sheet_text` and :func:`write_csv` render the rows.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luza.events import BALLS_BY_GAME
from luza.rules.engine import Ruling, ShotRecord
from luza.rules.record import Scored
from luza.rules.stream import group

CSV_COLUMNS = (
    "shot",
    "t_start_s",
    "t_end_s",
    "player",
    "cue_ball",
    "first_contact",
    "pots",
    "cue_cushions",
    "cushions",
    "off_table",
    "points",
    "foul",
    "fouls",
    "rules",
    "next",
    "score",
    "respots",
    "notes",
)


@dataclass
class ShotRow:
    """One stroke of the score sheet."""

    shot: int  # 0 for a lag
    t_start_s: float
    t_end_s: float
    player: str | None
    cue_ball: str | None
    first_contact: str | None  # the first ball the cue ball touched
    pots: list[tuple[str, str]]  # (ball, pocket) in order, hang_fall included
    cue_cushions: int  # cushion (and jaw) contacts of the cue ball
    cushions: int  # cushion contacts of every ball
    off_table: list[str]
    points: int
    foul: bool
    fouls: list[tuple[str, str]]  # (rule, why)
    rules: list[str]
    next: str | None
    score: dict[str, int]
    respots: list[tuple[str, tuple[float, float]]]
    notes: list[str] = field(default_factory=list)
    uncertain: int = 0  # events of the stroke marked uncertain by the event stage

    def happened(self) -> str:
        """What happened, in words: first contact, pots, cushions, jumps."""
        parts = []
        if self.cue_ball:
            parts.append(f"{self.cue_ball} hits {self.first_contact or 'nothing'}")
        if self.pots:
            parts.append("potted " + ", ".join(f"{b} in {p}" for b, p in self.pots))
        parts.append(f"{self.cue_cushions} cushion{'s' if self.cue_cushions != 1 else ''}")
        if self.off_table:
            parts.append("off the table: " + ", ".join(self.off_table))
        return "; ".join(parts)

    def ruling_text(self) -> str:
        if self.foul:
            s = "FOUL " + "; ".join(f"{r} {why}" for r, why in self.fouls)
        else:
            s = f"{self.points:+d}"
        return s

    def score_text(self) -> str:
        return " ".join(f"{k} {v}" for k, v in self.score.items())

    def to_csv_row(self) -> dict[str, Any]:
        return {
            "shot": self.shot,
            "t_start_s": f"{self.t_start_s:.2f}",
            "t_end_s": f"{self.t_end_s:.2f}",
            "player": self.player or "",
            "cue_ball": self.cue_ball or "",
            "first_contact": self.first_contact or "",
            "pots": " ".join(f"{b}:{p}" for b, p in self.pots),
            "cue_cushions": self.cue_cushions,
            "cushions": self.cushions,
            "off_table": " ".join(self.off_table),
            "points": self.points,
            "foul": int(self.foul),
            "fouls": "; ".join(f"{r} {why}" for r, why in self.fouls),
            "rules": " ".join(self.rules),
            "next": self.next or "",
            "score": self.score_text(),
            "respots": " ".join(f"{b}@{p[0]:.0f},{p[1]:.0f}" for b, p in self.respots),
            "notes": " | ".join(self.notes),
        }


def shot_records(scored: Scored) -> list[ShotRecord]:
    """The shot records the rulings judged, in the same order (the rules' grouping)."""
    name = scored.game.name
    return [b for b in group(scored.items, name, BALLS_BY_GAME[name]) if isinstance(b, ShotRecord)]


def row(rec: ShotRecord, r: Ruling) -> ShotRow:
    cue = r.cue_ball or (rec.cue_ball if rec.starts else None)
    first = rec.first_contact(cue)[0] if cue and rec.first_contact(cue) else None
    drops = [i for i in rec.events if i.type in ("pocket", "hang_fall")]
    drops += rec.between_of_type("hang_fall")  # a hanging ball that fell after the stroke
    pots = [(str(i["ball"]), str(i["pocket"])) for i in drops]
    cushions = [i for i in rec.events if i.type == "cushion"]
    return ShotRow(
        shot=r.shot,
        t_start_s=rec.t_start,
        t_end_s=rec.t_end,
        player=r.player,
        cue_ball=cue,
        first_contact=first,
        pots=pots,
        cue_cushions=sum(1 for i in cushions if i["ball"] == cue),
        cushions=len(cushions),
        off_table=rec.jumped(),
        points=r.points,
        foul=r.foul,
        fouls=[(f.rule, f.why) for f in r.fouls],
        rules=list(r.rules),
        next=r.next,
        score=dict(r.score),
        respots=[(x.ball, (float(x.pos[0]), float(x.pos[1]))) for x in r.respots],
        notes=list(r.notes),
        uncertain=sum(1 for i in rec.events if i.event.get("uncertain")),
    )


def shot_rows(scored: Scored) -> list[ShotRow]:
    """One row per ruling, with what the shot record says happened."""
    recs = shot_records(scored)
    if len(recs) != len(scored.rulings):  # the rules rule every record exactly once
        raise AssertionError(f"{len(recs)} shot records for {len(scored.rulings)} rulings")
    return [row(rec, r) for rec, r in zip(recs, scored.rulings, strict=True)]


def final_text(final: dict[str, Any]) -> str:
    score = " ".join(f"{k} {v}" for k, v in final.get("score", {}).items())
    end = f"winner {final['winner']}" if final.get("winner") is not None else "game unfinished"
    return f"final: {score} | {end}"


def sheet_text(rows: list[ShotRow], final: dict[str, Any], header: dict[str, Any]) -> str:
    """The score sheet as plain text: a header, one block per stroke, the final line."""
    out = io.StringIO()
    title = f"luza score sheet -- {header.get('game', '?')} on {header.get('table', '?')}"
    out.write(title + "\n" + "=" * len(title) + "\n")
    for k in ("source", "players", "frames", "calibration", "start"):
        if header.get(k) not in (None, ""):
            out.write(f"{k}: {header[k]}\n")
    out.write("\n")
    w_player = max([6, *(len(r.player or "-") for r in rows)])
    out.write(f"{'shot':>4}  {'time':>7}  {'player':<{w_player}}  {'cue':<3}  what happened\n")
    for r in rows:
        shot = "lag" if r.shot == 0 and r.player is None else str(r.shot)
        out.write(
            f"{shot:>4}  {r.t_start_s:6.2f}s  {r.player or '-':<{w_player}}  "
            f"{r.cue_ball or '-':<3}  {r.happened()}\n"
        )
        pad = " " * (4 + 2 + 7 + 2 + w_player + 2 + 3 + 2)
        out.write(f"{pad}ruling: {r.ruling_text()}  [{', '.join(r.rules) or '-'}]\n")
        nxt = r.next if r.next is not None else "- (game over)"
        out.write(f"{pad}score: {r.score_text() or '-'}   next: {nxt}\n")
        for b, p in r.respots:
            out.write(f"{pad}respot {b} at ({p[0]:.0f}, {p[1]:.0f}) mm\n")
        if r.uncertain:
            out.write(f"{pad}({r.uncertain} uncertain event{'s' if r.uncertain > 1 else ''})\n")
        for n in r.notes:
            out.write(f"{pad}note: {n}\n")
    if not rows:
        out.write("(no stroke was seen)\n")
    out.write("\n" + final_text(final) + "\n")
    return out.getvalue()


def write_text(path: str | Path, rows: list[ShotRow], final: dict, header: dict) -> None:
    Path(path).write_text(sheet_text(rows, final, header), encoding="utf-8")


def write_csv(path: str | Path, rows: list[ShotRow]) -> None:
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow(r.to_csv_row())
