"""``annotated.mp4``: the original frames with what luza understood drawn on them.

Ball ids with short trails (the last ``TRAIL_S``), every event as a banner for a
moment ("Y hits 3", "5 potted in foot-left"), the ruling when a stroke ends, a
score bar (running score, whose turn, the stroke number) and respot hints: a
dashed ring where a ball must go back, from the end of the stroke until the next
one starts.  Table mm are drawn with ``camera.project(xy, ball_radius)`` (the
centre of a ball on the cloth).  Written as H.264 through PyAV
(``luza.samples.video.VideoWriter``).

:func:`overlay_plan` decides what to draw on which frame (pure, testable without
video); :func:`draw_frame` draws one frame; :func:`write_annotated` runs both over
the source video.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from luza.events import Event
from luza.rules.record import Scored
from luza.vision.sources import open_source

from .match import VideoRun
from .scoresheet import shot_records

TRAIL_S = 0.5  # trail length behind a moving ball
BANNER_S = 1.2  # an event's banner stays this long
RULING_S = 2.5  # the ruling banner after a stroke stays this long
MAX_BANNERS = 4  # at most this many banners at once (the newest)
VIDEO_CRF = 23
VIDEO_PRESET = "superfast"  # ~4x faster than veryfast at 1080p; files ~3x larger (still small)

BALL_COLOURS = {  # BGR of the label / ring per ball
    "Y": (0, 215, 255),
    "K": (0, 215, 255),
    "R1": (60, 60, 235),
    "R2": (60, 60, 235),
}
DEFAULT_COLOUR = (255, 255, 255)
HIDDEN_COLOUR = (0, 140, 255)
RESPOT_COLOUR = (255, 0, 255)


@dataclass
class Banner:
    text: str
    t0: float
    t1: float
    colour: tuple[int, int, int] = (255, 255, 255)


@dataclass
class ScoreState:
    """What the score bar shows from ``t`` on."""

    t: float
    score: dict[str, int]
    turn: str | None
    shot: int  # the last stroke played (0 before the first)
    game_over: bool = False


@dataclass
class Respots:
    t0: float
    t1: float
    spots: list[tuple[str, tuple[float, float]]]


@dataclass
class Plan:
    banners: list[Banner] = field(default_factory=list)
    states: list[ScoreState] = field(default_factory=list)
    respots: list[Respots] = field(default_factory=list)
    strokes: list[tuple[float, float]] = field(default_factory=list)  # (start, end) s

    def banners_at(self, t: float) -> list[Banner]:
        on = [b for b in self.banners if b.t0 <= t < b.t1]
        return on[-MAX_BANNERS:]

    def state_at(self, t: float) -> ScoreState | None:
        cur = None
        for s in self.states:
            if s.t <= t:
                cur = s
            else:
                break
        return cur

    def in_stroke(self, t: float) -> bool:
        return any(a <= t < b for a, b in self.strokes)

    def respots_at(self, t: float) -> list[tuple[str, tuple[float, float]]]:
        out = []
        for r in self.respots:
            if r.t0 <= t < r.t1:
                out.extend(r.spots)
        return out


def event_text(e: Event) -> str | None:
    """A banner's words for an event (None: not worth a banner)."""
    g = e.get
    texts = {
        "collision": lambda: f"{g('a')} hits {g('b')}",
        "cushion": lambda: (
            f"{g('ball')} off the {str(g('cushion'))[4:]} jaw"
            if str(g("cushion")).startswith("jaw:")
            else f"{g('ball')} off the {g('cushion')} cushion"
        ),
        "pocket": lambda: f"{g('ball')} potted in {g('pocket')}",
        "off_table": lambda: f"{g('ball')} off the table",
        "bounce_out": lambda: f"{g('ball')} bounces out of {g('pocket')}",
        "hang": lambda: f"{g('ball')} hangs over {g('pocket')}",
        "hang_fall": lambda: f"{g('ball')} drops into {g('pocket')}",
        "ball_placed": lambda: f"{g('ball')} placed",
        "ball_removed": lambda: f"{g('ball')} taken off",
        "ball_moved": lambda: f"{g('ball')} moved",
    }
    f = texts.get(e.type)
    if f is None:
        return None
    s = f()
    return s + " (?)" if e.get("uncertain") else s


def _score_text(score: dict[str, int]) -> str:
    return "  ".join(f"{k} {v}" for k, v in score.items())


