"""Per-topic differences as integers, exactly when the measure has a known grid (docs/design.md §7: "exact means exact").

A sign-flip test compares the observed sum of differences with the sums of every sign vector. Counting the
sums that *equal* the observed one is where float arithmetic fails: ``1/3 − 1/6 − 1/6`` is not 0 in floats,
nor on a 1e-9 grid (0.333333333 − 0.166666667 − 0.166666667 = −1e-9), so ties are miscounted and an exact
p of 1.0 comes out as 0.875. Measures whose per-topic values are fractions with a known bound on the
denominator avoid this: ``RR@k`` (``1/r``, r ≤ k), ``P@k`` (``j/k``), ``SetP@k`` (``j/r``, r ≤ k),
``Success@k`` (0 or 1). Their values are recovered as exact rationals, the differences are taken in
rationals, and every difference is written as an integer over one common denominator ``L`` (the least
common multiple of the differences' denominators, usually far smaller than ``lcm(1..k)``). Sums of those
integers are exact, so ties are exact.

The integers are int64 while every partial sum stays below 2^53, so that int64 arithmetic and float64 matrix
products (the Monte Carlo path) are exact. When ``L`` is larger than that (``RR@1000``: the least common
multiple of a few ranks near 1000 passes 2^53 on 16 topics), one pair's differences are kept as exact Python
integers (an object array, ``IntegerDiffs.big``): the exact tests enumerate them exactly
(``randomization.exact_pvalue``), the signed ranks are taken from them exactly, and only a Monte Carlo pass
works on the 1e-9 grid, saying so. Measures without a grid (``nDCG``, ``AP``) use the fixed 1e-9 grid — the
documented fallback, and the result says which grid was used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Differences of measures without a known grid are rounded to this many decimals (a 1e-9 grid).
GRID_DECIMALS = 9
FINE_SCALE = 10**GRID_DECIMALS
#: Every sum of integer magnitudes must stay below this, so int64 sums and float64 products are exact.
EXACT_LIMIT = 2**53

#: Parameters a measure may carry and keep its grid (``judged_only`` and the like leave it without one).
_GRID_PARAMS = frozenset({"cutoff", "rel"})


@dataclass(frozen=True)
class IntegerDiffs:
    """Differences as integers: ``diff[i] == values[i] / scale`` — exactly when ``exact``, else on 1e-9.

    ``values`` keeps every topic (zeros included), in the order given; ``grid`` says which grid, for reports.
    """

    values: np.ndarray
    scale: int
    exact: bool
    grid: str

    @property
    def big(self) -> bool:
        """Exact Python integers (an object array) because the common denominator passed 2^53."""
        return self.values.dtype == object

    def floats(self) -> np.ndarray:
        """The differences as floats, each correctly rounded (``int / int`` is, even for huge integers)."""
        if self.big:
            return np.array([int(v) / self.scale for v in self.values.tolist()], dtype=float)
        return self.values / self.scale

    def mean(self) -> float:
        """The mean difference, from the exact integer sum."""
        n = int(self.values.size)
        return float(Fraction(int(self.values.sum()), self.scale * n)) if n else 0.0

    def spread(self) -> bool:
        """Whether the differences differ at all, decided on the integers: float round-off makes the sd of
        twelve copies of 0.1 about 1e-17, not 0, and a t statistic of 1e16 out of nothing."""
        return len(set(self.values.tolist())) > 1

    def monte_carlo(self) -> IntegerDiffs:
        """Integers a float64 sign-flip pass can sum exactly: these, or the 1e-9 grid of big ones."""
        return fine_grid(self.floats()) if self.big else self


def on_grid(values: np.ndarray | Sequence[float]) -> np.ndarray:
    """Round to the fixed 1e-9 grid so that equal magnitudes stay equal after float round-off."""
    return np.round(np.asarray(values, dtype=float), GRID_DECIMALS) + 0.0


def denominator_bound(measure: Measure | None) -> int | None:
    """``q`` such that every per-topic value of ``measure`` is a fraction with denominator ≤ q (None: no grid).

    Read from the measure object: ``RR@k``, ``SetP@k`` → k; ``P@k`` → k; ``Success@k`` → 1, each with or
    without ``rel``. Measures without a cutoff (``RR``: any rank) or with other parameters have none.
    """
    if measure is None:
        return None
    params = measure.params
    cutoff = params.get("cutoff")
    if not isinstance(cutoff, int) or cutoff < 1 or not set(params) <= _GRID_PARAMS:
        return None
    if measure.NAME in ("RR", "P", "SetP"):
        return cutoff
    if measure.NAME == "Success":
        return 1
    return None


def measure_grid(measure: Measure | None) -> int | None:
    """``L`` such that every per-topic value of ``measure`` is a multiple of ``1/L`` (None if unknown).

    ``RR@k`` and ``SetP@k`` → lcm(1..k), ``P@k`` → k, ``Success@k`` → 1. The tests use the (much smaller)
    common denominator of the differences actually observed; this is the grid the values live on.
    """
    bound = denominator_bound(measure)
    if bound is None or measure is None:
        return None
    if measure.NAME == "P":
        return bound
    return math.lcm(*range(1, bound + 1))


@dataclass(frozen=True)
class Rationals:
    """Per-topic values as exact fractions ``num / den`` (den ≥ 1, both int64)."""

    num: np.ndarray
    den: np.ndarray


def rationals(values: np.ndarray | Sequence[float], bound: int) -> Rationals | None:
    """Each value as the fraction with denominator ≤ ``bound`` it is the float of (None if one is not).

    Distinct values are recovered once (``Fraction.limit_denominator``); a value counts as recovered when it
    is within 1e-12 of the fraction — far above float round-off of ``j/r``, far below the 1/bound² spacing.
    """
    x = np.asarray(values, dtype=float)
    distinct, inverse = np.unique(x, return_inverse=True)
    nums, dens = [], []
    for v in distinct.tolist():
        if not math.isfinite(v):
            return None
        f = Fraction(v).limit_denominator(bound)
        if abs(v - f.numerator / f.denominator) > 1e-12:
            return None
        nums.append(f.numerator)
        dens.append(f.denominator)
    return Rationals(np.array(nums, dtype=np.int64)[inverse], np.array(dens, dtype=np.int64)[inverse])


def exact_values(values: np.ndarray | Sequence[float], bound: int) -> list[Fraction] | None:
    """``rationals`` as a list of ``Fraction`` (for tests and small inputs)."""
    r = rationals(values, bound)
    if r is None:
        return None
    return [Fraction(int(n), int(d)) for n, d in zip(r.num.tolist(), r.den.tolist(), strict=True)]


def value_rationals(values: np.ndarray | Sequence[float], measure: Measure | None) -> Rationals | None:
    """The exact fractions of one run's values of ``measure`` (None when it has no grid or they are off it)."""
    bound = denominator_bound(measure)
    return None if bound is None else rationals(values, bound)


