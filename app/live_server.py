"""The live table's web server (FastAPI): the scoreboard, the operator panel, the state.

    GET  /             the scoreboard page (a screen by the table)
    GET  /operator     the operator panel (calls, fouls, choices; needs the token)
    GET  /api/state    the state as JSON (game, players, score, turn, last ruling, balls...)
    WS   /ws           pushes {"type": "state", ...} on every change, {"type": "heartbeat"}
                       every few seconds
    POST /api/input    one operator input (JSON object); ``Authorization: Bearer TOKEN``
                       (403 without / wrong, 400 with the reason for a bad input)

The runner thread hands each new state to :class:`Hub.publish`, which passes it
to the server's event loop with ``loop.call_soon_threadsafe``.  Everything the
pages load is served from ``app/static`` (no CDN).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from luza.errors import LuzaError

STATIC_DIR = Path(__file__).parent / "static"
HEARTBEAT_S = 5.0  # a WebSocket with no news gets a heartbeat this often
QUEUE_STATES = 8  # states waiting for a slow client; older ones are dropped


class Hub:
    """The latest state and the connected WebSockets; ``publish`` is thread-safe."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queues: set[asyncio.Queue] = set()

    def publish(self, state: dict[str, Any]) -> None:
        self.state = state  # one reference swap: readers see the old or the new state
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop is shutting down
                loop.call_soon_threadsafe(self._fan_out, state)

    def _fan_out(self, state: dict[str, Any]) -> None:
        for q in list(self.queues):
            if q.full():
                with contextlib.suppress(asyncio.QueueEmpty):
                    q.get_nowait()
            q.put_nowait(state)


def create_app(
    hub: Hub,
    token: str,
    submit: Callable[[Any], dict[str, Any]] | None = None,
    on_startup: Callable[[], None] | None = None,
    on_shutdown: Callable[[], None] | None = None,
) -> FastAPI:
    """The app.  ``submit(payload)`` stores an operator input (raises a ``LuzaError``
    with the reason when it is refused); ``on_startup`` starts the runner once the
    event loop runs."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        hub.loop = asyncio.get_running_loop()
        if on_startup is not None:
            on_startup()
        yield
        if on_shutdown is not None:
            on_shutdown()
        hub.loop = None

    app = FastAPI(title="luza live", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/")
    def scoreboard() -> FileResponse:
        return FileResponse(STATIC_DIR / "scoreboard.html")

    @app.get("/operator")
    def operator() -> FileResponse:
        return FileResponse(STATIC_DIR / "operator.html")

    @app.get("/api/state")
    def state() -> JSONResponse:
        return JSONResponse(hub.state, headers={"Cache-Control": "no-store"})

    @app.post("/api/input")
    async def post_input(request: Request) -> JSONResponse:
        auth = request.headers.get("authorization", "")
        given = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        if not given or not secrets.compare_digest(given.encode(), token.encode()):
            return JSONResponse(
                {"error": "a valid operator token is needed (Authorization: Bearer TOKEN)"},
                status_code=403,
            )
        try:
            payload = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body is not valid JSON"}, status_code=400)
        if submit is None:
            return JSONResponse({"error": "this server takes no inputs"}, status_code=400)
        try:
            ev = await asyncio.to_thread(submit, payload)
        except LuzaError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        return JSONResponse({"ok": True, "input": ev})

    @app.websocket("/ws")
    async def ws(socket: WebSocket) -> None:
        await socket.accept()
        q: asyncio.Queue = asyncio.Queue(maxsize=QUEUE_STATES)
        hub.queues.add(q)
        try:
            if hub.state:
                await socket.send_json({"type": "state", **hub.state})
            while True:
                try:
                    st = await asyncio.wait_for(q.get(), HEARTBEAT_S)
                except TimeoutError:
                    await socket.send_json({"type": "heartbeat"})
                    continue
                await socket.send_json({"type": "state", **st})
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            hub.queues.discard(q)

    return app
