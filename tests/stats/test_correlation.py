"""Rank correlations of system rankings: τ against scipy, τ_AP against a brute force written from the paper's
definition, ρ against scipy, intervals, swapped pairs and their paired tests."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from toolkit.model import Qrels, Run
from toolkit.stats.correlation import (
    CorrelationOptions,
    correlate,
    correlate_scores,
    kendall_tau,
    rank_agreement,
    spearman_rho,
    tau_ap,
)


def brute_tau_ap(reference: list[float], other: list[float]) -> float:
    """τ_AP straight from Yilmaz, Aslam & Robertson (2008), eq. 3: walk ``other``'s ranking from the top;
    for the item at position i (i ≥ 2), C(i) = items above it in ``other`` that ``reference`` also ranks above
    it; τ_AP = 2/(N−1) Σ C(i)/(i−1) − 1. Ties are broken by list order (stable), as the library documents."""
    n = len(reference)
    ref_order = sorted(range(n), key=lambda k: (-reference[k], k))
    ref_pos = {item: p for p, item in enumerate(ref_order)}
    oth_order = sorted(range(n), key=lambda k: (-other[k], k))
    total = 0.0
    for i in range(1, n):
        item = oth_order[i]
        c = sum(1 for above in oth_order[:i] if ref_pos[above] < ref_pos[item])
        total += c / i
    return 2.0 / (n - 1) * total - 1.0


def brute_tau_b(a: list[float], b: list[float]) -> float:
    """Kendall's τ-b by counting pairs: (C − D) / √((n0 − n1)(n0 − n2))."""
    conc = disc = tie_a = tie_b = pairs = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        pairs += 1
        da, db = a[i] - a[j], b[i] - b[j]
        tie_a += da == 0
        tie_b += db == 0
        if da * db > 0:
            conc += 1
        elif da * db < 0:
            disc += 1
    return (conc - disc) / np.sqrt((pairs - tie_a) * (pairs - tie_b))


@pytest.mark.parametrize("seed", range(25))
def test_tau_and_rho_match_scipy_and_tau_ap_matches_the_brute_force_on_random_rankings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    a = rng.random(n)
    b = a + rng.normal(0, 0.3, n)
    if seed % 3 == 0:  # ties in both rankings
        a = np.round(a, 1)
        b = np.round(b, 1)
    expected_tau = stats.kendalltau(a, b).statistic
    if np.isnan(expected_tau):
        assert np.isnan(kendall_tau(a, b))
    else:
        assert kendall_tau(a, b) == pytest.approx(expected_tau, abs=1e-12)
        assert kendall_tau(a, b) == pytest.approx(brute_tau_b(list(a), list(b)), abs=1e-12)
    expected_rho = stats.spearmanr(a, b).statistic
    if not np.isnan(expected_rho):
        assert spearman_rho(a, b) == pytest.approx(expected_rho, abs=1e-12)
    assert tau_ap(a, b) == pytest.approx(brute_tau_ap(list(a), list(b)), abs=1e-12)


def test_tau_ap_batches_agree_with_single_rows() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.random((50, 9)), rng.random((50, 9))
    batch = tau_ap(a, b)
    assert batch.shape == (50,)
    for k in range(50):
        assert batch[k] == pytest.approx(brute_tau_ap(list(a[k]), list(b[k])), abs=1e-12)


def test_tau_ap_penalises_a_swap_at_the_top_more_than_at_the_bottom() -> None:
    reference = [5.0, 4.0, 3.0, 2.0, 1.0]
    top_swap = [4.0, 5.0, 3.0, 2.0, 1.0]
    bottom_swap = [5.0, 4.0, 3.0, 1.0, 2.0]
    # both are one discordant pair of 10: τ = 0.8
    assert kendall_tau(np.array(reference), np.array(top_swap)) == pytest.approx(0.8)
    assert kendall_tau(np.array(reference), np.array(bottom_swap)) == pytest.approx(0.8)
    # eq. 3 by hand. Top swap, order B A C D E: C(i)/(i-1) = 0/1, 2/2, 3/3, 4/4 → 2/4·3 − 1 = 0.5.
    # Bottom swap, order A B C E D: 1/1, 2/2, 3/3, 3/4 → 2/4·3.75 − 1 = 0.875.
    assert float(tau_ap(np.array(reference), np.array(top_swap))) == pytest.approx(0.5)
    assert float(tau_ap(np.array(reference), np.array(bottom_swap))) == pytest.approx(0.875)


def _scores(values: np.ndarray, runs: list[str]) -> dict[str, dict[str, float]]:
    return {r: {f"q{t}": float(values[t, k]) for t in range(values.shape[0])} for k, r in enumerate(runs)}