def pair_integers(
    baseline: np.ndarray, candidate: np.ndarray, ra: Rationals | None, rb: Rationals | None
) -> IntegerDiffs:
    """``candidate − baseline`` as integers over the differences' least common denominator when both runs'
    values are exact fractions and the sums fit, else on the 1e-9 grid."""
    if ra is not None and rb is not None:
        num = rb.num * ra.den - ra.num * rb.den
        den = ra.den * rb.den
        g = np.gcd(num, den)
        num //= g
        den //= g
        exact = _scaled(num, den)
        if exact is not None:
            return exact
        return _big(num.tolist(), den.tolist())
    return fine_grid(np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float))


def integer_diffs(
    baseline: np.ndarray | Sequence[float],
    candidate: np.ndarray | Sequence[float],
    measure: Measure | None = None,
) -> IntegerDiffs:
    """``candidate − baseline`` per topic as integers: exact on the measure's grid when it has one and it fits."""
    a = np.asarray(baseline, dtype=float)
    b = np.asarray(candidate, dtype=float)
    return pair_integers(a, b, value_rationals(a, measure), value_rationals(b, measure))


def value_grid(values: np.ndarray, rats: Sequence[Rationals | None]) -> IntegerDiffs:
    """Several runs' values (topics × runs) as integers on one grid, so that any pair's difference is the
    difference of two columns: the least common denominator of every value when all are exact fractions
    and every column's sum (so every pair's) stays below 2^52; else the 1e-9 grid of the values."""
    x = np.asarray(values, dtype=float)
    if rats and all(r is not None for r in rats):
        num = np.stack([r.num for r in rats if r is not None], axis=1)
        den = np.stack([r.den for r in rats if r is not None], axis=1)
        exact = _scaled(num, den, limit=EXACT_LIMIT // 2)
        if exact is not None:
            return exact
    return fine_grid(x, limit=EXACT_LIMIT // 2)


def _scaled(num: np.ndarray, den: np.ndarray, *, limit: int = EXACT_LIMIT) -> IntegerDiffs | None:
    """``num/den`` over their least common denominator (None when a column's sum of magnitudes would reach
    ``limit``); ``num/den`` are already reduced."""
    used = np.unique(den[num != 0]).tolist()
    scale = math.lcm(*used) if used else 1
    if scale >= limit:
        return None
    factor = np.zeros_like(den)
    nonzero = num != 0
    factor[nonzero] = scale // den[nonzero]
    # the magnitudes' column sums, in floats first: an int64 product must not overflow
    if float(np.max(np.sum(np.abs(num) * factor.astype(float), axis=0), initial=0.0)) >= limit:
        return None
    return IntegerDiffs(num * factor, scale, True, _grid_label(scale))


def _big(num: Sequence[int], den: Sequence[int]) -> IntegerDiffs:
    """``num/den`` over their least common denominator as exact Python integers (any size)."""
    used = {int(d) for n, d in zip(num, den, strict=True) if n}
    scale = math.lcm(*used) if used else 1
    ints = np.empty(len(num), dtype=object)
    ints[:] = [int(n) * (scale // int(d)) for n, d in zip(num, den, strict=True)]
    return IntegerDiffs(ints, scale, True, _grid_label(scale))


def _grid_label(scale: int) -> str:
    """``exact 1/30 grid``; a denominator too long to read is shown by its size."""
    if scale < 10**12:
        return f"exact 1/{scale} grid"
    return f"exact rationals (common denominator ≈ {float(scale):.2e})"


def integer_diffs_of(diffs: np.ndarray | Sequence[float], measure: Measure | None = None) -> IntegerDiffs:
    """The same from differences alone (``randomization_test``'s input): each distinct difference is recovered
    as a fraction with denominator ≤ q² (q = the values' bound), when that is unambiguous.

    Unambiguous means the difference is closer to its fraction than half the spacing of such fractions: for
    raw float differences (error ~1e-16) up to about ``RR@1000``; for differences already rounded to 1e-9,
    up to ``RR@169`` (spacing 1/q⁴ must exceed 1.2e-9). Otherwise the 1e-9 grid is used.
    """
    d = np.asarray(diffs, dtype=float)
    bound = denominator_bound(measure)
    if bound is not None and d.size:
        q = bound * bound
        tol = 6e-10 if q * q < 8e8 else 1e-13
        if 1 / (q * q) > 2 * tol:
            distinct, inverse = np.unique(d, return_inverse=True)
            recovered: list[Fraction] = []
            for v in distinct.tolist():
                f = Fraction(v).limit_denominator(q) if math.isfinite(v) else None
                if f is None or abs(v - f.numerator / f.denominator) > tol:
                    break
                recovered.append(f)
            else:
                return _common_grid([recovered[i] for i in inverse.tolist()])
    return fine_grid(d)


def integer_grid(
    diffs: np.ndarray | Sequence[float], scale: int, *, label: str | None = None
) -> IntegerDiffs:
    """Differences known to be multiples of ``1/scale`` (e.g. signed mid-ranks, ``scale=2``) as integers."""
    d = np.asarray(diffs, dtype=float) * scale
    ints = np.rint(d)
    if d.size and np.max(np.abs(d - ints)) > 1e-6:
        raise ValueError(f"differences are not multiples of 1/{scale}")
    return IntegerDiffs(ints.astype(np.int64), scale, True, label or f"1/{scale} grid")


def fine_grid(values: np.ndarray | Sequence[float], *, limit: int = EXACT_LIMIT) -> IntegerDiffs:
    """The 1e-9 grid: for measures without a known grid, or whose exact grid is too fine to fit. Values so large
    that their sums would pass ``limit`` on it (counts over many topics) get fewer decimals, and say so."""
    x = np.asarray(values, dtype=float)
    decimals = GRID_DECIMALS
    total = float(np.max(np.sum(np.abs(x), axis=0), initial=0.0)) if x.size else 0.0
    while decimals > 0 and total * 10.0**decimals >= limit:
        decimals -= 1
    ints = np.rint(np.round(x, decimals) * 10**decimals).astype(np.int64)
    return IntegerDiffs(ints, 10**decimals, False, f"1e-{decimals} grid" if decimals else "integer grid")


def _common_grid(diffs: list[Fraction]) -> IntegerDiffs:
    """Integers over the least common denominator of ``diffs``: int64 when their sums stay exact, else big."""
    if not diffs:
        return IntegerDiffs(np.zeros(0, dtype=np.int64), 1, True, "exact 1/1 grid")
    big = _big([f.numerator for f in diffs], [f.denominator for f in diffs])
    if sum(abs(i) for i in big.values.tolist()) >= EXACT_LIMIT:
        return big
    return IntegerDiffs(big.values.astype(np.int64), big.scale, True, big.grid)
