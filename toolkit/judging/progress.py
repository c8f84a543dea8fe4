"""Progress as a read model: per assessor and topic, per assessor overall, and the organiser's report.

Counts follow the queue's status rule (``toolkit.judging.queue``): a skipped item is still ``remaining`` (a
skip is not a decision), a stale item judged on old text is remaining again. Median times are over
settling decisions (judged or unrateable) that recorded a duration; the per-assessor median is over the
assessor's own decisions, not a median of topic medians.

The pool's side (``pool_status``): the latest round, how many items it queued, and how many pool items no
assessor has yet — what a new round leaves to do before anyone can judge it, shown live by ``progress``
and ``judge`` so a round nobody was given is never silent.

The organiser's screen adds live Cohen's kappa per pair of assessors; that statistic is agreement's
(``toolkit.agreement.judgments.pair_kappas``), so it is not part of this report.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolkit.judging import log as judgment_log
from toolkit.judging.disagreements import disagreements
from toolkit.judging.queue import SETTLED, item_status, stale_items
from toolkit.judging.records import Item, ProgressRow
from toolkit.judging.store import CampaignStore


@dataclass(frozen=True)
class AssessorTotal:
    """Progress of one assessor over all topics."""

    assessor: str
    assigned: int
    judged: int
    skipped: int
    unrateable: int
    remaining: int
    median_ms: float | None


@dataclass(frozen=True)
class PoolStatus:
    """The pool against the assignments: ``round`` is the latest round (0 before any), ``new_round`` the items
    it queued (new and stale), ``unassigned`` the pool items no assessor has (``new_round_unassigned`` of
    them from the latest round), ``new_per_assessor`` each assessor's items from the latest round."""

    round: int
    pooled: int
    new_round: int
    unassigned: int
    new_round_unassigned: int
    new_per_assessor: Mapping[str, int]


@dataclass(frozen=True)
class ProgressReport:
    """What the organiser's screen shows, apart from agreement."""

    progress: tuple[ProgressRow, ...]
    totals: tuple[AssessorTotal, ...]
    stale: tuple[Item, ...]
    disagreements: int
    adjudicated: int
    pool: PoolStatus | None = None


def pool_status(store: CampaignStore, queues: Mapping[str, Sequence[Item]] | None = None) -> PoolStatus:
    """Latest round, its items, and the pool items nobody is assigned (``queues``: every assessor's queue,
    when the caller has read them already)."""
    if queues is None:
        queues = {a: store.queue(a) for a in store.assignees()}
    items = store.pool_items()
    latest = max((p.round for p in items), default=0)
    rounds = store.rounds()
    latest = max(latest, rounds[-1].number if rounds else 0)
    in_latest = {(p.query_id, p.doc_id) for p in items if p.round == latest}
    assigned = {(i.query_id, i.doc_id) for queue in queues.values() for i in queue}
    unassigned = [(p.query_id, p.doc_id) for p in items if (p.query_id, p.doc_id) not in assigned]
    return PoolStatus(
        round=latest,
        pooled=len(items),
        new_round=len(in_latest),
        unassigned=len(unassigned),
        new_round_unassigned=sum(1 for key in unassigned if key in in_latest),
        new_per_assessor={
            a: sum(1 for i in queue if (i.query_id, i.doc_id) in in_latest) for a, queue in queues.items()
        },
    )


def progress(store: CampaignStore) -> list[ProgressRow]:
    """Per assessor and topic: assigned, judged, skipped, unrateable, remaining, median ms per decision."""
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    hashes = store.latest_hashes()
    rows: list[ProgressRow] = []
    for assessor in store.assignees():
        current = judgment_log.derive_current(store.events(assessor=assessor))
        by_topic: dict[str, list[tuple[str, int | None]]] = {}
        for item in store.queue(assessor):
            j = current.get((assessor, item.query_id, item.doc_id))
            by_topic.setdefault(item.query_id, []).append(
                (item_status(item, j, hashes), j.duration_ms if j else None)
            )
        for query_id in sorted(by_topic, key=lambda q: (order.get(q, len(order)), q)):
            entries = by_topic[query_id]
            count = {s: sum(1 for e in entries if e[0] == s) for s in ("judge", "skip", "unrateable")}
            times = [ms for s, ms in entries if s in SETTLED and ms is not None]
            rows.append(
                ProgressRow(
                    assessor,
                    query_id,
                    len(entries),
                    count["judge"],
                    count["skip"],
                    count["unrateable"],
                    len(entries) - count["judge"] - count["unrateable"],
                    float(statistics.median(times)) if times else None,
                )
            )
    return rows


def assessor_totals(
    rows: Sequence[ProgressRow], durations: Mapping[str, Sequence[int]]
) -> list[AssessorTotal]:
    """Per assessor over all topics; ``durations``: each assessor's decision times (ms) for the median."""
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


def progress_report(store: CampaignStore) -> ProgressReport:
    """Progress rows, per-assessor totals, stale items and the disagreement counts of a campaign."""
    durations: dict[str, list[int]] = {}
    for j in store.current_judgments(include_gold=True):
        if j.action in SETTLED and j.duration_ms is not None:
            durations.setdefault(j.assessor, []).append(j.duration_ms)
    rows = progress(store)
    found = disagreements(store)
    return ProgressReport(
        progress=tuple(rows),
        totals=tuple(assessor_totals(rows, durations)),
        stale=tuple(stale_items(store)),
        disagreements=len(found),
        adjudicated=sum(1 for d in found if d.adjudicated is not None),
        pool=pool_status(store),
    )
