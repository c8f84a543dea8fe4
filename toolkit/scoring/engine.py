"""The evaluation engine: one evaluator per qrels, fed canonical rankings in chunks of topics.

Why canonical rankings: trec_eval 10 orders by score descending, ties by doc_id descending, comparing scores
as doubles; pytrec_eval compares float32, and other ir_measures providers break ties their own way. Each
topic's ranking is therefore put into trec_eval 10's order here (``Run.ranking``) and re-scored with strictly
decreasing integers (n, n-1, …, 1 — exact in float32), so that every backend sees one unambiguous order.

Why prefixes: most measures only look at the ranking down to the last relevant doc (and their cutoff). When
every requested measure is like that (``plan.PREFIX_SAFE``), each topic's ranking is cut right after its last
doc with relevance ≥ the lowest ``rel`` asked for, and at least at the deepest cutoff; the values are the
same and the backend handles a few dozen docs a topic instead of a thousand.

Why chunks: a backend needs a dict of dicts; building it for a 7-million-line run at once costs more than a
gigabyte, so topics are handed over a few hundred thousand docs at a time. Each chunk gets an evaluator built
(through ir_measures' public ``evaluator``/``iter_calc``) over that chunk's qrels topics only: building one is
cheap next to scoring, and ``iter_calc`` then has no other qrels topic to fill with defaults.

Why some topics never reach pytrec_eval: its trec_eval (9.x) code reads a table it never allocated when a qrels
topic has no grade ≥ 0 — a segmentation fault once ``bpref`` and ``map`` are asked for together, depending on
the topic order. Such a topic has no relevant document at any level; trec_eval 10 scores it 0 on every measure
but the count of docs returned, and so does this engine, without handing it to the backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.ranked import RankedRun, RankedTopic
from toolkit.model import Qrels, Run
from toolkit.scoring.measures import measure_object
from toolkit.scoring.plan import (
    NUM_Q,
    NUM_REL,
    NUM_RET,
    OTHER,
    PREFIX_SAFE,
    PYTREC,
    RR_CUT,
    TREC10,
    Route,
    route,
)

#: Docs handed to the backend per call (bounds the memory of the dict-of-dicts it needs).
CHUNK_DOCS = 400_000

#: Largest grade accepted: trec_eval's code in pytrec_eval walks every grade level up to the largest for every
#: topic (quadratic in it: 0.3 ms a topic at 1,000, 22 ms at 10,000; it hangs at 10^6 and crashes at 2^31).
MAX_GRADE = 1000


def ranking(run: Run, query_id: str, depth: int | None = None) -> Sequence[str]:
    """A topic's doc ids in trec_eval 10 order (the top ``depth``); uses the run's own ranking when it has one."""
    results = run.results
    if isinstance(results, RankedRun):
        return results.ranking(query_id, depth)
    docs = run.ranking(query_id)
    return docs if depth is None else docs[:depth]


def ranking_prefix(run: Run, query_id: str, wanted: Sequence[str], depth: int) -> tuple[Sequence[str], int]:
    """The ranking down to the last doc in ``wanted`` (at least ``depth`` docs), and the full ranking's length."""
    topic = run.results.get(query_id)
    if topic is None:
        return [], 0
    if isinstance(topic, RankedTopic):
        return topic.prefix(wanted, depth)
    docs = ranking(run, query_id)
    if wanted:
        keep = set(wanted)
        last = max((i for i, d in enumerate(docs) if d in keep), default=-1)
        depth = max(depth, last + 1)
    return docs[:depth], len(docs)


class _Group:
    """Measures computed together by one backend on rankings cut at ``depth`` (None = whole rankings).

    ``build(measures, qrels)`` is the backend's public evaluator factory; ``safe_only`` groups (pytrec_eval)
    never see the topics ``Evaluator.unsafe`` names.
    """

    def __init__(self, build: Any, names: dict[Any, str], depth: int | None, *, safe_only: bool) -> None:
        self.build = build
        self.names = names
        self.depth = depth
        self.safe_only = safe_only

    def calc(
        self, run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]
    ) -> Iterator[tuple[str, str, float]]:
        judged = {q: qrels[q] for q in run if q in qrels}
        if not judged:
            return
        evaluator = self.build(list(self.names), judged)
        for metric in evaluator.iter_calc(run):
            name = self.names.get(metric.measure)
            if name is not None and metric.query_id in run:
                yield metric.query_id, name, float(metric.value)


