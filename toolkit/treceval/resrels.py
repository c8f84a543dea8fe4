"""One topic's ranked relevance list, formed as trec_eval 10's ``te_form_res_rels`` forms it.

Docs are ranked by score descending (compared as doubles), ties by doc id descending (``strcmp``), cut at ``-M``;
each gets its qrels grade, or ``RELVALUE_NONPOOL`` when the qrels do not list it, or ``RELVALUE_UNJUDGED``
when they list it with a grade < 0; ``-J`` drops those two kinds. The counts per grade come from the qrels.

trec_eval keeps the grade-count table in a buffer that lives from topic to topic, and a topic whose largest
grade is < 0 reads that buffer without writing it. ``LevelsState`` carries exactly what C carries:

* before any topic with a grade ≥ 0 the buffer was never allocated: trec_eval stops (exit 4);
* after one, a topic whose grades are all -1 sees the previous such topic's counts and number of levels (its
  measures are 0 anyway, unless ``-m ndcg.-1=…`` gives negative grades a gain);
* a topic whose largest grade is -2 or lower makes trec_eval clear a negative number of bytes: it crashes.

The drop-in stops with a clear message where trec_eval crashes or stops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolkit.treceval.cnum import qsort
from toolkit.treceval.measures.base import RELVALUE_NONPOOL, RELVALUE_UNJUDGED, ResRels, Settings

#: Largest grade + 1 the drop-in evaluates: trec_eval allocates max grade + 1 counts per topic and its gain
#: measures walk them all; far beyond this it runs out of memory or time, and the drop-in stops before.
MAX_LEVELS = 1 << 24

STOP = "stop"  # trec_eval stops: "Can't calculate measure" (exit 4)
CRASH = "crash"  # trec_eval crashes
LIMIT = "limit"  # the drop-in's own limit


class FormFailure(Exception):
    """This topic's list cannot be formed; ``kind`` says whether trec_eval stops, crashes, or the drop-in stops."""

    def __init__(self, message: str, *, kind: str = STOP) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class LevelsState:
    """trec_eval's static ``rel_levels`` buffer and ``num_rel_levels``, carried from topic to topic."""

    bound: int = 0
    buffer: dict[int, int] = field(default_factory=dict)
    num_rel_levels: int = 0


def _compare_sim_docno(a: tuple[str, float], b: tuple[str, float]) -> int:
    if a[1] > b[1]:
        return -1
    if a[1] < b[1]:
        return 1
    return (b[0] > a[0]) - (b[0] < a[0])


def rank(docs: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """trec_eval's order: score descending, ties by doc id descending (glibc's merge sort when a score is NaN)."""
    if any(math.isnan(score) for _, score in docs):
        return qsort(list(docs), _compare_sim_docno)
    return sorted(docs, key=lambda d: (d[1], d[0]), reverse=True)


def _twice(query_id: str, doc: str, what: str) -> FormFailure:
    return FormFailure(f"topic {query_id!r}: doc {doc!r} is {what}")


def form_res_rels(
    epi: Settings,
    query_id: str,
    qrels: Sequence[tuple[str, int]],
    docs: Sequence[tuple[str, float]],
    state: LevelsState,
    *,
    run_twice: str | None = None,
    qrels_twice: str | None = None,
) -> ResRels:
    """The topic's ``ResRels``; ``FormFailure`` where trec_eval stops or crashes.

    ``run_twice`` / ``qrels_twice``: the smallest doc the topic lists / judges twice when the reader kept
    none of its lines (``toolkit.formats.as_trec_eval``): the topic stops trec_eval at that doc.
    """
    top = rank(docs)[: max(epi.max_docs, 0)]
    by_doc = sorted(d for d, _ in top)
    for a, b in zip(by_doc, by_doc[1:], strict=False):
        if a == b:
            raise _twice(query_id, a, "listed twice in the run")
    if run_twice is not None:
        raise _twice(query_id, run_twice, "listed twice in the run")
    if qrels_twice is not None:
        raise _twice(query_id, qrels_twice, "judged twice in the qrels")
    max_rel = qrels[0][1]
    for (doc_a, _), (doc_b, grade) in zip(qrels, qrels[1:], strict=False):
        max_rel = max(max_rel, grade)
        if doc_a == doc_b:
            raise _twice(query_id, doc_b, "judged twice in the qrels")
    needed = max_rel + 1
    if needed > MAX_LEVELS:
        raise FormFailure(
            f"topic {query_id!r}: grade {max_rel} is above {MAX_LEVELS - 1}, the largest the drop-in evaluates "
            "(trec_eval 10 allocates a count for every grade up to the largest); rescale the grades",
            kind=LIMIT,
        )
    if needed > state.bound:
        state.bound += needed
        state.buffer = {}  # a fresh allocation (its garbage read as 0)
    elif state.bound == 0:
        raise FormFailure(
            f"topic {query_id!r} comes first and has no grade >= 0, so trec_eval 10 has not allocated its "
            "grade-count table yet and stops (`trec-toolkit score` scores such a topic 0)"
        )
    elif needed < 0:
        raise FormFailure(
            f"topic {query_id!r}: every grade is {max_rel} or lower; trec_eval 10 clears a negative number of "
            "bytes for it and crashes (segmentation fault)",
            kind=CRASH,
        )
    for level in [k for k in state.buffer if 0 <= k < needed]:
        del state.buffer[level]
    judged: dict[str, int] = {}
    for doc, grade in qrels:
        judged[doc] = grade
        if grade >= 0:
            state.buffer[grade] = state.buffer.get(grade, 0) + 1
    rels: list[int] = []
    for doc, _ in top:
        found = judged.get(doc)
        rels.append(RELVALUE_NONPOOL if found is None else (RELVALUE_UNJUDGED if found < 0 else found))
    level = epi.relevance_level
    if epi.judged_only:
        rels = [r for r in rels if r >= 0]
        nonpool = unjudged = 0
    else:
        nonpool = rels.count(RELVALUE_NONPOOL)
        unjudged = rels.count(RELVALUE_UNJUDGED)
    num_rel_ret = sum(1 for r in rels if r >= 0 and r >= level)
    present = sorted(k for k, count in state.buffer.items() if 0 <= k <= max_rel and count)
    if present:
        state.num_rel_levels = present[-1] + 1
    num_rel = sum(state.buffer[k] for k in present if k >= level)
    return ResRels(
        num_ret=len(rels),
        num_rel=num_rel,
        num_rel_ret=num_rel_ret,
        num_nonpool=nonpool,
        num_unjudged_in_pool=unjudged,
        num_rel_levels=state.num_rel_levels,
        rel_levels=dict(state.buffer),
        rel_list=rels,
    )
