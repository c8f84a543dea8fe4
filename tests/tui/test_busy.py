"""The judging screen against a busy campaign (docs/design.md §8): another connection holds the write lock
for longer than SQLite's busy timeout while the assessor keeps grading.

The screen must never freeze (every key is handled and the next document shows while the lock is still
held: a screen that waited for the write would not move until the lock goes), must say that it is saving,
must not close while a decision is unsaved, and after the lock is released every decision must be in the
store exactly once, in the order given. The busy timeout (30 s in use) is made 1 s here, and the lock is
released once the screen has shown all that, so the test waits seconds, not a minute. How fast a key is
handled is measured by bench/bench_judge.py, not here: the waits below are liveness bounds, generous for a
loaded machine.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from tui_helpers import async_test

from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import JudgeApp, judge_app
from toolkit.tui.screens import SavingScreen
from toolkit.tui.widgets import DocumentView

SIZE = (110, 36)
BUSY_TIMEOUT_S = 1.0  # the store's wait for a lock before it reports busy (toolkit.judging.sqlite.files)
LIVENESS_S = 60.0  # the longest a step may take before the test calls the screen stuck (a loaded machine)


def shown(app: JudgeApp) -> str | None:
    return app.query_one(DocumentView).doc_id


async def until(pilot, condition, timeout: float) -> float:
    """Pause the test (never the app) until ``condition()``; the seconds it took."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, "timed out"
        await pilot.pause(0.05)
    return time.monotonic() - start


def log(path: Path) -> list[tuple[str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.doc_id, e.grade) for e in store.log()]


@async_test
async def test_a_busy_campaign_never_freezes_the_screen_nor_loses_a_grade(
    campaign: Path, monkeypatch
) -> None:
    from toolkit.judging.sqlite import files

    monkeypatch.setattr(files, "BUSY_TIMEOUT_S", BUSY_TIMEOUT_S)
    holder = sqlite3.connect(campaign, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, as a long pool round or import holds it
    held_since = time.monotonic()
    try:
        app = judge_app(campaign, "alice", show_times=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: shown(app) == "doc-a", LIVENESS_S)
            for key, next_doc in (("2", "doc-b"), ("s", "doc-c"), ("0", "doc-d"), ("x", "doc-e")):
                await pilot.press(key)
                # never frozen: the next document shows while the lock is held and nothing is written
                await until(pilot, lambda d=next_doc: shown(app) == d, LIVENESS_S)
                assert holder.in_transaction and log(campaign) == []
            # Scrolling and moving around still work while nothing can be written.
            await pilot.press("p")
            await until(pilot, lambda: shown(app) == "doc-d", LIVENESS_S)
            await pilot.press("n")
            await until(pilot, lambda: shown(app) == "doc-e", LIVENESS_S)
            await until(pilot, lambda: "saving… (campaign busy)" in app.save_status, LIVENESS_S)
            assert "4 not saved yet" in app.save_status
            border = str(app.query_one(DocumentView).border_subtitle)
            assert "Item 5 of 5" in border and "saving… (campaign busy)" in border
            assert log(campaign) == []  # still nothing: the lock is held
            # Quitting waits for the decisions instead of dropping them.
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, SavingScreen), LIVENESS_S)
            assert app.is_running
            # Held past the busy timeout more than once: the writer has given up and tried again.
            await pilot.pause(max(0.0, held_since + 2.5 * BUSY_TIMEOUT_S - time.monotonic()))
            assert app.is_running and log(campaign) == []
            holder.execute("COMMIT")
            # The lock goes; the writer's wait (the busy timeout, then a retry) ends, and so does the app.
            await until(pilot, lambda: app.return_value is not None, LIVENESS_S)
    finally:
        if holder.in_transaction:
            holder.execute("COMMIT")
        holder.close()
    assert log(campaign) == [
        ("judge", "doc-a", 2),
        ("skip", "doc-b", None),
        ("judge", "doc-c", 0),
        ("unrateable", "doc-d", None),
    ]
    assert app.return_value is not None and app.return_value.splitlines()[1:5] == [
        "Judged        2",
        "Unrateable    1",
        "Skipped       1  (they come back until decided)",
        "Left          2  of 5",
    ]


@async_test
async def test_leaving_a_campaign_that_cannot_be_written_keeps_the_decisions_in_a_file(
    campaign: Path, monkeypatch
) -> None:
    """The campaign refuses every write (say, it became read-only): the assessor can still leave, and the
    unsaved decisions go to a judgments file that `judgments import` adds later."""
    from typing import Any

    from click.testing import CliRunner

    import toolkit.tui.writing as app_module
    from toolkit.cli import main
    from toolkit.errors import StoreError

    class Refusing:
        def __init__(self, store: CampaignStore) -> None:
            self.store = store

        def __getattr__(self, name: str) -> Any:
            return getattr(self.store, name)

        def record(self, *args: Any, **kwargs: Any) -> Any:
            raise StoreError(f"{self.store.location}: the campaign is read-only here; nothing was written")

        undo = add_note = record

    class Opener:
        @staticmethod
        def open(path: Any, **kwargs: Any) -> Any:
            return Refusing(CampaignStore.open(path, **kwargs))

    app = judge_app(campaign, "alice", show_times=False)
    monkeypatch.setattr(app_module, "CampaignStore", Opener)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: shown(app) == "doc-a", LIVENESS_S)
        await pilot.press("3", "x")
        await until(pilot, lambda: "read-only" in app.save_status, LIVENESS_S)
        assert "saving… (" in app.save_status and "retrying" in app.save_status
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, SavingScreen), LIVENESS_S)
        await pilot.press("ctrl+q")
        await until(pilot, lambda: app.return_value is not None, LIVENESS_S)
    assert log(campaign) == []
    files = sorted(campaign.parent.glob("unsaved-alice-*.jsonl"))
    assert len(files) == 1
    assert f"your decisions on these documents are in {files[0]}" in (app.return_value or "")
    result = CliRunner().invoke(main, ["judgments", "import", str(campaign), str(files[0])])
    assert result.exit_code == 0, result.output
    assert log(campaign) == [("judge", "doc-a", 3), ("unrateable", "doc-b", None)]
    # The journal kept them too, and says so: the next window replays them, finds them in force (imported),
    # and writes nothing twice.
    assert "saved the next time you run `trec-toolkit judge" in (app.return_value or "")
    monkeypatch.undo()  # the campaign takes writes again
    deadline = time.monotonic() + LIVENESS_S
    while app._writer_running:  # the closed app's writer stops after its current try
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    again = judge_app(campaign, "alice", show_times=False)
    assert again.session.adopted == 2
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: not len(again.session.log.outbox), LIVENESS_S)
        await pilot.press("q")
    assert log(campaign) == [("judge", "doc-a", 3), ("unrateable", "doc-b", None)]
