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
    import numpy as np

    from toolkit.agreement.ratings import RatingTable


def fleiss(
    ratings: RatingTable, level: Any, labels: Sequence[int], *, estimate_only: bool = False
) -> FleissResult:
    """``level``: each judgment's grade as an index into ``labels``; ``estimate_only``: without importing
    statsmodels (``fleiss_estimate``)."""
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

    if estimate_only:
        value = fleiss_estimate(table) + 0.0
    else:
        from statsmodels.stats.inter_rater import fleiss_kappa

        value = float(fleiss_kappa(table, method="fleiss")) + 0.0  # never -0.0
    return FleissResult(Value(value), n_items, size, excluded)


def fleiss_estimate(table: np.ndarray) -> float:
    """Fleiss' kappa of an items × categories count table as statsmodels' ``fleiss_kappa(method="fleiss")``
    computes it, operation for operation (the same bits; a test holds them equal), without importing
    statsmodels: its module imports scipy.stats and pandas (1.5 s), which a qrels manifest's summary would
    pay for this one number (``toolkit.agreement.kappa``'s docstring)."""
    import numpy as np

    table = 1.0 * np.asarray(table)
    n_total = table.sum()
    n_rat = table.sum(1).max()
    p_cat = table.sum(0) / n_total
    p_rat = ((table * table).sum(1) - n_rat) / (n_rat * (n_rat - 1.0))
    p_mean = p_rat.mean()
    p_mean_exp = (p_cat * p_cat).sum()
    return float((p_mean - p_mean_exp) / (1 - p_mean_exp))
