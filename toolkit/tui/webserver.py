"""textual-serve's server with the checks of ``toolkit.tui.access`` and an end for every app it starts.

We subclass textual-serve rather than patch it: ``CampaignServer`` overrides ``Server``'s route handlers
(``handle_index``, ``handle_websocket``, ``handle_download``) and its ``on_startup``/``on_shutdown`` hooks;
``ServedApp`` overrides ``AppService._open_app_process``, the one place textual-serve starts a process.
What changes:

* **Access.** The page and downloads need this start's token (a cookie set from the printed URL) and a
  ``Host`` naming this server; the websocket needs, besides, the page's own ``Origin``. At most
  ``MAX_SESSIONS`` screens at once; terminal sizes, from the URL and from resizes, are clamped; a
  websocket message over ``MAX_MESSAGE`` closes the socket; malformed messages are ignored (textual-serve
  ends the connection with a traceback).
* **No shell.** The app is started from an argument list (``create_subprocess_exec``), not a shell line,
  in a session of its own, so it and anything it starts can be signalled as a group.
* **Every app ends.** When its page goes (closed, crashed, network gone — the websocket's heartbeat
  notices within 30 s), the app is told to quit; one still running ``APP_GRACE`` seconds later (its last
  try at a busy campaign is at most SQLite's 30 s busy timeout) is killed with its group. On SIGINT or
  SIGTERM the server closes every socket, gives the apps ``SHUTDOWN_GRACE`` seconds to quit, kills what is
  left, and exits. An app whose server died (stdin closed) exits by itself (``toolkit.tui.webdriver``).
  A decision an app had queued but not saved is in its journal either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shlex
import signal
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from toolkit.tui.access import MAX_MESSAGE, MAX_SESSIONS, Access, clamp_size
from toolkit.tui.serve import SERVED_DRIVER

#: Seconds an app may take to quit after its page went away, before it is killed.
APP_GRACE = 40.0
#: Seconds the apps get to quit when the server is stopped.
SHUTDOWN_GRACE = 10.0

log = logging.getLogger("trec-toolkit.serve")

#: The address a page was requested at, so that the page connects its websocket back to the same one.
_page_url: ContextVar[str | None] = ContextVar("_page_url", default=None)


class ServedApp(AppService):
    """One browser tab's app: started from an argument list in its own session; ``end`` always ends it."""

    def __init__(self, argv: Sequence[str], **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.argv = list(argv)
        self.process: asyncio.subprocess.Process | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        environment = self._build_environment(width=width, height=height)
        environment["TEXTUAL_DRIVER"] = SERVED_DRIVER
        self.process = self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
        self._stdin = process.stdin
        return process

    async def end(self, grace: float) -> None:
        """Ask the app to quit; kill its group if it has not within ``grace`` seconds; reap it."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.stop(), grace)
        process = self.process
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 5)


class CampaignServer(Server):
    """The server of one served screen (see the module docstring)."""

    def __init__(self, argv: Sequence[str], *, access: Access, urls: Sequence[str], **kwargs: Any) -> None:
        super().__init__(shlex.join(argv), **kwargs)
        self.argv = list(argv)
        self.access = access
        self.urls = list(urls)
        self.sessions: set[tuple[web.WebSocketResponse, ServedApp]] = set()

    # The page's websocket URL is built from ``public_url``: the address this page was asked for, unless a
    # --public-url was given (a proxy), so that each printed address works on its own.
    @property  # type: ignore[override]
    def public_url(self) -> str:
        return _page_url.get() or self._public_url

    @public_url.setter
    def public_url(self, value: str) -> None:
        self._public_url = value

    def initialize_logging(self) -> None:
        super().initialize_logging()
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

    async def on_startup(self, app: web.Application) -> None:
        for line in self.announcement():
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)

    def announcement(self) -> list[str]:
        last = "Open it in a browser (the secret in it is new at every start); Ctrl+C stops the server."
        if len(self.urls) == 1:
            return [f"Serving {self.title} at {self.urls[0]}", last]
        return [f"Serving {self.title} at one of", *(f"  {url}" for url in self.urls), last]

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every page and end every app (SIGINT/SIGTERM): quit, then kill what is left."""
        sessions = list(self.sessions)
        for websocket, _ in sessions:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(code=1001, message=b"server stopped"), 2)
        await asyncio.gather(*(service.end(SHUTDOWN_GRACE) for _, service in sessions))

    def _refused(self, status: int, reason: str) -> web.Response:
        from toolkit.formats.text import visible

        log.warning("refused %s", visible(reason, one_line=True))  # a Host or Origin header is outside text
        return web.Response(status=status, text=reason + "\n")

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        given = request.query.get("token")
        if given is not None:
            if not self.access.host_allowed(request.host) or not self.access.token_matches(given):
                return self._refused(
                    403, "open the address the server printed: that token is not this start's"
                )
            query = [(k, v) for k, v in request.query.items() if k != "token"]
            target = str(request.rel_url.with_query(query))
            response = web.Response(status=303, headers={"Location": target})
            response.set_cookie(self.access.cookie, given, httponly=True, samesite="Strict", path="/")
            return response
        refusal = self.access.page_refusal(request.host, request.cookies.get(self.access.cookie))
        if refusal:
            return self._refused(403, refusal)
        reset = _page_url.set(None if self.access.public_url else f"http://{request.host}")
        try:
            return await super().handle_index(request)  # type: ignore[no-any-return]
        finally:
            _page_url.reset(reset)

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        refusal = self.access.page_refusal(request.host, request.cookies.get(self.access.cookie))
        if refusal:
            return self._refused(403, refusal)
        return await super().handle_download(request)

    async def handle_websocket(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        refusal = self.access.socket_refusal(
            request.host, request.headers.get("Origin"), request.cookies.get(self.access.cookie)
        )
        if refusal:
            return self._refused(403, refusal)
        if len(self.sessions) >= MAX_SESSIONS:
            return self._refused(503, f"{MAX_SESSIONS} screens are open already; close one and reload")
        width, height = clamp_size(request.query.get("width"), request.query.get("height"))
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        service = ServedApp(
            self.argv,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            debug=self.debug,
        )
        session = (websocket, service)
        self.sessions.add(session)  # counted before the first await: the cap holds under a burst
        try:
            await websocket.prepare(request)
            await service.start(width, height)
            await self._relay(websocket, service)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await websocket.close()
        except Exception as error:  # noqa: BLE001 - one tab's failure is logged, the server goes on
            log.warning("a served screen failed: %s", error)
        finally:
            try:
                await asyncio.shield(service.end(APP_GRACE))
            finally:
                self.sessions.discard(session)
        return websocket

    async def _relay(self, websocket: web.WebSocketResponse, service: ServedApp) -> None:
        """The page's messages to the app: keys, sizes (clamped), focus; anything else is ignored."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not (isinstance(envelope, list) and envelope and isinstance(envelope[0], str)):
                continue
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()
