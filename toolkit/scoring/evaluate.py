"""Score runs against qrels over a declared denominator of topics (docs/design.md §5) → ``RunScores``.

The denominator is the topic set's topics, or the qrels' topics when there is no topic set. Topics declared
``expect = "empty"`` are not in it: nothing can be relevant to them, and their one measure is the refusal
outcome (``toolkit.scoring.refusal``). Every denominator topic gets a value for every measure:

* a topic the run has no results for is *empty* and scores what trec_eval ``-c`` prints for it: 0, except
  what depends on the qrels alone (``NumRel``, ``ideal_dcg``) and ``NumQ``;
* a topic in the topic set but absent from the qrels is scored against no judgments — nothing is relevant, so
  0 on every relevance measure — and still counts in ``n``. trec_eval would skip such a topic (it evaluates
  only topics with judgments); under a declared topic set it counts as a miss, so a topic nobody judged cannot
  silently raise the mean. A warning names how many;
* topics in the run but not in the topic set (or, without one, the qrels) are *ignored*, with one warning per
  run counting them.

Aggregates are the mean over ``n``, except count measures (``NumRel``, ``NumRet``, ``NumQ``, …), which are summed
as in trec_eval's ``all`` row and ir_measures' ``calc_aggregate``, and ``gm_map``/``gm_bpref``, geometric means.
Which provider computed each measure is in ``RunScores.providers`` (``toolkit.scoring.provider``).
"""

from __future__ import annotations

import warnings
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, filterfalse, repeat
from operator import is_not
from typing import TYPE_CHECKING, Any

from toolkit.errors import ToolkitWarning, UsageError
from toolkit.model import DEFAULT_MEASURES, Qrels, Run, TopicSet
from toolkit.scoring.engine import Evaluator, ranking
from toolkit.scoring.measures import is_count, is_geometric, parse_measures
from toolkit.scoring.refusal import answered_topics, warn_judged_empty

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Class key of topics that have no class, in ``RunScores.by_class``.
UNCLASSIFIED = "unclassified"


def aggregate_values(measure: str, values: Sequence[float], *, zeros: int = 0) -> float:
    """Mean over the topics (sum for count measures, geometric mean for ``gm_map``/``gm_bpref``); 0.0 when
    there are no topics.

    Added one by one, left to right, as trec_eval accumulates (``sum()`` compensates its rounding from
    Python 3.12 on); callers pass the values in topic-id order, trec_eval's order, so that the mean is the
    same double trec_eval prints (an order-dependent last bit can flip the fourth decimal).

    ``zeros``: topics left out of ``values`` because their value is 0.0 — adding 0.0 changes no sum, so the
    mean over ``len(values) + zeros`` topics is the same double with or without them, and a million topics
    nobody judged need not be sorted and added. Not for geometric means (a 0.0 is not neutral there).
    """
    count = len(values) + zeros
    if not count:
        return 0.0
    if is_geometric(measure):
        if zeros:
            raise ValueError(f"{measure}: a geometric mean cannot leave out its zeros")
        from toolkit.scoring.table import geometric_mean

        return geometric_mean(list(values))
    total = 0.0
    for value in values:
        total += value
    return total if is_count(measure) else total / count


def _aggregates(
    names: Sequence[str],
    query_ids: Sequence[str],
    per_query: Mapping[str, Mapping[str, float]],
    silent: str | None,
) -> dict[str, float]:
    """Each measure's aggregate over ``query_ids`` in trec_eval's order.

    ``silent``: a topic neither judged nor in the run. Every such topic is scored on nothing, and the scorer
    gives them all one shared mapping; where that mapping's value is 0.0 the topics holding it are left out
    of the sum (``aggregate_values(zeros=…)``: the same double), so a million-topic set with a thousand judged
    sorts and adds a thousand values, not a million. Other values take the full path.
    """
    shared = per_query[silent] if silent is not None else None
    kept: list[str] | None = None  # the topics not holding the shared mapping, in trec_eval's order
    ordered: list[str] | None = None
    out: dict[str, float] = {}
    for m in names:
        if shared is not None and shared[m] == 0.0 and not is_geometric(m):
            if kept is None:  # per_query holds the denominator's topics: C-speed passes over its items
                kept = _in_trec_order(compress(per_query, map(is_not, per_query.values(), repeat(shared))))
            out[m] = aggregate_values(m, [per_query[q][m] for q in kept], zeros=len(query_ids) - len(kept))
        else:
            if ordered is None:
                ordered = _in_trec_order(query_ids)
            out[m] = aggregate_values(m, [per_query[q][m] for q in ordered])
    return out


def _in_trec_order(query_ids: Iterable[str]) -> list[str]:
    """Topic ids in trec_eval's evaluation order (byte order of the ids, which is code point order)."""
    return sorted(query_ids)


