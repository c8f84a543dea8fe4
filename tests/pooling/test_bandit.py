"""MaxMean (Losada, Parapar & Barreiro 2017): a walk worked by hand, rounds, the replay of recorded steps, and
the budget split."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.adaptive import maxmean_pool
from toolkit.pooling.bandit import maxmean_walk, posterior_mean, replay, split_budget


def _run(name: str, ranking: dict[str, list[str]]) -> Run:
    return Run(
        results={q: {d: float(len(docs) - i) for i, d in enumerate(docs)} for q, docs in ranking.items()},
        name=name,
    )


def test_posterior_mean_is_the_beta_mean() -> None:
    from scipy import stats

    for r, n in [(0, 0), (3, 1), (0, 5), (7, 7)]:
        assert posterior_mean(r, n) == pytest.approx(stats.beta(1 + r, 1 + n).mean())


def test_a_walk_by_hand_with_an_oracle() -> None:
    """Run 0: r1 n1 r2 ..., run 1: n2 n3 n4 ...; relevant = {r1, r2, r3}.

    step 1: all means 1/2, fewest pulls, first run → run 0, r1 (rel): run 0 at 2/3
    step 2: run 0 (2/3 > 1/2) → n1 (not): run 0 at 2/4 = 1/2, run 1 at 1/2; run 1 has fewer pulls → run 1, n2
    step 3: run 1 at 1/3, run 0 at 1/2 → run 0, r2 (rel): run 0 at 3/5
    step 4: run 0 → r3 (rel), step 5: run 0 → its list is done … then run 1: n3, n4.
    """
    rankings = [["r1", "n1", "r2", "r3"], ["n2", "n3", "n4"]]
    walk = maxmean_walk(rankings, budget=10, known={}, oracle={"r1": True, "r2": True, "r3": True})
    assert [(d, arm, rank) for d, arm, rank, _, _ in walk] == [
        ("r1", 0, 1),
        ("n1", 0, 2),
        ("n2", 1, 1),
        ("r2", 0, 3),
        ("r3", 0, 4),
        ("n3", 1, 2),
        ("n4", 1, 3),
    ]
    assert all(cost == 1 and known is None for *_, cost, known in walk)


def test_without_an_oracle_a_round_spreads_over_the_runs() -> None:
    """Selected documents count as not relevant within a round: a first round is round-robin by rank."""
    rankings = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    walk = maxmean_walk(rankings, budget=4, known={})
    assert [d for d, *_ in walk] == ["a1", "b1", "c1", "a2"]


def test_known_documents_cost_nothing_and_steer_the_next_round() -> None:
    """Round 2 knows a1 is relevant and b1, c1 not. a1 (free) lifts run a to 2/3 → a2 is selected (cost 1,
    counted not relevant: a back to 2/4); b and c tie a at 1/2 with fewer pulls → b1, c1 (free, not relevant:
    1/3 each); run a at 1/2 is best again → a3."""
    rankings = [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1", "c2", "c3"]]
    walk = maxmean_walk(rankings, budget=2, known={"a1": True, "b1": False, "c1": False})
    assert [(d, cost, known) for d, _, _, cost, known in walk] == [
        ("a1", 0, True),
        ("a2", 1, None),
        ("b1", 0, False),
        ("c1", 0, False),
        ("a3", 1, None),
    ]


def test_a_document_two_runs_share_is_judged_once() -> None:
    rankings = [["x", "a2"], ["x", "b2"]]
    walk = maxmean_walk(rankings, budget=5, known={})
    assert [d for d, *_ in walk] == ["x", "b2", "a2"]


def test_pool_records_every_step_and_the_replay_gives_them_back() -> None:
    rng = np.random.default_rng(1)
    runs = []
    for k in range(6):
        ranking = {f"q{t}": [f"d{int(x)}" for x in rng.permutation(40)[:20]] for t in range(5)}
        runs.append(_run(f"run{k}", ranking))
    # round 1, then round 2 with some judgments of round 1 known
    first = maxmean_pool(runs, budget=7, depth=20)
    assert len(first.steps) == 35 and sum(s.cost for s in first.steps) == 35
    known = {(s.query_id, s.doc_id): int(s.doc_id[1:]) % 3 == 0 for s in first.steps}
    second = maxmean_pool(runs, budget=7, depth=20, known=known)
    assert sum(s.cost for s in second.steps) == 35
    assert {(s.query_id, s.doc_id) for s in second.steps if s.cost}.isdisjoint(known)
    for pool in (first, second):
        assert replay(runs, pool.steps, depth=20, budget=7) == pool.steps
        for s in pool.steps:  # provenance: the step's run has the document at the step's rank
            assert runs[int(s.run[3:])].ranking(s.query_id)[s.rank - 1] == s.doc_id
            assert s.doc_id in pool.entries[s.query_id]


def test_a_changed_record_does_not_replay() -> None:
    runs = [_run("a", {"q": ["a1", "a2"]}), _run("b", {"q": ["b1", "b2"]})]
    pool = maxmean_pool(runs, budget=3)
    import dataclasses

    forged = (dataclasses.replace(pool.steps[0], run="b", doc_id="b1"), *pool.steps[1:])
    assert replay(runs, forged, depth=None, budget=3) != forged


def test_split_budget_fills_topics_up_to_their_capacity() -> None:
    assert split_budget(10, {"a": 2, "b": 10, "c": 10}) == {"a": 2, "b": 4, "c": 4}
    assert split_budget(7, {"a": 5, "b": 5}) == {"a": 4, "b": 3}
    assert split_budget(100, {"a": 3, "b": 0}) == {"a": 3, "b": 0}
    with pytest.raises(UsageError, match="--budget must be at least 1, got 0"):
        split_budget(0, {"a": 1})
