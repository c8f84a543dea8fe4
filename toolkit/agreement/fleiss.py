"""Fleiss' kappa across all assessors (statsmodels ``fleiss_kappa`` on an items × labels count table).

Fleiss' kappa assumes every item was rated the same number of times. A campaign with partial overlap has
items judged by 1, 2 or 3 assessors, so the statistic is computed on the largest group of items sharing one
number of raters (≥ 2; ties go to the larger number of raters), and the result says which group and how many
items were left out, rather than mixing groups and computing something that is not Fleiss' kappa. By the
minimum-data rule (``toolkit.minimum``) that group must hold at least 10 items.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from toolkit.agreement.result import FleissResult, Value
from toolkit.minimum import shortfall

Item = tuple[str, str]


def fleiss(ratings: Mapping[Item, Mapping[str, int]], labels: Sequence[int]) -> FleissResult:
    """``ratings[(query_id, doc_id)][assessor] = grade``."""
    sizes = Counter(len(by) for by in ratings.values() if len(by) >= 2)
    if not sizes:
        return FleissResult(
            Value.undefined("no item was judged by at least 2 assessors"), 0, None, len(ratings)
        )
    raters, n_items = max(sizes.items(), key=lambda kv: (kv[1], kv[0]))
    chosen = [by for by in ratings.values() if len(by) == raters]
    excluded = len(ratings) - n_items
    short = shortfall(n_items, f"items judged by {raters} assessors each")
    if short:
        return FleissResult(Value.undefined(short), n_items, raters, excluded)
    totals = Counter(g for by in chosen for g in by.values())
    if len(totals) == 1:
        grade = next(iter(totals))
        reason = (
            f"every judgment on the {n_items} items judged by {raters} assessors is grade {grade}: "
            "chance agreement is 1, so Fleiss' kappa is undefined"
        )
        return FleissResult(Value.undefined(reason), n_items, raters, excluded)

    import numpy as np
    from statsmodels.stats.inter_rater import fleiss_kappa

    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((n_items, len(labels)), dtype=np.int64)
    for row, by in enumerate(chosen):
        for grade in by.values():
            table[row, index[grade]] += 1
    value = float(fleiss_kappa(table, method="fleiss")) + 0.0  # never -0.0
    return FleissResult(Value(value), n_items, raters, excluded)
