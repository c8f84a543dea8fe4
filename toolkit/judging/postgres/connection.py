"""One campaign connection that survives a dropped connection: transactions, reads and exactly-once writes.

A server connection can drop (the server restarts, an administrator terminates the backend, the network
blips). ``Link`` reconnects by itself and runs the interrupted call again:

- a **read** outside a transaction is simply run again;
- a **write** is run again as a whole, **exactly once**: every event it appends carries a client-generated key
  (``event_key``, unique in the log), the same key on every attempt. After a drop the outcome may be unknown
  (the connection died during COMMIT), so before writing again ``Link`` asks whether the keys are in the log;
  if they are, the first attempt committed and its result is rebuilt from the stored events. Should a retry
  still meet its own earlier insert (a commit that landed late), the unique constraint refuses it and the
  write counts as done.

Calls keep trying for ``retry_seconds``. A write that gives up then remembers its keys under its arguments,
so the same call made again later cannot log the decision twice either.
"""

from __future__ import annotations

import threading
import time as clock
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pgerrors

from toolkit.errors import StoreError
from toolkit.judging.postgres import schema
from toolkit.judging.postgres.schema import ConnectionLost
from toolkit.judging.postgres.url import CampaignURL
from toolkit.judging.sql.store import Nesting

T = TypeVar("T")

#: How long a call keeps reconnecting before it gives up (a server restart, a network blip).
RETRY_SECONDS = 60.0
#: The server chose this transaction as a deadlock or serialization victim: run it again.
_AGAIN_STATES = ("40001", "40P01")


class _Operation:
    """The event keys of one logical write, handed out in the same order on every attempt at it.

    ``single``: the operation appends one event and writes nothing else, so that INSERT may commit alone.
    """

    def __init__(self, keys: list[uuid.UUID], *, single: bool) -> None:
        self.keys = keys
        self.index = 0
        self.single = single
        self.written = False

    def next_key(self) -> uuid.UUID:
        if self.index == len(self.keys):
            self.keys.append(uuid.uuid4())
        key = self.keys[self.index]
        self.index += 1
        return key


