"""The headline interval and the non-inferiority test: the studentized (bootstrap-t) bootstrap of the mean Δ.

Why this one (docs/statistics.md, "Intervals": the table is there, the simulation in bench/bench_coverage.py):
per-topic differences in IR are skewed — many zeros, rare large gains or drops. The paired t interval
assumes symmetry and covered 83–90 % at n = 10–30 for skewed differences in the simulation, and its
one-sided bound let a true regression at the margin pass as "non-inferior" 12–54 % of the time instead of
5 %. The studentized bootstrap resamples the topics and studentizes each resample by its own standard
error, so its quantiles follow the skew of the data (second-order accurate, Hall 1988); in the simulation it
covers ≥ 94 % and keeps the non-inferiority size ≤ 5 % in every cell with n ≥ 30. Below 30 topics no method
tried holds (a drop confined to a few topics is simply absent from most small samples), so below
``SKEW_TOPICS`` the headline interval and the non-inferiority claim are withheld with that reason
(the t interval stays in JSON and the appendix, labelled as assuming symmetric differences).

For ``B`` resamples with means ``M*`` and standard errors ``SE*``, ``T* = (M* − mean) / SE*`` (sorted; a
resample without spread gives 0 when its mean is the observed one, else ±∞). The bounds use order
statistics chosen so that a one-sided claim and its bootstrap p-value ``(#{T* ≥ t} + 1) / (B + 1)`` agree
exactly: the lower bound at level α is ``mean − T*_(k) · SE`` with ``T*_(k)`` the k-th largest,
``k = ⌈α (B + 1)⌉ − 1``; a two-sided 95 % interval uses α/2 in each tail.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from toolkit.minimum import shortfall

#: The fewest topics for an interval (or a non-inferiority claim) that holds under skewed differences.
SKEW_TOPICS = 30
METHOD = "studentized bootstrap"


def skew_shortfall(
    n: int, what: str = "an interval that holds under skewed per-topic differences"
) -> str | None:
    """The reason a skew-robust statistic is withheld on ``n`` topics (None from ``SKEW_TOPICS`` on)."""
    return shortfall(n, "topics", needed=SKEW_TOPICS, what=f"{what} needs")


@dataclass(frozen=True)
class StudentizedDistribution:
    """The sorted bootstrap-t statistics of one mean difference, with the observed mean and its SE."""

    mean: float
    se: float
    t: np.ndarray

    @property
    def resamples(self) -> int:
        return int(self.t.size)

    def lower(self, alpha: float | str) -> float | None:
        """One-sided (1 − α) lower bound of the mean, or None when B is too small for that tail."""
        k = tail_rank(alpha, self.resamples)
        return None if k == 0 else self.mean - float(self.t[self.resamples - k]) * self.se

    def upper(self, alpha: float | str) -> float | None:
        k = tail_rank(alpha, self.resamples)
        return None if k == 0 else self.mean - float(self.t[k - 1]) * self.se

    def pvalue_above(self, bound: float) -> tuple[float, float]:
        """H0 ``mean <= bound`` against ``mean > bound``: ``(t, p)`` with ``p = (#{T* ≥ t} + 1) / (B + 1)``."""
        t = (self.mean - bound) / self.se
        count = self.resamples - int(np.searchsorted(self.t, t, side="left"))
        return t, (count + 1) / (self.resamples + 1)


def tail_rank(alpha: float | str, resamples: int) -> int:
    """``k = ⌈α (B + 1)⌉ − 1``, in exact decimal arithmetic (α as typed: 0.05 is 1/20, not its float)."""
    a = Fraction(str(alpha))
    return max(0, math.ceil(a * (resamples + 1)) - 1)


def distributions(
    d: np.ndarray, means: np.ndarray, second: np.ndarray
) -> list[StudentizedDistribution | None]:
    """One distribution per column of ``d`` (topics × columns), from the columns' bootstrap means and mean
    squares (resamples × columns); None for a column without spread (no standard error to studentize by)."""
    t_all, mean, se = t_star(d, means, second)
    return [
        None if not (se[j] > 0) else StudentizedDistribution(float(mean[j]), float(se[j]), t_all[:, j])
        for j in range(d.shape[1])
    ]


def t_star(d: np.ndarray, means: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted ``T*`` per column (resamples × columns), the observed means and standard errors (vectorised,
    so the coverage simulation runs the product's own code)."""
    n = d.shape[0]
    mean = d.mean(axis=0)
    se = d.std(axis=0, ddof=1) / math.sqrt(n)
    var = (second - means * means) * (n / (n - 1))
    # a resample of one repeated value has variance 0 up to round-off of the squares
    flat = var <= 1e-12 * np.maximum(second, 1e-300)
    se_b = np.sqrt(np.where(flat, 1.0, var) / n)
    diff = means - mean
    moved = np.abs(diff) > 1e-12 * np.maximum(1.0, np.abs(mean))
    t = np.where(flat, np.where(moved, np.copysign(np.inf, diff), 0.0), diff / se_b)
    t.sort(axis=0)
    return t, mean, se
