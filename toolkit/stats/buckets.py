"""Per-topic buckets on the rank of the first relevant document (docs/design.md §7), and McNemar on rank 1.

A topic falls in exactly one bucket, decided in this order:

1. **Added** / **Removed**: the topic has results in only the candidate / only the baseline (a coverage change
   is reported as such, whatever the ranks);
2. **Fixed**: the candidate has a relevant doc at rank 1 and the baseline does not;
3. **Degraded**: the baseline has one at rank 1 and the candidate does not;
4. **Unchanged**: the first-relevant rank is the same in both (both at 1, both at 3, both absent);
5. **Both-suboptimal**: neither is at rank 1 and the rank moved.

Ranks are counted within ``cutoff`` (absent = no relevant doc in the top ``cutoff``). Fixed and Degraded are
exactly McNemar's discordant cells. A second table counts found/lost/kept/never within the cutoff.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toolkit.stats.counts import McNemarResult, mcnemar_exact

#: Bucket names in report order (also the keys of ``RankOutcome.topics``).
BUCKETS: tuple[str, ...] = ("fixed", "degraded", "unchanged", "both_suboptimal", "added", "removed")
#: Found/lost-within-cutoff categories in report order.
FOUND_LOST: tuple[str, ...] = ("found", "lost", "kept", "never")


@dataclass(frozen=True)
class RankOutcome:
    """Buckets of the topics for one (baseline, candidate) pair, with the ids in each and McNemar's test."""

    baseline: str
    candidate: str
    cutoff: int
    topics: Mapping[str, tuple[str, ...]]
    found_lost: Mapping[str, tuple[str, ...]]
    ranks_baseline: Mapping[str, int | None]
    ranks_candidate: Mapping[str, int | None]
    mcnemar: McNemarResult

    def count(self, bucket: str) -> int:
        return len(self.topics[bucket])

    @property
    def both_at_1(self) -> int:
        """Unchanged topics answered at rank 1 by both (the 2×2 table's concordant-success cell)."""
        return sum(1 for q in self.topics["unchanged"] if self.ranks_baseline.get(q) == 1)

    @property
    def neither_at_1(self) -> int:
        """Topics answered by both runs where neither has a relevant doc at rank 1."""
        return sum(
            1
            for q in (*self.topics["unchanged"], *self.topics["both_suboptimal"])
            if self.ranks_baseline.get(q) != 1
        )


def bucket_of(rank_a: int | None, rank_b: int | None, *, has_a: bool = True, has_b: bool = True) -> str:
    """The bucket of one topic from the two first-relevant ranks (None = absent within the cutoff)."""
    if has_b and not has_a:
        return "added"
    if has_a and not has_b:
        return "removed"
    if rank_b == 1 and rank_a != 1:
        return "fixed"
    if rank_a == 1 and rank_b != 1:
        return "degraded"
    if rank_a == rank_b:
        return "unchanged"
    return "both_suboptimal"


def rank_outcome(
    ranks_baseline: Mapping[str, int | None],
    ranks_candidate: Mapping[str, int | None],
    *,
    baseline: str = "baseline",
    candidate: str = "candidate",
    cutoff: int = 10,
    answered_baseline: Mapping[str, bool] | None = None,
    answered_candidate: Mapping[str, bool] | None = None,
) -> RankOutcome:
    """Bucket every topic of ``ranks_baseline`` (the topic set's order); ``answered_*`` say who returned results."""
    topics: dict[str, list[str]] = {b: [] for b in BUCKETS}
    found: dict[str, list[str]] = {f: [] for f in FOUND_LOST}
    for qid, ra in ranks_baseline.items():
        rb = ranks_candidate.get(qid)
        has_a = True if answered_baseline is None else answered_baseline.get(qid, False)
        has_b = True if answered_candidate is None else answered_candidate.get(qid, False)
        topics[bucket_of(ra, rb, has_a=has_a, has_b=has_b)].append(qid)
        key = {(False, True): "found", (True, False): "lost", (True, True): "kept", (False, False): "never"}
        found[key[(ra is not None, rb is not None)]].append(qid)
    mc = mcnemar_exact(len(topics["fixed"]), len(topics["degraded"]))
    return RankOutcome(
        baseline=baseline,
        candidate=candidate,
        cutoff=cutoff,
        topics={k: tuple(v) for k, v in topics.items()},
        found_lost={k: tuple(v) for k, v in found.items()},
        ranks_baseline=dict(ranks_baseline),
        ranks_candidate={q: ranks_candidate.get(q) for q in ranks_baseline},
        mcnemar=mc,
    )
