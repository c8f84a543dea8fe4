"""The sessions behind the judging and adjudication screens, driven without Textual, read back from the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.adjudication import AdjudicationSession
from toolkit.judging.session import JudgingSession
from toolkit.judging.store import CampaignStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(location: Path | str, make_campaign):
    with CampaignStore.open(make_campaign(location)) as s:
        yield s


def test_judging_writes_first_then_follows_the_resume_order(store: CampaignStore) -> None:
    clock = Clock()
    session = JudgingSession(store, "alice", clock=clock)
    assert [i.doc_id for i in session.queue] == ["d1", "d2", "d3", "d1"]
    clock.now = 1.5
    session.grade(2)
    assert store.current("alice", "q1", "d1").duration_ms == 1500  # type: ignore[union-attr]
    session.skip()
    session.unrateable()
    assert session.cursor == 3  # the last undecided item
    session.grade(0)
    assert session.cursor == 1  # only the skipped one is left
    tally = session.tally()
    assert (tally.assigned, tally.judged, tally.skipped, tally.unrateable, tally.remaining) == (4, 2, 1, 1, 1)
    session.grade(3)
    assert session.done and session.item is None


def test_resuming_a_session_and_undo(tmp_path: Path, store: CampaignStore) -> None:
    store.record("alice", "q1", "d1", grade=1)
    store.record("alice", "q1", "d2", action="skip")
    session = JudgingSession(store, "alice")
    assert session.cursor == 2  # first undecided; the skip comes back last
    assert session.undo() is not None and session.cursor == 1  # the skip was the latest decision
    assert store.current("alice", "q1", "d2") is None
    session.note("first thought")
    assert session.note_text() == "first thought"  # a note on an undecided item is kept and shown
    session.grade(2)
    assert store.current("alice", "q1", "d2").note == "first thought"  # type: ignore[union-attr]


def test_an_assessor_without_items_is_told_how_to_get_some(store: CampaignStore) -> None:
    with pytest.raises(
        StoreError, match="assessor 'zed' has no items in this campaign \\(assessors: alice, bob\\)"
    ):
        JudgingSession(store, "zed")


def test_adjudication_walks_widest_first_and_keeps_its_note(store: CampaignStore) -> None:
    for assessor, grades in (("alice", [3, 1, 0, 2]), ("bob", [0, 2, 0, 0])):
        for (q, d), g in zip([("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")], grades, strict=True):
            store.record(assessor, q, d, grade=g)
    session = AdjudicationSession(store, "judy")
    assert [(d.doc_id, d.spread) for d in session.items] == [("d1", 3), ("d1", 2), ("d2", 1)]
    session.note("title only")
    assert session.note_text() == "title only"
    session.grade(1)
    judged = store.adjudications()[("q1", "d1")]
    assert (judged.assessor, judged.grade, judged.note) == ("judy", 1, "title only")
    assert session.item is not None and session.item.query_id == "401"
    session.skip()
    assert session.item is not None and session.item.doc_id == "d2"
    session.grade(2)
    assert session.item is not None and session.item.query_id == "401"  # the skipped one comes round again
    assert session.undo() is not None and session.item.doc_id == "d2"
    assert ("q1", "d2") not in store.adjudications()
