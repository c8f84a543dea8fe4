"""What the organiser's progress screen shows, computed from the store (no Textual here).

Kappa between each pair of assessors is computed on the items both have graded so far (skips and unrateable
excluded, gold excluded), over the campaign's full grade scale, with ``toolkit.agreement``'s Cohen's kappa —
so an undefined kappa (one shared item, or both gave everything the same grade) says why instead of
showing 0 or NaN. It is "live": the screen recomputes it on every refresh.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.judging.records import Item, ProgressRow
from toolkit.judging.store import CampaignStore


@dataclass(frozen=True)
class PairKappa:
    """Unweighted Cohen's kappa of two assessors on their shared graded items (``reason`` when undefined)."""

    a: str
    b: str
    n: int
    kappa: float | None
    reason: str | None = None


@dataclass(frozen=True)
class AssessorTotal:
    assessor: str
    assigned: int
    judged: int
    skipped: int
    unrateable: int
    remaining: int
    median_ms: float | None


@dataclass(frozen=True)
class OrganiserReport:
    progress: tuple[ProgressRow, ...]
    totals: tuple[AssessorTotal, ...]
    pairs: tuple[PairKappa, ...]
    stale: tuple[Item, ...]
    disagreements: int
    adjudicated: int


def pair_kappa(a: str, b: str, pairs: Sequence[tuple[int, int]], labels: Sequence[int]) -> PairKappa:
    """Kappa of one pair, over ``labels`` (the whole scale, not just the grades that occur)."""
    from toolkit.agreement.kappa import cohen_kappa, contingency

    result = cohen_kappa(contingency(pairs, labels), labels, "unweighted")
    return PairKappa(a, b, len(pairs), result.estimate.value, result.estimate.reason)


def totals(rows: Sequence[ProgressRow], durations: dict[str, list[int]]) -> list[AssessorTotal]:
    """Per assessor over all topics; the median is over the assessor's own decisions, not of topic medians."""
    import statistics

    out = []
    for assessor, group in itertools.groupby(
        sorted(rows, key=lambda r: r.assessor), key=lambda r: r.assessor
    ):
        rs = list(group)
        times = durations.get(assessor, [])
        out.append(
            AssessorTotal(
                assessor,
                sum(r.assigned for r in rs),
                sum(r.judged for r in rs),
                sum(r.skipped for r in rs),
                sum(r.unrateable for r in rs),
                sum(r.remaining for r in rs),
                float(statistics.median(times)) if times else None,
            )
        )
    return out


def organiser_report(store: CampaignStore) -> OrganiserReport:
    labels = sorted(store.grades())
    gold = set(store.gold())
    graded: dict[str, dict[tuple[str, str], int]] = {}
    durations: dict[str, list[int]] = {}
    for j in store.current_judgments(include_gold=True):
        if j.action in ("judge", "unrateable") and j.duration_ms is not None:
            durations.setdefault(j.assessor, []).append(j.duration_ms)
        if j.action == "judge" and j.grade is not None and (j.query_id, j.doc_id) not in gold:
            graded.setdefault(j.assessor, {})[(j.query_id, j.doc_id)] = j.grade
    pairs = []
    for a, b in itertools.combinations(sorted(store.assessors()), 2):
        ga, gb = graded.get(a, {}), graded.get(b, {})
        shared = sorted(set(ga) & set(gb))
        pairs.append(pair_kappa(a, b, [(ga[k], gb[k]) for k in shared], labels))
    progress = store.progress()
    disagreements = store.disagreements()
    return OrganiserReport(
        progress=tuple(progress),
        totals=tuple(totals(progress, durations)),
        pairs=tuple(pairs),
        stale=tuple(store.stale_items()),
        disagreements=len(disagreements),
        adjudicated=sum(1 for d in disagreements if d.adjudicated is not None),
    )
