"""The adjudicator's walk through the disagreements (the logic behind ``trec-toolkit adjudicate``).

The walk list is fixed when the session starts — the store's disagreements, widest spread first, without
those already adjudicated (unless ``include_done``) — so that ``n``/``p`` move through a stable list while
grades are being recorded. Each adjudication is written to the store (append-only log, ``adjudicate``
action) before the cursor moves.
"""

from __future__ import annotations

from toolkit.judging.disagreements import disagreements
from toolkit.judging.records import Disagreement, Item, Judgment
from toolkit.judging.store import CampaignStore


class AdjudicationSession:
    """The adjudicator's walk: a ``toolkit.judging.session.Session`` over the disagreements."""

    def __init__(self, store: CampaignStore, adjudicator: str, *, include_done: bool = False) -> None:
        self.store = store
        self.adjudicator = adjudicator
        self.grades = store.grades()
        everything = disagreements(store)
        self.items: list[Disagreement] = [d for d in everything if include_done or d.adjudicated is None]
        self._index = {(d.query_id, d.doc_id): i for i, d in enumerate(self.items)}
        adjudications = store.adjudications()
        self.decided: dict[tuple[str, str], Judgment] = {
            key: adjudications[key] for key in self._index if key in adjudications
        }
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
        return self.decided.get((query_id, doc_id))

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
        self.store.adjudicate(self.adjudicator, d.query_id, d.doc_id, grade, note=self.notes.get(key))
        self.decided[key] = self.store.adjudications()[key]
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
        item = self.store.undo(self.adjudicator)
        if item is None:
            return None
        key = (item.query_id, item.doc_id)
        current = self.store.adjudications().get(key)
        if current is None:
            self.decided.pop(key, None)
        else:
            self.decided[key] = current
        if key in self._index:
            self.cursor = self._index[key]
        return item

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
            if (self.items[i].query_id, self.items[i].doc_id) not in self.decided:
                return i
        return None
