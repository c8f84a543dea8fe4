"""One assessor in two windows: a conditional write reports a conflict instead of overwriting (docs/design.md §8).

Written against the ``CampaignStore`` interface only, so every backend is held to the same rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.store import NO_DECISION, CampaignStore, ConflictError


@pytest.fixture
def path(location: Path | str, make_campaign) -> Path | str:
    return make_campaign(location)  # on each backend


def test_current_decision_carries_its_event_id(path: Path) -> None:
    with CampaignStore.open(path) as store:
        assert store.current_decision("alice", "q1", "d1") is None
        first = store.record("alice", "q1", "d1", grade=1)
        store.add_note("alice", "q1", "d1", "a note is not a decision")
        seen = store.current_decision("alice", "q1", "d1")
        assert seen is not None and (seen.event_id, seen.grade, seen.note) == (
            first,
            1,
            "a note is not a decision",
        )
        skip = store.record("alice", "q1", "d1", action="skip")
        seen = store.current_decision("alice", "q1", "d1")
        assert seen is not None and (seen.event_id, seen.action, seen.grade) == (skip, "skip", None)
        store.undo("alice")
        assert store.current_decision("alice", "q1", "d1").event_id == first  # type: ignore[union-attr]
        assert store.current_decision("bob", "q1", "d1") is None  # never another assessor's


def test_second_window_gets_a_conflict_not_an_overwrite(path: Path) -> None:
    with CampaignStore.open(path) as window_a, CampaignStore.open(path) as window_b:
        seen_a = window_a.current_decision("alice", "q1", "d1")
        seen_b = window_b.current_decision("alice", "q1", "d1")
        assert seen_a is None and seen_b is None
        b_event = window_b.record("alice", "q1", "d1", grade=3, expect_event=NO_DECISION)
        with pytest.raises(ConflictError) as err:
            window_a.record("alice", "q1", "d1", grade=0, expect_event=NO_DECISION)
        assert isinstance(err.value, StoreError)
        now = err.value.current
        assert now is not None and (now.event_id, now.grade) == (b_event, 3)
        assert "alice" in str(err.value) and "(q1, d1)" in str(err.value)
        assert [e.event_id for e in window_a.log()] == [b_event]  # nothing was appended
        # the assessor saw grade 3 and chose to replace it
        replaced = window_a.record("alice", "q1", "d1", grade=0, expect_event=now.event_id)
        assert window_b.current_decision("alice", "q1", "d1").event_id == replaced  # type: ignore[union-attr]
        # window B still believes its own grade is current: its next write conflicts in turn
        with pytest.raises(ConflictError):
            window_b.record("alice", "q1", "d1", action="unrateable", expect_event=b_event)
        assert len(window_b.log()) == 2


def test_expecting_a_decision_that_was_undone_conflicts(path: Path) -> None:
    with CampaignStore.open(path) as store:
        first = store.record("alice", "q1", "d1", grade=2)
        store.undo("alice")
        with pytest.raises(ConflictError) as err:
            store.record("alice", "q1", "d1", grade=1, expect_event=first)
        assert err.value.current is None
        assert store.record("alice", "q1", "d1", grade=1, expect_event=NO_DECISION) > first


def test_a_note_or_another_item_is_no_conflict(path: Path) -> None:
    with CampaignStore.open(path) as store:
        first = store.record("alice", "q1", "d1", grade=2)
        store.add_note("alice", "q1", "d1", "from the other window")
        store.record("alice", "q1", "d2", grade=0)
        store.record("bob", "q1", "d1", grade=3)
        again = store.record("alice", "q1", "d1", grade=1, expect_event=first)
        assert store.current_decision("alice", "q1", "d1").event_id == again  # type: ignore[union-attr]


def test_conditional_undo(path: Path) -> None:
    with CampaignStore.open(path) as store:
        first = store.record("alice", "q1", "d1", grade=2)
        second = store.record("alice", "q1", "d2", grade=1)  # made in the other window
        with pytest.raises(ConflictError) as err:
            store.undo("alice", expect_event=first)
        assert err.value.current is not None and err.value.current.event_id == second
        assert [e.action for e in store.log()] == ["judge", "judge"]
        undone = store.undo("alice", expect_event=second)
        assert undone is not None and undone.doc_id == "d2"
        with pytest.raises(ConflictError):
            store.undo("alice", expect_event=second)  # already undone: d1's decision is the latest now
        store.undo("alice", expect_event=first)
        with pytest.raises(ConflictError) as err:
            store.undo("alice", expect_event=first)
        assert err.value.current is None
        assert store.undo("alice", expect_event=NO_DECISION) is None  # nothing left, as expected


def test_a_bad_expectation_is_checked_before_the_rules(path: Path) -> None:
    with CampaignStore.open(path) as store:
        with pytest.raises(StoreError, match="expect_event must be an event id"):
            store.record("alice", "q1", "d1", grade=1, expect_event=-3)
        assert store.log() == []
