"""The records a comparison returns (frozen; ``toolkit.reports`` renders them).

``ComparisonResult`` holds every answer ``compare``, ``gate`` and ``audit`` report, in families
(``toolkit.stats.families``): the confirmatory test of the primary measure per candidate, the secondary
measures, the exploratory per-class rows and all pairs. ``verdicts()`` gives the one-line answer per
candidate the audit opens with; ``regression_check()`` what ``--fail-on regression`` decides and on which
criterion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.stats.buckets import RankOutcome
from toolkit.stats.location import Interval, TTest, Wilcoxon
from toolkit.stats.paired import PairedResult, declared_pvalue
from toolkit.stats.preference import PreferenceResult
from toolkit.stats.randomization import RandomizationResult

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.scoring.judged import JudgedResult
    from toolkit.scoring.refusal import RefusalScores
    from toolkit.stats.refusal import RefusalComparison


@dataclass(frozen=True)
class Failures:
    """Failed topics per run (from the run manifests) and the candidates they make not comparable.

    Built by the run-failure policy (``toolkit.pipeline.failures.comparison_failures``); ``allowed`` records
    that the user opted in (``--allow-failed``), so the verdicts were computed anyway. ``unrecorded`` names the
    runs without a manifest, whose failures are unknown (an empty result of theirs counts as a refusal).
    """

    failed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    not_comparable: Mapping[str, str] = field(default_factory=dict)
    allowed: bool = False
    unrecorded: tuple[str, ...] = ()

    def count(self, run: str) -> int:
        return len(self.failed.get(run, ()))

    def pair_reason(self, a: str, b: str) -> str | None:
        """ "not comparable: …" for a pair of runs (all-pairs family) when either failed topics, unless allowed."""
        if self.allowed:
            return None
        parts = [
            f"{self.count(r)} topic{'' if self.count(r) == 1 else 's'} failed in {r}"
            for r in (a, b)
            if self.count(r)
        ]
        return "not comparable: " + ", ".join(parts) if parts else None


@dataclass(frozen=True)
class Confirmatory:
    """The declared confirmatory design: ``measure`` per candidate, by ``test``, adjusted by ``adjustment``
    (holm, or fixed-sequence over ``order``) across the ``m`` candidates, at ``alpha``."""

    measure: Measure
    test: str
    adjustment: str
    order: tuple[str, ...]
    alpha: float

    @property
    def m(self) -> int:
        return len(self.order)


@dataclass(frozen=True)
class ClassBreakdown:
    """One query class: its topics, its measures, each run's means, and each candidate's exploratory tests."""

    query_class: str
    topics: tuple[str, ...]
    measures: tuple[Measure, ...]
    means: Mapping[str, Mapping[Measure, float]]
    comparisons: tuple[PairedResult, ...]


@dataclass(frozen=True)
class PairwiseResult:
    """Run ``b`` against run ``a`` on one measure, for the all-pairs family (no per-topic data). A pair with the
    baseline shows the verdict of the family that answers it (confirmatory or secondary), labelled so."""

    a: str
    b: str
    measure: Measure
    n: int
    delta: float
    ci95: Interval
    randomization: RandomizationResult
    t: TTest
    wilcoxon: Wilcoxon
    test: str
    alpha: float
    p_adjusted: float | None = None
    verdict: str = ""
    #: Why a pair with the baseline reads its own family's verdict rather than this family's, when they differ.
    note: str = ""

    @property
    def pvalue(self) -> float | None:
        return declared_pvalue(self.test, self.t, self.wilcoxon, self.randomization)


@dataclass(frozen=True)
class AllPairs:
    """Every pair of runs on one measure: one exploratory family, adjusted by ``adjustment``."""

    measure: Measure
    adjustment: str
    pairs: tuple[PairwiseResult, ...]


@dataclass(frozen=True)
class CandidateVerdict:
    """The answer for one candidate: the confirmatory result and what a reader must know before trusting it."""

    candidate: str
    result: PairedResult | None
    verdict: str
    comparable: bool
    failed: Mapping[str, int]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class RegressionCheck:
    """What ``--fail-on regression`` checked (``criterion``, in words) and which candidates failed it."""

    criterion: str
    failed: tuple[tuple[str, str], ...]

    @property
    def passed(self) -> bool:
        return not self.failed


@dataclass(frozen=True)
class ComparisonResult:
    """Everything a comparison found; ``reports`` renders it as text, Markdown, JSON and HTML.

    Measures are ir_measures objects (``str()`` gives the name shown); ``means[run][measure]``.
    ``comparisons`` holds the confirmatory and secondary families, candidate by candidate. ``refusal`` is each
    run's refusal outcome (in run order) and ``refusal_tests`` each candidate's exact McNemar against the
    baseline on it (``toolkit.stats.refusal``).
    """

    runs: tuple[str, ...]
    baseline: str
    measures: tuple[Measure, ...]
    primary: Measure
    primary_declared: bool
    alpha: float
    seed: int
    correction: str
    test: str
    confirmatory: Confirmatory
    comparisons: tuple[PairedResult, ...]
    rank1: tuple[RankOutcome, ...]
    preferences: tuple[PreferenceResult, ...]
    by_class: Mapping[str, ClassBreakdown]
    all_pairs: tuple[AllPairs, ...]
    means: Mapping[str, Mapping[Measure, float]]
    empty: Mapping[str, tuple[str, ...]]
    judged: tuple[JudgedResult, ...]
    judged_human: bool
    failures: Failures
    setup: Mapping[str, Any]
    versions: Mapping[str, str]
    margins: Mapping[Measure, float] = field(default_factory=dict)
    refusal: tuple[RefusalScores, ...] = ()
    refusal_tests: tuple[RefusalComparison, ...] = ()

    @property
    def candidates(self) -> tuple[str, ...]:
        return self.runs[1:]

    def comparison(self, candidate: str, measure: Measure | str) -> PairedResult | None:
        """The paired result of ``candidate`` on ``measure`` (an object or any spelling of one)."""
        from toolkit.scoring.measures import measure_object

        wanted = measure_object(measure)
        for c in self.comparisons:
            if c.candidate == candidate and c.measure == wanted:
                return c
        return None

    def regressions(self) -> tuple[PairedResult, ...]:
        """Candidates significantly worse on the primary measure in the confirmatory family (adjusted p < α),
        or significant with the test's direction and the mean's disagreeing (the mean may have dropped).

        Not a "no regression" check for the others: that needs non-inferiority (``regression_check``)."""
        from toolkit.stats.families import WORSE, disagrees

        return tuple(
            c for c in self.comparisons if c.primary and (c.verdict == WORSE or disagrees(c.verdict))
        )

    def judged_warnings(self, run: str) -> tuple[str, ...]:
        """Judged@k below 1 with pooled human qrels: the run is scored partly on unjudged documents."""
        if not self.judged_human:
            return ()
        return tuple(
            f"Judged@{j.depth} of {j.run} is {j.rate:.4f}: {len(j.unjudged_topics)} of {j.topics} topics have "
            f"unjudged documents in the top {j.depth}, counted as non-relevant"
            for j in self.judged
            if j.run == run and j.unjudged_topics
        )

    def verdicts(self) -> tuple[CandidateVerdict, ...]:
        """One verdict per candidate, from the confirmatory family, with its failures and Judged@k warnings."""
        out = []
        for cand in self.candidates:
            c = self.comparison(cand, self.primary)
            failed = {r: self.failures.count(r) for r in (self.baseline, cand) if self.failures.count(r)}
            blocked = self.failures.not_comparable.get(cand)
            warnings = (*self.judged_warnings(self.baseline), *self.judged_warnings(cand))
            words = blocked or (c.verdict if c is not None else "no confirmatory test")
            out.append(CandidateVerdict(cand, c, words, blocked is None, failed, warnings))
        return tuple(out)

    def regression_check(self) -> RegressionCheck:
        """``--fail-on regression``: non-inferiority on the primary measure when a margin is declared for it
        (a candidate fails unless it holds), else the confirmatory test (a candidate fails when it is
        significantly worse). A candidate that is not comparable fails either way."""
        margin = self.margins.get(self.primary)
        if margin is not None:
            criterion = (
                f"non-inferiority of {self.primary} with margin {margin:g} (one-sided t test at α = "
                f"{self.alpha:g}): a candidate passes only when a regression larger than {margin:g} is ruled out"
            )
        else:
            criterion = (
                f"the confirmatory {self.test} test of {self.primary} ({self.confirmatory.adjustment} over "
                f"{self.confirmatory.m} candidate(s), α = {self.alpha:g}): a candidate fails when it is "
                "significantly worse, or significant with its test's direction and the mean's disagreeing; "
                "passing is not evidence of no regression (declare --margin for that)"
            )
        from toolkit.stats.families import disagrees

        failed = []
        for v in self.verdicts():
            if not v.comparable:
                failed.append((v.candidate, v.verdict))
                continue
            c = v.result
            if c is None:
                continue
            if margin is not None:
                ni = c.noninferiority
                if ni is None or ni.holds is not True:
                    reason = ni.reason if ni is not None and ni.reason else "non-inferiority not shown"
                    failed.append((v.candidate, f"{c.measure} {c.delta:+.4f}: {reason}"))
            elif c in self.regressions():
                said = f": {c.verdict}" if disagrees(c.verdict) else ""
                failed.append((v.candidate, f"{c.measure} {c.delta:+.4f}, p adj. {c.p_adjusted:.4g}{said}"))
        return RegressionCheck(criterion, tuple(failed))
