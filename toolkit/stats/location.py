"""The location tests and estimates of a paired comparison beside the randomization test.

* the paired **t** test and its 95% interval (kept in JSON and the appendix: it assumes symmetric
  differences; the headline interval is the studentized bootstrap's, ``toolkit.stats.studentized``);
* **Wilcoxon's** signed-rank test with every scipy argument explicit: scipy's exact null when there are no
  tied magnitudes and at most 50 non-zero pairs; otherwise the exact *conditional* null (all 2^m sign flips
  of the mid-ranks, by ``randomization.exact_pvalue`` on the half-integer grid, because scipy's ``exact``
  ignores ties and its permutation method is slow); the normal approximation (no continuity correction
  unless asked) only when that is too large or on request;
* **non-inferiority** against a declared margin, by the studentized bootstrap (the one-sided t bound is
  kept for the record);
* the **minimum detectable effect** at 80% power (statsmodels' ``TTestPower``), a post hoc quantity.

Every function returns ``None`` values together with a reason when the statistic does not exist for the data
(no spread, too few topics by the minimum-data rule in ``toolkit.minimum``), never NaN. Spread is decided on
the exact integer differences (``IntegerDiffs.spread``), never on a float standard deviation: twelve copies
of +0.1 have a float sd near 1e-17, which made t ≈ 1e16 out of nothing.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from toolkit.errors import ToolkitError
from toolkit.minimum import shortfall
from toolkit.stats.grid import IntegerDiffs, integer_grid
from toolkit.stats.randomization import exact_pvalue
from toolkit.stats.studentized import METHOD as STUDENTIZED
from toolkit.stats.studentized import StudentizedDistribution, skew_shortfall

#: Said of a comparison whose per-topic differences are all equal (t, its interval, d_z do not exist).
NO_SPREAD = "every per-topic difference is the same (sd = 0)"


@dataclass(frozen=True)
class TTest:
    """The paired t test (two-sided); ``statistic``/``pvalue`` are None with a ``reason`` when undefined."""

    statistic: float | None
    df: int
    pvalue: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Interval:
    """A 95% confidence interval of the mean delta, labelled with its method; never adjusted for
    multiplicity here (``adjusted`` says so in every report). ``low``/``high`` None with a ``reason``."""

    low: float | None
    high: float | None
    method: str
    reason: str | None = None
    adjusted: bool = False
    resamples: int | None = None

    def pair(self) -> tuple[float, float] | None:
        return None if self.low is None or self.high is None else (self.low, self.high)


@dataclass(frozen=True)
class Wilcoxon:
    """scipy's Wilcoxon with the arguments it was called with (so a reader can rerun it)."""

    statistic: float | None
    pvalue: float
    zero_method: str
    method: str
    correction: bool
    alternative: str
    r_plus: float
    r_minus: float


@dataclass(frozen=True)
class NonInferiority:
    """One-sided test of H0 ``mean(d) <= -margin`` by the studentized bootstrap (``statistic`` is the observed
    studentized mean ``(mean + margin) / se``, ``pvalue`` its bootstrap p, ``ci_lower`` the one-sided
    (1 − α) bound); ``holds`` means "no regression larger than margin". ``ci_lower_t`` is the one-sided t
    bound, for the record (it assumes symmetric differences).

    When the test does not exist for the data (no spread, fewer than 30 topics, no bootstrap), ``statistic``,
    ``pvalue``, ``ci_lower`` and ``holds`` are None and ``reason`` says why: neither "holds" nor "fails".
    """

    margin: float
    statistic: float | None
    pvalue: float | None
    ci_lower: float | None
    ci_lower_t: float | None
    holds: bool | None
    reason: str | None = None
    method: str = STUDENTIZED


@dataclass(frozen=True)
class MinimumEffect:
    """The post hoc minimum detectable effect: the smallest mean delta a two-sided paired t test at ``alpha``
    would detect with ``power`` on this many topics with this spread (in the measure's units)."""

    value: float | None
    alpha: float
    power: float = 0.8
    reason: str | None = None


def t_test(diffs: IntegerDiffs) -> tuple[TTest, Interval]:
    """The paired t test of ``mean(d) == 0`` and the t interval, by the minimum-data rule."""
    from scipy import stats

    d = diffs.floats()
    n = int(d.size)
    if n < 2:
        reason = f"a t test needs at least 2 topics (found {n})"
        return TTest(None, max(0, n - 1), None, reason), Interval(None, None, "t", reason)
    if not diffs.spread():
        p = 1.0 if not np.any(diffs.values) else None
        reason = NO_SPREAD
        return TTest(None, n - 1, p, None if p is not None else reason), Interval(None, None, "t", reason)
    res = stats.ttest_1samp(d, 0.0, alternative="two-sided")
    test = TTest(float(res.statistic), int(res.df), float(res.pvalue))
    short = shortfall(n, "topics")
    if short:
        return test, Interval(None, None, "t", short)
    ci = res.confidence_interval(0.95)
    return test, Interval(float(ci.low), float(ci.high), "t")


def headline_interval(
    diffs: IntegerDiffs, dist: StudentizedDistribution | None, resamples: int, alpha: float = 0.05
) -> Interval:
    """The headline 95% interval: the studentized bootstrap's, withheld with the reason where it does not
    hold (fewer than 30 topics, no spread, bootstrap disabled). ``alpha`` is the interval's (0.05: 95%)."""
    n = int(diffs.values.size)
    reason = (
        ("bootstrap disabled (0 resamples)" if resamples <= 0 else None)
        or (None if diffs.spread() or n < 2 else NO_SPREAD)
        or skew_shortfall(n)
        or (None if dist is not None else NO_SPREAD)
    )
    if reason is not None or dist is None:
        return Interval(None, None, STUDENTIZED, reason, resamples=resamples if resamples > 0 else None)
    half = f"{float(alpha) / 2!r}"
    low, high = dist.lower(half), dist.upper(half)
    if low is None or high is None:
        reason = f"{resamples} bootstrap resamples are too few for a 95% interval"
        return Interval(None, None, STUDENTIZED, reason, resamples=resamples)
    return Interval(low, high, STUDENTIZED, resamples=resamples)


