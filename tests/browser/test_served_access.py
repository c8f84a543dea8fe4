"""Who may drive a served screen, and that every app it starts ends (docs/reliability.md).

A raw websocket client (aiohttp's, which textual-serve itself runs on) sends exactly the headers a test
names, so each check is tried alone: no secret, a wrong one, another Origin, no Origin, another Host. The
positive control — the same client with the printed URL's cookie, the page's origin and host — connects and
records a grade, so the refusals are the checks' doing. In chromium: a page of another origin on the same
host, which carries the cookie, cannot open the socket. Processes are read with psutil.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import re
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import psutil
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "tui"))
from tui_helpers import build_campaign  # noqa: E402

from toolkit.judging.store import CampaignStore  # noqa: E402
from toolkit.tui.access import MAX_COLUMNS, MAX_ROWS, MAX_SESSIONS  # noqa: E402


def grades(path: Path) -> list[tuple[str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.assessor, e.doc_id, e.grade) for e in store.events()]


def headers(server: Any, **overrides: str | None) -> dict[str, str]:
    """What the served page's own websocket sends; ``overrides`` replace (None: leave out) one header."""
    base: dict[str, str | None] = {
        "Origin": server.base,
        "Host": f"127.0.0.1:{server.port}",
        "Cookie": f"trec_toolkit_{server.port}={server.token}",
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


async def handshake(server: Any, query: str = "width=80&height=24", **overrides: str | None) -> int:
    """The HTTP status of a websocket handshake with these headers (101 when it opened; then closed)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(
                f"{server.base}/ws?{query}", headers=headers(server, **overrides), autoping=True
            ) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def drive(server: Any, keys: str, wait_for: bytes, query: str = "width=100&height=30") -> bytes:
    """Open the socket as the page would, wait until the screen shows ``wait_for``, send ``keys``."""
    received = bytearray()
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{server.base}/ws?{query}", headers=headers(server)) as ws,
    ):
        deadline = time.monotonic() + 30
        while wait_for not in received:
            assert time.monotonic() < deadline, bytes(received[-500:])
            msg = await ws.receive(timeout=30)
            if msg.type == aiohttp.WSMsgType.BINARY:
                received.extend(msg.data)
        for key in keys:
            await ws.send_json(["stdin", key])
        await asyncio.sleep(1.5)
    return bytes(received)


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return build_campaign(tmp_path / "camp.sqlite")


def test_the_printed_url_is_the_key_and_the_raw_client_with_it_judges(campaign: Path, serve: Any) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")
    asyncio.run(drive(server, "2", b"Item 1 of 5"))
    deadline = time.monotonic() + 20
    while grades(campaign) != [("alice", "doc-a", 2)]:
        assert time.monotonic() < deadline, grades(campaign)
        time.sleep(0.1)


def test_a_websocket_without_the_secret_or_from_elsewhere_is_refused(campaign: Path, serve: Any) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")
    other_port = f"http://127.0.0.1:{server.port + 1}"
    cases = {
        "no cookie": {"Cookie": None},
        "a wrong secret": {"Cookie": f"trec_toolkit_{server.port}={'x' * len(server.token)}"},
        "another server's cookie": {"Cookie": f"trec_toolkit_{server.port + 1}={server.token}"},
        "another site": {"Origin": "http://evil.example"},
        "another port of this host": {"Origin": other_port},
        "https of this address": {"Origin": f"https://127.0.0.1:{server.port}"},
        "no Origin": {"Origin": None},
        "the null origin": {"Origin": "null"},
        "another Host (DNS rebinding)": {"Host": f"evil.example:{server.port}"},
        "another port in Host": {"Host": f"127.0.0.1:{server.port + 1}"},
    }
    refused = {name: asyncio.run(handshake(server, **case)) for name, case in cases.items()}
    assert refused == dict.fromkeys(cases, 403)
    assert server.apps() == []  # not one app was started
    assert grades(campaign) == []
    # The same client with the page's headers gets in (the control).
    assert asyncio.run(handshake(server)) == 101


def test_the_page_needs_the_secret_and_then_keeps_it_in_a_cookie(campaign: Path, serve: Any) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")

    async def get(url: str, **extra: str) -> tuple[int, dict[str, str], str]:
        async with (
            aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as session,
            session.get(url, headers=extra, allow_redirects=False) as response,
        ):
            return response.status, dict(response.headers), await response.text()

    status, _, text = asyncio.run(get(server.base + "/"))
    assert status == 403 and "token" in text
    assert asyncio.run(get(server.base + "/?token=" + "y" * len(server.token)))[0] == 403
    assert asyncio.run(get(server.url, Host=f"evil.example:{server.port}"))[0] == 403
    status, head, _ = asyncio.run(get(server.url))
    assert status == 303 and head["Location"] == "/"  # the secret leaves the address bar
    cookie = head["Set-Cookie"]
    assert cookie.startswith(f"trec_toolkit_{server.port}={server.token};")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    cookies = f"trec_toolkit_{server.port}={server.token}"
    status, _, page = asyncio.run(get(server.base + "/", Cookie=cookies))
    assert status == 200 and f'data-session-websocket-url="ws://127.0.0.1:{server.port}/ws"' in page


def test_screens_at_once_and_the_terminal_size_are_capped(campaign: Path, serve: Any) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")

    async def crowd() -> list[int]:
        async with aiohttp.ClientSession() as session:
            opened = []
            for _ in range(MAX_SESSIONS):
                opened.append(
                    await session.ws_connect(
                        f"{server.base}/ws?width=3000&height=3000", headers=headers(server)
                    )
                )
            statuses = [101] * len(opened)
            try:
                async with session.ws_connect(f"{server.base}/ws", headers=headers(server)):
                    statuses.append(101)
            except aiohttp.WSServerHandshakeError as exc:
                statuses.append(exc.status)
            apps = server.apps()
            sizes = {(p.environ().get("COLUMNS"), p.environ().get("ROWS")) for p in apps}
            assert len(apps) == MAX_SESSIONS, apps
            assert sizes == {(str(MAX_COLUMNS), str(MAX_ROWS))}
            for ws in opened:
                await ws.close()
            return statuses

    assert asyncio.run(crowd()) == [101] * MAX_SESSIONS + [503]
    deadline = time.monotonic() + 30
    while server.apps():
        assert time.monotonic() < deadline, "the apps of closed pages did not end"
        time.sleep(0.1)
    assert asyncio.run(handshake(server)) == 101  # room again


def test_a_resize_is_capped_too(campaign: Path, serve: Any) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")

    async def resize() -> bytes:
        received = bytearray()
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{server.base}/ws?width=80&height=24", headers=headers(server)) as ws,
        ):
            while b"Item 1 of 5" not in received:
                msg = await ws.receive(timeout=30)
                if msg.type == aiohttp.WSMsgType.BINARY:
                    received.extend(msg.data)
            received.clear()
            await ws.send_json(["resize", {"width": 3000, "height": 3000}])
            deadline = time.monotonic() + 20
            while b"Item 1 of 5" not in received and time.monotonic() < deadline:
                msg = await ws.receive(timeout=20)
                if msg.type == aiohttp.WSMsgType.BINARY:
                    received.extend(msg.data)
        return bytes(received)

    frames = asyncio.run(resize())
    # Textual moves the cursor to each changed line (CSI row;col H): never past the capped size.
    rows = [int(m) for m in re.findall(rb"\x1b\[(\d+);\d+H", frames)]
    assert rows and max(rows) == MAX_ROWS


def wait_gone(processes: list[Any], seconds: float) -> list[Any]:
    _, alive = psutil.wait_procs(processes, timeout=seconds)
    return alive


def test_the_app_of_a_page_that_went_away_abnormally_ends(campaign: Path, serve: Any) -> None:
    """The client's socket is reset (no websocket close, no FIN): its app ends."""
    server = serve("judge", str(campaign), "--assessor", "alice")
    raw = socket.create_connection(("127.0.0.1", server.port))
    raw.sendall(
        (
            f"GET /ws?width=80&height=24 HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {server.base}\r\n"
            f"Cookie: trec_toolkit_{server.port}={server.token}\r\n\r\n"
        ).encode()
    )
    assert raw.recv(12) == b"HTTP/1.1 101"
    deadline = time.monotonic() + 30
    while not server.apps():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(2)  # the app is up and drawing
    apps = server.apps()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    raw.close()  # an RST: the page is gone without a word
    assert wait_gone(apps, 45) == []


@contextlib.contextmanager
def a_page_open(server: Any) -> Iterator[None]:
    """A client holding the screen's websocket open (in a thread) until the block ends; the app is up."""
    stop = threading.Event()

    async def stay() -> None:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"{server.base}/ws", headers=headers(server)) as ws,
        ):
            while not stop.is_set() and not ws.closed:
                with contextlib.suppress(asyncio.TimeoutError):
                    await ws.receive(timeout=0.2)

    holder = threading.Thread(target=lambda: asyncio.run(stay()), daemon=True)
    holder.start()
    try:
        deadline = time.monotonic() + 30
        while not server.apps():
            assert time.monotonic() < deadline, "no app started"
            time.sleep(0.05)
        yield
    finally:
        stop.set()
        holder.join(10)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_ends_the_server_and_its_apps_while_a_page_is_open(
    campaign: Path, serve: Any, stop: signal.Signals
) -> None:
    server = serve("judge", str(campaign), "--assessor", "alice")
    with a_page_open(server):
        apps = server.apps()
        server.process.send_signal(stop)
        server.process.wait(120)  # the open page does not keep it (each app gets 10 s, then is killed)
        assert wait_gone(apps, 30) == []


