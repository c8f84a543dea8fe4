"""Two runs, one measure, paired by topic: the battery of DESIGN §7.

Everything starts from the per-topic differences ``d = candidate - baseline`` put on the 1e-9 grid (so that
float round-off cannot make equal magnitudes unequal and flip a rank or a sign). On them:

* the mean with a seeded paired-bootstrap 95% CI (percentile, >= 10,000 resamples) and the t interval;
* the paired randomization test (exact when possible, see ``randomization``), the paired t-test, and
  Wilcoxon's signed-rank test with every scipy argument explicit: scipy's exact null when there are no
  tied magnitudes and at most 50 non-zero pairs; otherwise the exact *conditional* null (all 2^m sign flips
  of the mid-ranks, computed by the sign-flip enumeration/DP of ``randomization`` because scipy's ``exact``
  ignores ties and its permutation method is slow); the normal approximation (no continuity correction
  unless asked) only when that is too large or on request;
* effect sizes: Cohen's d_z = mean(d)/sd(d), and the matched-pairs rank-biserial (R+ − R−)/(R+ + R−);
* the minimum detectable effect at 80% power: statsmodels' ``TTestPower`` solved for the standardised effect,
  times sd(d) — what this topic set could have detected, in the measure's own units;
* non-inferiority against a declared margin: H0 mean(d) <= −margin, one-sided t; "no regression larger than
  the margin" holds only when that H0 is rejected (equivalently the one-sided 95% lower bound is > −margin).

Degenerate inputs are explicit: no topics is an error; all-zero differences give p = 1 and undefined
(``None``) t, d_z and MDE instead of NaN; fewer than 6 non-zero pairs carry a ``note`` saying that no exact
test can reach α.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from toolkit.errors import ToolkitError, ToolkitWarning
from toolkit.stats.counts import reach_note
from toolkit.stats.randomization import DEFAULT_RESAMPLES, RandomizationResult, on_grid, randomization_test

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Default number of paired-bootstrap resamples.
DEFAULT_BOOTSTRAP = 10_000


@dataclass(frozen=True)
class TTest:
    statistic: float | None
    df: int
    pvalue: float | None


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
    """One-sided test of H0 ``mean(d) <= -margin``; ``holds`` means "no regression larger than margin"."""

    margin: float
    statistic: float | None
    pvalue: float
    ci_lower: float
    ci_lower_bootstrap: float
    holds: bool


@dataclass(frozen=True)
class PairedResult:
    """Paired comparison of two runs on one measure; ``diffs`` are per topic, in ``topics`` order."""

    measure: Measure
    baseline: str
    candidate: str
    topics: tuple[str, ...]
    baseline_values: tuple[float, ...]
    candidate_values: tuple[float, ...]
    diffs: tuple[float, ...]
    n: int
    n_nonzero: int
    mean_baseline: float
    mean_candidate: float
    delta: float
    ci95: tuple[float, float]
    ci95_t: tuple[float, float] | None
    randomization: RandomizationResult
    t: TTest
    wilcoxon: Wilcoxon
    d_z: float | None
    rank_biserial: float | None
    mde80: float | None
    noninferiority: NonInferiority | None
    alpha: float
    seed: int
    bootstrap: int
    p_adjusted: float | None = None
    primary: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def pvalue(self) -> float:
        """The p-value decisions use: the randomization test's."""
        return self.randomization.pvalue


def paired_test(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    measure: Measure | str,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    alpha: float = 0.05,
    seed: int = 42,
    margin: float | None = None,
    zero_method: str = "wilcox",
    wilcoxon_method: str = "auto",
    correction: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    bootstrap: int = DEFAULT_BOOTSTRAP,
) -> PairedResult:
    """Compare two runs' per-topic values of one measure (topics paired by id; see the module docstring).

    ``measure`` is an ir_measures object (a name is parsed once here); it is recorded in the result and gives
    the randomization test its grid. ``wilcoxon_method`` ``auto`` picks exact / exact conditional / asymptotic
    as described above; ``asymptotic`` forces the normal approximation (with ``correction`` for continuity when
    asked).
    """
    from toolkit.scoring.measures import measure_object

    measure = measure_object(measure)
    if zero_method not in ("wilcox", "pratt"):
        raise ToolkitError(f"zero_method must be 'wilcox' or 'pratt', not {zero_method!r}")
    topics, a, b, notes = _pair(baseline, candidate, measure, baseline_name, candidate_name)
    d = on_grid(b - a)
    n = int(d.size)
    nonzero = int(np.count_nonzero(d))
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    rand = randomization_test(d, measure=measure, seed=seed, resamples=resamples)
    ttest, ci_t = _t_test(d, mean, sd)
    if wilcoxon_method not in ("auto", "asymptotic"):
        raise ToolkitError(f"wilcoxon_method must be 'auto' or 'asymptotic', not {wilcoxon_method!r}")
    wil = _wilcoxon(d, zero_method, force_asymptotic=wilcoxon_method == "asymptotic", correction=correction)
    boot = _bootstrap_means(d, seed=seed, resamples=bootstrap)
    ci95 = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5)))
    rsum = wil.r_plus + wil.r_minus
    note = reach_note(nonzero, alpha)
    if note:
        notes.append(note)
    if nonzero == 0:
        notes.append("all per-topic differences are zero")
    ni = None
    if margin is not None:
        ni = _noninferiority(d, mean, sd, margin, alpha, boot)
    return PairedResult(
        measure=measure,
        baseline=baseline_name,
        candidate=candidate_name,
        topics=tuple(topics),
        baseline_values=tuple(float(x) for x in a),
        candidate_values=tuple(float(x) for x in b),
        diffs=tuple(float(x) for x in d),
        n=n,
        n_nonzero=nonzero,
        mean_baseline=float(a.mean()),
        mean_candidate=float(b.mean()),
        delta=mean,
        ci95=ci95,
        ci95_t=ci_t,
        randomization=rand,
        t=ttest,
        wilcoxon=wil,
        d_z=mean / sd if sd > 0 else None,
        rank_biserial=(wil.r_plus - wil.r_minus) / rsum if rsum > 0 else None,
        mde80=_mde(n, sd, alpha),
        noninferiority=ni,
        alpha=alpha,
        seed=seed,
        bootstrap=bootstrap,
        notes=tuple(notes),
    )


