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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import psycopg
from psycopg import errors as pgerrors

from toolkit.errors import StoreError
from toolkit.judging.postgres import schema
from toolkit.judging.postgres.url import CampaignURL

T = TypeVar("T")

#: How long a call keeps reconnecting before it gives up (a server restart, a network blip).
RETRY_SECONDS = 60.0
#: Connection lost (SQLSTATE class 08), the server shutting down or starting up (57P0x): reconnect.
_LOST_STATES = ("57P01", "57P02", "57P03")
#: The server chose this transaction as a deadlock or serialization victim: run it again.
_AGAIN_STATES = ("40001", "40P01")


class ConnectionLost(StoreError):
    """The connection dropped (or the transaction was chosen as a victim) in the middle of a call."""


class _Operation:
    """The event keys of one logical write, handed out in the same order on every attempt at it."""

    def __init__(self, keys: list[uuid.UUID]) -> None:
        self.keys = keys
        self.index = 0

    def next_key(self) -> uuid.UUID:
        if self.index == len(self.keys):
            self.keys.append(uuid.uuid4())
        key = self.keys[self.index]
        self.index += 1
        return key


class Link:
    """The store's connection: shared by the threads of one process under a lock, reconnected on a drop."""

    def __init__(self, conn: psycopg.Connection[Any], url: CampaignURL) -> None:
        self.conn = conn
        self.url = url
        self.location = url.url
        self.campaign = url.campaign or ""
        self.retry_seconds = RETRY_SECONDS
        self.lock = threading.RLock()
        self.depth = 0  # nesting level of transaction()
        self._local = threading.local()
        #: Writes that gave up with an unknown outcome: (method, arguments) → their event keys.
        self._unresolved: dict[tuple[Any, ...], list[uuid.UUID]] = {}

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[Any]]:
        """One durable write: ``BEGIN`` … ``COMMIT``, rolled back whole on any error; nested uses join it."""
        with self.lock:
            if self.depth:
                self.depth += 1
                try:
                    yield self.conn
                finally:
                    self.depth -= 1
                return
            self.depth = 1
            try:
                with self.conn.transaction():
                    yield self.conn
            except psycopg.Error as exc:
                raise self.failure(exc, "write failed and was rolled back") from exc
            finally:
                self.depth = 0

    def failure(self, exc: psycopg.Error, doing: str) -> StoreError:
        """The one-line error for a driver error; ``ConnectionLost`` when running again may succeed."""
        message = (exc.diag.message_primary if exc.diag else None) or schema.first_line(exc)
        state = exc.sqlstate or ""
        if (
            self.conn.closed
            or state.startswith("08")
            or state in _LOST_STATES
            or (state == "" and isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError))
        ):
            return ConnectionLost(f"{self.location}: connection lost ({message})")
        if state in _AGAIN_STATES:
            return ConnectionLost(f"{self.location}: {message}")
        if isinstance(exc, pgerrors.InsufficientPrivilege):
            return StoreError(
                f"{self.location}: permission denied ({message}); {schema.setup_advice(self.location)}"
            )
        return StoreError(f"{self.location}: {doing} ({message})")

    def reconnect(self) -> None:
        with suppress(psycopg.Error):
            self.conn.close()
        conn = schema.connect(self.url)  # StoreError while the server is away
        try:
            schema.use_campaign(conn, self.campaign)
        except psycopg.Error as exc:
            conn.close()
            raise ConnectionLost(f"{self.location}: connection lost ({exc})") from None
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
        self, signature: tuple[Any, ...], op: Callable[[], T], done: Callable[[list[int]], T]
    ) -> T:
        """Run the write ``op`` until it is known to have committed exactly once.

        ``done(ids)`` rebuilds its result from the event ids when an attempt that seemed lost had committed.
        """
        with self.lock:
            if self.depth:  # inside the caller's transaction: the caller's retry, if any, decides
                return op()
            state = _Operation(self._unresolved.pop(signature, []))
            self._local.op = state
            deadline, delay = clock.monotonic() + self.retry_seconds, 0.05
            try:
                if state.keys and (ids := self.committed(state.keys)):
                    return done(ids)
                while True:
                    state.index = 0
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
