"""The PostgreSQL campaign store: every SQL statement that reads or writes a campaign on a server.

What it promises, as the SQLite store does: every write has committed (``synchronous_commit = on``) before
the method returns; ``transaction()`` is one all-or-nothing commit that nested uses join; the log is
append-only in the database itself (``schema``). Many assessors write at once, each on their own connection;
the server orders their commits.

What a server adds is a connection that can drop. The store reconnects by itself (``connection.Link``): a
read runs again; a logged write (``record``, ``record_many``, ``undo``, ``add_note``, ``adjudicate``) runs
again as a whole, exactly once, thanks to its client-generated event keys. The TUI's worker therefore just
calls ``record()``: it returns once the decision is durable, after as many reconnects as it takes within
``retry_seconds``. Organiser writes (a pooling round, assignments) are not retried: they raise, roll back
whole, and are run again by hand.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psycopg

from toolkit.errors import StoreError
from toolkit.judging.dump import CampaignDump
from toolkit.judging.postgres import schema
from toolkit.judging.postgres.connection import Link, Transaction
from toolkit.judging.postgres.url import CampaignURL, parse_campaign_url
from toolkit.judging.postgres.writes import OrganiserWrites
from toolkit.judging.records import (
    CampaignTopic,
    Document,
    Item,
    LogEvent,
    PoolItem,
    Provenance,
    RoundInfo,
)
from toolkit.judging.store import CampaignStore

T = TypeVar("T")

#: How often ``open`` tries again when the connection drops while it opens (not when it cannot connect).
OPEN_ATTEMPTS = 5

_LOG_COLUMNS = (
    "id, time, assessor, query_id, doc_id, action, grade, note, duration_ms, position, content_hash, undoes"
)
_EVENT_COLUMNS = (
    "INSERT INTO judgment_log (event_key, time, assessor, query_id, doc_id, action, grade, note, duration_ms, "
    "position, content_hash, undoes) "
)
_EVENT_VALUES = (
    "%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
    "(SELECT content_hash FROM snapshots WHERE doc_id = %s ORDER BY id DESC LIMIT 1), %s"
)
#: One event inside a transaction that holds the campaign's write lock already.
_INSERT_EVENT = f"{_EVENT_COLUMNS}VALUES ({_EVENT_VALUES}) RETURNING id"
#: One event as its own transaction: the statement takes the write lock (shared) itself.
_INSERT_LONE_EVENT = (
    f"{_EVENT_COLUMNS}SELECT {_EVENT_VALUES} FROM (SELECT pg_advisory_xact_lock_shared(%s)) AS write_lock "
    "RETURNING id"
)


#: What the interface's rules read before appending an event, in one query: the grade scale, the topic, and
#: whether the document is in the campaign (pooled or gold for the topic, or snapshotted).
_FACTS = (
    "SELECT (SELECT array_agg(grade ORDER BY grade) FROM grades), "
    "(SELECT array_agg(definition ORDER BY grade) FROM grades), "
    "t.query_id, t.query, t.description, t.narrative, t.query_class, "
    "EXISTS (SELECT 1 FROM pool_items WHERE query_id = %s AND doc_id = %s) "
    "OR EXISTS (SELECT 1 FROM gold WHERE query_id = %s AND doc_id = %s) "
    "OR EXISTS (SELECT 1 FROM snapshots WHERE doc_id = %s) "
    "FROM (SELECT 1) AS one LEFT JOIN topics t ON t.query_id = %s"
)


@dataclass(frozen=True)
class _Facts:
    """The answers of ``_FACTS`` for one event being appended (this thread, this call only)."""

    query_id: str
    doc_id: str
    grades: dict[int, str]
    topic: CampaignTopic | None
    known: bool


class PostgresStore(OrganiserWrites, CampaignStore):
    """A judging campaign in one schema of a PostgreSQL database; use ``CampaignStore.open(url)``.

    One connection, shared by the threads of one process under a lock (the TUI records from workers).
    """

    def __init__(self, conn: psycopg.Connection[Any], url: CampaignURL) -> None:
        self._link = Link(conn, url)
        self.url = url
        self.location = url.url
        self.campaign = url.campaign or ""

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(cls, location: CampaignURL | str | Path, *, create: bool = False) -> PostgresStore:
        url = location if isinstance(location, CampaignURL) else parse_campaign_url(str(location))
        for attempt in range(OPEN_ATTEMPTS):  # a connection dropped while opening: open again
            try:
                conn = schema.connect(url)
            except schema.ConnectionLost:
                if attempt + 1 == OPEN_ATTEMPTS:
                    raise
                continue
            try:
                schema.prepare(conn, url, create=create)
                schema.use_campaign(conn, url.campaign or "")
                return cls(conn, url)
            except psycopg.Error as exc:
                conn.close()
                if not schema.is_lost(exc, conn) or attempt + 1 == OPEN_ATTEMPTS:
                    raise StoreError(
                        f"{url.url}: cannot open the campaign ({schema.first_line(exc)})"
                    ) from None
            except schema.ConnectionLost:
                conn.close()
                if attempt + 1 == OPEN_ATTEMPTS:
                    raise
            except BaseException:
                conn.close()
                raise
        raise AssertionError("unreachable")

    @classmethod
    @contextmanager
    def create(cls, location: CampaignURL | str | Path) -> Iterator[PostgresStore]:
        """A new campaign built inside one transaction: it appears to other connections only when the block
        succeeds (``CampaignStore.create``); ``CampaignExistsError`` when one is there already."""
        url = location if isinstance(location, CampaignURL) else parse_campaign_url(str(location))
        store = cls(schema.connect(url), url)
        try:
            with store.transaction():
                store._link.begin()
                try:
                    schema.create_in_transaction(store._link.conn, url)
                except psycopg.Error as exc:
                    raise store._link.failure(exc, "cannot create the campaign") from exc
                yield store
        finally:
            store.close()

    @staticmethod
    def exists(location: str) -> bool:
        url = parse_campaign_url(location)
        conn = schema.connect(url)
        try:
            return schema.campaign_state(conn, url.campaign or "")[0]
        finally:
            conn.close()

    @staticmethod
    def drop(location: str) -> None:
        """Remove a campaign that holds no topics and no log (what a failed ``campaign copy`` leaves)."""
        from psycopg import sql

        url = parse_campaign_url(location)
        conn = schema.connect(url)
        try:
            exists, version = schema.campaign_state(conn, url.campaign or "")
            if not exists or version is None:
                return
            name = sql.Identifier(url.campaign or "")
            with conn.transaction():
                used = conn.execute(
                    sql.SQL(
                        "SELECT EXISTS (SELECT 1 FROM {0}.topics) OR EXISTS (SELECT 1 FROM {0}.judgment_log)"
                    ).format(name)
                ).fetchone()
                if used and not used[0]:
                    conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(name))
        finally:
            conn.close()

    def close(self) -> None:
        self._link.close()

    def transaction(self) -> AbstractContextManager[Transaction]:
        """One durable write: ``BEGIN`` … ``COMMIT``, rolled back whole on any error.

        Nested uses join the outermost transaction, so several writes can be made atomic together.
        """
        return self._link.transaction()

    @property
    def retry_seconds(self) -> float:
        """How long a call keeps reconnecting after the connection dropped before it raises."""
        return self._link.retry_seconds

    @retry_seconds.setter
    def retry_seconds(self, seconds: float) -> None:
        self._link.retry_seconds = seconds

    def _rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._link.rows(query, params)

    # ------------------------------------------------------------------ the logged writes, exactly once

    def record(self, *args: Any, **kwargs: Any) -> int:
        conditional = kwargs.get("expect_event") is not None
        assessor = str(args[0] if args else kwargs.get("assessor", ""))

        def write() -> int:
            if conditional:
                return self._alone(assessor, lambda: CampaignStore.record(self, *args, **kwargs))
            return CampaignStore.record(self, *args, **kwargs)

        return self._link.idempotent(
            ("record", args, tuple(sorted(kwargs.items()))), write, lambda ids: ids[0], single=not conditional
        )

    def _alone(self, assessor: str, write: Callable[[], T]) -> T:
        """Run ``write`` as the only writer for ``assessor``: what it reads of their decisions (``undo``'s
        target, ``expect_event``'s check) is what it writes on — two windows of one assessor never both
        act on the same decision. Other assessors are not held up."""
        with self.transaction() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(%s)", (schema.lock_key(self.campaign, assessor),))
            return write()

    def record_many(self, rows: Iterable[tuple[str, str, str, int | None, str, str | None]]) -> list[int]:
        listed = list(rows)
        return self._link.idempotent(
            ("record_many", tuple(listed)), lambda: CampaignStore.record_many(self, listed), lambda ids: ids
        )

    def add_note(self, *args: Any, **kwargs: Any) -> int:
        return self._link.idempotent(
            ("add_note", args, tuple(sorted(kwargs.items()))),
            lambda: CampaignStore.add_note(self, *args, **kwargs),
            lambda ids: ids[0],
            single=True,
        )

    def adjudicate(self, *args: Any, **kwargs: Any) -> int:
        return self._link.idempotent(
            ("adjudicate", args, tuple(sorted(kwargs.items()))),
            lambda: CampaignStore.adjudicate(self, *args, **kwargs),
            lambda ids: ids[0],
            single=True,
        )

    def undo(self, assessor: str, *, expect_event: int | None = None) -> Item | None:
        return self._link.idempotent(
            ("undo", assessor, expect_event),
            lambda: self._alone(
                assessor, lambda: CampaignStore.undo(self, assessor, expect_event=expect_event)
            ),
            lambda ids: self._undone(assessor, ids[0]),
        )

    def _undone(self, assessor: str, undo_id: int) -> Item | None:
        """What ``undo`` returns, rebuilt from its committed event."""
        events = {e.event_id: e for e in self.events(assessor=assessor)}
        target = events.get(events[undo_id].undoes or -1) if undo_id in events else None
        if target is None:
            return None
        for item in self.queue(assessor):
            if (item.query_id, item.doc_id) == (target.query_id, target.doc_id):
                return item
        return Item(assessor, target.query_id, target.doc_id, position=-1)

    # ------------------------------------------------------------------ the rules' reads, in one query

    def _append(self, assessor: str, query_id: str, doc_id: str, action: str, **event: Any) -> int:
        """The interface's checks, with the three reads they make (scale, topic, document) answered by one
        query: a judgment costs two round trips to the server (these facts, the INSERT), not five."""
        row = self._rows(_FACTS, (query_id, doc_id, query_id, doc_id, doc_id, query_id))[0]
        grades, definitions, topic, known = row[0] or [], row[1] or [], row[2:7], row[7]
        facts = _Facts(
            query_id,
            doc_id,
            dict(zip(grades, definitions, strict=True)),
            CampaignTopic(*topic) if topic[0] is not None else None,
            bool(known),
        )
        self._link.facts = facts
        try:
            return super()._append(assessor, query_id, doc_id, action, **event)
        finally:
            self._link.facts = None

    def _facts(self, query_id: str, doc_id: str | None = None) -> _Facts | None:
        facts: _Facts | None = self._link.facts
        if facts is None or facts.query_id != query_id or (doc_id is not None and facts.doc_id != doc_id):
            return None
        return facts

    # ------------------------------------------------------------------ topics, grades, documents

    def topics(self) -> list[CampaignTopic]:
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics ORDER BY ord"
        )
        return [CampaignTopic(*row) for row in rows]

    def topic(self, query_id: str) -> CampaignTopic:
        facts = self._facts(query_id)
        if facts is not None and facts.topic is not None:
            return facts.topic
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics WHERE query_id = %s",
            (query_id,),
        )
        if not rows:
            raise StoreError(f"{self.location}: no topic {query_id!r} in this campaign")
        return CampaignTopic(*rows[0])

    def grades(self) -> dict[int, str]:
        facts = self._link.facts
        if facts is not None:
            return dict(facts.grades)
        return dict(self._rows("SELECT grade, definition FROM grades ORDER BY grade"))

    def assessors(self) -> list[str]:
        rows = self._rows(
            "SELECT assessor FROM assignments UNION "
            "SELECT assessor FROM judgment_log WHERE action IN ('judge','skip','unrateable')"
        )
        return sorted(r[0] for r in rows)  # code-point order, as SQLite's: whatever the server's collation

    def assignees(self) -> list[str]:
        return sorted(r[0] for r in self._rows("SELECT DISTINCT assessor FROM assignments"))

    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def document(self, doc_id: str) -> Document:
        rows = self._rows(
            "SELECT doc_id, title, text, content_hash, fetch_error FROM snapshots WHERE doc_id = %s "
            "ORDER BY id DESC LIMIT 1",
            (doc_id,),
        )
        if not rows:
            raise StoreError(f"{self.location}: no snapshot of document {doc_id!r} in this campaign")
        return Document(*rows[0])

    def has_document(self, doc_id: str) -> bool:
        return bool(self._rows("SELECT 1 FROM snapshots WHERE doc_id = %s LIMIT 1", (doc_id,)))

    def latest_hashes(self) -> dict[str, str | None]:
        rows = self._rows("SELECT doc_id, content_hash FROM snapshots ORDER BY id")
        return {doc: h for doc, h in rows}

    def knows_document(self, query_id: str, doc_id: str) -> bool:
        facts = self._facts(query_id, doc_id)
        if facts is not None:
            return facts.known
        rows = self._rows(
            "SELECT EXISTS (SELECT 1 FROM pool_items WHERE query_id = %s AND doc_id = %s) "
            "OR EXISTS (SELECT 1 FROM gold WHERE query_id = %s AND doc_id = %s) "
            "OR EXISTS (SELECT 1 FROM snapshots WHERE doc_id = %s)",
            (query_id, doc_id, query_id, doc_id, doc_id),
        )
        return bool(rows[0][0])

    # ------------------------------------------------------------------ queues, pool, gold, rounds

    def queue(self, assessor: str) -> list[Item]:
        rows = self._rows(
            "SELECT a.assessor, a.query_id, a.doc_id, a.position, a.overlap, a.gold, COALESCE(p.stale, false) "
            "FROM assignments a LEFT JOIN pool_items p ON p.query_id = a.query_id AND p.doc_id = a.doc_id "
            "WHERE a.assessor = %s ORDER BY a.position",
            (assessor,),
        )
        return [Item(*r) for r in rows]

    def gold(self) -> dict[tuple[str, str], int]:
        return {(q, d): g for q, d, g in self._rows("SELECT query_id, doc_id, grade FROM gold")}

    def pool_items(self) -> list[PoolItem]:
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        items = [PoolItem(*r) for r in self._rows("SELECT query_id, doc_id, round, stale FROM pool_items")]
        return sorted(items, key=lambda p: (order.get(p.query_id, len(order)), p.query_id, p.doc_id))

    def provenance(self, query_id: str | None = None) -> list[Provenance]:
        where, params = ("WHERE query_id = %s", (query_id,)) if query_id is not None else ("", ())
        rows = self._rows(f"SELECT round, query_id, doc_id, run, rank FROM provenance {where}", params)
        found = [Provenance(*r) for r in rows]
        return sorted(found, key=lambda p: (p.round, p.query_id, p.rank, p.run, p.doc_id))

    def rounds(self) -> list[RoundInfo]:
        rows = self._rows(
            "SELECT round, created, strategy, depth, budget, runs, added, stale, skipped FROM rounds ORDER BY round"
        )
        return [
            RoundInfo(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), r[6], r[7], r[8]) for r in rows
        ]

    # ------------------------------------------------------------------ the log

    def events(
        self,
        *,
        assessor: str | None = None,
        query_id: str | None = None,
        doc_id: str | None = None,
        actions: Collection[str] | None = None,
    ) -> list[LogEvent]:
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (("assessor", assessor), ("query_id", query_id), ("doc_id", doc_id)):
            if value is not None:
                clauses.append(f"{column} = %s")
                params.append(value)
        if actions is not None:
            clauses.append("action = ANY(%s)")
            params.append(sorted(actions))
        where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
        rows = self._rows(f"SELECT {_LOG_COLUMNS} FROM judgment_log {where}ORDER BY id", params)
        return [LogEvent(*row) for row in rows]

    def _insert_event(
        self,
        *,
        time: str,
        assessor: str,
        query_id: str,
        doc_id: str,
        action: str,
        grade: int | None,
        note: str | None,
        duration_ms: int | None,
        position: int | None,
        undoes: int | None,
    ) -> int:
        key = self._link.event_key()
        with self.transaction():  # joins the caller's transaction
            try:
                row = self._link.write_event(
                    _INSERT_EVENT,
                    _INSERT_LONE_EVENT,
                    (
                        key,
                        time,
                        assessor,
                        query_id,
                        doc_id,
                        action,
                        grade,
                        note,
                        duration_ms,
                        position,
                        doc_id,
                        undoes,
                    ),
                )
            except psycopg.Error as exc:
                raise self._link.failure(exc, "cannot append to the judgment log") from exc
            return int(row[0]) if row else 0

    # ------------------------------------------------------------------ organiser writes: see ``writes``

    def judged_topics(self) -> set[str]:
        rows = self._rows(
            "SELECT DISTINCT query_id FROM judgment_log WHERE action IN ('judge', 'unrateable', 'adjudicate')"
        )
        return {r[0] for r in rows}

    # ------------------------------------------------------------------ the whole campaign (postgres.dump)

    def dump(self) -> CampaignDump:
        from toolkit.judging.postgres.dump import dump

        return dump(self)

    def restore(self, dump: CampaignDump) -> None:
        from toolkit.judging.postgres.dump import restore

        restore(self, dump)
