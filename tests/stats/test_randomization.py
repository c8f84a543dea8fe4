"""Paired randomization test: S1 of the reference values, exactness, and Monte Carlo reproducibility."""

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

import toolkit.stats.randomization as randomization
from toolkit.scoring.measures import measure_object
from toolkit.stats.randomization import measure_grid, on_grid, randomization_test

# S1: RR deltas d = B − A (reference README)
S1 = [0, 1 / 2, 1 / 2, 0, -1 / 2, 3 / 4, 0, 0, 1 / 2, 1 / 20]


def test_s1_exact_two_sided_and_one_sided():
    two = randomization_test(S1)
    assert two.exact
    assert two.pvalue == 3 / 16  # all 2^10 sign flips
    assert two.statistic == pytest.approx(0.18)
    assert randomization_test(S1, alternative="greater").pvalue == 3 / 32


def test_s1_by_brute_force_over_all_1024_sign_vectors():
    # independent check: enumerate all 2^10 vectors in exact rational arithmetic
    d = [Fraction(x).limit_denominator(100) for x in S1]
    observed = abs(sum(d))
    hits = sum(
        1
        for signs in product((1, -1), repeat=10)
        if abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed
    )
    assert Fraction(hits, 1024) == Fraction(3, 16)


def test_dynamic_programming_on_the_rr_grid_equals_enumeration(monkeypatch):
    d = S1 * 3  # 18 non-zero differences: enumeration still possible
    enumerated = randomization_test(d, measure="RR@10")
    monkeypatch.setattr(randomization, "ENUMERATE_MAX", 0)
    dp = randomization_test(d, measure="RR@10")
    assert dp.method == "exact (dynamic programme over the integer sums)" and dp.exact
    assert dp.pvalue == pytest.approx(enumerated.pvalue, rel=1e-12)
    assert randomization_test(d, measure="RR@10", alternative="greater").pvalue == pytest.approx(
        randomization_test(d, measure="RR@10", alternative="greater").pvalue
    )


def test_large_rr_sample_is_exact_by_dp_and_agrees_with_monte_carlo():
    rng = np.random.default_rng(7)
    ranks_a, ranks_b = rng.integers(1, 14, 120), rng.integers(1, 14, 120)
    rr = lambda r: np.where(r > 10, 0.0, 1.0 / r)  # noqa: E731
    d = rr(ranks_b) - rr(ranks_a)
    exact = randomization_test(d, measure="RR@10")
    mc = randomization_test(d, measure="nDCG@10", seed=1)  # no grid known: Monte Carlo
    assert exact.exact and not mc.exact and mc.resamples == 100_000
    assert abs(exact.pvalue - mc.pvalue) < 0.01  # MC standard error at p≈0.5 is 0.0016


def test_monte_carlo_is_reproducible_never_zero_and_uses_count_plus_one():
    d = np.linspace(0.01, 0.3, 40)  # all positive: no sign flip except the identity reaches the observed sum
    a = randomization_test(d, seed=3, resamples=1000)
    b = randomization_test(d, seed=3, resamples=1000)
    assert a == b
    assert not a.exact
    assert a.pvalue == 1 / 1001  # (0 + 1) / (B + 1): never 0


def test_all_zero_differences_give_p_one():
    r = randomization_test([0.0] * 8)
    assert r.pvalue == 1.0 and r.exact


def test_grid_rounding_makes_equal_magnitudes_equal():
    # 0.3 - 0.1 and 0.1 - 0.3 differ in the last bits without rounding
    d = on_grid(np.array([0.3 - 0.1, 0.1 - 0.3]))
    assert d[0] == -d[1]
    assert randomization_test([0.3 - 0.1, 0.1 - 0.3]).pvalue == 1.0


@pytest.mark.parametrize(
    "measure, grid",
    [
        ("RR@10", 2520),  # lcm(1..10)
        ("RR@5", 60),
        ("RR(rel=2)@4", 12),
        ("P@5", 5),
        ("P@1", 1),
        ("P(rel=2)@10", 10),
        ("Success@3", 1),
        ("nDCG@10", None),
        ("RR", None),  # no cutoff: 1/rank for any rank
        ("RR(judged_only=True)@10", None),  # other parameters: no grid is assumed
    ],
)
def test_measure_grid_is_read_from_the_measure_object(measure, grid):
    assert measure_grid(measure_object(measure)) == grid


def test_measure_names_are_parsed_once_into_objects():
    # 30 non-zero pairs: too many to enumerate; Rprec (an alias) has no grid, and these values share no
    # common factor on the 1e-9 grid, so the integer sums are too many for the DP: Monte Carlo
    d = np.random.default_rng(3).random(30) - 0.5
    mc = randomization_test(d, measure="R-Prec", resamples=1000)
    assert mc.method == "Monte Carlo (1,000 seeded sign flips)" and mc.grid == "1e-9 grid"
    # S1's values on the 1e-9 grid are multiples of 0.05: the DP is exact there too
    assert randomization_test(np.array(S1 * 4), measure="R-Prec").exact
    by_name = randomization_test(np.array(S1 * 3 + [1 / 7] * 5), measure="RR@10")
    by_object = randomization_test(np.array(S1 * 3 + [1 / 7] * 5), measure=measure_object("RR@10"))
    assert by_name == by_object and by_name.method == "exact (dynamic programme over the integer sums)"
    assert by_name.grid == "exact 1/140 grid"  # lcm of the differences' denominators 2, 4, 20, 7


