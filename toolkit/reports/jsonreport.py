"""The JSON contract of ``compare`` / ``audit`` (schema_version 1; documented in the README).

Key order is fixed by construction (dicts built in contract order, never sorted), numbers are not rounded,
and non-finite floats become ``null`` so that the output is strict JSON. Keys after ``versions``
(``setup``, ``all_pairs``) are additions to the issue's contract, documented with it.
"""

from __future__ import annotations

import json
import math
from typing import Any

from toolkit.stats.buckets import BUCKETS, FOUND_LOST, RankOutcome
from toolkit.stats.comparison import ComparisonResult
from toolkit.stats.paired import PairedResult
from toolkit.stats.preference import PreferenceResult

SCHEMA_VERSION = 1


def to_json(result: ComparisonResult) -> str:
    """The contract document as text (2-space indent, trailing newline)."""
    return json.dumps(_clean(to_dict(result)), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def to_dict(result: ComparisonResult) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "seed": result.seed,
        "alpha": result.alpha,
        "baseline": result.baseline,
        "runs": list(result.runs),
        "primary": result.primary,
        "comparisons": [comparison_dict(c) for c in result.comparisons],
        "rank1": [rank1_dict(r) for r in result.rank1],
        "preferences": [preference_dict(p) for p in result.preferences],
        "by_class": {
            cls: {
                "topics": list(b.topics),
                "n": len(b.topics),
                "measures": list(b.measures),
                "means": {run: dict(ms) for run, ms in b.means.items()},
                "comparisons": [comparison_dict(c) for c in b.comparisons],
            }
            for cls, b in result.by_class.items()
        },
        "versions": dict(result.versions),
        "setup": {
            **dict(result.setup),
            "measures": list(result.measures),
            "correction": result.correction,
            "margins": dict(result.margins),
            "means": {run: dict(ms) for run, ms in result.means.items()},
            "empty": {run: list(ids) for run, ids in result.empty.items()},
        },
        "all_pairs": [
            {
                "measure": t.measure,
                "method": "randomised Tukey HSD (permutation within topic)",
                "n": t.n,
                "resamples": t.resamples,
                "seed": t.seed,
                "means": dict(zip(t.runs, t.means, strict=True)),
                "pairs": [{"a": p.a, "b": p.b, "delta": p.delta, "pvalue": p.pvalue} for p in t.pairs],
            }
            for t in result.all_pairs
        ],
    }


def comparison_dict(c: PairedResult) -> dict[str, Any]:
    ni = c.noninferiority
    return {
        "baseline": c.baseline,
        "candidate": c.candidate,
        "measure": c.measure,
        "n": c.n,
        "n_nonzero": c.n_nonzero,
        "mean_baseline": c.mean_baseline,
        "mean_candidate": c.mean_candidate,
        "delta": c.delta,
        "ci95": list(c.ci95),
        "ci95_t": list(c.ci95_t) if c.ci95_t else None,
        "tests": {
            "randomization": {
                "pvalue": c.randomization.pvalue,
                "exact": c.randomization.exact,
                "resamples": c.randomization.resamples,
            },
            "t": {"statistic": c.t.statistic, "df": c.t.df, "pvalue": c.t.pvalue},
            "wilcoxon": {
                "statistic": c.wilcoxon.statistic,
                "pvalue": c.wilcoxon.pvalue,
                "zero_method": c.wilcoxon.zero_method,
                "method": c.wilcoxon.method,
            },
        },
        "p_adjusted": c.p_adjusted,
        "effect": {"d_z": c.d_z, "rank_biserial": c.rank_biserial},
        "mde80": c.mde80,
        "noninferiority": None
        if ni is None
        else {
            "margin": ni.margin,
            "statistic": ni.statistic,
            "pvalue": ni.pvalue,
            "ci_lower": ni.ci_lower,
            "ci_lower_bootstrap": ni.ci_lower_bootstrap,
            "holds": ni.holds,
        },
    }


def rank1_dict(r: RankOutcome) -> dict[str, Any]:
    return {
        "baseline": r.baseline,
        "candidate": r.candidate,
        **{b: r.count(b) for b in BUCKETS},
        "mcnemar": {"pvalue": r.mcnemar.pvalue},
        "topics": {b: list(r.topics[b]) for b in BUCKETS},
        "cutoff": r.cutoff,
        "found_lost": {f: list(r.found_lost[f]) for f in FOUND_LOST},
    }


def preference_dict(p: PreferenceResult) -> dict[str, Any]:
    t = p.test
    return {
        "run": p.run,
        "wins": t.wins,
        "losses": t.losses,
        "ties": t.ties,
        "sign_test": {"pvalue": t.pvalue, "pvalue_greater": t.pvalue_greater},
        "win_rate": t.win_rate,
        "ci95": list(t.ci95) if t.ci95 else None,
        "topics": {k: list(v) for k, v in p.topics.items()},
    }


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value
