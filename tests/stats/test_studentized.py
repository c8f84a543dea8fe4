"""The studentized (bootstrap-t) interval and non-inferiority test (docs/statistics.md, "Intervals").

Held to an independent implementation written here from the definition (Efron & Tibshirani 1993, §12.5:
Z*(b) = (θ̂*(b) − θ̂) / sê*(b), interval [θ̂ − t̂(1−α)·sê, θ̂ − t̂(α)·sê]) on resamples this test draws itself,
and to scipy's t interval where the two must agree (symmetric data, many topics).
"""

import math

import numpy as np
import pytest
from scipy import stats

from toolkit.stats.resampling import bootstrap_moments
from toolkit.stats.studentized import distributions, tail_rank


def resampled(x, b, seed):
    """Means, mean squares and Z* of ``b`` resamples drawn here, one topic index vector at a time."""
    rng = np.random.default_rng(seed)
    n = x.size
    m, se = x.mean(), x.std(ddof=1) / math.sqrt(n)
    means, squares, z = [], [], []
    for _ in range(b):
        s = x[rng.integers(0, n, n)]
        means.append(s.mean())
        squares.append((s * s).mean())
        z.append((s.mean() - m) / (s.std(ddof=1) / math.sqrt(n)))
    return np.array(means)[:, None], np.array(squares)[:, None], sorted(z), m, se


def test_bounds_and_p_match_a_loop_over_explicit_resamples():
    x = np.random.default_rng(3).beta(0.3, 3.0, 40) - 0.1
    b = 1999
    means, squares, z, m, se = resampled(x, b, seed=11)
    (dist,) = distributions(x[:, None], means, squares)
    # k = ⌈α (B + 1)⌉ − 1: the (1 − α) bound and p = (#{Z* ≥ t} + 1)/(B + 1) < α agree exactly
    k = math.ceil(0.025 * (b + 1)) - 1
    assert k == tail_rank(0.025, b) == 49
    assert dist.lower(0.025) == pytest.approx(m - z[b - k] * se, rel=1e-9, abs=1e-12)
    assert dist.upper(0.025) == pytest.approx(m - z[k - 1] * se, rel=1e-9, abs=1e-12)
    t_obs, p = dist.pvalue_above(-0.05)
    assert t_obs == pytest.approx((m + 0.05) / se)
    assert p == (sum(1 for v in z if v >= t_obs) + 1) / (b + 1)
    assert (p < 0.05) is (dist.lower(0.05) > -0.05)


def test_moments_of_the_products_resamples_are_the_resamples_moments():
    x = np.random.default_rng(4).random((25, 3))
    means, squares = bootstrap_moments(x, seed=5, resamples=3000)
    assert means.shape == squares.shape == (3000, 3)
    assert np.all(squares >= means**2 - 1e-12)
    # E*[mean of squares] = mean of squares of the sample (the bootstrap is unbiased for it)
    assert squares.mean(axis=0) == pytest.approx((x * x).mean(axis=0), rel=0.01)


def test_symmetric_data_on_many_topics_give_the_t_interval():
    x = np.random.default_rng(6).normal(0.02, 0.1, 2000)
    means, squares = bootstrap_moments(x[:, None], seed=1, resamples=20_000)
    (dist,) = distributions(x[:, None], means, squares)
    ci = stats.ttest_1samp(x, 0.0).confidence_interval(0.95)
    width = ci.high - ci.low
    assert dist.lower(0.025) == pytest.approx(ci.low, abs=0.03 * width)
    assert dist.upper(0.025) == pytest.approx(ci.high, abs=0.03 * width)


def test_a_rare_large_drop_widens_the_lower_side():
    """Left skew: the bootstrap-t lower bound lies below the t bound (Hall 1988: it corrects for skew)."""
    x = np.r_[np.full(36, 0.05), np.full(4, -0.9)] + np.random.default_rng(8).normal(0, 0.01, 40)
    means, squares = bootstrap_moments(x[:, None], seed=2, resamples=10_000)
    (dist,) = distributions(x[:, None], means, squares)
    t_lower = x.mean() - stats.t.ppf(0.95, 39) * x.std(ddof=1) / math.sqrt(40)
    assert dist.lower(0.05) < t_lower
