"""The SQLite campaign store: one file per judging campaign, and every SQL statement that reads or writes it.

Why SQLite with these settings: WAL lets assessors read while another writes; ``synchronous=FULL`` makes a
committed judgment survive a power cut, not just a killed process; ``busy_timeout`` lets several
processes (several assessors' TUIs, an import) write into one file at once by waiting their turn. Every
write is one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction that has committed before the method returns, so
the UI may move on as soon as ``record`` returns (docs/design.md §5 "Nothing is lost").

The judgment log is append-only: triggers refuse UPDATE and DELETE on it (``schema``), ``undo`` appends an
event that cancels an earlier one, and the current judgment is derived from the log by the rules in
``toolkit.judging.store.CampaignStore``, which this class implements.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from toolkit.errors import StoreError
from toolkit.judging.dump import CampaignDump
from toolkit.judging.records import (
    CampaignTopic,
    Document,
    Item,
    LogEvent,
    PoolItem,
    Provenance,
    RoundInfo,
    check_assessor,
    now_iso,
)
from toolkit.judging.sqlite import files
from toolkit.judging.sqlite.schema import prepare
from toolkit.judging.store import CampaignExistsError, CampaignStore, MissingCampaignError

_LOG_COLUMNS = (
    "id, time, assessor, query_id, doc_id, action, grade, note, duration_ms, position, content_hash, undoes"
)
_SNAPSHOT_INSERT = (
    "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetch_error, fetched, format, version) "
    "VALUES (?,?,?,?,?,?,?,?,?)"
)


class SQLiteStore(CampaignStore):
    """A judging campaign in one SQLite file. Use ``CampaignStore.open(path)``; close it (or use ``with``).

    One connection, shared by the threads of one process under a lock (the TUI records from workers).
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: Path,
        *,
        read_only: str | None = None,
        shown: Path | None = None,
    ) -> None:
        self._conn = conn
        self.path = shown or path  # what messages name: the campaign, not the temporary file it is built in
        self.location = str(self.path)
        self.read_only = read_only is not None
        self._read_only_reason = read_only
        self._lock = threading.RLock()
        self._depth = 0  # nesting level of transaction()
        # A read-only campaign of schema < 3 cannot be migrated: its snapshots have no format or version.
        columns = {row[1] for row in conn.execute("PRAGMA table_info(snapshots)")}
        self._source = "format, version" if {"format", "version"} <= columns else "NULL, NULL"

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(cls, location: str | Path, *, create: bool = False) -> SQLiteStore:
        """Open a campaign file; ``create=True`` makes a new empty one (atomically) when none exists.

        A missing file without ``create`` raises ``MissingCampaignError`` with the command that makes one; a
        file that is not a campaign, or comes from a newer schema, is refused before anything is written to
        it. Older schemas are migrated in place. A campaign this process may not write opens read-only.
        """
        p = Path(location)
        if p.is_dir():
            raise StoreError(f"{p}: is a directory; pass the campaign's .sqlite file")
        if not p.exists():
            if not create:
                raise MissingCampaignError(
                    f"{p}: no such campaign; create one with `trec-toolkit pool RUN… -o {p}`"
                )
            try:
                with cls.create(p):
                    pass
            except CampaignExistsError:
                pass  # another process created it at the same moment: open theirs
        return cls._open_file(p)

    @classmethod
    def _open_file(cls, path: Path, *, shown: Path | None = None, new: bool = False) -> SQLiteStore:
        with files.opening(path, check=not new) as connected:
            reason = files.read_only_reason(path)
            conn = files.connect_read_only(path, reason) if reason else files.connect(path)
            closed = connected()
        try:
            prepare(conn, shown or path, read_only=reason, new=new)
        except BaseException:
            conn.close()
            closed()
            raise
        store = cls(conn, path, read_only=reason, shown=shown)
        store._closed = closed
        return store

    @classmethod
    @contextmanager
    def create(cls, location: str | Path) -> Iterator[SQLiteStore]:
        """Build a new campaign in a temporary file beside ``location``; publish it there when the block ends.

        The store is closed (and its WAL checkpointed into the file) before it is linked into place, so the
        campaign appears complete or not at all; on any error only the temporary file is removed.
        """
        p = Path(location)
        if p.exists():
            raise CampaignExistsError(f"{p}: already exists")
        with files.building(p) as temp:
            store = cls._open_file(temp, shown=p, new=True)
            try:
                yield store
                store._checkpoint()
            finally:
                store.close()
            files.publish(temp, p)

    def _checkpoint(self) -> None:
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            except sqlite3.Error as exc:
                raise files.sqlite_error(self.path, exc, "finish the new campaign") from None

    #: Tells ``files.opening`` that this connection is gone (set by ``_open_file``).
    _closed: Callable[[], None] = staticmethod(lambda: None)

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._closed()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One durable write: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back whole on any error.

        Nested uses join the outermost transaction, so several writes can be made atomic together.
        ``BEGIN IMMEDIATE`` takes the write lock before the first read, so what is read inside is what the
        write applies to: no other process commits in between (conditional writes, whole pool rounds).
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            if self._read_only_reason is not None:
                raise files.read_only_error(self.path, self._read_only_reason)
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise files.sqlite_error(self.path, exc, "start a write") from None
            self._depth = 1
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                error = files.sqlite_error(self.path, exc, "write")
                if type(error) is StoreError:  # not busy, not read-only: say what was lost
                    error = StoreError(f"{self.path}: write failed and was rolled back ({exc})")
                raise error from None
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise files.sqlite_error(self.path, exc, "read the campaign") from None

    # ------------------------------------------------------------------ topics, grades, documents

    def topics(self) -> list[CampaignTopic]:
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics ORDER BY ord"
        )
        return [CampaignTopic(*row) for row in rows]

    def topic(self, query_id: str) -> CampaignTopic:
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics WHERE query_id = ?",
            (query_id,),
        )
        if not rows:
            raise StoreError(f"{self.path}: no topic {query_id!r} in this campaign")
        return CampaignTopic(*rows[0])

    def grades(self) -> dict[int, str]:
        return dict(self._rows("SELECT grade, definition FROM grades ORDER BY grade"))

    def assessors(self) -> list[str]:
        rows = self._rows(
            "SELECT assessor FROM assignments UNION "
            "SELECT assessor FROM judgment_log WHERE action IN ('judge','skip','unrateable') ORDER BY 1"
        )
        return [r[0] for r in rows]

    def assignees(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT assessor FROM assignments ORDER BY assessor")]

    def meta(self) -> dict[str, str]:
        return dict(self._rows("SELECT key, value FROM meta"))

    def document(self, doc_id: str) -> Document:
        rows = self._rows(
            f"SELECT doc_id, title, text, content_hash, fetch_error, {self._source} FROM snapshots "
            "WHERE doc_id = ? ORDER BY id DESC LIMIT 1",
            (doc_id,),
        )
        if not rows:
            raise StoreError(f"{self.path}: no snapshot of document {doc_id!r} in this campaign")
        return Document(*rows[0])

    def has_document(self, doc_id: str) -> bool:
        return bool(self._rows("SELECT 1 FROM snapshots WHERE doc_id = ? LIMIT 1", (doc_id,)))

    def latest_hashes(self) -> dict[str, str | None]:
        rows = self._rows("SELECT doc_id, content_hash FROM snapshots ORDER BY id")
        return {doc: h for doc, h in rows}

    def latest_versions(self) -> dict[str, str | None]:
        if self._source.startswith("NULL"):
            return {}
        rows = self._rows("SELECT doc_id, version FROM snapshots ORDER BY id")
        return {doc: v for doc, v in rows}

    def knows_document(self, query_id: str, doc_id: str) -> bool:
        rows = self._rows(
            "SELECT 1 FROM pool_items WHERE query_id = ? AND doc_id = ? UNION "
            "SELECT 1 FROM gold WHERE query_id = ? AND doc_id = ? UNION "
            "SELECT 1 FROM snapshots WHERE doc_id = ?",
            (query_id, doc_id, query_id, doc_id, doc_id),
        )
        return bool(rows)

    # ------------------------------------------------------------------ queues, pool, gold, rounds

    def queue(self, assessor: str) -> list[Item]:
        rows = self._rows(
            "SELECT a.assessor, a.query_id, a.doc_id, a.position, a.overlap, a.gold, COALESCE(p.stale, 0) "
            "FROM assignments a LEFT JOIN pool_items p ON p.query_id = a.query_id AND p.doc_id = a.doc_id "
            "WHERE a.assessor = ? ORDER BY a.position",
            (assessor,),
        )
        return [Item(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]), bool(r[6])) for r in rows]

    def gold(self) -> dict[tuple[str, str], int]:
        return {(q, d): g for q, d, g in self._rows("SELECT query_id, doc_id, grade FROM gold")}

    def pool_items(self) -> list[PoolItem]:
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        rows = self._rows("SELECT query_id, doc_id, round, stale FROM pool_items")
        items = [PoolItem(q, d, r, bool(s)) for q, d, r, s in rows]
        return sorted(items, key=lambda p: (order.get(p.query_id, len(order)), p.query_id, p.doc_id))

    def provenance(self, query_id: str | None = None) -> list[Provenance]:
        where, params = ("WHERE query_id = ?", (query_id,)) if query_id is not None else ("", ())
        rows = self._rows(
            f"SELECT round, query_id, doc_id, run, rank FROM provenance {where} "
            "ORDER BY round, query_id, rank, run, doc_id",
            params,
        )
        return [Provenance(*r) for r in rows]

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
                clauses.append(f"{column} = ?")
                params.append(value)
        if actions is not None:
            wanted = sorted(actions)
            clauses.append(f"action IN ({','.join('?' * len(wanted))})")
            params.extend(wanted)
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
        with self.transaction() as conn:  # joins the caller's transaction
            row = conn.execute(
                "SELECT content_hash FROM snapshots WHERE doc_id = ? ORDER BY id DESC LIMIT 1", (doc_id,)
            ).fetchone()
            cursor = conn.execute(
                "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade, note, duration_ms, "
                "position, content_hash, undoes) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    time,
                    assessor,
                    query_id,
                    doc_id,
                    action,
                    grade,
                    note,
                    duration_ms,
                    position,
                    row[0] if row else None,
                    undoes,
                ),
            )
            return int(cursor.lastrowid or 0)

    # ------------------------------------------------------------------ organiser writes

    def judged_topics(self) -> set[str]:
        rows = self._rows(
            "SELECT DISTINCT query_id FROM judgment_log WHERE action IN ('judge', 'unrateable', 'adjudicate')"
        )
        return {r[0] for r in rows}

    def _write_topics(self, topics: Sequence[CampaignTopic], grades: Mapping[int, str]) -> None:
        with self.transaction() as conn:
            conn.execute("DELETE FROM grades")
            conn.executemany("INSERT INTO grades (grade, definition) VALUES (?, ?)", sorted(grades.items()))
            start = conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM topics").fetchone()[0]
            conn.executemany(
                "INSERT INTO topics (query_id, ord, query, description, narrative, query_class) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(query_id) DO UPDATE SET query = excluded.query, "
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
                _SNAPSHOT_INSERT,
                [
                    (
                        s.doc_id,
                        number,
                        s.title,
                        s.text,
                        s.content_hash,
                        s.fetch_error,
                        now,
                        s.format,
                        s.version,
                    )
                    for s in snapshots
                ],
            )
            return int(number)

    def add_assignments(
        self, items: Iterable[Item], *, gold: Mapping[tuple[str, str], int] | None = None
    ) -> int:
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
        with self.transaction() as conn:
            number = conn.execute("SELECT COALESCE(MAX(round), 0) FROM rounds").fetchone()[0]
            conn.executemany(
                _SNAPSHOT_INSERT,
                [
                    (
                        s.doc_id,
                        number,
                        s.title,
                        s.text,
                        s.content_hash,
                        s.fetch_error,
                        now_iso(),
                        s.format,
                        s.version,
                    )
                    for s in snapshots
                ],
            )

    def set_meta(self, values: Mapping[str, str]) -> None:
        with self.transaction() as conn:
            conn.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", list(values.items()))

    # ------------------------------------------------------------------ the whole campaign (sqlite.dump)

    def dump(self) -> CampaignDump:
        from toolkit.judging.sqlite.dump import dump

        return dump(self)

    def restore(self, dump: CampaignDump) -> None:
        from toolkit.judging.sqlite.dump import restore

        restore(self, dump)
