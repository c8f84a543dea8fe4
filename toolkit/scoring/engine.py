"""The evaluation engine: one evaluator per qrels, each measure computed by the provider chosen for it.

Which provider computes a measure is ``toolkit.scoring.provider.provider_of``: the measure table's kernels
(``toolkit.scoring.kernels``) for every measure the table has, whatever the input's shape; one of the trusted
ir_measures providers for the few it lacks (nDCG with custom gains, Judged@k …). The choice is made per
measure when the evaluator is built and recorded in ``providers``.

Why canonical rankings for the other providers: trec_eval 10 orders by score descending, ties by doc_id
descending, comparing scores as doubles; pytrec_eval compares float32, and other ir_measures providers break
ties their own way. Each topic's ranking is therefore put into trec_eval 10's order here (``Run.ranking``) and
re-scored with strictly decreasing integers (n, n-1, …, 1 — exact in float32), so that every provider sees one
unambiguous order. A provider of a measure with a cutoff is handed the ranking cut at that cutoff.

Why chunks: a provider needs a dict of dicts; building it for a 7-million-line run at once costs more than a
gigabyte, so topics are handed over a few hundred thousand docs at a time. Each chunk gets an evaluator built
(through the provider's public ``evaluator``/``iter_calc``) over that chunk's qrels topics only.

Why some topics never reach pytrec_eval: its trec_eval (9.x) code reads a table it never allocated when a qrels
topic has no grade ≥ 0 — a segmentation fault, depending on the topic order. Such a topic has no relevant
document at any level and scores 0 there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.ranked import RankedRun
from toolkit.model import Qrels, Run
from toolkit.scoring.measures import measure_object

#: Docs handed to another provider per call (bounds the memory of the dict-of-dicts it needs).
CHUNK_DOCS = 400_000

#: Largest grade accepted: trec_eval's gain measures walk every grade level up to the largest for every topic
#: (quadratic in it: 0.3 ms a topic at 1,000, 22 ms at 10,000; it hangs at 10^6 and crashes at 2^31).
MAX_GRADE = 1000


def ranking(run: Run, query_id: str, depth: int | None = None) -> Sequence[str]:
    """A topic's doc ids in trec_eval 10 order (the top ``depth``); uses the run's own ranking when it has one."""
    results = run.results
    if isinstance(results, RankedRun):
        return results.ranking(query_id, depth)
    docs = run.ranking(query_id)
    return docs if depth is None else docs[:depth]


class _Group:
    """Measures one other provider computes together, on rankings cut at ``depth`` (None = whole rankings).

    ``safe_only`` groups (pytrec_eval) never see the topics ``Evaluator.unsafe`` names.
    """

    def __init__(self, provider: Any, names: dict[Any, str], depth: int | None, *, safe_only: bool) -> None:
        self.provider = provider
        self.names = names
        self.depth = depth
        self.safe_only = safe_only

    def calc(
        self, run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]
    ) -> Iterator[tuple[str, str, float]]:
        judged = {q: qrels[q] for q in run if q in qrels}
        if not judged:
            return
        evaluator = self.provider.evaluator(list(self.names), judged)
        for metric in evaluator.iter_calc(run):
            name = self.names.get(metric.measure)
            if name is not None and metric.query_id in run:
                yield metric.query_id, name, float(metric.value)


class Evaluator:
    """Scores rankings against one qrels for a fixed list of canonical measure names (build once, reuse)."""

    def __init__(self, qrels: Qrels, measures: Sequence[str]) -> None:
        from ir_measures import providers as registry

        from toolkit.scoring.kernels import TableScorer
        from toolkit.scoring.provider import NAME, provider_of
        from toolkit.scoring.table import locate

        self.qrels = qrels
        self.measures = tuple(measures)
        objects = {name: measure_object(name) for name in self.measures}
        #: measure name → the provider computing it (``toolkit.scoring.provider``)
        self.providers = {name: provider_of(obj) for name, obj in objects.items()}
        columns = getattr(qrels.judgments, "columns", None)
        if columns is not None:
            _check_grade_columns(qrels, columns)
        else:
            _check_grades(qrels, self.qrels_dict)
        located = {n: locate(objects[n]) for n, p in self.providers.items() if p == NAME}
        self.table = TableScorer(qrels, {n: loc for n, loc in located.items() if loc is not None})
        self.groups: list[_Group] = []
        by_provider: dict[tuple[str, int | None], dict[Any, str]] = {}
        for name, provider in self.providers.items():
            if provider != NAME:
                depth = None if provider == "pytrec_eval" else _cutoff(objects[name])
                by_provider.setdefault((provider, depth), {})[objects[name]] = name
        for (provider, depth), names in by_provider.items():
            self.groups.append(
                _Group(registry.registry[provider], names, depth, safe_only=provider == "pytrec_eval")
            )

    @cached_property
    def qrels_dict(self) -> dict[str, dict[str, int]]:
        return {q: dict(d) for q, d in self.qrels.judgments.items()}

    @cached_property
    def unsafe(self) -> frozenset[str]:
        """Qrels topics without a grade ≥ 0 (never handed to pytrec_eval, see the module docstring)."""
        return frozenset(q for q, docs in self.qrels_dict.items() if not any(g >= 0 for g in docs.values()))

    def score_run(self, run: Run, query_ids: Sequence[str]) -> dict[str, dict[str, float]]:
        """Per-topic values of every measure for the given (distinct) topics of the denominator.

        The table's measures come from one batch (``toolkit.scoring.kernels``); the other providers see the
        topics the run has results for, in canonical order, and give 0 on the others.
        """
        query_ids = list(query_ids)
        out = self.table.score(run, query_ids)
        if self.groups:
            for query_id in query_ids:
                out[query_id].update(dict.fromkeys((n for g in self.groups for n in g.names.values()), 0.0))
            present = [q for q in query_ids if run.results.get(q)]
            self._score_others(((q, ranking(run, q)) for q in present), out)
        return out

    def _score_others(self, ranked: Any, out: dict[str, dict[str, float]]) -> None:
        chunk: list[tuple[str, Sequence[str]]] = []
        size = 0
        for query_id, docs in ranked:
            chunk.append((query_id, docs))
            size += len(docs)
            if size >= CHUNK_DOCS:
                self._score_chunk(chunk, out)
                chunk, size = [], 0
        if chunk:
            self._score_chunk(chunk, out)

    def _score_chunk(self, chunk: list[tuple[str, Sequence[str]]], out: dict[str, dict[str, float]]) -> None:
        longest = max(len(docs) for _, docs in chunk)
        scores = [float(i) for i in range(longest, 0, -1)]
        for group in self.groups:
            topics = [(q, docs) for q, docs in chunk if not (group.safe_only and q in self.unsafe)]
            k = group.depth
            run = {
                q: dict(zip(docs if k is None else docs[:k], scores[longest - len(docs) :], strict=False))
                for q, docs in topics
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


def _cutoff(measure: Any) -> int | None:
    cutoff = (getattr(measure, "params", {}) or {}).get("cutoff")
    return cutoff if isinstance(cutoff, int) else None
