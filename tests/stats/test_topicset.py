"""Topic-set-size design: topics needed against G*Power's published one-sample/paired t values and scipy's
non-central t, the detectable Δ against the comparison's MDE, and Sakai's pooled variance by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from toolkit.errors import UsageError
from toolkit.stats.location import minimum_effect
from toolkit.stats.topicset import (
    detectable_delta,
    pair_variance,
    pooled_variance,
    sd_from_t_interval,
    topics_needed,
)


def nct_power(n: int, d: float, alpha: float) -> float:
    """Two-sided paired t power from scipy's non-central t directly (not statsmodels)."""
    df = n - 1
    t = stats.t.ppf(1 - alpha / 2, df)
    nc = np.sqrt(n) * d
    return float(stats.nct.sf(t, df, nc) + stats.nct.cdf(-t, df, nc))


@pytest.mark.parametrize(
    ("d", "n", "achieved"),
    [
        # G*Power 3 (Faul et al. 2007), "Means: difference from constant (one sample case)", two tails,
        # α = 0.05, power 0.8: Cohen's small, medium and large effects
        (0.2, 199, 0.8016910),
        (0.5, 34, 0.8077775),
        (0.8, 15, 0.8213105),
    ],
)
def test_topics_needed_matches_gpower(d: float, n: int, achieved: float) -> None:
    result = topics_needed(delta=d * 0.3, sd=0.3, alpha=0.05, power=0.8)
    assert result.topics == n
    assert result.achieved_power == pytest.approx(achieved, abs=1e-6)


@pytest.mark.parametrize("seed", range(12))
def test_topics_needed_is_the_smallest_n_with_the_power(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sd = float(rng.uniform(0.05, 0.4))
    delta = float(rng.uniform(0.01, 0.2))
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    power = float(rng.choice([0.7, 0.8, 0.9]))
    n = topics_needed(delta=delta, sd=sd, alpha=alpha, power=power).topics
    assert nct_power(n, delta / sd, alpha) >= power - 1e-5
    if n > 2:
        assert nct_power(n - 1, delta / sd, alpha) < power - 1e-5


@pytest.mark.parametrize("n", [10, 25, 61, 200])
def test_detectable_delta_is_the_comparisons_mde_and_gives_back_n(n: int) -> None:
    sd, alpha = 0.27, 0.05
    detectable = detectable_delta(topics=n, sd=sd, alpha=alpha, power=0.8)
    assert detectable.delta == minimum_effect(n, sd, alpha).value
    assert nct_power(n, detectable.delta / sd, alpha) == pytest.approx(0.8, abs=1e-5)
    assert topics_needed(delta=detectable.delta, sd=sd, alpha=alpha).topics == n


def test_too_few_topics_have_no_detectable_delta() -> None:
    result = detectable_delta(topics=9, sd=0.2)
    assert result.delta is None and result.reason == "needs at least 10 topics (found 9)"


def test_pooled_variance_is_twice_the_anova_residual_and_the_pair_variance_with_two_runs() -> None:
    rng = np.random.default_rng(4)
    x = rng.random((15, 2))
    assert pooled_variance(x).variance == pytest.approx(np.var(x[:, 1] - x[:, 0], ddof=1), rel=1e-12)
    assert pair_variance(x[:, 0], x[:, 1]).variance == pytest.approx(np.var(x[:, 1] - x[:, 0], ddof=1))
    # three runs: residual mean square of the additive two-way model, computed by statsmodels' OLS
    import pandas as pd
    import statsmodels.formula.api as smf

    y = rng.random((12, 3))
    frame = pd.DataFrame(
        [(t, r, y[t, r]) for t in range(12) for r in range(3)], columns=["topic", "run", "score"]
    )
    fit = smf.ols("score ~ C(topic) + C(run)", data=frame).fit()
    assert pooled_variance(y).variance == pytest.approx(2 * fit.mse_resid, rel=1e-10)


def test_sd_from_a_t_interval_round_trips() -> None:
    d = np.random.default_rng(2).normal(0.03, 0.2, 40)
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert sd_from_t_interval(ci.low, ci.high, 40) == pytest.approx(d.std(ddof=1), rel=1e-10)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"delta": 0.0, "sd": 0.2}, "--delta must be positive, got 0.0"),
        ({"delta": 0.05, "sd": 0.2, "alpha": 1.5}, "--alpha must be between 0 and 1, got 1.5"),
        ({"delta": 0.05, "sd": 0.2, "power": 1.0}, "--power must be between 0 and 1, got 1.0"),
        (
            {"delta": 0.05, "sd": 0.0},
            "the pilot's per-topic differences have no spread (sd = 0): no topic count follows",
        ),
    ],
)
def test_bad_plan_arguments_say_what_is_wrong(kwargs: dict, message: str) -> None:
    with pytest.raises(UsageError) as err:
        topics_needed(**kwargs)
    assert str(err.value) == message
