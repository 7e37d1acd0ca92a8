"""Shot statistics from the tracked positions and the event stream (pure functions).

Per stroke: the cue ball's peak and mean speed, its cushion contacts (and every
ball's), the distance each ball travelled; over the match: totals; and a heat map
of where the cue ball went, drawn on a top view of the table (``stats.png``).

Speeds come from the tracker's positions (``vision.events.FrameObs``), not from the
video: a step between two seen samples of a ball ``dt`` apart is ``|dxy| / dt``.  A
3-sample median takes out a single bad sample (a wrong detection), steps slower than
``REST_SPEED_MM_S`` or going nowhere (within ``JITTER_MM`` over a few samples) are
tracker jitter on a still ball (not counted as travel), and
steps faster than ``MAX_SPEED_MM_S`` (no stroke drives a ball that fast) or a lone
step far faster than both its neighbours are an identity swap, not motion.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from luza.calibration.profiles import TableProfile
from luza.events import Event
from luza.rules.engine import ShotRecord
from luza.vision.events import FrameObs
from luza.vision.shots import shot_records

REST_SPEED_MM_S = 25.0  # slower steps are jitter on a still ball
MAX_SPEED_MM_S = 15000.0  # faster steps are a swap of identities, not motion
JITTER_MM = 5.0  # a ball that stays this close to itself over a few samples is still
JITTER_SPAN = 2  # ... samples either side of a step
SPIKE_FACTOR = 3.0  # a step this many times faster than both neighbours ...
SPIKE_MIN_MM_S = 1000.0  # ... and this much faster is a swap of identities
MAX_GAP_S = 0.25  # samples further apart than this (a hidden ball) are not joined
HEAT_CELL_MM = 50.0  # heat-map bin
HEAT_BLUR_MM = 60.0  # heat-map smoothing (Gaussian sigma)


@dataclass(frozen=True)
class Track:
    """One ball's seen samples: times (s) and positions (mm), in frame order."""

    t: np.ndarray  # (n,)
    xy: np.ndarray  # (n, 2)


def ball_tracks(frames: Sequence[FrameObs]) -> dict[str, Track]:
    """Every ball's seen samples over the frames."""
    ts: dict[str, list[float]] = {}
    ps: dict[str, list[tuple[float, float]]] = {}
    for f in frames:
        for b, p in f.seen.items():
            ts.setdefault(b, []).append(f.t)
            ps.setdefault(b, []).append(p)
    return {b: Track(np.asarray(ts[b], float), np.asarray(ps[b], float).reshape(-1, 2)) for b in ts}


def window(tr: Track, t0: float, t1: float) -> Track:
    m = (tr.t >= t0) & (tr.t <= t1)
    return Track(tr.t[m], tr.xy[m])


def _analyse_steps(tr: Track):
    """(smoothed xy, step lengths, durations, speeds, joined, moving) of a track; see
    :func:`steps`.  ``joined``: the step is the same ball moving (no gap, no swap)."""
    n = len(tr.t)
    xy = tr.xy.copy()
    if n >= 3:
        xy[1:-1] = np.median(np.stack([tr.xy[:-2], tr.xy[1:-1], tr.xy[2:]]), axis=0)
    d = np.hypot(*np.diff(xy, axis=0).T)
    dt = np.diff(tr.t)
    ok = (dt > 0) & (dt <= MAX_GAP_S)
    v = np.where(ok, d / np.where(dt > 0, dt, 1.0), 0.0)
    i = np.arange(n - 1)
    lo = np.maximum(i - JITTER_SPAN, 0)
    hi = np.minimum(i + 1 + JITTER_SPAN, n - 1)
    span = np.hypot(*(xy[hi] - xy[lo]).T)
    # a lone step far faster than both its neighbours is a jump of identity (a swap),
    # not motion: a real ball keeps its speed from one frame to the next
    prev = np.concatenate([[0.0], v[:-1]])
    nxt = np.concatenate([v[1:], [0.0]])
    spike = v > SPIKE_FACTOR * np.maximum(prev, nxt) + SPIKE_MIN_MM_S
    joined = ok & (v <= MAX_SPEED_MM_S) & ~spike
    moving = joined & (v >= REST_SPEED_MM_S) & (span > JITTER_MM)
    return xy, d, dt, v, joined, moving


