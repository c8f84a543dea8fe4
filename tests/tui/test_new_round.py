"""A judge window left open picks up the items a new pool round assigned to its assessor."""

from __future__ import annotations

from pathlib import Path

from tui_helpers import QUEUE, async_test, build_campaign, settle, snapshot

from toolkit.judging.assign import assign, assign_new_items
from toolkit.judging.store import CampaignStore
from toolkit.tui.judge import judge_app
from toolkit.tui.screens import DoneScreen
from toolkit.tui.widgets import DocumentView, ProgressPanel

SIZE = (110, 36)


def new_round(path: Path, items: list[tuple[str, str]]) -> None:
    """What `pool` does on an assigned campaign, through a second connection: a round, then its assignment."""
    with CampaignStore.open(path) as store, store.transaction():
        store.add_round(
            strategy="depth",
            depth=20,
            budget=None,
            runs=["bm25"],
            provenance={item: [("bm25", 11)] for item in items},
            queued=items,
            stale=[],
            snapshots=[snapshot(d, f"Title {d}", f"text of {d}") for _, d in items],
            skipped=0,
        )
        assign_new_items(store)


@async_test
async def test_the_done_screen_gives_way_to_a_new_rounds_items(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "c.sqlite", [])
    with CampaignStore.open(path) as store:
        new_round_items = QUEUE[:1]
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["bm25"],
            provenance={new_round_items[0]: [("bm25", 1)]},
            queued=new_round_items,
            stale=[],
            snapshots=[snapshot("doc-a", "Hashable", "text")],
            skipped=0,
        )
        assign(store, ["alice"], seed=1)  # records the policy a later round follows
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        new_round(path, [("t1", "doc-z"), ("t2", "doc-y")])
        app.poll_queue()  # what the timer does every few seconds
        await settle(pilot)
        assert not isinstance(app.screen, DoneScreen)
        assert app.query_one(DocumentView).doc_id in ("doc-z", "doc-y")
        panel = str(app.query_one(ProgressPanel).render())
        assert "Item 2 of 3" in panel and panel.endswith("Pool        +2 new for you")


@async_test
async def test_the_window_says_how_many_items_nobody_was_given(tmp_path: Path) -> None:
    path = build_campaign(tmp_path / "c.sqlite", QUEUE[:3])
    with CampaignStore.open(path) as store:  # a round nobody assigned: no policy was recorded
        store.add_round(
            strategy="depth",
            depth=20,
            budget=None,
            runs=["bm25"],
            provenance={item: [("bm25", 3)] for item in QUEUE[3:]},
            queued=QUEUE[3:],
            stale=[],
            snapshots=[snapshot(d, f"Title {d}", f"text of {d}") for _, d in QUEUE[3:]],
            skipped=0,
        )
    app = judge_app(path, "alice", show_times=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert str(app.query_one(ProgressPanel).render()).endswith("Pool        2 unassigned")
