"""Two runs, one measure, paired by topic: the battery of docs/design.md §7, for one pair or many at once.

Everything starts from the per-topic differences ``d = candidate − baseline`` as integers on a grid
(``toolkit.stats.grid``: the measure's exact rational grid when it has one, else 1e-9), so that float
round-off can neither split a tie nor flip a sign. On them:

* the **declared test** (``test``: the paired randomization test by default, or ``t`` / ``wilcoxon``) gives
  the p-value decisions use; the other two are computed too and reported in JSON and the appendix;
* the headline **95% CI is the studentized bootstrap's** (10,000 seeded topic resamples; withheld below 30
  topics, where no interval holds under skew: ``toolkit.stats.studentized``); the paired t interval is kept in
  JSON and the appendix; both are unadjusted for multiplicity and say so;
* effect sizes: Cohen's d_z = mean(d)/sd(d), and the matched-pairs rank-biserial (R+ − R−)/(R+ + R−);
* the **post hoc** minimum detectable effect at 80% power, at the confirmatory level (``mde_alpha``: α/m for
  m candidates, Bonferroni);
* non-inferiority against a declared margin, by the same studentized bootstrap (``toolkit.stats.location``).

Many pairs at once (``paired_tests``): the exact tests run per pair; every pair that needs Monte Carlo shares
one seeded stream of sign vectors, and every pair's bootstrap one stream of resamples
(``toolkit.stats.resampling``) — one matrix product per chunk instead of one draw per test.

Degenerate inputs are explicit: no topics is an error; all-zero differences give p = 1 and null t, d_z and
MDE with a reason; so do equal non-zero differences (decided on the integers: no spread, no t); estimates on fewer than 10 topics are null by the minimum-data rule (``toolkit.minimum``);
fewer than 6 non-zero pairs carry a note saying that no exact test can reach α.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from toolkit.errors import ToolkitError, ToolkitWarning
from toolkit.minimum import shortfall
from toolkit.stats.counts import reach_note
from toolkit.stats.grid import IntegerDiffs, Rationals, pair_integers, value_grid, value_rationals
from toolkit.stats.location import (
    NO_SPREAD,
    Interval,
    MinimumEffect,
    NonInferiority,
    TTest,
    Wilcoxon,
    headline_interval,
    minimum_effect,
    noninferiority,
    t_test,
    wilcoxon,
)
from toolkit.stats.randomization import (
    DEFAULT_RESAMPLES,
    RandomizationResult,
    exact_pvalue,
    monte_carlo_result,
)
from toolkit.stats.resampling import DEFAULT_BOOTSTRAP, bootstrap_moments, flip_counts
from toolkit.stats.studentized import StudentizedDistribution, distributions, skew_shortfall

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "TESTS",
    "Interval",
    "MinimumEffect",
    "NonInferiority",
    "Panel",
    "PairSpec",
    "PairedResult",
    "TTest",
    "Wilcoxon",
    "paired_test",
    "paired_tests",
]

#: The tests a comparison may declare; the first is the default.
TESTS: tuple[str, ...] = ("randomization", "t", "wilcoxon")


def declared_pvalue(
    test: str, t: TTest, wilcoxon: Wilcoxon, randomization: RandomizationResult
) -> float | None:
    """The declared test's p-value, for every result that carries all three: one rule, so a pair and the
    same pair in the all-pairs family can never read different tests."""
    if test == "t":
        return t.pvalue
    if test == "wilcoxon":
        return wilcoxon.pvalue
    return randomization.pvalue


@dataclass(frozen=True)
class PairedResult:
    """Paired comparison of two runs on one measure; ``diffs`` are per topic, in ``topics`` order.

    ``pvalue`` is the declared ``test``'s; ``family``, ``p_adjusted``, ``adjustment`` and ``verdict`` are filled
    in by the comparison that owns the result (``toolkit.stats.families``).
    """

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
    ci95: Interval
    ci95_t: Interval
    randomization: RandomizationResult
    t: TTest
    wilcoxon: Wilcoxon
    d_z: float | None
    rank_biserial: float | None
    effect_reason: str | None
    mde80: MinimumEffect
    noninferiority: NonInferiority | None
    alpha: float
    seed: int
    bootstrap: int
    test: str = "randomization"
    family: str = ""
    p_adjusted: float | None = None
    adjustment: str = ""
    verdict: str = ""
    primary: bool = False
    notes: tuple[str, ...] = field(default=())

    @property
    def pvalue(self) -> float | None:
        """The p-value decisions use: the declared test's (None only when the t test is undefined)."""
        return declared_pvalue(self.test, self.t, self.wilcoxon, self.randomization)

    @property
    def decision_p(self) -> float | None:
        """The adjusted p when the result belongs to an adjusted family, else the declared test's p."""
        return self.p_adjusted if self.p_adjusted is not None else self.pvalue


