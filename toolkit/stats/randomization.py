"""Paired randomization (sign-flip) test on the mean difference, exact whenever the values allow.

Under H0 (the two runs are exchangeable on each topic) every per-topic difference is equally likely to have
either sign, so the null distribution of the summed difference is the distribution of ``sum(s_i * d_i)`` over
the ``2^n`` sign vectors ``s``. We compute it exactly in two ways and fall back to Monte Carlo only when
neither applies:

* **Enumeration** (``n <= 20`` non-zero differences): differences are put on the 1e-9 grid as int64 and all
  ``2^m`` signed sums are built by doubling (``m`` = non-zero differences; zeros do not change the sum).
* **Dynamic programming on a known grid**: measures whose per-topic values are multiples of ``1/L`` have
  differences that are integers once multiplied by ``L`` (``RR@k``: ``L = lcm(1..k)``, e.g. 2520 for k=10;
  ``P@k``: ``L = k``). Equal magnitudes are grouped: ``c`` copies of magnitude ``v`` contribute
  ``v * (2j - c)`` with ``j ~ Binomial(c, 1/2)``, and the groups are convolved as probability vectors over the
  integer sums. Comparisons with the observed sum are made on integers, so ties are exact.
* **Monte Carlo** otherwise: ``B >= 100,000`` random sign vectors from ``numpy.random.Generator(PCG64(seed))``,
  ``p = (count + 1) / (B + 1)`` so that p is never 0 and is reproducible for a seed.

The statistic is two-sided (``|sum| >= |observed|``) unless ``alternative='greater'`` (candidate better).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

#: Differences are rounded to this many decimals (a 1e-9 grid) before any ranking or permuting.
GRID_DECIMALS = 9
_SCALE = 10**GRID_DECIMALS

#: Enumerate all sign flips up to this many non-zero differences (2^20 ≈ 1M sums).
ENUMERATE_MAX = 20
#: Upper bound on the DP work (support size × groups) before Monte Carlo takes over.
DP_MAX_WORK = 400_000_000
#: Default number of Monte Carlo sign flips.
DEFAULT_RESAMPLES = 100_000


@dataclass(frozen=True)
class RandomizationResult:
    """p-value of the paired randomization test; ``resamples`` is ``2^m`` when exact, ``B`` when not."""

    pvalue: float
    exact: bool
    resamples: int | None
    method: str
    alternative: str
    statistic: float


def on_grid(values: np.ndarray) -> np.ndarray:
    """Round to the fixed 1e-9 grid so that equal magnitudes stay equal after float round-off."""
    return np.round(np.asarray(values, dtype=float), GRID_DECIMALS) + 0.0


#: Parameters a measure may carry and keep its grid (``judged_only`` and the like are left to Monte Carlo).
_GRID_PARAMS = frozenset({"cutoff", "rel"})


def measure_grid(measure: Measure | None) -> int | None:
    """``L`` such that every per-topic value of ``measure`` is a multiple of ``1/L`` (None if unknown).

    Read from the measure object: ``RR@k`` → lcm(1..k), ``P@k`` and ``SetP@k`` → k, ``Success@k`` → 1, each
    with or without ``rel``.
    """
    if measure is None:
        return None
    params = measure.params
    cutoff = params.get("cutoff")
    if not isinstance(cutoff, int) or cutoff < 1 or not set(params) <= _GRID_PARAMS:
        return None
    if measure.NAME == "RR":
        return math.lcm(*range(1, cutoff + 1))
    if measure.NAME in ("P", "SetP"):
        return cutoff
    if measure.NAME == "Success":
        return 1
    return None


def randomization_test(
    diffs: np.ndarray,
    *,
    measure: Measure | str | None = None,
    grid: int | None = None,
    seed: int = 42,
    resamples: int = DEFAULT_RESAMPLES,
    alternative: str = "two-sided",
) -> RandomizationResult:
    """Paired sign-flip test of ``mean(diffs) == 0`` (exact when possible, see the module docstring).

    ``measure`` (an ir_measures object, or a name parsed once here) supplies the grid unless ``grid`` is given.
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be two-sided, greater or less, not {alternative!r}")
    d = on_grid(diffs)
    statistic = float(d.mean()) if d.size else 0.0
    nonzero = d[d != 0]
    m = int(nonzero.size)
    if m == 0:
        return RandomizationResult(1.0, True, None, "exact (no non-zero differences)", alternative, statistic)
    as_int = np.rint(nonzero * _SCALE).astype(np.int64)
    observed = int(as_int.sum())
    if m <= ENUMERATE_MAX:
        sums = np.zeros(1, dtype=np.int64)
        for value in as_int:
            sums = np.concatenate((sums + value, sums - value))
        p = _tail_fraction(sums, observed, alternative)
        return RandomizationResult(
            p, True, None, f"exact (enumeration of 2^{m} sign vectors)", alternative, statistic
        )
    if grid is None and measure is not None:
        from toolkit.scoring.measures import measure_object

        grid = measure_grid(measure_object(measure))
    scale = grid
    if scale is not None:
        scaled = nonzero * scale
        ints = np.rint(scaled)
        if np.all(np.abs(scaled - ints) < 1e-3):  # rounding to 1e-9 moves x*L by at most L*5e-10
            result = _grid_dp(ints.astype(np.int64), alternative)
            if result is not None:
                return RandomizationResult(
                    result, True, None, f"exact (DP on the 1/{scale} grid)", alternative, statistic
                )
    p = _monte_carlo(as_int, observed, seed=seed, resamples=resamples, alternative=alternative)
    return RandomizationResult(p, False, resamples, "Monte Carlo", alternative, statistic)


