"""Match records in SQLite: finished analyses, live matches stored shot by shot, JSON-lines export.

One database file (default ``~/.luza/matches.sqlite``, or ``$LUZA_DB``) holds
every match: its header (game, table, options), its players, the ordered
events and operator inputs it was scored from (each stored as its JSON line),
the rulings, one row per shot, and the final line.  ``record_lines`` rebuilds
exactly the portable match record of ``luza.rules.record`` (header, items,
rulings, final) so ``luza replay`` checks an export, and ``import_jsonl``
reads such a record back (replaying it first).

Live matches are stored incrementally and crash-safe: ``start_match`` opens
one, every ``append`` adds the new items and rulings and the source time up to
which the match is stored (``resume_t``) in ONE transaction, so after a crash
``open_match`` + ``match_state`` give back exactly what was stored, and a
repeated ``append`` (the same items sent again after a restart) stores nothing
twice: items with ``t <= resume_t`` are skipped, and rulings are kept one per
shot number (a ruling sent again replaces the stored one only if it changed,
as the last stroke's does when what followed it arrives).

The database runs in WAL mode (readers do not block the writer); its schema
version is ``PRAGMA user_version``.  Every failure a user can act on (a
locked or damaged file, a newer schema, an unknown match id) is a
:class:`RecordsError` with a message naming the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from luza import __version__
from luza.errors import LuzaError
from luza.events import Event

SCHEMA_VERSION = 1
DEFAULT_TIMEOUT_S = 5.0  # how long to wait for another program's lock before giving up

STATUS_OPEN = "open"  # a live match still being played (or interrupted)
STATUS_FINISHED = "finished"  # finished / a whole analysis stored at once

_SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    table_name TEXT NOT NULL,
    options TEXT NOT NULL,            -- JSON object
    header TEXT NOT NULL,             -- the record's {"type": "match", ...} line
    source TEXT NOT NULL,
    started TEXT NOT NULL,            -- ISO 8601, UTC
    finished TEXT,                    -- ISO 8601, UTC, NULL while open
    status TEXT NOT NULL,             -- 'open' | 'finished'
    resume_t REAL,                    -- source time (s) up to which the match is stored
    final TEXT                        -- the record's final line (JSON) or NULL
);
CREATE TABLE IF NOT EXISTS match_players (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,            -- playing order from 0
    label TEXT NOT NULL,              -- the name the rulings use (A, B, or a name)
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS items (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,             -- order in the stream, from 0
    t REAL NOT NULL,
    type TEXT NOT NULL,
    line TEXT NOT NULL,               -- the event's JSON line
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS rulings (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,             -- order of the rulings, from 0
    shot INTEGER NOT NULL,
    at INTEGER NOT NULL,              -- the ruling is written before item number `at`
    ruling TEXT NOT NULL,             -- JSON of Ruling.to_dict()
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS shots (
    match_id INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    shot INTEGER NOT NULL,            -- 0 = the lag
    t REAL,                           -- source time of its shot_start (s)
    player TEXT,
    cue_ball TEXT,
    points INTEGER NOT NULL,
    foul INTEGER NOT NULL,
    PRIMARY KEY (match_id, shot)
);
CREATE INDEX IF NOT EXISTS matches_status ON matches(status, id);
"""
_TABLES = ("players", "matches", "match_players", "items", "rulings", "shots")


class RecordsError(LuzaError):
    """The match database cannot be used (locked, damaged, newer) or has no such match."""


@dataclass
class MatchInfo:
    """One match as ``luza matches`` lists it."""

    id: int
    game: str
    table: str
    players: dict[str, str]  # label the rulings use -> player name, in playing order
    source: str
    started: str  # ISO 8601 UTC
    status: str  # "open" | "finished"
    score: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    n_shots: int = 0  # strokes ruled (the lag not counted)
    options: dict[str, Any] = field(default_factory=dict)
    finished: str | None = None
    resume_t: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "table": self.table,
            "players": dict(self.players),
            "source": self.source,
            "started": self.started,
            "finished": self.finished,
            "status": self.status,
            "score": dict(self.score),
            "winner": self.winner,
            "n_shots": self.n_shots,
            "options": dict(self.options),
            "resume_t": self.resume_t,
        }


