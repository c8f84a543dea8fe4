"""An assessor's queue as a read model: the status of each item and the order in which work resumes.

Both rules are written once, here, and used by the store-side views (``next_item``, ``resume_position``) and
by the judging session, which keeps its own statuses up to date key by key; the database counts statuses for
the organiser's report by the same rule said in SQL (``toolkit.judging.sql.readmodels``), which the tests
hold to ``item_status``:

- **Status.** ``todo`` (no decision), ``skip``, ``judge`` or ``unrateable``. An item re-queued as stale (its
  document's text changed since it was judged) whose current decision was made on the old text is ``todo``
  again; a skip is not tied to a text, so it stays a skip.
- **Resume order.** After position ``after``, the next ``todo`` item (wrapping round the queue), else the
  next skipped one, else none: items without a decision come first, in queue order, and skipped items come
  back once every other item is decided. Judged and unrateable items are done.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from toolkit.judging import log as judgment_log
from toolkit.judging.records import Item, Judgment
from toolkit.judging.store import CampaignStore

#: Decisions that settle an item for its assessor (a skip does not: the item comes back later).
SETTLED = frozenset({"judge", "unrateable"})


def item_status(item: Item, current: Judgment | None, hashes: Mapping[str, str | None]) -> str:
    """``todo``, ``skip``, ``judge`` or ``unrateable``; a stale item judged on old text is ``todo``.

    ``current``: the assessor's current decision on the item; ``hashes``: doc id → latest content hash.
    """
    if current is None:
        return "todo"
    if item.stale and current.action != "skip" and current.content_hash != hashes.get(item.doc_id):
        return "todo"
    return current.action


def next_index(count: int, status_at: Callable[[int], str], after: int = -1) -> int | None:
    """The resume order: the first ``todo`` after ``after`` (wrapping), else the first ``skip``, else None.

    ``status_at(i)`` is the status of queue item ``i``; it is asked lazily, so the common case (the next
    item is undecided) costs one call.
    """
    skipped: int | None = None
    for k in range(1, count + 1):
        i = (after + k) % count
        status = status_at(i)
        if status == "todo":
            return i
        if status == "skip" and skipped is None:
            skipped = i
    return skipped


def queue_statuses(store: CampaignStore, assessor: str) -> list[tuple[Item, str]]:
    """The assessor's queue with each item's status, in presentation order."""
    items = store.queue(assessor)
    current = judgment_log.derive_current(store.events(assessor=assessor))
    hashes = store.latest_hashes()
    return [(i, item_status(i, current.get((assessor, i.query_id, i.doc_id)), hashes)) for i in items]


def resume_position(store: CampaignStore, assessor: str) -> int:
    """Index in ``store.queue(assessor)`` of ``next_item`` (``len(queue)`` when the assessor is done)."""
    statuses = queue_statuses(store, assessor)
    index = next_index(len(statuses), lambda i: statuses[i][1])
    return len(statuses) if index is None else index


def next_item(store: CampaignStore, assessor: str) -> Item | None:
    """The item the assessor should judge now, or None when their queue is done."""
    statuses = queue_statuses(store, assessor)
    index = next_index(len(statuses), lambda i: statuses[i][1])
    return None if index is None else statuses[index][0]


def stale_items(store: CampaignStore) -> list[Item]:
    """Assigned items re-queued because their document's text changed since they were judged (each
    assessor's, by name, in queue order)."""
    return store.stale_items()
