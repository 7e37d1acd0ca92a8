"""The `luza` command line.

Each command lives with the stage it drives (``calibration/cli.py``,
``vision/cli.py``, ``rules/cli.py``, ``samples/cli.py``; the product commands in
``app/``); a module named here
provides ``register(subparsers)``, which adds its sub-command(s) and sets
``func`` on them.  Modules are imported only when present, so a stage can be
added without touching the others.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys

from luza import __version__
from luza.errors import LuzaError
from luza.video_logs import quiet_video_logs

COMMAND_MODULES = (
    "luza.samples.cli",
    "luza.calibration.cli",
    "luza.vision.cli",
    "luza.vision.events_cli",
    "luza.rules.cli",
    "luza.app.analyze",
    "luza.app.records_cli",
    "luza.app.live",
    "luza.app.batch",
)

EXIT_INTERRUPTED = 130  # what main() returns after Ctrl-C (128 + SIGINT); no command returns it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="luza", description="Table tracker and automatic scorer for pyramid billiards."
    )
    parser.add_argument("--version", action="version", version=f"luza {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is not None and name.startswith(e.name):
                continue  # that stage is not installed in this build
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    quiet_video_logs()  # a bad video is said in the command's own one line
    try:
        return int(args.func(args) or 0)
    except LuzaError as e:
        print(f"luza {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `luza score ... | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # (after BrokenPipeError, one of them)
        # a file or device failing under us that no check caught (a disk filling up, a
        # folder removed mid-run): said plainly, not as a traceback
        where = f": {e.filename}" if e.filename else ""
        print(f"luza {args.command}: error: {e.strerror or e}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"luza {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def run() -> None:
    """The ``luza`` program: :func:`main`; after Ctrl-C (its clean-up done, its message
    printed) the process ends *by SIGINT*, as a shell expects of an interrupted command.

    ``$?`` reads 130 either way, but only a death by SIGINT stops the script or loop that
    ran luza (``for f in *.mp4; do luza analyze "$f" ...; done``): bash goes on to the next
    command after one that caught Ctrl-C and exited 130.  The exit was also chancy:
    CPython itself ends by SIGINT when a KeyboardInterrupt was raised inside code run by
    ``exec`` of a string (a dataclass being made by a late import), even one caught here.
    """
    code = main()
    if code == EXIT_INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a reader gone, a stream closed
                stream.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    sys.exit(code)


if __name__ == "__main__":
    run()
