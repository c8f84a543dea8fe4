"""Compare 2+ runs on the same topics: the confirmatory design of docs/design.md §7 and everything around it.

``compare_runs`` reads the runs one at a time (``toolkit.stats.summary``: each is scored and reduced to its
per-topic values and ranks, then freed, so ten MS MARCO-size runs fit in memory), then asks:

1. **confirmatory** — the primary measure (``primary``; default nDCG@10), each candidate against the
   baseline by the declared ``test`` (randomization by default), Holm across the candidates or
   fixed-sequence in a declared ``order``;
2. **secondary** — every other measure × candidate, one family adjusted by ``correction``;
3. **exploratory** — per-class rows with each class's own measures (one family), and with 3+ runs all pairs
   of runs per measure (one family per measure), both adjusted by ``correction``;
4. rank-1 buckets with exact McNemar per candidate, preference outcomes per run, Judged@k per run, and the
   failed topics of every run (``failures``: the run-failure policy's verdict, ``toolkit.pipeline.failures``);
5. the refusal outcome of every run (refusal correctness on the topics declared ``expect = "empty"``, the
   empty-result rate on the others) and exact McNemar per candidate on it (``toolkit.stats.refusal``).

Topics declared ``expect = "empty"`` are outside every relevance measure's ``n`` (``toolkit.scoring``).

All resampling is seeded and shared (``toolkit.stats.resampling``). The first run is the baseline. Only
``reports`` formats the result.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from toolkit.errors import UsageError
from toolkit.model import Qrels, Run, TopicSet
from toolkit.stats.buckets import rank_outcome
from toolkit.stats.families import (
    CONFIRMATORY,
    EXPLORATORY,
    NO_VERDICT,
    SECONDARY,
    assign,
    directed,
    significant,
)
from toolkit.stats.location import headline_interval, t_test, wilcoxon
from toolkit.stats.multiple import CORRECTIONS, FIXED_SEQUENCE, adjust
from toolkit.stats.paired import (
    DEFAULT_BOOTSTRAP,
    TESTS,
    PairedOptions,
    PairedResult,
    PairSpec,
    Panel,
    paired_tests,
    randomization_for,
    studentized_for,
)
from toolkit.stats.randomization import DEFAULT_RESAMPLES, RandomizationResult
from toolkit.stats.refusal import compare_refusals
from toolkit.stats.result import (
    AllPairs,
    ClassBreakdown,
    ComparisonResult,
    Confirmatory,
    Failures,
    PairwiseResult,
)
from toolkit.stats.summary import RunSummary, summarise_run

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.stats.grid import IntegerDiffs

__all__ = ["ClassBreakdown", "ComparisonResult", "compare_runs"]

#: The primary measure when none is declared (``--primary``, ``[workspace] primary``).
DEFAULT_PRIMARY = "nDCG@10"
#: Rank-1 buckets look at the top 10 when the primary measure has no cutoff of its own (``AP``, ``nDCG``).
DEFAULT_CUTOFF = 10


def compare_runs(
    runs: Iterable[Run],
    qrels: Qrels,
    *,
    topics: TopicSet | None = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
    primary: Measure | str | None = None,
    alpha: float = 0.05,
    seed: int = 42,
    margins: Mapping[Measure, float] | Mapping[str, float] | None = None,
    correction: str = "holm",
    test: str = "randomization",
    order: Sequence[str] | None = None,
    failures: Failures | None = None,
    zero_method: str = "wilcox",
    cutoff: int | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    bootstrap: int = DEFAULT_BOOTSTRAP,
) -> ComparisonResult:
    """Score ``runs`` and compare each later run with the first (see the module docstring).

    ``runs`` may be a generator: each run is summarised and released before the next is read. Measures
    (``measures``, ``primary``, the keys of ``margins``) are parsed once here into ir_measures objects; the
    primary measure is added to the measures when missing. ``order`` (candidate names) declares the order of
    a fixed-sequence confirmatory family; without it the candidates are adjusted by Holm.
    """
    from toolkit.formats.manifest import versions
    from toolkit.scoring import resolve_measures
    from toolkit.scoring.judged import looks_human
    from toolkit.scoring.measures import check_per_topic, parse_measure, parse_measures

    if correction not in CORRECTIONS:
        raise UsageError(f"--correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")
    if test not in TESTS:
        raise UsageError(f"--test must be one of {', '.join(TESTS)}, not {test!r}")
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    main = list(resolve_measures(measures or None, topics))
    chosen = parse_measure(primary if primary is not None else DEFAULT_PRIMARY)
    if chosen not in main:
        main.insert(0, chosen)
    parsed_margins = {parse_measure(m): float(v) for m, v in (margins or {}).items()}
    main += [m for m in parsed_margins if m not in main]
    for measure in main:
        check_per_topic(measure, use="compare")
    class_measures = _class_measures(topics, parse_measures)
    wanted = list(dict.fromkeys([*main, *(m for _, ms in class_measures.values() for m in ms)]))
    k = rank_cutoff(chosen, cutoff)
    human = looks_human(qrels)
    summaries = _summaries(runs, qrels, topics, wanted, k, main, human, failures)
    names = [s.name for s in summaries]
    base = names[0]
    failures = failures or Failures()
    sequence = _order(order, names[1:])

    common = PairedOptions(
        alpha=alpha,
        seed=seed,
        zero_method=zero_method,
        resamples=resamples,
        bootstrap=bootstrap,
        test=test,
        mde_alpha=alpha / len(sequence),
    )
    ids = summaries[0].query_ids
    panels = {m: Panel.of(m, ids, names, np.column_stack([s.values[m] for s in summaries])) for m in main}
    specs = [PairSpec(panels[m], 0, j, parsed_margins.get(m)) for j in range(1, len(names)) for m in main]
    others = [
        PairSpec(panels[m], i, j)
        for m in main
        for i, j in itertools.combinations(range(len(names)), 2)
        if i != 0 and len(names) >= 3
    ]
    # one Monte Carlo pass for the battery and all pairs: the same sign vectors, one product per run
    ints, rand = randomization_for([*specs, *others], seed=seed, resamples=resamples)
    tested = paired_tests(specs, common, tested=(ints[: len(specs)], rand[: len(specs)]))
    fresh = {
        (s.panel.measure, s.i, s.j): (d, r)
        for s, d, r in zip(others, ints[len(specs) :], rand[len(specs) :], strict=True)
    }
    blocked = dict(failures.not_comparable)
    confirm = sorted((r for r in tested if r.measure == chosen), key=lambda r: sequence.index(r.candidate))
    adjustment = FIXED_SEQUENCE if _declared(order, names[1:]) else "holm"
    assigned = [
        *assign(confirm, CONFIRMATORY, adjustment, alpha=alpha, blocked=blocked),
        *assign(
            [r for r in tested if r.measure != chosen], SECONDARY, correction, alpha=alpha, blocked=blocked
        ),
    ]
    by_key = {(r.candidate, r.measure): r for r in assigned}
    comparisons = tuple(_mark(by_key[(r.candidate, r.measure)], primary=r.measure == chosen) for r in tested)

    rank1 = tuple(
        rank_outcome(
            dict(zip(summaries[0].query_ids, summaries[0].ranks, strict=True)),
            dict(zip(s.query_ids, s.ranks, strict=True)),
            baseline=base,
            candidate=s.name,
            cutoff=k,
            answered_baseline=dict(zip(summaries[0].query_ids, summaries[0].answered, strict=True)),
            answered_candidate=dict(zip(s.query_ids, s.answered, strict=True)),
        )
        for s in summaries[1:]
    )
    by_class = _by_class(summaries, class_measures, common, correction, alpha, blocked)
    all_pairs = _all_pairs(
        names, main, comparisons, fresh, correction, alpha, test, failures, seed, bootstrap
    )
    query_ids = list(summaries[0].query_ids)
    return ComparisonResult(
        runs=tuple(names),
        baseline=base,
        measures=tuple(main),
        primary=chosen,
        primary_declared=primary is not None,
        alpha=alpha,
        seed=seed,
        correction=correction,
        test=test,
        confirmatory=Confirmatory(chosen, test, adjustment, tuple(sequence), alpha),
        comparisons=comparisons,
        rank1=rank1,
        preferences=tuple(s.preferences for s in summaries if s.preferences is not None),
        by_class=by_class,
        all_pairs=all_pairs,
        means={s.name: {m: _mean(s.values[m]) for m in wanted} for s in summaries},
        empty={
            s.name: tuple(q for q, a in zip(s.query_ids, s.answered, strict=True) if not a) for s in summaries
        },
        judged=tuple(s.judged for s in summaries),
        judged_human=human,
        failures=failures,
        setup=_setup(summaries, qrels, topics, query_ids, k, zero_method, resamples, bootstrap),
        versions=versions(("matplotlib",)),
        margins=parsed_margins,
        refusal=tuple(s.refusal for s in summaries),
        refusal_tests=tuple(compare_refusals(summaries[0].refusal, s.refusal) for s in summaries[1:]),
    )


def rank_cutoff(primary: Measure | str | None = None, cutoff: int | None = None) -> int:
    """The depth the rank-1 buckets (and the per-topic view) look at: ``cutoff`` when given, else the primary
    measure's own cutoff, else ``DEFAULT_CUTOFF``."""
    from toolkit.scoring.measures import measure_cutoff, parse_measure

    return (
        cutoff
        or measure_cutoff(parse_measure(primary if primary is not None else DEFAULT_PRIMARY))
        or DEFAULT_CUTOFF
    )


