"""Fleiss' kappa across all assessors (statsmodels ``fleiss_kappa`` on an items × labels count table).

Fleiss' kappa assumes every item was rated the same number of times. A campaign with partial overlap has
items judged by 1, 2 or 3 assessors, so the statistic is computed on the largest group of items sharing one
number of raters (≥ 2; ties go to the larger number of raters), and the result says which group and how many
items were left out, rather than mixing groups and computing something that is not Fleiss' kappa. By the
minimum-data rule (``toolkit.minimum``) that group must hold at least 10 items.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.agreement.result import FleissResult, Value
from toolkit.minimum import shortfall

if TYPE_CHECKING:
    from toolkit.agreement.ratings import RatingTable


def fleiss(ratings: RatingTable, level: Any, labels: Sequence[int]) -> FleissResult:
    """``level``: each judgment's grade as an index into ``labels``."""
    import numpy as np

    k = len(labels)
    raters = np.bincount(ratings.item, minlength=ratings.n_items)
    sizes = np.bincount(raters[raters >= 2]) if (raters >= 2).any() else np.zeros(0, np.int64)
    if not sizes.any():
        return FleissResult(
            Value.undefined("no item was judged by at least 2 assessors"), 0, None, ratings.n_items
        )
    n_items = int(sizes.max())
    size = int(np.flatnonzero(sizes == n_items).max())  # the most items; ties: the larger number of raters
    excluded = ratings.n_items - n_items
    short = shortfall(n_items, f"items judged by {size} assessors each")
    if short:
        return FleissResult(Value.undefined(short), n_items, size, excluded)
    chosen = raters[ratings.item] == size
    position = np.cumsum(raters == size) - 1  # an item's row among the chosen ones
    table = np.bincount(position[ratings.item[chosen]] * k + level[chosen], minlength=n_items * k).reshape(
        n_items, k
    )
    used = np.flatnonzero(table.sum(axis=0))
    if len(used) == 1:
        reason = (
            f"every judgment on the {n_items} items judged by {size} assessors is grade {labels[int(used[0])]}: "
            "chance agreement is 1, so Fleiss' kappa is undefined"
        )
        return FleissResult(Value.undefined(reason), n_items, size, excluded)

    from statsmodels.stats.inter_rater import fleiss_kappa

    value = float(fleiss_kappa(table, method="fleiss")) + 0.0  # never -0.0
    return FleissResult(Value(value), n_items, size, excluded)
