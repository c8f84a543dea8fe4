"""Graded measures: nDCG and its variants, G, and rank-biased precision (rbp, rbp_resid).

Ports of gain_init.c, m_ndcg.c (ndcg, dcg, ideal_dcg), m_ndcg_rel.c, m_Rndcg.c, m_ndcg_cut.c, m_G.c,
m_rbp.c and m_rbp_resid.c; see ``toolkit.treceval.measures.ranked`` for the porting rule. rbp and rbp_resid
entered trec_eval's ``all_trec`` in version 10 and no maintained library implements them; they are written
here from trec_eval's definitions and tested against its binary.

Gains: a grade's gain is the grade itself unless ``-m ndcg.1=3,2=9``-style pairs give it another; trec_eval
sorts the gain table with a comparator that truncates the difference of two gains to ``int``, so gains closer
than 1 may keep their table order — ``toolkit.treceval.cnum.qsort`` reproduces glibc's merge sort for that.
rbp normalises gains into [0, 1] from a minimum and maximum that trec_eval 10 starts uninitialised; in the
reference build they start at 0, so a gain table within [0, 1] is used as it is (see docs/trec_eval.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolkit.formats.numbers import c_atol
from toolkit.treceval.cnum import div, double_to_int, log2, qsort
from toolkit.treceval.measures.base import ResRels, Settings

Pairs = Sequence[tuple[str, float]]


@dataclass
class Gain:
    rel_level: int
    gain: float
    num_at_level: int


class Gains:
    """trec_eval's ``GAINS`` for one topic: the table sorted by gain, and ``get_gain`` (first match wins)."""

    def __init__(self, table: list[Gain]) -> None:
        self.table = table
        self._lookup: dict[int, float] = {}
        for entry in table:
            self._lookup.setdefault(entry.rel_level, entry.gain)

    def get(self, rel_level: int) -> float:
        return self._lookup.get(rel_level, 0.0)


def _valid_int(text: str) -> bool:
    body = text[1:] if text[:1] in ("-", "+") else text
    return bool(body) and all("0" <= c <= "9" for c in body)


def setup_gains(pairs: Pairs, rr: ResRels) -> Gains:
    """gain_init.c ``setup_gains``: parameter gains first, then every grade 0 … num_rel_levels-1."""
    table = [Gain(c_atol(name.encode("latin-1")), value, 0) for name, value in pairs if _valid_int(name)]
    first: dict[int, int] = {}
    for index, entry in enumerate(table):
        first.setdefault(entry.rel_level, index)
    for level in range(rr.num_rel_levels):
        found = first.get(level)
        if found is not None:
            table[found].num_at_level = rr.level(level)
        else:
            table.append(Gain(level, float(level), rr.level(level)))
    table = qsort(table, lambda a, b: double_to_int(a.gain - b.gain))
    return Gains(table)


class IdealGains:
    """The ideal ranking's gain, position by position: gain_init.c's walk down the sorted gain table, each
    level repeated as many times as the topic has judged docs at it. Every graded measure steps it the same
    way; writing the walk once keeps the ports from drifting apart."""

    def __init__(self, table: list[Gain]) -> None:
        self.table = table
        self.level = len(table) - 1
        self.at_level = 0
        self.gain = table[self.level].gain if self.level >= 0 else 0.0

    def step(self) -> float:
        """The ideal gain at the next position (0 once the table is spent)."""
        self.at_level += 1
        while self.level >= 0 and self.at_level > self.table[self.level].num_at_level:
            self.at_level = 1
            self.level -= 1
            self.gain = self.table[self.level].gain if self.level >= 0 else 0.0
        return self.gain


def ideal_gains(table: list[Gain]) -> list[float]:
    """The positive ideal gains from rank 1 on: trec_eval sums the ideal ranking while its gain is positive,
    whatever the length of the run, so the sums below add the same terms in the same order as its loops."""
    ideal = IdealGains(table)
    out: list[float] = []
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            out.append(ideal.gain)
    return out


def _dcg(epi: Settings, rr: ResRels, pairs: Pairs) -> tuple[float, float]:
    """m_ndcg.c: (dcg of the ranking, dcg of the ideal ranking), log2 discount from rank 1."""
    gains = setup_gains(pairs, rr)
    results_dcg = ideal_dcg = 0.0
    for i in range(rr.num_ret):
        gain = gains.get(rr.rel_list[i])
        if gain != 0:
            results_dcg += div(gain, log2(i + 2.0))
    for i, ideal_gain in enumerate(ideal_gains(gains.table)):
        ideal_dcg += div(ideal_gain, log2(i + 2.0))
    return results_dcg, ideal_dcg


