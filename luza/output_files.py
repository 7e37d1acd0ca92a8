"""Output files the commands write: checked before the work, written whole or not at all.

A command that tracks a video for minutes and then finds it cannot write its result has
lost that work, so the commands check every output path first (:func:`writable_file`,
:func:`writable_dir`) and write through :func:`atomic_file` (a hidden part file renamed
into place, so a reader never sees half a file and a failed write leaves the old one).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from luza.errors import LuzaError


class OutputError(LuzaError):
    """An output folder or file that cannot be written."""


def _file_above(p: Path) -> Path | None:
    """The nearest of ``p``'s folders that exists when it is a file (nothing can be made
    under it), else None."""
    for up in p.parents:
        if up.exists():
            return None if up.is_dir() else up
    return None


def writable_dir(path: str | Path, what: str = "the output folder") -> Path:
    """Create ``path`` (and its parents) if needed and make sure a file can be written in it;
    :class:`OutputError` naming the folder when not (a file in its place, no permission)."""
    p = Path(path).expanduser()
    if p.exists() and not p.is_dir():
        raise OutputError(f"{p} exists and is not a folder")
    if (up := _file_above(p)) is not None:
        raise OutputError(f"cannot create {what} {p}: {up} is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / f".luza-write-test.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise OutputError(f"cannot write in {what} {p}: {e.strerror or e}") from None
    return p


def remove_file(path: Path) -> None:
    """Remove an earlier run's output file if there is one (:class:`OutputError` if it
    cannot be, e.g. a folder in its place)."""
    try:
        path.unlink(missing_ok=True)
    except OSError as e:
        raise OutputError(f"cannot replace {path}: {e.strerror or e}") from None


def part_path(path: Path) -> Path:
    """Where :func:`atomic_file` writes ``path`` first: a hidden name with the same suffix
    (writers that pick a format by the suffix still see it)."""
    return path.with_name(f".{path.stem}.part{path.suffix}")


@contextlib.contextmanager
def atomic_file(path: str | Path) -> Iterator[Path]:
    """``with atomic_file(p) as tmp: write(tmp)``: ``p`` appears only once whole.  On any
    failure (or Ctrl-C) the partial file is removed and ``p`` is left as it was; a write
    that fails with an OSError is an :class:`OutputError` naming ``p``."""
    p = Path(path)
    tmp = part_path(p)
    try:
        yield tmp
        os.replace(tmp, p)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise OutputError(f"cannot write {p}: {e.strerror or e}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def writable_file(path: str | Path, what: str = "the output") -> Path:
    """Make sure a file can be written at ``path`` before the work that makes it: its
    folder is created if needed (:func:`writable_dir`) and ``path`` is not a folder;
    :class:`OutputError` naming ``what`` when not."""
    p = Path(path).expanduser()
    if p.is_dir():
        raise OutputError(f"cannot write {what} {p}: it is a folder (give a file name)")
    if (up := _file_above(p)) is not None:
        raise OutputError(f"cannot write {what} {p}: {up} is a file, not a folder")
    writable_dir(p.parent, f"the folder of {what}")
    return p


def write_image(path: str | Path, img, what: str = "the image") -> None:
    """Write ``img`` (an OpenCV BGR array) whole to ``path``, its format by the suffix;
    :class:`OutputError` where ``cv2.imwrite`` would say nothing (it returns False, or
    raises for a suffix it has no writer for) and no file would appear."""
    import cv2

    p = Path(path)
    with atomic_file(p) as tmp:
        try:
            ok = cv2.imwrite(str(tmp), img)
        except cv2.error:
            ok = False
        if not ok:
            raise OutputError(f"cannot write {what} {p} (an image suffix: .png, .jpg)")
