"""How numbers read in every human-facing report (text, Markdown, HTML): fixed decimals, explicit signs.

Rounding happens only here, at the last moment; the JSON report never rounds.
"""

from __future__ import annotations

import math

from toolkit.stats.paired import PairedResult

BUCKET_LABELS: dict[str, str] = {
    "fixed": "Fixed",
    "degraded": "Degraded",
    "unchanged": "Unchanged",
    "both_suboptimal": "Both-suboptimal",
    "added": "Added",
    "removed": "Removed",
}


def num(value: float | None, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


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


def verdict(c: PairedResult) -> str:
    """One phrase for a comparison, honest about tests that could never reject."""
    p = c.p_adjusted if c.p_adjusted is not None else c.pvalue
    if c.n_nonzero == 0:
        return "identical on every topic"
    for note in c.notes:
        if note.startswith("cannot reach"):
            return note
    if p < c.alpha:
        return "better" if c.delta > 0 else "worse"
    return "no significant difference"


def rand_label(c: PairedResult) -> str:
    r = c.randomization
    return f"{pval(r.pvalue)} ({'exact' if r.exact else f'MC {r.resamples:,}'})"
