"""The JSON contract of ``compare`` / ``audit`` (``Document.data`` of a comparison; documented in docs/reports.md).

Dicts are built in contract order (the issue's keys first; ``setup`` and ``all_pairs`` after ``versions`` are
additions); numbers are not rounded; measures appear by name (``str()`` of the ir_measures object).
"""

from __future__ import annotations

from typing import Any

from toolkit.stats.buckets import BUCKETS, FOUND_LOST, RankOutcome
from toolkit.stats.comparison import ComparisonResult
from toolkit.stats.paired import PairedResult
from toolkit.stats.preference import PreferenceResult


def comparison_data(result: ComparisonResult) -> dict[str, Any]:
    return {
        "seed": result.seed,
        "alpha": result.alpha,
        "baseline": result.baseline,
        "runs": list(result.runs),
        "primary": str(result.primary),
        "comparisons": [comparison_dict(c) for c in result.comparisons],
        "rank1": [rank1_dict(r) for r in result.rank1],
        "preferences": [preference_dict(p) for p in result.preferences],
        "by_class": {
            cls: {
                "topics": list(b.topics),
                "n": len(b.topics),
                "measures": [str(m) for m in b.measures],
                "means": {run: {str(m): v for m, v in ms.items()} for run, ms in b.means.items()},
                "comparisons": [comparison_dict(c) for c in b.comparisons],
            }
            for cls, b in result.by_class.items()
        },
        "versions": dict(result.versions),
        "setup": {
            **dict(result.setup),
            "measures": [str(m) for m in result.measures],
            "correction": result.correction,
            "margins": {str(m): v for m, v in result.margins.items()},
            "means": {run: {str(m): v for m, v in ms.items()} for run, ms in result.means.items()},
            "empty": {run: list(ids) for run, ids in result.empty.items()},
        },
        "all_pairs": [
            {
                "measure": str(t.measure),
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
        "measure": str(c.measure),
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
