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
    assert "DP" in dp.method and dp.exact
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
    d = np.array(S1 * 4)  # 24 non-zero pairs: too many to enumerate; Rprec (an alias) has no grid
    assert randomization_test(d, measure="R-Prec", resamples=1000).method == "Monte Carlo"
    by_name = randomization_test(np.array(S1 * 3 + [1 / 7] * 5), measure="RR@10")
    by_object = randomization_test(np.array(S1 * 3 + [1 / 7] * 5), measure=measure_object("RR@10"))
    assert by_name == by_object and by_name.method == "exact (DP on the 1/2520 grid)"


def test_bad_alternative():
    with pytest.raises(ValueError, match="alternative"):
        randomization_test(S1, alternative="up")