def _summaries(
    runs: Iterable[Run],
    qrels: Qrels,
    topics: TopicSet | None,
    wanted: list[Measure],
    cutoff: int,
    main: list[Measure],
    human: bool,
    failures: Failures | None,
) -> list[RunSummary]:
    """Summarise the runs one by one (a generator's runs are freed as it goes); names must be distinct.

    A run's failed topics come from ``failures``; without it (a library call that applied no run-failure
    policy), from the manifest beside the run's file. A run without one (``unrecorded``) has unknown
    failures, and its empty results count as refused.
    """
    from toolkit.formats.manifest import recorded_failed_topics

    out: list[RunSummary] = []
    seen: set[str] = set()
    for run in runs:
        if run.name in seen:
            names = ", ".join([*(s.name for s in out), run.name])
            raise UsageError(f"run names must be distinct, got {names}; rename a file or pass it once")
        seen.add(run.name)
        if failures is None:
            failed = recorded_failed_topics(run.path) if run.path else None
        else:
            failed = None if run.name in failures.unrecorded else failures.failed.get(run.name, ())
        out.append(
            summarise_run(
                run,
                qrels,
                topics=topics,
                measures=wanted,
                cutoff=cutoff,
                judged_measures=main,
                human=human,
                failed=failed,
            )
        )
        del run
    if len(out) < 2:
        raise UsageError("compare needs at least two runs: the baseline first, then the candidate(s)")
    return out