class Transaction:
    """What ``Link.transaction()`` yields: ``execute`` and ``cursor`` of the connection, after ``BEGIN``."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def execute(self, query: Any, params: Sequence[Any] | None = None) -> psycopg.Cursor[Any]:
        self._link.begin()
        return self._link.conn.execute(query, params)

    def executemany(self, query: Any, rows: Iterable[Sequence[Any]]) -> None:
        self._link.begin()
        with self._link.conn.cursor() as cursor:
            cursor.executemany(query, rows)

    def cursor(self) -> psycopg.Cursor[Any]:
        self._link.begin()
        return self._link.conn.cursor()


class Link:
    """The store's connection: shared by the threads of one process under a lock, reconnected on a drop."""

    def __init__(self, conn: psycopg.Connection[Any], url: CampaignURL) -> None:
        self.conn = conn
        self.url = url
        self.location = url.url
        self.campaign = url.campaign or ""
        self.retry_seconds = RETRY_SECONDS
        self.lock = threading.RLock()
        self._nesting = Nesting()  # nesting level of transaction()
        self.begun = False  # BEGIN sent in the current transaction
        self._tx = Transaction(self)
        #: The campaign's advisory write lock (``begin``); a lone event INSERT takes it shared in-statement.
        self.write_key = schema.lock_key(self.campaign)
        self._local = threading.local()
        #: Writes that gave up with an unknown outcome: (method, arguments) → their event keys.
        self._unresolved: dict[tuple[Any, ...], list[uuid.UUID]] = {}

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """One durable write, rolled back whole on any error; nested uses join the outermost one.

        ``BEGIN`` is sent with the first write, not on entry: under READ COMMITTED a read sees the same
        committed rows inside a transaction or out, and the round trip saved is paid by every judgment.
        A write that is one event and nothing else (``write_event`` of a ``single`` operation) needs no
        ``BEGIN`` … ``COMMIT`` at all: one INSERT is its own transaction, durable when it returns.
        """
        with self._nesting.joined(self.lock, self._tx, self._outermost) as tx:
            yield tx

    @property
    def depth(self) -> int:
        return self._nesting.depth

    @contextmanager
    def _outermost(self) -> Iterator[Transaction]:
        self.begun = False
        try:
            yield self._tx
            if self.begun:
                self.conn.execute("COMMIT")
        except psycopg.Error as exc:
            self._rollback()
            raise self.failure(exc, "write failed and was rolled back") from exc
        except BaseException:
            self._rollback()
            raise
        finally:
            self.begun = False

    def begin(self) -> None:
        """Start the transaction before its first write, with the campaign's write lock (see ``transaction``).

        Organiser writes hold the lock alone, as SQLite's ``BEGIN IMMEDIATE`` does: what they read inside the
        transaction is what they write on. Judgments share it, so assessors never wait for each other, only
        for an organiser's round. One round trip: both statements go as one simple query.
        """
        if self.depth and not self.begun:
            op: _Operation | None = getattr(self._local, "op", None)
            mode = "pg_advisory_xact_lock_shared" if op is not None else "pg_advisory_xact_lock"
            self.conn.execute(f"BEGIN; SELECT {mode}({self.write_key})")  # type: ignore[arg-type]
            self.begun = True

    def _rollback(self) -> None:
        if self.begun and not self.conn.closed:
            with suppress(psycopg.Error):
                self.conn.execute("ROLLBACK")

    def write_event(self, query: str, lone_query: str, params: Sequence[Any]) -> tuple[Any, ...] | None:
        """Append one event: alone in its own implicit transaction when the operation is that one event
        (``lone_query``, which takes the shared write lock itself, given ``params`` plus the lock key), else
        inside the caller's transaction (``query``)."""
        op: _Operation | None = getattr(self._local, "op", None)
        alone = op is not None and op.single and not self.begun and not op.written
        if alone:
            row = self.conn.execute(lone_query, (*params, self.write_key)).fetchone()  # type: ignore[arg-type]
        else:
            self.begin()
            row = self.conn.execute(query, params).fetchone()  # type: ignore[arg-type]
        if op is not None:
            op.written = True
        return row

    def failure(self, exc: psycopg.Error, doing: str) -> StoreError:
        """The one-line error for a driver error; ``ConnectionLost`` when running again may succeed."""
        message = (exc.diag.message_primary if exc.diag else None) or schema.first_line(exc)
        state = exc.sqlstate or ""
        if schema.is_lost(exc, self.conn):
            return ConnectionLost(f"{self.location}: connection lost ({message})")
        if state in _AGAIN_STATES:
            return ConnectionLost(f"{self.location}: {message}")
        if state == "55P03":  # lock_timeout: an organiser's transaction held the campaign too long
            from toolkit.judging.store import BusyError

            return BusyError(
                f"{self.location}: the campaign is busy (another write held it for {schema.LOCK_TIMEOUT_S} s); "
                "nothing was written, try again"
            )
        if isinstance(exc, pgerrors.InsufficientPrivilege) and "row-level security" in message:
            return StoreError(
                f"{self.location}: the server refused the event ({message}): a login records only as the "
                "assessor it is, only grades of the campaign's scale, only on items assigned to it, and "
                "adjudicates only when an organiser made it an adjudicator (`trec-toolkit campaign member`)"
            )
        if isinstance(exc, pgerrors.InsufficientPrivilege):
            return StoreError(f"{self.location}: permission denied ({message}); {schema.setup_advice()}")
        return StoreError(f"{self.location}: {doing} ({message})")

    def reconnect(self) -> None:
        with suppress(psycopg.Error):
            self.conn.close()
        conn = schema.connect(self.url)  # StoreError while the server is away
        try:
            schema.use_campaign(conn, self.campaign)
        except psycopg.Error as exc:
            conn.close()
            raise ConnectionLost(f"{self.location}: connection lost ({schema.first_line(exc)})") from None
        self.conn = conn

    def _again(self, deadline: float, delay: float, cause: StoreError) -> float:
        """Wait, and reconnect if the connection is gone; raise once ``deadline`` has passed."""
        while True:
            if clock.monotonic() > deadline:
                raise StoreError(f"{cause}; gave up after {self.retry_seconds:g} s of retries") from None
            clock.sleep(delay)
            delay = min(delay * 2, 1.0)
            if not self.conn.closed:
                return delay
            try:
                self.reconnect()
                return delay
            except StoreError:
                continue

    def read(self, run: Callable[[psycopg.Connection[Any]], T]) -> T:
        """A read: inside a transaction it belongs to that transaction; outside, it runs again after a drop."""
        with self.lock:
            if self.depth:
                try:
                    return run(self.conn)
                except psycopg.Error as exc:
                    raise self.failure(exc, "cannot read the campaign") from exc
            deadline, delay = clock.monotonic() + self.retry_seconds, 0.05
            while True:
                try:
                    return run(self.conn)
                except psycopg.Error as exc:
                    failure = self.failure(exc, "cannot read the campaign")
                if not isinstance(failure, ConnectionLost):
                    raise failure
                delay = self._again(deadline, delay, failure)

    def rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.read(lambda conn: conn.execute(query, params).fetchall())  # type: ignore[arg-type]

    def idempotent(
        self,
        signature: tuple[Any, ...],
        op: Callable[[], T],
        done: Callable[[list[int]], T],
        *,
        single: bool = False,
    ) -> T:
        """Run the write ``op`` until it is known to have committed exactly once.

        ``done(ids)`` rebuilds its result from the event ids when an attempt that seemed lost had committed.
        """
        with self.lock:
            if self.depth:  # inside the caller's transaction: the caller's retry, if any, decides
                return op()
            state = _Operation(self._unresolved.pop(signature, []), single=single)
            self._local.op = state
            deadline, delay = clock.monotonic() + self.retry_seconds, 0.05
            try:
                if state.keys and (ids := self.committed(state.keys)):
                    return done(ids)
                while True:
                    state.index, state.written = 0, False
                    try:
                        return op()
                    except ConnectionLost as lost:
                        failure: StoreError = lost
                    except StoreError as exc:
                        cause = exc.__cause__
                        if not (
                            isinstance(cause, pgerrors.UniqueViolation)
                            and cause.diag.constraint_name == "judgment_log_event_key_key"
                            and state.keys
                        ):
                            raise
                        failure = exc  # a retry met its own earlier insert, committed meanwhile
                    try:
                        delay = self._again(deadline, delay, failure)
                        if state.keys and (ids := self.committed(state.keys)):
                            return done(ids)
                    except StoreError:
                        if state.keys:
                            self._unresolved[signature] = state.keys
                        raise
            finally:
                self._local.op = None

    def committed(self, keys: list[uuid.UUID]) -> list[int]:
        """The event ids of ``keys`` if their transaction committed (all of them, or none)."""
        found = dict(self.rows("SELECT event_key, id FROM judgment_log WHERE event_key = ANY(%s)", (keys,)))
        return [int(found[k]) for k in keys] if keys[0] in found else []

    def event_key(self) -> uuid.UUID:
        """The key of the next event this thread appends (the same on a retry of the same write)."""
        op: _Operation | None = getattr(self._local, "op", None)
        return op.next_key() if op is not None else uuid.uuid4()
