"""Paired comparison of the refusal outcome: exact McNemar on "returned nothing", topic by topic.

Each topic has a binary outcome per run — the run returned nothing for it, or not (``toolkit.scoring.refusal``;
a failed call is "not nothing"). Paired by topic, two runs differ only on the discordant topics, so the test is
McNemar's, exact (the same binomial test as the rank-1 outcome, ``toolkit.stats.counts.mcnemar_exact``):

* on the topics declared ``expect = "empty"`` the outcome is a **refusal** — returning nothing is right, so
  ``became_empty`` are topics the candidate newly refuses (better) and ``became_answered`` topics it no longer
  refuses (worse);
* on every other topic the outcome is an **empty result** — returning nothing is wrong, so ``became_empty``
  are topics the candidate newly leaves empty (worse).

Both lists of changed topics are kept, so a report can name them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.scoring.refusal import RefusalScores
from toolkit.stats.counts import McNemarResult, mcnemar_exact


@dataclass(frozen=True)
class OutcomeChange:
    """Baseline → candidate on one set of topics: the changed topics each way and exact McNemar on them
    (``mcnemar.fixed`` = ``len(became_empty)``, ``mcnemar.degraded`` = ``len(became_answered)``)."""

    topics: int
    became_empty: tuple[str, ...]
    became_answered: tuple[str, ...]
    mcnemar: McNemarResult

    @property
    def discordant(self) -> int:
        return len(self.became_empty) + len(self.became_answered)


@dataclass(frozen=True)
class RefusalComparison:
    """One candidate against the baseline: ``refusal`` on the expected-empty topics (None when there are none),
    ``empty`` on the other topics."""

    baseline: str
    candidate: str
    refusal: OutcomeChange | None
    empty: OutcomeChange | None


def outcome_change(baseline: RefusalScores, candidate: RefusalScores, topics: Sequence[str]) -> OutcomeChange:
    """Exact McNemar on the "returned nothing" outcome of ``topics`` (in that order) for the two runs."""
    became_empty = tuple(q for q in topics if candidate.nothing(q) and not baseline.nothing(q))
    became_answered = tuple(q for q in topics if baseline.nothing(q) and not candidate.nothing(q))
    return OutcomeChange(
        len(topics), became_empty, became_answered, mcnemar_exact(len(became_empty), len(became_answered))
    )


def compare_refusals(baseline: RefusalScores, candidate: RefusalScores) -> RefusalComparison:
    """The candidate against the baseline on both outcomes (the runs must be scored on one topic set)."""
    if baseline.expect_empty != candidate.expect_empty or baseline.others != candidate.others:
        raise ValueError("refusal outcomes of two runs compare only on the same topics")
    refusal = outcome_change(baseline, candidate, baseline.expect_empty) if baseline.expect_empty else None
    empty = outcome_change(baseline, candidate, baseline.others) if baseline.others else None
    return RefusalComparison(baseline.run, candidate.run, refusal, empty)
