"""A judging window closed or killed while the campaign is busy loses no decision (the outbox's journal).

Another connection holds the write lock; the assessor grades three documents, which wait in the outbox;
the window goes away without saving them (here: the app is abandoned — it exits without draining, as it does
when a browser tab is closed; tests/tui/test_tmux.py kills a real process with SIGKILL). The next window of
the same assessor shows those decisions at once, resumes after them, and writes each exactly once when the
lock goes.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from tui_helpers import WriteLock, async_test

from toolkit.judging.journal import journal_folder, read_entries
from toolkit.judging.sqlite import files
from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import JudgeApp, judge_app
from toolkit.tui.widgets import DocumentView

SIZE = (110, 36)


def shown(app: JudgeApp) -> str | None:
    return app.query_one(DocumentView).doc_id


async def until(pilot, condition, timeout: float) -> None:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "timed out"
        await pilot.pause(0.05)


def log(path: Path) -> list[tuple[str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.doc_id, e.grade) for e in store.log()]


@pytest.fixture
def short_busy_timeout(monkeypatch) -> None:
    """SQLite gives up on the lock after 1 s instead of 30 s, so that a test need not wait out the real one
    (the writer then retries, as it does after 30 s)."""
    monkeypatch.setattr(files, "BUSY_TIMEOUT_S", 1.0)


@async_test
async def test_decisions_queued_when_the_window_went_away_land_exactly_once_in_the_next(
    campaign: Path, short_busy_timeout: None
) -> None:
    lock = WriteLock(campaign)  # the write lock, as a long pool round or import holds it
    try:
        first = judge_app(campaign, "alice", show_times=False)
        async with first.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: shown(first) == "doc-a", 10)
            for key, next_doc in (("2", "doc-b"), ("s", "doc-c"), ("0", "doc-d")):
                await pilot.press(key)
                await until(pilot, lambda d=next_doc: shown(first) == d, 5)
            # On disk before the screen moved on: a kill now would lose nothing.
            [journal] = list(journal_folder(campaign).iterdir())
            queued = read_entries(iter(journal.read_bytes().splitlines(keepends=True)))
            assert [(e.event.action, e.event.doc_id, e.event.grade) for e in queued] == [
                ("judge", "doc-a", 2),
                ("skip", "doc-b", None),
                ("judge", "doc-c", 0),
            ]
            first.exit()  # gone without saving: no "Saving before closing", nothing drained
        deadline = time.monotonic() + 5
        while first._writer_running:  # its last try fails on the lock, and it stops
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert log(campaign) == []
        assert journal.exists()

        second = judge_app(campaign, "alice", show_times=False)
        assert second.session.adopted == 3
        async with second.run_test(size=SIZE) as pilot:
            # The decisions show at once (not written yet): the window resumes after them.
            await until(pilot, lambda: shown(second) == "doc-d", 10)
            border = str(second.query_one(DocumentView).border_subtitle)
            assert "Item 4 of 5" in border
            await until(pilot, lambda: "3 not saved yet" in second.save_status, 5)
            lock.release()  # the lock goes
            await until(pilot, lambda: not len(second.session.log.outbox), 15)
            await until(pilot, lambda: second.save_status == "", 5)
            await pilot.press("1")
            await until(pilot, lambda: shown(second) == "doc-e", 5)
            await pilot.press("q")
            await until(pilot, lambda: second.return_value is not None, 10)
    finally:
        lock.release()
    assert log(campaign) == [
        ("judge", "doc-a", 2),
        ("skip", "doc-b", None),
        ("judge", "doc-c", 0),
        ("judge", "doc-d", 1),
    ]
    assert not journal_folder(campaign).exists()
    third = judge_app(campaign, "alice", show_times=False)
    try:
        assert third.session.adopted == 0
    finally:
        third.store.close()
