"""One assessor's judging session: the queue, the cursor, and what each key does to the store.

This is the logic behind the judging screen, kept free of Textual so that it can be tested (and reasoned
about) without a terminal: the app's action handlers are one-line calls into a ``Session`` — this
``JudgingSession``, or the adjudicator's ``toolkit.judging.adjudication.AdjudicationSession``.

Order of work: the queue is the store's seeded, blind presentation order, and the cursor follows the
queue's resume order (``toolkit.judging.queue``): after every decision it moves to the next item, after the
current one, that has no current decision; skipped items come back only once every unseen item has been
dealt with (a skip is "not now", never a grade).

Writes go through ``toolkit.judging.outbox``: with ``write_through`` (the default) every action has
committed before it returns; the TUI turns it off, queues the writes and runs one writer thread over them,
so a busy store never freezes the screen, and hands each outcome back to ``apply``. Every decision is
conditional on the decision in force this window saw, so one assessor in two windows (or two browser tabs)
never overwrites silently: ``reconcile`` takes in what another window recorded since (read again before an
item is shown), ``elsewhere`` says so, and a refused write comes back from ``apply`` as a ``Conflict`` for
the screen to ask about.
"""

from __future__ import annotations

import bisect
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from toolkit.errors import StoreError
from toolkit.judging import log as judgment_log
from toolkit.judging.journal import Journal, adopt
from toolkit.judging.outbox import LocalLog, Outcome
from toolkit.judging.progress import pool_status
from toolkit.judging.queue import SETTLED, item_status, next_index
from toolkit.judging.records import DECISIONS, CampaignTopic, Item, Judgment, LogEvent
from toolkit.judging.store import CampaignStore, ConflictError

#: The events an assessor's own decisions derive from (an adjudication under the same name is not one).
ASSESSOR_DECISIONS = frozenset(DECISIONS)

Key = tuple[str, str]


class Session(Protocol):
    """What a judging screen asks of its session; ``log`` holds the queued writes the screen's writer saves."""

    log: LocalLog
    #: How many writes a killed window of this user left in its journal and this session queued again.
    adopted: int

    @property
    def item(self) -> Item | None:
        """The item under the cursor; None when nothing is left."""

    def decision(self, item: Item) -> Judgment | None:
        """The decision to show with ``item`` (this user's own)."""

    def upcoming(self, count: int) -> list[Item]:
        """The items most likely to be shown next, for prefetching their documents."""

    def grade(self, grade: int) -> None: ...

    def skip(self) -> None: ...

    def undo(self) -> Item | None:
        """Cancel the latest decision and go back to its item; None when there is nothing to undo."""

    def next(self) -> bool:
        """Move on in list order; False at the end."""

    def previous(self) -> bool:
        """Move back in list order; False at the start."""

    def note_text(self) -> str:
        """The note the note dialog starts from, for the item under the cursor."""

    def note(self, text: str) -> None: ...

    def apply(self, outcome: Outcome) -> Conflict | None:
        """Take in what the store did with a queued write; a refused one comes back as a ``Conflict``."""


@dataclass(frozen=True)
class Conflict:
    """A queued write the store refused because another window changed the item first.

    ``theirs``: the decision in force now (None: the other window undid it). ``action``/``grade``: what
    this window wanted in force on the item (None when its last write there was an undo).
    """

    item: Item
    theirs: Judgment | None
    action: str | None
    grade: int | None


@dataclass(frozen=True)
class Tally:
    """Counts for a slice of the queue (one topic, or all of it); ``remaining`` includes skipped items."""

    assigned: int
    judged: int
    skipped: int
    unrateable: int

    @property
    def done(self) -> int:
        return self.judged + self.unrateable

    @property
    def remaining(self) -> int:
        return self.assigned - self.done


@dataclass(frozen=True)
class SessionProgress:
    """What the progress panel shows: this topic, the whole queue, and time per judgment."""

    position: int
    total: int
    topic: Tally
    overall: Tally
    median_ms: float | None
    last_ms: int | None
    new_items: int = 0
    unassigned: int = 0


@dataclass(frozen=True)
class SessionSummary:
    """What "queue done" and quitting show: the queue's counts, time spent judging, unsaved writes.

    ``judging_ms``: the recorded reading time of every decision in force (all sessions); ``session_s``:
    wall-clock time since this session started; ``unsaved``: writes still queued.
    """

    tally: Tally
    decided_now: int
    judging_ms: int
    session_s: float
    unsaved: int