def default_db_path() -> Path:
    """``$LUZA_DB`` if set, else ``~/.luza/matches.sqlite`` (its folder is created)."""
    env = os.environ.get("LUZA_DB")
    if env:
        return Path(env).expanduser()
    p = Path.home() / ".luza" / "matches.sqlite"
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RecordsError(
            f"cannot create {p.parent} for the match database ({e.strerror}): "
            "set LUZA_DB or pass --db PATH"
        ) from None
    return p


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _header(game: str, table: str, options: dict[str, Any] | None) -> dict[str, Any]:
    # The same header luza.rules.record.record_lines writes.
    return {
        "type": "match",
        "game": game,
        "table": table,
        "options": dict(options or {}),
        "luza": __version__,
    }


def _stroke_times(events: Iterable[Event]) -> list[float]:
    """Source time of each stroke's first shot_start, in order (a lag pair is one stroke).

    The k-th ruling of a match is about the k-th stroke (the engine rules every
    stroke record in stream order)."""
    out: list[float] = []
    running = False
    lag_open = False
    for e in events:
        if e.type == "shot_start":
            lag = bool(e.get("lag", False))
            if running and lag and lag_open:
                lag_open = False  # the second ball of a lag
                continue
            out.append(e.t)
            running, lag_open = True, lag
        elif e.type == "shot_end":
            running = lag_open = False
    return out


def _players_from(events: Iterable[Event], final: dict | None, rulings: list[dict]):
    """Players in playing order when the caller named none: a ``players`` input, else the
    score's keys."""
    for e in events:
        if e.type == "players" and isinstance(e.get("names"), list):
            return {str(n): str(n) for n in e["names"]}
    score = (final or {}).get("score") or (rulings[-1].get("score") if rulings else None)
    if isinstance(score, dict):
        return {str(k): str(k) for k in score}
    return {}


