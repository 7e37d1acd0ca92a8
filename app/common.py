"""What the product commands share: argument checks, the match database (output files:
``luza/output_files.py``).

Light on imports on purpose (``luza matches`` should not load the tracker).
``--option KEY=VALUE`` pairs are parsed by ``luza.rules.cli.parse_options`` (the
same as ``luza score``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from luza.errors import LuzaError

if TYPE_CHECKING:
    from .records import MatchStore


class ArgumentError(LuzaError):
    """A command-line value that cannot be used (the message says which and why)."""


def parse_players(players: str | list[str] | None) -> list[str] | None:
    """``"Ann,Bob"`` -> ``["Ann", "Bob"]`` (two different names), None / "" -> None."""
    if not players:
        return None
    names = [n.strip() for n in players.split(",")] if isinstance(players, str) else players
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise ArgumentError(
            f'--players needs two different names, e.g. "Ann,Bob" (got {players!r})'
        )
    return list(names)


def parse_start_score(score: str | dict[str, int] | None) -> dict[str, int] | None:
    """``"3:2"`` -> ``{"A": 3, "B": 2}`` (breaker first, as ``--players``), None / "" -> None."""
    if not score:
        return None
    if isinstance(score, dict):
        parts = [score.get("A"), score.get("B")] if set(score) == {"A", "B"} else []
    else:
        parts = [p.strip() for p in score.replace("-", ":").split(":")]
    try:
        a, b = (int(x) for x in parts)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        a = b = -1
    if a < 0 or b < 0:
        raise ArgumentError(
            f'--start-score needs two points totals, breaker first, e.g. "3:2" (got {score!r})'
        )
    return {"A": a, "B": b}


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """``--db PATH``, the same in every command that uses the match database."""
    parser.add_argument(
        "--db",
        metavar="PATH",
        help="match database (default: $LUZA_DB, else ~/.luza/matches.sqlite)",
    )


def is_live_source(spec: str) -> bool:
    """Whether a ``--source`` / video spec is a camera index or a stream URL (it cannot be
    read twice, and a dropout is reconnected) rather than a file."""
    from luza.vision.sources import STREAM_PREFIXES

    return spec.isdigit() or spec.startswith(STREAM_PREFIXES)


def resolve_db(db: str | Path | None) -> Path:
    """``--db`` if given, else ``$LUZA_DB``, else ``~/.luza/matches.sqlite``."""
    if db:
        return Path(db).expanduser()
    from .records import default_db_path

    return default_db_path()


def open_store(db: str | Path | None, write: bool = False) -> MatchStore:
    """The match database of ``--db`` (see :func:`resolve_db`).  ``write``: also take its
    write lock once and let it go, so a database another program holds locked is said
    now, before minutes of work, not when the result is stored."""
    from . import records

    store = records.MatchStore(resolve_db(db), timeout_s=records.DEFAULT_TIMEOUT_S)
    if write:
        try:
            store.check_writable()
        except BaseException:
            store.close()
            raise
    return store
