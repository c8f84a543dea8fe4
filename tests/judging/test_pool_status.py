"""The pool against the assignments (``pool_status``): what a new round leaves for nobody to judge."""

from __future__ import annotations

from pathlib import Path

from toolkit.judging.progress import pool_status, progress_report
from toolkit.judging.records import Item
from toolkit.judging.store import CampaignStore
from toolkit.pooling.docsource import make_document


def test_a_new_round_nobody_was_given_is_counted(tmp_path: Path, make_campaign) -> None:
    # conftest's campaign: 4 pool items in round 1, every one assigned to alice and bob
    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite")) as store:
        status = pool_status(store)
        assert (status.round, status.pooled, status.new_round, status.unassigned) == (1, 4, 4, 0)
        store.add_round(
            strategy="depth",
            depth=20,
            budget=None,
            runs=["runC"],
            provenance={("q1", "d9"): [("runC", 1)], ("401", "d8"): [("runC", 2)]},
            queued=[("q1", "d9"), ("401", "d8")],
            stale=[],
            snapshots=[make_document("d9", "N", "n"), make_document("d8", "M", "m")],
            skipped=0,
        )
        status = pool_status(store)
        assert (status.round, status.pooled, status.new_round) == (2, 6, 2)
        assert (status.unassigned, status.new_round_unassigned) == (2, 2)
        assert status.new_per_assessor == {"alice": 0, "bob": 0}
        store.add_assignments([Item("alice", "q1", "d9", 10)])
        status = progress_report(store).pool
        assert status is not None
        assert (status.unassigned, status.new_round_unassigned) == (1, 1)
        assert status.new_per_assessor == {"alice": 1, "bob": 0}


def test_a_round_that_queued_nothing_is_the_latest_with_no_new_items(tmp_path: Path, make_campaign) -> None:
    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite")) as store:
        store.add_round(
            strategy="depth",
            depth=1,
            budget=None,
            runs=["runA"],
            provenance={},
            queued=[],
            stale=[],
            snapshots=[],
            skipped=4,
        )
        status = pool_status(store)
        assert (status.round, status.new_round, status.unassigned) == (2, 0, 0)
