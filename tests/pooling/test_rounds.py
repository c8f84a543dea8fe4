"""Pooling rounds into a campaign: snapshots, fetch failures kept, judged docs skipped, changed docs stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import StoreError, UsageError
from toolkit.judging.queue import next_item, stale_items
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES, Qrels, Run, Topic, TopicSet
from toolkit.pooling.docsource import CorpusDocSource
from toolkit.pooling.rounds import pool_campaign, pool_round

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


class RacingSource:
    """A doc source that lets something else happen (another ``pool``, an assessor) while it fetches: the
    race of two processes, made deterministic by running the other side to completion mid-fetch."""

    def __init__(self, documents: dict[str, tuple[str, str]], meanwhile) -> None:
        self.inner = CorpusDocSource(documents)
        self.meanwhile = meanwhile
        self.asked: list[list[str]] = []

    def iter_documents(self, doc_ids):
        self.asked.append(list(doc_ids))
        if self.meanwhile is not None:
            action, self.meanwhile = self.meanwhile, None
            action()
        return self.inner.iter_documents(doc_ids)

    def versions(self, doc_ids):
        return {}

    def describe(self) -> str:
        return "racing"


def test_racing_rounds_report_what_they_wrote(tmp_path: Path) -> None:
    """Round B commits while round A fetches; A's counts and writes follow B's, not A's first look."""
    path = tmp_path / "c.sqlite"
    CampaignStore.open(path, create=True).close()
    other: list = []

    def round_b() -> None:
        with CampaignStore.open(path) as store_b:
            other.append(pool_round(store_b, [R1, R2], TOPICS, source=CorpusDocSource(CORPUS), depth=2))

    with CampaignStore.open(path) as store_a:
        mine = pool_round(store_a, [R1, R2], TOPICS, source=RacingSource(CORPUS, round_b), depth=2)
        (b,) = other
        assert (b.round, b.queued, b.pending) == (1, 6, 0)
        assert (mine.round, mine.queued, mine.pending, mine.fetch_failures) == (2, 0, 6, ())
        assert [(r.number, r.added) for r in store_a.rounds()] == [(1, 6), (2, 0)]
        assert {p.round for p in store_a.pool_items()} == {1}  # round 2 re-queued nothing
        assert len(store_a.pool_items()) == b.queued + mine.queued


def test_item_judged_while_the_round_fetched_is_checked_for_changed_text(tmp_path: Path) -> None:
    """An item pending at the round's first look was judged before its write: it is compared, not counted as
    pending — and its document, not fetched at first, is fetched then."""
    path = tmp_path / "c.sqlite"
    with CampaignStore.open(path, create=True) as store:
        pool_round(store, [R1], TOPICS, source=CorpusDocSource(CORPUS), depth=1)  # q-1: d1; 7: d4

        def alice_judges() -> None:
            with CampaignStore.open(path) as other:
                other.record("alice", "q-1", "d1", grade=1)

        changed = dict(CORPUS, d1=("Td1", "text d1, rewritten"))
        source = RacingSource(changed, alice_judges)
        result = pool_round(store, [R1, R2], TOPICS, source=source, depth=1)  # new: d2@q-1, d6@7
        assert source.asked == [["d2", "d6"], ["d1"]]
        assert (result.queued, result.stale, result.pending) == (3, 1, 1)  # d4@7 still pending
        assert [(p.query_id, p.doc_id) for p in store.pool_items() if p.stale] == [("q-1", "d1")]


def test_judged_topic_text_is_never_rewritten(tmp_path: Path) -> None:
    """A later round refuses to change what assessors read for a topic they already judged."""
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        pool_round(store, [R1], TOPICS, source=CorpusDocSource(CORPUS), depth=1)
        store.record("alice", "q-1", "d1", grade=1)
        reworded = TopicSet(
            topics=(Topic("q-1", "apple", description="d", narrative="n, reworded"), TOPICS.topics[1]),
            grades=TOPICS.grades,
        )
        with pytest.raises(StoreError) as err:
            pool_round(store, [R1], reworded, source=CorpusDocSource(CORPUS), depth=1)
        assert str(err.value) == (
            f"{store.location}: topic 'q-1' was judged on its text, and the topic set changes its narrative "
            "('n' → 'n, reworded'); keep the text the assessors judged, or give the changed topic a new id"
        )
        assert store.topic("q-1").narrative == "n" and len(store.rounds()) == 1  # nothing written
        # a topic nobody judged may still be edited, and a judged topic's class may change
        edited = TopicSet(
            topics=(Topic("q-1", "apple", description="d", narrative="n"), Topic("7", "pear, ripe")),
            grades=TOPICS.grades,
        )
        pool_round(store, [R1], edited, source=CorpusDocSource(CORPUS), depth=1)
        assert store.topic("7").query == "pear, ripe" and store.topic("q-1").query_class is None
        assert len(store.rounds()) == 2


def test_failed_first_round_leaves_nothing(tmp_path: Path) -> None:
    def boom() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pool_campaign(tmp_path / "c.sqlite", [R1], TOPICS, source=RacingSource(CORPUS, boom), depth=1)
    assert list(tmp_path.iterdir()) == []  # no campaign, no temporary file


def test_failed_first_round_never_deletes_what_another_process_committed(tmp_path: Path) -> None:
    """While this first round fetches, another process creates the campaign and commits a round
    and a judgment; then this round is interrupted. The other process's campaign must survive."""
    path = tmp_path / "c.sqlite"

    def other_then_interrupt() -> None:
        with CampaignStore.open(path, create=True) as other:
            pool_round(other, [R2], TOPICS, source=CorpusDocSource(CORPUS), depth=1)
            other.record("alice", "q-1", "d2", grade=1)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        pool_campaign(path, [R1], TOPICS, source=RacingSource(CORPUS, other_then_interrupt), depth=1)
    with CampaignStore.open(path) as store:
        assert [(e.assessor, e.doc_id, e.grade) for e in store.log()] == [("alice", "d2", 1)]
        assert [r.runs for r in store.rounds()] == [("r2",)]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["c.sqlite"]


def test_first_round_loses_the_creation_race_without_harm(tmp_path: Path) -> None:
    """Another process created the campaign while this first round was built: this round is refused, and the
    campaign the other process made is left exactly as it was."""
    path = tmp_path / "c.sqlite"

    def other_creates() -> None:
        with CampaignStore.open(path, create=True) as other:
            pool_round(other, [R2], TOPICS, source=CorpusDocSource(CORPUS), depth=1)

    with pytest.raises(StoreError) as err:
        pool_campaign(path, [R1], TOPICS, source=RacingSource(CORPUS, other_creates), depth=1)
    assert str(err.value) == (
        f"{path}: another process created this campaign while this first round was being built; nothing was "
        "written to it: run `pool` again to add this round"
    )
    with CampaignStore.open(path) as store:
        assert [r.runs for r in store.rounds()] == [("r2",)]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm"))) == ["c.sqlite"]


def test_a_new_campaign_appears_complete_or_not_at_all(tmp_path: Path) -> None:
    """While the first round is built the campaign's path does not exist; once it does, the round is in it."""
    path = tmp_path / "c.sqlite"
    seen: list[bool] = []
    pool_campaign(
        path, [R1], TOPICS, source=RacingSource(CORPUS, lambda: seen.append(path.exists())), depth=1
    )
    assert seen == [False]
    with CampaignStore.open(path) as store:
        assert len(store.rounds()) == 1 and len(store.pool_items()) == 2
