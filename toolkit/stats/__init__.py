"""Paired statistics for comparing runs (DESIGN §7); results are frozen dataclasses, formatted by ``reports``.

Modules: ``randomization`` (exact/Monte Carlo sign-flip test), ``paired`` (the two-run battery), ``counts``
(exact McNemar, sign test, the p floor), ``buckets`` (rank-1 buckets), ``preference`` (deprecation pairs),
``multiple`` (Holm/BH, randomised Tukey HSD), ``comparison`` (all of it over 2+ runs), ``gate`` (rules).
Heavy libraries (scipy, statsmodels) are imported inside the functions that use them.
"""

from toolkit.stats.buckets import BUCKETS, RankOutcome, bucket_of, rank_outcome
from toolkit.stats.comparison import ClassBreakdown, ComparisonResult, compare_runs
from toolkit.stats.counts import (
    McNemarResult,
    SignTestResult,
    mcnemar_exact,
    min_pvalue,
    reach_note,
    sign_test,
)
from toolkit.stats.multiple import TukeyResult, adjust, randomized_tukey
from toolkit.stats.paired import NonInferiority, PairedResult, paired_test
from toolkit.stats.preference import PreferenceResult, evaluate_preferences, preference_outcome
from toolkit.stats.randomization import RandomizationResult, measure_grid, on_grid, randomization_test

__all__ = [
    "BUCKETS",
    "ClassBreakdown",
    "ComparisonResult",
    "McNemarResult",
    "NonInferiority",
    "PairedResult",
    "PreferenceResult",
    "RandomizationResult",
    "RankOutcome",
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
    "preference_outcome",
    "randomization_test",
    "randomized_tukey",
    "rank_outcome",
    "reach_note",
    "sign_test",
]