@dataclass(frozen=True)
class ClassScores:
    """One query class's share of a run's scores: its topics, ``n`` and the aggregate of its measures."""

    query_class: str
    query_ids: tuple[str, ...]
    measures: tuple[str, ...]
    aggregate: Mapping[str, float]

    @property
    def n(self) -> int:
        return len(self.query_ids)


@dataclass(frozen=True)
class RunScores:
    """A run's values over the denominator: per topic, aggregated, with the empty and ignored topics named.

    ``per_query[query_id][measure]`` holds every denominator topic (in ``query_ids`` order: topic-set order,
    else qrels order) and every measure; ``aggregate[measure]`` is the mean over ``n`` (sum for counts).
    Values are unrounded floats.
    """

    run: str
    path: str | None
    measures: tuple[str, ...]
    query_ids: tuple[str, ...]
    per_query: Mapping[str, Mapping[str, float]]
    aggregate: Mapping[str, float]
    empty: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    #: measure → the provider that computed it (``toolkit.scoring.provider``: ``trec_toolkit`` for the table)
    providers: Mapping[str, str] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Topics counted (the denominator), empty ones included."""
        return len(self.query_ids)

    def values(self, measure: str) -> list[float]:
        """One measure's per-topic values in ``query_ids`` order (pairs up across runs of one denominator)."""
        if measure not in self.measures:
            raise UsageError(f"measure {measure!r} was not computed; computed: {' '.join(self.measures)}")
        return [self.per_query[q][measure] for q in self.query_ids]

    def by_class(self, topics: TopicSet, *, all_measures: bool = False) -> dict[str, ClassScores]:
        """Per query class (in topic-set order): n and the aggregate of that class's measures.

        A class's measures are those the topic set gives its topics (``TopicSet.measures_for``) that were
        computed here; ``all_measures=True`` aggregates every computed measure instead. Topics without a
        class go under ``"unclassified"``; denominator topics not in ``topics`` are left out.
        """
        if topics.uniform:
            return self._one_class(topics, all_measures=all_measures)
        by_id = topics.by_id
        members: dict[str, list[str]] = {}
        class_measures: dict[str, dict[str, None]] = {}
        parsed: dict[tuple[str, ...], tuple[str, ...]] = {}  # a topic set names a handful of measure lists
        for query_id in self.query_ids:
            topic = by_id.get(query_id)
            if topic is None:
                continue
            cls = topic.query_class or UNCLASSIFIED
            members.setdefault(cls, []).append(query_id)
            wanted = class_measures.setdefault(cls, {})
            names = topics.measures_for(topic)
            if names not in parsed:
                parsed[names] = tuple(str(m) for m in _canonical_list(names) if str(m) in self.measures)
            for m in parsed[names]:
                wanted.setdefault(m, None)
        out: dict[str, ClassScores] = {}
        for cls, ids in members.items():
            measures = self.measures if all_measures else tuple(class_measures[cls]) or self.measures
            ordered = _in_trec_order(ids)
            agg = {m: aggregate_values(m, [self.per_query[q][m] for q in ordered]) for m in measures}
            out[cls] = ClassScores(cls, tuple(ids), tuple(measures), agg)
        return out

    def _one_class(self, topics: TopicSet, *, all_measures: bool) -> dict[str, ClassScores]:
        """``by_class`` when no topic has a class or measures of its own: one class, ``"unclassified"``, whose
        aggregate is the run's own when it holds every denominator topic (the same values added in the same
        order), so a million-topic set is not grouped and added up again topic by topic."""
        by_id = topics.by_id
        ids = (
            self.query_ids
            if self.query_ids is topics.relevance_ids
            else [q for q in self.query_ids if q in by_id]
        )
        if not ids:
            return {}
        measures = self.measures
        if not all_measures:
            measures = tuple(str(m) for m in _canonical_list(DEFAULT_MEASURES) if str(m) in self.measures)
            measures = measures or self.measures
        if len(ids) == len(self.query_ids):
            part = ClassScores(
                UNCLASSIFIED, self.query_ids, measures, {m: self.aggregate[m] for m in measures}
            )
        else:
            ordered = _in_trec_order(ids)
            agg = {m: aggregate_values(m, [self.per_query[q][m] for q in ordered]) for m in measures}
            part = ClassScores(UNCLASSIFIED, tuple(ids), measures, agg)
        return {UNCLASSIFIED: part}


def _canonical_list(names: Iterable[str]) -> tuple[Measure, ...]:
    return parse_measures(list(names)) if names else ()


def default_measures(topics: TopicSet | None) -> tuple[Measure, ...]:
    """The topic set's class measures (union in topic order) when any topic has a class, else the defaults."""
    if topics is not None and topics.classes():
        seen: dict[Measure, None] = {}
        for names in topics.measure_lists():
            for m in _canonical_list(names):
                seen.setdefault(m, None)
        return tuple(seen)
    return parse_measures(list(DEFAULT_MEASURES))


