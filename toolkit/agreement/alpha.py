"""Krippendorff's alpha (nominal, ordinal, interval) over every assessor, missing judgments allowed.

The ``krippendorff`` package does the arithmetic; ``value_domain`` is always the full label set, because the
ordinal metric depends on how many values lie *between* two grades, including grades nobody used. The package
answers NaN or raises for the degenerate cases, so those are detected here first and given a reason; by the
minimum-data rule (``toolkit.minimum``) alpha is estimated from at least 10 items judged by 2 or more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from toolkit.agreement.result import AlphaResult, Value
from toolkit.minimum import shortfall

LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval")

Item = tuple[str, str]


def krippendorff_alpha(
    ratings: Mapping[Item, Mapping[str, int]], assessors: Sequence[str], labels: Sequence[int]
) -> AlphaResult:
    """Alpha at the three levels of measurement; ``ratings[(query_id, doc_id)][assessor] = grade``."""
    pairable = [item for item, by in ratings.items() if len(by) >= 2]
    reason: str | None = None
    if len(assessors) < 2:
        reason = f"alpha needs at least 2 assessors (found {len(assessors)})"
    elif not pairable:
        reason = "no item was judged by at least 2 assessors"
    elif short := shortfall(len(pairable), "items judged by 2 or more assessors"):
        reason = short
    else:
        used = {g for item in pairable for g in ratings[item].values()}
        if len(used) == 1:
            reason = (
                f"every judgment on the {len(pairable)} items judged by 2 or more assessors is grade "
                f"{used.pop()}: expected disagreement is 0, so alpha is undefined"
            )
    if reason is not None:
        missing = Value.undefined(reason)
        return AlphaResult(missing, missing, missing, len(ratings), len(pairable))

    import krippendorff
    import numpy as np

    # Units judged by one assessor only carry no pairable value; leaving them in is harmless but wasteful.
    column = {a: i for i, a in enumerate(assessors)}
    data = np.full((len(assessors), len(pairable)), np.nan)
    for j, item in enumerate(pairable):
        for assessor, grade in ratings[item].items():
            data[column[assessor], j] = grade
    values = {
        level: Value(
            float(
                krippendorff.alpha(
                    reliability_data=data,
                    value_domain=list(labels),
                    level_of_measurement=level,  # type: ignore[arg-type]
                )
            )
            + 0.0  # never -0.0
        )
        for level in LEVELS
    }
    return AlphaResult(values["nominal"], values["ordinal"], values["interval"], len(ratings), len(pairable))
