"""The statements both SQL backends share: every read and organiser write of the store, written once.

``SQLStore`` implements the store interface over two hooks a backend provides — ``_rows`` (a read) and
``transaction()`` (a write: something with ``execute`` and ``executemany``) — and its ``Dialect``. Column lists
come from the declaration (``toolkit.judging.sql.tables``) and from the records' fields, so a column added to
both is read and written without touching a statement here.

What stays in a backend is what truly differs: connecting and locking (SQLite's ``BEGIN IMMEDIATE``, the
server's advisory locks), how one event is appended (PostgreSQL's idempotent event keys), how a consistent
snapshot is read and how rows are loaded in bulk (``COPY``).
"""

from __future__ import annotations

import dataclasses
import json
from abc import abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol, TypeVar

from toolkit.errors import StoreError
from toolkit.judging.dump import CampaignDump, canonical_dump
from toolkit.judging.records import (
    CampaignTopic,
    Document,
    Inclusion,
    Item,
    LogEvent,
    OrderStep,
    PoolItem,
    Provenance,
    RoundInfo,
    check_assessor,
    now_iso,
)
from toolkit.judging.sql.columns import SQLColumnReads
from toolkit.judging.sql.dialect import Dialect
from toolkit.judging.sql.readmodels import SQLReadQueries
from toolkit.judging.sql.tables import DUMPED, FLAG, Table, table
from toolkit.judging.store import CampaignStore, EventFacts

R = TypeVar("R")
W = TypeVar("W")
Rows = list[tuple[Any, ...]]

#: Record field → column, where their names differ.
_RENAMED = {"event_id": "id", "number": "round"}


class Writer(Protocol):
    """What a backend's ``transaction()`` yields."""

    def execute(self, query: Any, params: Sequence[Any] = ..., /) -> Any: ...

    def executemany(self, query: Any, rows: Iterable[Sequence[Any]], /) -> Any: ...


class Nesting:
    """Nested ``transaction()`` uses join the outermost one: a nesting depth, counted under the store's lock."""

    depth = 0

    @contextmanager
    def joined(self, lock: Any, inner: W, outermost: Callable[[], AbstractContextManager[W]]) -> Iterator[W]:
        """Yield ``inner`` inside an open transaction, else open the outermost one with ``outermost()``."""
        with lock:
            if self.depth:
                self.depth += 1
                try:
                    yield inner
                finally:
                    self.depth -= 1
                return
            self.depth = 1
            try:
                with outermost() as value:
                    yield value
            finally:
                self.depth = 0


def _fields(record: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(record))


def insert(
    dialect: Dialect, name: str, columns: Sequence[str], *, upsert: bool = False, keep: Collection[str] = ()
) -> str:
    """``INSERT INTO name (columns) VALUES (…)``; ``upsert`` updates the other columns on a key conflict
    (all but the key and ``keep``)."""
    t = table(name)
    for column in columns:
        t.column(column)  # a KeyError names a column the declaration does not have
    statement = f"INSERT INTO {name} ({', '.join(columns)}) VALUES ({dialect.marks(len(columns))})"
    if upsert:
        updated = [c for c in columns if c not in t.key and c not in keep]
        sets = ", ".join(f"{c} = excluded.{c}" for c in updated)
        statement += f" ON CONFLICT ({', '.join(t.key)}) DO UPDATE SET {sets}"
    return statement


