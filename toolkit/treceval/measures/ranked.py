"""Measures that walk the ranking once: precision, recall, average precision and their relatives.

Each function ports the ``te_calc_*`` of the ``m_*.c`` file named in its docstring, statement for statement:
the same loop, the same integer counters, the same double operations in the same order, so the doubles match
trec_eval 10's to the last bit. Values start at 0.0 (trec_eval zeroes them per topic) and are set only where
the C code sets them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolkit.treceval.cnum import cmax, cmin, div, log, to_long
from toolkit.treceval.measures.base import (
    INFAP_EPSILON,
    MIN_GEO_MEAN,
    RELVALUE_NONPOOL,
    RELVALUE_UNJUDGED,
    ResRels,
    Settings,
)


def _at_cutoffs(rr: ResRels, cutoffs: Sequence[int], hit: Any) -> tuple[list[int], list[int | None]]:
    """Counts of ``hit(rel)`` before each cutoff the ranking reaches, as the cutoff loops of m_P.c do.

    Returns ``(counts, ranks)``: ``ranks[k]`` is the rank index i at which cutoff k was taken inside the loop,
    or None when the ranking ended first (the C code then fills the rest after the loop with the final count).
    """
    counts: list[int] = []
    ranks: list[int | None] = []
    index = 0
    so_far = 0
    if cutoffs:
        for i in range(rr.num_ret):
            if i == cutoffs[index]:
                counts.append(so_far)
                ranks.append(i)
                index += 1
                if index == len(cutoffs):
                    break
            if hit(rr.rel_list[i]):
                so_far += 1
    while len(counts) < len(cutoffs):
        counts.append(so_far)
        ranks.append(None)
    return counts, ranks


def calc_P(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_P.c: relevant docs in the top k over k (k, not the docs returned, when the ranking is shorter)."""
    counts, ranks = _at_cutoffs(rr, cutoffs, lambda rel: rel >= epi.relevance_level)
    return [
        div(c, cutoffs[k] if r is None else r) for k, (c, r) in enumerate(zip(counts, ranks, strict=True))
    ]


