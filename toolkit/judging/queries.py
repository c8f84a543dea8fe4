"""What a campaign store computes for the read models: the current judgments and the aggregates behind the
organiser's report, the export and the adjudication queue, each one query in the database.

Why the store computes them: a campaign of real size (171,151 pooled items graded twice: 342,302 log events)
is too big to derive in Python on every refresh of a screen — building one record per log event took most of
the organiser's report (11.7 s) and of an export (15 s). The read models (``toolkit.judging.progress``,
``export``, ``disagreements``, ``queue``) shape what these return; the SQL backends answer them with
the statements both share (``toolkit.judging.sql.readmodels``).

The rules they apply are the ones the judging session applies key by key in Python — the decision in force
(``toolkit.judging.log``), an item's status (``toolkit.judging.queue.item_status``), the rules of an event
(``toolkit.judging.store.event_problem``) — and the tests hold each query to them on random campaigns.
Orders: topic-set order (topics the campaign lacks last, by id), then doc id, then assessor, text by code
point.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolkit.judging.records import Item, Judgment, LogEvent

#: One graded item of one assessor: (query_id, doc_id, assessor, grade, note).
Grade = tuple[str, str, str, int, "str | None"]


@dataclass(frozen=True)
class GradeColumns:
    """The grades ``current_grades()`` gives (gold aside), column-wise, in the database's order: row ``i`` is
    ``assessors[i]``'s grade ``grades[i]`` (as text) on the item ``keys[i]`` (``query_id``, a tab, ``doc_id``:
    ``item_key``). Export's read (``toolkit.judging.sql.columns``): one text a column rather than a row a grade.
    ``adjudicated``: how many stacks hold an adjudication in force, read in the same pass (none: export need
    not read them)."""

    keys: list[str]
    assessors: list[str]
    grades: list[str]
    adjudicated: int


@dataclass(frozen=True)
class PoolColumns:
    """``pooled(include_gold=False)`` column-wise, in its order: item ``p`` is (``query_ids[p]``,
    ``doc_ids[p]``), its ``item_key`` ``keys[p]``."""

    query_ids: list[str]
    doc_ids: list[str]
    keys: list[str]


def item_key(query_id: str, doc_id: str) -> str:
    """An item's key as ``GradeColumns.keys`` spells it."""
    return f"{query_id}\t{doc_id}"


@dataclass(frozen=True)
class ProgressFacts:
    """The counts behind the organiser's report (``toolkit.judging.progress``).

    ``queue``: per assessor and topic of their queue, assessor by name then topic order — (assessor,
    query_id, assigned, judged, skipped, unrateable, median ms, total ms) by each item's status, whose decision
    is the top of the assessor's whole stack (an adjudication of their own item counts as neither judged nor
    skipped); the times are those of the settled items. ``medians``: per assessor, the median reading time of
    their settled decisions in force on any item; ``gold``: per assessor, gold items graded and graded right;
    ``fast``: (assessor, query_id, doc_id, ms) of every grade in force given faster than asked, in topic order;
    ``disagreements``: items (gold aside) graded differently by two or more assessors, ``adjudicated`` of them.
    """

    queue: tuple[tuple[str, str, int, int, int, int, float | None, int], ...]
    medians: Mapping[str, float]
    gold: Mapping[str, tuple[int, int]]
    fast: tuple[tuple[str, str, str, int], ...]
    disagreements: int
    adjudicated: int


#: ``ReadQueries.progress_medians``: per (assessor, query_id), and per assessor.
ProgressMedians = tuple[Mapping[tuple[str, str], float], Mapping[str, float]]


class ReadQueries(ABC):
    """The queries behind the read models (part of the store interface, ``toolkit.judging.store``)."""

    @abstractmethod
    def current_judgments(self, *, include_gold: bool = False) -> list[Judgment]:
        """Every assessor's decision in force (``judge``, ``skip``, ``unrateable``: adjudications are not
        assessors' decisions), with the note in force; gold items left out unless asked."""

    @abstractmethod
    def current_grades(self, *, include_gold: bool = False, notes: bool = False) -> list[Grade]:
        """The decisions in force that are grades (``judge``), as lean rows: what export, agreement and the
        adjudication queue read; the note in force only when asked (it costs a join)."""

    @abstractmethod
    def decision_counts(self) -> dict[tuple[str, bool], int]:
        """(action, on a gold item) → how many decisions in force."""

    @abstractmethod
    def adjudications(self) -> dict[tuple[str, str], Judgment]:
        """(query_id, doc_id) → the adjudication in force (the latest, whoever the adjudicator)."""

    @abstractmethod
    def progress_facts(
        self, fast_below_ms: int, medians: Callable[[], ProgressMedians] | None = None
    ) -> ProgressFacts:
        """What the organiser's report counts, in one pass over the log (see ``ProgressFacts``); its medians
        from ``medians`` when given (``progress_medians`` read on another connection, called once the counts
        are read), else read by ``progress_medians``."""

    @abstractmethod
    def progress_medians(self) -> ProgressMedians:
        """The report's reading-time medians: (assessor, query_id) → the median of the queue's settled items
        of that topic, and assessor → the median of their settled decisions in force (``ProgressFacts``)."""

    @abstractmethod
    def session_segments(self, width_s: float) -> list[tuple[Any, ...]]:
        """Each assessor's log events (adjudications aside) grouped by when they happened, in windows of about
        ``width_s`` seconds, in log order: (assessor, first id, last id, first time, its reading time, last
        time, decisions, their reading time in ms). Only candidates: ``toolkit.judging.progress`` checks where
        a pause between two of them is a session's end, exactly."""

    @abstractmethod
    def pool_counts(self) -> tuple[int, int, int, int, int, dict[str, int]]:
        """(latest round, pooled items, items the latest round queued, pool items nobody is assigned, of
        which the latest round's, each assignee → their items from the latest round)."""

    @abstractmethod
    def stale_items(self) -> list[Item]:
        """Assigned items re-queued as stale, each assessor's (by name) in queue order."""

    @abstractmethod
    def pooled(self, *, include_gold: bool = True) -> list[tuple[str, str]]:
        """Every pooled (query_id, doc_id), topic order then doc id; gold items left out unless asked."""

    @abstractmethod
    def log_position(self) -> tuple[int, int | None]:
        """(events in the log, the last event's id)."""

    @abstractmethod
    def log_suspects(self) -> list[LogEvent]:
        """The events, in log order, that may break the rules of ``event_problem`` or undo what is not
        a decision of their assessor on their item (names aside); ``export.check_log`` decides on each."""

    @abstractmethod
    def log_assessors(self) -> list[str]:
        """Every name in the log (adjudicators too)."""

    def grade_columns(self) -> GradeColumns | None:
        """``current_grades()`` column-wise (``toolkit.judging.sql.columns``), for export; None when this store
        cannot read them so (the caller reads rows)."""
        return None

    def pool_columns(self) -> PoolColumns | None:
        """``pooled(include_gold=False)`` column-wise (``toolkit.judging.sql.columns``), for export; None when
        this store cannot read it so (the caller reads rows)."""
        return None
