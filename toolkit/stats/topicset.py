"""Topic-set-size design: how many topics a study needs, or what it can detect with the topics it has.

Sakai (2016, "Topic set size design", Information Retrieval Journal 19(3)) sizes an IR experiment the way a
clinical trial is sized: declare the smallest difference Δ worth detecting, the test's α and the power 1 − β
wanted, estimate the variance of the per-topic score differences from a pilot, and solve for the number of
topics n. For the paired t test (the test behind the comparison's headline interval) the power at n topics is
that of the non-central t with n − 1 degrees of freedom and non-centrality √n·Δ/σ_d; n is the smallest whole
number of topics whose power reaches 1 − β. statsmodels' ``TTestPower`` solves exactly that equation — the
same call the comparison's post hoc minimum detectable effect makes (``toolkit.stats.location``) — so the
plan and the audit's MDE are two readings of one formula: with the pilot's n topics the plan's detectable Δ
*is* the audit's MDE, and the topics the plan asks for at Δ = MDE are the pilot's n.

**The variance of the differences, σ̂²_d.** With two runs it is the sample variance of their per-topic
differences (what the audit uses). With three or more, Sakai pools over all runs: σ̂²_d = 2·V_E, where V_E is
the residual mean square of the two-way ANOVA without replication (topics × runs) — the within-run variance
left once topic and run effects are removed; the difference of two runs doubles it. With two runs 2·V_E equals
the variance of the differences exactly, so both estimates agree there. Each pair's own variance is reported
beside the pooled one.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from toolkit.errors import UsageError
from toolkit.minimum import shortfall

#: Power within this of the target counts as reaching it: statsmodels solves the power equation to about this
#: precision, so the Δ it solves for at n topics (the audit's MDE) gives back n and not n + 1.
POWER_TOLERANCE = 1e-5


@dataclass(frozen=True)
class VarianceEstimate:
    """σ̂²_d, the variance of per-topic score differences, with how it was obtained and from how much data."""

    variance: float
    method: str
    topics: int
    runs: int
    pair: tuple[str, str] | None = None

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)


@dataclass(frozen=True)
class TopicsNeeded:
    """The smallest n whose paired t test at ``alpha`` detects ``delta`` with at least ``power``."""

    topics: int
    delta: float
    sd: float
    alpha: float
    power: float
    achieved_power: float

    @property
    def effect_size(self) -> float:
        """Δ/σ_d (Cohen's d_z of the difference to detect)."""
        return self.delta / self.sd


@dataclass(frozen=True)
class Detectable:
    """The smallest Δ a paired t test at ``alpha`` detects with ``power`` on ``topics`` topics (None + reason
    when there is no estimate: too few topics, no spread)."""

    delta: float | None
    topics: int
    sd: float
    alpha: float
    power: float
    reason: str | None = None


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    if not 0 < power < 1:
        raise UsageError(f"--power must be between 0 and 1, got {power}")


def pair_variance(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, names: tuple[str, str] = ("a", "b")
) -> VarianceEstimate:
    """The sample variance (ddof 1) of ``b − a`` per topic."""
    d = np.asarray(b, float) - np.asarray(a, float)
    if d.size < 2:
        raise UsageError(f"a variance needs at least 2 topics (found {d.size})")
    return VarianceEstimate(
        float(d.var(ddof=1)), "variance of the pair's per-topic differences", d.size, 2, names
    )


def pooled_variance(values: np.ndarray) -> VarianceEstimate:
    """Sakai's σ̂²_d = 2·V_E from a topics × runs matrix (two-way ANOVA without replication; module docstring)."""
    x = np.asarray(values, float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise UsageError(f"a pooled variance needs at least 2 topics and 2 runs (found {x.shape})")
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    v_e = float((residual**2).sum()) / ((n - 1) * (m - 1))
    return VarianceEstimate(2 * v_e, "2·V_E, two-way ANOVA residual over all runs (Sakai 2016)", n, m)


def power_at(n: int, *, delta: float, sd: float, alpha: float) -> float:
    """The paired t test's power at ``n`` topics (statsmodels ``TTestPower``, two-sided)."""
    from statsmodels.stats.power import TTestPower

    return float(TTestPower().power(effect_size=delta / sd, nobs=n, alpha=alpha, alternative="two-sided"))


def topics_needed(*, delta: float, sd: float, alpha: float = 0.05, power: float = 0.8) -> TopicsNeeded:
    """The smallest number of topics with power ≥ ``power`` to detect ``delta`` (module docstring).

    statsmodels solves the power equation for a real n; the answer is its ceiling, checked (and moved by one
    when round-off put the real solution a hair off a whole number) so that n has the power and n − 1 has not
    (to ``POWER_TOLERANCE``).
    """
    from statsmodels.stats.power import TTestPower

    _check(alpha, power)
    if not delta > 0:
        raise UsageError(f"--delta must be positive, got {delta}")
    if not sd > 0:
        raise UsageError("the pilot's per-topic differences have no spread (sd = 0): no topic count follows")
    solved = TTestPower().solve_power(
        effect_size=delta / sd, nobs=None, alpha=alpha, power=power, alternative="two-sided"
    )
    n = max(2, math.ceil(float(np.asarray(solved).item()) - 1e-9))
    target = power - POWER_TOLERANCE
    while n > 2 and power_at(n - 1, delta=delta, sd=sd, alpha=alpha) >= target:
        n -= 1
    while power_at(n, delta=delta, sd=sd, alpha=alpha) < target:
        n += 1
    return TopicsNeeded(n, delta, sd, alpha, power, power_at(n, delta=delta, sd=sd, alpha=alpha))


@functools.lru_cache(maxsize=256)
def _standard_effect(n: int, alpha: float, power: float) -> float:
    from statsmodels.stats.power import TTestPower

    solved = TTestPower().solve_power(
        effect_size=None, nobs=n, alpha=alpha, power=power, alternative="two-sided"
    )
    return float(np.asarray(solved).item())


def detectable_delta(*, topics: int, sd: float, alpha: float = 0.05, power: float = 0.8) -> Detectable:
    """The smallest Δ detectable with ``topics`` topics (the audit's MDE when ``power`` is 0.8), by the
    minimum-data rule (no estimate from fewer than 10 topics)."""
    _check(alpha, power)
    short = shortfall(topics, "topics")
    if short:
        return Detectable(None, topics, sd, alpha, power, short)
    if not sd > 0:
        return Detectable(None, topics, sd, alpha, power, "every per-topic difference is the same (sd = 0)")
    return Detectable(_standard_effect(topics, alpha, power) * sd, topics, sd, alpha, power)


def sd_from_t_interval(low: float, high: float, n: int, *, confidence: float = 0.95) -> float:
    """The sd of the differences behind a paired t interval ``[low, high]`` on ``n`` topics (an audit's JSON
    keeps the interval, not the per-topic differences): half-width = t_{(1+c)/2, n−1} · sd / √n."""
    from scipy import stats

    if n < 2:
        raise UsageError(f"a t interval needs at least 2 topics (found {n})")
    t = float(stats.t.ppf((1 + confidence) / 2, n - 1))
    return (high - low) / 2 * math.sqrt(n) / t


@dataclass(frozen=True)
class JudgingCost:
    """What judging a study of ``topics`` topics costs with one strategy, from the pilot's per-topic mean."""

    strategy: str
    per_topic: float
    topics: int
    note: str

    @property
    def total(self) -> int:
        return math.ceil(self.per_topic * self.topics - 1e-9)


@dataclass(frozen=True)
class PlanResult:
    """The plan: the pilot's variance estimates, the one used, topics needed, Δ detectable, judging costs."""

    measure: str
    source: str
    pilot_topics: int
    runs: tuple[str, ...]
    variances: tuple[VarianceEstimate, ...]
    used: VarianceEstimate
    alpha: float
    comparisons: int
    power: float
    needed: TopicsNeeded | None
    detectable: Detectable
    judging: tuple[JudgingCost, ...] = ()

    @property
    def test_alpha(self) -> float:
        """The level each test is run at: α/m (Bonferroni over ``comparisons``)."""
        return self.alpha / self.comparisons


def make_plan(
    *,
    measure: str,
    source: str,
    pilot_topics: int,
    runs: Sequence[str],
    variances: Sequence[VarianceEstimate],
    used: VarianceEstimate,
    delta: float | None,
    alpha: float,
    comparisons: int,
    power: float,
    topics: int | None,
    judging: Sequence[JudgingCost] = (),
) -> PlanResult:
    """The plan's answers from the variance ``used`` (``toolkit.pipeline.plan`` builds the inputs)."""
    if comparisons < 1:
        raise UsageError(f"--comparisons must be at least 1, got {comparisons}")
    level = alpha / comparisons
    needed = topics_needed(delta=delta, sd=used.sd, alpha=level, power=power) if delta is not None else None
    at = topics if topics is not None else pilot_topics
    detectable = detectable_delta(topics=at, sd=used.sd, alpha=level, power=power)
    study = needed.topics if needed is not None else at
    costs = tuple(JudgingCost(c.strategy, c.per_topic, study, c.note) for c in judging)
    return PlanResult(
        measure,
        source,
        pilot_topics,
        tuple(runs),
        tuple(variances),
        used,
        alpha,
        comparisons,
        power,
        needed,
        detectable,
        costs,
    )
