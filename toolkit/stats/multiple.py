"""Several measures or several systems: adjusted p-values and the all-pairs test that respects pairing.

* ``adjust``: Holm (family-wise, for confirmatory claims) or Benjamini–Hochberg (false discovery rate, for
  exploration), via ``statsmodels.stats.multitest.multipletests``; or fixed-sequence (hierarchical testing
  in a declared order, each at α, stopping at the first non-rejection).
* ``randomized_tukey``: the randomised Tukey HSD of Carterette (2012) and Sakai (2014) — in the library only:
  ``compare`` tests all pairs with the paired randomization test, whose sign flips are shared across pairs
  and scale to thousands of topics. For 3+ runs on the same topics, each resample permutes the runs' scores
  *within* each topic (so the topic pairing is kept, unlike ``scipy.stats.tukey_hsd``) and records the range
  max−min of the run means; the p-value of a pair is the share of resamples whose range reaches the pair's
  observed |mean difference|, ``(count+1)/(B+1)``.
  One test covers all pairs at once, so its p-values need no further correction. The number of permutations
  is ``resamples`` (100,000) while topics × runs × permutations stays under 1e8, else reduced to that budget
  but never below 10,000 (the count used is recorded in the result).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from toolkit.errors import ToolkitError
from toolkit.stats.randomization import on_grid

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

CORRECTIONS: dict[str, str | None] = {"holm": "holm", "bh": "fdr_bh", "none": None}
#: The confirmatory family's adjustment when the user declares the order of the candidates.
FIXED_SEQUENCE = "fixed-sequence"
#: Upper bound on topics × runs × permutations of the randomised Tukey HSD (keeps 1,000 topics to seconds).
TUKEY_BUDGET = 100_000_000


def adjust(pvalues: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """Adjusted p-values in input order (``method``: holm, bh, none, or fixed-sequence).

    A ``None`` p (a test undefined for its data) takes no part in the family and stays ``None``.
    ``fixed-sequence`` tests the hypotheses in the order given, each at α, stopping at the first that is not
    rejected; its adjusted p is the running maximum (a hypothesis is rejected iff it and all before it are).
    """
    if method not in (*CORRECTIONS, FIXED_SEQUENCE):
        known = ", ".join((*CORRECTIONS, FIXED_SEQUENCE))
        raise ToolkitError(f"unknown correction {method!r}; use one of: {known}")
    present = [i for i, p in enumerate(pvalues) if p is not None]
    values = [float(pvalues[i]) for i in present]  # type: ignore[arg-type]
    out: list[float | None] = [None] * len(pvalues)
    if method == FIXED_SEQUENCE:
        adjusted = list(itertools.accumulate(values, max))
    elif CORRECTIONS[method] is None or len(values) < 2:
        adjusted = values  # a family of one needs no correction (Holm and BH both leave its p as it is)
    else:
        adjusted = _multipletests(values, str(CORRECTIONS[method]))
    for i, p in zip(present, adjusted, strict=True):
        out[i] = p
    return out


def _multipletests(values: list[float], method: str) -> list[float]:
    """statsmodels' adjusted p-values, without the full garbage collection its Holm ends with.

    ``multipletests(method="holm")`` calls ``gc.collect()``: in a process holding a few hundred thousand
    objects (an audit with matplotlib loaded, a notebook, a test runner) that walk costs a tenth of a second
    or more a call, far more than the correction, and ``compare`` adjusts several families. The objects alive
    before the call are frozen out of the collection (``gc.freeze``) and thawed after it, so the collection
    walks only what the call made. A caller that froze objects itself (a pre-fork server) keeps its choice.
    """
    import gc

    from statsmodels.stats.multitest import multipletests

    if gc.get_freeze_count():
        return [float(p) for p in multipletests(values, method=method)[1]]
    gc.freeze()
    try:
        return [float(p) for p in multipletests(values, method=method)[1]]
    finally:
        gc.unfreeze()


@dataclass(frozen=True)
class TukeyPair:
    a: str
    b: str
    delta: float
    pvalue: float


@dataclass(frozen=True)
class TukeyResult:
    """Randomised Tukey HSD over all pairs of runs on one measure (``measure`` is recorded as given)."""

    measure: Measure | str
    runs: tuple[str, ...]
    means: tuple[float, ...]
    n: int
    resamples: int
    seed: int
    pairs: tuple[TukeyPair, ...]


def randomized_tukey(
    matrix: np.ndarray,
    runs: Sequence[str],
    *,
    measure: Measure | str,
    seed: int = 42,
    resamples: int = 100_000,
) -> TukeyResult:
    """``matrix[topic, run]`` of per-topic values; seeded ``Generator(PCG64(seed))``."""
    x = on_grid(np.asarray(matrix, dtype=float))
    if x.ndim != 2 or x.shape[1] != len(runs) or x.shape[1] < 2:
        raise ToolkitError("randomised Tukey HSD needs a topics × runs matrix with at least 2 runs")
    n, k = x.shape
    resamples = max(min(resamples, 10_000), min(resamples, TUKEY_BUDGET // (n * k)))
    means = x.mean(axis=0)
    observed = {(i, j): abs(means[j] - means[i]) for i in range(k) for j in range(i + 1, k)}
    counts = dict.fromkeys(observed, 0)
    rng = np.random.Generator(np.random.PCG64(seed))
    chunk = max(1, min(resamples, 2_000_000 // max(1, n * k)))
    done = 0
    while done < resamples:
        size = min(chunk, resamples - done)
        batch = rng.permuted(np.broadcast_to(x, (size, n, k)), axis=2)
        pm = batch.mean(axis=1)
        ranges = pm.max(axis=1) - pm.min(axis=1)
        for key, obs in observed.items():
            counts[key] += int(np.count_nonzero(ranges >= obs - 1e-12))
        done += size
    pairs = tuple(
        TukeyPair(runs[i], runs[j], float(means[j] - means[i]), (counts[(i, j)] + 1) / (resamples + 1))
        for (i, j) in observed
    )
    return TukeyResult(measure, tuple(runs), tuple(float(m) for m in means), n, resamples, seed, pairs)
