"""Pooling rounds into a campaign: snapshots, fetch failures kept, judged docs skipped, changed docs stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import StoreError, UsageError
from toolkit.judging.queue import next_item, stale_items
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES, Qrels, Run, Topic, TopicSet
from toolkit.pooling.docsource import CorpusDocSource
from toolkit.pooling.rounds import pool_round

pytestmark = pytest.mark.filterwarnings("ignore:ignoring 1 topic")

TOPICS = TopicSet(
    topics=(Topic("q-1", "apple", description="d", narrative="n", query_class="prose"), Topic("7", "pear")),
    grades={0: "no", 1: "yes"},
)


def run(name: str, results: dict[str, list[str]]) -> Run:
    return Run({q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in results.items()}, name=name)


R1 = run("r1", {"q-1": ["d1", "d2", "d3"], "7": ["d4", "d1"], "extra": ["d9"]})
R2 = run("r2", {"q-1": ["d2", "d5"], "7": ["d6"]})
CORPUS = {d: (f"T{d}", f"text {d}") for d in ("d1", "d2", "d3", "d4", "d5", "d6")}
del CORPUS["d5"]  # d5 cannot be fetched


def test_first_round(tmp_path: Path) -> None:
    with (
        CampaignStore.open(tmp_path / "c.sqlite", create=True) as store,
        pytest.warns(UserWarning, match="ignoring 1 topic"),
    ):
        result = pool_round(store, [R1, R2], TOPICS, source=CorpusDocSource(CORPUS), depth=2)
    with CampaignStore.open(tmp_path / "c.sqlite") as store:
        # q-1: d1, d2 (r1), d2, d5 (r2) → d1 d2 d5; 7: d4 d1 (r1), d6 (r2) → d4 d6 d1
        assert [(p.query_id, p.doc_id) for p in store.pool_items()] == [
            ("q-1", "d1"),
            ("q-1", "d2"),
            ("q-1", "d5"),
            ("7", "d1"),
            ("7", "d4"),
            ("7", "d6"),
        ]
        assert (result.round, result.pooled, result.queued, result.stale, result.skipped) == (1, 6, 6, 0, 0)
        assert result.fetch_failures == ("d5",)
        assert store.document("d5").fetch_error == "not in memory"
        assert store.document("d1").text == "text d1"
        assert store.grades() == {0: "no", 1: "yes"}
        t = store.topic("q-1")
        assert (t.query, t.description, t.narrative, t.query_class) == ("apple", "d", "n", "prose")
        assert [(p.run, p.rank) for p in store.provenance("q-1") if p.doc_id == "d2"] == [
            ("r2", 1),
            ("r1", 2),
        ]
        info = store.rounds()[0]
        assert (info.strategy, info.depth, info.runs, info.added) == ("depth", 2, ("r1", "r2"), 6)


def test_later_round_skips_judged_and_requeues_changed_as_stale(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    with CampaignStore.open(path, create=True) as store:
        pool_round(store, [R1], TOPICS, source=CorpusDocSource(CORPUS), depth=1)  # q-1: d1; 7: d4
        from toolkit.judging.records import Item

        store.add_assignments([Item("alice", "q-1", "d1", 0), Item("alice", "7", "d4", 1)])
        store.record("alice", "q-1", "d1", grade=1)
        store.record("alice", "7", "d4", grade=0)
        assert next_item(store, "alice") is None
        changed = dict(CORPUS, d1=("Td1", "text d1, rewritten"))
        exclude = Qrels({"q-1": {"d2": 1}})
        result = pool_round(
            store, [R1, R2], TOPICS, source=CorpusDocSource(changed), depth=2, exclude=[exclude]
        )
        # pooled: q-1 d1 d2 d5; 7 d4 d1 d6. d1@q-1 judged, text changed → stale; d4 judged, same → skipped;
        # d2@q-1 in --exclude → skipped; new: d5@q-1, d1@7, d6@7.
        assert (result.round, result.queued, result.stale, result.skipped) == (2, 4, 1, 2)
        stale = [(p.query_id, p.doc_id) for p in store.pool_items() if p.stale]
        assert stale == [("q-1", "d1")]
        item = next_item(store, "alice")
        assert item is not None and (item.query_id, item.doc_id, item.stale) == ("q-1", "d1", True)
        assert store.document("d1").text == "text d1, rewritten"
        assert [i.doc_id for i in stale_items(store)] == ["d1"]
        store.record("alice", "q-1", "d1", grade=0)
        assert next_item(store, "alice") is None  # judged again on the new text
        # a third round with nothing new: everything judged or pending
        again = pool_round(
            store, [R1, R2], TOPICS, source=CorpusDocSource(changed), depth=2, exclude=[exclude]
        )
        assert (again.queued, again.stale, again.pending) == (0, 0, 3)


def test_grade_scale_cannot_change_once_judged(tmp_path: Path) -> None:
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        pool_round(store, [R1], TOPICS, source=CorpusDocSource(CORPUS), depth=1)
        store.record("alice", "q-1", "d1", grade=1)
        other = TopicSet(topics=TOPICS.topics, grades=DEFAULT_GRADES)
        with pytest.raises(
            StoreError, match=r"the grade scale \[0, 1, 2, 3\] differs from the campaign's \[0, 1\]"
        ):
            pool_round(store, [R1], other, source=CorpusDocSource(CORPUS), depth=1)
        assert len(store.rounds()) == 1 and store.grades() == {0: "no", 1: "yes"}  # the round wrote nothing


def test_mtf_round_needs_budget(tmp_path: Path) -> None:
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        with pytest.raises(UsageError, match="--strategy mtf needs --budget N"):
            pool_round(store, [R1], TOPICS, source=CorpusDocSource(CORPUS), strategy="mtf")
        result = pool_round(store, [R1, R2], TOPICS, source=CorpusDocSource(CORPUS), strategy="mtf", budget=1)
        assert result.queued == 2  # one per topic


def test_round_records_the_topic_set(tmp_path: Path) -> None:
    topics = TopicSet(topics=TOPICS.topics, name="fruit", sha256="abc", description="Judge for a cook.")
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        pool_round(store, [R1], topics, source=CorpusDocSource(CORPUS), depth=1)
        meta = store.meta()
        assert (meta["topic_set"], meta["topic_set_sha256"], meta["guidelines"]) == (
            "fruit",
            "abc",
            "Judge for a cook.",
        )
