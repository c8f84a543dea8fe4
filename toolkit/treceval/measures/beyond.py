"""Measures trec_eval 10 lacks, computed on the same ranked relevance lists as its own.

Each has a reference ``calc_*`` on one topic's ``ResRels`` (the definition read plainly, a loop over the
ranking) and a vectorised kernel on a ``Batch`` that the tests hold to it, like trec_eval's measures. Adding a
measure here is one function pair plus one row of the table (``toolkit.treceval.measures.BEYOND``).

* ``RR@k`` — reciprocal rank of the first relevant doc within the top k: trec_eval's ``recip_rank`` on the
  ranking cut at k (pytrec_eval and trec_eval have no cutoff for it).
* ``ERR@k`` — expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009): a user scans down the
  ranking and stops at rank i with probability R_i, so ERR = Σ_i R_i / i · Π_{j<i} (1 − R_j). A grade g maps
  to R = (2^g − 1) / 2^4 as in gdeval.pl (TREC Web track), whose scale ends at 4; unjudged docs and grades
  below 0 count as 0. gdeval's own script keeps only what follows the last ``-`` of a topic id, and so merges
  topics (``q-1`` and ``r-1``); computing ERR here avoids that. Without a cutoff, the whole ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.treceval.measures.base import ResRels, Settings

#: The largest grade of gdeval's scale; ERR maps a grade g to (2^g − 1) / 2^ERR_MAX_GRADE.
ERR_MAX_GRADE = 4


class GradeScaleError(ValueError):
    """A grade outside the scale a measure maps grades on (ERR: 0 to ``ERR_MAX_GRADE``)."""


def calc_recip_rank_cut(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """1 / rank of the first relevant doc within the top k, per cutoff k (0 when none)."""
    values: list[Any] = []
    for k in cutoffs:
        value = 0.0
        for i in range(min(k, rr.num_ret)):
            if rr.rel_list[i] >= epi.relevance_level:
                value = 1.0 / (i + 1)
                break
        values.append(value)
    return values


def recip_rank_cut(b: Any, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    """``calc_recip_rank_cut`` for every topic of the batch ``b``."""
    import numpy as np

    rank = b.first(b.hits(level))
    return [np.where((rank >= 0) & (rank < int(k)), 1.0 / np.maximum(rank + 1.0, 1.0), 0.0) for k in cutoffs]


def _stop_probability(grade: int) -> float:
    """R of a grade; ``GradeScaleError`` above the scale (the qrels' grades are checked before any ranking)."""
    if grade > ERR_MAX_GRADE:
        raise GradeScaleError(
            f"grade {grade}: ERR maps grades 0–{ERR_MAX_GRADE} (R = (2^g − 1)/16, gdeval's scale); "
            f"rescale the qrels to 0–{ERR_MAX_GRADE} for ERR"
        )
    return (2.0 ** max(grade, 0) - 1.0) / 2.0**ERR_MAX_GRADE


def calc_err(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """ERR within the top k per cutoff k, or over the whole ranking without cutoffs (gdeval's operations)."""
    if rr.rel_levels and max(rr.rel_levels) > ERR_MAX_GRADE:
        _stop_probability(max(rr.rel_levels))
    values: list[Any] = []
    for k in cutoffs or [rr.num_ret]:
        score = 0.0
        decay = 1.0
        for i in range(min(k, rr.num_ret)):
            r = _stop_probability(rr.rel_list[i])
            score += r * decay / (i + 1)
            decay *= 1 - r
        values.append(score)
    return values


def err(b: Any, level: int, cutoffs: Sequence[Any]) -> list[Any]:
    """``calc_err`` for every topic of the batch ``b``: the ranks as columns of a topics × depth matrix, added
    column by column (the reference's order of operations)."""
    import numpy as np

    if len(b.grades) and int(b.grades.max()) > ERR_MAX_GRADE:
        _stop_probability(int(b.grades.max()))
    depths = [int(k) for k in cutoffs] or [int(b.lengths.max()) if b.topics else 0]
    width = max(depths, default=0)
    where, topics, ranks = b.flagged(b.rel > 0, width)
    matrix = np.zeros((b.topics, width))
    matrix[topics, ranks] = (2.0 ** b.rel[where].astype(np.float64) - 1.0) / 2.0**ERR_MAX_GRADE
    out = []
    for depth in depths:
        score = np.zeros(b.topics)
        decay = np.ones(b.topics)
        for i in range(depth):
            r = matrix[:, i]
            score += r * decay / (i + 1)
            decay *= 1 - r
        out.append(score)
    return out
