"""One assessor in two windows (or two browser tabs: one process each), through the judging screen (docs/design.md §8).

The other window is a second connection to the same campaign file, as another process would be. Nothing
is ever overwritten silently: an item's decision is read again before it is shown, and a write the store
refuses because the item changed meanwhile comes back as a question.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tui_helpers import async_test, build_campaign, settle

from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import JudgeApp, judge_app
from toolkit.tui.screens import ConfirmScreen
from toolkit.tui.widgets import DocumentView

SIZE = (110, 36)


def shown(app: JudgeApp) -> str | None:
    return app.query_one(DocumentView).doc_id


def header(app: JudgeApp) -> str:
    return str(app.query_one("#doc-header").render())


def log(path: Path) -> list[tuple[str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.doc_id, e.grade) for e in store.log()]


@async_test
async def test_a_decision_made_in_another_window_is_shown_and_replaced_only_when_asked(
    campaign: Path,
) -> None:
    app = judge_app(campaign, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app) == "doc-a"
        with CampaignStore.open(campaign) as other_window:
            other_window.record("alice", "t1", "doc-b", grade=1)  # the next item, decided in the other tab
        await pilot.press("2")
        await settle(pilot)
        assert shown(app) == "doc-b"  # this window did not know yet: it read the item again to show it
        assert "Decided in another window:" in header(app) and "grade 1" in header(app)
        await pilot.press("3")
        assert isinstance(app.screen, ConfirmScreen)
        assert "Replace it with grade 3?" in str(app.screen.question)
        await pilot.press("n")  # keep the other window's grade
        await settle(pilot)
        assert shown(app) == "doc-b"
        assert log(campaign) == [("judge", "doc-b", 1), ("judge", "doc-a", 2)]
        await pilot.press("3")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert shown(app) == "doc-c"
    assert log(campaign) == [("judge", "doc-b", 1), ("judge", "doc-a", 2), ("judge", "doc-b", 3)]


@async_test
async def test_a_write_refused_for_a_change_in_the_other_window_comes_back_as_a_question(
    tmp_path: Path,
) -> None:
    path = build_campaign(tmp_path / "two.sqlite")
    app = judge_app(path, "alice", show_times=False)
    committed = threading.Event()

    def other_window() -> None:
        # The other tab records its grade in a transaction that holds the write lock for a moment, so
        # this window's grade, already on its way, reaches the store after it.
        with CampaignStore.open(path) as store, store.transaction():
            store.record("alice", "t1", "doc-a", grade=0)
            started.set()
            time.sleep(1.0)
        committed.set()

    started = threading.Event()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert shown(app) == "doc-a"
        thread = threading.Thread(target=other_window)
        thread.start()
        started.wait(5)
        await pilot.press("2")  # queued: the lock is held, the screen moves on after its grace
        deadline = time.monotonic() + 40
        while not isinstance(app.screen, ConfirmScreen):
            assert time.monotonic() < deadline
            await pilot.pause(0.05)
        thread.join()
        question = str(app.screen.question)
        assert (
            "While your grade 2 for (t1, doc-a) waited to be saved, another window recorded grade 0"
            in question
        )
        assert log(path) == [("judge", "doc-a", 0)]  # refused: nothing overwritten
        await pilot.press("y")
        await settle(pilot)
    assert committed.is_set()
    assert log(path) == [("judge", "doc-a", 0), ("judge", "doc-a", 2)]
