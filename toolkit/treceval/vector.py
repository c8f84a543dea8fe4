"""trec_eval 10's common measures computed for every topic at once with numpy, to trec_eval's last bit.

Why: the port in ``toolkit.treceval.measures`` walks each topic's ranking in Python — the reference, and
minutes on 5 million results. Here one topic batch (``Batch``: every topic's relevance list, concatenated in
rank order, and every topic's qrels grades) goes through numpy segment operations. The doubles are trec_eval's:

* the same operands and operations — ``(double) count / (double) k``, ``gain / log2(i + 2.0)`` with ``log2``
  from the C library (``math.log2``, tabulated once), ``lround`` as ``toolkit.treceval.cnum`` computes it;
* the same summation order: a per-topic sum of terms (AP, nDCG, bpref, 11pt_avg) is accumulated left to right
  from 0.0 in rank order, column by column over a topics × terms matrix — never ``np.sum`` (pairwise), never a
  difference of prefix sums, either of which can change the last bit and so a printed digit;
* maxima (interpolated precision) are exact whatever the order.

Which measure has which kernel is said once, in the measure table (``toolkit.treceval.measures``, each row's
``kernel``); ``KERNELS`` is that column. Callers fall back to the reference path for the rest, and for inputs
where trec_eval's carried-over state matters (a topic without a grade ≥ 0). ``tests/treceval/test_kernels.py``
holds every kernel to the reference port on random tie-heavy batches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

#: C library ``log2(i + 2.0)`` for ranks i = 0 … (grown on demand).
_DISCOUNTS: list[float] = []


def _discounts(n: int) -> Any:
    import numpy as np

    while len(_DISCOUNTS) < n:
        _DISCOUNTS.append(math.log2(len(_DISCOUNTS) + 2.0))
    return np.array(_DISCOUNTS[:n], np.float64)


@dataclass(frozen=True)
class Batch:
    """Topics' judged rankings (trec_eval's ``RES_RELS``), concatenated.

    Topic t's ranking is ``rel[starts[t]:starts[t+1]]``: each doc's grade, or ``RELVALUE_NONPOOL`` (-1, not in
    the qrels) / ``RELVALUE_UNJUDGED`` (-2, judged < 0), in rank order, already cut at ``-M``. Its qrels grades
    are ``grades[qstarts[t]:qstarts[t+1]]``, sorted descending (all of them, negative ones included).
    """

    starts: Any
    rel: Any
    qstarts: Any
    grades: Any

    @property
    def topics(self) -> int:
        return len(self.starts) - 1

    @cached_property
    def lengths(self) -> Any:
        import numpy as np

        return np.diff(self.starts)

    def locate(self, positions: Any) -> tuple[Any, Any]:
        """The topic and the 0-based rank within it of each of ``positions`` (ascending indices into ``rel``)."""
        import numpy as np

        topics = np.searchsorted(self.starts, positions, side="right") - 1
        return topics, positions - self.starts[topics]

    def flagged(self, flags: Any, depth: int | None = None) -> tuple[Any, Any, Any]:
        """Positions with ``flags`` (within the top ``depth`` of their topic), their topics and ranks."""
        import numpy as np

        where = np.flatnonzero(flags)
        topics, ranks = self.locate(where)
        if depth is not None:
            keep = ranks < depth
            where, topics, ranks = where[keep], topics[keep], ranks[keep]
        return where, topics, ranks

    def num_rel(self, level: int) -> Any:
        """Qrels docs with a grade ≥ max(level, 0) (trec_eval counts only grades ≥ 0)."""
        return self._count_grades(max(level, 0), None)

    def num_nonrel(self, level: int) -> Any:
        """Qrels docs judged 0 … level-1 (bpref's non-relevant docs)."""
        return self._count_grades(0, level)

    def positive_grades(self) -> Any:
        """Qrels docs with a grade > 0 (the ideal ranking's length)."""
        return self._count_grades(1, None)

    def max_grade(self) -> Any:
        import numpy as np

        out = np.full(self.topics, np.iinfo(np.int64).min, np.int64)
        has = np.diff(self.qstarts) > 0
        out[has] = self.grades[self.qstarts[:-1][has]]
        return out

    def _count_grades(self, low: int, high: int | None) -> Any:
        import numpy as np

        inside = self.grades >= low
        if high is not None:
            inside &= self.grades < high
        csum = np.concatenate(([0], np.cumsum(inside, dtype=np.int64)))
        return csum[self.qstarts[1:]] - csum[self.qstarts[:-1]]

    def hits(self, level: int) -> Any:
        """Whether each ranked doc counts as relevant: ``rel >= level`` exactly as the C loops test it."""
        return self.rel >= level

    def count_top(self, flags: Any, k: Any) -> Any:
        """Per topic, how many of its first ``k`` docs (``k`` a number or one per topic) have ``flags``.

        Counts are integers, so any order of adding gives the same; small cutoffs are read per rank.
        """
        import numpy as np

        if isinstance(k, int) and k <= 64:
            counts = np.zeros(self.topics, np.int64)
            last = max(len(flags) - 1, 0)
            for j in range(k):
                at = self.starts[:-1] + j
                counts += flags[np.minimum(at, last)] & (at < self.starts[1:])
            return counts
        limit = np.asarray(k, np.int64)
        _, topics, ranks = self.flagged(flags)
        keep = ranks < (limit if limit.ndim == 0 else limit[topics])
        return np.bincount(topics[keep], minlength=self.topics)

    def judged(self) -> Batch:
        """The batch with every doc the qrels do not judge (≥ 0) left out of the rankings: trec_eval ``-J``."""
        import numpy as np

        keep = self.rel >= 0
        counts = np.concatenate(([0], np.cumsum(keep, dtype=np.int64)))
        return Batch(counts[self.starts], self.rel[keep], self.qstarts, self.grades)

    def res_rels(self, t: int, level: int, *, judged_only: bool = False) -> Any:
        """Topic ``t``'s ``ResRels`` at relevance ``level``, as ``form_res_rels`` forms it for a topic with a grade
        ≥ 0 (its grade counts are the topic's own; a batch made by ``judged()`` with ``judged_only``)."""
        rels = self.rel[self.starts[t] : self.starts[t + 1]].tolist()
        grades = self.grades[self.qstarts[t] : self.qstarts[t + 1]].tolist()
        return form_res_rels(rels, grades, level, judged_only=judged_only)

    def first(self, flags: Any) -> Any:
        """Per topic, the rank of its first doc with ``flags`` (-1 when none)."""
        import numpy as np

        _, topics, ranks = self.flagged(flags)
        out = np.full(self.topics, -1, np.int64)
        keep = np.ones(len(topics), bool)
        keep[1:] = topics[1:] != topics[:-1]
        out[topics[keep]] = ranks[keep]
        return out


def form_res_rels(rels: list[int], grades: list[int], level: int, *, judged_only: bool = False) -> Any:
    """A topic's ``ResRels`` from its relevance list (in rank order) and its qrels grades, as ``form_res_rels``
    forms it for a topic with a grade ≥ 0; shared by ``Batch`` and ``toolkit.scoring.kernels``' list batch."""
    from collections import Counter

    from toolkit.treceval.measures.base import RELVALUE_NONPOOL, RELVALUE_UNJUDGED, ResRels

    counts = Counter(g for g in grades if g >= 0)
    return ResRels(
        num_ret=len(rels),
        num_rel=sum(c for g, c in counts.items() if g >= level),
        num_rel_ret=sum(1 for r in rels if r >= 0 and r >= level),
        num_nonpool=0 if judged_only else rels.count(RELVALUE_NONPOOL),
        num_unjudged_in_pool=0 if judged_only else rels.count(RELVALUE_UNJUDGED),
        num_rel_levels=max(counts) + 1 if counts else 0,
        rel_levels=dict(counts),
        rel_list=rels,
    )


def _ordinals(topics: Any) -> Any:
    """0, 1, 2 … within each stretch of equal ``topics`` (non-decreasing)."""
    import numpy as np

    first = np.ones(len(topics), bool)
    first[1:] = topics[1:] != topics[:-1]
    starts = np.flatnonzero(first)
    return np.arange(len(topics)) - np.repeat(starts, np.diff(np.append(starts, len(topics))))


def sequential_sums(topics: Any, values: Any, n_topics: int, *, cumulative: bool = False) -> Any:
    """Per topic, ``0.0 + v1 + v2 + …`` over its ``values`` in the given order (``topics`` non-decreasing).

    The terms go into a topics × terms matrix, zero-padded, and are added column by column, which is C's loop
    order; adding the padding's 0.0 changes nothing. ``cumulative=True`` returns the matrix of running sums
    (column j: the sum of the first j+1 terms) with a first column of zeros.
    """
    import numpy as np

    if len(values) == 0:
        return np.zeros((n_topics, 1)) if cumulative else np.zeros(n_topics)
    ordinal = _ordinals(topics)
    width = int(ordinal.max()) + 1
    matrix = np.zeros((n_topics, width))
    matrix[topics, ordinal] = values
    if cumulative:
        out = np.zeros((n_topics, width + 1))
        np.add.accumulate(matrix, axis=1, out=out[:, 1:])
        return out
    total = np.zeros(n_topics)
    for j in range(width):
        total += matrix[:, j]
    return total


def _divide(numerator: Any, denominator: Any) -> Any:
    """``(double) a / (double) b`` elementwise (callers keep b ≠ 0 where the value is used)."""
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(numerator, np.float64) / np.asarray(denominator, np.float64)


# --- kernels: (batch, relevance level, parameters) → one array of per-topic values per printed name -----------


def _np() -> Any:
    import numpy as np

    return np


def _num_ret(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    return [b.lengths.astype(_np().float64)]


def _num_rel(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    return [b.num_rel(level).astype(_np().float64)]


def _num_rel_ret(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    return [b.count_top(b.rel >= max(level, 0), b.lengths).astype(_np().float64)]


def _num_nonrel_judged_ret(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    judged = (b.rel >= 0) & ~(b.rel >= max(level, 0))
    return [b.count_top(judged, b.lengths).astype(np.float64)]


def _ap_sums(b: Batch, level: int, depth: Any = None) -> tuple[Any, Any]:
    """(sum of precision at each relevant doc, number of relevant docs) per topic, in the top ``depth``."""
    np = _np()
    where, topics, ranks = b.flagged(b.hits(level), depth)
    so_far = _ordinals(topics) + 1
    terms = _divide(so_far, ranks + 1)
    counts = np.bincount(topics, minlength=b.topics)
    return sequential_sums(topics, terms, b.topics), counts


def _map(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    total, counts = _ap_sums(b, level)
    return [np.where(counts > 0, _divide(total, b.num_rel(level)), 0.0)]


def _gm_map(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    from toolkit.treceval.measures.base import MIN_GEO_MEAN

    np = _np()
    total, counts = _ap_sums(b, level)
    ap = np.where(counts > 0, _divide(total, b.num_rel(level)), total)
    return [np.array([math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN) for v in ap.tolist()])]


def _map_cut(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    np = _np()
    num_rel = b.num_rel(level)
    out = []
    for k in cutoffs:
        total, _ = _ap_sums(b, level, int(k))
        out.append(np.where(num_rel > 0, _divide(total, num_rel), 0.0))
    return out


def _rprec(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    num_rel = b.num_rel(level)
    look_at = np.minimum(b.lengths, num_rel)
    count = b.count_top(b.hits(level), look_at)
    return [np.where(look_at > 0, _divide(count, num_rel), 0.0)]


def _recip_rank(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    rank = b.first(b.hits(level))
    return [np.where(rank >= 0, _divide(1.0, rank + 1), 0.0)]


def _precision(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    hits = b.hits(level)
    return [_divide(b.count_top(hits, int(k)), int(k)) for k in cutoffs]


def _recall(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    np = _np()
    hits = b.hits(level)
    num_rel = b.num_rel(level)
    return [np.where(num_rel > 0, _divide(b.count_top(hits, int(k)), num_rel), 0.0) for k in cutoffs]


def _success(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    np = _np()
    hits = b.hits(level)
    return [np.where(b.count_top(hits, int(k)) > 0, 1.0, 0.0) for k in cutoffs]


def _relative_p(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    np = _np()
    hits = b.hits(level)
    num_rel = b.num_rel(level)
    out = []
    for k in cutoffs:
        count = b.count_top(hits, int(k))
        denominator = np.where(int(k) > num_rel, num_rel, int(k))
        out.append(np.where(num_rel > 0, _divide(count, denominator), 0.0))
    return out


def _set_p(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    rel_ret = b.count_top(b.rel >= max(level, 0), b.lengths)
    return [np.where(b.lengths > 0, _divide(rel_ret, b.lengths), 0.0)]


def _set_recall(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    rel_ret = b.count_top(b.rel >= max(level, 0), b.lengths)
    num_rel = b.num_rel(level)
    return [np.where(num_rel > 0, _divide(rel_ret, num_rel), 0.0)]


def _bpref(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    num_rel = b.num_rel(level)
    num_nonrel = b.num_nonrel(level)
    nonrel = np.flatnonzero((b.rel >= 0) & (b.rel < level))
    relevant, topics, _ = b.flagged(b.rel >= max(level, 0))
    # judged non-relevant docs ranked above each relevant doc, within its topic
    seen = np.searchsorted(nonrel, relevant) - np.searchsorted(nonrel, b.starts[:-1][topics])
    r = num_rel[topics]
    ratio = _divide(np.minimum(seen, r), np.minimum(num_nonrel[topics], r))
    terms = np.where(seen > 0, 1.0 - ratio, 1.0)
    total = sequential_sums(topics, terms, b.topics)
    return [np.where(num_rel > 0, _divide(total, num_rel), total)]


def _interpolated(b: Batch, level: int, percents: Sequence[float]) -> tuple[Any, Any]:
    """Interpolated precision per topic and recall level, and which levels trec_eval assigns (m_iprec_at_recall.c).

    The value at recall cutoff c (1 ≤ c ≤ relevant retrieved) is the largest precision at or below the rank
    of the c-th relevant doc; that maximum is reached at a relevant doc, so it is the suffix maximum of
    (j / rank of the j-th relevant doc) over j ≥ c. Cutoff 0 takes the value of cutoff 1.
    """
    np = _np()
    num_rel = b.num_rel(level)
    where, topics, ranks = b.flagged(b.hits(level))
    so_far = _ordinals(topics) + 1
    precision = _divide(so_far, ranks + 1)
    rel_ret = np.bincount(topics, minlength=b.topics)
    width = int(rel_ret.max()) if len(rel_ret) else 0
    matrix = np.zeros((b.topics, width + 1))
    matrix[topics, so_far - 1] = precision
    suffix = np.maximum.accumulate(matrix[:, ::-1], axis=1)[:, ::-1]
    scaled = np.outer(num_rel.astype(np.float64), np.asarray(percents, np.float64))
    whole = np.floor(np.abs(scaled))
    cutoffs = (np.sign(scaled) * (whole + (np.abs(scaled) - whole >= 0.5))).astype(np.int64)  # cnum.lround
    assigned = cutoffs <= rel_ret[:, None]
    column = np.clip(cutoffs - 1, 0, width)
    values = np.take_along_axis(suffix, column, axis=1)
    values = np.where(assigned & (rel_ret[:, None] > 0), values, 0.0)
    # no relevant doc retrieved: trec_eval assigns rel_ret / num_ret (0.0) to the levels with cutoff 0
    return values, assigned


def _iprec_at_recall(b: Batch, level: int, percents: Sequence[float]) -> list[Any]:
    values, _ = _interpolated(b, level, percents)
    return [values[:, k] for k in range(len(percents))]


def _11pt_avg(b: Batch, level: int, percents: Sequence[float]) -> list[Any]:
    np = _np()
    values, assigned = _interpolated(b, level, percents)
    total = np.zeros(b.topics)
    for k in reversed(range(len(percents))):
        total += np.where(assigned[:, k], values[:, k], 0.0)
    return [_divide(total, len(percents))]


def _dcg_terms(b: Batch, depth: int | None) -> tuple[Any, Any]:
    """Topics and terms ``grade / log2(rank + 2)`` of the ranked docs with a grade > 0 (in the top ``depth``)."""
    where, topics, ranks = b.flagged(b.rel > 0, depth)
    table = _discounts(int(ranks.max()) + 1 if len(ranks) else 1)
    return topics, _divide(b.rel[where], table[ranks])


def _ideal_terms(b: Batch, depth: int | None) -> tuple[Any, Any]:
    """Topics and terms of the ideal ranking: each topic's grades > 0, descending, over log2(rank + 2)."""
    np = _np()
    qtopic = np.repeat(np.arange(b.topics), np.diff(b.qstarts))
    position = np.arange(len(b.grades)) - b.qstarts[:-1][qtopic]
    keep = b.grades > 0
    if depth is not None:
        keep &= position < depth
    where = np.flatnonzero(keep)
    ranks = position[where]
    table = _discounts(int(ranks.max()) + 1 if len(ranks) else 1)
    return qtopic[where], _divide(b.grades[where], table[ranks])


def _ndcg_cut(b: Batch, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    np = _np()
    deepest = int(max(cutoffs))
    topics, terms = _dcg_terms(b, deepest)
    dcg = sequential_sums(topics, terms, b.topics, cumulative=True)
    itopics, iterms = _ideal_terms(b, deepest)
    ideal = sequential_sums(itopics, iterms, b.topics, cumulative=True)
    positive_rank = b.flagged(b.rel > 0, deepest)[2]
    out = []
    for k in cutoffs:
        k = int(k)
        inside = np.bincount(topics[positive_rank < k], minlength=b.topics)
        ideal_count = np.minimum(b.positive_grades(), k)
        value = dcg[np.arange(b.topics), inside]
        best = ideal[np.arange(b.topics), ideal_count]
        out.append(np.where(best > 0.0, _divide(value, best), value))
    return out


def _ndcg(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    np = _np()
    topics, terms = _dcg_terms(b, None)
    dcg = sequential_sums(topics, terms, b.topics)
    itopics, iterms = _ideal_terms(b, None)
    ideal = sequential_sums(itopics, iterms, b.topics)
    return [np.where(ideal > 0.0, _divide(dcg, ideal), 0.0)]


def _num_q(b: Batch, level: int, params: Sequence[Any]) -> list[Any]:
    return [_np().ones(b.topics)]


def __getattr__(name: str) -> Any:
    """``KERNELS``: trec_eval name → kernel, the ``kernel`` column of the measure table (read on first use,
    because the table imports this module)."""
    if name == "KERNELS":
        return _kernels()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _kernels() -> dict[str, Callable[[Batch, int, Sequence[Any]], list[Any]]]:
    from toolkit.treceval.measures import MEASURES

    return {m.name: m.kernel for m in MEASURES if m.kernel is not None}


_CUTOFF_KERNELS = frozenset({"map_cut", "P", "recall", "success", "relative_P", "ndcg_cut", "RR@k", "ERR"})


def usable(name: str, params: Sequence[Any], batch: Batch, level: int, *, fresh: bool = False) -> bool:
    """Whether ``name`` with ``params`` has a kernel that gives trec_eval's values on this batch at ``level``.

    ``fresh``: the values wanted are those of each topic's own grade counts (``score``'s), not those trec_eval
    computes from counts carried over from an earlier topic; the kernels compute the former.
    """
    import numpy as np

    if name not in _kernels() or level < 0:
        return False
    if batch.topics and not batch.lengths.all():
        return False  # an empty ranking (-J left nothing): trec_eval divides by 0 there, and so does the port
    if name == "ndcg" and params:
        return False
    if name in _CUTOFF_KERNELS and not all(isinstance(k, int) and 0 < k < 2**31 for k in params):
        return False  # trec_eval keeps cutoffs as C ints: beyond that they wrap
    if name in ("iprec_at_recall", "11pt_avg"):  # the C walk assumes levels in ascending order, finite
        levels = [float(p) for p in params]
        if any(not math.isfinite(p) or abs(p) * (len(batch.grades) + 1) > 2.0**62 for p in levels):
            return False
        return all(a <= b for a, b in zip(levels, levels[1:], strict=False))
    if (
        name == "bpref" and not fresh
    ):  # bpref counts grades below the level, where trec_eval may read a stale count
        return bool(np.all(batch.max_grade() >= level - 1))
    return True


def compute(name: str, params: Sequence[Any], batch: Batch, level: int) -> list[Any]:
    """The measure's per-topic values (one array per printed name), as trec_eval 10 computes them."""
    return _kernels()[name](batch, level, params)