def assessor_queue(store: CampaignStore, assessor: str) -> list[Item]:
    """The assessor's queue; an error that names the campaign's assessors when they have none."""
    queue = store.queue(assessor)
    if not queue:
        known = ", ".join(store.assessors()) or "none yet"
        raise StoreError(
            f"assessor {assessor!r} has no items in this campaign (assessors: {known}); "
            "give them a share with `trec-toolkit assign`"
        )
    return queue


class JudgingSession:
    """The judging state of one assessor over one campaign store (which it does not own)."""

    def __init__(
        self,
        store: CampaignStore,
        assessor: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        write_through: bool = True,
        journal: Path | None = None,
    ) -> None:
        self.store = store
        self.assessor = assessor
        self._clock = clock
        self.queue: list[Item] = assessor_queue(store, assessor)
        self._index = {(it.query_id, it.doc_id): i for i, it in enumerate(self.queue)}
        self.grades: dict[int, str] = store.grades()
        self._topics: dict[str, CampaignTopic] = {t.query_id: t for t in store.topics()}
        self._hashes = store.latest_hashes()
        self.log = LocalLog(
            store,
            assessor,
            write_through=write_through,
            hashes=self._hashes,
            journal=None if journal is None or write_through else Journal(journal, assessor),
        )
        #: Writes a window killed before the store took them left in its journal, queued again here.
        self.adopted = 0 if journal is None or write_through else adopt(journal, assessor, self.log.adopt)
        #: Items whose decision another window recorded since this one saw them (shown, asked about).
        self.foreign: dict[Key, Judgment] = {}
        self.decisions: dict[Key, Judgment] = {}
        self._counts: dict[str, Counter[str]] = {}
        self._load()
        self.last_ms: int | None = None
        self.decided_now = 0
        self.new_items = 0  # assigned while the session was open (a new pool round)
        self.unassigned = pool_status(store).unassigned  # pool items nobody has yet (updated by ``refresh``)
        self.started = clock()
        # Resume where the assessor stopped: the queue's rule (first undecided, then first skipped).
        self.cursor: int | None = self._find_next(-1)
        self._shown_at = clock()

    def _load(self) -> None:
        """Derive decisions, status counts and durations from the local log (at start, after a resync)."""
        self.decisions = {}
        for key in self._index:
            current = self.log.decision(key, actions=ASSESSOR_DECISIONS)
            if current is not None:
                self.decisions[key] = current
        self._durations: list[int] = sorted(
            j.duration_ms
            for j in self.decisions.values()
            if j.action in SETTLED and j.duration_ms is not None
        )
        # Status counts per topic, kept up to date on every decision so that the progress panel costs
        # nothing on a 10,000-item queue.
        self._counts = {}
        for it in self.queue:
            self._counts.setdefault(it.query_id, Counter())[self.status(it)] += 1

    # -- what is on screen -------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.cursor is None

    @property
    def item(self) -> Item | None:
        return None if self.cursor is None else self.queue[self.cursor]

    def topic(self, query_id: str) -> CampaignTopic:
        return self._topics[query_id]

    def decision(self, item: Item) -> Judgment | None:
        """This assessor's own current decision on ``item`` (never another assessor's)."""
        return self.decisions.get((item.query_id, item.doc_id))

    def note_of(self, item: Item) -> str | None:
        """This assessor's latest note on ``item``, whether or not it has a decision yet."""
        return self.log.note((item.query_id, item.doc_id))

    def elsewhere(self, item: Item) -> Judgment | None:
        """The decision another window recorded on ``item`` since this one saw it, until it is replaced."""
        return self.foreign.get((item.query_id, item.doc_id))

    def upcoming(self, count: int) -> list[Item]:
        """The items most likely to be shown next, for prefetching their documents."""
        if self.cursor is None:
            return []
        return self.queue[self.cursor + 1 : self.cursor + 1 + count]

    def shown(self) -> None:
        """The current document has just been displayed: start its judging clock."""
        self._shown_at = self._clock()

    def note_text(self) -> str:
        item = self.item
        return (self.note_of(item) or "") if item is not None else ""

    # -- actions ----------------------------------------------------------------------------------

    def grade(self, grade: int) -> None:
        self.judge(grade)

    def judge(self, grade: int) -> None:
        if grade not in self.grades:
            raise StoreError(f"grade {grade} is not on this campaign's scale ({sorted(self.grades)})")
        self._decide("judge", grade)

    def skip(self) -> None:
        self._decide("skip", None)

    def unrateable(self) -> None:
        self._decide("unrateable", None)

    def decide_on(self, item: Item, action: str, grade: int | None) -> None:
        """Record a decision on ``item`` without moving the cursor (after a conflict, once asked)."""
        self._decide(action, grade, item=item)

    def _decide(self, action: str, grade: int | None, *, item: Item | None = None) -> None:
        on_screen = item is None
        target = self.item if item is None else item
        if target is None:
            return
        key = (target.query_id, target.doc_id)
        elapsed = max(0, int((self._clock() - self._shown_at) * 1000)) if on_screen else None
        self.foreign.pop(key, None)  # replacing another window's decision is a choice made on screen
        try:
            self.log.append(
                key,
                action,
                grade=grade,
                duration_ms=elapsed,
                position=target.position,
                expect=self.log.expect_for(key),
            )
        except ConflictError as exc:  # write_through: refused at once, nothing moves
            if exc.current is not None:
                self.foreign[key] = exc.current
            raise
        finally:
            self._refresh_decision(key)
        self.decided_now += 1
        if action in SETTLED and elapsed is not None:
            bisect.insort(self._durations, elapsed)
            self.last_ms = elapsed
        if on_screen:
            self.cursor = self._find_next(self._index[key])

    def note(self, text: str) -> None:
        item = self.item
        if item is None or not text.strip():
            return
        key = (item.query_id, item.doc_id)
        try:
            self.log.append(key, "note", note=text.strip())
        finally:
            self._refresh_decision(key)

    def undo(self) -> Item | None:
        """Cancel this assessor's latest decision and put the cursor on that item to re-judge it."""
        target = self.log.latest_decision()
        if target is None:
            return None
        key = (target.query_id, target.doc_id)
        try:
            self.log.append(key, "undo", undoes=target.event_id, expect=target.event_id)
        finally:
            self._refresh_decision(key)
        index = self._index.get(key)
        if index is not None:
            self.cursor = index
            self.shown()
            return self.queue[index]
        return Item(self.assessor, key[0], key[1], position=-1)

    def next(self) -> bool:
        """Move to the next item in queue order (judged or not); False at the end."""
        start = self.cursor if self.cursor is not None else len(self.queue) - 1
        if start + 1 >= len(self.queue):
            return False
        self.cursor = start + 1
        self.shown()
        return True

    def previous(self) -> bool:
        start = self.cursor if self.cursor is not None else len(self.queue)
        if start <= 0:
            return False
        self.cursor = start - 1
        self.shown()
        return True

    def refresh(self, queue: list[Item], hashes: dict[str, str | None], *, unassigned: int = 0) -> int:
        """Take the assessor's queue as it is now (read by the caller, e.g. in a worker thread): items a new
        round assigned are appended, items it re-queued as stale are to do again; the cursor stays on its
        item (or, when the queue was done, moves to the first new one). Returns how many items are new."""
        current = self.item
        known = set(self._index)
        self.queue = sorted(queue, key=lambda i: i.position)
        self._index = {(it.query_id, it.doc_id): i for i, it in enumerate(self.queue)}
        self._hashes = hashes
        self.log.hashes = hashes
        self._load()
        added = sum(1 for key in self._index if key not in known)
        self.new_items += added
        self.unassigned = unassigned
        if current is not None and (current.query_id, current.doc_id) in self._index:
            self.cursor = self._index[(current.query_id, current.doc_id)]
        else:
            self.cursor = self._find_next(-1)
        return added

    # -- the store's answers ---------------------------------------------------------------------------

    def apply(self, outcome: Outcome) -> Conflict | None:
        """Take in what the writer's store did with a queued write (screen thread)."""
        self.log.apply(outcome)
        key = outcome.write.key
        self._refresh_decision(key)
        if not outcome.conflict:
            return None
        if outcome.current is not None:
            self.foreign[key] = outcome.current
        wanted = [outcome.write, *outcome.dropped][-1].event
        item = self._item_at(key)
        if wanted.action in DECISIONS:
            return Conflict(item, outcome.current, wanted.action, wanted.grade)
        return Conflict(item, outcome.current, None, None)

    def reconcile(self, item: Item, events: list[LogEvent], version: int) -> bool:
        """The store's log for ``item``, read just before it is shown: True when another window changed its
        decision since this window saw it (then ``elsewhere(item)`` tells which, until it is replaced).

        ``version``: ``log.versions[key]`` when the read started; if this window changed the item since,
        the read is older than what this window knows and is ignored.
        """
        key = (item.query_id, item.doc_id)
        if self.log.outbox.holds(key) or self.log.versions[key] != version:
            return False  # this window's own write is on its way (conditional: it will tell), or newer
        mine = self.log.decision(key)
        theirs = judgment_log.derive_current(events).get((self.assessor, *key))
        self.log.replace(key, events)
        self._refresh_decision(key)
        if (mine.event_id if mine else 0) == (theirs.event_id if theirs else 0):
            return False
        if theirs is None:
            self.foreign.pop(key, None)
        else:
            self.foreign[key] = theirs
        return True

    def resync(self, events: list[LogEvent]) -> bool:
        """Take the store's whole log for this assessor (after an undo was refused); False if writes are queued."""
        if len(self.log.outbox):
            return False
        self.log.replace_all(events)
        self._load()
        return True

    # -- bookkeeping --------------------------------------------------------------------------------

    def _item_at(self, key: Key) -> Item:
        index = self._index.get(key)
        return self.queue[index] if index is not None else Item(self.assessor, key[0], key[1], -1)

    def _refresh_decision(self, key: Key) -> None:
        index = self._index.get(key)
        counts = self._counts[key[0]] if index is not None else None
        if counts is not None and index is not None:
            counts[self.status(self.queue[index])] -= 1
        current = self.log.decision(key, actions=ASSESSOR_DECISIONS)
        if current is None:
            self.decisions.pop(key, None)
        else:
            self.decisions[key] = current
        if counts is not None and index is not None:
            counts[self.status(self.queue[index])] += 1

    def status(self, item: Item) -> str:
        """``todo``, ``skip``, ``judge`` or ``unrateable`` (``toolkit.judging.queue.item_status``)."""
        return item_status(item, self.decisions.get((item.query_id, item.doc_id)), self._hashes)

    def _find_next(self, after: int) -> int | None:
        """The queue's resume order from ``after`` (``toolkit.judging.queue.next_index``)."""
        return next_index(len(self.queue), lambda i: self.status(self.queue[i]), after)

    def tally(self, query_id: str | None = None) -> Tally:
        if query_id is None:
            counts: Counter[str] = Counter()
            for c in self._counts.values():
                counts.update(c)
        else:
            counts = self._counts.get(query_id, Counter())
        return Tally(counts.total(), counts["judge"], counts["skip"], counts["unrateable"])

    def progress(self) -> SessionProgress:
        item = self.item
        return SessionProgress(
            position=(self.cursor or 0) + 1,
            total=len(self.queue),
            topic=self.tally(item.query_id) if item else Tally(0, 0, 0, 0),
            overall=self.tally(),
            median_ms=statistics.median(self._durations) if self._durations else None,  # sorted: O(1)
            last_ms=self.last_ms,
            new_items=self.new_items,
            unassigned=self.unassigned,
        )

    def save_unsaved(self, folder: Path) -> tuple[Path | None, int]:
        """Write the decisions still queued to a judgments file in ``folder`` (JSONL, for ``judgments
        import``): the way out when the campaign cannot be written and the assessor must leave.

        Stops the queue first. Returns the file (None when no decision was waiting) and how many queued undos
        a judgments file cannot express. A write already under way may still land; importing the file then
        appends the same decision again, which changes nothing in force.
        """
        self.log.outbox.close()
        keys = list(dict.fromkeys(w.key for w in self.log.outbox.pending()))
        decided = [j for key in keys if (j := self.log.decision(key, actions=ASSESSOR_DECISIONS)) is not None]
        undone = len(keys) - len(decided)
        if not decided:
            return None, undone
        from toolkit.formats.judgments import format_judgments
        from toolkit.formats.textfile import atomic_write_text

        stamp = time.strftime("%Y%m%dT%H%M%S")
        path = folder / f"unsaved-{self.assessor}-{stamp}.jsonl"
        atomic_write_text(path, format_judgments(decided, "jsonl"))
        return path, undone

    def summary(self) -> SessionSummary:
        """The queue's counts and the time spent, for "queue done" and for quitting."""
        judging = sum(
            j.duration_ms
            for j in self.decisions.values()
            if j.action in SETTLED and j.duration_ms is not None
        )
        return SessionSummary(
            tally=self.tally(),
            decided_now=self.decided_now,
            judging_ms=judging,
            session_s=self._clock() - self.started,
            unsaved=len(self.log.outbox),
        )
