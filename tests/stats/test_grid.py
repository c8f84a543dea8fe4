"""Differences as exact integers (``toolkit.stats.grid``): rationals recovered from the measure's values."""

from fractions import Fraction

import numpy as np
import pytest

from toolkit.scoring.measures import measure_object
from toolkit.stats.grid import integer_diffs, integer_diffs_of


def rr(ranks):
    return np.array([0.0 if r is None else 1 / r for r in ranks])


def test_the_issue_example_is_exact_on_the_1_over_30_grid():
    a, b = rr([2, 5, 6, None]), rr([3, 10, None, 3])
    g = integer_diffs(a, b, measure_object("RR@10"))
    # −1/6, −1/10, −1/6, +1/3 over the common denominator 30 (hand computation)
    assert g.exact and g.scale == 30 and g.values.tolist() == [-5, -3, -5, 10]


@pytest.mark.parametrize("k", [10, 100, 1000])
def test_rr_values_at_any_cutoff_are_recovered_as_the_exact_fractions(k):
    rng = np.random.default_rng(k)
    ra = [int(r) if r <= k else None for r in rng.integers(1, k + 20, 60)]
    rb = [int(r) if r <= k else None for r in rng.integers(1, k + 20, 60)]
    g = integer_diffs(rr(ra), rr(rb), measure_object(f"RR@{k}"))
    exact = [(Fraction(1, y) if y else 0) - (Fraction(1, x) if x else 0) for x, y in zip(ra, rb, strict=True)]
    if g.exact:
        assert [Fraction(int(v), g.scale) for v in g.values] == exact
    else:  # the common denominator is too large for exact int64 sums: the 1e-9 grid, said so
        assert g.grid == "1e-9 grid" and k >= 100
        assert np.allclose(g.values / g.scale, [float(x) for x in exact], atol=1e-9)


def test_precision_values_are_multiples_of_one_over_k():
    a = np.array([0.2, 0.4, 0.0, 1.0])
    b = np.array([0.4, 0.4, 0.6, 0.8])
    g = integer_diffs(a, b, measure_object("P@5"))
    assert g.exact and g.scale == 5 and g.values.tolist() == [1, 0, 3, -1]


def test_values_that_are_not_on_the_grid_fall_back_to_1e9():
    g = integer_diffs(np.array([0.3, 0.123456]), np.array([0.25, 0.5]), measure_object("RR@10"))
    assert not g.exact and g.grid == "1e-9 grid" and g.scale == 10**9


def test_differences_alone_are_recovered_when_unambiguous():
    d = rr([3, 10, None, 3]) - rr([2, 5, 6, None])
    g = integer_diffs_of(d, measure_object("RR@10"))
    assert g.exact and g.values.tolist() == [-5, -3, -5, 10]
    # already rounded to 1e-9, RR@10's differences (denominators ≤ 100) are still unambiguous
    assert integer_diffs_of(np.round(d, 9), measure_object("RR@10")).values.tolist() == [-5, -3, -5, 10]
    # nDCG has no grid
    assert integer_diffs_of(d, measure_object("nDCG@10")).grid == "1e-9 grid"
