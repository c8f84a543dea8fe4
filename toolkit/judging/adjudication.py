"""The adjudicator's walk through the disagreements (the logic behind ``trec-toolkit adjudicate``).

The walk list is fixed when the session starts — the store's disagreements, widest spread first, without
those already adjudicated (unless ``include_done``) — so that ``n``/``p`` move through a stable list while
grades are being recorded. Each adjudication is an ``adjudicate`` event in the append-only log; like the
judging session's decisions it goes through ``toolkit.judging.outbox`` (committed before the method
returns with ``write_through``, queued for the screen's writer otherwise), and ``undo`` is conditional on
the adjudication this window saw being still the latest.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.judging import log as judgment_log
from toolkit.judging.disagreements import disagreements
from toolkit.judging.journal import Journal, adopt
from toolkit.judging.outbox import LocalLog, Outcome
from toolkit.judging.records import Disagreement, Item, Judgment
from toolkit.judging.session import Conflict
from toolkit.judging.store import CampaignStore

_ADJUDICATE = frozenset({"adjudicate"})


class AdjudicationSession:
    """The adjudicator's walk: a ``toolkit.judging.session.Session`` over the disagreements."""

    def __init__(
        self,
        store: CampaignStore,
        adjudicator: str,
        *,
        include_done: bool = False,
        write_through: bool = True,
        journal: Path | None = None,
    ) -> None:
        self.store = store
        self.adjudicator = adjudicator
        self.grades = store.grades()
        everything = disagreements(store)
        self.items: list[Disagreement] = [d for d in everything if include_done or d.adjudicated is None]
        #: True when nobody has graded an item that another assessor graded too (nothing to disagree on).
        self.nothing_shared = not everything and not _shared_items(store)
        self._index = {(d.query_id, d.doc_id): i for i, d in enumerate(self.items)}
        # The latest adjudication in force by anyone else; this adjudicator's own come from the local log.
        others = judgment_log.derive_current(
            e for e in store.events(actions=("adjudicate", "undo")) if e.assessor != adjudicator
        )
        self._others: dict[tuple[str, str], Judgment] = {}
        for j in sorted(others.values(), key=lambda j: j.event_id):
            if j.action == "adjudicate":
                self._others[(j.query_id, j.doc_id)] = j
        journaled = journal is not None and not write_through
        self.log = LocalLog(
            store,
            adjudicator,
            write_through=write_through,
            hashes=store.latest_hashes(),
            journal=Journal(journal, adjudicator, role="adjudicate") if journal and journaled else None,
        )
        #: Adjudications a killed window left in its journal (``toolkit.judging.journal``), queued again.
        self.adopted = (
            adopt(journal, adjudicator, self.log.adopt, role="adjudicate") if journal and journaled else 0
        )
        self.notes: dict[tuple[str, str], str] = {}
        self.cursor: int | None = self._find_next(-1)

    @property
    def disagreement(self) -> Disagreement | None:
        return None if self.cursor is None else self.items[self.cursor]

    @property
    def item(self) -> Item | None:
        """The disagreement as an ``Item`` (what the document view needs); never carries run or rank."""
        d = self.disagreement
        if d is None or self.cursor is None:
            return None
        return Item(self.adjudicator, d.query_id, d.doc_id, position=self.cursor)

    def adjudication(self, query_id: str, doc_id: str) -> Judgment | None:
        """The adjudication in force: this adjudicator's own (queued ones included), else another's."""
        key = (query_id, doc_id)
        return self.log.decision(key, actions=_ADJUDICATE) or self._others.get(key)

    @property
    def decided(self) -> dict[tuple[str, str], Judgment]:
        out = {}
        for key in self._index:
            j = self.adjudication(*key)
            if j is not None:
                out[key] = j
        return out

    def decision(self, item: Item) -> Judgment | None:
        """The current adjudication of ``item`` (shown with the document)."""
        return self.adjudication(item.query_id, item.doc_id)

    def note_text(self) -> str:
        """The note waiting to go with the next adjudication of the item under the cursor."""
        d = self.disagreement
        return self.notes.get((d.query_id, d.doc_id), "") if d is not None else ""

    def upcoming(self, count: int) -> list[Item]:
        if self.cursor is None:
            return []
        return [
            Item(self.adjudicator, d.query_id, d.doc_id, position=self.cursor + 1 + k)
            for k, d in enumerate(self.items[self.cursor + 1 : self.cursor + 1 + count])
        ]

    @property
    def done_count(self) -> int:
        return len(self.decided)

    def grade(self, grade: int) -> None:
        self.adjudicate(grade)

    def adjudicate(self, grade: int) -> None:
        d = self.disagreement
        if d is None or self.cursor is None:
            return
        key = (d.query_id, d.doc_id)
        self.log.append(key, "adjudicate", grade=grade, note=self.notes.get(key))
        self.cursor = self._find_next(self.cursor)

    def skip(self) -> None:
        """Leave this one for later: go to the next undecided disagreement (it comes round again)."""
        if self.cursor is None:
            return
        following = self._find_next(self.cursor)
        if following is not None:
            self.cursor = following

    def note(self, text: str) -> None:
        d = self.disagreement
        if d is not None and text.strip():
            self.notes[(d.query_id, d.doc_id)] = text.strip()

    def undo(self) -> Item | None:
        """Cancel the adjudicator's latest adjudication still in force and go back to it."""
        target = self.log.latest_decision()
        if target is None:
            return None
        key = (target.query_id, target.doc_id)
        self.log.append(key, "undo", undoes=target.event_id, expect=target.event_id)
        if key in self._index:
            self.cursor = self._index[key]
        return Item(self.adjudicator, key[0], key[1], position=self._index.get(key, -1))

    def apply(self, outcome: Outcome) -> Conflict | None:
        """Take in what the writer's store did with a queued write; a refused undo comes back as a Conflict."""
        self.log.apply(outcome)
        if not outcome.conflict:
            return None
        key = outcome.write.key
        return Conflict(Item(self.adjudicator, key[0], key[1], -1), outcome.current, None, None)

    def next(self) -> bool:
        start = -1 if self.cursor is None else self.cursor
        if start + 1 >= len(self.items):
            return False
        self.cursor = start + 1
        return True

    def previous(self) -> bool:
        start = len(self.items) if self.cursor is None else self.cursor
        if start <= 0:
            return False
        self.cursor = start - 1
        return True

    def _find_next(self, after: int) -> int | None:
        n = len(self.items)
        for k in range(1, n + 1):
            i = (after + k) % n
            if self.adjudication(self.items[i].query_id, self.items[i].doc_id) is None:
                return i
        return None


def _shared_items(store: CampaignStore) -> bool:
    """Some item has grades from two or more assessors (they may all agree)."""
    seen: set[tuple[str, str]] = set()
    for query_id, doc_id, *_ in store.current_grades():
        key = (query_id, doc_id)
        if key in seen:
            return True
        seen.add(key)
    return False