@dataclass(frozen=True)
class Panel:
    """Several runs' values of one measure on the same topics (``values``: topics × runs), with each run's
    exact fractions when the measure has a grid.

    The unit the tests share: a pair's differences are the difference of two columns, so the Monte Carlo
    pass multiplies the sign vectors by one column per run instead of one per pair.
    """

    measure: Measure
    topics: tuple[str, ...]
    runs: tuple[str, ...]
    values: np.ndarray
    rationals: tuple[Rationals | None, ...]

    @classmethod
    def of(cls, measure: Measure, topics: Sequence[str], runs: Sequence[str], values: np.ndarray) -> Panel:
        x = np.asarray(values, dtype=float)
        rats = tuple(value_rationals(x[:, j], measure) for j in range(x.shape[1]))
        return cls(measure, tuple(topics), tuple(runs), x, rats)

    @functools.cached_property
    def grid(self) -> IntegerDiffs:
        """Every run's values on one integer grid (``toolkit.stats.grid.value_grid``), for Monte Carlo."""
        return value_grid(self.values, self.rationals)

    def pair(self, i: int, j: int) -> IntegerDiffs:
        """Run ``j`` − run ``i`` per topic as integers (exact over the pair's own common denominator)."""
        return pair_integers(self.values[:, i], self.values[:, j], self.rationals[i], self.rationals[j])


@dataclass(frozen=True)
class PairedOptions:
    """The battery's settings, declared once for ``paired_test``, ``paired_tests`` and their callers.

    ``wilcoxon_method`` ``auto`` picks exact / exact conditional / asymptotic as described in
    ``toolkit.stats.location``; ``asymptotic`` forces the normal approximation (with ``correction`` for
    continuity when asked). ``mde_alpha`` (the minimum detectable effect's α) defaults to ``alpha``.
    """

    alpha: float = 0.05
    seed: int = 42
    zero_method: str = "wilcox"
    wilcoxon_method: str = "auto"
    correction: bool = False
    resamples: int = DEFAULT_RESAMPLES
    bootstrap: int = DEFAULT_BOOTSTRAP
    test: str = "randomization"
    mde_alpha: float | None = None

    def __post_init__(self) -> None:
        if self.zero_method not in ("wilcox", "pratt"):
            raise ToolkitError(f"zero_method must be 'wilcox' or 'pratt', not {self.zero_method!r}")
        if self.wilcoxon_method not in ("auto", "asymptotic"):
            raise ToolkitError(
                f"wilcoxon_method must be 'auto' or 'asymptotic', not {self.wilcoxon_method!r}"
            )
        if self.test not in TESTS:
            raise ToolkitError(f"test must be one of {', '.join(TESTS)}, not {self.test!r}")


@dataclass(frozen=True)
class PairSpec:
    """One question for ``paired_tests``: run ``j`` (candidate) against run ``i`` (baseline) of a panel."""

    panel: Panel
    i: int
    j: int
    margin: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def measure(self) -> Measure:
        return self.panel.measure


def paired_test(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    *,
    measure: Measure | str,
    baseline_name: str = "baseline",
    candidate_name: str = "candidate",
    margin: float | None = None,
    options: PairedOptions = PairedOptions(),
) -> PairedResult:
    """Compare two runs' per-topic values of one measure (topics paired by id; see the module docstring).

    ``measure`` is an ir_measures object (a name is parsed once here); it is recorded in the result and gives
    the exact grid. ``options`` (``PairedOptions``) are the battery's settings.
    """
    from toolkit.scoring.measures import measure_object

    m = measure_object(measure)
    spec = pair_spec(baseline, candidate, m, baseline_name, candidate_name, margin=margin)
    (result,) = paired_tests([spec], options)
    return result


def pair_spec(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    measure: Measure,
    name_a: str,
    name_b: str,
    *,
    margin: float | None = None,
) -> PairSpec:
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
        dropped = set(nan)
        topics = [q for q in topics if q not in dropped]
    if not topics:
        raise ToolkitError(
            f"{measure}: {name_a} and {name_b} share no topic with a value; check that both runs were "
            "scored against the same topics/qrels"
        )
    values = np.array([[float(baseline[q]), float(candidate[q])] for q in topics])
    panel = Panel.of(measure, topics, (name_a, name_b), values)
    return PairSpec(panel, 0, 1, margin, tuple(notes))


def paired_tests(
    specs: Sequence[PairSpec],
    options: PairedOptions = PairedOptions(),
    *,
    tested: tuple[list[IntegerDiffs], list[RandomizationResult]] | None = None,
) -> list[PairedResult]:
    """The battery for every spec, sharing the Monte Carlo sign flips and the bootstrap across specs with the
    same number of topics (see the module docstring). Results come back in the order of ``specs``.

    ``tested`` passes the specs' ``randomization_for`` result when a caller ran it with more specs (one Monte
    Carlo pass for a comparison's battery and its all-pairs family)."""
    ints, rand = tested or randomization_for(specs, seed=options.seed, resamples=options.resamples)
    boots = studentized_for(ints, seed=options.seed, resamples=options.bootstrap)
    return [
        _battery(spec, idiff, r, boot, options)
        for spec, idiff, r, boot in zip(specs, ints, rand, boots, strict=True)
    ]