class SQLStore(SQLReadQueries, SQLColumnReads, CampaignStore):
    """The store interface over SQL, for a backend that supplies ``dialect``, ``_rows`` and ``transaction``;
    the read models' queries are ``SQLReadQueries``, export's column read ``SQLColumnReads``."""

    dialect: Dialect

    @abstractmethod
    def _rows(self, query: str, params: Sequence[Any] = ()) -> Rows:
        """One read (joining the open transaction, if any)."""

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Any]:
        """The interface's write transaction; what it yields is a ``Writer``."""

    # ------------------------------------------------------------------ columns from the declaration

    def _columns_of(self, name: str) -> Collection[str] | None:
        """The columns the campaign's ``name`` table has (None: no such table yet). All of them, unless the
        backend reads an older schema it may not migrate (a read-only SQLite file)."""
        return table(name).names(dumped=False)

    def _select(self, name: str, columns: Sequence[str], *, alias: str = "") -> str:
        """A select list of ``columns``; one the campaign does not have yet reads as NULL."""
        present = self._columns_of(name) or ()
        prefix = f"{alias}." if alias else ""
        return ", ".join(f"{prefix}{c}" if c in present else "NULL" for c in columns)

    def _read(self, record: type[R], name: str, rows: Rows, *, flags: Collection[str] = ()) -> list[R]:
        """Rows of ``record``'s fields (as selected by ``_fields_of``) → records; the fields that are flags of
        table ``name`` (and ``flags``) become booleans."""
        t = table(name)
        fields = _fields(record)
        positions = [i for i, f in enumerate(fields) if f in flags or _is_flag(t, _RENAMED.get(f, f))]
        out = []
        for row in rows:
            values = list(row)
            for i in positions:
                values[i] = None if values[i] is None else bool(values[i])  # a nullable flag stays NULL
            out.append(record(*values))
        return out

    def _fields_of(self, record: type, name: str, *, alias: str = "") -> str:
        return self._select(name, [_RENAMED.get(f, f) for f in _fields(record)], alias=alias)

    # ------------------------------------------------------------------ topics, grades, documents

    def topics(self) -> list[CampaignTopic]:
        rows = self._rows(f"SELECT {self._fields_of(CampaignTopic, 'topics')} FROM topics ORDER BY ord")
        return self._read(CampaignTopic, "topics", rows)

    def topic(self, query_id: str) -> CampaignTopic:
        m = self.dialect.mark
        rows = self._rows(
            f"SELECT {self._fields_of(CampaignTopic, 'topics')} FROM topics WHERE query_id = {m}", (query_id,)
        )
        if not rows:
            raise StoreError(f"{self.location}: no topic {query_id!r} in this campaign")
        return self._read(CampaignTopic, "topics", rows)[0]

    def grades(self) -> dict[int, str]:
        return dict(self._rows("SELECT grade, definition FROM grades ORDER BY grade"))

    def assessors(self) -> list[str]:
        rows = self._rows(
            "SELECT assessor FROM assignments UNION "
            "SELECT assessor FROM judgment_log WHERE action IN ('judge','skip','unrateable')"
        )
        return sorted(r[0] for r in rows)  # code-point order, whatever the server's collation

    def assignees(self) -> list[str]:
        return sorted(r[0] for r in self._rows("SELECT DISTINCT assessor FROM assignments"))

    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def document(self, doc_id: str) -> Document:
        rows = self._rows(
            f"SELECT {self._fields_of(Document, 'snapshots')} FROM snapshots WHERE doc_id = {self.dialect.mark} "
            "ORDER BY id DESC LIMIT 1",
            (doc_id,),
        )
        if not rows:
            raise StoreError(f"{self.location}: no snapshot of document {doc_id!r} in this campaign")
        return self._read(Document, "snapshots", rows)[0]

    def has_document(self, doc_id: str) -> bool:
        m = self.dialect.mark
        return bool(self._rows(f"SELECT 1 FROM snapshots WHERE doc_id = {m} LIMIT 1", (doc_id,)))

    def latest_hashes(self) -> dict[str, str | None]:
        return dict(self._rows("SELECT doc_id, content_hash FROM snapshots ORDER BY id"))

    def latest_versions(self) -> dict[str, str | None]:
        if "version" not in (self._columns_of("snapshots") or ()):
            return {}
        return dict(self._rows("SELECT doc_id, version FROM snapshots ORDER BY id"))

    def _known(self) -> str:
        """The condition "the document may be judged for the topic" (parameters: q, d, q, d, d)."""
        m = self.dialect.mark
        return (
            f"EXISTS (SELECT 1 FROM pool_items WHERE query_id = {m} AND doc_id = {m}) "
            f"OR EXISTS (SELECT 1 FROM gold WHERE query_id = {m} AND doc_id = {m}) "
            f"OR EXISTS (SELECT 1 FROM snapshots WHERE doc_id = {m})"
        )

    def knows_document(self, query_id: str, doc_id: str) -> bool:
        rows = self._rows(f"SELECT {self._known()}", (query_id, doc_id, query_id, doc_id, doc_id))
        return bool(rows[0][0])

    def _event_facts(self, query_id: str, doc_id: str) -> EventFacts:
        """Scale, topic and whether the document is known, in one query (one row per grade)."""
        rows = self._rows(
            f"SELECT g.grade, g.definition, {self._known()}, "
            f"{self._fields_of(CampaignTopic, 'topics', alias='t')} "
            f"FROM (SELECT 1 AS one) AS one LEFT JOIN topics t ON t.query_id = {self.dialect.mark} "
            "LEFT JOIN grades g ON 1 = 1",
            (query_id, doc_id, query_id, doc_id, doc_id, query_id),
        )
        first = rows[0]
        topic = self._read(CampaignTopic, "topics", [first[3:]])[0] if first[3] is not None else None
        grades = {r[0]: r[1] for r in rows if r[0] is not None}
        return EventFacts(grades=grades, topic=topic, known=bool(first[2]))

    # ------------------------------------------------------------------ queues, pool, gold, rounds

    def queue(self, assessor: str) -> list[Item]:
        fields = [f for f in _fields(Item) if f != "stale"]  # stale is the pool's
        rows = self._rows(
            f"SELECT {self._select('assignments', fields, alias='a')}, COALESCE(p.stale, {self.dialect.flags[0]}) "
            "FROM assignments a LEFT JOIN pool_items p ON p.query_id = a.query_id AND p.doc_id = a.doc_id "
            f"WHERE a.assessor = {self.dialect.mark} ORDER BY a.position",
            (assessor,),
        )
        return self._read(Item, "assignments", rows, flags=("stale",))

    def gold(self) -> dict[tuple[str, str], int]:
        return {(q, d): g for q, d, g in self._rows("SELECT query_id, doc_id, grade FROM gold")}

    def pool_items(self) -> list[PoolItem]:
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        rows = self._rows(f"SELECT {self._fields_of(PoolItem, 'pool_items')} FROM pool_items")
        items = self._read(PoolItem, "pool_items", rows)
        return sorted(items, key=lambda p: (order.get(p.query_id, len(order)), p.query_id, p.doc_id))

    def provenance(self, query_id: str | None = None) -> list[Provenance]:
        where, params = (
            (f"WHERE query_id = {self.dialect.mark}", (query_id,)) if query_id is not None else ("", ())
        )
        rows = self._rows(
            f"SELECT {self._fields_of(Provenance, 'provenance')} FROM provenance {where}", params
        )
        found = self._read(Provenance, "provenance", rows)
        return sorted(found, key=lambda p: (p.round, p.query_id, p.rank, p.run, p.doc_id))

    def order_steps(self, round: int | None = None) -> list[OrderStep]:
        if self._columns_of("order_steps") is None:
            return []
        where, params = (f"WHERE round = {self.dialect.mark}", (round,)) if round is not None else ("", ())
        rows = self._rows(
            f"SELECT {self._fields_of(OrderStep, 'order_steps')} FROM order_steps {where} "
            "ORDER BY round, query_id, step",
            params,
        )
        return self._read(OrderStep, "order_steps", rows)

    def inclusion(self, round: int | None = None) -> list[Inclusion]:
        if self._columns_of("inclusion") is None:
            return []
        where, params = (f"WHERE round = {self.dialect.mark}", (round,)) if round is not None else ("", ())
        rows = self._rows(
            f"SELECT {self._fields_of(Inclusion, 'inclusion')} FROM inclusion {where} "
            "ORDER BY round, query_id, doc_id",
            params,
        )
        return self._read(Inclusion, "inclusion", rows)

    def rounds(self) -> list[RoundInfo]:
        rows = self._rows(f"SELECT {self._fields_of(RoundInfo, 'rounds')} FROM rounds ORDER BY round")
        runs = _fields(RoundInfo).index("runs")  # JSON; NULL where the reader may not see runs (an assessor)
        return self._read(
            RoundInfo,
            "rounds",
            [(*r[:runs], tuple(json.loads(r[runs] or "[]")), *r[runs + 1 :]) for r in rows],
        )

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
                clauses.append(f"{column} = {self.dialect.mark}")
                params.append(value)
        if actions is not None:
            clause, values = self.dialect.one_of("action", actions)
            clauses.append(clause)
            params.extend(values)
        where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
        rows = self._rows(
            f"SELECT {self._fields_of(LogEvent, 'judgment_log')} FROM judgment_log {where}ORDER BY id", params
        )
        return self._read(LogEvent, "judgment_log", rows)

    def judged_topics(self) -> set[str]:
        rows = self._rows(
            "SELECT DISTINCT query_id FROM judgment_log WHERE action IN ('judge', 'unrateable', 'adjudicate')"
        )
        return {r[0] for r in rows}

    def _event_insert(self, *, first: Sequence[str] = ()) -> tuple[str, str, list[str]]:
        """The log's INSERT as (columns, values, event fields in parameter order): every column but the id,
        the content hash taken from the document's latest snapshot, ``first`` (a backend's own) in front."""
        m = self.dialect.mark
        written = [c.name for c in table("judgment_log").dumped if c.name not in ("id",)]
        values = [
            f"(SELECT content_hash FROM snapshots WHERE doc_id = {m} ORDER BY id DESC LIMIT 1)"
            if c == "content_hash"
            else m
            for c in written
        ]
        params = ["doc_id" if c == "content_hash" else c for c in written]
        columns = ", ".join([*first, *written])
        return columns, ", ".join([*([m] * len(first)), *values]), params

    # ------------------------------------------------------------------ organiser writes

    def _write_topics(self, topics: Sequence[CampaignTopic], grades: Mapping[int, str]) -> None:
        with self.transaction() as tx:
            tx.execute("DELETE FROM grades", ())
            tx.executemany(insert(self.dialect, "grades", ("grade", "definition")), sorted(grades.items()))
            row = tx.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM topics", ()).fetchone()
            start = int(row[0]) if row else 0
            fields = _fields(CampaignTopic)
            tx.executemany(
                insert(self.dialect, "topics", (*fields, "ord"), upsert=True, keep=("ord",)),
                [(*(getattr(t, f) for f in fields), start + i) for i, t in enumerate(topics)],
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
        steps: Sequence[OrderStep] = (),
        inclusion: Sequence[Inclusion] = (),
    ) -> int:
        with self.transaction() as tx:
            row = tx.execute("SELECT COALESCE(MAX(round), 0) + 1 FROM rounds", ()).fetchone()
            number = int(row[0]) if row else 1
            now = now_iso()
            info = {
                "round": number,
                "created": now,
                "strategy": strategy,
                "depth": depth,
                "budget": budget,
                "runs": json.dumps(list(runs)),
                "added": len(queued) - len(stale),
                "stale": len(stale),
                "skipped": skipped,
                "params": json.dumps(dict(params or {}), sort_keys=True),
            }
            tx.execute(insert(self.dialect, "rounds", tuple(info)), tuple(info.values()))
            tx.executemany(
                insert(self.dialect, "provenance", ("round", "query_id", "doc_id", "run", "rank")),
                [
                    (number, q, d, run, rank)
                    for (q, d), entries in provenance.items()
                    for run, rank in entries
                ],
            )
            stale_set = set(stale)
            tx.executemany(
                insert(self.dialect, "pool_items", ("query_id", "doc_id", "round", "stale"), upsert=True),
                [(q, d, number, (q, d) in stale_set) for q, d in queued],
            )
            step_columns = _fields(OrderStep)
            tx.executemany(
                insert(self.dialect, "order_steps", step_columns),
                [(number, *dataclasses.astuple(st)[1:]) for st in steps],
            )
            tx.executemany(
                insert(self.dialect, "inclusion", _fields(Inclusion)),
                [(number, *dataclasses.astuple(i)[1:]) for i in inclusion],
            )
            self._write_snapshots(tx, number, now, snapshots)
            return number

    def _write_snapshots(self, tx: Writer, number: int, fetched: str, snapshots: Iterable[Document]) -> None:
        fields = _fields(Document)
        tx.executemany(
            insert(self.dialect, "snapshots", (*fields, "round", "fetched")),
            [(*(getattr(s, f) for f in fields), number, fetched) for s in snapshots],
        )

    def add_assignments(
        self, items: Iterable[Item], *, gold: Mapping[tuple[str, str], int] | None = None
    ) -> int:
        with self.transaction() as tx:
            if gold:
                tx.executemany(
                    insert(self.dialect, "gold", ("query_id", "doc_id", "grade"), upsert=True),
                    [(q, d, g) for (q, d), g in gold.items()],
                )
            row = tx.execute("SELECT COALESCE(MAX(round), 1) FROM rounds", ()).fetchone()
            number = int(row[0]) if row else 1
            fields = [f for f in _fields(Item) if f != "stale"]
            rows = [(check_assessor(i.assessor), *(getattr(i, f) for f in fields[1:]), number) for i in items]
            tx.executemany(insert(self.dialect, "assignments", (*fields, "round")), rows)
            return len(rows)

    def add_snapshots(self, snapshots: Iterable[Document]) -> None:
        with self.transaction() as tx:
            row = tx.execute("SELECT COALESCE(MAX(round), 0) FROM rounds", ()).fetchone()
            self._write_snapshots(tx, int(row[0]) if row else 0, now_iso(), snapshots)

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.transaction() as tx:
            tx.executemany(insert(self.dialect, "meta", ("key", "value"), upsert=True), list(values.items()))

    def set_login(self, login: str, assessor: str, *, adjudicator: bool = False) -> None:
        check_assessor(assessor)
        if not login or login != login.strip() or any(not c.isprintable() for c in login):
            raise StoreError(f"login {login!r}: give the database login's name as it is")
        with self.transaction() as tx:
            tx.execute(
                insert(self.dialect, "logins", ("login", "assessor", "adjudicator"), upsert=True),
                (login, assessor, adjudicator),
            )

    # ------------------------------------------------------------------ the whole campaign

    @abstractmethod
    def _consistent(self, read: Callable[[Callable[[str], Rows]], R]) -> R:
        """Run ``read(query)`` over one consistent snapshot of the campaign (the backend's read transaction)."""

    def _load(self, tx: Writer, t: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        """Write dumped rows into an empty table (ids as given)."""
        tx.executemany(insert(self.dialect, t.name, columns), rows)

    def _loaded(self, tx: Writer) -> None:
        """After a restore: what the backend must update besides the rows (PostgreSQL's id sequences)."""

    def dump(self) -> CampaignDump:
        def read(query: Callable[[str], Rows]) -> dict[str, Rows]:
            return {
                t.name: query(f"SELECT {self._select(t.name, t.names())} FROM {t.name}")
                if self._columns_of(t.name) is not None
                else []
                for t in DUMPED
            }

        return canonical_dump(self._consistent(read))

    def restore(self, dump: CampaignDump) -> None:
        with self.transaction() as tx:
            for t in DUMPED:
                if tx.execute(f"SELECT 1 FROM {t.name} LIMIT 1", ()).fetchone():
                    raise StoreError(f"{self.location}: is not empty ({t.name}); copy into a new campaign")
            for t in DUMPED:
                if dump.tables[t.name]:
                    self._load(tx, t, t.names(), dump.tables[t.name])
            self._loaded(tx)
            if self.dump().content_hash() != dump.content_hash():
                raise StoreError(
                    f"{self.location}: the copy does not read back identical; nothing was written"
                )


def _is_flag(t: Table, name: str) -> bool:
    try:
        return t.column(name).type == FLAG
    except KeyError:
        return False