def overlay_plan(scored: Scored) -> Plan:
    """Banners, score states and respot hints over time, from the scored stream."""
    plan = Plan()
    recs = shot_records(scored)
    rulings = scored.rulings
    # the score before the first stroke: 0 each, or what a game taken up started with
    start: dict[str, int] = {}
    first_state = next((it.event for it in scored.items if it.type == "table_state"), None)
    if first_state is not None and isinstance(first_state.get("score"), dict):
        start = {str(k): int(v) for k, v in first_state.get("score").items()}
    players = list(rulings[0].score) if rulings and rulings[0].score else ["A", "B"]
    score0 = {p: start.get(p, 0) for p in players}
    turn0 = rulings[0].player if rulings else None
    plan.states.append(ScoreState(0.0, score0, turn0, 0))
    for it in scored.items:
        e = it.event
        text = event_text(e)
        if text is not None:
            colour = (80, 255, 80) if e.type in ("pocket", "hang_fall") else (255, 255, 255)
            plan.banners.append(Banner(text, e.t, e.t + BANNER_S, colour))
    for k, (rec, r) in enumerate(zip(recs, rulings, strict=True)):
        who = r.player or "-"
        label = "lag" if rec.lag else f"stroke {r.shot}"
        plan.banners.append(
            Banner(f"{label}: {who} plays {r.cue_ball or '?'}", rec.t_start, rec.t_start + 1.5)
        )
        if r.foul:
            words = "FOUL " + "; ".join(f"{f.rule} {f.why}" for f in r.fouls)
            words = words if len(words) <= 80 else words[:77] + "..."
            colour = (60, 60, 255)
        else:
            words = f"{r.points:+d}" + (f"  [{', '.join(r.rules[:4])}]" if r.rules else "")
            colour = (80, 255, 80) if r.points > 0 else (230, 230, 230)
        plan.banners.append(Banner(f"{label}: {words}", rec.t_end, rec.t_end + RULING_S, colour))
        over = r.next is None and scored.final.get("winner") is not None and k == len(recs) - 1
        plan.strokes.append((rec.t_start, rec.t_end))
        before = plan.states[-1]
        plan.states.append(ScoreState(rec.t_start, dict(before.score), r.player, r.shot))
        plan.states.append(ScoreState(rec.t_end, dict(r.score), r.next, r.shot, over))
        if r.respots:
            t1 = recs[k + 1].t_start if k + 1 < len(recs) else math.inf
            spots = [(x.ball, (float(x.pos[0]), float(x.pos[1]))) for x in r.respots]
            plan.respots.append(Respots(rec.t_end, t1, spots))
    plan.banners.sort(key=lambda b: b.t0)
    return plan


# ------------------------------------------------------------------ drawing


