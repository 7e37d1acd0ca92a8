"""The live table's runner: frames -> tracker -> events shot by shot -> rules -> store -> state.

:class:`IncrementalEvents` turns the tracker's frames into the event stream a
shot at a time.  ``vision.events.extract_events`` works on a list of frames, so
the frames are buffered; when the table has come to rest after something
happened (a ball moved, appeared, vanished or was covered) and has stayed
still for ``QUIET_S``, the buffered window is run through ``extract_events``.
The window starts at the rest before the activity, so the extractor sees every
ball at rest first; the events after the last cut are taken (the window's own
``table_state`` only the very first time) and the buffer is dropped up to the
middle of the current rest (``resume_t``).  A window whose last stroke has no
``shot_end`` yet is not cut.

:class:`LiveRunner` (a thread) drives a source through the pipeline and
:class:`IncrementalEvents`; at every cut it rescores all items
(``rules.record.score_items``), stores the new items, rulings and ``resume_t``
in one transaction (``app.records.MatchStore.append``), THEN publishes the new
state (``on_state(dict)``).  An event the rules refuse is left out and said so
on the page (the camera made a mistake; the match goes on).

Operator inputs (:meth:`LiveRunner.submit_input`) get the current source time;
while the table is at rest they are stored at once; while a stroke is being
watched they wait for its cut, so the stored stream stays in time order.

A camera or stream URL that stops giving frames is reopened with backoff (the
page says "camera lost - reconnecting"); the tracker starts afresh and the
ball identities are carried over from the rules' positions.  A file that ends
ends the match.  On start an unfinished match of the same source is taken up:
its items are rescored, and a file skips every frame up to its ``resume_t``.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from luza.calibration.profiles import TableProfile
from luza.errors import LuzaError
from luza.events import BALLS_BY_GAME, OPERATOR_FIELDS, Event, make, parse_jsonl
from luza.rules.engine import Item
from luza.rules.record import Scored, score_items
from luza.rules.stream import StreamChecker
from luza.vision.events import FrameObs, extract_events, frames_from_tracker
from luza.vision.track import ball_class

QUIET_S = 1.0  # the table is still this long after the last activity: cut a window
CUT_BACK_S = 0.5  # the cut (resume_t) lies this far back, in the middle of the rest
KEEP_REST_S = 0.4  # the next window starts with this much rest before the cut
MOVE_MM = 4.0  # a seen ball further than this from where it lay: activity
HIDDEN_MAX_S = 2.0  # a ball covered longer than this no longer holds the cut back
MAX_WINDOW_S = 120.0  # a window longer than this is cut even inside a stroke
RESYNC_MOVED_MM = 15.0  # after a restart, a ball this far from where the rules had it moved
RESEED_GATE_RADII = 3.0  # a re-found ball within this of a known one takes its id
WHITE_PRIOR_NATS = 30.0  # a re-found white's identity, as evidence (the swap needs 12)
BALLS_EVERY_S = 0.1  # ball positions are published at most this often
RECONNECT_FIRST_S = 0.5  # camera retries: first wait ...
RECONNECT_MAX_S = 8.0  # ... doubling up to this


class LiveError(LuzaError):
    """The live table cannot start or an operator input is refused."""


class InputError(LiveError):
    """An operator input that is malformed or that the rules refuse."""


# ---------------------------------------------------------------- incremental events
def _running(events: list[Event]) -> bool:
    """Whether the last stroke in ``events`` has no shot_end yet."""
    running = False
    for e in events:
        if e.type == "shot_start":
            running = True
        elif e.type == "shot_end":
            running = False
    return running


class IncrementalEvents:
    """Frames in, the event stream out a window at a time (see the module docstring).

    ``feed(obs)`` returns the new events when it cuts a window, else None.
    ``first``: whether the stream's ``table_state`` is still to be given.
    """

    def __init__(
        self,
        profile: TableProfile,
        game: str,
        resume_t: float | None = None,
        first: bool = True,
        quiet_s: float = QUIET_S,
    ) -> None:
        self.profile = profile
        self.game = game
        self.quiet_s = quiet_s
        self.first = first
        self.resume_t = resume_t  # events at or before this were taken already
        self.buf: list[FrameObs] = []
        self.dirty = True  # something happened since the last cut (the start counts)
        self.last_activity_t: float | None = None
        self.hidden_since: float | None = None
        self._anchor: dict[str, tuple[float, float]] = {}
        self._sig: frozenset | None = None  # the balls on the table (seen or hidden)
        self.windows = 0
        self.window_state: Event | None = None  # the last window's own table_state

    def _activity(self, obs: FrameObs) -> bool:
        """A ball came onto / left the table, or a seen ball left the spot it lay on.  A
        ball flickering between seen and hidden in its place is no activity."""
        on_table = frozenset(obs.seen) | frozenset(obs.hidden)
        active = on_table != self._sig
        self._sig = on_table
        for b, xy in obs.seen.items():
            a = self._anchor.get(b)
            if a is None or math.dist(a, xy) > MOVE_MM:
                active = True
                self._anchor[b] = xy
        return active

    @property
    def at_rest(self) -> bool:
        """Nothing seen since the last cut is still to be taken (an input now is later
        than any event still to come)."""
        return not self.dirty or not self.buf

    def feed(self, obs: FrameObs) -> list[Event] | None:
        self.buf.append(obs)
        if self.last_activity_t is None:
            self.last_activity_t = obs.t
        if self._activity(obs):
            self.last_activity_t = obs.t
            self.dirty = True
        if obs.hidden:
            if self.hidden_since is None:
                self.hidden_since = obs.t
            if obs.t - self.hidden_since < HIDDEN_MAX_S:
                return None
        else:
            self.hidden_since = None
        long = obs.t - self.buf[0].t > MAX_WINDOW_S
        if self.dirty and obs.t - self.last_activity_t >= self.quiet_s:
            return self._cut(obs.t, force=long)
        if long and not self.dirty:  # a long quiet stretch: keep only its end
            self._trim(obs.t - CUT_BACK_S)
        return None

    def restart(self) -> None:
        """A new tracker (a restart, a reconnect): drop what is buffered, start a window."""
        self.buf = []
        self.dirty = True
        self.last_activity_t = self.hidden_since = None
        self._anchor, self._sig = {}, None

    def flush(self) -> list[Event]:
        """The source ended: events of what is buffered (a stroke still running is dropped)."""
        if not self.buf or not self.dirty:
            return []
        return self._cut(self.buf[-1].t, force=True, end=True) or []

    def _take(self, events: list[Event]) -> list[Event]:
        out = []
        for e in events:
            if e.type == "table_state":
                if self.first:
                    out.append(e)
                continue
            if self.resume_t is None or e.t > self.resume_t:
                out.append(e)
        return out

    def _cut(self, now: float, force: bool = False, end: bool = False) -> list[Event] | None:
        # no rack replays: seconds of CPU at a break the tracker must not wait for
        events = extract_events(self.buf, self.profile, self.game, replay_racks=False)
        self.window_state = events[0] if events and events[0].type == "table_state" else None
        new = self._take(events)
        if _running(new):
            if not force:
                return None
            # the stroke never ended (the file stopped, or a window too long): drop it
            k = max(i for i, e in enumerate(new) if e.type == "shot_start")
            while k > 0 and new[k - 1].type == "shot_start":
                k -= 1
            new = new[:k]
        cut = now if end else now - CUT_BACK_S
        last = max((e.t for e in new if e.type != "table_state"), default=None)
        self.resume_t = max(x for x in (cut, last, self.resume_t) if x is not None)
        self.first = self.first and not any(e.type == "table_state" for e in new)
        self.dirty = False
        self.windows += 1
        self._trim(cut - KEEP_REST_S)
        return new

    def _trim(self, t: float) -> None:
        k = 0
        while k < len(self.buf) and self.buf[k].t < t:
            k += 1
        self.buf = self.buf[k:]


# ---------------------------------------------------------------- identities after a restart
def _group(game: str, ball: str) -> str:
    """Balls a fresh tracker may confuse: one class, and in Five Ball the two whites (their
    dots are small; the rules' positions say which is which)."""
    cls = ball_class(game, ball)
    return "white" if cls in ("W1", "W2") else cls


def reseed_ids(tracker, known: dict[str, tuple[float, float]], game: str) -> dict[str, str]:
    """Rename a fresh tracker's ids to those of the balls the rules know (by position).

    Among look-alike balls (15 ivories, two reds, the two whites) the first
    frame's numbering may differ from the match's; a ball found within
    ``RESEED_GATE_RADII`` of a known one takes its id.  A renamed white also gets
    the match's identity as prior evidence (as if the tracker had watched it all
    along), so the dot classifier does not swap it back on a frame or two.
    Returns the renaming {old id: new id}."""
    R = tracker.R
    rename: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for b in tracker.tracks:
        groups.setdefault(_group(game, b), []).append(b)
    for _g, ids in groups.items():
        on = [b for b in ids if tracker.tracks[b].on_table]
        kn = [b for b in ids if b in known]
        pairs: dict[str, str] = {}
        if on and kn:
            C = np.array([[math.dist(tracker.tracks[a].xy, known[k]) for k in kn] for a in on])
            r, c = linear_sum_assignment(C)
            for i, j in zip(r, c, strict=True):
                if C[i, j] <= RESEED_GATE_RADII * R:
                    pairs[on[i]] = kn[j]
        # the rest: unmatched balls on the table take the known ids left, then free ids
        left = [k for k in kn if k not in pairs.values()]
        free = [b for b in ids if b not in known]
        pool = left + free
        for a in on:
            if a not in pairs:
                pairs[a] = pool.pop(0)
        rest = [b for b in ids if b not in pairs.values()]
        for a in ids:
            if a not in pairs:
                pairs[a] = rest.pop(0)
        rename.update({a: b for a, b in pairs.items() if a != b})
    tracks = {}
    for old, tr in tracker.tracks.items():
        new = rename.get(old, old)
        tr.ball = new
        tr.cls = ball_class(game, new)
        tracks[new] = tr
        if _group(game, new) == "white" and tr.evidence is not None:
            cls = list(tr.evidence_classes)
            if "W1" in cls and "W2" in cls:
                other = "W2" if new == "W1" else "W1"
                ev = np.array(tr.evidence, float)
                ev[cls.index(new)] = (
                    max(ev[cls.index(new)], ev[cls.index(other)]) + WHITE_PRIOR_NATS
                )
                tr.evidence = ev
    tracker.tracks = tracks
    tracker._last_match = {rename.get(b, b): j for b, j in tracker._last_match.items()}
    return rename


def table_positions(items: list[Event], game: str, balls) -> dict[str, tuple[float, float]]:
    """Where the rules have the balls after ``items`` (the stream checker's positions)."""
    chk = StreamChecker(game, balls)
    for i, e in enumerate(items):
        for _ in chk.feed(Item(e, f"live:{i}")):
            pass
    return dict(chk.positions)


# ---------------------------------------------------------------- the state the pages show
def geometry(profile: TableProfile) -> dict[str, Any]:
    """What the scoreboard needs to draw the table (mm)."""
    return {
        "name": profile.name,
        "length_mm": profile.length_mm,
        "width_mm": profile.width_mm,
        "ball_radius_mm": profile.ball_radius_mm,
        "cushion_width_mm": profile.cushion_width_mm,
        "rail_width_mm": profile.rail_width_mm,
        "pockets": {
            n: {
                "kind": p.kind,
                "jaw_a": list(p.jaw_a),
                "jaw_b": list(p.jaw_b),
                "centre": list(p.centre),
                "radius_mm": p.spec.drop_radius_mm,
            }
            for n, p in profile.pockets().items()
        },
        "spots": {n: list(v) for n, v in profile.spots.items()},
        "marked_spots": list(profile.marked_spots),
        "lines": {n: [list(a), list(b)] for n, (a, b) in profile.lines.items()},
        "marked_lines": list(profile.marked_lines),
    }


@dataclass
class LiveStatus:
    camera: str = "starting"  # starting | ok | lost | ended
    message: str = "starting…"
    ignored: list[str] = field(default_factory=list)  # events the rules refused, newest last


_WHERE = re.compile(r"live:(\d+)")


class LiveRunner(threading.Thread):
    """Runs one live match (see the module docstring).

    ``open_frames()`` returns an iterable of ``vision.sources.Frame`` (a fresh one
    on every call: the runner calls it again after a camera dropout) or raises
    ``SourceError``; ``live``: whether the source is a camera / URL (reconnect)
    rather than a file (its end ends the match).  ``make_pipeline()`` returns a
    fresh ``VisionPipeline``.  ``on_state(state)`` is called with a new state
    dict on every change (from this thread).
    """

    def __init__(
        self,
        *,
        source: str,
        open_frames: Callable[[], Any],
        live: bool,
        make_pipeline: Callable[[], Any],
        profile: TableProfile,
        game: str,
        store,
        options: dict[str, Any] | None = None,
        players: list[str] | None = None,
        speed: float = 1.0,
        on_state: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        super().__init__(name="luza-live-runner", daemon=True)
        self.source = source
        self.open_frames = open_frames
        self.live = live
        self.make_pipeline = make_pipeline
        self.profile = profile
        self.game = game
        self.table = profile.name
        self.store = store
        self.options = dict(options or {})
        self.players = list(players or [])
        self.speed = float(speed)
        self.on_state = on_state
        self.status = LiveStatus()
        self._lock = threading.RLock()
        self._halt = threading.Event()
        self.items: list[Event] = []
        self.rulings: list[dict[str, Any]] = []
        self.final: dict[str, Any] = {}
        self.finished = False
        self.error: BaseException | None = None
        self.balls: dict[str, list[float]] = {}
        self.t_now = 0.0
        self._held: list[Event] = []  # operator inputs waiting for the running stroke's cut
        self._balls_pub = 0.0
        self._geom = geometry(profile)
        self._version = 0
        # take up an unfinished match of this source, else start one
        mid = store.open_match(source)
        if mid is not None:
            info = store.get(mid)
            if info.game != game or info.table != self.table:
                mid = None  # that one was another game or table: this is a new match
        resume_t = None
        if mid is not None:
            events, _rulings, resume_t = store.match_state(mid)
            self.items = list(events)
            self.resumed = True
        else:
            names = {n: n for n in self.players}
            mid = store.start_match(game, self.table, self.options, names, source)
            self.resumed = False
        self.match_id = mid
        self.inc = IncrementalEvents(profile, game, resume_t, first=not self.items)
        if self.items:
            self._rescore()

    # -- public ------------------------------------------------------------
    def stop(self) -> None:
        self._halt.set()

    def state(self) -> dict[str, Any]:
        with self._lock:
            return self._state()

    def submit_input(self, payload: Any) -> dict[str, Any]:
        """Validate one operator input (a JSON object), time it and store it; returns it."""
        if not isinstance(payload, dict):
            raise InputError('an operator input is a JSON object, e.g. {"type": "foul", ...}')
        typ = payload.get("type")
        if typ not in OPERATOR_FIELDS:
            raise InputError(
                f"'{typ}' is not an operator input (known: {', '.join(OPERATOR_FIELDS)})"
            )
        with self._lock:
            if self.finished:
                raise InputError("the match is over; no more inputs")
            d = dict(payload)
            t = self.t_now
            if self.inc.resume_t is not None:
                t = max(t, self.inc.resume_t + 1e-3)
            if self.items:
                t = max(t, self.items[-1].t)
            d["t"] = round(t, 6)
            d.setdefault("confidence", 1.0)
            try:
                (ev,) = list(parse_jsonl([json.dumps(d)], "input"))
            except (LuzaError, ValueError, TypeError) as e:
                raise InputError(str(e).removeprefix("input:1: ")) from None
            if not self.items:
                # the camera has not given the table yet: the input waits for it (and is
                # judged with it)
                self._held.append(ev)
                self._publish()
                return ev.to_dict()
            try:
                scored = self._score(self.items + self._held + [ev])
            except LuzaError as e:
                raise InputError(_WHERE.sub("input", str(e)).removeprefix("input: ")) from None
            if self.inc.at_rest and not self._held:
                self._append([ev], scored)
            else:
                self._held.append(ev)
            self._publish()
            return ev.to_dict()

    # -- the thread --------------------------------------------------------
    def run(self) -> None:
        try:
            self._run()
        except BaseException as e:  # shown on the page; the server stays up
            self.error = e
            with self._lock:
                self.status.camera = "error"
                what = str(e) if isinstance(e, LuzaError) else f"{type(e).__name__}: {e}"
                self.status.message = f"stopped: {what}"
                self._publish()

    def _run(self) -> None:
        self._publish()
        wait = RECONNECT_FIRST_S
        restarts = 0
        while not self._halt.is_set():
            try:
                frames = self.open_frames()
            except LuzaError as e:
                if not self.live:
                    raise
                self._lost(f"camera lost — reconnecting… ({e})")
                self._halt.wait(wait)
                wait = min(RECONNECT_MAX_S, wait * 2)
                continue
            got = self._consume(frames, fresh=restarts > 0 or self.resumed)
            restarts += 1
            if got:
                wait = RECONNECT_FIRST_S
            if not self.live:
                break
            self._lost("camera lost — reconnecting…")
            self._halt.wait(wait)
            wait = min(RECONNECT_MAX_S, wait * 2)
        if not self.live and not self._halt.is_set():
            self._end()

    def _lost(self, msg: str) -> None:
        with self._lock:
            self.status.camera = "lost"
            self.status.message = msg
            self._publish()

    def _consume(self, frames, fresh: bool) -> int:
        """Run one opening of the source; returns how many frames it gave."""
        pipe = self.make_pipeline()
        n = 0
        skip_t = self.inc.resume_t if not self.live else None
        t_offset = 0.0
        wall0 = src0 = None
        it = iter(frames)
        # a fresh tracker after a restart / reconnect: the window starts anew
        self.inc.restart()
        resync = fresh and bool(self.items)
        try:
            for fr in it:
                if self._halt.is_set():
                    break
                if skip_t is not None and fr.t <= skip_t:
                    continue
                if self.live:
                    if n == 0:  # source times restart at every opening: continue the match's
                        t_offset = max(self.t_now, self.inc.resume_t or 0.0) + 1e-3 - fr.t
                    fr = type(fr)(fr.index, fr.t + t_offset, fr.image)
                elif self.speed > 0:
                    if wall0 is None:
                        wall0, src0 = time.monotonic(), fr.t
                    delay = wall0 + (fr.t - src0) / self.speed - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                res = pipe.process(fr)
                if n == 0 and resync:
                    known = table_positions(self.items, self.game, self._balls_ids())
                    rename = reseed_ids(pipe.tracker, known, self.game)
                    if rename:
                        tr = res.tracked
                        tr.positions = {rename.get(b, b): v for b, v in tr.positions.items()}
                        tr.visible = {rename.get(b, b) for b in tr.visible}
                if n == 0:
                    with self._lock:
                        self.status.camera = "ok"
                        self.status.message = (
                            "camera ok" if self.live else f"replaying {Path(self.source).name}"
                        )
                n += 1
                (obs,) = frames_from_tracker([res.tracked])
                self.t_now = obs.t
                new = self.inc.feed(obs)
                if new is not None:
                    if resync:
                        new = self._resync(self.inc.window_state, new)
                        resync = False
                    self._take(new)
                now = time.monotonic()
                if now - self._balls_pub >= BALLS_EVERY_S:
                    self._balls_pub = now
                    with self._lock:
                        self.balls = {
                            b: [round(x, 1), round(y, 1)]
                            for b, (x, y) in res.tracked.positions.items()
                        }
                        self._publish()
        except LuzaError as e:
            if not self.live:
                raise
            with self._lock:
                self.status.message = f"camera lost — reconnecting… ({e})"
        finally:
            close = getattr(frames, "close", None)
            if close is not None:
                close()
        if not self.live and not self._halt.is_set():
            tail = self.inc.flush()
            if resync and self.inc.window_state is not None:
                tail = self._resync(self.inc.window_state, tail)
            if tail or self._held:
                self._take(tail)
        return n

    def _balls_ids(self) -> tuple[str, ...]:
        return BALLS_BY_GAME[self.game]

    def _resync(self, ts: Event | None, new: list[Event]) -> list[Event]:
        """After a restart or a reconnect: what changed on the table while nobody watched
        (``ts``: the first window's table_state), as uncertain hand events."""
        if ts is None or not self.items:
            return new
        known = table_positions(self.items, self.game, self._balls_ids())
        seen = {b: tuple(v) for b, v in ts["positions"].items()}
        out: list[Event] = []
        for b, xy in seen.items():
            if b not in known:
                out.append(make("ball_placed", ts.t, ts.frame, 0.5, ball=b, pos=list(xy)))
            elif math.dist(known[b], xy) > RESYNC_MOVED_MM:
                out.append(
                    make("ball_moved", ts.t, ts.frame, 0.5, ball=b, pos=list(xy), uncertain=True)
                )
        for b in known:
            if b not in seen:
                out.append(make("ball_removed", ts.t, ts.frame, 0.5, ball=b, uncertain=True))
        return out + new

    def _take(self, new: list[Event]) -> None:
        """A cut: new vision events (+ inputs held back) scored, stored, published."""
        with self._lock:
            if self.finished:  # the game has a winner: the table is only shown
                self._held = []
                return
            if new and new[0].type == "table_state" and not self.items:
                new = self._first_table_state(new)
            floor = self.items[-1].t if self.items else None
            fixed = []
            for e in new:
                if floor is not None and e.t < floor:
                    e = Event(e.type, floor, e.frame, e.confidence, e.data)
                fixed.append(e)
            merged = sorted(fixed + self._held, key=lambda e: e.t)  # stable: vision first
            self._held = []
            self._append(*self._accept(merged))
            self._publish()

    def _first_table_state(self, new: list[Event]) -> list[Event]:
        """The match's first table_state: a game taken up mid-way says so (as ``luza
        analyze`` does), and the players named on the command line follow it."""
        from luza.app.match import taken_up, with_fields

        fields = taken_up(new[:1], self.game, self.profile)
        if fields is not None:
            new = with_fields(new, fields)
        score = new[0].get("score")
        if isinstance(score, dict) and list(score) == ["A", "B"] and len(self.players) == 2:
            # the stage said A, B; the players have names
            new = with_fields(new, {"score": dict(zip(self.players, score.values(), strict=True))})
        ts = new[0]
        if self.players:
            names = make("players", ts.t, ts.frame, 1.0, names=list(self.players))
            new = [ts, names, *new[1:]]
        return new

    def _accept(self, new: list[Event]) -> tuple[list[Event], Scored | None]:
        """The new events the rules accept (each refused one is left out and noted), and
        the match scored with them (None when none could be scored)."""
        cand = list(new)
        for _ in range(len(new) + 1):
            try:
                return cand, self._score(self.items + cand)
            except LuzaError as e:
                m = _WHERE.search(str(e))
                k = int(m.group(1)) - len(self.items) if m else -1
                if not 0 <= k < len(cand):
                    self._note_ignored(f"{len(cand)} events at t≤{self.t_now:.1f} s: {e}")
                    return [], None
                bad = cand.pop(k)
                self._note_ignored(f"{bad.type} at t={bad.t:.2f} s: {_WHERE.sub('', str(e))}")
        return [], None

    def _note_ignored(self, msg: str) -> None:
        self.status.ignored = (self.status.ignored + [msg])[-5:]

    def _score(self, events: list[Event]) -> Scored:
        items = [Item(e, f"live:{i}") for i, e in enumerate(events)]
        return score_items(items, self.game, self.table, self.options)

    def _rescore(self, scored: Scored | None = None) -> None:
        """Rulings and final of ``self.items`` (``scored``: already scored, by the caller)."""
        if not self.items:
            return
        if scored is None:
            scored = self._score(self.items)
        self.rulings = [r.to_dict() for r in scored.rulings]
        self.final = dict(scored.final)
        self._texts = [r.to_text() for r in scored.rulings]

    def _append(self, events: list[Event], scored: Scored | None = None) -> None:
        """Rescore with ``events`` and store them, the rulings and resume_t in one go
        (``scored``: the items with ``events`` scored already, not scored again)."""
        if events:
            self.items = self.items + list(events)
        self._rescore(scored)
        self.store.append(self.match_id, events, self.rulings, self.inc.resume_t)
        if self.final.get("winner") is not None and not self.finished:
            # the game is won: the match is finished (a restart starts the next one)
            self.store.finish(self.match_id, self.final)
            self.finished = True
            self.status.message = f"{self.final['winner']} wins"

    def _end(self) -> None:
        with self._lock:
            self._rescore()
            if self.items and not self.finished:
                self.store.finish(self.match_id, self.final)
            self.finished = True
            self.status.camera = "ended"
            self.status.message = "the video has ended: final score"
            self._publish()

    # -- state -----------------------------------------------------------------
    def _publish(self) -> None:
        self._version += 1
        if self.on_state is not None:
            self.on_state(self._state())

    def _state(self) -> dict[str, Any]:
        last = self.rulings[-1] if self.rulings else None
        score = dict(self.final.get("score") or {})
        if not score:
            score = {n: 0 for n in (self.players or ["A", "B"])}
        players = list(score)
        turn = last.get("next") if last else (players[0] if players else None)
        n_shots = sum(1 for r in self.rulings if int(r.get("shot", 0)) > 0)
        respots = []
        if last:
            R = self.profile.ball_radius_mm
            for rs in last.get("respots") or []:
                b, pos = rs["ball"], rs["pos"]
                at = self.balls.get(b)
                if at is None or math.dist(at, pos) > R:
                    respots.append({"ball": b, "pos": pos})
        texts = getattr(self, "_texts", [])
        return {
            "version": self._version,
            "match_id": self.match_id,
            "game": self.game,
            "table": self._geom,
            "source": self.source,
            "players": players,
            "score": score,
            "turn": turn,
            "winner": self.final.get("winner"),
            "final": self.final if self.finished else None,
            "finished": self.finished,
            "shots": n_shots,
            "last_ruling": (
                {
                    "shot": last["shot"],
                    "player": last["player"],
                    "points": last["points"],
                    "foul": last["foul"],
                    "fouls": last["fouls"],
                    "rules": last["rules"],
                    "notes": last["notes"],
                    "text": texts[-1] if texts else "",
                }
                if last
                else None
            ),
            "balls": dict(self.balls),
            "respots": respots,
            "camera": {"status": self.status.camera, "message": self.status.message},
            "ignored": list(self.status.ignored),
            "t": round(self.t_now, 3),
            "resumed": self.resumed,
        }
