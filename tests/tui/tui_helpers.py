"""Campaigns for the TUI tests, built through the campaign store's own API (no fakes), and async helpers."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import html
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from toolkit.judging.records import CampaignTopic, Document, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES

TOPICS = [
    CampaignTopic(
        "t1",
        "hashable protocol",
        "How do I make a type hashable?",
        "Pages that explain the Hashable protocol are relevant.",
        "prose",
    ),
    CampaignTopic("t2", "URLSession", "The URLSession class.", "The class page is the answer.", "canonical"),
]

DOCS = {
    "doc-a": (
        "Hashable",
        "# Hashable\n\nA type that can be hashed into a `Hasher` to produce an integer hash "
        "value.\n\n- Conform with `hash(into:)`\n- See [Equatable](https://example.org/eq)\n",
    ),
    "doc-b": ("Hasher", "The universal hash function used by Set and Dictionary. Hashable types feed it."),
    "doc-c": ("Set", "An unordered collection of unique elements.\n\nElements must be Hashable."),
    "doc-d": ("URLSession", "An object that coordinates a group of related network data transfer tasks."),
    "doc-e": ("URLRequest", "A URL load request that is independent of protocol or URL scheme."),
}

#: alice's queue, in presentation order (t1 docs then t2 docs, as `assign` keeps a topic together).
QUEUE = [("t1", "doc-a"), ("t1", "doc-b"), ("t1", "doc-c"), ("t2", "doc-d"), ("t2", "doc-e")]


def snapshot(doc_id: str, title: str, text: str) -> Document:
    return Document(doc_id, title, text, hashlib.sha256(text.encode()).hexdigest())


def build_campaign(
    path: Path,
    queue: list[tuple[str, str]] = QUEUE,
    *,
    assessors: tuple[str, ...] = ("alice",),
    docs: dict[str, tuple[str, str]] | None = None,
    topics: list[CampaignTopic] | None = None,
    grades: dict[int, str] | None = None,
) -> Path:
    docs = DOCS if docs is None else docs
    with CampaignStore.open(path, create=True) as store:
        store.set_topics(topics or TOPICS, grades or DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["bm25", "bm25f"],
            provenance={item: [("bm25", i + 1)] for i, item in enumerate(queue)},
            queued=queue,
            stale=[],
            snapshots=[snapshot(d, *docs[d]) for d in dict.fromkeys(d for _, d in queue)],
            skipped=0,
        )
        store.add_assignments(Item(a, q, d, position=i) for a in assessors for i, (q, d) in enumerate(queue))
    return path


def async_test(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test with asyncio.run (no pytest-asyncio needed); fixtures still resolve."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return run


async def settle(pilot: Pilot) -> None:
    """Wait until document workers are done and the screen has refreshed."""
    from workers import wait_workers

    await wait_workers(pilot.app)
    await pilot.pause()


async def steady(pilot: Pilot) -> None:
    """``settle``, then wait until two screenshots in a row are the same (at most a second).

    Why: for a snapshot, a settled app is not enough. A table whose rows came from a worker measures its
    columns when it is next idle and is drawn again after that; a screenshot can fall in between. (A header
    that stayed narrow for good was Textual's cache, not timing: ``toolkit.tui.widgets.ReportTable``.)"""
    await settle(pilot)
    previous = None
    for _ in range(20):
        shot = pilot.app.export_screenshot()
        if shot == previous:
            return
        previous = shot
        await pilot.pause(0.05)


_SVG_TEXT = re.compile(
    r'<text [^>]*x="([\d.]+)"[^>]*textLength="([\d.]+)"[^>]*clip-path="url\(#terminal-\d+-line-(\d+)\)">([^<]*)</text>'
)


def screen_lines(app: App[Any]) -> list[str]:
    """The screen as lines of text, read from Textual's public screenshot (SVG: one <text> per segment, at
    its x; blank cells are not drawn, so each segment is put back at its column)."""
    lines: dict[int, dict[int, str]] = {}
    cell = None
    for x, length, number, text in _SVG_TEXT.findall(app.export_screenshot()):
        chars = html.unescape(text).replace("\xa0", " ")
        if cell is None and chars:
            cell = float(length) / len(chars)
        lines.setdefault(int(number), {})[round(float(x) / (cell or 1))] = chars
    out = []
    for n in sorted(lines):
        row: list[str] = []
        for column, chars in sorted(lines[n].items()):
            row.extend(" " * (column - len(row)))
            row[column : column + len(chars)] = chars
        out.append("".join(row).rstrip())
    return out


def screen_text(app: App[Any]) -> str:
    return "\n".join(screen_lines(app))


class WriteLock:
    """Hold a campaign's write lock from a thread, as a long pool round or import holds it, until ``release``.

    Through the store itself (not a raw ``sqlite3`` connection): a raw connection would not be known to the
    store, and the store's look at the header when this process opens the campaign again would drop its
    locks (POSIX closes every lock of a process on a file with any of its descriptors).
    """

    def __init__(self, path: Path) -> None:
        import threading

        self._release = threading.Event()
        held = threading.Event()

        def hold() -> None:
            with CampaignStore.open(path) as store, store.transaction():
                held.set()
                self._release.wait()

        self._thread = threading.Thread(target=hold, daemon=True)
        self._thread.start()
        held.wait(10)

    def release(self) -> None:
        self._release.set()
        self._thread.join(10)


#: tmux, for the tests that run the app in a real terminal (.ci/run installs it).
TMUX = shutil.which("tmux")


class Terminal:
    """One tmux server on a private socket, running one command in a 110×36 window."""

    def __init__(self, workdir: Path) -> None:
        self.socket = f"trec-toolkit-test-{uuid.uuid4().hex[:8]}"
        # The size from the first frame on (no 80×24 frame before a resize), and no status line.
        self.config = workdir / "tmux.conf"
        # set-clipboard on: an OSC 52 sequence that reached tmux would land in its paste buffers.
        self.config.write_text("set -g default-size 110x36\nset -g status off\nset -g set-clipboard on\n")

    def tmux(self, *args: str) -> str:
        # COLUMNS/LINES (pytest may set them) would override the pane's real size in the app.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        done = subprocess.run(
            [str(TMUX), "-L", self.socket, "-f", str(self.config), *args],
            capture_output=True,
            text=True,
            timeout=10,
            env=env,
        )
        return done.stdout

    def start(self, argv: list[str], cwd: Path) -> None:
        command = shlex.join(argv)
        self.tmux(
            "new-session", "-d", "-s", "judge", "-x", "110", "-y", "36", "-c", str(cwd), f"exec {command}"
        )

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "judge")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never appeared on screen; last screen:\n{self.screen()}")

    def title(self) -> str:
        return self.tmux("display-message", "-p", "-t", "judge", "#{pane_title}")

    def buffers(self) -> str:
        return self.tmux("list-buffers")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "judge", *keys)

    def pid(self) -> int:
        return int(self.tmux("list-panes", "-t", "judge", "-F", "#{pane_pid}").split()[0])

    def alive(self) -> bool:
        return "judge" in self.tmux("list-sessions", "-F", "#{session_name}")

    def close(self) -> None:
        self.tmux("kill-server")