def _text(img, s, org, scale, colour, thick=1, pad=4, alpha=0.6):
    """Text on a darkened box (``alpha``: how much darker), in place; returns (w, h)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), base = cv2.getTextSize(s, font, scale, thick)
    x, y = org
    x0, y0, x1, y1 = x - pad, y - h - pad, x + w + pad, y + base + pad
    H, W = img.shape[:2]
    x0c, y0c, x1c, y1c = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1c > x0c and y1c > y0c:
        roi = img[y0c:y1c, x0c:x1c]
        cv2.convertScaleAbs(roi, roi, 1.0 - alpha)
    cv2.putText(img, s, (x, y), font, scale, colour, thick, cv2.LINE_AA)
    return w, h + base + 2 * pad


def _dashed_circle(img, c, r, colour, thick=2, n=16):
    for k in range(n):
        if k % 2:
            continue
        a0, a1 = 360.0 * k / n, 360.0 * (k + 1) / n
        cv2.ellipse(img, c, (r, r), 0, a0, a1, colour, thick, cv2.LINE_AA)


class Painter:
    """Draws the overlay on the frames of one run (projections cached per frame)."""

    def __init__(self, run: VideoRun, plan: Plan):
        self.run = run
        self.plan = plan
        self.R = run.profile.ball_radius_mm
        cam = run.camera
        # frames by index; their positions are projected when drawn, and only the last
        # trail's worth is kept (a long match stays small in memory)
        self.obs = {f.frame: f for f in run.frames}
        self._px: dict[int, dict[str, tuple[int, int]]] = {}
        self.last_seen: dict[str, tuple[int, int]] = {}
        # ball radius in px (for rings), measured at the table centre
        c = np.array([run.profile.length_mm / 2, run.profile.width_mm / 2])
        a = cam.project(np.array([c, c + [self.R, 0]]), self.R)
        self.r_px = max(4, int(round(float(np.hypot(*(a[1] - a[0]))))))
        self.scale = max(0.45, run.size[1] / 720 * 0.6)
        self.trail_frames = max(2, int(round(TRAIL_S * (run.fps or 30.0))))
        self.respot_px: dict[tuple[float, float], tuple[int, int]] = {}

    def px(self, index: int) -> dict[str, tuple[int, int]]:
        """The seen balls of frame ``index`` in pixels (cached for the trail's length)."""
        got = self._px.get(index)
        if got is None:
            f = self.obs.get(index)
            got = {}
            if f is not None and f.seen:
                balls = list(f.seen)
                proj = self.run.camera.project(np.asarray([f.seen[b] for b in balls]), self.R)
                pairs = zip(balls, proj, strict=True)
                got = {b: (int(round(u)), int(round(v))) for b, (u, v) in pairs}
            self._px[index] = got
            for k in [k for k in self._px if k < index - self.trail_frames - 1]:
                del self._px[k]
        return got

    def draw(self, img: np.ndarray, index: int, t: float | None = None) -> np.ndarray:
        """Draw the overlay of frame ``index`` on ``img`` (in place) and return it."""
        out = img  # drawn in place: the decoded frame is ours
        f = self.obs.get(index)
        if f is not None:
            t = f.t
        elif t is None:
            t = index / (self.run.fps or 30.0)
        here = self.px(index)
        for b, p in here.items():
            self.last_seen[b] = p
        # trails: the last TRAIL_S of each ball seen now
        for b in here:
            pts = []
            for k in range(index - self.trail_frames, index + 1):
                q = self.px(k).get(b)
                if q is not None:
                    pts.append(q)
            if len(pts) >= 2 and math.dist(pts[0], pts[-1]) > self.r_px * 0.6:
                col = BALL_COLOURS.get(b, DEFAULT_COLOUR)
                for k in range(1, len(pts)):
                    a = k / len(pts)
                    c = tuple(int(v * a) for v in col)
                    cv2.line(out, pts[k - 1], pts[k], c, 2, cv2.LINE_AA)
        # respot hints: a dashed ring per ball, labels stacked so close spots stay legible
        labels: list[tuple[int, int]] = []
        for b, pos in self.plan.respots_at(t):
            q = self.respot_px.get(pos)
            if q is None:
                u, v = self.run.camera.project(np.asarray(pos, float), self.R)
                q = self.respot_px[pos] = (int(round(u)), int(round(v)))
            _dashed_circle(out, q, self.r_px + 3, RESPOT_COLOUR, 2)
            words = f"respot {b}"
            (tw, _), _ = cv2.getTextSize(words, cv2.FONT_HERSHEY_SIMPLEX, self.scale * 0.8, 1)
            org = (q[0] - tw // 2, q[1] - self.r_px - 10)  # centred above its ring
            step = int(22 * self.scale / 0.6)
            while any(abs(org[1] - y) < step and abs(org[0] - x) < tw + 10 for x, y in labels):
                org = (org[0], org[1] - step)  # above the label already there
            labels.append(org)
            _text(out, words, org, self.scale * 0.8, RESPOT_COLOUR)
        # ball ids: seen (ball colour) and hidden (orange, at the last place seen)
        for b, p in here.items():
            col = BALL_COLOURS.get(b, DEFAULT_COLOUR)
            cv2.circle(out, p, self.r_px + 2, col, 1, cv2.LINE_AA)
            _text(out, b, (p[0] + self.r_px, p[1] - self.r_px), self.scale * 0.75, col,
                  pad=2, alpha=0.45)  # fmt: skip
        for b in f.hidden if f is not None else ():
            p = self.last_seen.get(b)
            if p is not None:
                _dashed_circle(out, p, self.r_px + 2, HIDDEN_COLOUR, 1, 12)
        # score bar along the top
        st = self.plan.state_at(t)
        if st is not None:
            bar = f"{self.run.game}   {_score_text(st.score)}"
            playing = st.shot and self.plan.in_stroke(t)
            if st.game_over:
                bar += "   game over"
            elif playing:
                bar += f"   stroke {st.shot}: {st.turn or '-'} playing"
            else:
                bar += f"   to play: {st.turn or '-'}"
                bar += f"   after stroke {st.shot}" if st.shot else ""
            _text(out, bar, (10, int(30 * self.scale / 0.6)), self.scale, (255, 255, 255),
                  thick=2 if self.scale > 0.7 else 1, alpha=0.7)  # fmt: skip
        tt = f"t {t:6.2f} s  frame {index}"
        H = out.shape[0]
        _text(out, tt, (10, H - 12), self.scale * 0.7, (220, 220, 220), alpha=0.5)
        # banners, newest at the bottom, under the score bar
        y = int(70 * self.scale / 0.6)
        for bn in self.plan.banners_at(t):
            _, h = _text(out, bn.text, (10, y), self.scale * 0.85, bn.colour, alpha=0.6)
            y += h + 4
        return out


def write_annotated(
    source: str,
    out_path: str | Path,
    run: VideoRun,
    scored: Scored,
    progress: Callable[[int, int], None] | None = None,
    crf: int = VIDEO_CRF,
    preset: str = VIDEO_PRESET,
) -> int:
    """Decode ``source`` again and write the annotated H.264 video; returns frames written."""
    from luza.samples.video import VideoWriter

    plan = overlay_plan(scored)
    painter = Painter(run, plan)
    w, h = run.size
    size = (w - w % 2, h - h % 2)  # yuv420p wants even sizes
    n = 0
    with (
        open_source(source) as src,
        VideoWriter(out_path, run.fps, size, crf=crf, preset=preset) as vw,
    ):
        for fr in src:
            if n >= run.n_frames:
                break
            img = painter.draw(fr.image, fr.index, fr.t)
            vw.write(np.ascontiguousarray(img[: size[1], : size[0]]))
            n += 1
            if progress is not None:
                progress(n, run.n_frames)
    return n
