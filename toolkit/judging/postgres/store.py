"""The PostgreSQL campaign store: a campaign on a server, its connection, locking and exactly-once writes.

The reads and organiser writes are the ones both SQL backends share (``toolkit.judging.sql.store``); what is
the server's own is here: the connection that reconnects, the advisory locks, the event keys, ``COPY``, and
whether this login is an organiser (an assessor's login never asks for a column it may not read).

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

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg import sql

from toolkit.errors import StoreError
from toolkit.judging.postgres import schema
from toolkit.judging.postgres.connection import Link, Transaction
from toolkit.judging.postgres.url import CampaignURL, parse_campaign_url
from toolkit.judging.records import Item
from toolkit.judging.sql.dialect import POSTGRESQL
from toolkit.judging.sql.store import Rows, SQLStore, Writer
from toolkit.judging.sql.tables import FLAG, SERIAL, TABLES, Table, table
from toolkit.judging.store import CampaignStore

T = TypeVar("T")

#: How often ``open`` tries again when the connection drops while it opens (not when it cannot connect).
OPEN_ATTEMPTS = 5


class PostgresStore(SQLStore):
    """A judging campaign in one schema of a PostgreSQL database; use ``CampaignStore.open(url)``.

    One connection, shared by the threads of one process under a lock (the TUI records from workers).
    """

    def __init__(self, conn: psycopg.Connection[Any], url: CampaignURL, *, organiser: bool = True) -> None:
        self._link = Link(conn, url)
        #: A member of ``trec_owner``: reads every row and column (an assessor's reads are the server's
        #: row-level security's, ``security``; it never asks for a column it may not read).
        self.organiser = organiser
        self.url = url
        self.location = url.url
        self.campaign = url.campaign or ""
        lone_columns, lone_values, self._event_params = self._event_insert(first=("event_key",))
        #: One event inside a transaction that holds the campaign's write lock already.
        self._insert = f"INSERT INTO judgment_log ({lone_columns}) VALUES ({lone_values}) RETURNING id"
        #: One event as its own transaction: the statement takes the write lock (shared) itself.
        self._insert_alone = (
            f"INSERT INTO judgment_log ({lone_columns}) SELECT {lone_values} "
            "FROM (SELECT pg_advisory_xact_lock_shared(%s)) AS write_lock RETURNING id"
        )

    dialect = POSTGRESQL

    def _columns_of(self, name: str) -> Collection[str] | None:
        t = table(name)
        return t.names(dumped=False) if self.organiser else tuple(c.name for c in t.columns if not c.hidden)

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
                return cls(conn, url, organiser=schema.check_member(conn, url))
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
        with closing(schema.connect(url)) as conn:
            return schema.campaign_state(conn, url.campaign or "")[0]

    @staticmethod
    def drop(location: str) -> None:
        """Remove a campaign that holds no topics and no log (what a failed ``campaign copy`` leaves)."""
        from psycopg import sql

        url = parse_campaign_url(location)
        with closing(schema.connect(url)) as conn:
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

    def record(
        self,
        assessor: str,
        query_id: str,
        doc_id: str,
        *,
        grade: int | None = None,
        action: str = "judge",
        note: str | None = None,
        duration_ms: int | None = None,
        position: int | None = None,
        expect_event: int | None = None,
    ) -> int:
        def write() -> int:
            return CampaignStore.record(
                self,
                assessor,
                query_id,
                doc_id,
                grade=grade,
                action=action,
                note=note,
                duration_ms=duration_ms,
                position=position,
                expect_event=expect_event,
            )

        conditional = expect_event is not None
        return self._link.idempotent(
            ("record", assessor, query_id, doc_id, grade, action, note, duration_ms, position, expect_event),
            (lambda: self._alone(assessor, write)) if conditional else write,
            lambda ids: ids[0],
            single=not conditional,
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

    def add_note(self, assessor: str, query_id: str, doc_id: str, text: str) -> int:
        return self._link.idempotent(
            ("add_note", assessor, query_id, doc_id, text),
            lambda: CampaignStore.add_note(self, assessor, query_id, doc_id, text),
            lambda ids: ids[0],
            single=True,
        )

    def adjudicate(
        self, adjudicator: str, query_id: str, doc_id: str, grade: int, *, note: str | None = None
    ) -> int:
        return self._link.idempotent(
            ("adjudicate", adjudicator, query_id, doc_id, grade, note),
            lambda: CampaignStore.adjudicate(self, adjudicator, query_id, doc_id, grade, note=note),
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

    # ------------------------------------------------------------------ what differs: one event, one snapshot

    def _insert_event(self, event: Mapping[str, Any]) -> int:
        params = (self._link.event_key(), *(event[p] for p in self._event_params))
        with self.transaction():  # joins the caller's transaction
            try:
                row = self._link.write_event(self._insert, self._insert_alone, params)
            except psycopg.Error as exc:
                raise self._link.failure(exc, "cannot append to the judgment log") from exc
            return int(row[0]) if row else 0

    def _consistent(self, read: Callable[[Callable[[str], Rows]], T]) -> T:
        """One ``REPEATABLE READ READ ONLY`` transaction: one snapshot while assessors keep judging (inside a
        write — restore's check — the write's own view)."""

        def run(conn: psycopg.Connection[Any]) -> T:
            def query(statement: str) -> Rows:
                return conn.execute(statement).fetchall()  # type: ignore[arg-type]

            if self._link.depth:
                return read(query)
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return read(query)

        return self._link.read(run)

    def _load(self, tx: Writer, t: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """``COPY``: fast, and it writes identity columns as given (an INSERT would need OVERRIDING)."""
        flags = [i for i, c in enumerate(columns) if t.column(c).type == FLAG]
        statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
            sql.Identifier(t.name), sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        with tx.cursor() as cur, cur.copy(statement) as copy:  # type: ignore[attr-defined]
            for row in rows:
                copy.write_row([bool(v) if i in flags else v for i, v in enumerate(row)] if flags else row)

    def _loaded(self, tx: Writer) -> None:
        """Move the identity sequences past the copied ids, so new rows follow on."""
        for t in TABLES:
            for c in t.columns:
                if c.type == SERIAL:
                    tx.execute(
                        sql.SQL(
                            "SELECT setval(pg_get_serial_sequence({t}, {c}), COALESCE(MAX({col}), 0) + 1, false) "
                            "FROM {table}"
                        ).format(
                            t=sql.Literal(f'"{self.campaign}".{t.name}'),
                            c=sql.Literal(c.name),
                            col=sql.Identifier(c.name),
                            table=sql.Identifier(t.name),
                        ),
                        (),
                    )