def randomization_for(
    specs: Sequence[PairSpec], *, seed: int, resamples: int = DEFAULT_RESAMPLES
) -> tuple[list[IntegerDiffs], list[RandomizationResult]]:
    """Each spec's integer differences and two-sided randomization test: exact one by one where feasible, the
    rest in one Monte Carlo pass per topic count, over the panels' columns (by linearity)."""
    ints = [s.panel.pair(s.i, s.j) for s in specs]
    results: list[RandomizationResult | None] = []
    pending: dict[int, list[int]] = {}
    for k, (spec, idiff) in enumerate(zip(specs, ints, strict=True)):
        exact = exact_pvalue(idiff.values)
        if exact is None:
            results.append(None)
            pending.setdefault(len(spec.panel.topics), []).append(k)
        else:
            p, method = exact
            results.append(RandomizationResult(p, True, None, method, "two-sided", idiff.mean(), idiff.grid))
    for members in pending.values():
        offsets: dict[int, int] = {}
        blocks: list[np.ndarray] = []
        for k in members:
            panel = specs[k].panel
            if id(panel) not in offsets:
                offsets[id(panel)] = sum(b.shape[1] for b in blocks)
                blocks.append(panel.grid.values)
        left = np.array([offsets[id(specs[k].panel)] + specs[k].i for k in members])
        right = np.array([offsets[id(specs[k].panel)] + specs[k].j for k in members])
        two, _, _ = flip_counts(
            np.hstack(blocks), seed=seed, resamples=resamples, left=left, right=right, one_sided=False
        )
        for k, count in zip(members, two.tolist(), strict=True):
            grid = specs[k].panel.grid
            results[k] = monte_carlo_result(ints[k], count, resamples=resamples, grid=grid.grid)
    return ints, [r for r in results if r is not None]


def studentized_for(
    ints: Sequence[IntegerDiffs], *, seed: int, resamples: int
) -> list[StudentizedDistribution | None]:
    """The bootstrap-t distribution of each pair's mean difference: one shared pass of topic resamples per
    topic count over every pair's differences (the draws depend on the seed and n only). Pairs below the
    skew rule's 30 topics, or without spread, get None: their interval is withheld anyway."""
    out: list[StudentizedDistribution | None] = [None] * len(ints)
    if resamples <= 0:
        return out
    groups: dict[int, list[int]] = {}
    for k, idiff in enumerate(ints):
        if not skew_shortfall(int(idiff.values.size)) and idiff.spread():
            groups.setdefault(int(idiff.values.size), []).append(k)
    for members in groups.values():
        d = np.column_stack([ints[k].floats() for k in members])
        means, squares = bootstrap_moments(d, seed=seed, resamples=resamples)
        for k, dist in zip(members, distributions(d, means, squares), strict=True):
            out[k] = dist
    return out


def _battery(
    spec: PairSpec,
    idiff: IntegerDiffs,
    rand: RandomizationResult,
    boot: StudentizedDistribution | None,
    options: PairedOptions,
) -> PairedResult:
    alpha, bootstrap = options.alpha, options.bootstrap
    d = idiff.floats()
    a = spec.panel.values[:, spec.i]
    b = spec.panel.values[:, spec.j]
    n = int(d.size)
    nonzero = int(np.count_nonzero(idiff.values))
    mean = idiff.mean()
    sd = float(d.std(ddof=1)) if n > 1 and idiff.spread() else 0.0
    ttest, ci_t = t_test(idiff)
    wil = wilcoxon(
        idiff.values,
        options.zero_method,
        force_asymptotic=options.wilcoxon_method == "asymptotic",
        correction=options.correction,
    )
    notes = list(spec.notes)
    note = reach_note(nonzero, alpha)
    if note and options.test != "t":
        notes.append(note)
    if nonzero == 0:
        notes.append("all per-topic differences are zero")
    effect_reason = shortfall(n, "topics") or (NO_SPREAD if sd == 0 else None)
    rsum = wil.r_plus + wil.r_minus
    ni = None if spec.margin is None else noninferiority(idiff, spec.margin, alpha, boot, bootstrap)
    return PairedResult(
        measure=spec.measure,
        baseline=spec.panel.runs[spec.i],
        candidate=spec.panel.runs[spec.j],
        topics=spec.panel.topics,
        baseline_values=tuple(a.tolist()),
        candidate_values=tuple(b.tolist()),
        diffs=tuple(d.tolist()),
        n=n,
        n_nonzero=nonzero,
        mean_baseline=float(a.mean()),
        mean_candidate=float(b.mean()),
        delta=mean,
        ci95=headline_interval(idiff, boot, bootstrap),
        ci95_t=ci_t,
        randomization=rand,
        t=ttest,
        wilcoxon=wil,
        d_z=None if effect_reason else mean / sd,
        rank_biserial=None if effect_reason or rsum == 0 else (wil.r_plus - wil.r_minus) / rsum,
        effect_reason=effect_reason,
        mde80=minimum_effect(n, sd, alpha if options.mde_alpha is None else options.mde_alpha),
        noninferiority=ni,
        alpha=alpha,
        seed=options.seed,
        bootstrap=bootstrap,
        test=options.test,
        notes=tuple(notes),
    )
