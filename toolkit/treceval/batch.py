"""A run joined to its qrels column-wise: the ``Batch`` that ``toolkit.treceval.vector`` computes measures on.

Why: trec_eval forms each topic's relevance list by looking every retrieved doc up in the topic's judgments
(``te_form_res_rels``). For millions of results that lookup is a hash join, done here on the 64-bit
(topic, doc) keys that ``toolkit.formats`` computes for run rows and qrels rows alike:

1. a bitmap of the qrels keys' top bits drops most run rows at once (most retrieved docs are unjudged);
2. Arrow's hash lookup (``pyarrow.compute.index_in``) finds the candidates' judgments;
3. every match is checked as strings (topic and doc id), so a hash collision can never lend a doc a grade.

Each doc then gets its grade, ``RELVALUE_NONPOOL`` (-1, not judged) or ``RELVALUE_UNJUDGED`` (-2, judged < 0),
as ``form_res_rels`` gives them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from toolkit.formats.qrels import JudgmentColumns
from toolkit.formats.ranked import RankedColumns
from toolkit.formats.tables import numbers
from toolkit.treceval.measures.base import RELVALUE_NONPOOL, RELVALUE_UNJUDGED
from toolkit.treceval.vector import Batch

#: Bits of the prefilter's bitmap (2^24 flags: 16 MiB).
FILTER_BITS = 24


@lru_cache(maxsize=2)
def judgment_rows(run: RankedColumns, qrels: JudgmentColumns) -> Any:
    """For every run row (file order), the qrels row judging the same (topic, doc), or -1 (read-only).

    Kept for the last two pairs asked for: ``score`` joins once for the measures and once for Judged@k.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    shift = np.uint64(64 - FILTER_BITS)
    flags = np.zeros(1 << FILTER_BITS, bool)
    flags[(qrels.keys >> shift).astype(np.intp)] = True
    rows = np.flatnonzero(flags[(run.keys >> shift).astype(np.intp)])
    del flags
    found = numbers(pc.index_in(pa.array(run.keys[rows]), value_set=pa.array(qrels.keys)).fill_null(-1))
    rows = rows[found >= 0]
    qrows = found[found >= 0].astype(np.int64)
    topic_map = {q: t for t, q in enumerate(qrels.topics)}
    run_to_qrels = np.array([topic_map.get(q, -1) for q in run.topics], np.int64)
    same = run_to_qrels[run.codes[rows]] == qrels.codes[qrows]
    if len(rows):
        same &= numbers(pc.equal(run.docs.take(pa.array(rows)), qrels.docs.take(pa.array(qrows))))
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
    positions = np.repeat(first - starts[:-1], length) + np.arange(total)
    qrow = judged[run.order[positions]]
    grade = np.where(qrow >= 0, qrels.grades[np.maximum(qrow, 0)], RELVALUE_NONPOOL)
    rel = np.where((qrow >= 0) & (grade < 0), RELVALUE_UNJUDGED, grade).astype(np.int64)
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
