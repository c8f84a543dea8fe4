"""Organiser-side access to a campaign: provenance, rounds, and the writes ``pool`` and ``assign`` make.

A mixin of ``CampaignStore`` (kept apart so the assessor-facing API stays short to read). Everything here
is for the organiser: provenance names runs and ranks, which assessors must never see (DESIGN §8).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from toolkit.errors import StoreError
from toolkit.judging.records import (
    CampaignTopic,
    Document,
    Item,
    PoolItem,
    Provenance,
    RoundInfo,
    check_assessor,
    now_iso,
)


class OrganiserMixin:
    """Provenance, pool items, rounds, metadata and the bulk writes of ``pool`` / ``assign``."""

    path: Path

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:  # provided by CampaignStore
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def topics(self) -> list[CampaignTopic]:
        raise NotImplementedError

    def provenance(self, query_id: str | None = None) -> list[Provenance]:
        """Organiser only: which run put which doc in the pool at which rank, per round."""
        where, params = ("WHERE query_id = ?", (query_id,)) if query_id is not None else ("", ())
        rows = self._rows(
            f"SELECT round, query_id, doc_id, run, rank FROM provenance {where} ORDER BY round, query_id, rank, run, doc_id",
            params,
        )
        return [Provenance(*r) for r in rows]

    def pool_items(self) -> list[PoolItem]:
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        rows = self._rows("SELECT query_id, doc_id, round, stale FROM pool_items")
        items = [PoolItem(q, d, r, bool(s)) for q, d, r, s in rows]
        return sorted(items, key=lambda p: (order.get(p.query_id, len(order)), p.query_id, p.doc_id))

    def rounds(self) -> list[RoundInfo]:
        rows = self._rows(
            "SELECT round, created, strategy, depth, budget, runs, added, stale, skipped FROM rounds ORDER BY round"
        )
        return [
            RoundInfo(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), r[6], r[7], r[8]) for r in rows
        ]

    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def set_topics(self, topics: Iterable[CampaignTopic], grades: Mapping[int, str]) -> None:
        """Store (or update) topics and the grade scale; a campaign's scale cannot change once judged."""
        with self.transaction() as conn:
            existing = dict(conn.execute("SELECT grade, definition FROM grades").fetchall())
            wanted = {int(g): str(d) for g, d in grades.items()}
            if existing and set(existing) != set(wanted):
                has_log = conn.execute("SELECT 1 FROM judgment_log LIMIT 1").fetchone()
                if has_log:
                    raise StoreError(
                        f"{self.path}: the grade scale {sorted(wanted)} differs from the campaign's "
                        f"{sorted(existing)}; judgments exist, so use a topic set with the same grades"
                    )
            conn.execute("DELETE FROM grades")
            conn.executemany("INSERT INTO grades (grade, definition) VALUES (?, ?)", sorted(wanted.items()))
            start = conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM topics").fetchone()[0]
            for offset, t in enumerate(topics):
                conn.execute(
                    "INSERT INTO topics (query_id, ord, query, description, narrative, query_class) "
                    "VALUES (?,?,?,?,?,?) ON CONFLICT(query_id) DO UPDATE SET query = excluded.query, "
                    "description = excluded.description, narrative = excluded.narrative, "
                    "query_class = excluded.query_class",
                    (t.query_id, start + offset, t.query, t.description, t.narrative, t.query_class),
                )

    def add_round(
        self,
        *,
        strategy: str,
        depth: int | None,
        budget: int | None,
        runs: Sequence[str],
        provenance: Mapping[tuple[str, str], Sequence[tuple[str, int]]],
        queued: Collection[tuple[str, str]],
        stale: Collection[tuple[str, str]],
        snapshots: Iterable[Document],
        skipped: int,
        params: Mapping[str, Any] | None = None,
    ) -> int:
        """Record one pooling round in one transaction; returns the round number.

        ``provenance`` covers every pooled (topic, doc), judged or not; ``queued`` are the items that need
        judging (new ones and the ``stale`` ones re-queued); ``snapshots`` are the documents fetched.
        """
        with self.transaction() as conn:
            number = conn.execute("SELECT COALESCE(MAX(round), 0) + 1 FROM rounds").fetchone()[0]
            now = now_iso()
            conn.execute(
                "INSERT INTO rounds (round, created, strategy, depth, budget, runs, added, stale, skipped, params) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    number,
                    now,
                    strategy,
                    depth,
                    budget,
                    json.dumps(list(runs)),
                    len(queued) - len(stale),
                    len(stale),
                    skipped,
                    json.dumps(dict(params or {}), sort_keys=True),
                ),
            )
            conn.executemany(
                "INSERT INTO provenance (round, query_id, doc_id, run, rank) VALUES (?,?,?,?,?)",
                [
                    (number, q, d, run, rank)
                    for (q, d), entries in provenance.items()
                    for run, rank in entries
                ],
            )
            stale_set = set(stale)
            conn.executemany(
                "INSERT INTO pool_items (query_id, doc_id, round, stale) VALUES (?,?,?,?) "
                "ON CONFLICT(query_id, doc_id) DO UPDATE SET round = excluded.round, stale = excluded.stale",
                [(q, d, number, int((q, d) in stale_set)) for q, d in queued],
            )
            conn.executemany(
                "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetch_error, fetched) "
                "VALUES (?,?,?,?,?,?,?)",
                [(s.doc_id, number, s.title, s.text, s.content_hash, s.fetch_error, now) for s in snapshots],
            )
            return int(number)

    def add_assignments(
        self, items: Iterable[Item], *, gold: Mapping[tuple[str, str], int] | None = None
    ) -> int:
        """Store new assignments (and gold grades) in one transaction; returns how many were added."""
        with self.transaction() as conn:
            if gold:
                conn.executemany(
                    "INSERT OR REPLACE INTO gold (query_id, doc_id, grade) VALUES (?,?,?)",
                    [(q, d, g) for (q, d), g in gold.items()],
                )
            rows = [
                (check_assessor(i.assessor), i.query_id, i.doc_id, i.position, int(i.overlap), int(i.gold))
                for i in items
            ]
            conn.executemany(
                "INSERT INTO assignments (assessor, query_id, doc_id, position, overlap, gold, round) "
                "VALUES (?,?,?,?,?,?, (SELECT COALESCE(MAX(round), 1) FROM rounds))",
                rows,
            )
            return len(rows)

    def add_snapshots(self, snapshots: Iterable[Document]) -> None:
        """Store extra snapshots (e.g. gold documents fetched at assign time)."""
        with self.transaction() as conn:
            number = conn.execute("SELECT COALESCE(MAX(round), 0) FROM rounds").fetchone()[0]
            conn.executemany(
                "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetch_error, fetched) "
                "VALUES (?,?,?,?,?,?,?)",
                [
                    (s.doc_id, number, s.title, s.text, s.content_hash, s.fetch_error, now_iso())
                    for s in snapshots
                ],
            )

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.transaction() as conn:
            conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(values.items()))
