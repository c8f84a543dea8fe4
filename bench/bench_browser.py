"""Benchmark: key press → next document displayed, in a browser, through ``judge --serve``, 10,000-item pool.

Builds the same campaign as ``bench_judge.py`` (100 topics × 100 documents of ~2 KB, one assessor), serves it
with ``trec-toolkit judge … --serve`` on localhost, and drives Debian's headless chromium with Playwright.
A script in the page timestamps (``performance.now()``) the key's ``keydown`` and every websocket frame the
page receives; a key's time runs from its ``keydown`` to the first animation frame after the frame that
brings the next document's header (``Symbol12 · doc-00012``, escape sequences stripped) — by then xterm.js
has the text and paints it. Every measured key includes the app writing the judgment durably (the journal
fsync, then SQLite with ``synchronous=FULL``) before it shows the next document.

    .venv/bin/python bench/bench_browser.py              # 300 keys, prints median / p95 / max
    .venv/bin/python bench/bench_browser.py --keys 1000 --items 10000

Not a timed test: run it by hand; docs/benchmarks.md quotes its output.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_judge import build

CHROMIUM = "/usr/bin/chromium"
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

#: Timestamps in the page: the key, and the frame that brings ``window.__target`` (then the next paint).
PAGE_SCRIPT = r"""
(() => {
  const Native = window.WebSocket;
  const escapes = /\x1b(\[[0-9;?<=>!$]*[ -\/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])/g;
  window.__text = "";
  window.__target = null;
  window.__keyAt = null;
  window.__paintAt = null;
  document.addEventListener("keydown", () => { window.__keyAt = performance.now(); }, true);
  window.WebSocket = function (url, protocols) {
    const socket = new Native(url, protocols);
    const decoder = new TextDecoder();
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") return;
      const at = performance.now();
      window.__text = (window.__text + decoder.decode(new Uint8Array(event.data), {stream: true}))
        .replace(escapes, "").slice(-200000);
      const target = window.__target;
      if (target !== null && window.__paintAt === null && window.__text.includes(target)) {
        window.__target = null;
        window.__arriveAt = at;
        requestAnimationFrame(() => { window.__paintAt = performance.now(); });
      }
    });
    return socket;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def header(i: int) -> str:
    return f"Symbol{i} · doc-{i:05d}"


def measure(url: str, keys: int) -> tuple[list[float], float]:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1400, "height": 900},
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.add_init_script(PAGE_SCRIPT)
        started = time.perf_counter()
        page.goto(url)
        page.evaluate(f"window.__target = {header(0)!r}")
        page.wait_for_function("window.__paintAt !== null", timeout=60_000)
        first = time.perf_counter() - started
        page.focus("textarea.xterm-helper-textarea")
        page.wait_for_timeout(500)  # let the app prefetch the next documents, as a reader's first look would
        latencies = []
        for k in range(keys):
            page.evaluate(
                f"window.__target = {header(k + 1)!r}; window.__paintAt = null; window.__keyAt = null; window.__text = ''"
            )
            page.keyboard.press(str(k % 4))
            page.wait_for_function("window.__paintAt !== null", timeout=30_000, polling="raf")
            latencies.append(page.evaluate("window.__paintAt - window.__keyAt"))
        context.close()
    return latencies, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--keys", type=int, default=300)
    args = parser.parse_args(argv)
    script = Path(sys.executable).parent / "trec-toolkit"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        t = time.perf_counter()
        build(path, args.items)
        print(f"built a {args.items}-item campaign in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        port = free_port()
        log = Path(tmp) / "server.log"
        server = subprocess.Popen(
            [
                str(script),
                "judge",
                str(path),
                "--assessor",
                "alice",
                "--hide-times",
                "--serve",
                "--port",
                str(port),
            ],
            cwd=tmp,
            stdout=log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 30
            url = None
            while url is None or socket.socket().connect_ex(("127.0.0.1", port)) != 0:
                found = re.search(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+", log.read_text())
                url = found.group(0) if found else None  # the printed URL carries this start's secret
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.05)
            latencies, first = measure(url, args.keys)
        finally:
            server.send_signal(signal.SIGTERM)  # ends the server and every app it started
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"pool: {args.items} items; page load to first document: {first * 1000:.0f} ms")
    print(
        f"key → next document painted in the browser over {len(latencies)} keys: median "
        f"{statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
    )
    print(
        f"load average while measuring: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