def _order(order: Sequence[str] | None, candidates: list[str]) -> list[str]:
    """The declared candidate order (every candidate once), else the order the runs were given."""
    if order is None or not list(order):
        return list(candidates)
    declared = list(order)
    if sorted(declared) != sorted(candidates):
        raise UsageError(
            f"--order must list every candidate once ({', '.join(candidates)}), got {', '.join(declared)}"
        )
    return declared


def _declared(order: Sequence[str] | None, candidates: list[str]) -> bool:
    return bool(order) and len(candidates) > 1


def _mark(r: PairedResult, *, primary: bool) -> PairedResult:
    import dataclasses

    return dataclasses.replace(r, primary=primary)


def _by_class(
    summaries: list[RunSummary],
    class_measures: dict[str, tuple[list[str], tuple[Measure, ...]]],
    common: PairedOptions,
    correction: str,
    alpha: float,
    blocked: dict[str, str],
) -> dict[str, ClassBreakdown]:
    """Per-class paired tests: one exploratory family over every class, measure and candidate."""
    if not class_measures:
        return {}
    index = {q: i for i, q in enumerate(summaries[0].query_ids)}
    names = [s.name for s in summaries]
    specs: list[tuple[str, PairSpec]] = []
    for cls, (ids, cms) in class_measures.items():
        kept = [q for q in ids if q in index]
        rows = np.array([index[q] for q in kept], dtype=np.int64)
        if rows.size == 0:
            continue
        for m in cms:
            panel = Panel.of(m, kept, names, np.column_stack([s.values[m][rows] for s in summaries]))
            specs += [(cls, PairSpec(panel, 0, j)) for j in range(1, len(names))]
    order = {(c, s.j, s.measure): k for k, (c, s) in enumerate(specs)}
    tested = paired_tests([s for _, s in specs], common)
    tested = assign(tested, EXPLORATORY, correction, alpha=alpha, blocked=blocked)
    out: dict[str, ClassBreakdown] = {}
    for cls, (ids, cms) in class_measures.items():
        kept = [q for q in ids if q in index]
        if not kept:  # every topic of the class is declared expect = "empty": no relevance measure to show
            continue
        rows = np.array([index[q] for q in kept], dtype=np.int64)
        comps = tuple(
            tested[order[(cls, j, m)]] for j in range(1, len(names)) for m in cms if (cls, j, m) in order
        )
        means = {s.name: {m: _mean(s.values[m][rows]) for m in cms} for s in summaries}
        out[cls] = ClassBreakdown(cls, tuple(kept), cms, means, comps)
    return out


