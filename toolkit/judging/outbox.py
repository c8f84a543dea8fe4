"""Writes that wait their turn: a judging window's decisions, queued in order and written by one writer.

Why: the store can be busy for longer than a person will wait — a pool round or an import holds the write
lock, and SQLite waits 30 s for it and then gives up. The judging screens must neither freeze on that nor
lose a decision to it (docs/design.md §8), so a key press only *queues* its write here, and one writer (a thread
worker in the TUI; the caller itself in ``write_through`` sessions) takes the writes in order and retries
the head until the store has committed it. A write leaves the queue only when it is committed, or when the
store refuses it because another window changed the item first — a conflict the screen puts to the
assessor. Nothing is dropped silently.

Every decision and undo is a conditional write: it carries the event id of the decision in force that
this window saw (``expect``, passed as the store's ``expect_event``), and the store refuses it with ``ConflictError``
when another is in force now; ``BusyError`` means "not yet, try again". So a retry after a
failure whose outcome was unclear cannot record twice (the second try finds the first in force and
counts it as saved), and another window's decision is never silently overwritten (docs/design.md §8).

``LocalLog`` is the window's copy of one assessor's log: what the store said when the session started,
plus the queued writes as *provisional* events (ids from ``PROVISIONAL`` up, so they sort after every
committed event). The sessions derive what the screen shows from it with the same rules as the store
(``toolkit.judging.log``), so the screen moves on at once, and replace the provisional ids by the
committed ones as the writes land.

With a ``toolkit.judging.journal.Journal`` the queue is also on disk: every write is journaled (fsync'ed)
before ``put`` returns, so a window killed while the store is busy loses nothing; the next window of the
same assessor adopts the dead one's journal (``LocalLog.adopt``) and writes what it held, exactly once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import StoreError
from toolkit.judging import log as judgment_log
from toolkit.judging.journal import Entry, Journal
from toolkit.judging.records import DECISIONS, Judgment, LogEvent, now_iso
from toolkit.judging.store import NO_DECISION, BusyError, CampaignStore, ConflictError
from toolkit.model import fields_from

#: Provisional event ids start here: above any id a store will hand out, so a queued event sorts last.
PROVISIONAL = 1 << 62
Key = tuple[str, str]  # (query_id, doc_id)


def is_busy(error: StoreError) -> bool:
    """The store could not take the write *yet* (another process holds the lock): worth retrying soon."""
    return isinstance(error, BusyError)


@dataclass(frozen=True)
class Write:
    """One queued write: the event as this window expects it to be appended (provisional id), and, for
    decisions and undos, the id of the decision in force it was based on (``NO_DECISION``: none)."""

    event: LogEvent
    expect: int | None = None

    @property
    def key(self) -> Key:
        return (self.event.query_id, self.event.doc_id)


@dataclass(frozen=True)
class Outcome:
    """What happened to the write at the head of the queue.

    ``saved``: committed as event ``event_id`` (None for an undo, whose id nobody refers to). Not saved and
    no ``conflict``: still queued, to be retried (``error`` says why; ``busy`` when another process holds the
    lock). ``conflict``: refused because ``current`` is in force now; the write and the later ones on the
    same item (``dropped``) left the queue, for the screen to ask about.
    """

    write: Write
    saved: bool
    event_id: int | None = None
    conflict: bool = False
    current: Judgment | None = None
    dropped: tuple[Write, ...] = ()
    error: str | None = None
    busy: bool = False


class Outbox:
    """The queue of writes not yet committed, shared by the screen's thread (``put``) and the writer's
    (``flush_one``); every method is thread-safe."""

    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, journal: Journal | None = None
    ) -> None:
        self._lock = threading.Lock()
        self._journal = journal
        #: Why the journal could not be written (the queue is then in memory only); None while it works.
        self.journal_error: str | None = None
        self._writes: deque[Write] = deque()
        self._committed: dict[int, int] = {}  # provisional id → committed id
        self._next = PROVISIONAL
        self._clock = clock
        self._head_since: float | None = None
        #: Why the head could not be written on its last try (None once it is written).
        self.last_error: str | None = None
        self.last_busy = False
        self._closed = False

    def close(self) -> None:
        """Start no more writes (the one under way, if any, finishes); what is queued stays queued."""
        with self._lock:
            self._closed = True

    def close_journal(self) -> Path | None:
        """The window closes: stop journaling; the journal stays on disk (returned) when writes are queued,
        for the next window of this assessor to replay."""
        with self._lock:
            journal, self._journal = self._journal, None
            self._closed = True
            if journal is None:
                return None
            if not self._writes:
                journal.clear()
            journal.close()
            return journal.path if self._writes else None

    def _journal_call(self, call: Callable[[Journal], None]) -> None:
        """Journal something (under ``_lock``); a failure leaves the queue in memory only, and says so."""
        if self._journal is None:
            return
        try:
            call(self._journal)
        except OSError as exc:
            self.journal_error = f"{self._journal.folder}: {exc.strerror or exc}"
            with contextlib.suppress(OSError):
                self._journal.close()
            self._journal = None

    @property
    def closed(self) -> bool:
        with self._lock:
            return self._closed

    @property
    def journaled(self) -> bool:
        """The queue is on disk too (a journal is open and works)."""
        with self._lock:
            return self._journal is not None

    def new_id(self) -> int:
        with self._lock:
            self._next += 1
            return self._next

    def put(self, write: Write) -> None:
        """Queue a write; with a journal, it is on disk when this returns."""
        with self._lock:
            expect = None if write.expect is None else self._committed.get(write.expect, write.expect)
            self._journal_call(lambda journal: journal.put(write.event, expect))
            if not self._writes:
                self._head_since = self._clock()
            self._writes.append(write)

    def __len__(self) -> int:
        with self._lock:
            return len(self._writes)

    def pending(self) -> list[Write]:
        with self._lock:
            return list(self._writes)

    def holds(self, key: Key) -> bool:
        """Some write on this item is still queued."""
        with self._lock:
            return any(w.key == key for w in self._writes)

    def waiting_since(self) -> float | None:
        """When the write now at the head was queued (None when the queue is empty)."""
        with self._lock:
            return self._head_since if self._writes else None

    def resolve(self, event_id: int) -> int:
        """The committed id of a provisional event once it is written (other ids are returned as they are)."""
        with self._lock:
            return self._committed.get(event_id, event_id)

    def flush_one(self, store: CampaignStore) -> Outcome | None:
        """Try the write at the head of the queue once (writer thread); None when the queue is empty."""
        with self._lock:
            if not self._writes or self._closed:
                return None
            write = self._writes[0]
            expect = None if write.expect is None else self._committed.get(write.expect, write.expect)
        event_id: int | None
        try:
            found = _already_there(store, write)
            event_id = found if found is not None else self._execute(store, write, expect)
        except ConflictError as exc:
            mine = write.event
            same = exc.current is not None and (exc.current.action, exc.current.grade) == (
                mine.action,
                mine.grade,
            )
            if mine.action == "undo" and expect is not None and _undone(store, write, expect):
                event_id = None  # this undo did land (an earlier try, or the window that was killed)
            elif exc.current is None or mine.action not in DECISIONS or not same:
                return self._conflict(write, exc.current)
            else:
                # The decision in force is the one this write makes: an earlier try that reported failure
                # did commit, or the other window chose the same. Either way it is saved, and saved once.
                event_id = exc.current.event_id
        except StoreError as exc:
            self.last_error, self.last_busy = str(exc), is_busy(exc)
            return Outcome(write, saved=False, error=str(exc), busy=self.last_busy)
        with self._lock:
            self._writes.popleft()
            if event_id is not None:
                self._committed[write.event.event_id] = event_id
            if self._writes:
                self._journal_call(lambda journal: journal.done(write.event.event_id, event_id))
            else:
                self._journal_call(Journal.clear)
            self._head_since = self._clock() if self._writes else None
            self.last_error, self.last_busy = None, False
        return Outcome(write, saved=True, event_id=event_id)

    def _execute(self, store: CampaignStore, write: Write, expect: int | None) -> int | None:
        e = write.event
        if e.action in DECISIONS:
            return store.record(
                e.assessor,
                e.query_id,
                e.doc_id,
                grade=e.grade,
                action=e.action,
                duration_ms=e.duration_ms,
                position=e.position,
                expect_event=expect,
            )
        if e.action == "undo":
            store.undo(e.assessor, expect_event=expect)
            return None
        if e.action == "note":
            return store.add_note(e.assessor, e.query_id, e.doc_id, e.note or "")
        if e.action == "adjudicate" and e.grade is not None:
            return store.adjudicate(e.assessor, e.query_id, e.doc_id, e.grade, note=e.note)
        raise StoreError(f"cannot queue a {e.action!r} event")

    def _conflict(self, write: Write, current: Judgment | None) -> Outcome:
        """Take the refused write out, with every later decision or undo on the same item (they built on it)."""
        with self._lock:
            self._writes.popleft()
            later = [w for w in self._writes if w.key == write.key and w.event.action != "note"]
            for w in later:
                self._writes.remove(w)
            if self._writes:
                gone = [write.event.event_id, *(w.event.event_id for w in later)]
                self._journal_call(lambda journal: journal.dropped(gone))
            else:
                self._journal_call(Journal.clear)
            self._head_since = self._clock() if self._writes else None
            self.last_error, self.last_busy = None, False
        return Outcome(write, saved=False, conflict=True, current=current, dropped=tuple(later))


def _already_there(store: CampaignStore, write: Write) -> int | None:
    """A note or adjudication the store already holds (the same, by this user on this item, since it was
    queued): the id, so that a retry or a replay after a kill does not add it twice. Decisions and undos
    need no look: they are conditional (``expect``), and a repeat is refused."""
    e = write.event
    if e.action not in ("note", "adjudicate"):
        return None
    for event in store.events(assessor=e.assessor, query_id=e.query_id, doc_id=e.doc_id, actions=(e.action,)):
        if event.time >= e.time and (event.grade, event.note) == (e.grade, e.note):
            return event.event_id
    return None


def _undone(store: CampaignStore, write: Write, expect: int) -> bool:
    """The log already holds an undo of decision ``expect``: the effect this undo wants is in place."""
    e = write.event
    events = store.events(assessor=e.assessor, query_id=e.query_id, doc_id=e.doc_id, actions=("undo",))
    return any(event.undoes == expect for event in events)


class LocalLog:
    """A window's copy of one assessor's log, with its queued writes as provisional events (screen thread).

    ``write_through``: each write is committed before the method returns (the library's way, and tests');
    otherwise the owner runs a writer over ``outbox`` and hands every ``Outcome`` to ``apply``.
    """

    def __init__(
        self,
        store: CampaignStore,
        assessor: str,
        *,
        write_through: bool = True,
        hashes: dict[str, str | None],
        journal: Journal | None = None,
    ) -> None:
        self.store = store
        self.assessor = assessor
        self.write_through = write_through
        self.outbox = Outbox(journal=journal)
        self.hashes = hashes
        self._events: dict[Key, list[LogEvent]] = {}
        #: Bumped on every change to an item here: a read of the store started before a change is stale.
        self.versions: Counter[Key] = Counter()
        for event in store.events(assessor=assessor):
            self._events.setdefault((event.query_id, event.doc_id), []).append(event)

    # -- reading ----------------------------------------------------------------------------------------

    def keys(self) -> Iterable[Key]:
        return self._events.keys()

    def decision(self, key: Key, *, actions: frozenset[str] | None = None) -> Judgment | None:
        """The decision in force on ``key`` (among ``actions`` when given), provisional ones included."""
        events = self._events.get(key, ())
        if actions is not None:
            events = [e for e in events if e.action in actions or e.action in ("undo", "note")]
        return judgment_log.derive_current(events).get((self.assessor, *key))

    def note(self, key: Key) -> str | None:
        """The latest note on ``key``, with or without a decision."""
        notes = [e for e in self._events.get(key, ()) if e.note is not None and e.action != "undo"]
        return notes[-1].note if notes else None

    def latest_decision(self) -> LogEvent | None:
        """What ``undo`` cancels next (``toolkit.judging.log.latest_decision`` over this copy)."""
        return judgment_log.latest_decision(e for events in self._events.values() for e in events)

    # -- writing ----------------------------------------------------------------------------------------

    def append(
        self,
        key: Key,
        action: str,
        *,
        grade: int | None = None,
        note: str | None = None,
        duration_ms: int | None = None,
        position: int | None = None,
        undoes: int | None = None,
        expect: int | None = None,
    ) -> Write:
        """Queue one event (and show it here at once); commit it too when ``write_through``."""
        event = LogEvent(
            event_id=self.outbox.new_id(),
            time=now_iso(),
            assessor=self.assessor,
            query_id=key[0],
            doc_id=key[1],
            action=action,
            grade=grade,
            note=note,
            duration_ms=duration_ms,
            position=position,
            content_hash=self.hashes.get(key[1]),
            undoes=undoes,
        )
        write = Write(event, expect)
        self.outbox.put(write)
        self._events.setdefault(key, []).append(event)
        self.versions[key] += 1
        if self.write_through:
            self.save()
        return write

    def adopt(self, entries: list[Entry]) -> None:
        """Queue the writes a killed window left in its journal, as if made here (screen thread, at start).

        Their provisional ids are the dead window's: each gets a new one here, and an expectation or undo
        that pointed at one of them points at its new id. They keep their expectations, so a write the
        store did take before the kill is recognised, not written twice (``Outbox.flush_one``).
        """
        renumbered: dict[int, int] = {}
        for entry in entries:
            event, expect = entry.event, entry.expect
            new_id = self.outbox.new_id()
            renumbered[event.event_id] = new_id
            if expect is not None:
                expect = renumbered.get(expect, expect)
            undoes = None if event.undoes is None else renumbered.get(event.undoes, event.undoes)
            event = dataclasses.replace(event, event_id=new_id, undoes=undoes)
            key = (event.query_id, event.doc_id)
            self.outbox.put(Write(event, expect))
            self._events.setdefault(key, []).append(event)
            self.versions[key] += 1

    def expect_for(self, key: Key) -> int:
        """The id of the decision in force on ``key`` as this window sees it (what a new decision replaces)."""
        current = self.decision(key)
        return current.event_id if current is not None else NO_DECISION

    def save(self) -> list[Outcome]:
        """Write the whole queue now, in this thread (``write_through``); raises what the store raises.

        A conflict is applied (the store's decision adopted) and raised as ``ConflictError``.
        """
        outcomes: list[Outcome] = []
        while True:
            outcome = self.outbox.flush_one(self.store)
            if outcome is None:
                return outcomes
            self.apply(outcome)
            outcomes.append(outcome)
            if outcome.conflict:
                raise ConflictError(
                    f"{self.assessor}'s decision on ({outcome.write.event.query_id}, "
                    f"{outcome.write.event.doc_id}) changed in another window; nothing was recorded",
                    current=outcome.current,
                )
            if not outcome.saved:
                raise StoreError(outcome.error or "the campaign could not be written")

    def apply(self, outcome: Outcome) -> None:
        """Bring this copy in line with what the store did with a write (screen thread)."""
        key = outcome.write.key
        provisional = outcome.write.event.event_id
        events = self._events.get(key, [])
        self.versions[key] += 1
        if outcome.saved and outcome.event_id is not None:
            committed = outcome.event_id
            self._events[key] = [
                dataclasses.replace(e, event_id=committed)
                if e.event_id == provisional
                else dataclasses.replace(e, undoes=committed)
                if e.undoes == provisional
                else e
                for e in events
            ]
        elif outcome.conflict:
            gone = {provisional, *(w.event.event_id for w in outcome.dropped)}
            kept = [e for e in events if e.event_id not in gone and e.event_id < PROVISIONAL]
            if outcome.write.event.action != "undo":
                # The store is the truth: what it has in force replaces this window's idea of the item.
                kept = [e for e in kept if e.action == "note"]
                if outcome.current is not None:
                    kept.append(event_of(outcome.current))
            queued_notes = [e for e in events if e.event_id >= PROVISIONAL and e.action == "note"]
            self._events[key] = sorted(kept, key=lambda e: e.event_id) + queued_notes

    def replace(self, key: Key, events: list[LogEvent]) -> None:
        """Take the store's events for ``key`` as the truth (only when nothing is queued for it)."""
        self._events[key] = list(events)
        self.versions[key] += 1

    def replace_all(self, events: Iterable[LogEvent]) -> None:
        """Take the store's whole log for this assessor as the truth (only when nothing is queued)."""
        self._events = {}
        self.versions.update(self.versions.keys())
        for event in events:
            self._events.setdefault((event.query_id, event.doc_id), []).append(event)


def event_of(j: Judgment) -> LogEvent:
    """A decision in force as the log event that made it (what a conflict tells about the other window's)."""
    return fields_from(LogEvent, j, position=None, undoes=None)
