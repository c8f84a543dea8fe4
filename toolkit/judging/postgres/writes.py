"""The organiser's writes to a PostgreSQL campaign: topics and scale, pooling rounds, assignments, snapshots.

Each is one transaction that holds the campaign's write lock alone (``connection.Link.begin``), so what it
reads is what it writes on — the rules that decide what to write are the interface's
(``toolkit.judging.store.CampaignStore``). Not retried after a dropped connection: they roll back whole and
are run again by hand.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from toolkit.judging.postgres.connection import Transaction
from toolkit.judging.records import CampaignTopic, Document, Item, check_assessor, now_iso

_SNAPSHOT_INSERT = (
    "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetch_error, fetched) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s)"
)


class OrganiserWrites:
    """Mixed into ``PostgresStore``: the organiser-write half of the store interface."""

    location: str

    def transaction(self) -> AbstractContextManager[Transaction]:
        raise NotImplementedError  # PostgresStore's

    def _write_topics(self, topics: Sequence[CampaignTopic], grades: Mapping[int, str]) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM grades")
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO grades (grade, definition) VALUES (%s, %s)", sorted(grades.items())
                )
                row = conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM topics").fetchone()
                start = int(row[0]) if row else 0
                cur.executemany(
                    "INSERT INTO topics (query_id, ord, query, description, narrative, query_class) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (query_id) DO UPDATE SET query = excluded.query, "
                    "description = excluded.description, narrative = excluded.narrative, "
                    "query_class = excluded.query_class",
                    [
                        (t.query_id, start + offset, t.query, t.description, t.narrative, t.query_class)
                        for offset, t in enumerate(topics)
                    ],
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
        with self.transaction() as conn, conn.cursor() as cur:
            # Rounds are numbered in order even when two organisers pool at once.
            conn.execute("LOCK TABLE rounds IN EXCLUSIVE MODE")
            row = conn.execute("SELECT COALESCE(MAX(round), 0) + 1 FROM rounds").fetchone()
            number = int(row[0]) if row else 1
            now = now_iso()
            conn.execute(
                "INSERT INTO rounds (round, created, strategy, depth, budget, runs, added, stale, skipped, params) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
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
            cur.executemany(
                "INSERT INTO provenance (round, query_id, doc_id, run, rank) VALUES (%s, %s, %s, %s, %s)",
                [
                    (number, q, d, run, rank)
                    for (q, d), entries in provenance.items()
                    for run, rank in entries
                ],
            )
            stale_set = set(stale)
            cur.executemany(
                "INSERT INTO pool_items (query_id, doc_id, round, stale) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (query_id, doc_id) DO UPDATE SET round = excluded.round, stale = excluded.stale",
                [(q, d, number, (q, d) in stale_set) for q, d in queued],
            )
            cur.executemany(
                _SNAPSHOT_INSERT,
                [(s.doc_id, number, s.title, s.text, s.content_hash, s.fetch_error, now) for s in snapshots],
            )
            return number

    def add_assignments(
        self, items: Iterable[Item], *, gold: Mapping[tuple[str, str], int] | None = None
    ) -> int:
        with self.transaction() as conn, conn.cursor() as cur:
            if gold:
                cur.executemany(
                    "INSERT INTO gold (query_id, doc_id, grade) VALUES (%s, %s, %s) "
                    "ON CONFLICT (query_id, doc_id) DO UPDATE SET grade = excluded.grade",
                    [(q, d, g) for (q, d), g in gold.items()],
                )
            row = conn.execute("SELECT COALESCE(MAX(round), 1) FROM rounds").fetchone()
            number = int(row[0]) if row else 1
            rows = [
                (check_assessor(i.assessor), i.query_id, i.doc_id, i.position, i.overlap, i.gold, number)
                for i in items
            ]
            cur.executemany(
                "INSERT INTO assignments (assessor, query_id, doc_id, position, overlap, gold, round) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                rows,
            )
            return len(rows)

    def add_snapshots(self, snapshots: Iterable[Document]) -> None:
        with self.transaction() as conn, conn.cursor() as cur:
            row = conn.execute("SELECT COALESCE(MAX(round), 0) FROM rounds").fetchone()
            number = int(row[0]) if row else 0
            cur.executemany(
                _SNAPSHOT_INSERT,
                [
                    (s.doc_id, number, s.title, s.text, s.content_hash, s.fetch_error, now_iso())
                    for s in snapshots
                ],
            )

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO meta (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                list(values.items()),
            )
