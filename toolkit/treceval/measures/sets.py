"""Counts, set measures (the ranking as an unordered set) and the interpolated precision measures.

Ports of m_num_*.c, m_set_*.c, m_utility.c, m_iprec_at_recall.c, m_11pt_avg.c and m_Rprec_mult.c; see
``toolkit.treceval.measures.ranked`` for the porting rule. trec_eval 10 changed iprec_at_recall and 11pt_avg
to round their recall cutoffs (``lround``) where 9.x added 0.9 and truncated; Rprec_mult still truncates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.treceval.cnum import cmin, div, lround, to_long, wrap_long
from toolkit.treceval.measures.base import ResRels, Settings


class MeasureFailure(Exception):
    """A measure cannot be computed for this topic; trec_eval says so and stops (exit 4)."""


def calc_runid(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_runid.c: nothing per topic (the run tag is printed once, from the run file)."""
    return []


def calc_num_q(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_num_q.c: 1 per topic evaluated."""
    return [1.0]


def calc_num_ret(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_num_ret.c: docs retrieved (after -M, and after -J drops the unjudged)."""
    return [float(rr.num_ret)]


def calc_num_rel(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_num_rel.c: qrels docs with grade ≥ the relevance level."""
    return [float(rr.num_rel)]


def calc_num_rel_ret(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_num_rel_ret.c: relevant docs retrieved."""
    return [float(rr.num_rel_ret)]


def calc_num_nonrel_judged_ret(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_num_nonrel_judged_ret.c: retrieved docs judged below the relevance level."""
    return [float(rr.num_ret - rr.num_nonpool - rr.num_unjudged_in_pool - rr.num_rel_ret)]


def calc_set_P(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_set_P.c: relevant retrieved over retrieved."""
    return [div(rr.num_rel_ret, rr.num_ret) if rr.num_ret else 0.0]


def calc_set_recall(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_set_recall.c: relevant retrieved over relevant."""
    return [div(rr.num_rel_ret, rr.num_rel) if rr.num_rel else 0.0]


def calc_set_relative_P(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_set_rel_P.c: relevant retrieved over min(retrieved, relevant)."""
    if rr.num_ret and rr.num_rel:
        return [div(rr.num_rel_ret, cmin(rr.num_ret, rr.num_rel))]
    return [0.0]


def calc_set_map(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_set_map.c: set precision × set recall."""
    if rr.num_ret and rr.num_rel:
        return [div(float(rr.num_rel_ret) * float(rr.num_rel_ret), float(rr.num_ret) * float(rr.num_rel))]
    return [0.0]


def calc_set_F(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_set_F.c: van Rijsbergen's F with beta = the first parameter (default 1)."""
    if not rr.num_rel_ret:
        return [0.0]
    precision = div(rr.num_rel_ret, rr.num_ret)
    recall = div(rr.num_rel_ret, rr.num_rel)
    x = params[0]
    return [div((x + 1.0) * precision * recall, x * precision + recall)]


def calc_utility(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_utility.c: a·relret + b·nonrelret + c·relnotret + d·nonrelnotret (-N gives the collection size)."""
    if len(params) != 4:
        raise MeasureFailure("improper number of coefficients: utility takes 4 (e.g. -m utility.1,-1,0,0)")
    a, b, c, d = params
    return [
        a * rr.num_rel_ret
        + b * (rr.num_ret - rr.num_rel_ret)
        + c * (rr.num_rel - rr.num_rel_ret)
        + d * wrap_long(epi.num_docs_in_coll + rr.num_rel_ret - rr.num_ret - rr.num_rel)
    ]


def _interpolated(epi: Settings, rr: ResRels, percents: Sequence[float]) -> list[float | None]:
    """Interpolated precision at each recall level (m_iprec_at_recall.c); None for levels never assigned.

    Levels whose doc count (rounded with ``lround``) exceeds the relevant docs retrieved are skipped before
    the walk and keep trec_eval's initial 0.
    """
    cutoffs = [lround(p * rr.num_rel) for p in percents]
    values: list[float | None] = [None] * len(cutoffs)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rr.num_rel_ret:
        current -= 1
    int_precis = precis = div(rr.num_rel_ret, rr.num_ret)
    rel_so_far = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and rel_so_far > 0:
        precis = div(rel_so_far, i)
        if int_precis < precis:
            int_precis = precis
        if rr.rel_list[i - 1] >= epi.relevance_level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[current] = int_precis
        current -= 1
    return values


def calc_iprec_at_recall(epi: Settings, rr: ResRels, percents: Sequence[float]) -> list[Any]:
    """m_iprec_at_recall.c: interpolated precision at recall levels (cutoffs rounded with lround)."""
    return [0.0 if v is None else v for v in _interpolated(epi, rr, percents)]


def calc_11pt_avg(epi: Settings, rr: ResRels, percents: Sequence[float]) -> list[Any]:
    """m_11pt_avg.c: mean interpolated precision over the recall levels.

    trec_eval adds each level's value as it assigns it — from the highest level down — so the sum runs over
    the levels in reverse; levels above the relevant docs retrieved are never assigned and add nothing.
    """
    total = 0.0
    for value in reversed(_interpolated(epi, rr, percents)):
        if value is not None:
            total += value
    return [div(total, len(percents))]


def calc_Rprec_mult(epi: Settings, rr: ResRels, percents: Sequence[float]) -> list[Any]:
    """m_Rprec_mult.c: precision after (multiple × R) docs, the doc count truncated after adding 0.9."""
    cutoffs = [to_long(p * rr.num_rel + 0.9) for p in percents]
    values = [0.0] * len(cutoffs)
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rr.num_ret:
        values[current] = div(rr.num_rel_ret, cutoffs[current])
        current -= 1
    rel_so_far = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and rel_so_far > 0:
        precis = div(rel_so_far, i)
        while current >= 0 and i == cutoffs[current]:
            values[current] = precis
            current -= 1
        if rr.rel_list[i - 1] >= epi.relevance_level:
            rel_so_far -= 1
        i -= 1
    return values