class _Trec10Group:
    """Measures computed by the drop-in's port of trec_eval 10 where pytrec_eval (trec_eval 9) differs."""

    safe_only = True
    depth: int | None = None

    def __init__(self, routes: list[Route]) -> None:
        self.routes = routes

    def calc(
        self, run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]
    ) -> Iterator[tuple[str, str, float]]:
        from toolkit.treceval.measures.base import Settings
        from toolkit.treceval.measures.sets import calc_iprec_at_recall
        from toolkit.treceval.resrels import LevelsState, form_res_rels

        for query_id, docs in run.items():
            judged = qrels.get(query_id)
            if not judged:
                continue
            ranked = list(docs.items())
            judgments = sorted(judged.items())
            for r in self.routes:
                params = r.compute.params
                settings = Settings(relevance_level=r.rel, judged_only=params.get("judged_only") is True)
                rr = form_res_rels(settings, query_id, judgments, ranked, LevelsState())
                yield query_id, r.name, calc_iprec_at_recall(settings, rr, [float(params["recall"])])[0]


class Evaluator:
    """Scores rankings against one qrels for a fixed list of canonical measure names (build once, reuse)."""

    def __init__(self, qrels: Qrels, measures: Sequence[str]) -> None:
        import ir_measures

        self.qrels = qrels
        self.measures = tuple(measures)
        routes = [route(measure_object(m)) for m in self.measures]
        self.routes = routes
        self.num_rel: list[Route] = [r for r in routes if r.kind == NUM_REL]
        self.num_ret: list[Route] = [r for r in routes if r.kind == NUM_RET]
        self.num_q: list[Route] = [r for r in routes if r.kind == NUM_Q]
        self.prefix_ok = all(_prefix_safe(r) for r in routes)
        self.min_rel = min((r.rel for r in routes), default=1)
        self.min_depth = max((r.depth or _cutoff(r) or 1 for r in routes), default=1)
        columns = getattr(qrels.judgments, "columns", None)
        if columns is not None:
            _check_grade_columns(qrels, columns)
        else:
            _check_grades(qrels, self.qrels_dict)
        self.groups: list[_Group | _Trec10Group] = []
        pytrec = ir_measures.providers.registry["pytrec_eval"]
        full = [r for r in routes if r.kind == PYTREC]
        if full:
            self.groups.append(
                _Group(pytrec.evaluator, {r.compute: r.name for r in full}, None, safe_only=True)
            )
        trec10 = [r for r in routes if r.kind == TREC10]
        if trec10:
            self.groups.append(_Trec10Group(trec10))
        by_depth: dict[tuple[str, int | None], list[Route]] = {}
        for r in routes:
            if r.kind in (RR_CUT, OTHER):
                by_depth.setdefault((r.kind, r.depth), []).append(r)
        for (kind, depth), rs in by_depth.items():
            names = {r.compute: r.name for r in rs}
            if kind == RR_CUT:
                self.groups.append(_Group(pytrec.evaluator, names, depth, safe_only=True))
            else:
                self.groups.append(_Group(ir_measures.evaluator, names, depth, safe_only=False))

    @cached_property
    def qrels_dict(self) -> dict[str, dict[str, int]]:
        return {q: dict(d) for q, d in self.qrels.judgments.items()}

    @cached_property
    def unsafe(self) -> frozenset[str]:
        """Qrels topics without a grade ≥ 0 (never handed to pytrec_eval, see the module docstring)."""
        return frozenset(q for q, docs in self.qrels_dict.items() if not any(g >= 0 for g in docs.values()))

    @cached_property
    def wanted(self) -> dict[str, list[str]]:
        return {q: [d for d, g in docs.items() if g >= self.min_rel] for q, docs in self.qrels_dict.items()}

    def zero(self, query_id: str) -> dict[str, float]:
        """A topic's values when the run has no results for it: 0, except qrels-only NumRel and NumQ = 1.

        These are the values trec_eval ``-c`` prints for a topic missing from the run (its ``num_q`` counts
        every qrels topic).
        """
        values = dict.fromkeys(self.measures, 0.0)
        for r in self.num_rel:
            values[r.name] = float(self._count_rel(query_id, r.rel))
        for r in self.num_q:
            values[r.name] = 1.0
        return values

    def _count_rel(self, query_id: str, rel: int) -> int:
        return sum(1 for g in self.qrels_dict.get(query_id, {}).values() if g >= rel)

    def score_run(self, run: Run, query_ids: Iterable[str]) -> dict[str, dict[str, float]]:
        """Per-topic values of every measure for the given (non-empty, distinct) topics of ``run``.

        A run and qrels read column-wise are scored by ``toolkit.scoring.columns`` when every measure has a
        vectorised kernel there; anything else goes to the backends below.
        """
        from toolkit.scoring.columns import score_columns

        query_ids = list(query_ids)
        fast = score_columns(self, run, query_ids)
        if fast is not None:
            return fast
        if not self.prefix_ok:
            return self.score((q, ranking(run, q), None) for q in query_ids)
        return self.score(
            (q, *ranking_prefix(run, q, self.wanted.get(q, ()), self.min_depth)) for q in query_ids
        )

    def score(self, ranked: Iterable[tuple[str, Sequence[str], int | None]]) -> dict[str, dict[str, float]]:
        """Per-topic values for ``(query_id, docs in canonical order, docs returned or None = len(docs))``.

        Topics are expected to be non-empty and distinct; values for topics absent from the qrels are 0.
        """
        out: dict[str, dict[str, float]] = {}
        chunk: list[tuple[str, Sequence[str]]] = []
        size = 0
        for query_id, docs, returned in ranked:
            chunk.append((query_id, docs))
            out[query_id] = self.zero(query_id)
            for r in self.num_ret:
                out[query_id][r.name] = float(len(docs) if returned is None else returned)
            size += len(docs)
            if size >= CHUNK_DOCS:
                self._score_chunk(chunk, out)
                chunk, size = [], 0
        if chunk:
            self._score_chunk(chunk, out)
        return out

    def _score_chunk(self, chunk: list[tuple[str, Sequence[str]]], out: dict[str, dict[str, float]]) -> None:
        longest = max(len(docs) for _, docs in chunk)
        scores = [float(i) for i in range(longest, 0, -1)]
        for group in self.groups:
            topics = [(q, docs) for q, docs in chunk if not (group.safe_only and q in self.unsafe)]
            if group.depth is None:
                run = {q: dict(zip(docs, scores[longest - len(docs) :], strict=True)) for q, docs in topics}
            else:
                k = group.depth
                run = {
                    q: dict(zip(docs[:k], scores[longest - len(docs) :], strict=False)) for q, docs in topics
                }
            for query_id, name, value in group.calc(run, self.qrels_dict):
                out[query_id][name] = value
            del run


