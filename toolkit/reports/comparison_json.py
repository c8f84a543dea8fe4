"""The JSON contract of ``compare`` / ``audit`` (``Document.data`` of a comparison), schema_version 3.

Documented in docs/statistics.md ("The JSON contract"). Dicts are built in contract order; numbers are not
rounded; measures appear by name (``str()`` of the ir_measures object); every ``null`` number has a reason
beside it (``reason`` in the same object, or ``<key>_reason``).
"""

from __future__ import annotations

from typing import Any

from toolkit.reports.refusal import change_data, refusal_data
from toolkit.stats.buckets import BUCKETS, FOUND_LOST, RankOutcome
from toolkit.stats.location import Interval
from toolkit.stats.paired import PairedResult
from toolkit.stats.preference import PreferenceResult
from toolkit.stats.result import ComparisonResult, PairwiseResult


def comparison_data(result: ComparisonResult) -> dict[str, Any]:
    conf = result.confirmatory
    return {
        "seed": result.seed,
        "alpha": result.alpha,
        "baseline": result.baseline,
        "runs": list(result.runs),
        "primary": str(result.primary),
        "primary_declared": result.primary_declared,
        "test": result.test,
        "correction": result.correction,
        "confirmatory": {
            "measure": str(conf.measure),
            "test": conf.test,
            "adjustment": conf.adjustment,
            "order": list(conf.order),
            "alpha": conf.alpha,
            "m": conf.m,
        },
        "verdicts": [
            {
                "candidate": v.candidate,
                "measure": str(result.primary),
                "verdict": v.verdict,
                "comparable": v.comparable,
                "failed": dict(v.failed),
                "warnings": list(v.warnings),
            }
            for v in result.verdicts()
        ],
        "comparisons": [comparison_dict(c) for c in result.comparisons],
        "rank1": [rank1_dict(r) for r in result.rank1],
        "preferences": [preference_dict(p) for p in result.preferences],
        "by_class": {
            cls: {
                "family": "exploratory",
                "topics": list(b.topics),
                "n": len(b.topics),
                "measures": [str(m) for m in b.measures],
                "means": {run: {str(m): v for m, v in ms.items()} for run, ms in b.means.items()},
                "comparisons": [comparison_dict(c) for c in b.comparisons],
            }
            for cls, b in result.by_class.items()
        },
        "all_pairs": [
            {
                "measure": str(fam.measure),
                "family": "exploratory",
                "test": result.test,
                "adjustment": fam.adjustment,
                "pairs": [pair_dict(p) for p in fam.pairs],
            }
            for fam in result.all_pairs
        ],
        "judged": [
            {
                "run": j.run,
                "depth": j.depth,
                "rate": j.rate,
                "topics": j.topics,
                "unjudged_topics": len(j.unjudged_topics),
                "unjudged_ids": list(j.unjudged_topics),
            }
            for j in result.judged
        ],
        "judged_qrels": "human" if result.judged_human else "regex",
        "failed_topics": {run: list(result.failures.failed.get(run, ())) for run in result.runs},
        "allow_failed": result.failures.allowed,
        "refusal": {
            "runs": [refusal_data(r) for r in result.refusal],
            "tests": [change_data(t) for t in result.refusal_tests],
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
    }


def interval_dict(ci: Interval) -> dict[str, Any]:
    return {
        "method": ci.method,
        "adjusted": ci.adjusted,
        "low": ci.low,
        "high": ci.high,
        "resamples": ci.resamples,
        "reason": ci.reason,
    }


def comparison_dict(c: PairedResult) -> dict[str, Any]:
    ni = c.noninferiority
    r = c.randomization
    return {
        "baseline": c.baseline,
        "candidate": c.candidate,
        "measure": str(c.measure),
        "family": c.family,
        "n": c.n,
        "n_nonzero": c.n_nonzero,
        "mean_baseline": c.mean_baseline,
        "mean_candidate": c.mean_candidate,
        "delta": c.delta,
        "ci95": interval_dict(c.ci95),
        "ci95_t": interval_dict(c.ci95_t),
        "test": c.test,
        "pvalue": c.pvalue,
        "pvalue_reason": None if c.pvalue is not None else c.t.reason,
        "p_adjusted": c.p_adjusted,
        "p_adjusted_reason": None if c.p_adjusted is not None else "the declared test has no p-value here",
        "adjustment": c.adjustment,
        "verdict": c.verdict,
        "tests": {
            "randomization": {
                "pvalue": r.pvalue,
                "exact": r.exact,
                "method": r.method,
                "grid": r.grid,
                "resamples": r.resamples,
                "resamples_reason": "exact test" if r.resamples is None else None,
            },
            "t": {"statistic": c.t.statistic, "df": c.t.df, "pvalue": c.t.pvalue, "reason": c.t.reason},
            "wilcoxon": {
                "statistic": c.wilcoxon.statistic,
                "pvalue": c.wilcoxon.pvalue,
                "zero_method": c.wilcoxon.zero_method,
                "method": c.wilcoxon.method,
                "correction": c.wilcoxon.correction,
                "alternative": c.wilcoxon.alternative,
                "reason": None if c.wilcoxon.statistic is not None else "no non-zero differences",
            },
        },
        "effect": {"d_z": c.d_z, "rank_biserial": c.rank_biserial, "reason": c.effect_reason},
        "mde80": {
            "value": c.mde80.value,
            "alpha": c.mde80.alpha,
            "power": c.mde80.power,
            "post_hoc": True,
            "reason": c.mde80.reason,
        },
        "noninferiority": None
        if ni is None
        else {
            "margin": ni.margin,
            "statistic": ni.statistic,
            "pvalue": ni.pvalue,
            "method": ni.method,
            "ci_lower": ni.ci_lower,
            "ci_lower_t": ni.ci_lower_t,
            "holds": ni.holds,
            "reason": ni.reason,
        },
        "noninferiority_reason": "no margin declared for this measure" if ni is None else None,
        "notes": list(c.notes),
    }


def pair_dict(p: PairwiseResult) -> dict[str, Any]:
    return {
        "a": p.a,
        "b": p.b,
        "n": p.n,
        "delta": p.delta,
        "ci95": interval_dict(p.ci95),
        "pvalue": p.pvalue,
        "pvalue_reason": None if p.pvalue is not None else p.t.reason,
        "p_adjusted": p.p_adjusted,
        "p_adjusted_reason": None if p.p_adjusted is not None else "the declared test has no p-value here",
        "verdict": p.verdict,
        "note": p.note or None,
        "tests": {
            "randomization": {
                "pvalue": p.randomization.pvalue,
                "exact": p.randomization.exact,
                "method": p.randomization.method,
                "grid": p.randomization.grid,
            },
            "t": {"statistic": p.t.statistic, "df": p.t.df, "pvalue": p.t.pvalue, "reason": p.t.reason},
            "wilcoxon": {"pvalue": p.wilcoxon.pvalue, "method": p.wilcoxon.method},
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
    reason = None if t.win_rate is not None else "no decided pair (every pair is a tie)"
    return {
        "run": p.run,
        "wins": t.wins,
        "losses": t.losses,
        "ties": t.ties,
        "sign_test": {"pvalue": t.pvalue, "pvalue_greater": t.pvalue_greater},
        "win_rate": t.win_rate,
        "ci95": list(t.ci95) if t.ci95 else None,
        "reason": reason,
        "topics": {k: list(v) for k, v in p.topics.items()},
    }
