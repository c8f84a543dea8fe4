"""One assessor's judging session: the queue, the cursor, and what each key does to the store.

This is the logic behind the judging screen, kept free of Textual so that it can be tested (and reasoned
about) without a terminal: the app's action handlers are one-line calls into a ``Session`` — this
``JudgingSession``, or the adjudicator's ``toolkit.judging.adjudication.AdjudicationSession``.

Order of work: the queue is the store's seeded, blind presentation order, and the cursor follows the
queue's resume order (``toolkit.judging.queue``): after every decision it moves to the next item, after the
current one, that has no current decision; skipped items come back only once every unseen item has been
dealt with (a skip is "not now", never a grade). The store is written *before* the cursor moves, so
whatever the screen shows next, the previous judgment is already durable.
"""

from __future__ import annotations

import bisect
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from toolkit.errors import StoreError
from toolkit.judging.progress import pool_status
from toolkit.judging.queue import SETTLED, item_status, next_index
from toolkit.judging.records import CampaignTopic, Item, Judgment
from toolkit.judging.store import CampaignStore


class Session(Protocol):
    """What a judging screen asks of its session; every action writes the store before the cursor moves."""

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


class JudgingSession:
    """The judging state of one assessor over one campaign store (which it does not own)."""

    def __init__(
        self, store: CampaignStore, assessor: str, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.store = store
        self.assessor = assessor
        self._clock = clock
        self.queue: list[Item] = store.queue(assessor)
        if not self.queue:
            known = ", ".join(store.assessors()) or "none yet"
            raise StoreError(
                f"assessor {assessor!r} has no items in this campaign (assessors: {known}); "
                "give them a share with `trec-toolkit assign`"
            )
        self._index = {(it.query_id, it.doc_id): i for i, it in enumerate(self.queue)}
        self.grades: dict[int, str] = store.grades()
        self._topics: dict[str, CampaignTopic] = {t.query_id: t for t in store.topics()}
        self.decisions: dict[tuple[str, str], Judgment] = {
            (j.query_id, j.doc_id): j
            for j in store.current_judgments(include_gold=True)
            if j.assessor == assessor and (j.query_id, j.doc_id) in self._index
        }
        self._hashes = store.latest_hashes()
        self._durations: list[int] = sorted(
            j.duration_ms
            for j in self.decisions.values()
            if j.action in SETTLED and j.duration_ms is not None
        )
        # Status counts per topic, kept up to date on every decision so that the progress panel costs
        # nothing on a 10,000-item queue.
        self._counts: dict[str, Counter[str]] = {}
        for it in self.queue:
            self._counts.setdefault(it.query_id, Counter())[self.status(it)] += 1
        self.last_ms: int | None = None
        self.new_items = 0  # assigned while the session was open (a new pool round)
        self.unassigned = pool_status(store).unassigned  # pool items nobody has yet (updated by ``refresh``)
        # Resume where the assessor stopped: the queue's rule (first undecided, then first skipped).
        self.cursor: int | None = self._find_next(-1)
        self._shown_at = clock()

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
        decision = self.decision(item) if item is not None else None
        return (decision.note or "") if decision else ""

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

    def _decide(self, action: str, grade: int | None) -> None:
        item = self.item
        if item is None:
            return
        elapsed = max(0, int((self._clock() - self._shown_at) * 1000))
        # Durable first (the store commits with synchronous=FULL before returning), then move on.
        self.store.record(
            self.assessor,
            item.query_id,
            item.doc_id,
            grade=grade,
            action=action,
            duration_ms=elapsed,
            position=item.position,
        )
        self._refresh_decision(item)
        if action in SETTLED:
            bisect.insort(self._durations, elapsed)
            self.last_ms = elapsed
        self.cursor = self._find_next(self._index[(item.query_id, item.doc_id)])

    def note(self, text: str) -> None:
        item = self.item
        if item is None or not text.strip():
            return
        self.store.add_note(self.assessor, item.query_id, item.doc_id, text.strip())
        self._refresh_decision(item)

    def undo(self) -> Item | None:
        """Cancel this assessor's latest decision and put the cursor on that item to re-judge it."""
        item = self.store.undo(self.assessor)
        if item is None:
            return None
        self._refresh_decision(item)
        self.cursor = self._index.get((item.query_id, item.doc_id), self.cursor)
        self.shown()
        return item

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
        self._counts = {}
        for it in self.queue:
            self._counts.setdefault(it.query_id, Counter())[self.status(it)] += 1
        added = sum(1 for key in self._index if key not in known)
        self.new_items += added
        self.unassigned = unassigned
        if current is not None and (current.query_id, current.doc_id) in self._index:
            self.cursor = self._index[(current.query_id, current.doc_id)]
        else:
            self.cursor = self._find_next(-1)
        return added

    # -- bookkeeping --------------------------------------------------------------------------------

    def _refresh_decision(self, item: Item) -> None:
        key = (item.query_id, item.doc_id)
        counts = self._counts[item.query_id] if key in self._index else None
        if counts is not None:
            counts[self.status(item)] -= 1
        current = self.store.current(self.assessor, item.query_id, item.doc_id)
        if current is None:
            self.decisions.pop(key, None)
        else:
            self.decisions[key] = current
        if counts is not None:
            counts[self.status(item)] += 1

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
