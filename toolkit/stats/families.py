"""Families of tests and the words a comparison may use about each result (docs/design.md §7).

A comparison asks many questions; what it may *claim* depends on which family a question belongs to:

* **confirmatory** — the declared primary measure, one test per candidate against the baseline, at α:
  Holm across the candidates, or fixed-sequence when the user declares their order (each candidate at α,
  in order, until the first that is not significant; the rest are "not tested"). This is the verdict.
* **secondary** — every other measure × candidate, one family adjusted by ``--correction`` (Holm by
  default, or Benjamini–Hochberg, or none). Their verdicts are labelled as secondary.
* **exploratory** — per-class rows (all classes together) and all pairs of runs (one family per measure),
  adjusted within their family; they get "better"/"worse" only when the adjusted p < α, otherwise no
  verdict at all ("–"), never "no difference".

Verdict words, in the order they are decided: "not comparable: …" (the run-failure policy said so);
"identical on every topic"; "undefined: …" (the declared test does not exist for the data); "not tested
(…)" (fixed sequence stopped earlier); "cannot reach α …" (too few non-zero pairs for any exact test);
"better" / "worse" (decision p < α); "no significant difference" — which is not a claim of no regression:
that needs a non-inferiority margin.

The direction of "better"/"worse" is the one the declared test tests (docs/statistics.md, "The direction of a verdict"): the mean difference for
the randomization and t tests, the signed ranks (R+ against R−, the rank-biserial's sign) for Wilcoxon.
When that direction and the mean's disagree — Wilcoxon significant because most topics gained a little
while a few lost a lot — the verdict says both ("better by signed ranks (R+ 210 > R− 66), but the mean Δ
is −0.0435") instead of choosing one silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolkit.stats.multiple import FIXED_SEQUENCE, adjust

if TYPE_CHECKING:
    from toolkit.stats.paired import PairedResult

CONFIRMATORY = "confirmatory"
SECONDARY = "secondary"
EXPLORATORY = "exploratory"
#: What an exploratory row shows when its adjusted p does not reach α: no verdict.
NO_VERDICT = "–"
NOT_SIGNIFICANT = "no significant difference"
BETTER, WORSE = "better", "worse"


def significant(words: str) -> bool:
    """Whether a verdict says the test rejected (``better``/``worse``, with or without a disagreement)."""
    return words.split(" ", 1)[0] in (BETTER, WORSE)


def disagrees(words: str) -> bool:
    """Whether a significant verdict says that its test's direction and the mean's disagree."""
    return significant(words) and words not in (BETTER, WORSE)


def directed(test: str, delta: float, r_plus: float, r_minus: float) -> str:
    """The words of a significant result: its test's direction, and the mean's when they disagree."""
    if test == "wilcoxon":
        sign = (r_plus > r_minus) - (r_plus < r_minus)
        words = BETTER if sign > 0 else WORSE
        what = f"signed ranks (R+ {r_plus:g} {'>' if sign > 0 else '<' if sign < 0 else '='} R− {r_minus:g})"
        if sign == 0:
            words = BETTER if delta > 0 else WORSE
    else:
        sign = (delta > 0) - (delta < 0)
        words, what = (BETTER if sign > 0 else WORSE), "the mean"
    mean_sign = (delta > 0) - (delta < 0)
    if test == "wilcoxon" and mean_sign != sign:
        mean = "zero" if mean_sign == 0 else f"{delta:+.4f}"
        return f"{words} by {what}, but the mean Δ is {mean}: the test and the mean disagree"
    return words


def assign(
    results: Sequence[PairedResult],
    family: str,
    adjustment: str,
    *,
    alpha: float,
    blocked: dict[str, str] | None = None,
) -> list[PairedResult]:
    """The results with their family's adjusted p-values and verdicts (input order kept).

    ``adjustment`` is holm, bh, none or fixed-sequence (then ``results`` are in the declared order);
    ``blocked`` maps a candidate to the reason it is not comparable.
    """
    adjusted = adjust([r.pvalue for r in results], adjustment)
    out = []
    stopped: str | None = None
    for r, p in zip(results, adjusted, strict=True):
        r = dataclasses.replace(r, family=family, p_adjusted=p, adjustment=adjustment)
        words = verdict(r, exploratory=family == EXPLORATORY, blocked=(blocked or {}).get(r.candidate))
        if adjustment == FIXED_SEQUENCE:
            if stopped is not None and (significant(words) or words == NOT_SIGNIFICANT):
                words = f"not tested (the fixed sequence stopped at {stopped})"
            elif stopped is None and not significant(words):
                stopped = r.candidate
        out.append(dataclasses.replace(r, verdict=words))
    return out


def verdict(r: PairedResult, *, exploratory: bool = False, blocked: str | None = None) -> str:
    """The phrase for one result, honest about tests that could never reject (see the module docstring)."""
    if blocked:
        return blocked
    if r.n_nonzero == 0:
        return "identical on every topic"
    p = r.decision_p
    if p is None:
        reason = r.t.reason if r.test == "t" else None
        return f"undefined: {reason or 'the declared test has no p-value for these data'}"
    if p < r.alpha:
        return directed(r.test, r.delta, r.wilcoxon.r_plus, r.wilcoxon.r_minus)
    if exploratory:
        return NO_VERDICT
    for note in r.notes:
        if note.startswith("cannot reach"):
            return note
    return NOT_SIGNIFICANT
