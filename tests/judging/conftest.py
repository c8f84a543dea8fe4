"""Small campaigns for the judging tests, built through the store's own organiser API."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.judging.records import CampaignTopic, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES
from toolkit.pooling.docsource import make_document

TOPICS = [CampaignTopic("q1", "apple pie"), CampaignTopic("401", "banana bread", query_class="prose")]
DOCS = {"d1": ("Apple", "apple text"), "d2": ("Pie", "pie text"), "d3": ("Banana", "banana text")}
POOL = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]


def build(
    path: Path,
    *,
    pool: list[tuple[str, str]] = POOL,
    assessors: tuple[str, ...] = ("alice", "bob"),
    assign_all: bool = True,
) -> Path:
    """A campaign with TOPICS, DOCS and POOL; every assessor gets every item (positions in POOL order)."""
    with CampaignStore.open(path, create=True) as store:
        store.set_topics(TOPICS, DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["runA", "runB"],
            provenance={key: [("runA", i + 1)] for i, key in enumerate(pool)},
            queued=pool,
            stale=[],
            snapshots=[
                make_document(d, *DOCS.get(d, (d, f"text of {d}"))) for d in dict.fromkeys(d for _, d in pool)
            ],
            skipped=0,
        )
        if assign_all:
            store.add_assignments(
                Item(a, q, d, i, overlap=len(assessors) > 1)
                for a in assessors
                for i, (q, d) in enumerate(pool)
            )
    return path


@pytest.fixture
def make_campaign():
    """The ``build`` function, as a fixture (test modules here are not importable as a package)."""
    return build
