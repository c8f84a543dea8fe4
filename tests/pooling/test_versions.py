"""Later rounds recognise unchanged documents by the source's version, without fetching them again."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from toolkit.judging.records import Document, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import Run, Topic, TopicSet
from toolkit.pooling.docsource import make_document
from toolkit.pooling.rounds import pool_round

TOPICS = TopicSet(topics=(Topic("q1", "apple"),), grades={0: "no", 1: "yes"})
RUN = Run({"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="r1")


@dataclass
class VersionedSource:
    """A doc source that can tell versions; it records every id it was asked to fetch."""

    docs: dict[str, tuple[str, str, str]]  # doc_id → (title, text, version)
    fetched: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        for d in doc_ids:
            self.fetched.append(d)
            title, text, version = self.docs[d]
            yield make_document(d, title, text, format="text", version=version)

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        self.asked.extend(doc_ids)
        return {d: self.docs[d][2] for d in doc_ids if d in self.docs}

    def describe(self) -> str:
        return "versioned"


def judged_campaign(path: Path, source: VersionedSource) -> CampaignStore:
    store = CampaignStore.open(path, create=True)
    pool_round(store, [RUN], TOPICS, source=source, depth=2)  # d1, d2
    store.add_assignments([Item("alice", "q1", "d1", 0), Item("alice", "q1", "d2", 1)])
    store.record("alice", "q1", "d1", grade=1)
    store.record("alice", "q1", "d2", grade=0)
    return store


def test_unchanged_versions_are_not_fetched_again(tmp_path: Path) -> None:
    source = VersionedSource({d: (d, f"text {d}", "v1") for d in ("d1", "d2", "d3")})
    with judged_campaign(tmp_path / "c.sqlite", source) as store:
        assert store.document("d1").version == "v1" and store.document("d1").format == "text"
        source.fetched.clear()
        result = pool_round(store, [RUN], TOPICS, source=source, depth=3)
        assert source.asked == ["d1", "d2"]  # the judged docs, which have a stored version
        assert source.fetched == ["d3"]  # only the new document is fetched
        assert (result.queued, result.stale, result.skipped, result.unchanged) == (1, 0, 2, 2)


def test_a_new_version_is_fetched_and_compared_by_hash(tmp_path: Path) -> None:
    source = VersionedSource({d: (d, f"text {d}", "v1") for d in ("d1", "d2", "d3")})
    with judged_campaign(tmp_path / "c.sqlite", source) as store:
        source.docs["d1"] = ("d1", "text d1, rewritten", "v2")  # text changed: stale
        source.docs["d2"] = ("d2", "text d2", "v2")  # a new version, the same text: still judged
        source.fetched.clear()
        result = pool_round(store, [RUN], TOPICS, source=source, depth=2)
        assert sorted(source.fetched) == ["d1", "d2"]
        assert (result.queued, result.stale, result.skipped, result.unchanged) == (1, 1, 1, 0)
        assert [(p.doc_id, p.stale) for p in store.pool_items()] == [("d1", True), ("d2", False)]
        # d2's new version is remembered, so the next round need not fetch it again
        assert store.latest_versions()["d2"] == "v2"
        source.fetched.clear()
        pool_round(store, [RUN], TOPICS, source=source, depth=2)
        assert source.fetched == []


def test_a_campaign_of_schema_version_1_gains_format_and_version(tmp_path: Path) -> None:
    from toolkit.judging.sqlite.schema import APPLICATION_ID, MIGRATIONS

    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(
        f"{MIGRATIONS[0]}\nPRAGMA application_id = {APPLICATION_ID};\nPRAGMA user_version = 1;\n"
        "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetched) "
        "VALUES ('d1', 1, 'T', 'x', 'h', 'now');"
    )
    conn.close()
    with CampaignStore.open(path) as store:
        doc = store.document("d1")
        assert (doc.title, doc.text, doc.format, doc.version) == ("T", "x", None, None)
        assert store.latest_versions() == {"d1": None}
