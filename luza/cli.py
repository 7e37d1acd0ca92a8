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
import importlib
import os
import sys

from luza import __version__
from luza.errors import LuzaError

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
    try:
        return int(args.func(args) or 0)
    except LuzaError as e:
        print(f"luza {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `luza score ... | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(f"luza {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