def wilcoxon(
    ints: np.ndarray, zero_method: str, *, force_asymptotic: bool = False, correction: bool = False
) -> Wilcoxon:
    """Signed-rank test on integer differences (exact ties: ``toolkit.stats.grid``; int64 or, past 2^53,
    Python integers, whose magnitudes are first replaced by their order — the test sees only ranks)."""
    from scipy import stats

    d = _ordinal(ints)
    nonzero = d[d != 0]
    ranked = d if zero_method == "pratt" else nonzero
    ranks = stats.rankdata(np.abs(ranked))
    signed = np.sign(ranked)
    r_plus = float(ranks[signed > 0].sum())
    r_minus = float(ranks[signed < 0].sum())
    if nonzero.size == 0:
        return Wilcoxon(
            None, 1.0, zero_method, "none (no non-zero differences)", False, "two-sided", 0.0, 0.0
        )
    has_ties = np.unique(np.abs(nonzero)).size < nonzero.size or (
        zero_method == "pratt" and nonzero.size < d.size
    )
    if force_asymptotic:
        label = "asymptotic"
    elif not has_ties and nonzero.size <= 50:
        label = "exact"
    else:
        exact = exact_pvalue(integer_grid(signed * ranks, 2).values)
        if exact is not None:
            statistic = min(r_plus, r_minus)
            return Wilcoxon(
                statistic, exact[0], zero_method, "exact conditional", False, "two-sided", r_plus, r_minus
            )
        label = "asymptotic"
    used_correction = correction and label == "asymptotic"
    # zeros never change a signed-rank sum under 'wilcox', so they are dropped before the call (scipy drops
    # them too); under 'pratt' they keep their ranks and are passed through
    res = stats.wilcoxon(
        ranked.astype(float),
        zero_method=zero_method,
        correction=used_correction,
        alternative="two-sided",
        method=label,
    )
    return Wilcoxon(
        float(res.statistic),
        float(res.pvalue),
        zero_method,
        label,
        used_correction,
        "two-sided",
        r_plus,
        r_minus,
    )


def _ordinal(ints: np.ndarray) -> np.ndarray:
    """Signed dense codes of the magnitudes (0 stays 0): the same signs, ties and order of |d| as ``ints``."""
    values = np.asarray(ints)
    if values.dtype != object:
        return values.astype(np.int64)
    magnitudes = sorted({abs(int(v)) for v in values.tolist()} - {0})
    code = {m: i + 1 for i, m in enumerate(magnitudes)}
    return np.array(
        [0 if v == 0 else (code[abs(int(v))] if v > 0 else -code[abs(int(v))]) for v in values.tolist()]
    )


def minimum_effect(n: int, sd: float, alpha: float) -> MinimumEffect:
    """Post hoc MDE at 80% power and ``alpha`` (the confirmatory level, α/m for m candidates)."""
    short = shortfall(n, "topics")
    if short:
        return MinimumEffect(None, alpha, reason=short)
    if sd == 0:
        return MinimumEffect(None, alpha, reason=NO_SPREAD)
    return MinimumEffect(_standard_mde(n, alpha) * sd, alpha)


@functools.lru_cache(maxsize=256)
def _standard_mde(n: int, alpha: float) -> float:
    """The standardised effect solved by statsmodels (depends on n and α only, so it is computed once)."""
    from statsmodels.stats.power import TTestPower

    effect = TTestPower().solve_power(
        effect_size=None, nobs=n, alpha=alpha, power=0.8, alternative="two-sided"
    )
    return float(np.asarray(effect).item())


def noninferiority(
    diffs: IntegerDiffs, margin: float, alpha: float, dist: StudentizedDistribution | None, resamples: int
) -> NonInferiority:
    """H0 ``mean(d) <= -margin`` by the studentized bootstrap at ``alpha`` (``toolkit.stats.studentized``);
    withheld with the reason below 30 topics, without spread, or without a bootstrap."""
    from scipy import stats

    if not margin >= 0:
        raise ToolkitError(f"non-inferiority margin must be >= 0, got {margin}")
    n = int(diffs.values.size)
    t_lower = None
    if n >= 2 and diffs.spread():
        d = diffs.floats()
        t_lower = float(d.mean()) - float(stats.t.ppf(1 - alpha, n - 1)) * float(d.std(ddof=1)) / math.sqrt(n)
    reason = (
        (None if diffs.spread() or n < 2 else f"{NO_SPREAD}: no standard error to test by")
        or skew_shortfall(n, "a non-inferiority claim that holds under skewed per-topic differences")
        or ("bootstrap disabled (0 resamples)" if resamples <= 0 or dist is None else None)
    )
    if reason is None and dist is not None:
        lower = dist.lower(repr(alpha))
        if lower is None:
            reason = f"{resamples} bootstrap resamples are too few for a one-sided bound at α = {alpha:g}"
        else:
            t, p = dist.pvalue_above(-margin)
            return NonInferiority(margin, t, p, lower, t_lower, p < alpha)
    return NonInferiority(margin, None, None, None, t_lower, None, reason)