class MatchStore:
    """A match database (SQLite).  Use as a context manager or call :meth:`close`.

    Safe to share between threads of one process (calls are serialised); other
    processes may read while one writes (WAL).  A writer waits up to
    ``timeout_s`` for another program's lock, then raises :class:`RecordsError`.
    """

    def __init__(self, path: str | Path, timeout_s: float = DEFAULT_TIMEOUT_S):
        self.path = Path(path).expanduser()
        self.timeout_s = float(timeout_s)
        self._lock = threading.RLock()
        if self.path.is_dir():
            raise RecordsError(f"the match database {self.path} is a folder, not a file")
        for up in self.path.parents:
            if up.exists():
                if not up.is_dir():
                    raise RecordsError(
                        f"cannot create the match database {self.path}: {up} is a file, "
                        "not a folder"
                    )
                break
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise RecordsError(
                f"cannot create the folder {e.filename or self.path.parent} for the match "
                f"database {self.path}: {e.strerror}"
            ) from None
        try:
            self._db = sqlite3.connect(
                str(self.path),
                timeout=self.timeout_s,
                isolation_level=None,  # transactions are explicit (BEGIN IMMEDIATE)
                check_same_thread=False,
            )
        except sqlite3.Error as e:
            raise RecordsError(f"cannot open the match database {self.path}: {e}") from None
        try:
            with self._errors():
                self._open()
        except BaseException:
            self._db.close()
            raise

    # -- opening ---------------------------------------------------------
    def _open(self) -> None:
        db = self._db
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RecordsError(
                f"the match database {self.path} was written by a newer luza (schema "
                f"{version}; this luza reads up to {SCHEMA_VERSION}): upgrade luza"
            )
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if version == SCHEMA_VERSION:
            if not set(_TABLES) <= names:
                raise self._not_ours()
        elif names:  # user_version 0 but tables: another program's database
            raise self._not_ours()
        if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=FULL")  # a stored shot survives a power cut too
        if version < SCHEMA_VERSION:
            with self._tx():
                if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    for stmt in _SCHEMA.split(";"):
                        if stmt.strip():
                            db.execute(stmt)
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _not_ours(self) -> RecordsError:
        return RecordsError(f"{self.path} is not a luza match database (damaged or another file)")

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn sqlite errors into RecordsError messages a user can act on."""
        try:
            yield
        except RecordsError:
            raise
        except sqlite3.OperationalError as e:
            msg = str(e)
            if "locked" in msg or "busy" in msg:
                raise RecordsError(
                    f"the match database {self.path} is locked by another program "
                    f"(waited {self.timeout_s:g} s); close it and try again"
                ) from None
            if "readonly" in msg or "read-only" in msg:
                raise RecordsError(f"the match database {self.path} is read-only") from None
            if "disk" in msg and ("full" in msg or "I/O" in msg):
                raise RecordsError(f"cannot write the match database {self.path}: {msg}") from None
            if "no such table" in msg or "no such column" in msg:
                raise self._not_ours() from None
            raise RecordsError(f"the match database {self.path}: {msg}") from None
        except sqlite3.DatabaseError:  # "file is not a database", "malformed"
            raise self._not_ours() from None
        except sqlite3.Error as e:
            raise RecordsError(f"the match database {self.path}: {e}") from None

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once, so a lock shows before any work)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite may have rolled back already
                    self._db.execute("ROLLBACK")
                raise

    def check_writable(self) -> None:
        """Take the write lock and let it go at once: a database another program holds
        locked (or a read-only one) is said now, before minutes of work, not when the
        result is stored."""
        with self._errors(), self._tx():
            pass

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------
    def _player_id(self, db: sqlite3.Connection, name: str) -> int:
        db.execute("INSERT OR IGNORE INTO players(name) VALUES (?)", (name,))
        return int(db.execute("SELECT id FROM players WHERE name=?", (name,)).fetchone()[0])

    def _new_match(
        self,
        db: sqlite3.Connection,
        header: dict[str, Any],
        players: dict[str, str],
        source: str,
        status: str,
    ) -> int:
        cur = db.execute(
            "INSERT INTO matches(game, table_name, options, header, source, started, status)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                str(header["game"]),
                str(header["table"]),
                json.dumps(header.get("options") or {}),
                json.dumps(header),
                source,
                _now(),
                status,
            ),
        )
        mid = int(cur.lastrowid)
        self._set_players(db, mid, players)
        return mid

    def _set_players(self, db: sqlite3.Connection, mid: int, players: dict[str, str]) -> None:
        db.execute("DELETE FROM match_players WHERE match_id=?", (mid,))
        for seat, (label, name) in enumerate(players.items()):
            pid = self._player_id(db, str(name))
            db.execute(
                "INSERT INTO match_players(match_id, seat, label, player_id) VALUES (?,?,?,?)",
                (mid, seat, str(label), pid),
            )

    def _add_items(self, db: sqlite3.Connection, mid: int, start: int, events: list[Event]):
        db.executemany(
            "INSERT INTO items(match_id, seq, t, type, line) VALUES (?,?,?,?,?)",
            [(mid, start + i, e.t, e.type, e.to_json()) for i, e in enumerate(events)],
        )

    def _put_ruling(
        self, db: sqlite3.Connection, mid: int, seq: int, r: dict, at: int, t: float | None
    ) -> None:
        shot = int(r.get("shot", 0))
        db.execute(
            "INSERT OR REPLACE INTO rulings(match_id, seq, shot, at, ruling) VALUES (?,?,?,?,?)",
            (mid, seq, shot, int(at), json.dumps(r)),
        )
        db.execute(
            "INSERT OR REPLACE INTO shots(match_id, shot, t, player, cue_ball, points, foul)"
            " VALUES (?,?,?,?,?,?,?)",
            (
                mid,
                shot,
                t,
                r.get("player"),
                r.get("cue_ball"),
                int(r.get("points") or 0),
                int(bool(r.get("foul"))),
            ),
        )

    def _add_rulings(
        self,
        db: sqlite3.Connection,
        mid: int,
        start: int,
        rulings: list[dict[str, Any]],
        at: list[int],
        stroke_t: list[float],
    ) -> None:
        for k, (r, a) in enumerate(zip(rulings, at, strict=True)):
            seq = start + k
            self._put_ruling(db, mid, seq, r, a, stroke_t[seq] if seq < len(stroke_t) else None)

    def save_scored(
        self,
        scored: Any,
        table: str,
        options: dict[str, Any] | None = None,
        players: dict[str, str] | None = None,
        source: str = "",
    ) -> int:
        """Store one finished scoring run (``luza.rules.record.Scored``) as a new match.

        ``options`` default to the game's own (``scored.game.options``), as
        ``luza score --record`` writes them.  Returns the new match id."""
        opts = dict(scored.game.options if options is None else options)
        header = _header(scored.game.name, table, opts)
        events = [it.event for it in scored.items]
        rulings = [r.to_dict() for r in scored.rulings]
        at = list(scored.at) if len(scored.at) == len(rulings) else [len(events)] * len(rulings)
        return self._save_whole(header, events, rulings, at, dict(scored.final), players, source)

    def _save_whole(
        self,
        header: dict[str, Any],
        events: list[Event],
        rulings: list[dict[str, Any]],
        at: list[int],
        final: dict[str, Any] | None,
        players: dict[str, str] | None,
        source: str,
    ) -> int:
        who = players if players else _players_from(events, final, rulings)
        with self._errors(), self._tx() as db:
            mid = self._new_match(db, header, who, source, STATUS_FINISHED)
            self._add_items(db, mid, 0, events)
            self._add_rulings(db, mid, 0, rulings, at, _stroke_times(events))
            last_t = max((e.t for e in events), default=None)
            db.execute(
                "UPDATE matches SET final=?, finished=?, resume_t=? WHERE id=?",
                (json.dumps(final) if final is not None else None, _now(), last_t, mid),
            )
        return mid

    def start_match(
        self,
        game: str,
        table: str,
        options: dict[str, Any] | None = None,
        players: dict[str, str] | None = None,
        source: str = "",
    ) -> int:
        """Open a live match (status "open", nothing stored yet); returns its id."""
        with self._errors(), self._tx() as db:
            return self._new_match(
                db, _header(game, table, options), dict(players or {}), source, STATUS_OPEN
            )

    def append(
        self,
        match_id: int,
        items: Iterable[Event],
        rulings: Iterable[dict[str, Any]] = (),
        resume_t: float | None = None,
    ) -> tuple[int, int]:
        """Store the new items and rulings of a live match and ``resume_t``, in one transaction.

        Idempotent: items with ``t <= `` the stored resume_t are skipped, and
        rulings are keyed by their shot number: one already stored the same is
        skipped, one that differs replaces the stored one (a rescoring of the
        whole stream rules its last stroke again when what followed it
        arrives), so sending the same batch twice, or all rulings so far each
        time, stores each shot once and ends with the latest rulings.
        ``resume_t`` (default: the last new item's t) only ever moves forward.
        A new or changed ruling is placed after the items of its batch.
        Returns (items added, rulings added or replaced)."""
        events = list(items)
        new_rulings = [dict(r) for r in rulings]
        with self._errors(), self._tx() as db:
            row = self._match_row(db, match_id)
            if row["status"] != STATUS_OPEN:
                raise RecordsError(f"match {match_id} in {self.path} is finished; cannot append")
            stored_t = row["resume_t"]
            if stored_t is not None:
                events = [e for e in events if e.t > stored_t]
            n_items = db.execute(
                "SELECT COUNT(*) FROM items WHERE match_id=?", (match_id,)
            ).fetchone()[0]
            self._add_items(db, match_id, n_items, events)
            stored = {
                int(shot): (int(seq), json.loads(text))
                for seq, shot, text in db.execute(
                    "SELECT seq, shot, ruling FROM rulings WHERE match_id=?", (match_id,)
                )
            }
            end = n_items + len(events)
            stroke_t: list[float] | None = None
            n_put = 0
            for r in new_rulings:
                shot = int(r.get("shot", 0))
                if shot in stored and stored[shot][1] == r:
                    continue  # sent again: stored already
                # new, or a ruling that changed since (the last stroke of a stream is ruled
                # again when what followed it arrives): the latest one is the match's
                seq = stored[shot][0] if shot in stored else len(stored)
                if stroke_t is None:
                    # shot_start / shot_end rows in order: which stroke each ruling is about
                    stroke_t = _stroke_times(
                        Event.from_dict(json.loads(line))
                        for (line,) in db.execute(
                            "SELECT line FROM items WHERE match_id=? AND type IN "
                            "('shot_start', 'shot_end') ORDER BY seq",
                            (match_id,),
                        )
                    )
                t = stroke_t[seq] if seq < len(stroke_t) else None
                self._put_ruling(db, match_id, seq, r, end, t)
                stored[shot] = (seq, r)
                n_put += 1
            if not self._players(db, match_id) and (events or new_rulings):
                who = _players_from(self._events(db, match_id), None, new_rulings)
                if who:
                    self._set_players(db, match_id, who)
            t_new = resume_t if resume_t is not None else max((e.t for e in events), default=None)
            if t_new is not None and (stored_t is None or t_new > stored_t):
                db.execute("UPDATE matches SET resume_t=? WHERE id=?", (float(t_new), match_id))
        return len(events), n_put

    def finish(self, match_id: int, final: dict[str, Any]) -> None:
        """Close a live match with its final line (``{"type": "final", "score", "winner"}``)."""
        with self._errors(), self._tx() as db:
            self._match_row(db, match_id)
            db.execute(
                "UPDATE matches SET final=?, status=?, finished=? WHERE id=?",
                (json.dumps(dict(final)), STATUS_FINISHED, _now(), match_id),
            )

    # -- reading ---------------------------------------------------------
    def _match_row(self, db: sqlite3.Connection, match_id: int) -> sqlite3.Row:
        cur = db.execute(
            "SELECT id, game, table_name, options, header, source, started, finished, status,"
            " resume_t, final FROM matches WHERE id=?",
            (int(match_id),),
        )
        cols = [c[0] for c in cur.description]
        row = cur.fetchone()
        if row is None:
            raise RecordsError(
                f"no match {match_id} in {self.path} (`luza matches --db {self.path}` lists them)"
            )
        return dict(zip(cols, row, strict=True))

    def _events(self, db: sqlite3.Connection, match_id: int) -> list[Event]:
        return [
            Event.from_dict(json.loads(line), f"{self.path}: match {match_id} item {seq}")
            for seq, line in db.execute(
                "SELECT seq, line FROM items WHERE match_id=? ORDER BY seq", (match_id,)
            )
        ]

    def _rulings(self, db: sqlite3.Connection, match_id: int) -> list[tuple[int, dict]]:
        return [
            (int(at), json.loads(r))
            for at, r in db.execute(
                "SELECT at, ruling FROM rulings WHERE match_id=? ORDER BY seq", (match_id,)
            )
        ]

    def _players(self, db: sqlite3.Connection, match_id: int) -> dict[str, str]:
        return {
            label: name
            for label, name in db.execute(
                "SELECT mp.label, p.name FROM match_players mp JOIN players p ON p.id=mp.player_id"
                " WHERE mp.match_id=? ORDER BY mp.seat",
                (match_id,),
            )
        }

    def _info(self, db: sqlite3.Connection, row: dict[str, Any]) -> MatchInfo:
        mid = int(row["id"])
        final = json.loads(row["final"]) if row["final"] else None
        if final is not None:
            score, winner = dict(final.get("score") or {}), final.get("winner")
        else:
            last = db.execute(
                "SELECT ruling FROM rulings WHERE match_id=? ORDER BY seq DESC LIMIT 1", (mid,)
            ).fetchone()
            score = dict(json.loads(last[0]).get("score") or {}) if last else {}
            winner = None
        n_shots = db.execute(
            "SELECT COUNT(*) FROM shots WHERE match_id=? AND shot>0", (mid,)
        ).fetchone()[0]
        return MatchInfo(
            id=mid,
            game=row["game"],
            table=row["table_name"],
            players=self._players(db, mid),
            source=row["source"],
            started=row["started"],
            status=row["status"],
            score=score,
            winner=winner,
            n_shots=int(n_shots),
            options=json.loads(row["options"]),
            finished=row["finished"],
            resume_t=row["resume_t"],
        )

    def get(self, match_id: int) -> MatchInfo:
        with self._errors(), self._lock:
            return self._info(self._db, self._match_row(self._db, match_id))

    def list_matches(self) -> list[MatchInfo]:
        with self._errors(), self._lock:
            ids = [r[0] for r in self._db.execute("SELECT id FROM matches ORDER BY id")]
            return [self._info(self._db, self._match_row(self._db, i)) for i in ids]

    def matches_from(self, source: str) -> list[int]:
        """Ids of the matches stored from ``source``, oldest first."""
        with self._errors(), self._lock:
            return [
                int(r[0])
                for r in self._db.execute(
                    "SELECT id FROM matches WHERE source=? ORDER BY id", (source,)
                )
            ]

    def match_state(self, match_id: int) -> tuple[list[Event], list[dict[str, Any]], float | None]:
        """(items, rulings, resume_t) stored for a match, for resuming a live one."""
        with self._errors(), self._lock:
            row = self._match_row(self._db, match_id)
            events = self._events(self._db, match_id)
            rulings = [r for _, r in self._rulings(self._db, match_id)]
            return events, rulings, row["resume_t"]

    def open_match(self, source: str | None = None) -> int | None:
        """The last unfinished match (of this source, when given), or None."""
        with self._errors(), self._lock:
            if source is None:
                r = self._db.execute(
                    "SELECT id FROM matches WHERE status=? ORDER BY id DESC LIMIT 1",
                    (STATUS_OPEN,),
                ).fetchone()
            else:
                r = self._db.execute(
                    "SELECT id FROM matches WHERE status=? AND source=? ORDER BY id DESC LIMIT 1",
                    (STATUS_OPEN, source),
                ).fetchone()
            return None if r is None else int(r[0])

    def record_lines(self, match_id: int) -> list[str]:
        """The match as a ``luza.rules.record`` match record: header, items with each ruling
        before the item it was decided at, then the final line (none while open)."""
        with self._errors(), self._lock:
            row = self._match_row(self._db, match_id)
            items = [
                line
                for (line,) in self._db.execute(
                    "SELECT line FROM items WHERE match_id=? ORDER BY seq", (match_id,)
                )
            ]
            rulings = self._rulings(self._db, match_id)
        lines = [row["header"]]
        k = 0
        for i, line in enumerate(items):
            while k < len(rulings) and rulings[k][0] <= i:
                lines.append(json.dumps(rulings[k][1]))
                k += 1
            lines.append(line)
        lines.extend(json.dumps(r) for _, r in rulings[k:])
        if row["final"]:
            lines.append(json.dumps(json.loads(row["final"])))
        return lines

    def export_jsonl(self, match_id: int, path: str | Path) -> None:
        """Write the match record (see :meth:`record_lines`) atomically."""
        from luza.output_files import atomic_file

        lines = self.record_lines(match_id)
        p = Path(path)
        if p.is_dir():
            raise RecordsError(f"cannot write {p}: it is a folder (give a file name)")
        with atomic_file(p) as tmp:
            tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def import_jsonl(
        self,
        path: str | Path,
        players: dict[str, str] | None = None,
        source: str | None = None,
        once: bool = False,
    ) -> int:
        """Read a match record, replay it (it must give the same rulings), store it as a new
        finished match; returns its id.  ``source`` defaults to the file's path.

        ``once``: when a match of the same source already holds exactly this record
        (line for line), return its id and store nothing (a batch restarted after a
        stop between storing a record and noting it)."""
        from luza.rules.record import replay

        src = source or str(Path(path))
        if once:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, ValueError):
                text = ""  # replay() below says what is wrong with the file
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
            lines = [ln for ln in lines if not ln.startswith("#")]
            for mid in self.matches_from(src):
                if self.record_lines(mid) == lines:
                    return mid

        scored, rec = replay(path)  # a binary file is refused there as "not text"
        header = dict(rec.header)
        header.setdefault("table", "pyramid-12ft")
        header.setdefault("options", {})
        header["game"] = scored.game.name
        events = [it.event for it in scored.items]
        rulings = [r.to_dict() for r in scored.rulings]
        final = rec.final[1] if rec.final is not None else dict(scored.final)
        return self._save_whole(header, events, rulings, list(scored.at), final, players, src)
