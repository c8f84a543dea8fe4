"""The SQLite campaign store: one file per judging campaign, its connection, transactions and locking.

Why SQLite with these settings: WAL lets assessors read while another writes; ``synchronous=FULL`` makes a
committed judgment survive a power cut, not just a killed process; ``busy_timeout`` lets several
processes (several assessors' TUIs, an import) write into one file at once by waiting their turn. Every
write is one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction that has committed before the method returns, so
the UI may move on as soon as ``record`` returns (docs/design.md §5 "Nothing is lost").

The judgment log is append-only: triggers refuse UPDATE and DELETE on it (``schema``), ``undo`` appends an
event that cancels an earlier one, and the current judgment is derived from the log by the rules in
``toolkit.judging.store.CampaignStore``. The reads and writes are the ones both SQL backends share
(``toolkit.judging.sql.store``); what is SQLite's own is here: the file, the connection, ``BEGIN IMMEDIATE``.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from toolkit.errors import StoreError
from toolkit.judging.sql.dialect import SQLITE
from toolkit.judging.sql.store import Nesting, SQLStore
from toolkit.judging.sqlite import files
from toolkit.judging.sqlite.schema import prepare
from toolkit.judging.store import CampaignExistsError, MissingCampaignError

T = TypeVar("T")

#: How often a read on an ``immutable`` connection is made again when the file moved under it.
_REREADS = 5


class SQLiteStore(SQLStore):
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
        self._nesting = Nesting()  # nesting level of transaction()
        # A read-only campaign of an older schema cannot be migrated: what it lacks reads as NULL or empty.
        tables: dict[str, set[str]] = {}
        for name, column in conn.execute(
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'"
        ):
            tables.setdefault(name, set()).add(column)
        self._tables = tables

    dialect = SQLITE

    def _columns_of(self, name: str) -> Collection[str] | None:
        return self._tables.get(name)

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
            conn, immutable = (
                files.connect_read_only(path, reason) if reason else (files.connect(path), False)
            )
            closed = connected()
        try:
            try:
                prepare(conn, shown or path, read_only=reason, new=new)
            except files.DiskFullError:
                if reason is not None or new:
                    raise
                # A full disk: reads need no space when nothing is created beside the file.
                conn.close()
                reason = files.DISK_FULL
                conn, immutable = files.connect_read_only(path, reason)
                prepare(conn, shown or path, read_only=reason)
        except BaseException:
            conn.close()
            closed()
            raise
        store = cls(conn, path, read_only=reason, shown=shown)
        store._file, store._pinned = path, files.file_state(path) if immutable else None
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
        with self._nesting.joined(self._lock, self._conn, self._outermost) as conn:
            yield conn

    @contextmanager
    def _outermost(self) -> Iterator[sqlite3.Connection]:
        if self._read_only_reason is not None:
            raise files.read_only_error(self.path, self._read_only_reason)
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise files.sqlite_error(self.path, exc, "start a write") from None
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

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._reading(lambda conn: conn.execute(sql, params).fetchall())

    #: The file's state when an ``immutable`` connection opened it (None for every other connection).
    _pinned: tuple[int, int, int] | None = None
    _file: Path

    def _moved(self) -> bool:
        """An ``immutable`` connection may no longer see what the file holds: it was written, or commits
        wait in a ``-wal`` (a writer opened the campaign since)."""
        if self._pinned is None:
            return False
        return files.file_state(self._file) != self._pinned or files.wal_has_frames(self._file)

    def _reading(self, run: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read; on an ``immutable`` connection, again on a fresh one when the file moved meanwhile
        (the read may have seen half a checkpoint)."""
        with self._lock:
            for _ in range(_REREADS):
                try:
                    result = run(self._conn)
                except sqlite3.Error as exc:
                    if not self._moved():
                        raise files.sqlite_error(self.path, exc, "read the campaign") from None
                else:
                    if not self._moved():
                        return result
                self._conn.close()
                self._conn, immutable = files.connect_read_only(self._file, self._read_only_reason or "")
                self._pinned = files.file_state(self._file) if immutable else None
            raise StoreError(
                f"{self.path}: the campaign kept changing while this process read it without write access; "
                "try again"
            )

    # ------------------------------------------------------------------ what differs: one event, one snapshot

    def _insert_event(self, event: Mapping[str, Any]) -> int:
        columns, values, params = self._event_insert()
        with self.transaction() as conn:  # joins the caller's transaction
            cursor = conn.execute(
                f"INSERT INTO judgment_log ({columns}) VALUES ({values})", [event[p] for p in params]
            )
            return int(cursor.lastrowid or 0)

    def _consistent(self, read: Callable[[Callable[[str], list[tuple[Any, ...]]]], T]) -> T:
        """One read transaction (``BEGIN`` … ``COMMIT``): one WAL snapshot, while assessors keep judging."""

        def run(conn: sqlite3.Connection) -> T:
            own = not conn.in_transaction
            try:
                if own:
                    conn.execute("BEGIN")
                return read(lambda query: conn.execute(query).fetchall())
            finally:
                if own and conn.in_transaction:
                    conn.execute("COMMIT")

        return self._reading(run)