def test_an_app_whose_server_was_killed_ends(campaign: Path, serve: Any) -> None:
    """SIGKILL leaves the server no chance to stop its apps: each one sees its input end, and exits."""
    server = serve("judge", str(campaign), "--assessor", "alice")
    with a_page_open(server):
        time.sleep(2)
        apps = server.apps()
        server.process.kill()
        server.process.wait(5)
        alive = wait_gone(apps, 20)
        for app in alive:
            app.kill()
        assert alive == []


class EvilPage(http.server.BaseHTTPRequestHandler):
    """Another origin on the same host: a page whose script tries the served screen's websocket."""

    target = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = f"""<!doctype html><title>pending</title><script>
        const ws = new WebSocket({self.target!r});
        ws.onopen = () => {{ document.title = "opened"; ws.send(JSON.stringify(["stdin", "2"])); }};
        ws.onclose = () => {{ if (document.title !== "opened") document.title = "refused"; }};
        </script>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def evil_site() -> Iterator[Any]:
    handler = type("Handler", (EvilPage,), {})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd, handler
    httpd.shutdown()
    httpd.server_close()


def test_in_chromium_a_page_of_another_origin_cannot_open_the_socket(
    campaign: Path, serve: Any, page: Any, browser: Any, evil_site: Any
) -> None:
    """The assessor has the screen open (so the browser holds its cookie); a page of another origin on the
    same host — which the browser sends that cookie from — tries to open the socket and send a grade."""
    server = serve("judge", str(campaign), "--assessor", "alice")
    page.open(server.url)
    page.wait_for("Item 1 of 5")
    httpd, handler = evil_site
    handler.target = f"ws://127.0.0.1:{server.port}/ws?width=80&height=24"
    evil = browser.new_page()
    try:
        evil.goto(f"http://127.0.0.1:{httpd.server_address[1]}/")
        evil.wait_for_function("document.title !== 'pending'", timeout=20_000)
        assert evil.title() == "refused"
    finally:
        evil.close()
    assert len(server.apps()) == 1  # the assessor's own tab only
    assert grades(campaign) == []
