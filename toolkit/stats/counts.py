"""Exact tests on counts: McNemar on the rank-1 outcome, the sign test on preferences, and the floor on p.

All are exact binomial tests (``scipy.stats.binomtest``): with the small discordant counts typical of a
topic set, the chi-square approximations are wrong in both directions (S2 in the reference values), and
``statsmodels``' chi-square McNemar even returns p = 0 when there are no discordant pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar on the discordant cells: ``fixed`` (candidate only at rank 1) vs ``degraded``."""

    fixed: int
    degraded: int
    pvalue: float


@dataclass(frozen=True)
class SignTestResult:
    """Exact sign test of wins vs losses (ties dropped and reported), with the win rate's Clopper–Pearson CI."""

    wins: int
    losses: int
    ties: int
    pvalue: float
    pvalue_greater: float
    win_rate: float | None
    ci95: tuple[float, float] | None


def mcnemar_exact(fixed: int, degraded: int) -> McNemarResult:
    """Two-sided exact McNemar: binomial test of ``fixed`` out of ``fixed + degraded`` at 1/2 (p = 1 if none)."""
    from scipy.stats import binomtest

    _check_counts(fixed=fixed, degraded=degraded)
    total = fixed + degraded
    p = 1.0 if total == 0 else float(binomtest(fixed, total, 0.5, alternative="two-sided").pvalue)
    return McNemarResult(fixed, degraded, p)


def sign_test(wins: int, losses: int, ties: int = 0, *, confidence: float = 0.95) -> SignTestResult:
    """Exact two-sided (and one-sided, wins > losses) sign test; win rate = wins / (wins + losses)."""
    from scipy.stats import binomtest

    _check_counts(wins=wins, losses=losses, ties=ties)
    total = wins + losses
    if total == 0:
        return SignTestResult(wins, losses, ties, 1.0, 1.0, None, None)
    two = binomtest(wins, total, 0.5, alternative="two-sided")
    greater = binomtest(wins, total, 0.5, alternative="greater")
    ci = two.proportion_ci(confidence_level=confidence, method="exact")
    return SignTestResult(
        wins,
        losses,
        ties,
        float(two.pvalue),
        float(greater.pvalue),
        wins / total,
        (float(ci.low), float(ci.high)),
    )


def min_pvalue(nonzero: int) -> float:
    """The smallest two-sided p an exact sign/Wilcoxon/McNemar test can reach with ``nonzero`` pairs: 2/2^m.

    Computed as 2^(1−m) by ``math.ldexp``, which never overflows: beyond m ≈ 1075 the value is below the
    smallest float and is 0.0 (``2.0 / 2**m`` raised OverflowError once m passed 1,024).
    """
    if nonzero <= 0:
        return 1.0
    return min(1.0, math.ldexp(1.0, 1 - int(nonzero)))


def reach_note(nonzero: int, alpha: float) -> str | None:
    """The sentence to print instead of "not significant" when no exact test could reject at ``alpha``."""
    if min_pvalue(nonzero) <= alpha:
        return None
    pairs = "pair" if nonzero == 1 else "pairs"
    return f"cannot reach α = {alpha:g} with {nonzero} non-zero {pairs}"


def _check_counts(**counts: int) -> None:
    for name, value in counts.items():
        if int(value) != value or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
