"""How numbers read in every human-facing report (text, Markdown, HTML): fixed decimals, explicit signs.

Rounding happens only here, at the last moment; the JSON report never rounds.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the statistics package is loaded by the commands that compute intervals, not by ``score``
    from toolkit.stats.location import Interval

BUCKET_LABELS: dict[str, str] = {
    "fixed": "Fixed",
    "degraded": "Degraded",
    "unchanged": "Unchanged",
    "both_suboptimal": "Both-suboptimal",
    "added": "Added",
    "removed": "Removed",
}


def num(value: float | None, digits: int = 4) -> str:
    """Fixed decimals; a value that rounds to zero never prints as ``-0.0000``."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def signed(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    text = f"{value:+.{digits}f}"
    return "+0." + "0" * digits if text == "-0." + "0" * digits else text


def pval(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.1e}" if value < 1e-4 else f"{value:.4f}"


def interval(ci: tuple[float, float] | None, digits: int = 4) -> str:
    if ci is None:
        return "–"
    return f"[{signed(ci[0], digits)}, {signed(ci[1], digits)}]"


def rank_text(rank: int | None) -> str:
    return "–" if rank is None else str(rank)


def ci_text(ci: Interval) -> str:
    """An interval as ``[-0.0320, +0.0683]``, or ``–`` when it does not exist (the reason is said elsewhere)."""
    return interval(ci.pair())