def test_bad_alternative():
    with pytest.raises(ValueError, match="alternative"):
        randomization_test(S1, alternative="up")


def brute_force_p(d: list[Fraction]) -> Fraction:
    """Independent oracle: every sign vector, in exact rational arithmetic."""
    observed = abs(sum(d))
    hits = sum(
        1
        for signs in product((1, -1), repeat=len(d))
        if abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed
    )
    return Fraction(hits, 2 ** len(d))


def rr_fraction(rank):
    return Fraction(0) if rank is None else Fraction(1, rank)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dp", [False, True])
def test_exact_p_equals_brute_force_over_rationals_with_ties(seed, dp, monkeypatch):
    """RR@10 values full of rational ties (1/2 = 1/3 + 1/6 …): enumeration and the DP both equal the brute force."""
    if dp:
        monkeypatch.setattr(randomization, "ENUMERATE_MAX", 0)
    rng = np.random.default_rng(seed)
    ra = [None if r > 10 else int(r) for r in rng.integers(1, 13, 12)]
    rb = [None if r > 10 else int(r) for r in rng.integers(1, 13, 12)]
    exact = [rr_fraction(b) - rr_fraction(a) for a, b in zip(ra, rb, strict=True)]
    nonzero = [x for x in exact if x]
    d = np.array([float(x) for x in exact])
    result = randomization_test(d, measure="RR@10")
    assert result.exact
    assert result.pvalue == float(brute_force_p(nonzero))  # exactly: count / 2^m, rounded once


def test_exact_p_matches_scipy_permutation_test_on_small_samples():
    from scipy import stats

    rng = np.random.default_rng(11)
    d = rng.integers(-3, 4, 14) / 4  # P@4-like differences with many ties and zeros
    ref = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
    )
    assert randomization_test(d, measure="P@4").pvalue == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.slow
def test_int64_dp_beyond_enumeration_equals_an_independent_enumeration():
    """m = 22 > ENUMERATE_MAX: the DP counts sign vectors exactly (int64); checked by enumerating all 2^22
    sign vectors as bit patterns."""
    rng = np.random.default_rng(2)
    ints = rng.integers(-6, 7, 22)
    ints[ints == 0] = 5
    d = ints / 6
    bits = (np.arange(2**22)[:, None] >> np.arange(22)) & 1
    sums = (2 * bits - 1) @ ints
    expected = np.count_nonzero(np.abs(sums) >= abs(ints.sum())) / 2**22
    r = randomization_test(d, grid=6)
    assert r.method == "exact (dynamic programme over the integer sums)" and r.pvalue == expected


def test_large_rr_at_100_is_monte_carlo_on_the_exact_grid_or_says_1e9():
    rng = np.random.default_rng(4)
    ranks_a, ranks_b = rng.integers(1, 101, 300), rng.integers(1, 101, 300)
    d = 1 / ranks_b - 1 / ranks_a
    r = randomization_test(d, measure="RR@100", resamples=20_000)
    assert not r.exact and r.resamples == 20_000 and r.method == "Monte Carlo (20,000 seeded sign flips)"
    assert r.grid in ("1e-9 grid",) or r.grid.startswith("exact 1/")
    from scipy import stats

    ref = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=20_000, random_state=0
    )
    assert abs(r.pvalue - ref.pvalue) < 0.02


def test_monte_carlo_of_one_column_does_not_depend_on_the_columns_beside_it():
    from toolkit.stats.resampling import flip_counts

    rng = np.random.default_rng(8)
    cols = rng.integers(-50, 50, (500, 5)).astype(float)
    together = flip_counts(cols, seed=9, resamples=5000)
    for j in range(5):
        alone = flip_counts(cols[:, j], seed=9, resamples=5000)
        assert [int(c[j]) for c in together] == [int(c[0]) for c in alone]


def test_bootstrap_means_have_the_analytic_spread():
    """The SD of bootstrap means of n values is sd·√((n−1)/n)/√n (the plug-in standard error)."""
    from toolkit.stats.resampling import bootstrap_means

    x = np.random.default_rng(1).normal(0, 1, 200)
    means = bootstrap_means(x, seed=3, resamples=40_000)[:, 0]
    expected = x.std(ddof=0) / np.sqrt(x.size)
    assert means.std() == pytest.approx(expected, rel=0.02)
    assert means.mean() == pytest.approx(x.mean(), abs=3 * expected / np.sqrt(40_000) * 10)
    assert np.array_equal(
        bootstrap_means(x, seed=3, resamples=1000), bootstrap_means(x, seed=3, resamples=1000)
    )
