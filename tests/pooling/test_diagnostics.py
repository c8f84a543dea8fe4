"""Pool diagnostics: Judged@k and leave-one-run-out, on hand-made runs and qrels (worked out in comments)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.judging.store import CampaignStore
from toolkit.model import Qrels, Run, Topic, TopicSet
from toolkit.pooling.diagnostics import (
    contributors_from_campaign,
    judged_at_k,
    leave_one_run_out,
    pool_contributors,
    without_run,
)
from toolkit.pooling.docsource import CorpusDocSource
from toolkit.pooling.rounds import pool_round


def run(name: str, results: dict[str, list[str]]) -> Run:
    return Run({q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in results.items()}, name=name)


# depth-2 pool of A and B on topic t-1: A → a1, s; B → s, b1.  Only A pooled a1; only B pooled b1.
A = run("A", {"t-1": ["a1", "s", "x"]})
B = run("B", {"t-1": ["s", "b1"]})
QRELS = Qrels({"t-1": {"a1": 1, "s": 1, "b1": 0}})


def test_pool_contributors() -> None:
    assert pool_contributors([A, B], depth=2) == {
        ("t-1", "a1"): frozenset({"A"}),
        ("t-1", "s"): frozenset({"A", "B"}),
        ("t-1", "b1"): frozenset({"B"}),
    }


def test_without_run_removes_only_unique_contributions() -> None:
    reduced, removed, relevant = without_run(QRELS, "A", pool_contributors([A, B], depth=2))
    assert reduced.judgments == {"t-1": {"s": 1, "b1": 0}} and (removed, relevant) == (1, 1)


def test_leave_one_run_out_by_hand() -> None:
    result = leave_one_run_out([A, B], QRELS, measures="P@2", depth=2)
    rows = {r.run: r for r in result.rows}
    # A: full P@2 = (a1 + s)/2 = 1.0; without a1: s only → 0.5
    assert (rows["A"].full, rows["A"].without_own, rows["A"].delta) == (1.0, 0.5, -0.5)
    assert (rows["A"].unique_docs, rows["A"].unique_relevant) == (1, 1)
    # B: full P@2 = s/2 = 0.5; its unique doc b1 was not relevant → unchanged
    assert (rows["B"].full, rows["B"].without_own, rows["B"].delta) == (0.5, 0.5, 0.0)
    assert result.worst("P@2") == rows["A"]
    assert (result.n, result.source) == (1, "depth-2 pool of the runs")


def test_a_topic_losing_all_judgments_still_counts() -> None:
    qrels = Qrels({"t-1": {"a1": 1}, "t-2": {"s": 1}})
    topics = TopicSet(topics=(Topic("t-1", "x"), Topic("t-2", "y")))
    solo = run("A", {"t-1": ["a1"], "t-2": ["s"]})
    other = run("B", {"t-2": ["s"]})
    result = leave_one_run_out([solo, other], qrels, topics=topics, measures="P@1", depth=1)
    row = next(r for r in result.rows if r.run == "A")
    # full: t-1 1, t-2 1 → 1.0; without A's own (a1 at t-1): t-1 0, t-2 1 → 0.5 over the same n = 2
    assert (row.full, row.without_own, result.n) == (1.0, 0.5, 2)


def test_judged_at_k() -> None:
    # A's top 3: a1, s judged, x not → 2/3; B's top 2: both judged → 1
    found = judged_at_k([A, B], QRELS, ["t-1"], k=3)
    assert [(j.run, j.rate) for j in found] == [("A", pytest.approx(2 / 3)), ("B", 1.0)]


def test_contributors_from_campaign(tmp_path: Path) -> None:
    corpus = CorpusDocSource({d: (d, d) for d in ("a1", "s", "b1", "x")})
    topics = TopicSet(topics=(Topic("t-1", "q"),))
    with CampaignStore.open(tmp_path / "c.sqlite", create=True) as store:
        pool_round(store, [A, B], topics, source=corpus, depth=2)
        assert contributors_from_campaign(store) == pool_contributors([A, B], depth=2)
        result = leave_one_run_out(
            [A, B], QRELS, measures="P@2", contributors=contributors_from_campaign(store)
        )
        assert result.source == "campaign provenance"
        assert [r.delta for r in result.rows] == [-0.5, 0.0]
