"""Queued writes and two windows of one assessor, on the sessions (no Textual) and a real SQLite store.

A decision is queued and written in order, exactly once, whatever the store answers meanwhile;
one assessor in two windows (or browser tabs: one process each) never overwrites silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolkit.errors import StoreError
from toolkit.judging.adjudication import AdjudicationSession
from toolkit.judging.session import JudgingSession
from toolkit.judging.store import BusyError, CampaignStore, ConflictError


@pytest.fixture
def path(tmp_path: Path, make_campaign) -> Path:
    return make_campaign(tmp_path / "c.sqlite")


def decisions(path: Path, assessor: str = "alice") -> list[tuple[str, str, str, int | None]]:
    with CampaignStore.open(path) as store:
        return [(e.action, e.query_id, e.doc_id, e.grade) for e in store.log() if e.assessor == assessor]


def test_a_second_window_is_refused_and_shown_the_first_windows_decision(path: Path) -> None:
    with CampaignStore.open(path) as one, CampaignStore.open(path) as two:
        window_a, window_b = JudgingSession(one, "alice"), JudgingSession(two, "alice")
        first = window_a.item
        assert first is not None and window_b.item == first
        window_a.grade(2)
        # Window B still shows the item as undecided; its grade must not replace A's without asking.
        with pytest.raises(ConflictError) as refused:
            window_b.grade(0)
        assert refused.value.current is not None and refused.value.current.grade == 2
        assert window_b.item == first  # the cursor stays: the assessor is asked first
        assert window_b.elsewhere(first) is not None and window_b.elsewhere(first).grade == 2  # type: ignore[union-attr]
        assert window_b.decision(first).grade == 2  # type: ignore[union-attr]  # the store is the truth
        assert decisions(path) == [("judge", "q1", "d1", 2)]
        # Asked, the assessor chose to replace it: now the write goes through, on top of A's.
        window_b.grade(0)
        assert window_b.elsewhere(first) is None
        assert decisions(path) == [("judge", "q1", "d1", 2), ("judge", "q1", "d1", 0)]
        # Window A re-reads the item before showing it again, and is told.
        window_a.previous()
        assert window_a.item == first
        version = window_a.log.versions[("q1", "d1")]
        changed = window_a.reconcile(first, one.events(assessor="alice", query_id="q1", doc_id="d1"), version)
        assert changed and window_a.elsewhere(first).grade == 0  # type: ignore[union-attr]
        assert window_a.decision(first).grade == 0  # type: ignore[union-attr]
        # re-reading the same log again is no news
        version = window_a.log.versions[("q1", "d1")]
        assert not window_a.reconcile(
            first, one.events(assessor="alice", query_id="q1", doc_id="d1"), version
        )


def test_a_read_older_than_the_windows_own_write_is_ignored(path: Path) -> None:
    with CampaignStore.open(path) as store:
        session = JudgingSession(store, "alice")
        item = session.item
        assert item is not None
        version = session.log.versions[("q1", "d1")]
        stale_read = store.events(assessor="alice", query_id="q1", doc_id="d1")  # before the grade
        session.grade(3)
        assert not session.reconcile(item, stale_read, version)
        assert session.decision(item).grade == 3  # type: ignore[union-attr]
        assert session.elsewhere(item) is None


def test_undo_in_one_window_does_not_cancel_the_other_windows_later_decision(path: Path) -> None:
    with CampaignStore.open(path) as one, CampaignStore.open(path) as two:
        window_a = JudgingSession(one, "alice")
        window_a.grade(1)  # q1 d1
        window_b = JudgingSession(two, "alice")
        window_b.grade(3)  # B resumes at q1 d2
        with pytest.raises(ConflictError):
            window_a.undo()  # A's latest is q1 d1, but the assessor's latest is now B's q1 d2
        assert decisions(path) == [("judge", "q1", "d1", 1), ("judge", "q1", "d2", 3)]


class Flaky:
    """The real store, but the next ``fail`` writes raise "database is locked" first, as SQLite does when
    another process holds the write lock past the busy timeout; ``commit_then_fail`` commits the write and
    still reports a failure (the case where nobody knows whether it landed)."""

    def __init__(self, store: CampaignStore, fail: int = 0, commit_then_fail: int = 0) -> None:
        self.store, self.fail, self.commit_then_fail, self.tries = store, fail, commit_then_fail, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def _try(self) -> None:
        self.tries += 1
        if self.fail:
            self.fail -= 1
            raise BusyError(f"{self.store.location}: the campaign is busy (database is locked)")

    def record(self, *args: Any, **kwargs: Any) -> int:
        self._try()
        event = self.store.record(*args, **kwargs)
        if self.commit_then_fail:
            self.commit_then_fail -= 1
            raise StoreError(f"{self.store.location}: write failed (disk I/O error)")
        return event

    def undo(self, *args: Any, **kwargs: Any) -> Any:
        self._try()
        return self.store.undo(*args, **kwargs)


def test_queued_decisions_wait_out_a_busy_store_and_land_in_order_exactly_once(path: Path) -> None:
    with CampaignStore.open(path) as store:
        session = JudgingSession(store, "alice", write_through=False)
        session.grade(2)
        session.skip()
        session.unrateable()
        session.undo()  # the unrateable
        session.grade(1)  # the same item again: on top of the undone decision
        assert decisions(path) == []  # nothing written yet: the screen moved on, the writes wait
        assert session.tally().judged == 2 and session.tally().skipped == 1
        flaky = Flaky(store, fail=3)
        outcomes = []
        while len(session.log.outbox):
            outcome = session.log.outbox.flush_one(flaky)  # type: ignore[arg-type]
            assert outcome is not None
            assert session.apply(outcome) is None
            outcomes.append(outcome)
        retried = [o for o in outcomes if not o.saved]
        assert len(retried) == 3 and all(o.busy and "locked" in (o.error or "") for o in retried)
        assert decisions(path) == [
            ("judge", "q1", "d1", 2),
            ("skip", "q1", "d2", None),
            ("unrateable", "401", "d3", None),
            ("undo", "401", "d3", None),
            ("judge", "401", "d3", 1),
        ]
        # the window's copy now carries the committed ids
        assert {j.event_id for j in session.decisions.values()} == {1, 2, 5}


def test_a_write_that_committed_but_reported_failure_is_not_written_twice(path: Path) -> None:
    with CampaignStore.open(path) as store:
        session = JudgingSession(store, "alice", write_through=False)
        session.grade(2)
        flaky = Flaky(store, commit_then_fail=1)
        first = session.log.outbox.flush_one(flaky)  # type: ignore[arg-type]
        assert first is not None and not first.saved and not first.conflict
        second = session.log.outbox.flush_one(flaky)  # type: ignore[arg-type]
        assert second is not None and second.saved and second.event_id == 1
        session.apply(second)
    assert decisions(path) == [("judge", "q1", "d1", 2)]


def test_a_queued_write_refused_for_a_conflict_comes_back_to_ask(path: Path) -> None:
    with CampaignStore.open(path) as store, CampaignStore.open(path) as other:
        session = JudgingSession(store, "alice", write_through=False)
        item = session.item
        session.grade(2)
        other.record("alice", "q1", "d1", grade=0)  # another tab, while the grade was still queued
        outcome = session.log.outbox.flush_one(store)
        assert outcome is not None and outcome.conflict
        conflict = session.apply(outcome)
        assert conflict is not None and conflict.item == item
        assert (conflict.action, conflict.grade) == ("judge", 2)
        assert conflict.theirs is not None and conflict.theirs.grade == 0
        assert session.decision(item).grade == 0  # type: ignore[arg-type,union-attr]
        assert len(session.log.outbox) == 0
        # asked, the assessor keeps their own: recorded on top of the other tab's, knowingly
        session.decide_on(conflict.item, "judge", 2)
        session.log.save()
    assert decisions(path) == [("judge", "q1", "d1", 0), ("judge", "q1", "d1", 2)]


def test_adjudications_are_queued_and_undone_conditionally(path: Path) -> None:
    with CampaignStore.open(path) as store:
        for assessor, grades in (("alice", [3, 1]), ("bob", [0, 2])):
            for (q, d), g in zip([("q1", "d1"), ("q1", "d2")], grades, strict=True):
                store.record(assessor, q, d, grade=g)
        session = AdjudicationSession(store, "judy", write_through=False)
        session.grade(2)
        assert session.done_count == 1 and store.adjudications() == {}
        session.log.save()
        assert store.adjudications()[("q1", "d1")].grade == 2
        session.undo()
        session.log.save()
        assert store.adjudications() == {}
        assert session.item is not None and session.item.doc_id == "d1"