def steps(tr: Track) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(step lengths mm, step durations s, speeds mm/s) between joined samples, after a
    3-sample median of the positions.  A step counts only while the ball moves: faster
    than ``REST_SPEED_MM_S`` and more than ``JITTER_MM`` from where it was a few samples
    earlier and later (tracker jitter on a still ball goes nowhere); steps over a gap
    and identity swaps are dropped too (length 0, speed 0)."""
    if len(tr.t) < 2:
        z = np.zeros(0)
        return z, z, z
    _, d, dt, v, _, m = _analyse_steps(tr)
    return np.where(m, d, 0.0), np.where(m, dt, 0.0), np.where(m, v, 0.0)


def path_pieces(tr: Track) -> list[np.ndarray]:
    """The track as pieces of path (mm) to draw: cut at gaps and identity swaps."""
    if len(tr.t) < 2:
        return []
    xy, _, _, _, joined, _ = _analyse_steps(tr)
    pieces, start = [], 0
    for k, j in enumerate(joined):
        if not j:
            if k + 1 - start >= 2:
                pieces.append(xy[start : k + 1])
            start = k + 1
    if len(xy) - start >= 2:
        pieces.append(xy[start:])
    return pieces


def distance_mm(tr: Track) -> float:
    d, _, _ = steps(tr)
    return float(d.sum())


def speed_summary(tr: Track) -> tuple[float, float]:
    """(peak, mean) speed in mm/s over the moving steps; mean = distance / moving time."""
    d, dt, v = steps(tr)
    if not (dt > 0).any():
        return 0.0, 0.0
    return float(v.max()), float(d.sum() / dt.sum())


def shot_stats(rec: ShotRecord, tracks: dict[str, Track]) -> dict[str, Any]:
    """One stroke's statistics (``rec`` from the rules' grouping of the stream)."""
    cue = rec.cue_ball
    t0, t1 = rec.t_start, rec.t_end
    dist = {}
    for b, tr in sorted(tracks.items(), key=lambda kv: _ball_key(kv[0])):
        w = window(tr, t0, t1)
        dd = distance_mm(w)
        if dd > 0:
            dist[b] = round(dd, 1)
    peak, mean = speed_summary(window(tracks[cue], t0, t1)) if cue in tracks else (0.0, 0.0)
    cush = [i for i in rec.events if i.type == "cushion"]
    return {
        "shot": rec.n,
        "t_start_s": round(t0, 3),
        "t_end_s": round(t1, 3),
        "cue_ball": cue,
        "cue_peak_speed_mm_s": round(peak, 1),
        "cue_mean_speed_mm_s": round(mean, 1),
        "cue_distance_mm": dist.get(cue, 0.0),
        "cue_cushions": sum(1 for i in cush if i["ball"] == cue),
        "cushions": len(cush),
        "collisions": sum(1 for i in rec.events if i.type == "collision"),
        "pots": [str(i["ball"]) for i in rec.events if i.type in ("pocket", "hang_fall")],
        "distance_mm": dist,
    }


def cue_positions(frames: Sequence[FrameObs], records: Sequence[ShotRecord]) -> np.ndarray:
    """(n, 2) mm: the cue ball's seen positions during each stroke (its own cue ball)."""
    pts = []
    k = 0
    recs = sorted(records, key=lambda r: r.t_start)
    for f in frames:
        while k < len(recs) and f.t > recs[k].t_end:
            k += 1
        if k >= len(recs):
            break
        r = recs[k]
        if r.t_start <= f.t and r.cue_ball in f.seen:
            pts.append(f.seen[r.cue_ball])
    return np.asarray(pts, float).reshape(-1, 2)


def heat_grid(points: np.ndarray, profile: TableProfile, cell_mm: float = HEAT_CELL_MM):
    """Counts of ``points`` on a grid of ``cell_mm`` cells over the bed (rows = y)."""
    nx = int(math.ceil(profile.length_mm / cell_mm))
    ny = int(math.ceil(profile.width_mm / cell_mm))
    g = np.zeros((ny, nx), np.int64)
    if len(points):
        ix = np.clip((points[:, 0] / cell_mm).astype(int), 0, nx - 1)
        iy = np.clip((points[:, 1] / cell_mm).astype(int), 0, ny - 1)
        np.add.at(g, (iy, ix), 1)
    return g


