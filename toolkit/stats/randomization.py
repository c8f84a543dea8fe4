"""Paired randomization (sign-flip) test on the mean difference, exact whenever the values allow.

Under H0 (the two runs are exchangeable on each topic) every per-topic difference is equally likely to have
either sign, so the null distribution of the summed difference is that of ``sum(s_i * d_i)`` over the ``2^n``
sign vectors ``s``. Everything works on integers (``toolkit.stats.grid``): the measure's exact rational grid
when it has one and it fits (``RR@k``, ``P@k`` …), else the 1e-9 grid. Then:

* **Enumeration** (``m <= 20`` non-zero differences; zeros do not change the sum): every one of the ``2^m``
  signed sums is counted, in Python integers of any size (so a common denominator past 2^53, as ``RR@1000``
  has, is still exact), meeting in the middle: the ``2^(m/2)`` sums of each half, one half sorted, and for
  each sum of the other the number of partners reaching the observed sum by bisection. ``p = count / 2^m``
  is an exact rational (rounded once to a float).
* **Dynamic programming** when the integers are small enough (support × groups within ``DP_MAX_WORK``):
  equal magnitudes are grouped (``c`` copies of ``v`` contribute ``v·(2j − c)``, ``j ~ Binomial(c, 1/2)``)
  and the groups are convolved over the integer sums — as exact integer counts of sign vectors while
  ``2^m`` fits an int64 (m ≤ 62), as float64 probabilities beyond. Comparisons with the observed sum are
  between integers, so ties are exact.
* **Monte Carlo** otherwise (large topic sets, ``RR@100`` over thousands of topics): ``B ≥ 100,000`` sign
  vectors from ``toolkit.stats.resampling`` (seeded; one stream shared by every test on the same topics),
  ``p = (count + 1) / (B + 1)`` so that p is never 0 and is reproducible for a seed. Comparisons are still
  exact on the integers used.

The result records which path and which grid were used; reports show both.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from toolkit.stats.grid import (
    IntegerDiffs,
    integer_diffs_of,
    integer_grid,
    measure_grid,
    on_grid,
)
from toolkit.stats.resampling import DEFAULT_FLIPS, flip_counts

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

__all__ = [
    "DEFAULT_RESAMPLES",
    "RandomizationResult",
    "exact_pvalue",
    "measure_grid",
    "on_grid",
    "randomization_test",
    "sign_flip_test",
]

#: Enumerate all sign flips up to this many non-zero differences (2^20 ≈ 1M sums).
ENUMERATE_MAX = 20
#: Upper bound on the DP's work (Σ over groups of (copies + 1) × support size) before Monte Carlo takes over.
DP_MAX_WORK = 200_000_000
#: Upper bound on the DP's support (number of integer sums held at once).
DP_MAX_SUPPORT = 20_000_000
#: Default number of Monte Carlo sign flips.
DEFAULT_RESAMPLES = DEFAULT_FLIPS
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class RandomizationResult:
    """p-value of the paired randomization test; ``resamples`` is None when exact, ``B`` when Monte Carlo.

    ``method`` says how p was computed, ``grid`` which integer grid the differences were on.
    """

    pvalue: float
    exact: bool
    resamples: int | None
    method: str
    alternative: str
    statistic: float
    grid: str = ""


def randomization_test(
    diffs: np.ndarray | Sequence[float],
    *,
    measure: Measure | str | None = None,
    grid: int | None = None,
    seed: int = 42,
    resamples: int = DEFAULT_RESAMPLES,
    alternative: str = "two-sided",
) -> RandomizationResult:
    """Paired sign-flip test of ``mean(diffs) == 0`` (exact when possible, see the module docstring).

    ``measure`` (an ir_measures object, or a name parsed once here) supplies the exact grid; ``grid`` says the
    differences are multiples of ``1/grid`` instead. Pass raw differences (``candidate − baseline``): they
    are recovered as exact rationals when the measure has a grid.
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be two-sided, greater or less, not {alternative!r}")
    d = np.asarray(diffs, dtype=float)
    if grid is not None:
        ints = integer_grid(d, grid)
    else:
        measure_obj = None
        if measure is not None:
            from toolkit.scoring.measures import measure_object

            measure_obj = measure_object(measure)
        ints = integer_diffs_of(d, measure_obj)
    return sign_flip_test(ints, seed=seed, resamples=resamples, alternative=alternative)


def sign_flip_test(
    ints: IntegerDiffs, *, seed: int = 42, resamples: int = DEFAULT_RESAMPLES, alternative: str = "two-sided"
) -> RandomizationResult:
    """The test on differences already on an integer grid: exact if feasible, else seeded Monte Carlo."""
    statistic = ints.mean()
    exact = exact_pvalue(ints.values, alternative)
    if exact is not None:
        p, method = exact
        return RandomizationResult(p, True, None, method, alternative, statistic, ints.grid)
    sampled = ints.monte_carlo()
    two, greater, less = flip_counts(sampled.values[:, None], seed=seed, resamples=resamples)
    count = {"two-sided": two, "greater": greater, "less": less}[alternative][0]
    p = (int(count) + 1) / (resamples + 1)
    method = f"Monte Carlo ({resamples:,} seeded sign flips)"
    return RandomizationResult(p, False, resamples, method, alternative, statistic, sampled.grid)