def _all_pairs(
    names: list[str],
    measures: list[Measure],
    tested: Sequence[PairedResult],
    fresh: Mapping[tuple[Measure, int, int], tuple[IntegerDiffs, RandomizationResult]],
    correction: str,
    alpha: float,
    test: str,
    failures: Failures,
    seed: int,
    bootstrap: int,
) -> tuple[AllPairs, ...]:
    """Every pair of runs on every measure (3+ runs): the declared test per pair, one family per measure.

    Pairs with the baseline are the battery's results; the others were tested in the same Monte Carlo pass,
    and get the same headline interval (one shared bootstrap pass over their differences).
    """
    if len(names) < 3:
        return ()
    known = {(r.candidate, r.measure): r for r in tested}
    keys = list(fresh)
    dists = dict(
        zip(keys, studentized_for([fresh[k][0] for k in keys], seed=seed, resamples=bootstrap), strict=True)
    )
    out = []
    for m in measures:
        rows = []
        for i, j in itertools.combinations(range(len(names)), 2):
            if i == 0:
                r = known[(names[j], m)]
                rows.append(
                    PairwiseResult(
                        names[0],
                        names[j],
                        m,
                        r.n,
                        r.delta,
                        r.ci95,
                        r.randomization,
                        r.t,
                        r.wilcoxon,
                        test,
                        alpha,
                    )
                )
                continue
            idiff, rand = fresh[(m, i, j)]
            ttest, _ = t_test(idiff)
            ci = headline_interval(idiff, dists[(m, i, j)], bootstrap)
            wil = wilcoxon(idiff.values, "wilcox")
            rows.append(
                PairwiseResult(
                    names[i],
                    names[j],
                    m,
                    int(idiff.values.size),
                    idiff.mean(),
                    ci,
                    rand,
                    ttest,
                    wil,
                    test,
                    alpha,
                )
            )
        adjusted = adjust([r.pvalue for r in rows], correction)
        pairs = tuple(
            _pair_verdict(
                r, p, alpha, failures.pair_reason(r.a, r.b), known.get((r.b, m)) if r.a == names[0] else None
            )
            for r, p in zip(rows, adjusted, strict=True)
        )
        out.append(AllPairs(m, correction, pairs))
    return tuple(out)


def _pair_verdict(
    r: PairwiseResult, p: float | None, alpha: float, blocked: str | None, owner: PairedResult | None
) -> PairwiseResult:
    """The exploratory verdict of a pair; a pair with the baseline reads its own family's verdict (one pair,
    one verdict), with a note when the all-pairs adjustment alone would have read otherwise."""
    import dataclasses

    words = (
        NO_VERDICT
        if p is None or p >= alpha
        else directed(r.test, r.delta, r.wilcoxon.r_plus, r.wilcoxon.r_minus)
    )
    note = ""
    if owner is not None and not blocked:
        own = owner.verdict
        if significant(words) != significant(own) or (significant(words) and words != own):
            note = (
                f"the all-pairs adjustment alone would read {words!r} (p adj. {_p(p)}), but this pair is "
                f"answered in the {owner.family} family ({owner.adjustment}, p adj. {_p(owner.p_adjusted)}), "
                "which a claim about it must use"
            )
        words = f"{own} ({owner.family})"
    words = blocked or words
    return dataclasses.replace(r, p_adjusted=p, verdict=words, note=note)


def _p(p: float | None) -> str:
    return "–" if p is None else f"{p:.4g}"


def _class_measures(topics: TopicSet | None, parse: Any) -> dict[str, tuple[list[str], tuple[Measure, ...]]]:
    """class → (topic ids, measure objects) in order of first appearance."""
    out: dict[str, tuple[list[str], tuple[Measure, ...]]] = {}
    if topics is None:
        return out
    for cls in topics.classes():
        ids = [t.query_id for t in topics if t.query_class == cls]
        out[cls] = (ids, tuple(parse(list(topics.class_measures.get(cls, ())) or ["RR@10"])))
    return out


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else float("nan")


def _setup(
    summaries: list[RunSummary],
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
        "run_paths": {s.name: s.path for s in summaries},
        "n_topics": len(query_ids),
        "expect_empty_topics": list(topics.empty_ids) if topics is not None else [],
        "cutoff": cutoff,
        "zero_method": zero_method,
        "randomization_resamples": resamples,
        "bootstrap_resamples": bootstrap,
    }
