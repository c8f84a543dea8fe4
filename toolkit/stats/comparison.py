"""Compare 2+ runs on the same topics: every pair against the baseline, on every measure (DESIGN §7).

``compare_runs`` scores the runs (``toolkit.scoring``), then builds one ``ComparisonResult`` holding all
that ``compare``, ``gate`` and ``audit`` report: the paired battery per (candidate, measure), adjusted
p-values over that family (the primary measure marked), rank-1 buckets with McNemar per candidate,
preference outcomes per run, a per-class breakdown with each class's own measures, and — with 3+ runs — a
randomised Tukey HSD per measure. The first run is the baseline. Only ``reports`` formats the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, TopicSet
from toolkit.stats.buckets import RankOutcome, rank_outcome
from toolkit.stats.multiple import CORRECTIONS, TukeyResult, adjust, randomized_tukey
from toolkit.stats.paired import DEFAULT_BOOTSTRAP, PairedResult, paired_test
from toolkit.stats.preference import PreferenceResult, evaluate_preferences
from toolkit.stats.randomization import DEFAULT_RESAMPLES

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Rank-1 buckets look at the top 10 when the primary measure has no cutoff of its own (``AP``, ``nDCG``).
DEFAULT_CUTOFF = 10


@dataclass(frozen=True)
class ClassBreakdown:
    """One query class: its topics, its measures, each run's means, and each candidate's paired tests."""

    query_class: str
    topics: tuple[str, ...]
    measures: tuple[Measure, ...]
    means: Mapping[str, Mapping[Measure, float]]
    comparisons: tuple[PairedResult, ...]


@dataclass(frozen=True)
class ComparisonResult:
    """Everything a comparison found; ``reports`` renders it as text, Markdown, JSON and HTML.

    Measures are ir_measures objects (``str()`` gives the name shown); ``means[run][measure]``.
    """

    runs: tuple[str, ...]
    baseline: str
    measures: tuple[Measure, ...]
    primary: Measure
    alpha: float
    seed: int
    correction: str
    comparisons: tuple[PairedResult, ...]
    rank1: tuple[RankOutcome, ...]
    preferences: tuple[PreferenceResult, ...]
    by_class: Mapping[str, ClassBreakdown]
    all_pairs: tuple[TukeyResult, ...]
    means: Mapping[str, Mapping[Measure, float]]
    empty: Mapping[str, tuple[str, ...]]
    setup: Mapping[str, Any]
    versions: Mapping[str, str]
    margins: Mapping[Measure, float] = field(default_factory=dict)

    @property
    def candidates(self) -> tuple[str, ...]:
        return self.runs[1:]

    def regressions(self) -> tuple[PairedResult, ...]:
        """Candidates significantly worse on the primary measure (adjusted p when adjusted, else p; < α)."""
        return tuple(
            c
            for c in self.comparisons
            if c.primary
            and c.delta < 0
            and (c.p_adjusted if c.p_adjusted is not None else c.pvalue) < self.alpha
        )

    def comparison(self, candidate: str, measure: Measure | str) -> PairedResult | None:
        """The paired result of ``candidate`` on ``measure`` (an object or any spelling of one)."""
        from toolkit.scoring.measures import measure_object

        wanted = measure_object(measure)
        for c in self.comparisons:
            if c.candidate == candidate and c.measure == wanted:
                return c
        return None


def compare_runs(
    runs: Sequence[Run],
    qrels: Qrels,
    *,
    topics: TopicSet | None = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
    primary: Measure | str | None = None,
    alpha: float = 0.05,
    seed: int = 42,
    margins: Mapping[Measure, float] | Mapping[str, float] | None = None,
    correction: str = "holm",
    zero_method: str = "wilcox",
    cutoff: int | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    bootstrap: int = DEFAULT_BOOTSTRAP,
) -> ComparisonResult:
    """Score ``runs`` and compare each later run with the first (see the module docstring).

    Measures (``measures``, ``primary``, the keys of ``margins``) are parsed once here into ir_measures objects;
    everything after reads them (the rank-1 cutoff is the primary measure's own cutoff, else 10).
    """
    from toolkit.formats.manifest import versions
    from toolkit.scoring import evaluate_many, first_relevant_rank, parse_measures, resolve_measures
    from toolkit.scoring.measures import measure_cutoff, parse_measure

    if len(runs) < 2:
        raise UsageError("compare needs at least two runs: the baseline first, then the candidate(s)")
    names = [r.name for r in runs]
    if len(set(names)) != len(names):
        raise UsageError(f"run names must be distinct, got {', '.join(names)}; rename a file or pass it once")
    if correction not in CORRECTIONS:
        raise UsageError(f"--correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    main = list(resolve_measures(measures or None, topics))
    if primary is None:
        rr10 = parse_measure("RR@10")
        chosen = rr10 if rr10 in main else main[0]
    else:
        chosen = parse_measure(primary)
        if chosen not in main:
            main.insert(0, chosen)
    parsed_margins = {parse_measure(m): float(v) for m, v in (margins or {}).items()}
    for m in parsed_margins:
        if m not in main:
            main.append(m)
    class_measures = _class_measures(topics, parse_measures)
    wanted = list(dict.fromkeys([*main, *(m for ms in class_measures.values() for m in ms[1])]))
    scores = evaluate_many(runs, qrels, topics=topics, measures=wanted)
    per_topic = [_values(s, wanted) for s in scores]
    base = names[0]

    common = dict(alpha=alpha, seed=seed, zero_method=zero_method, resamples=resamples, bootstrap=bootstrap)
    comparisons: list[PairedResult] = []
    for j in range(1, len(runs)):
        for m in main:
            comparisons.append(
                paired_test(
                    per_topic[0][m],
                    per_topic[j][m],
                    measure=m,
                    baseline_name=base,
                    candidate_name=names[j],
                    margin=parsed_margins.get(m),
                    **common,  # type: ignore[arg-type]
                )
            )
    adjusted = adjust([c.pvalue for c in comparisons], correction)
    comparisons = [
        dataclasses.replace(c, p_adjusted=p, primary=c.measure == chosen)
        for c, p in zip(comparisons, adjusted, strict=True)
    ]

    k = cutoff or measure_cutoff(chosen) or DEFAULT_CUTOFF
    query_ids = list(scores[0].query_ids)
    ranks = [{q: first_relevant_rank(run, qrels, q, cutoff=k) for q in query_ids} for run in runs]
    answered = [{q: bool(run.results.get(q)) for q in query_ids} for run in runs]
    rank1 = tuple(
        rank_outcome(
            ranks[0],
            ranks[j],
            baseline=base,
            candidate=names[j],
            cutoff=k,
            answered_baseline=answered[0],
            answered_candidate=answered[j],
        )
        for j in range(1, len(runs))
    )
    prefs = tuple(
        p for run in runs if topics is not None and (p := evaluate_preferences(run, topics)) is not None
    )

    by_class: dict[str, ClassBreakdown] = {}
    for cls, (ids, cms) in class_measures.items():
        subset = [{m: {q: v[m][q] for q in ids if q in v[m]} for m in cms} for v in per_topic]
        cls_comps = tuple(
            paired_test(
                subset[0][m],
                subset[j][m],
                measure=m,
                baseline_name=base,
                candidate_name=names[j],
                **common,  # type: ignore[arg-type]
            )
            for j in range(1, len(runs))
            for m in cms
            if subset[0][m]
        )
        means = {names[i]: {m: _mean(subset[i][m]) for m in cms} for i in range(len(runs))}
        by_class[cls] = ClassBreakdown(cls, tuple(ids), tuple(cms), means, cls_comps)

    tukey: tuple[TukeyResult, ...] = ()
    if len(runs) >= 3:
        tukey = tuple(
            randomized_tukey(
                np.array([[per_topic[i][m][q] for i in range(len(runs))] for q in query_ids]),
                names,
                measure=m,
                seed=seed,
                resamples=resamples,
            )
            for m in main
        )
    means = {names[i]: {m: _mean(per_topic[i][m]) for m in wanted} for i in range(len(runs))}
    empty = {names[i]: tuple(q for q in query_ids if not answered[i][q]) for i in range(len(runs))}
    setup = _setup(runs, qrels, topics, query_ids, k, zero_method, resamples, bootstrap)
    return ComparisonResult(
        runs=tuple(names),
        baseline=base,
        measures=tuple(main),
        primary=chosen,
        alpha=alpha,
        seed=seed,
        correction=correction,
        comparisons=tuple(comparisons),
        rank1=rank1,
        preferences=prefs,
        by_class=by_class,
        all_pairs=tukey,
        means=means,
        empty=empty,
        setup=setup,
        versions=versions(("matplotlib",)),
        margins=parsed_margins,
    )


def _class_measures(topics: TopicSet | None, parse: Any) -> dict[str, tuple[list[str], tuple[Measure, ...]]]:
    """class → (topic ids, measure objects) in order of first appearance."""
    out: dict[str, tuple[list[str], tuple[Measure, ...]]] = {}
    if topics is None:
        return out
    for cls in topics.classes():
        ids = [t.query_id for t in topics if t.query_class == cls]
        out[cls] = (ids, tuple(parse(list(topics.class_measures.get(cls, ())) or ["RR@10"])))
    return out


def _values(scores: Any, measures: Sequence[Measure]) -> dict[Measure, dict[str, float]]:
    """measure → {query_id: value} in the scorer's topic order (every topic of the denominator)."""
    return {m: {q: float(scores.per_query[q][str(m)]) for q in scores.query_ids} for m in measures}


def _mean(values: Mapping[str, float]) -> float:
    return float(np.mean(list(values.values()))) if values else float("nan")


def _setup(
    runs: Sequence[Run],
    qrels: Qrels,
    topics: TopicSet | None,
    query_ids: list[str],
    cutoff: int,
    zero_method: str,
    resamples: int,
    bootstrap: int,
) -> dict[str, Any]:
    return {
        "topics": None
        if topics is None
        else {"name": topics.name, "path": topics.path, "sha256": topics.sha256},
        "qrels": {"name": qrels.name, "path": qrels.path},
        "run_paths": {r.name: r.path for r in runs},
        "n_topics": len(query_ids),
        "cutoff": cutoff,
        "zero_method": zero_method,
        "randomization_resamples": resamples,
        "bootstrap_resamples": bootstrap,
    }
