"""Paired statistics for comparing runs (docs/design.md §7); results are frozen dataclasses, formatted by ``reports``.

Modules: ``grid`` (differences as exact integers), ``randomization`` (exact/Monte Carlo sign-flip test),
``resampling`` (seeded sign flips and bootstrap shared by every test on one topic set), ``location`` (t test
and interval, Wilcoxon, non-inferiority, MDE), ``paired`` (the two-run battery, one pair or many),
``counts`` (exact McNemar, sign test, the p floor), ``buckets`` (rank-1 buckets), ``preference``
(deprecation pairs), ``multiple`` (Holm/BH/fixed-sequence, randomised Tukey HSD), ``families``
(confirmatory, secondary, exploratory; verdicts), ``summary`` (a run reduced to what a comparison needs),
``comparison`` (all of it over 2+ runs) with its records in ``result``, ``gate`` (rules).
Heavy libraries (scipy, statsmodels) are imported inside the functions that use them.
"""

from toolkit.stats.buckets import BUCKETS, RankOutcome, bucket_of, rank_outcome
from toolkit.stats.comparison import compare_runs
from toolkit.stats.counts import (
    McNemarResult,
    SignTestResult,
    mcnemar_exact,
    min_pvalue,
    reach_note,
    sign_test,
)
from toolkit.stats.multiple import TukeyResult, adjust, randomized_tukey
from toolkit.stats.paired import NonInferiority, PairedOptions, PairedResult, paired_test, paired_tests
from toolkit.stats.preference import PreferenceResult, evaluate_preferences, preference_outcome
from toolkit.stats.randomization import RandomizationResult, measure_grid, on_grid, randomization_test
from toolkit.stats.result import (
    AllPairs,
    CandidateVerdict,
    ClassBreakdown,
    ComparisonResult,
    Confirmatory,
    Failures,
    PairwiseResult,
    RegressionCheck,
)

__all__ = [
    "BUCKETS",
    "AllPairs",
    "CandidateVerdict",
    "ClassBreakdown",
    "ComparisonResult",
    "Confirmatory",
    "Failures",
    "McNemarResult",
    "NonInferiority",
    "PairedOptions",
    "PairedResult",
    "PairwiseResult",
    "PreferenceResult",
    "RandomizationResult",
    "RankOutcome",
    "RegressionCheck",
    "SignTestResult",
    "TukeyResult",
    "adjust",
    "bucket_of",
    "compare_runs",
    "evaluate_preferences",
    "mcnemar_exact",
    "measure_grid",
    "min_pvalue",
    "on_grid",
    "paired_test",
    "paired_tests",
    "preference_outcome",
    "randomization_test",
    "randomized_tukey",
    "rank_outcome",
    "reach_note",
    "sign_test",
]