def monte_carlo_result(
    ints: IntegerDiffs, count: int, *, resamples: int, alternative: str = "two-sided", grid: str | None = None
) -> RandomizationResult:
    """The result of a Monte Carlo test whose count came from a shared ``flip_counts`` pass (``grid``: the grid
    that pass compared on, when not ``ints``'s own)."""
    method = f"Monte Carlo ({resamples:,} seeded sign flips)"
    return RandomizationResult(
        (int(count) + 1) / (resamples + 1),
        False,
        resamples,
        method,
        alternative,
        ints.mean(),
        grid or ints.monte_carlo().grid,
    )


def exact_pvalue(values: np.ndarray, alternative: str = "two-sided") -> tuple[float, str] | None:
    """Exact p (and how it was found) from integer differences (int64, or Python integers of any size in an
    object array), or None when that would cost too much."""
    big = np.asarray(values).dtype == object
    ints = [int(v) for v in np.asarray(values).tolist() if v != 0]
    m = len(ints)
    if m == 0:
        return 1.0, "exact (no non-zero differences)"
    if m <= ENUMERATE_MAX:
        return float(Fraction(_enumerated(ints, alternative), 2**m)), f"exact (all 2^{m} sign vectors)"
    if big:
        return None
    nonzero = np.array(ints, dtype=np.int64)
    observed = int(nonzero.sum())
    magnitudes, counts = np.unique(np.abs(nonzero), return_counts=True)
    g = math.gcd(*magnitudes.tolist())
    magnitudes //= g
    if observed % g:
        raise ValueError("internal: the observed sum is not on the reduced grid")
    observed //= g
    work, size = 0, 1
    for v, c in zip(magnitudes.tolist(), counts.tolist(), strict=True):
        work += (c + 1) * size
        size += 2 * v * c
    if work > DP_MAX_WORK or size > DP_MAX_SUPPORT:
        return None
    p = _grid_dp(magnitudes.tolist(), counts.tolist(), observed, alternative, exact_counts=m <= 62)
    return p, "exact (dynamic programme over the integer sums)"


def _enumerated(ints: list[int], alternative: str) -> int:
    """How many of the 2^m sign vectors give a signed sum at least as extreme as ``sum(ints)``: meet in the
    middle over the two halves' 2^(m/2) sums each, in exact Python integers."""
    observed = sum(ints)
    half = len(ints) // 2
    left, right = _signed_sums(ints[:half]), sorted(_signed_sums(ints[half:]))
    size = len(right)
    if alternative == "greater":
        return sum(size - bisect.bisect_left(right, observed - x) for x in left)
    if alternative == "less":
        return sum(bisect.bisect_right(right, observed - x) for x in left)
    t = abs(observed)
    if t == 0:
        return len(left) * size
    # |x + y| >= t > 0: y >= t − x or y <= −t − x (disjoint)
    return sum(size - bisect.bisect_left(right, t - x) + bisect.bisect_right(right, -t - x) for x in left)


def _signed_sums(ints: list[int]) -> list[int]:
    """Σ s_i·v_i over every sign vector s (2^len values, with repeats)."""
    sums = [0]
    for v in ints:
        sums = [s + v for s in sums] + [s - v for s in sums]
    return sums


def _grid_dp(
    magnitudes: list[int], counts: list[int], observed: int, alternative: str, *, exact_counts: bool
) -> float:
    """Exact null distribution of the signed sum by grouped convolution (counts of sign vectors, or
    probabilities when 2^m would overflow an int64)."""
    from scipy.stats import binom

    dist = np.ones(1, dtype=np.int64 if exact_counts else np.float64)
    low = 0
    for value, count in zip(magnitudes, counts, strict=True):
        if exact_counts:
            weights = np.array([math.comb(count, j) for j in range(count + 1)], dtype=np.int64)
        else:
            weights = binom.pmf(np.arange(count + 1), count, 0.5)
        new = np.zeros(dist.size + 2 * value * count, dtype=dist.dtype)
        for j, w in enumerate(weights.tolist()):
            new[2 * value * j : 2 * value * j + dist.size] += w * dist
        dist = new
        low += value * count
    sums = np.arange(dist.size, dtype=np.int64) - low
    tail = _tail_count(sums, observed, alternative, dist)
    if exact_counts:
        return int(tail) / 2 ** sum(counts)
    return float(min(1.0, tail))


def _tail_count(sums: np.ndarray, observed: int, alternative: str, weights: np.ndarray) -> int | float:
    """Total weight of the sums at least as extreme as ``observed`` (weights broadcast: 1 for enumeration)."""
    if alternative == "greater":
        mask = sums >= observed
    elif alternative == "less":
        mask = sums <= observed
    else:
        mask = np.abs(sums) >= abs(observed)
    if weights.size == 1:
        return int(np.count_nonzero(mask))
    selected = weights[mask]
    return int(selected.sum(dtype=object)) if weights.dtype == np.int64 else float(selected.sum())
