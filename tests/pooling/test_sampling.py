"""The stratified sampler: strata by best rank, sample sizes, inclusion probabilities, seeded draws, and the
empirical inclusion frequency over many seeds against the stated probability."""

from __future__ import annotations

import numpy as np
import pytest

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.sampling import Stratum, best_ranks, parse_strata, sample_pool, sample_size


def _runs(seed: int = 0, topics: int = 3, runs: int = 5, depth: int = 20) -> list[Run]:
    rng = np.random.default_rng(seed)
    out = []
    for k in range(runs):
        results = {}
        for t in range(topics):
            docs = [f"d{int(x)}" for x in rng.permutation(60)[:depth]]
            results[f"q{t}"] = {d: float(depth - i) for i, d in enumerate(docs)}
        out.append(Run(results=results, name=f"r{k}"))
    return out


def test_parse_strata() -> None:
    assert parse_strata("1-10:1,11-50:0.2") == (Stratum(1, 10, 1.0), Stratum(11, 50, 0.2))
    assert str(parse_strata("1-5:1")[0]) == "1-5:1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("1-10:1,12-20:0.5", "--sample '1-10:1,12-20:0.5': '12-20:0.5' should start at rank 11"),
        ("2-10:1", "--sample '2-10:1': '2-10:1' should start at rank 1"),
        ("1-10:0", "--sample '1-10:0': rate 0 must be in (0, 1]"),
        ("1-10:1.5", "--sample '1-10:1.5': rate 1.5 must be in (0, 1]"),
        ("top10", "--sample 'top10': cannot read 'top10'"),
    ],
)
def test_bad_strata_are_refused(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_strata(spec)
    assert str(err.value).startswith(message)
    assert "e.g. --sample 1-10:1,11-50:0.2" in str(err.value)


def test_sample_sizes() -> None:
    assert sample_size(0, 0.5) == 0
    assert sample_size(10, 1.0) == 10
    assert sample_size(10, 0.25) == 3  # 2.5 rounds half up
    assert sample_size(10, 0.01) == 2  # at least two, for a variance
    assert sample_size(1, 0.01) == 1


def test_strata_inclusion_and_sample_sizes_per_topic() -> None:
    runs = _runs()
    strata = parse_strata("1-3:1,4-20:0.3")
    pool = sample_pool(runs, strata=strata, seed=7)
    assert pool.inclusion is not None
    for q in ("q0", "q1", "q2"):
        best = best_ranks(runs, q, depth=20)
        top = [d for d, r in best.items() if r <= 3]
        deep = [d for d, r in best.items() if r > 3]
        drawn = pool.docs(q)
        assert set(top) <= set(drawn)  # judged in full
        assert all(pool.inclusion[(q, d)] == 1.0 for d in top)
        n = sample_size(len(deep), 0.3)
        assert len([d for d in drawn if d in deep]) == n
        assert all(pool.inclusion[(q, d)] == n / len(deep) for d in deep)
        assert {k for k in pool.inclusion if k[0] == q} == {(q, d) for d in best}


def test_provenance_of_a_sampled_pool_is_the_pools_rule() -> None:
    """The sampler builds provenance from rank maps; it must equal ``pooling.pool.provenance``."""
    from toolkit.pooling.pool import provenance

    runs = _runs(seed=4)
    pool = sample_pool(runs, strata=parse_strata("1-4:1,5-20:0.5"), seed=3)
    for q, d, sources in pool.items():
        assert sources == provenance(runs, q, d, depth=20)


def test_the_draw_is_seeded_per_topic() -> None:
    runs = _runs()
    strata = parse_strata("1-2:1,3-20:0.2")
    a = sample_pool(runs, strata=strata, seed=1)
    assert sample_pool(runs, strata=strata, seed=1).entries == a.entries
    assert sample_pool(runs, strata=strata, seed=2).entries != a.entries
    # pooling fewer topics does not change the others' samples
    assert sample_pool(runs, strata=strata, seed=1, topics=["q1"]).entries["q1"] == a.entries["q1"]


def test_each_document_is_drawn_as_often_as_its_probability_says() -> None:
    """Over 1,500 seeds every document's draw frequency is within 4.5 binomial standard errors of π."""
    runs = _runs(topics=1, runs=3, depth=12)
    strata = parse_strata("1-2:1,3-12:0.25")
    trials = 1500
    counts: dict[str, int] = {}
    probabilities: dict[str, float] = {}
    for seed in range(trials):
        pool = sample_pool(runs, strata=strata, seed=seed)
        assert pool.inclusion is not None
        for d in pool.docs("q0"):
            counts[d] = counts.get(d, 0) + 1
        probabilities = {d: p for (_, d), p in pool.inclusion.items()}
    for d, p in probabilities.items():
        se = (p * (1 - p) / trials) ** 0.5
        assert abs(counts.get(d, 0) / trials - p) <= 4.5 * se + 1e-12, d


def test_strata_for_a_budget_spend_about_the_budget_with_rates_falling_by_the_decay() -> None:
    from toolkit.pooling.sampling import BUDGET_DECAY, strata_for_budget

    runs = _runs(seed=8, topics=6)
    whole = sum(len(best_ranks(runs, f"q{t}", depth=20)) for t in range(6))
    strata = strata_for_budget(runs, budget=whole // 4, depth=20)
    assert [(s.first, s.last) for s in strata] == [(1, 1), (2, 3), (4, 7), (8, 12), (13, 20)]
    sampled = [s for s in strata if s.rate < 1]
    for upper, lower in zip(sampled, sampled[1:], strict=False):
        assert lower.rate == pytest.approx(upper.rate * BUDGET_DECAY, rel=1e-4)
    drawn = len(sample_pool(runs, strata=strata, seed=1))
    assert (
        abs(drawn - whole // 4) <= 2 * len(strata) * 6
    )  # rounding: at most one document a stratum a topic, twice
    full = strata_for_budget(runs, budget=whole, depth=20)
    assert all(s.rate == 1.0 for s in full)
