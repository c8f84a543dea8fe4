"""The small campaign the public-API tests read (a module with a unique name: every conftest is ``conftest``)."""

from __future__ import annotations

from pathlib import Path

#: The campaign ``example_campaign`` builds: (assessor, query_id, doc_id, grade or decision, duration_ms, note).
DECISIONS = [
    ("alice", "q1", "d1", 2, 1200, "clear"),
    ("bob", "q1", "d1", 2, 800, None),
    ("alice", "q1", "d2", 0, 3000, None),
    ("bob", "q1", "d2", 1, 2500, "maybe, partly"),
    ("alice", "401", "d3", 3, 600, None),
    ("bob", "401", "d3", 3, 700, None),
    ("alice", "401", "d1", "skip", 400, None),
    ("bob", "401", "d1", 1, 900, None),
]


def build_campaign(path: Path) -> Path:
    """A campaign with two topics, three docs, two assessors and DECISIONS (plus one undone grade)."""
    from toolkit.judging.records import CampaignTopic, Item
    from toolkit.judging.store import CampaignStore
    from toolkit.model import DEFAULT_GRADES
    from toolkit.pooling.docsource import make_document

    pool = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]
    with CampaignStore.open(path, create=True) as store:
        store.set_topics(
            [CampaignTopic("q1", "apple pie"), CampaignTopic("401", "banana bread")], DEFAULT_GRADES
        )
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["runA"],
            provenance={key: [("runA", i + 1)] for i, key in enumerate(pool)},
            queued=pool,
            stale=[],
            snapshots=[make_document(d, d, f"text of {d}") for d in ("d1", "d2", "d3")],
            skipped=0,
        )
        store.add_assignments(
            Item(a, q, d, i, overlap=True) for a in ("alice", "bob") for i, (q, d) in enumerate(pool)
        )
        store.record("bob", "q1", "d1", grade=0, duration_ms=100)
        store.undo("bob")
        for assessor, query_id, doc_id, decision, duration, note in DECISIONS:
            if decision == "skip":
                store.record(assessor, query_id, doc_id, action="skip", duration_ms=duration, note=note)
            else:
                store.record(assessor, query_id, doc_id, grade=decision, duration_ms=duration, note=note)
    return path