def calc_ndcg(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_ndcg.c ``ndcg``: dcg over ideal dcg (0 when the ideal is 0)."""
    results_dcg, ideal_dcg = _dcg(epi, rr, pairs)
    return [div(results_dcg, ideal_dcg) if ideal_dcg > 0.0 else 0.0]


def calc_dcg(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_ndcg.c ``dcg``."""
    return [_dcg(epi, rr, pairs)[0]]


def calc_ideal_dcg(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_ndcg.c ``ideal_dcg``."""
    return [_dcg(epi, rr, pairs)[1]]


def calc_ndcg_rel(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_ndcg_rel.c: nDCG averaged over the ranks of the relevant docs (the ideal dcg so far at each)."""
    gains = setup_gains(pairs, rr)
    prefix: list[float] = []  # the ideal dcg through each position while the ideal gain is positive
    ideal_dcg = 0.0
    for i, ideal_gain in enumerate(ideal_gains(gains.table)):
        ideal_dcg += div(ideal_gain, log2(i + 2.0))
        prefix.append(ideal_dcg)
    num_rel = len(prefix)
    results_dcg = total = 0.0
    num_rel_ret = 0
    for i in range(rr.num_ret):
        gain = gains.get(rr.rel_list[i])
        if gain != 0:
            results_dcg += div(gain, log2(i + 2.0))
        if gain > 0:
            total += div(results_dcg, prefix[i] if i < num_rel else ideal_dcg)
            num_rel_ret += 1
    total += div(float(num_rel - num_rel_ret) * results_dcg, ideal_dcg)
    return [div(total, num_rel) if total > 0.0 else 0.0]


def calc_Rndcg(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_Rndcg.c: nDCG averaged at the ranks where the ideal gain changes level."""
    gains = setup_gains(pairs, rr)
    if rr.num_rel == 0:
        return [0.0]
    ideal = IdealGains(gains.table)
    results_dcg = ideal_dcg = total = 0.0
    changed = 0
    old_ideal_gain = ideal.gain
    # one walk over the positions of the run and of the ideal ranking, whichever is longer: m_Rndcg.c's
    # three loops (both, the run past the ideal ranking, the ideal ranking past the run) as one
    i = ideal_positions = 0
    while i < rr.num_ret or ideal.gain > 0.0:
        if ideal.gain > 0.0:
            ideal_gain = ideal.step()
            ideal_positions += 1
            if old_ideal_gain != ideal_gain:
                if ideal_dcg > 0.0:
                    total += div(results_dcg, ideal_dcg)
                    changed += 1
                old_ideal_gain = ideal_gain
            if ideal_gain > 0.0:
                ideal_dcg += div(ideal_gain, log2(i + 2.0))
        if i < rr.num_ret:
            gain = gains.get(rr.rel_list[i])
            if gain != 0:
                results_dcg += div(gain, log2(i + 2.0))
        i += 1
    if ideal_positions < rr.num_ret and ideal_dcg > 0.0:  # the run went on past the ideal ranking
        total += div(results_dcg, ideal_dcg)
        changed += 1
    return [div(total, changed)]


def calc_ndcg_cut(epi: Settings, rr: ResRels, cutoffs: Sequence[int]) -> list[Any]:
    """m_ndcg_cut.c: nDCG at cutoffs, gains = grades (parameters are cutoffs here, not gains)."""
    values = [0.0] * len(cutoffs)
    index = 0
    total = 0.0
    for i in range(rr.num_ret):
        if i == cutoffs[index]:
            values[index] = total
            index += 1
            if index == len(cutoffs):
                break
        gain = float(rr.rel_list[i])
        if gain > 0:
            total += div(gain, log2(i + 2.0))
    while index < len(cutoffs):
        values[index] = total
        index += 1
    index = 0
    level = rr.num_rel_levels - 1
    at_level = 0
    ideal_dcg = 0.0
    i = 0
    while True:
        at_level += 1
        while level > 0 and at_level > rr.level(level):
            level -= 1
            at_level = 1
        if level == 0:
            break
        if i == cutoffs[index]:
            if ideal_dcg > 0.0:
                values[index] = div(values[index], ideal_dcg)
            index += 1
            if index == len(cutoffs):
                break
        ideal_dcg += div(float(level), log2(i + 2.0))
        i += 1
    while index < len(cutoffs):
        if ideal_dcg > 0.0:
            values[index] = div(values[index], ideal_dcg)
        index += 1
    return values


def calc_G(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_G.c: Sakai's G, gain discounted by log2 of the cost so far over the gain so far."""
    gains = setup_gains(pairs, rr)
    ideal = ideal_gains(gains.table)
    results_g = sum_results = sum_cost = 0.0
    min_cost = 1.0
    for i in range(rr.num_ret):
        gain = gains.get(rr.rel_list[i])
        sum_results += gain
        ideal_gain = ideal[i] if i < len(ideal) else 0.0
        sum_cost += ideal_gain if ideal_gain >= min_cost else min_cost
        if gain != 0:
            results_g += div(gain, log2(2 + sum_cost - sum_results))
    sum_ideal = 0.0
    for ideal_gain in ideal:
        sum_ideal += ideal_gain
    return [div(results_g, sum_ideal) if sum_ideal > 0.0 else 0.0]


def _persistence(pairs: Pairs) -> float:
    p = 0.9
    for name, value in pairs:
        if name == "p":
            p = value
    return p


def calc_rbp(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_rbp.c: rank-biased precision (Moffat & Zobel 2008), persistence p (``-m rbp.p=0.8``), gains in [0, 1]."""
    p = _persistence(pairs)
    gains = setup_gains(pairs, rr)
    low = high = 0.0  # uninitialised in trec_eval 10; 0 in the reference build (module docstring)
    for entry in gains.table:
        if entry.gain < low:
            low = entry.gain
        if entry.gain > high:
            high = entry.gain
    if low < 0 or high > 1:
        for entry in gains.table:
            entry.gain = div(entry.gain - low, high - low)
        gains = Gains(gains.table)
    total = 0.0
    weight = 1.0
    for i in range(rr.num_ret):
        gain = gains.get(rr.rel_list[i])
        if gain != 0:
            total += gain * weight
        weight = weight * p
    return [(1.0 - p) * total]


def calc_rbp_resid(epi: Settings, rr: ResRels, pairs: Pairs) -> list[Any]:
    """m_rbp_resid.c: the residual of rbp — the weight unjudged docs and the docs below the ranking could add."""
    p = _persistence(pairs)
    unjudged = 0
    total = 0.0
    weight = 1.0
    for i in range(rr.num_ret):
        if rr.rel_list[i] < 0:
            unjudged += 1
            total += weight
        weight = weight * p
    return [weight + (1 - p) * total if unjudged else 0.0]