def test_identical_scores_give_one_everywhere_and_no_swaps() -> None:
    rng = np.random.default_rng(3)
    runs = [f"r{k}" for k in range(6)]
    values = rng.random((20, 6))
    result = correlate_scores(
        _scores(values, runs), _scores(values, runs), measure="AP", options=CorrelationOptions(resamples=500)
    )
    for c in result.coefficients:
        assert c.statistic == 1.0
        assert (c.low, c.high) == (1.0, 1.0)
        assert "every resample" in c.method
    assert result.swapped == ()
    assert all(s.rank_a == s.rank_b and s.delta == 0 for s in result.runs)


def test_intervals_are_scipy_bca_over_topics() -> None:
    """The τ interval equals scipy's BCa bootstrap of the same statistic (a non-vectorized statistic written
    with scipy's own kendalltau), same seed: the library's vectorized shortcut changes nothing."""
    rng = np.random.default_rng(11)
    runs = [f"r{k}" for k in range(7)]
    quality = np.linspace(0.2, 0.6, 7)
    a = np.clip(quality + rng.normal(0, 0.25, (30, 7)), 0, 1)
    b = np.clip(a + rng.normal(0, 0.15, (30, 7)), 0, 1)
    result = correlate_scores(
        _scores(a, runs), _scores(b, runs), measure="AP", options=CorrelationOptions(resamples=999, seed=5)
    )

    def statistic(idx: np.ndarray) -> float:
        idx = idx.astype(int)
        return stats.kendalltau(a[idx].mean(0), b[idx].mean(0)).statistic

    ref = stats.bootstrap(
        (np.arange(30),),
        statistic,
        n_resamples=999,
        vectorized=False,
        method="BCa",
        random_state=np.random.default_rng(5),
    )
    tau = result.coefficient("tau")
    assert tau.statistic == pytest.approx(stats.kendalltau(a.mean(0), b.mean(0)).statistic)
    assert tau.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert tau.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def test_too_few_topics_gives_no_interval_with_the_reason() -> None:
    runs = ["a", "b", "c"]
    values = np.array([[0.1, 0.2, 0.3], [0.3, 0.2, 0.4], [0.5, 0.1, 0.2]])
    result = correlate_scores(_scores(values, runs), _scores(values[:, ::-1], runs), measure="AP")
    tau = result.coefficient("tau")
    assert tau.low is None and tau.reason == "needs at least 10 topics (found 3)"


def test_swapped_pairs_carry_the_paired_test_under_each_qrels() -> None:
    """Run x beats y on every one of 12 topics under A (exact randomization p = 2/2^12); under B the order is
    reversed on 12 topics but only by a hair on one and equal on the rest, so B's order is not significant."""
    runs = ["x", "y", "z"]
    a = np.array([[0.6, 0.4, 0.1]] * 12)
    b = a.copy()
    b[:, 1] = 0.6
    b[0, 1] = 0.7  # y ahead of x under B by 0.1/12 on the mean
    result = correlate_scores(
        _scores(a, runs), _scores(b, runs), measure="AP", options=CorrelationOptions(resamples=200)
    )
    (pair,) = result.swapped
    assert (pair.first, pair.second) == ("x", "y")
    assert pair.delta_a == pytest.approx(0.2)
    assert pair.delta_b == pytest.approx(-0.1 / 12)
    assert pair.pvalue_a == pytest.approx(2 / 2**12)
    assert pair.pvalue_b == pytest.approx(1.0)
    assert pair.significant_a and not pair.significant_b


def test_correlate_scores_runs_on_one_denominator() -> None:
    """A topic qrels B does not judge scores 0 under B: the ranking under B is over the same topics."""
    runs = [
        Run(results={"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}, name="good"),
        Run(results={"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d4": 1.0}}, name="bad"),
    ]
    full = Qrels(judgments={"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}, name="full")
    half = Qrels(judgments={"q1": {"d1": 1, "d2": 0}}, name="half")
    result = correlate(runs, full, half, measure="P@1", options=CorrelationOptions(resamples=0))
    assert result.n == 2
    by_run = {s.run: s for s in result.runs}
    assert by_run["good"].score_a == 1.0 and by_run["good"].score_b == 0.5
    assert by_run["bad"].score_a == 0.0 and by_run["bad"].score_b == 0.0
    assert result.coefficient("tau").statistic == 1.0


def test_rank_agreement_of_two_score_maps() -> None:
    agreement = rank_agreement({"a": 0.5, "b": 0.4, "c": 0.3}, {"a": 0.35, "b": 0.4, "c": 0.2})
    assert agreement.tau == pytest.approx(stats.kendalltau([0.5, 0.4, 0.3], [0.35, 0.4, 0.2]).statistic)
    assert agreement.swapped == (("a", "b"),)