def _check_grades(qrels: Qrels, judgments: dict[str, dict[str, int]]) -> None:
    for query_id, docs in judgments.items():
        for doc_id, grade in docs.items():
            if grade > MAX_GRADE:
                raise FormatError(
                    qrels.path or qrels.name,
                    None,
                    f"topic {query_id!r} doc {doc_id!r}: grade {grade} is above {MAX_GRADE}, the largest grade "
                    "`score` accepts (trec_eval's measures walk every grade level up to the largest); rescale the "
                    "grades, or use `trec-toolkit trec_eval`, which reads them as trec_eval does",
                )


def _check_grade_columns(qrels: Qrels, columns: Any) -> None:
    """``_check_grades`` on qrels read column-wise: one comparison, the first offender named."""
    import numpy as np

    above = np.flatnonzero(columns.grades > MAX_GRADE)
    if len(above):
        row = int(above[0])
        query_id = columns.topics[int(columns.codes[row])]
        doc_id = columns.doc_ids(above[:1])[0]
        _check_grades(qrels, {query_id: {doc_id: int(columns.grades[row])}})


def _cutoff(r: Route) -> int | None:
    cutoff = (getattr(r.compute, "params", {}) or {}).get("cutoff")
    return cutoff if isinstance(cutoff, int) else None


def _prefix_safe(r: Route) -> bool:
    if r.kind in (NUM_REL, NUM_RET, NUM_Q):
        return True
    params = getattr(r.compute, "params", {}) or {}
    if params.get("judged_only") is True or isinstance(params.get("gains"), dict):
        return False
    return bool(r.compute.NAME in PREFIX_SAFE)