def _tail_fraction(sums: np.ndarray, observed: int, alternative: str) -> float:
    if alternative == "greater":
        count = int(np.count_nonzero(sums >= observed))
    elif alternative == "less":
        count = int(np.count_nonzero(sums <= observed))
    else:
        count = int(np.count_nonzero(np.abs(sums) >= abs(observed)))
    return count / sums.size


def _grid_dp(ints: np.ndarray, alternative: str) -> float | None:
    """Exact null distribution of the signed sum of integer magnitudes, by grouped convolution."""
    from scipy.stats import binom

    magnitudes, counts = np.unique(np.abs(ints), return_counts=True)
    total = int((magnitudes * counts).sum())
    if total * len(magnitudes) > DP_MAX_WORK:
        return None
    observed = int(ints.sum())
    # dist[i] = P(sum == i - low); the support grows by 2*v*c with each group of c copies of magnitude v
    dist = np.ones(1)
    low = 0
    for value, count in zip(magnitudes.tolist(), counts.tolist(), strict=True):
        weights = binom.pmf(np.arange(count + 1), count, 0.5)
        new = np.zeros(dist.size + 2 * value * count)
        for j, w in enumerate(weights):
            new[2 * value * j : 2 * value * j + dist.size] += w * dist
        dist = new
        low += value * count
    sums = np.arange(dist.size) - low
    if alternative == "greater":
        mask = sums >= observed
    elif alternative == "less":
        mask = sums <= observed
    else:
        mask = np.abs(sums) >= abs(observed)
    return float(min(1.0, dist[mask].sum()))


def _monte_carlo(ints: np.ndarray, observed: int, *, seed: int, resamples: int, alternative: str) -> float:
    """Seeded sign flips; float64 matmul of integers below 2^53 is exact, so comparisons are exact too."""
    rng = np.random.Generator(np.random.PCG64(seed))
    values = ints.astype(np.float64)
    count = 0
    chunk = max(1, min(resamples, 2_000_000 // max(1, values.size)))
    done = 0
    while done < resamples:
        size = min(chunk, resamples - done)
        signs = rng.integers(0, 2, size=(size, values.size), dtype=np.int8) * 2 - 1
        sums = signs.astype(np.float64) @ values
        if alternative == "greater":
            count += int(np.count_nonzero(sums >= observed))
        elif alternative == "less":
            count += int(np.count_nonzero(sums <= observed))
        else:
            count += int(np.count_nonzero(np.abs(sums) >= abs(observed)))
        done += size
    return (count + 1) / (resamples + 1)
