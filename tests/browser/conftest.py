"""The served screens in a real browser: Debian's chromium, headless, driven by Playwright.

Playwright's own browser download cannot work offline, so it drives the system's ``/usr/bin/chromium``
(``.ci/run`` installs it). What the browser shows is read from what it receives: every frame on the
page's websocket is fed to a terminal emulator (pyte) of the page's size — the same bytes xterm.js draws on
its canvas, which keeps no text in the page.

Without chromium (or Playwright) these tests skip with one line saying so; under ``CI=true`` they fail.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
#: Headless, and nothing that reaches beyond this machine (no updates, no sync, no QUIC probes).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCRIPT = Path(sys.executable).parent / "trec-toolkit"


def unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.access(CHROMIUM, os.X_OK):
        return f"chromium is not installed at {CHROMIUM} (.ci/run installs it: apt-get install chromium)"
    try:
        import playwright  # noqa: F401
        import pyte  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[test]')"
    return None


def need_browser() -> None:
    reason = unavailable()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium per test module (with a fresh profile), shared by its tests."""
    need_browser()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="trec-toolkit-chromium-") as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1200, "height": 760},
        )
        try:
            yield context
        finally:
            context.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``trec-toolkit … --serve`` and the URL it printed (with this start's secret).

    ``stop`` ends it as a user or a service manager would, with SIGTERM, and then checks that no process it
    started survives: a server that ignores SIGTERM, or leaves an app behind, fails the test (it used to be
    stopped with SIGKILL, which hid both).
    """

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.port = free_port()
        self.log = cwd / f"server-{self.port}.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [str(SCRIPT), *args, "--serve", "--port", str(self.port)],
                cwd=cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+", self.log.read_text())
            if found:
                self.url = found.group(0)
                self.token = self.url.rsplit("=", 1)[1]
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start:\n{self.log.read_text()}")
            time.sleep(0.05)
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not listen:\n{self.log.read_text()}")
            time.sleep(0.05)

    def apps(self) -> list[Any]:
        """The processes this server started that are still running (its children and theirs)."""
        import psutil

        try:
            return [c for c in psutil.Process(self.process.pid).children(recursive=True) if c.is_running()]
        except psutil.NoSuchProcess:
            return []

    def stop(self) -> None:
        import psutil

        if self.process.poll() is not None:
            return
        started = self.apps()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            for app in started:
                with contextlib.suppress(psutil.NoSuchProcess):
                    app.kill()
            raise AssertionError("the server did not end on SIGTERM within 30 s") from None
        _, alive = psutil.wait_procs(started, timeout=5)
        for app in alive:
            with contextlib.suppress(psutil.NoSuchProcess):
                app.kill()
        assert not alive, f"the server ended on SIGTERM but left {[p.pid for p in alive]} running"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Any]:
    """Start ``trec-toolkit ARGS --serve`` on a free port; every server started is stopped at the end."""
    servers: list[Server] = []

    def start(*args: str, cwd: Path = tmp_path) -> Server:
        server = Server(list(args), cwd)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


class BrowserScreen:
    """A page of the served screen, and the terminal screen it receives (rebuilt on every connection)."""

    def __init__(self, context: Any) -> None:
        import pyte

        self.page = context.new_page()
        self._pyte = pyte
        self.screen: Any = None
        self.connections = 0
        self.closed = False
        self.page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        query = parse_qs(urlparse(ws.url).query)
        screen = self._pyte.Screen(int(query["width"][0]), int(query["height"][0]))
        stream = self._pyte.ByteStream(screen)
        self.screen, self.closed = screen, False
        self.connections += 1

        def received(payload: bytes | str) -> None:
            if isinstance(payload, bytes):
                stream.feed(payload)

        def sent(payload: bytes | str) -> None:
            if isinstance(payload, str) and payload.startswith('["resize"'):
                import json

                size = json.loads(payload)[1]
                screen.resize(size["height"], size["width"])

        def close(_: Any) -> None:
            self.closed = True

        ws.on("framereceived", received)
        ws.on("framesent", sent)
        ws.on("close", close)

    def open(self, url: str) -> None:
        self.page.goto(url)

    def text(self) -> str:
        return "" if self.screen is None else "\n".join(self.screen.display)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.text()
            if text in screen:
                return screen
            self.page.wait_for_timeout(25)  # lets Playwright deliver the frames meanwhile
        raise AssertionError(f"{text!r} never appeared in the browser; last screen:\n{self.text()}")

    def wait_until(self, condition: Any, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, f"timed out; last screen:\n{self.text()}"
            self.page.wait_for_timeout(25)

    def press(self, *keys: str) -> None:
        self.page.focus(
            "textarea.xterm-helper-textarea"
        )  # the terminal's input (no click: the app sees clicks)
        for key in keys:
            self.page.keyboard.press(key)

    def reload(self) -> None:
        before = self.connections
        self.screen = None
        self.page.reload()
        self.wait_until(lambda: self.connections > before)

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def page(browser: Any) -> Iterator[BrowserScreen]:
    screen = BrowserScreen(browser)
    yield screen
    screen.close()
