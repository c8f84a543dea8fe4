"""How much of a run's top k the qrels judged — the warning sign that human qrels are too shallow.

With pooled human judgments an unjudged doc counts as non-relevant, so a run that retrieves docs nobody
judged (a new system, a deeper cutoff than the pool) is scored too low. ``Judged@k`` < 1 says so.
Regex-truth qrels list only what the regexes matched, so every other doc is unjudged by construction and
the check means nothing there: ``looks_human`` tells the two apart by the presence of judged non-relevant docs.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.errors import ToolkitWarning
from toolkit.model import Qrels, Run
from toolkit.scoring.engine import ranking

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.scoring.evaluate import RunScores


@dataclass(frozen=True)
class JudgedResult:
    """Judged@depth of one run: mean over the topics with results, and the topics holding unjudged docs."""

    run: str
    depth: int
    rate: float
    topics: int
    unjudged_topics: tuple[str, ...]


def looks_human(qrels: Qrels) -> bool:
    """True when the qrels judge some docs non-relevant (relevance ≤ 0), as pooled human qrels do."""
    columns = getattr(qrels.judgments, "columns", None)
    if columns is not None:
        return bool((columns.grades <= 0).any())
    return any(grade <= 0 for docs in qrels.judgments.values() for grade in docs.values())


def judged_at(run: Run, qrels: Qrels, query_ids: Sequence[str], *, depth: int = 10) -> JudgedResult:
    """Fraction of the top ``depth`` docs that are in the qrels, averaged over the topics with results.

    Same definition as ir_measures' ``Judged@k`` (divides by min(k, docs returned)); topics the run left
    empty are skipped (they have nothing to judge).
    """
    fast = _judged_columns(run, qrels, query_ids, depth)
    if fast is not None:
        return fast
    rates: list[float] = []
    unjudged: list[str] = []
    for query_id in query_ids:
        docs = ranking(run, query_id, depth)
        if not docs:
            continue
        judged = qrels.judgments.get(query_id, {})
        hits = sum(1 for d in docs if d in judged)
        rates.append(hits / len(docs))
        if hits < len(docs):
            unjudged.append(query_id)
    rate = sum(rates) / len(rates) if rates else 1.0
    return JudgedResult(run.name, depth, rate, len(rates), tuple(unjudged))


def warn_unjudged(
    runs: Sequence[Run], qrels: Qrels, results: Sequence[RunScores], measures: Sequence[Measure]
) -> list[JudgedResult]:
    """With pooled human qrels, one ``ToolkitWarning`` per run whose top k holds unjudged docs.

    k is the deepest cutoff among ``measures`` (10 when none has one); regex-truth qrels are not checked
    (``looks_human``). Returns the Judged@k of every run checked.
    """
    from toolkit.scoring.measures import measure_cutoff

    if not looks_human(qrels):
        return []
    depth = max((c for c in map(measure_cutoff, measures) if c is not None), default=10)
    checked = []
    for run, scores in zip(runs, results, strict=True):
        judged = judged_at(run, qrels, scores.query_ids, depth=depth)
        checked.append(judged)
        if judged.unjudged_topics:
            warnings.warn(
                f"run {run.name}: Judged@{depth} = {judged.rate:.4f}; {len(judged.unjudged_topics)} of "
                f"{judged.topics} topics have unjudged docs in the top {depth}, scored as non-relevant "
                "(judge deeper: trec-toolkit pool)",
                ToolkitWarning,
                stacklevel=2,
            )
    return checked


def _judged_columns(run: Run, qrels: Qrels, query_ids: Sequence[str], depth: int) -> JudgedResult | None:
    """``judged_at`` for a run and qrels read column-wise: the join's judged flags counted per topic."""
    ranked = getattr(run.results, "columns", None)
    judged = getattr(qrels.judgments, "columns", None)
    if ranked is None or judged is None or judged.clash:
        return None
    import numpy as np

    from toolkit.treceval.batch import judgment_rows

    rows = judgment_rows(ranked, judged)
    index = ranked.topic_index()
    qrels_topics = set(judged.topics)
    rates: list[float] = []
    unjudged: list[str] = []
    for query_id in query_ids:
        t = index.get(query_id)
        if t is None or ranked.starts[t + 1] == ranked.starts[t]:
            continue
        a = int(ranked.starts[t])
        b = min(int(ranked.starts[t + 1]), a + depth)
        hits = int(np.count_nonzero(rows[ranked.order[a:b]] >= 0)) if query_id in qrels_topics else 0
        rates.append(hits / (b - a))
        if hits < b - a:
            unjudged.append(query_id)
    rate = sum(rates) / len(rates) if rates else 1.0
    return JudgedResult(run.name, depth, rate, len(rates), tuple(unjudged))
