"""``luza live``: score a match as it is played, with a scoreboard page and an operator panel.

    luza live --source 0 --game five-ball --players "Ann,Bob"
    luza live --source match.mp4 --game free-pyramid --calibration cal.json --speed 4

``--source`` is a camera index, a stream URL or a video file (replayed in real
time as if from a camera; ``--speed 4`` replays four times faster, ``0`` as
fast as it can be tracked).  The scoreboard is at ``http://HOST:PORT/``, the
operator panel at ``/operator``; an operator needs the token (printed once when
it is generated).  The server listens on 127.0.0.1 unless ``--host`` says
otherwise.  Every shot is stored in the match database (``--db``); a match of
the same source left unfinished (a crash, a restart) is taken up where it
stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal
import socket
import sys
import threading

from luza.app.common import add_db_argument, is_live_source
from luza.errors import LuzaError
from luza.events import GAMES

AUTO_FRAMES = 10


class LiveCommandError(LuzaError):
    """``luza live`` cannot start."""


def _build_loop_uninterrupted(loop_runner: asyncio.Runner) -> None:
    """Build the runner's event loop with Ctrl-C held back until it is whole: a SIGINT
    inside the loop's constructor leaves a half-built loop whose clean-up prints an
    AttributeError traceback after our one-line "interrupted".  The held-back Ctrl-C
    arrives as soon as the loop exists."""
    if not hasattr(signal, "pthread_sigmask"):
        loop_runner.get_loop()
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        loop_runner.get_loop()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "live",
        help="score a match live: scoreboard web page and operator panel",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--source", required=True, help="camera index (0), stream URL or video file")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument(
        "--calibration", default="auto", help="'auto' (default), a calibration JSON or .truth.json"
    )
    p.add_argument("--table", help="table profile (default: the calibration's, else pyramid-12ft)")
    p.add_argument("--players", help='two player names in playing order, e.g. "Ann,Bob"')
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (8000; 0 picks a free one)")
    p.add_argument("--token", help="operator token (default: a new one, printed once)")
    add_db_argument(p)
    p.add_argument(
        "--speed", type=float, default=1.0, help="replay speed of a video file (1 = real time)"
    )
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a rules option"
    )
    p.add_argument(
        "--exit-when-done", action="store_true", help="stop the server when a video file ends"
    )
    p.set_defaults(func=cmd_live)


def cmd_live(args: argparse.Namespace) -> int:
    from pathlib import Path

    from luza.app.common import open_store, parse_players
    from luza.app.match import camera_for
    from luza.rules.cli import parse_options
    from luza.rules.engine import load_game
    from luza.vision.sources import open_source

    players = parse_players(args.players) or []
    options = parse_options(args.option)
    if args.speed < 0:
        raise LiveCommandError("--speed must be 0 (as fast as possible) or more")
    if not 0 <= args.port <= 65535:
        raise LiveCommandError(f"--port {args.port}: not a port number")
    live = is_live_source(args.source)
    source = args.source if live else str(Path(args.source).resolve())

    # open the source once: a missing file / absent camera is said now, not on the page
    src = open_source(args.source, for_tracking=True)
    try:
        first = []
        if args.calibration == "auto":
            for fr in src:
                first.append(fr.image)
                if len(first) >= AUTO_FRAMES:
                    break
        size = tuple(src.size)
    finally:
        src.close()
    cam, profile, _cal = camera_for(args.calibration, args.game, args.table, first)
    if tuple(cam.image_size) != size:
        raise LiveCommandError(
            f"the calibration is for {cam.image_size[0]}x{cam.image_size[1]} images, "
            f"the source gives {size[0]}x{size[1]}"
        )
    load_game(args.game, profile, options)  # a bad --option is said now

    # listen first: a busy port is said before a match is opened in the database
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        sock.close()
        raise LiveCommandError(f"cannot listen on {args.host}:{args.port}: {e.strerror}") from None
    try:
        store = open_store(args.db, write=True)
        try:
            return _serve(args, sock, store, source, live, cam, profile, players, options)
        finally:
            store.close()
    finally:
        sock.close()


def _serve(args, sock, store, source, live, cam, profile, players, options) -> int:
    """Run the match and its web server until the source ends (``--exit-when-done``) or
    Ctrl-C; the caller closes ``store`` and ``sock``."""
    from luza.app.live_runner import LiveRunner
    from luza.vision.pipeline import VisionPipeline
    from luza.vision.sources import open_source

    token = args.token or secrets.token_urlsafe(12)

    import uvicorn

    from luza.app.live_server import Hub, create_app

    hub = Hub()
    server_box: dict = {}

    def on_state(state: dict) -> None:
        hub.publish(state)
        failed = state.get("camera", {}).get("status") == "error"
        if failed and not server_box.get("said"):
            server_box["said"] = True  # the console says it too, once
            print(f"luza live: {state['camera']['message']}", file=sys.stderr, flush=True)
        done = state.get("finished") or failed
        if args.exit_when_done and done and "server" in server_box:
            # give the pages a moment to receive the last state, then stop
            threading.Timer(1.0, lambda: setattr(server_box["server"], "should_exit", True)).start()

    runner = LiveRunner(
        source=source,
        open_frames=lambda: open_source(args.source, for_tracking=True),
        live=live,
        make_pipeline=lambda: VisionPipeline(cam, profile, args.game),
        profile=profile,
        game=args.game,
        store=store,
        options=options,
        players=players,
        speed=args.speed,
        on_state=on_state,
    )
    hub.state = runner.state()
    app = create_app(
        hub, token, runner.submit_input, on_startup=runner.start, on_shutdown=runner.stop
    )

    port = sock.getsockname()[1]
    url = f"http://{args.host}:{port}"
    if not args.token:
        print(f"luza live: operator token: {token}", file=sys.stderr)
    what = "took up" if runner.resumed else "started"
    print(
        f"luza live: {what} match {runner.match_id} in {store.path}; scoreboard {url}/ , "
        f"operator {url}/operator",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", ws="auto", timeout_graceful_shutdown=2
    )
    server = uvicorn.Server(config)
    server_box["server"] = server
    serving = None
    try:
        # uvicorn's Server.run, with the coroutine in hand: a Ctrl-C before the loop
        # starts it would leave it un-awaited and Python would print a warning after
        # our one-line "interrupted"
        serving = server.serve(sockets=[sock])
        loop_runner = asyncio.Runner(loop_factory=config.get_loop_factory())
        try:
            _build_loop_uninterrupted(loop_runner)
            loop_runner.run(serving)
        finally:
            loop_runner.close()
    finally:
        if serving is not None:
            serving.close()  # no-op once it ran; an unstarted one is closed quietly
        runner.stop()
        if runner.ident is not None:  # Ctrl-C may come before the server started it
            runner.join(timeout=5.0)
    if isinstance(runner.error, LuzaError):
        raise runner.error
    if runner.error is not None:  # a bug, said in one line (the page said it too)
        err = runner.error
        print(f"luza live: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    return 0
