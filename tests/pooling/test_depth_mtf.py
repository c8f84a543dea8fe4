"""Depth-k and move-to-front pools on hand-made runs (non-numeric and numeric-looking topic ids)."""

from __future__ import annotations

import pytest

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.adaptive import mtf_pool
from toolkit.pooling.depth import depth_pool
from toolkit.pooling.mtf import mtf_order


def run(name: str, results: dict[str, list[str]]) -> Run:
    """Scores decreasing with the list order, so trec_eval order = the list."""
    return Run(
        {q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in results.items()}, name=name
    )


A = run("A", {"topic-α": ["a1", "a2", "a3", "a4"], "01": ["x", "y"], "1": ["z"]})
B = run("B", {"topic-α": ["b1", "a1", "b2", "b3"], "01": ["y", "w"]})


def test_depth_pool_union_with_provenance() -> None:
    pool = depth_pool([A, B], depth=2, topics=["topic-α", "01", "1", "missing"])
    assert list(pool.entries) == ["topic-α", "01", "1", "missing"]
    # topic-α: A top-2 {a1@1, a2@2}, B top-2 {b1@1, a1@2}; order: best rank, then run order
    assert pool.entries["topic-α"] == {
        "a1": (("A", 1), ("B", 2)),
        "b1": (("B", 1),),
        "a2": (("A", 2),),
    }
    assert pool.entries["01"] == {"x": (("A", 1),), "y": (("B", 1), ("A", 2)), "w": (("B", 2),)}
    assert pool.entries["1"] == {"z": (("A", 1),)}  # "1" and "01" are different topics
    assert pool.entries["missing"] == {}
    assert len(pool) == 7


def test_depth_pool_follows_trec_eval_order_not_the_rank_column() -> None:
    tied = Run({"t": {"d1": 1.0, "d3": 1.0, "d2": 2.0}}, name="T")  # ties by doc_id descending: d2, d3, d1
    assert list(depth_pool([tied], depth=2).entries["t"]) == ["d2", "d3"]


def test_depth_pool_errors() -> None:
    with pytest.raises(UsageError, match="--depth must be at least 1, got 0"):
        depth_pool([A], depth=0)
    with pytest.raises(UsageError, match="two runs are named 'A'"):
        depth_pool([A, A], depth=1)


def test_mtf_first_round_is_round_robin_by_rank() -> None:
    # A=[a1,a2,a3,a4], B=[b1,a1,b2,b3], budget 3, nothing known:
    # 1. tie at priority 0 → A (given first): a1 selected, A → −1
    # 2. B (0 > −1): b1 selected, B → −1
    # 3. tie at −1 → A (picked longer ago): a2 selected. Budget spent.
    walk = mtf_order([["a1", "a2", "a3", "a4"], ["b1", "a1", "b2", "b3"]], budget=3, known={})
    assert walk == [("a1", 0), ("b1", 1), ("a2", 0)]


def test_mtf_follows_a_run_that_found_relevant_documents() -> None:
    # known: a1 relevant, b1 not. Budget 2.
    # 1. A: a1 known relevant → free, stay with A
    # 2. A: a2 unknown → selected (1), A → −1
    # 3. B (0): b1 known non-relevant → free, B → −1
    # 4. tie at −1, A picked at step 2, B at step 3 → A: a3 selected (2). Budget spent.
    walk = mtf_order(
        [["a1", "a2", "a3", "a4"], ["b1", "a1", "b2", "b3"]], budget=2, known={"a1": True, "b1": False}
    )
    assert walk == [("a1", 0), ("a2", 0), ("b1", 1), ("a3", 0)]


def test_mtf_skips_docs_another_run_already_led_to() -> None:
    # A=[d1,d2], B=[d1,d3]: 1. A d1 (sel), 2. B: d1 visited → skip to d3 (sel), 3. A d2 (sel)
    assert mtf_order([["d1", "d2"], ["d1", "d3"]], budget=5, known={}) == [("d1", 0), ("d3", 1), ("d2", 0)]


def test_mtf_pool_budget_per_topic_and_provenance() -> None:
    pool = mtf_pool([A, B], budget=2, topics=["topic-α", "01"], known={("topic-α", "a1"): True})
    # topic-α: a1 (known, free, stay A) → a2 (sel 1, A −1) → b1 (sel 2). Provenance: every run holding the doc.
    assert pool.entries["topic-α"] == {"a1": (("A", 1), ("B", 2)), "a2": (("A", 2),), "b1": (("B", 1),)}
    # 01: A x (sel 1, A −1) → B y (sel 2)
    assert pool.entries["01"] == {"x": (("A", 1),), "y": (("B", 1), ("A", 2))}
    assert (pool.strategy, pool.budget, pool.depth) == ("mtf", 2, None)


def test_mtf_depth_caps_the_walk() -> None:
    pool = mtf_pool([A, B], budget=10, depth=1, topics=["topic-α"])
    assert pool.entries["topic-α"] == {"a1": (("A", 1),), "b1": (("B", 1),)}


def test_mtf_errors() -> None:
    with pytest.raises(UsageError, match="--budget must be at least 1, got 0"):
        mtf_pool([A], budget=0)
