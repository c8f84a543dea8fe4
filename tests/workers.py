"""Waiting for a Textual app's workers in tests (importable from every test folder: tests/ is on sys.path)."""

from __future__ import annotations

from typing import Any


async def wait_workers(app: Any) -> None:
    """Wait until the app's workers are done.

    An exclusive worker (the document prefetch) is cancelled when a newer one replaces it; on a loaded
    machine that happens while we wait, and ``wait_for_complete`` then raises ``WorkerCancelled`` although
    nothing went wrong. Wait again for the workers that are left.
    """
    from textual.worker import WorkerCancelled

    for _ in range(100):
        try:
            await app.workers.wait_for_complete()
            return
        except WorkerCancelled:
            continue
    await app.workers.wait_for_complete()