def match_stats(
    frames: Sequence[FrameObs],
    events: Sequence[Event],
    game: str,
    profile: TableProfile,
    fps: float | None = None,
) -> dict[str, Any]:
    """All the statistics of a run: per stroke, totals, the heat map's counts."""
    recs = [r for r in shot_records(events, game) if not r.lag]
    tracks = ball_tracks(frames)
    shots = [shot_stats(r, tracks) for r in recs]
    dist: dict[str, float] = {}
    for s in shots:
        for b, d in s["distance_mm"].items():
            dist[b] = round(dist.get(b, 0.0) + d, 1)
    pts = cue_positions(frames, recs)
    grid = heat_grid(pts, profile)
    duration = (frames[-1].t - frames[0].t) if frames else 0.0
    return {
        "game": game,
        "table": profile.name,
        "fps": fps,
        "n_frames": len(frames),
        "duration_s": round(duration, 3),
        "shots": shots,
        "totals": {
            "shots": len(shots),
            "cue_cushions": sum(s["cue_cushions"] for s in shots),
            "cushions": sum(s["cushions"] for s in shots),
            "collisions": sum(s["collisions"] for s in shots),
            "pots": sum(len(s["pots"]) for s in shots),
            "cue_distance_mm": round(sum(s["cue_distance_mm"] for s in shots), 1),
            "cue_peak_speed_mm_s": max((s["cue_peak_speed_mm_s"] for s in shots), default=0.0),
            "distance_mm": dict(sorted(dist.items(), key=lambda kv: _ball_key(kv[0]))),
        },
        "heatmap": {
            "cell_mm": HEAT_CELL_MM,
            "samples": int(len(pts)),
            "shape": list(grid.shape),  # (cells across the table, cells along it)
            # the non-empty cells: [column (along x), row (along y), samples]
            "cells": [[int(i), int(j), int(grid[j, i])] for j, i in np.argwhere(grid)],
        },
    }


def _ball_key(b: str) -> tuple:
    return (0, int(b), "") if b.isdigit() else (1, 0, b)


def write_json(path: str | Path, stats: dict[str, Any]) -> None:
    """Indented, but the heat map's cells on one line each (a short file to read)."""
    heat = dict(stats.get("heatmap", {}))
    cells = heat.pop("cells", [])
    body = json.dumps({**stats, "heatmap": {**heat, "cells": "@CELLS@"}}, indent=1)
    rows = ",\n   ".join(json.dumps(c) for c in cells)
    body = body.replace('"@CELLS@"', f"[\n   {rows}\n  ]" if cells else "[]")
    Path(path).write_text(body + "\n", encoding="utf-8")


# ---------------------------------------------------------------- the picture


class TopView:
    """A top view of the table: mm -> px with the head cushion on the left."""

    def __init__(self, profile: TableProfile, width_px: int = 1000, margin_px: int = 36):
        self.profile = profile
        self.margin = margin_px
        self.scale = (width_px - 2 * margin_px) / profile.length_mm  # px per mm
        self.w = width_px
        self.h = int(round(profile.width_mm * self.scale + 2 * margin_px))

    def px(self, xy) -> tuple[int, int]:
        # y = 0 (the left cushion) at the top of the picture, as seen from the head
        return (
            int(round(self.margin + xy[0] * self.scale)),
            int(round(self.margin + xy[1] * self.scale)),
        )

    def draw_table(self, cloth=(60, 110, 30)) -> np.ndarray:
        p = self.profile
        img = np.zeros((self.h, self.w, 3), np.uint8)
        img[:] = (30, 45, 70)  # the rail (dark wood)
        cv2.rectangle(img, self.px((0, 0)), self.px((p.length_mm, p.width_mm)), cloth, -1)
        r = max(3, int(round(p.corner.mouth_mm * self.scale * 0.45)))
        for pk in p.pockets().values():
            cv2.circle(img, self.px(pk.mouth_centre), r, (15, 15, 15), -1, cv2.LINE_AA)
        for name in p.marked_lines:
            a, b = p.lines[name]
            cv2.line(img, self.px(a), self.px(b), (200, 220, 200), 1, cv2.LINE_AA)
        for name in p.marked_spots:
            cv2.circle(img, self.px(p.spots[name]), 2, (230, 240, 230), -1, cv2.LINE_AA)
        # which end is which: the head (house) cushion on the left, the foot on the right
        font, col = cv2.FONT_HERSHEY_SIMPLEX, (170, 190, 210)
        y = self.px((0, p.width_mm / 2))[1]
        for word, x in (("head", 4), ("foot", self.w - self.margin + 2)):
            cv2.putText(img, word, (x, y + 4), font, 0.38, col, 1, cv2.LINE_AA)
        return img


def _colormap(v: np.ndarray) -> np.ndarray:
    """0..1 -> BGR (inferno-like via OpenCV's INFERNO map)."""
    u8 = np.clip(v * 255, 0, 255).astype(np.uint8)
    return cv2.applyColorMap(u8, cv2.COLORMAP_INFERNO)


