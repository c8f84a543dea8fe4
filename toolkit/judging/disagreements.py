"""Disagreements as a read model: items two or more assessors graded differently, for ``adjudicate``.

Only ``judge`` decisions count (a skip or an unrateable is not a grade); gold items are left out, as in
every current-judgment view. The list comes widest spread first, then in topic order and doc id, with the
current adjudication of each item (whoever made it) attached. The grades come from the database as lean rows
(``CampaignStore.current_grades``), already in topic order: the adjudication queue of a campaign of real
size is one query, not a record per log event.
"""

from __future__ import annotations

import itertools

from toolkit.judging.records import AssessorGrade, Disagreement
from toolkit.judging.store import CampaignStore


def disagreements(store: CampaignStore) -> list[Disagreement]:
    """Items graded by ≥ 2 assessors whose grades differ, widest spread first (then topic order, doc)."""
    adjudicated = store.adjudications()
    out: list[Disagreement] = []
    rows = store.current_grades(notes=True)  # topic order, doc, assessor
    for (query_id, doc_id), group in itertools.groupby(rows, key=lambda r: (r[0], r[1])):
        graded = list(group)
        grades = [r[3] for r in graded]
        if len(graded) < 2 or min(grades) == max(grades):
            continue
        adj = adjudicated.get((query_id, doc_id))
        out.append(
            Disagreement(
                query_id,
                doc_id,
                tuple(AssessorGrade(r[2], r[3], r[4]) for r in graded),
                max(grades) - min(grades),
                adj.grade if adj else None,
                adj.assessor if adj else None,
            )
        )
    # stable: items of equal spread stay in topic order, then doc id
    return sorted(out, key=lambda d: -d.spread)
