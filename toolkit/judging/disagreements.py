"""Disagreements as a read model: items two or more assessors graded differently, for ``adjudicate``.

Only ``judge`` decisions count (a skip or an unrateable is not a grade); gold items are left out, as in
every current-judgment view. The list comes widest spread first, then in topic order and doc id, with the
current adjudication of each item (whoever made it) attached.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolkit.judging.records import AssessorGrade, Disagreement, Judgment
from toolkit.judging.store import CampaignStore


def disagreements(store: CampaignStore, *, current: Iterable[Judgment] | None = None) -> list[Disagreement]:
    """Items graded by ≥ 2 assessors whose grades differ, widest spread first (then topic order, doc).

    ``current``: ``store.current_judgments()`` when the caller has it already (the organiser's report).
    """
    by_item: dict[tuple[str, str], list[Judgment]] = {}
    for j in store.current_judgments() if current is None else current:
        if j.action == "judge":
            by_item.setdefault((j.query_id, j.doc_id), []).append(j)
    adjudicated = store.adjudications()
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    out: list[Disagreement] = []
    for (query_id, doc_id), js in by_item.items():
        grades = [j.grade for j in js if j.grade is not None]
        if len(js) < 2 or len(set(grades)) < 2:
            continue
        adj = adjudicated.get((query_id, doc_id))
        out.append(
            Disagreement(
                query_id,
                doc_id,
                tuple(AssessorGrade(j.assessor, j.grade, j.note) for j in js if j.grade is not None),
                max(grades) - min(grades),
                adj.grade if adj else None,
                adj.assessor if adj else None,
            )
        )
    return sorted(out, key=lambda d: (-d.spread, order.get(d.query_id, len(order)), d.query_id, d.doc_id))