def render_png(
    path: str | Path,
    stats: dict[str, Any],
    frames: Sequence[FrameObs],
    events: Sequence[Event],
    profile: TableProfile,
    title: str = "",
    width_px: int = 1000,
) -> None:
    """``stats.png``: the cue-ball heat map on the table with each stroke's cue-ball path,
    and per stroke the cue ball's peak speed and cushion count."""
    tv = TopView(profile, width_px)
    img = tv.draw_table()
    recs = [r for r in shot_records(events, stats["game"]) if not r.lag]
    pts = cue_positions(frames, recs)
    # heat: density of the cue ball's positions, smoothed, blended over the cloth
    if len(pts):
        dens = np.zeros((tv.h, tv.w), np.float32)
        for x, y in pts:
            u, v = tv.px((x, y))
            if 0 <= u < tv.w and 0 <= v < tv.h:
                dens[v, u] += 1.0
        sigma = HEAT_BLUR_MM * tv.scale
        dens = cv2.GaussianBlur(dens, (0, 0), sigma)
        if dens.max() > 0:
            dn = (dens / dens.max()) ** 0.6
            col = _colormap(dn)
            a = np.clip(dn * 1.6, 0, 0.85)[..., None]
            img = (img * (1 - a) + col * a).astype(np.uint8)
    # each stroke's cue-ball path, numbered where it started
    tracks = ball_tracks(frames)
    for r in recs:
        tr = tracks.get(r.cue_ball)
        if tr is None:
            continue
        w = window(tr, r.t_start, r.t_end)
        pieces = path_pieces(w)
        if not pieces:
            continue
        for piece in pieces:
            poly = np.array([tv.px(p) for p in piece], np.int32)
            cv2.polylines(img, [poly], False, (255, 255, 255), 1, cv2.LINE_AA)
        s = tv.px(pieces[0][0])
        cv2.circle(img, s, 5, (255, 255, 255), -1, cv2.LINE_AA)
        cv2.putText(
            img, str(r.n), (s[0] + 6, s[1] - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
            (255, 255, 255), 1, cv2.LINE_AA,
        )  # fmt: skip
    # the panel under the table: title, totals, a bar per stroke
    shots = stats["shots"]
    bar_h = 150
    panel = np.full((bar_h + 70, tv.w, 3), 250, np.uint8)
    tot = stats["totals"]
    head = title or f"{stats['game']} on {stats['table']}"
    cv2.putText(panel, head, (12, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (20, 20, 20), 1, cv2.LINE_AA)
    line = (
        f"{tot['shots']} strokes   cue ball travelled {tot['cue_distance_mm'] / 1000:.1f} m   "
        f"peak {tot['cue_peak_speed_mm_s'] / 1000:.2f} m/s   {tot['cue_cushions']} cue-ball "
        f"cushions   {tot['pots']} pots   heat map: cue ball during strokes"
    )
    cv2.putText(panel, line, (12, 46), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (60, 60, 60), 1, cv2.LINE_AA)
    if shots:
        vmax = max(max(s["cue_peak_speed_mm_s"] for s in shots), 1.0)
        x0, x1, base = 60, tv.w - 20, bar_h + 55
        cv2.line(panel, (x0, base), (x1, base), (120, 120, 120), 1)
        cv2.putText(
            panel, f"{vmax / 1000:.1f} m/s", (6, base - bar_h + 18), cv2.FONT_HERSHEY_SIMPLEX,
            0.35, (90, 90, 90), 1, cv2.LINE_AA,
        )  # fmt: skip
        cv2.putText(
            panel, "peak", (6, base - bar_h + 32), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (90, 90, 90),
            1, cv2.LINE_AA,
        )  # fmt: skip
        slot = (x1 - x0) / len(shots)
        bw = max(2, int(min(40, slot * 0.6)))
        for k, s in enumerate(shots):
            cx = int(x0 + slot * (k + 0.5))
            hgt = int(round((bar_h - 40) * s["cue_peak_speed_mm_s"] / vmax))
            bar = ((cx - bw // 2, base - hgt), (cx + bw // 2, base))
            cv2.rectangle(panel, *bar, (180, 120, 40), -1)
            label = f"#{s['shot']} {s['cue_ball']}"
            if slot > 44:
                label += f" ({s['cue_cushions']}c)"
            cv2.putText(
                panel, label, (cx - bw // 2, base - hgt - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                (40, 40, 40), 1, cv2.LINE_AA,
            )  # fmt: skip
    out = np.vstack([img, panel])
    if not cv2.imwrite(str(path), out, [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise OSError(f"cannot write {path}")