def _pair(
    baseline: Mapping[str, float], candidate: Mapping[str, float], measure: Measure, name_a: str, name_b: str
) -> tuple[list[str], np.ndarray, np.ndarray, list[str]]:
    """Topics present with a finite value in both runs; every topic dropped is named in a warning."""
    notes: list[str] = []
    only_a = [q for q in baseline if q not in candidate]
    only_b = [q for q in candidate if q not in baseline]
    for who, missing in ((name_b, only_a), (name_a, only_b)):
        if missing:
            msg = f"{measure}: {len(missing)} topic(s) missing from {who} were left out: {', '.join(missing[:10])}"
            warnings.warn(msg, ToolkitWarning, stacklevel=3)
            notes.append(msg)
    topics = [q for q in baseline if q in candidate]
    nan = [q for q in topics if not (math.isfinite(baseline[q]) and math.isfinite(candidate[q]))]
    if nan:
        msg = f"{measure}: {len(nan)} topic(s) with a NaN/infinite value were left out: {', '.join(nan[:10])}"
        warnings.warn(msg, ToolkitWarning, stacklevel=3)
        notes.append(msg)
        topics = [q for q in topics if q not in set(nan)]
    if not topics:
        raise ToolkitError(
            f"{measure}: {name_a} and {name_b} share no topic with a value; check that both runs were "
            "scored against the same topics/qrels"
        )
    a = np.array([float(baseline[q]) for q in topics])
    b = np.array([float(candidate[q]) for q in topics])
    return topics, a, b, notes


def _t_test(d: np.ndarray, mean: float, sd: float) -> tuple[TTest, tuple[float, float] | None]:
    from scipy import stats

    n = d.size
    if n < 2 or sd == 0:
        return TTest(None, n - 1, None if mean != 0 or n < 2 else 1.0), None
    res = stats.ttest_1samp(d, 0.0, alternative="two-sided")
    ci = res.confidence_interval(0.95)
    return TTest(float(res.statistic), int(res.df), float(res.pvalue)), (float(ci.low), float(ci.high))


def _wilcoxon(
    d: np.ndarray, zero_method: str, *, force_asymptotic: bool = False, correction: bool = False
) -> Wilcoxon:
    from scipy import stats

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
        # tied magnitudes: scipy's 'exact' ignores ties and its permutation method is slow, so the exact
        # conditional distribution (all 2^m sign flips of the mid-ranks) comes from our sign-flip DP on the
        # half-integer grid of mid-ranks; when that is too large, the normal approximation is used
        exact = randomization_test(signed * ranks, grid=2, resamples=1)
        if exact.exact:
            statistic = min(r_plus, r_minus)
            return Wilcoxon(
                statistic, exact.pvalue, zero_method, "exact conditional", False, "two-sided", r_plus, r_minus
            )
        label = "asymptotic"
    used_correction = correction and label == "asymptotic"
    # zeros never change a signed-rank sum under 'wilcox', so they are dropped before the call (scipy drops
    # them too); under 'pratt' they keep their ranks and are passed through
    res = stats.wilcoxon(
        ranked, zero_method=zero_method, correction=used_correction, alternative="two-sided", method=label
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


def _bootstrap_means(d: np.ndarray, *, seed: int, resamples: int) -> np.ndarray:
    """Means of ``resamples`` paired-bootstrap samples of the topics, from ``Generator(PCG64(seed))``."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = d.size
    out = np.empty(resamples)
    chunk = max(1, min(resamples, 4_000_000 // max(1, n)))
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        idx = rng.integers(0, n, size=(size, n))
        out[start : start + size] = d[idx].mean(axis=1)
    return out


def _mde(n: int, sd: float, alpha: float) -> float | None:
    """Smallest mean difference a two-sided paired t-test detects with 80% power here (None if undefined)."""
    if n < 2 or sd == 0:
        return None
    from statsmodels.stats.power import TTestPower

    effect = TTestPower().solve_power(
        effect_size=None, nobs=n, alpha=alpha, power=0.8, alternative="two-sided"
    )
    return float(np.asarray(effect).item()) * sd


def _noninferiority(
    d: np.ndarray, mean: float, sd: float, margin: float, alpha: float, boot: np.ndarray
) -> NonInferiority:
    from scipy import stats

    if margin < 0:
        raise ToolkitError(f"non-inferiority margin must be >= 0, got {margin}")
    n = d.size
    boot_lower = float(np.percentile(boot, 100 * alpha))
    if n < 2 or sd == 0:
        # no spread: the data say exactly mean(d); H0 is rejected iff mean(d) > -margin
        holds = mean > -margin
        return NonInferiority(margin, None, 0.0 if holds else 1.0, mean, boot_lower, holds)
    se = sd / math.sqrt(n)
    t = (mean + margin) / se
    p = float(stats.t.sf(t, n - 1))
    lower = mean - float(stats.t.ppf(1 - alpha, n - 1)) * se
    return NonInferiority(margin, float(t), p, lower, boot_lower, p < alpha)