def resolve_measures(
    measures: Measure | str | Sequence[Measure | str] | None, topics: TopicSet | None
) -> tuple[Measure, ...]:
    """Measure objects: the given ones parsed, else ``default_measures(topics)``."""
    if measures is None or (isinstance(measures, list | tuple) and len(measures) == 0):
        return default_measures(topics)
    return parse_measures(measures)


def denominator(qrels: Qrels, topics: TopicSet | None) -> tuple[str, ...]:
    """The topics that count: the topic set's that can have relevant documents, else the qrels'."""
    return topics.relevance_ids if topics is not None else tuple(qrels.query_ids)


def evaluate(
    run: Run | Any,
    qrels: Qrels | Any,
    *,
    topics: TopicSet | Any | None = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
) -> RunScores:
    """Score one run (see the module docstring for the denominator rules); warns about ignored topics.

    ``run``, ``qrels`` and ``topics`` may be anything ``toolkit.formats.interop`` accepts: paths, DataFrames,
    pytrec_eval dicts, ranx and ir_measures objects, ir_datasets iterators.
    """
    return evaluate_many([run], qrels, topics=topics, measures=measures)[0]


def evaluate_many(
    runs: Iterable[Run | Any],
    qrels: Qrels | Any,
    *,
    topics: TopicSet | Any | None = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
) -> list[RunScores]:
    """Score several runs on one denominator with one evaluator built for the qrels and reused.

    ``measures`` is anything ``parse_measures`` accepts (default: ``default_measures(topics)``); the scores
    are keyed by each measure's name. Inputs are converted by ``toolkit.formats.interop`` (a TypeError names
    what is accepted). Emits a ``ToolkitWarning`` once for topic-set topics missing from the qrels, and once
    per run counting its ignored topics.
    """
    from toolkit.formats.interop import as_qrels, as_runs, as_topics

    runs = as_runs(runs)
    qrels = as_qrels(qrels)
    topics = None if topics is None else as_topics(topics)
    _check_distinct(runs)
    names = tuple(str(m) for m in resolve_measures(measures, topics))
    query_ids = denominator(qrels, topics)
    judged = set(qrels.judgments)  # a set: a qrels mapping may answer ``in`` in Python, once per topic
    wanted: Container[str] = set(query_ids) if topics is None else topics.by_id
    unjudged = [] if topics is None else list(filterfalse(judged.__contains__, query_ids))
    if topics is not None:
        warn_judged_empty(qrels, topics)
        if unjudged:
            warnings.warn(
                f"{len(unjudged)} of {len(query_ids)} topics have no qrels ({_sample(unjudged)}); "
                "they score 0 and count in n",
                ToolkitWarning,
                stacklevel=2,
            )
    evaluator = Evaluator(qrels, names)
    out: list[RunScores] = []
    for run in runs:
        ignored = tuple(q for q in run.results if q not in wanted)
        if ignored:
            warnings.warn(
                f"run {run.name}: {len(ignored)} topic(s) not in the "
                f"{'topic set' if topics is not None else 'qrels'} ignored ({_sample(ignored)})",
                ToolkitWarning,
                stacklevel=2,
            )
        answered = answered_topics(run)
        empty = tuple(filterfalse(answered.__contains__, query_ids))
        per_query = evaluator.score_run(run, query_ids)
        silent = next((q for q in query_ids if q not in judged and q not in answered), None)
        aggregate = _aggregates(names, query_ids, per_query, silent)
        out.append(
            RunScores(
                run=run.name,
                path=run.path,
                measures=names,
                query_ids=query_ids,
                per_query=per_query,
                aggregate=aggregate,
                empty=empty,
                ignored=ignored,
                providers=dict(evaluator.providers),
            )
        )
    return out


def _check_distinct(runs: Sequence[Run]) -> None:
    """Scores are keyed by run name, so two runs of one name would be indistinguishable in every output."""
    seen: dict[str, str | None] = {}
    for run in runs:
        if run.name in seen:
            raise UsageError(
                f"two runs are named {run.name!r} ({seen[run.name]} and {run.path}); rename one file"
            )
        seen[run.name] = run.path


def first_relevant_rank(
    run: Run, qrels: Qrels, query_id: str, *, cutoff: int | None = 10, min_rel: int = 1
) -> int | None:
    """1-based rank of the first doc with relevance ≥ ``min_rel`` in trec_eval order, within ``cutoff``.

    None when no relevant doc is within the cutoff (or the topic is empty); ``cutoff=None`` looks at the
    whole ranking. This is the rank ``RR@cutoff`` is the reciprocal of.
    """
    judged = qrels.judgments.get(query_id, {})
    docs = ranking(run, query_id, cutoff)
    for index in range(len(docs)):
        if judged.get(docs[index], 0) >= min_rel:
            return index + 1
    return None


def _sample(ids: Sequence[str], k: int = 3) -> str:
    shown = ", ".join(ids[:k])
    return f"{shown}, …" if len(ids) > k else shown
