"""A run joined to its qrels column-wise: the ``Batch`` that ``toolkit.treceval.vector`` computes measures on.

Why: trec_eval forms each topic's relevance list by looking every retrieved doc up in the topic's judgments
(``te_form_res_rels``). For millions of results that lookup is a hash join, done here on the 64-bit
(topic, doc) keys that ``toolkit.formats`` computes for run rows and qrels rows alike:

1. a bitmap of the qrels keys' top bits drops most run rows at once (most retrieved docs are unjudged);
2. Arrow's hash lookup (``index_in``) finds the candidates' judgments;
3. every match is checked as strings (topic and doc id), so a hash collision can never lend a doc a grade.

Each doc then gets its grade, ``RELVALUE_NONPOOL`` (-1, not judged) or ``RELVALUE_UNJUDGED`` (-2, judged < 0),
as ``form_res_rels`` gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from weakref import WeakKeyDictionary, ref

from toolkit.formats.qrels import JudgmentColumns
from toolkit.formats.ranked import RankedColumns
from toolkit.formats.tables import arrow, compute, numbers, take
from toolkit.treceval.measures.base import RELVALUE_NONPOOL, RELVALUE_UNJUDGED
from toolkit.treceval.vector import Batch

#: Bits of the prefilter's bitmap (2^24 flags: 16 MiB).
FILTER_BITS = 24


#: The last join of each run still alive (``score`` needs it for the measures and again for Judged@k).
_JOINS: WeakKeyDictionary[RankedColumns, tuple[Any, Any]] = WeakKeyDictionary()


def judgment_rows(run: RankedColumns, qrels: JudgmentColumns) -> Any:
    """For every run row (file order), the qrels row judging the same (topic, doc), or -1 (read-only)."""
    kept = _JOINS.get(run)
    if kept is not None and kept[0]() is qrels:
        return kept[1]
    rows = _join(run, qrels)
    _JOINS[run] = (ref(qrels), rows)
    return rows


def _join(run: RankedColumns, qrels: JudgmentColumns) -> Any:
    import numpy as np
    from pyarrow._compute import SetLookupOptions

    shift = np.uint64(64 - FILTER_BITS)
    flags = np.zeros(1 << FILTER_BITS, bool)
    flags[(qrels.keys >> shift).astype(np.intp)] = True
    step = 1 << 20  # a slice at a time: the shifted keys are 8 bytes a row
    parts = [
        np.flatnonzero(flags[(run.keys[a : a + step] >> shift).astype(np.intp)]) + a
        for a in range(0, len(run.keys), step)
    ]
    rows = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    del flags, parts
    looked_up = compute("index_in", arrow(run.keys[rows]), options=SetLookupOptions(arrow(qrels.keys)))
    hit = numbers(compute("is_valid", looked_up))
    rows = rows[hit]
    qrows = numbers(looked_up, nulls=True)[hit].astype(np.int64)
    topic_map = {q: t for t, q in enumerate(qrels.topics)}
    run_to_qrels = np.array([topic_map.get(q, -1) for q in run.topics], np.int64)
    same = run_to_qrels[run.codes[rows]] == qrels.codes[qrows]
    if len(rows):
        upper = take(run.docs, arrow(rows))
        same &= numbers(compute("equal", upper, take(qrels.docs, arrow(qrows))))
    out = np.full(len(run.keys), -1, np.int32 if len(qrels.keys) < 2**31 else np.int64)
    out[rows[same]] = qrows[same]
    out.flags.writeable = False
    return out


def build_batch(
    run: RankedColumns,
    qrels: JudgmentColumns,
    pairs: Sequence[tuple[int, int]],
    *,
    max_docs: int | None = None,
    stand_in: Sequence[int] = (),
) -> Batch:
    """The batch of ``pairs`` (run topic index or -1, qrels topic index), in that order.

    A pair with run topic -1 gets a one-doc ranking of a doc the qrels do not judge (trec_eval ``-c``'s
    stand-in; ``stand_in[k]`` gives its grade when they do judge it, else -1 is used). ``max_docs`` cuts every
    ranking (``-M``).
    """
    import numpy as np

    judged = judgment_rows(run, qrels)
    run_topic = np.array([r for r, _ in pairs], np.int64)
    qrels_topic = np.array([q for _, q in pairs], np.int64)
    present = run_topic >= 0
    first = np.where(present, run.starts[:-1][np.maximum(run_topic, 0)], 0)
    length = np.where(present, run.starts[1:][np.maximum(run_topic, 0)] - first, 1)
    if max_docs is not None:
        length = np.minimum(length, max_docs)
    starts = np.concatenate(([0], np.cumsum(length))).astype(np.int64)
    total = int(starts[-1])
    small = np.int32 if len(run.order) < 2**31 and total < 2**31 else np.int64
    # the run rows in batch order, one 4-byte array at a time (5 million results: 20 MB each)
    rows = np.repeat((first - starts[:-1]).astype(small), length)
    rows += np.arange(total, dtype=small)
    rows[starts[:-1][~present]] = 0
    rows = run.order[rows]
    qrow = judged[rows] if len(rows) else np.zeros(0, np.int32)
    del rows
    rel = np.full(total, RELVALUE_NONPOOL, np.int32 if small is np.int32 else np.int64)
    found = np.flatnonzero(qrow >= 0)
    grade = qrels.grades[qrow[found]]
    del qrow
    if len(grade) and (grade.max() >= 2**31 or grade.min() < -(2**31)):
        rel = rel.astype(np.int64)
    rel[found] = np.where(grade < 0, RELVALUE_UNJUDGED, grade)
    missing = np.flatnonzero(~present)
    if len(missing):
        values = list(stand_in) if stand_in else [RELVALUE_NONPOOL] * len(missing)
        rel[starts[missing]] = values
    # each qrels topic's grades, descending
    by_topic = np.lexsort((-qrels.grades, qrels.codes))
    counts = np.bincount(qrels.codes, minlength=len(qrels.topics))
    qfirst_all = np.concatenate(([0], np.cumsum(counts)))
    qlength = counts[qrels_topic]
    qstarts = np.concatenate(([0], np.cumsum(qlength))).astype(np.int64)
    qpositions = np.repeat(qfirst_all[qrels_topic] - qstarts[:-1], qlength) + np.arange(int(qstarts[-1]))
    grades = qrels.grades[by_topic[qpositions]]
    return Batch(starts, rel, qstarts, grades)
