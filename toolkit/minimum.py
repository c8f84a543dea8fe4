"""The minimum-data rule: one threshold for every statistic that estimates something from a sample.

Why one rule: before it, each statistic had its own idea of "enough" (kappa needed 2 items, Fleiss' kappa 1,
a bootstrap 2 topics), so a report could show Fleiss' kappa = −1.0 from two items next to a refused CI, and a
reader could not tell a weak result from an artefact. Now:

* an **estimate** — a chance-corrected agreement coefficient (Cohen's, Fleiss', Krippendorff's), a
  confidence interval (analytic or bootstrap), an effect size, a minimum detectable effect, a
  non-inferiority bound — needs at least ``MIN_UNITS`` independent units: items for agreement, topics for a
  paired comparison, resampled topics for a topic bootstrap;
* **descriptive numbers** (counts, means, deltas, percent agreement, overlap, win rates) are shown for any
  n ≥ 1, always with their n;
* **exact tests** (randomization, sign, McNemar, Wilcoxon) are valid at any n; when too few pairs differ to
  ever reach α they say so instead of "not significant" (``toolkit.stats.counts.reach_note``).

Below the threshold a statistic is ``None`` together with the reason ``shortfall`` words, e.g. "needs at least
10 shared items (found 4)". Both ``stats`` and ``agreement`` read this module, so the rule has one home.
"""

from __future__ import annotations

#: The fewest units (items, topics) an estimate is computed from.
MIN_UNITS = 10


def shortfall(found: int, units: str, *, needed: int = MIN_UNITS, what: str = "needs") -> str | None:
    """The reason a statistic is not computed from ``found`` ``units`` (None when there are enough).

    ``units`` is the plural noun phrase shown to the reader: ``"shared items"``, ``"topics"``.
    """
    if found >= needed:
        return None
    return f"{what} at least {needed} {units} (found {found})"
