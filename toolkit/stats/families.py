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
            if stopped is not None and words in ("better", "worse", NOT_SIGNIFICANT):
                words = f"not tested (the fixed sequence stopped at {stopped})"
            elif stopped is None and words not in ("better", "worse"):
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
        return "better" if r.delta > 0 else "worse"
    if exploratory:
        return NO_VERDICT
    for note in r.notes:
        if note.startswith("cannot reach"):
            return note
    return NOT_SIGNIFICANT