def calc_recall(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_recall.c: relevant docs in the top k over all relevant docs (0 when there are none)."""
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    counts, _ = _at_cutoffs(rr, cutoffs, lambda rel: rel >= epi.relevance_level)
    return [div(c, rr.num_rel) for c in counts]


def calc_relative_P(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_rel_P.c: relevant docs in the top k over min(k, relevant docs)."""
    if rr.num_rel == 0:
        return [0.0] * len(cutoffs)
    counts, ranks = _at_cutoffs(rr, cutoffs, lambda rel: rel >= epi.relevance_level)
    values: list[Any] = []
    for k, (count, rank) in enumerate(zip(counts, ranks, strict=True)):
        i = cutoffs[k] if rank is None else rank
        values.append(div(count, rr.num_rel if i > rr.num_rel else i))
    return values


def calc_success(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_success.c: 1 when a relevant doc is in the top k."""
    counts, _ = _at_cutoffs(rr, cutoffs, lambda rel: rel >= epi.relevance_level)
    return [1.0 if c else 0.0 for c in counts]


def calc_unj(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_unjudged.c: docs without a judgment (not in the qrels, or judged < 0) in the top k, over k."""
    counts, ranks = _at_cutoffs(rr, cutoffs, lambda rel: rel in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED))
    return [
        div(c, cutoffs[k] if r is None else r) for k, (c, r) in enumerate(zip(counts, ranks, strict=True))
    ]


def calc_map_cut(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_map_cut.c: average precision over the top k only."""
    values = [0.0] * len(cutoffs)
    if rr.num_rel == 0:
        return values
    index = 0
    rel_so_far = 0
    total = 0.0
    for i in range(rr.num_ret):
        if i == cutoffs[index]:
            values[index] = div(total, rr.num_rel)
            index += 1
            if index == len(cutoffs):
                break
        if rr.rel_list[i] >= epi.relevance_level:
            rel_so_far += 1
            total += div(rel_so_far, i + 1)
    while index < len(cutoffs):
        values[index] = div(total, rr.num_rel)
        index += 1
    return values


def _ap_sum(epi: Settings, rr: ResRels) -> tuple[float, int]:
    rel_so_far = 0
    total = 0.0
    for i in range(rr.num_ret):
        if rr.rel_list[i] >= epi.relevance_level:
            rel_so_far += 1
            total += div(rel_so_far, i + 1)
    return total, rel_so_far


def calc_map(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_map.c: mean of the precision at each relevant doc, over all relevant docs."""
    total, rel_so_far = _ap_sum(epi, rr)
    return [div(total, rr.num_rel) if rel_so_far else 0.0]


def calc_gm_map(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_gm_map.c: log of AP floored at MIN_GEO_MEAN (the summary is the geometric mean)."""
    total, rel_so_far = _ap_sum(epi, rr)
    if rel_so_far:
        total = div(total, rr.num_rel)
    return [log(cmax(total, MIN_GEO_MEAN))]


def calc_yaap(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_yaap.c: Robertson's yet another AP, log((1 + sum) / (1 + R - sum))."""
    total, _ = _ap_sum(epi, rr)
    return [log(div(1.0 + total, 1.0 + float(rr.num_rel) - total))]


def calc_Rprec(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_Rprec.c: precision after R docs, R = number of relevant docs."""
    look_at = cmin(rr.num_ret, rr.num_rel)
    if look_at == 0:
        return [0.0]
    rel_so_far = sum(1 for i in range(look_at) if rr.rel_list[i] >= epi.relevance_level)
    return [div(rel_so_far, rr.num_rel)]


def calc_recip_rank(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_recip_rank.c: 1 / rank of the first relevant doc."""
    for i in range(rr.num_ret):
        if rr.rel_list[i] >= epi.relevance_level:
            return [div(1.0, i + 1)]
    return [0.0]


def calc_binG(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_binG.c: binary G, each relevant doc discounted by the non-relevant docs above it."""
    rel_so_far = 0
    total = 0.0
    for i in range(rr.num_ret):
        if rr.rel_list[i] >= epi.relevance_level:
            rel_so_far += 1
            total += div(1.0, _log2(3 + i - rel_so_far))
    return [div(total, rr.num_rel) if rel_so_far else 0.0]


def _log2(x: float) -> float:
    from toolkit.treceval.cnum import log2

    return log2(float(x))


def _bpref_sum(epi: Settings, rr: ResRels) -> float:
    num_nonrel = sum(count for grade, count in rr.rel_levels.items() if 0 <= grade < epi.relevance_level)
    nonrel_so_far = 0
    bpref = 0.0
    for rel in rr.rel_list[: rr.num_ret]:
        if rel in (RELVALUE_NONPOOL, RELVALUE_UNJUDGED):
            continue
        if 0 <= rel < epi.relevance_level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            bpref += 1.0 - div(cmin(nonrel_so_far, rr.num_rel), cmin(num_nonrel, rr.num_rel))
        else:
            bpref += 1.0
    if rr.num_rel:
        bpref = div(bpref, rr.num_rel)
    return bpref


def calc_bpref(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_bpref.c: binary preference (Buckley & Voorhees 2004), judged docs only."""
    return [_bpref_sum(epi, rr)]


def calc_gm_bpref(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_gm_bpref.c: log of bpref floored at MIN_GEO_MEAN."""
    return [log(cmax(_bpref_sum(epi, rr), MIN_GEO_MEAN))]


def calc_infAP(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_infap.c: inferred AP (Yilmaz & Aslam 2006) over a sampled pool (judgments < 0 are unjudged)."""
    nonrel_so_far = 0
    rel_so_far = 0
    pool_unjudged_so_far = 0
    inf_ap = 0.0
    for j in range(rr.num_ret):
        rel = rr.rel_list[j]
        if rel == RELVALUE_NONPOOL:
            continue
        if rel == RELVALUE_UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if 0 <= rel < epi.relevance_level:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            inf_ap += div(1.0, fj + 1.0) + div(fj, fj + 1.0) * div(
                float(rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far), fj
            ) * div(
                (rel_so_far - 1) + INFAP_EPSILON,
                (rel_so_far - 1 + nonrel_so_far) + 2 * INFAP_EPSILON,
            )
    if rr.num_rel:
        inf_ap = div(inf_ap, rr.num_rel)
    return [inf_ap]


def calc_relstring(epi: Settings, rr: ResRels, params: Sequence[Any]) -> list[Any]:
    """m_relstring.c: the grades of the top docs as characters (``-`` not judged, ``.`` judged < 0)."""
    length = cmin(to_long(params[0]), rr.num_ret)
    chars = []
    for i in range(max(length, 0)):
        rel = rr.rel_list[i]
        if rel > 9:
            chars.append(">")
        elif rel >= 0:
            chars.append(chr(48 + rel))
        elif rel == RELVALUE_NONPOOL:
            chars.append("-")
        elif rel == RELVALUE_UNJUDGED:
            chars.append(".")
        else:
            chars.append("<")
    return ["".join(chars)]
