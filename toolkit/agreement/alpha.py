"""Krippendorff's alpha (nominal, ordinal, interval) over every assessor, missing judgments allowed.

The ``krippendorff`` package does the arithmetic; ``value_domain`` is always the full label set, because the
ordinal metric depends on how many values lie *between* two grades, including grades nobody used. The package
answers NaN or raises for the degenerate cases, so those are detected here first and given a reason; by the
minimum-data rule (``toolkit.minimum``) alpha is estimated from at least 10 items judged by 2 or more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.agreement.result import AlphaResult, Value
from toolkit.minimum import shortfall

if TYPE_CHECKING:
    from toolkit.agreement.ratings import RatingTable

LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval")
#: The ``krippendorff`` package's helpers ``_alphas`` computes with (module ``krippendorff.krippendorff``).
HELPERS = ("_coincidences", "_random_coincidences", "_distances", "_distance_metric")


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
    values = {level: Value(value + 0.0) for level, value in _alphas(counts, labels).items()}  # never -0.0
    return AlphaResult(values["nominal"], values["ordinal"], values["interval"], ratings.n_items, n_pairable)


def _alphas(counts: Any, labels: Sequence[int]) -> dict[str, float]:
    """``krippendorff.alpha(value_counts=counts, value_domain=labels, level_of_measurement=level)`` for each
    level. The package computes the coincidence matrix — the costly part, a pass over every unit (0.1 s at
    171,151 units), and the same whatever the level — once a call; here it is computed once, by the
    package's own ``_coincidences``, and its last four lines (``alpha``'s, operation for operation, with its
    own helpers) are applied for each level. ``tests/agreement`` holds the result to ``krippendorff.alpha``
    float for float; a version of the package without these helpers is called as documented."""
    import krippendorff
    import numpy as np

    inner = getattr(krippendorff, "krippendorff", None)
    if inner is None or not all(hasattr(inner, name) for name in HELPERS):
        return {
            level: float(
                krippendorff.alpha(
                    value_counts=counts,
                    value_domain=list(labels),
                    level_of_measurement=level,  # type: ignore[arg-type]
                )
            )
            for level in LEVELS
        }
    dtype = np.dtype(np.float64)  # the package's default
    domain = np.asarray(list(labels))
    o = exact_coincidences(counts)
    if o is None:
        o = inner._coincidences(counts, dtype=dtype)
    n_v = o.sum(axis=0)
    e = inner._random_coincidences(n_v, dtype=dtype)
    out = {}
    for level in LEVELS:
        d = inner._distances(domain, inner._distance_metric(level), n_v, dtype=dtype)
        out[level] = float(1 - (o * d).sum() / (e * d).sum())
    return out


def exact_coincidences(counts: Any) -> Any:
    """The package's coincidence matrix of ``counts`` (units × labels), to the bit, by integer arithmetic —
    where it is exact; else None (the package's ``_coincidences`` then).

    The package adds, unit after unit in floating point, each unit's ``c cᵀ − diag(c)`` divided by its
    number of pairable values less one, ``m − 1``. Where every ``m − 1`` is a power of two (2 or 3 assessors
    to an item, the usual campaign) and the sums stay far below 2⁵², every term and every partial sum is a
    float exactly, so the sum is the exact rational sum whatever the order — which integer matrix products,
    one per ``m``, give in a few milliseconds instead of four arrays of units × labels × labels (0.1-0.2 s at
    171,151 units). ``tests/agreement`` holds the two equal, bit for bit."""
    import numpy as np

    m = np.maximum(counts.sum(axis=1), 2)
    sizes = np.unique(m).tolist()
    if any((size - 1) & (size - 2) for size in sizes):  # some m − 1 is not a power of two
        return None
    if int((m.astype(np.float64) ** 2).sum()) >= 2**40:
        return None
    o = np.zeros((counts.shape[1], counts.shape[1]), np.float64)
    for size in sizes:
        group = counts[m == size]
        unnormalised = group.T @ group - np.diag(group.sum(axis=0))
        o = o + unnormalised.astype(np.float64) / (size - 1)
    return o
