"""The queue's two rules, written once: an item's status (stale items come back) and the resume order."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.judging.queue import item_status, next_index, next_item, queue_statuses, stale_items
from toolkit.judging.records import Item, Judgment
from toolkit.judging.store import CampaignStore


def judgment(action: str, content_hash: str | None = "h1") -> Judgment:
    grade = 2 if action == "judge" else None
    return Judgment("a", "q", "d", grade, action, None, "t", None, 1, content_hash)


ITEM = Item("a", "q", "d", 0)
STALE = Item("a", "q", "d", 0, stale=True)


@pytest.mark.parametrize(
    ("item", "current", "hashes", "expected"),
    [
        (ITEM, None, {}, "todo"),
        (ITEM, judgment("judge"), {"d": "h2"}, "judge"),  # not stale: the text change is not looked at
        (STALE, judgment("judge"), {"d": "h2"}, "todo"),  # judged on the old text
        (STALE, judgment("unrateable"), {"d": "h2"}, "todo"),
        (STALE, judgment("judge"), {"d": "h1"}, "judge"),  # judged again on the new text
        (STALE, judgment("skip"), {"d": "h2"}, "skip"),  # a skip is tied to no text
    ],
)
def test_item_status(item: Item, current: Judgment | None, hashes: dict[str, str], expected: str) -> None:
    assert item_status(item, current, hashes) == expected


@pytest.mark.parametrize(
    ("statuses", "after", "expected"),
    [
        (["judge", "todo", "skip", "todo"], -1, 1),  # first undecided
        (["judge", "todo", "skip", "todo"], 1, 3),  # the next undecided after the cursor
        (["todo", "judge", "skip", "judge"], 2, 0),  # wraps round
        (["judge", "skip", "unrateable", "skip"], 1, 3),  # no undecided left: the next skipped one
        (["judge", "skip", "unrateable", "skip"], 3, 1),  # … wrapping too
        (["judge", "unrateable"], -1, None),  # done
        ([], -1, None),
    ],
)
def test_resume_order(statuses: list[str], after: int, expected: int | None) -> None:
    assert next_index(len(statuses), statuses.__getitem__, after) == expected


def test_next_index_asks_lazily() -> None:
    asked: list[int] = []

    def status(i: int) -> str:
        asked.append(i)
        return "todo"

    assert next_index(10_000, status, 41) == 42 and asked == [42]


def test_store_views_use_the_rules(location: Path | str, make_campaign) -> None:
    from toolkit.pooling.docsource import make_document

    with CampaignStore.open(make_campaign(location)) as store:
        store.record("alice", "q1", "d1", grade=2)
        store.record("alice", "q1", "d2", action="skip")
        assert [s for _, s in queue_statuses(store, "alice")] == ["judge", "skip", "todo", "todo"]
        # d1's text changes in round 2 and q1/d1 is re-queued stale: alice's grade was on the old text
        store.add_round(
            strategy="depth", depth=10, budget=None, runs=["runA"], provenance={("q1", "d1"): [("runA", 1)]},
            queued=[("q1", "d1")], stale=[("q1", "d1")], snapshots=[make_document("d1", "Apple", "new text")],
            skipped=0,
        )  # fmt: skip
        assert [s for _, s in queue_statuses(store, "alice")] == ["todo", "skip", "todo", "todo"]
        assert next_item(store, "alice") == store.queue("alice")[0]
        assert [(i.assessor, i.doc_id) for i in stale_items(store)] == [("alice", "d1"), ("bob", "d1")]
