"""Krippendorff's alpha (nominal, ordinal, interval) over every assessor, missing judgments allowed.

The ``krippendorff`` package does the arithmetic; ``value_domain`` is always the full label set, because the
ordinal metric depends on how many values lie *between* two grades, including grades nobody used. The package
answers NaN or raises for the degenerate cases, so those are detected here first and given a reason; by the
minimum-data rule (``toolkit.minimum``) alpha is estimated from at least 10 items judged by 2 or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolkit.agreement.result import AlphaResult, Value
from toolkit.minimum import shortfall

if TYPE_CHECKING:
    from toolkit.agreement.ratings import RatingTable

LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval")


def krippendorff_alpha(ratings: RatingTable, labels: Sequence[int]) -> AlphaResult:
    """Alpha at the three levels of measurement over every assessor and item."""
    import numpy as np

    raters = np.bincount(ratings.item, minlength=ratings.n_items)
    pairable = raters >= 2
    n_pairable = int(pairable.sum())
    assessors = ratings.assessors
    reason: str | None = None
    if len(assessors) < 2:
        reason = f"alpha needs at least 2 assessors (found {len(assessors)})"
    elif not n_pairable:
        reason = "no item was judged by at least 2 assessors"
    elif short := shortfall(n_pairable, "items judged by 2 or more assessors"):
        reason = short
    else:
        used = np.unique(ratings.grade[pairable[ratings.item]])
        if len(used) == 1:
            reason = (
                f"every judgment on the {n_pairable} items judged by 2 or more assessors is grade "
                f"{int(used[0])}: expected disagreement is 0, so alpha is undefined"
            )
    if reason is not None:
        missing = Value.undefined(reason)
        return AlphaResult(missing, missing, missing, ratings.n_items, n_pairable)

    import krippendorff

    # Units judged by one assessor only carry no pairable value; leaving them in is harmless but wasteful.
    # The package is handed each unit's count of every label (``value_counts``), counted once here, rather
    # than the assessors × units matrix it would count again for each of the three levels: the same integer
    # matrix its ``_reliability_data_to_value_counts`` makes, so the same arithmetic (a third of an export's
    # agreement summary at 171,151 items).
    kept = pairable[ratings.item]
    column = np.cumsum(pairable) - 1  # an item's column among the pairable ones
    domain = np.asarray(labels)
    sorter = np.argsort(domain, kind="stable")
    value = sorter[np.searchsorted(domain, ratings.grade[kept], sorter=sorter)]
    counts = np.bincount(
        column[ratings.item[kept]] * len(domain) + value, minlength=n_pairable * len(domain)
    ).reshape(n_pairable, len(domain))
    values = {
        level: Value(
            float(
                krippendorff.alpha(
                    value_counts=counts,
                    value_domain=list(labels),
                    level_of_measurement=level,  # type: ignore[arg-type]
                )
            )
            + 0.0  # never -0.0
        )
        for level in LEVELS
    }
    return AlphaResult(values["nominal"], values["ordinal"], values["interval"], ratings.n_items, n_pairable)
