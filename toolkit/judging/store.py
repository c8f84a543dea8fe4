"""The campaign store interface: what every command needs from a campaign, whatever database holds it.

A store is the **write side and the raw reads** of a campaign (docs/design.md §8): topics and the grade scale, the
pool and its provenance, document snapshots, assignments, gold items, and the append-only judgment log.
A backend implements the abstract methods below — each one a single query or a single write, so its SQL
sits in one place (``toolkit.judging.sqlite``, ``toolkit.judging.postgres``) — and inherits everything that is a
*rule* rather than storage, so every backend applies the same rules:

- which events may be appended (``record``, ``record_many``, ``undo``, ``add_note``, ``adjudicate``): decisions
  are ``judge`` with a grade on the scale, or ``skip`` / ``unrateable`` without one; the item must be in the
  campaign; assessor names follow the judgments format;
- what an ``undo`` cancels (``toolkit.judging.log.latest_decision``);
- the current judgment of one item, derived from the log (``current_decision``);
- conditional writes (``record(…, expect_event=)``, ``undo(…, expect_event=)``): the decision in force is read
  inside the write transaction and a ``ConflictError`` is raised instead of writing when it is not the one
  the caller saw — one assessor in two windows never overwrites silently.

Durability is the backend's promise: every write method has committed before it returns, and
``transaction()`` groups several writes into one all-or-nothing commit (nested uses join the outer one).

What is *computed* from a campaign lives in the read models, plain functions over this interface:
``toolkit.judging.queue`` (item status, the resume order, stale items), ``toolkit.judging.progress``
(progress per assessor and topic, the organiser's report) and ``toolkit.judging.disagreements``. What they
need from a whole campaign — every current judgment, counts per assessor and topic — the store computes in
the database, one query each (``toolkit.judging.queries``, the interface's read half).

Assessor-facing records (``Item``, ``Document``) carry no run names or ranks; ``provenance()`` is the
organiser's accessor.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from toolkit.errors import StoreError
from toolkit.judging import log as judgment_log
from toolkit.judging.queries import ReadQueries
from toolkit.judging.records import (
    DECISIONS,
    CampaignTopic,
    Document,
    Inclusion,
    Item,
    Judgment,
    LogEvent,
    OrderStep,
    PoolItem,
    Provenance,
    RoundInfo,
    check_assessor,
    now_iso,
)

if TYPE_CHECKING:
    from toolkit.judging.dump import CampaignDump

#: ``expect_event`` value meaning "no decision in force on the item" (log event ids start at 1).
NO_DECISION = 0


class MissingCampaignError(StoreError):
    """No campaign at this location (``open`` without ``create``)."""


class CampaignExistsError(StoreError):
    """``create`` found a campaign at the location: it existed already, or another process made it first."""


class BusyError(StoreError):
    """Another process held the campaign's write lock for longer than the busy timeout; nothing was written.

    Safe to retry: the write did not happen (a screen queues the decision and tries again)."""


class ReadOnlyError(StoreError):
    """The campaign may be read but not written by this process (permissions, a read-only file system)."""


class ConflictError(StoreError):
    """A conditional write found another decision in force than the caller saw; nothing was written.

    ``current`` is the decision in force now (None when there is none), for the screen to show before it
    asks whether to replace it.
    """

    def __init__(self, message: str, *, current: Judgment | None) -> None:
        super().__init__(message)
        self.current = current


@dataclass(frozen=True)
class EventFacts:
    """What the rules check an event against: the grade scale, the topic (None when the campaign has no such
    topic) and whether the document may be judged for it (pooled or gold for the topic, or snapshotted)."""

    grades: Mapping[int, str]
    topic: CampaignTopic | None
    known: bool


def event_problem(
    action: str, grade: int | None, query_id: str, doc_id: str, facts: EventFacts
) -> str | None:
    """Why the campaign's rules refuse this event, or None: the one statement of what an event may be.

    A decision or adjudication carries a grade of the scale, nothing else carries one; every event but an
    undo names a topic of the campaign and a document that may be judged for it. (Who may append it, and
    on which items, is the server's to enforce: ``toolkit.judging.postgres.security``.)
    """
    if action in ("judge", "adjudicate"):
        if grade is None or isinstance(grade, bool) or grade not in facts.grades:
            shown = ", ".join(str(g) for g in sorted(facts.grades))
            return f"grade {grade!r} is not on this campaign's scale ({shown})"
    elif grade is not None:
        return f"a {action!r} carries no grade (got {grade!r}); skip and unrateable are never grades"
    if action != "undo":
        if facts.topic is None:
            return f"no topic {query_id!r} in this campaign"
        if not facts.known:
            return f"document {doc_id!r} is not in this campaign (topic {query_id!r})"
    return None


def _check_expectation(expect_event: int | None) -> None:
    if expect_event is not None and (
        isinstance(expect_event, bool) or not isinstance(expect_event, int) or expect_event < 0
    ):
        raise StoreError(f"expect_event must be an event id or NO_DECISION (0), not {expect_event!r}")


def _describe(decision: Judgment | None) -> str:
    if decision is None:
        return "no decision"
    shown = f"grade {decision.grade}" if decision.action == "judge" else decision.action
    return f"{shown} (event {decision.event_id})"


def campaign_label(location: str | Path) -> str:
    """A short name for screen titles: the campaign of a ``postgresql://`` URL, the stem of a file."""
    from toolkit.judging.postgres.url import campaign_label as label

    return label(location)


class CampaignStore(ReadQueries):
    """A judging campaign. Open one with ``CampaignStore.open(location)``; close it (or use ``with``)."""

    #: Where the campaign lives, as the user wrote it (a file path; a URL for a server backend).
    location: str
    #: True when this process may read the campaign but not write it; every write raises ``ReadOnlyError``.
    read_only: bool = False

    @classmethod
    def open(cls, location: str | Path, *, create: bool = False) -> CampaignStore:
        """Open a campaign; ``create=True`` makes a new empty one when it does not exist yet.

        A path is an SQLite file; a ``postgresql://user@host:port/db?campaign=NAME`` URL is a campaign on a
        PostgreSQL server (``toolkit.judging.postgres``). A missing campaign without ``create`` raises
        ``MissingCampaignError``. Creating is atomic: of several processes creating one campaign at once, one
        creates it and the others open it.
        """
        from toolkit.judging.postgres.url import is_campaign_url

        if is_campaign_url(location):
            from toolkit.judging.postgres import open_store

            return open_store(str(location), create=create)
        from toolkit.judging.sqlite import SQLiteStore

        return SQLiteStore.open(location, create=create)

    @classmethod
    def create(cls, location: str | Path) -> AbstractContextManager[CampaignStore]:
        """A new campaign, built out of sight and published at ``location`` only when the block succeeds.

        ``with CampaignStore.create(path) as store: …`` — the block fills the new campaign (``pool``'s first
        round); if it raises, nothing ever appears at ``location``. ``CampaignExistsError`` when a campaign is
        there already, or another process published one there while the block ran (nothing is replaced).
        """
        from toolkit.judging.postgres.url import is_campaign_url

        if is_campaign_url(location):
            from toolkit.judging.postgres import create_store

            return create_store(str(location))
        from toolkit.judging.sqlite import SQLiteStore

        return SQLiteStore.create(location)

    # ------------------------------------------------------------------ lifecycle

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> CampaignStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @abstractmethod
    def transaction(self) -> AbstractContextManager[object]:
        """One durable all-or-nothing write; nested uses join the outermost transaction."""

    # ------------------------------------------------------------------ raw reads (one query each)

    @abstractmethod
    def topics(self) -> list[CampaignTopic]:
        """The campaign's topics in topic-set order."""

    @abstractmethod
    def topic(self, query_id: str) -> CampaignTopic:
        """One topic; ``StoreError`` "no topic …" when the campaign has none by that id."""

    @abstractmethod
    def grades(self) -> dict[int, str]:
        """The grade scale shown to assessors: grade → definition, ascending."""

    @abstractmethod
    def assessors(self) -> list[str]:
        """Assessors with assignments or decisions (adjudicators only when they also judged), sorted."""

    @abstractmethod
    def assignees(self) -> list[str]:
        """Assessors with assignments, sorted."""

    @abstractmethod
    def meta(self) -> dict[str, str]: ...

    @abstractmethod
    def document(self, doc_id: str) -> Document:
        """The latest snapshot of a document (text as pooled; ``fetch_error`` set if fetching failed)."""

    @abstractmethod
    def has_document(self, doc_id: str) -> bool: ...

    @abstractmethod
    def latest_hashes(self) -> dict[str, str | None]:
        """doc_id → content hash of its latest snapshot."""

    def latest_versions(self) -> dict[str, str | None]:
        """doc_id → the doc source's version of its latest snapshot (None when the source gave none).

        Not abstract: a backend that does not store versions returns nothing, and every later round then
        fetches documents again to compare their hashes (slower, never wrong)."""
        return {}

    @abstractmethod
    def queue(self, assessor: str) -> list[Item]:
        """The assessor's items in their seeded presentation order (``stale`` from the pool)."""

    @abstractmethod
    def events(
        self,
        *,
        assessor: str | None = None,
        query_id: str | None = None,
        doc_id: str | None = None,
        actions: Collection[str] | None = None,
    ) -> list[LogEvent]:
        """Log events matching every given filter, oldest first."""

    @abstractmethod
    def gold(self) -> dict[tuple[str, str], int]:
        """Gold items (query_id, doc_id) → known grade."""

    @abstractmethod
    def pool_items(self) -> list[PoolItem]:
        """Every pooled (topic, doc), in topic order then doc id."""

    @abstractmethod
    def provenance(self, query_id: str | None = None) -> list[Provenance]:
        """Organiser only: which run put which doc in the pool at which rank, per round."""

    @abstractmethod
    def rounds(self) -> list[RoundInfo]: ...

    @abstractmethod
    def order_steps(self, round: int | None = None) -> list[OrderStep]:
        """Organiser only: the recorded steps of adaptive orders (of one round, or every round), in order."""

    @abstractmethod
    def inclusion(self, round: int | None = None) -> list[Inclusion]:
        """Organiser only: the inclusion probabilities of sampled rounds (of one round, or every round)."""

    @abstractmethod
    def knows_document(self, query_id: str, doc_id: str) -> bool:
        """The document is pooled or gold for this topic, or has a snapshot: it may be judged."""

    @abstractmethod
    def judged_topics(self) -> set[str]:
        """Topics with any grade in the log (``judge``, ``unrateable`` or ``adjudicate``, undone or not)."""

    # ------------------------------------------------------------------ organiser writes

    @abstractmethod
    def _write_topics(self, topics: Sequence[CampaignTopic], grades: Mapping[int, str]) -> None:
        """Replace the grade scale; add new topics at the end, update known ones (rules checked by the caller)."""

    @abstractmethod
    def add_round(
        self,
        *,
        strategy: str,
        depth: int | None,
        budget: int | None,
        runs: Sequence[str],
        provenance: Mapping[tuple[str, str], Sequence[tuple[str, int]]],
        queued: Collection[tuple[str, str]],
        stale: Collection[tuple[str, str]],
        snapshots: Iterable[Document],
        skipped: int,
        params: Mapping[str, Any] | None = None,
        steps: Sequence[OrderStep] = (),
        inclusion: Sequence[Inclusion] = (),
    ) -> int:
        """Record one pooling round in one transaction; returns the round number.

        ``provenance`` covers every pooled (topic, doc), judged or not; ``queued`` are the items that need
        judging (new ones and the ``stale`` ones re-queued); ``snapshots`` are the documents fetched. An
        adaptive order's ``steps`` and a sampled round's ``inclusion`` probabilities are stored with the round
        (their ``round`` field is ignored: it is this round's number).
        """

    @abstractmethod
    def add_assignments(
        self, items: Iterable[Item], *, gold: Mapping[tuple[str, str], int] | None = None
    ) -> int:
        """Store new assignments (and gold grades) in one transaction; returns how many were added."""

    @abstractmethod
    def add_snapshots(self, snapshots: Iterable[Document]) -> None:
        """Store extra snapshots (e.g. gold documents fetched at assign time)."""

    @abstractmethod
    def set_meta(self, values: Mapping[str, str]) -> None: ...

    @abstractmethod
    def set_login(self, login: str, assessor: str, *, adjudicator: bool = False) -> None:
        """Let the database login ``login`` judge as ``assessor`` (and adjudicate): what a PostgreSQL server
        enforces (``toolkit.judging.postgres.security``); an SQLite file keeps it for the campaign's copies."""

    # ------------------------------------------------------------------ the whole campaign (campaign copy)

    @abstractmethod
    def dump(self) -> CampaignDump:
        """Every row of the campaign from one consistent snapshot (``toolkit.judging.dump``)."""

    @abstractmethod
    def restore(self, dump: CampaignDump) -> None:
        """Write ``dump`` into this empty campaign in one transaction, ids and times kept; rolled back unless
        the campaign then has the dump's content hash."""

    def set_topics(self, topics: Iterable[CampaignTopic], grades: Mapping[int, str]) -> None:
        """Store (or update) topics and the grade scale, in one transaction, under two rules.

        Once a campaign holds grades its scale cannot change; and a topic already judged keeps the text its
        assessors read (query, description, narrative): a later round that rewords it is refused, not
        applied silently under grades given to the old wording. A topic nobody judged yet may be edited; a
        judged topic's class may change (it decides the measures, not what is relevant).
        """
        topics = list(topics)
        wanted = {int(g): str(d) for g, d in grades.items()}
        with self.transaction():
            judged = self.judged_topics()
            existing = self.grades()
            if judged and existing and set(existing) != set(wanted):
                raise StoreError(
                    f"{self.location}: the grade scale {sorted(wanted)} differs from the campaign's "
                    f"{sorted(existing)}; judgments exist, so use a topic set with the same grades"
                )
            stored = {t.query_id: t for t in self.topics()} if judged else {}
            for topic in topics:
                old = stored.get(topic.query_id)
                if old is None or topic.query_id not in judged:
                    continue
                for field in ("query", "description", "narrative"):
                    before, after = getattr(old, field), getattr(topic, field)
                    if before != after:
                        raise StoreError(
                            f"{self.location}: topic {topic.query_id!r} was judged on its text, and the topic "
                            f"set changes its {field} ({before!r} → {after!r}); keep the text the assessors "
                            "judged, or give the changed topic a new id"
                        )
            self._write_topics(topics, wanted)

    # ------------------------------------------------------------------ the log: one primitive …

    @abstractmethod
    def _insert_event(self, event: Mapping[str, Any]) -> int:
        """Append one checked event (inside the caller's transaction) with the content hash of the
        document's latest snapshot; returns its event id. ``event`` maps the log's columns (all but the id
        and the content hash) to their values."""

    # ------------------------------------------------------------------ … and the rules over it

    def _event_facts(self, query_id: str, doc_id: str) -> EventFacts:
        """The facts ``_append`` checks an event against; a backend may read them in one query."""
        try:
            topic: CampaignTopic | None = self.topic(query_id)
        except StoreError:
            topic = None
        return EventFacts(self.grades(), topic, self.knows_document(query_id, doc_id))

    def _append(
        self,
        assessor: str,
        query_id: str,
        doc_id: str,
        action: str,
        *,
        grade: int | None = None,
        note: str | None = None,
        duration_ms: int | None = None,
        position: int | None = None,
        undoes: int | None = None,
    ) -> int:
        """Check an event against the campaign's rules, then append it (call inside ``transaction()``)."""
        check_assessor(assessor)
        facts = self._event_facts(query_id, doc_id)
        problem = event_problem(action, grade, query_id, doc_id, facts)
        if problem:
            raise StoreError(f"{self.location}: {problem}")
        return self._insert_event(
            {
                "time": now_iso(),
                "assessor": assessor,
                "query_id": query_id,
                "doc_id": doc_id,
                "action": action,
                "grade": grade,
                "note": note,
                "duration_ms": duration_ms,
                "position": position,
                "undoes": undoes,
            }
        )

    def log(self) -> list[LogEvent]:
        """The full append-only log, oldest first."""
        return self.events()

    def record(
        self,
        assessor: str,
        query_id: str,
        doc_id: str,
        *,
        grade: int | None = None,
        action: str = "judge",
        note: str | None = None,
        duration_ms: int | None = None,
        position: int | None = None,
        expect_event: int | None = None,
    ) -> int:
        """Append a decision (``judge`` with a grade, ``skip`` or ``unrateable`` without) and commit it.

        Returns the event id once the transaction is durable. Re-judging an item appends a new decision;
        the latest one is current. With ``expect_event`` (the ``event_id`` of the decision the caller saw,
        or ``NO_DECISION``), the decision in force is checked in the same transaction first and a
        ``ConflictError`` raised, with nothing written, when it is another one.
        """
        if action not in DECISIONS:
            raise StoreError(f"unknown action {action!r}; use one of {', '.join(DECISIONS)}")
        _check_expectation(expect_event)
        with self.transaction():
            if expect_event is not None:
                now = self.current_decision(assessor, query_id, doc_id)
                if (now.event_id if now else NO_DECISION) != expect_event:
                    raise ConflictError(
                        f"{self.location}: {assessor}'s decision on ({query_id}, {doc_id}) changed in another "
                        f"window: {_describe(now)} is in force now; nothing was recorded (show it and ask "
                        "before replacing it)",
                        current=now,
                    )
            return self._append(
                assessor,
                query_id,
                doc_id,
                action,
                grade=grade,
                note=note,
                duration_ms=duration_ms,
                position=position,
            )

    def record_many(self, rows: Iterable[tuple[str, str, str, int | None, str, str | None]]) -> list[int]:
        """Append many ``(assessor, query_id, doc_id, grade, action, note)`` decisions in ONE transaction.

        Any invalid row rolls back all of them: an import never half-happens.
        """
        with self.transaction():
            ids: list[int] = []
            for assessor, query_id, doc_id, grade, action, note in rows:
                if action not in DECISIONS:
                    raise StoreError(f"unknown action {action!r}; use one of {', '.join(DECISIONS)}")
                ids.append(self._append(assessor, query_id, doc_id, action, grade=grade, note=note))
            return ids

    def undo(self, assessor: str, *, expect_event: int | None = None) -> Item | None:
        """Cancel the assessor's latest decision still in force (appends an ``undo``); returns its item.

        Repeated undos walk further back; an item re-judged twice returns to its earlier grade. None when
        there is nothing left to undo. With ``expect_event``, only when that latest decision is still event
        ``expect_event`` (``NO_DECISION``: none); otherwise ``ConflictError`` and nothing is appended.
        """
        _check_expectation(expect_event)
        with self.transaction():
            target = judgment_log.latest_decision(self.events(assessor=assessor))
            if expect_event is not None and (target.event_id if target else NO_DECISION) != expect_event:
                now = (
                    None
                    if target is None
                    else self.current_decision(assessor, target.query_id, target.doc_id)
                )
                raise ConflictError(
                    f"{self.location}: {assessor}'s latest decision changed in another window: "
                    f"{_describe(now)} is the latest now; nothing was undone",
                    current=now,
                )
            if target is None:
                return None
            self._append(assessor, target.query_id, target.doc_id, "undo", undoes=target.event_id)
        for item in self.queue(assessor):
            if (item.query_id, item.doc_id) == (target.query_id, target.doc_id):
                return item
        return Item(assessor, target.query_id, target.doc_id, position=-1)

    def add_note(self, assessor: str, query_id: str, doc_id: str, text: str) -> int:
        """Attach a note to an item without changing its decision."""
        with self.transaction():
            return self._append(assessor, query_id, doc_id, "note", note=text)

    def adjudicate(
        self, adjudicator: str, query_id: str, doc_id: str, grade: int, *, note: str | None = None
    ) -> int:
        """Record the adjudicator's final grade for an item (undoable with ``undo(adjudicator)``)."""
        with self.transaction():
            return self._append(adjudicator, query_id, doc_id, "adjudicate", grade=grade, note=note)

    # ------------------------------------------------------------------ current judgments (from the log)

    def current_decision(self, assessor: str, query_id: str, doc_id: str) -> Judgment | None:
        """The assessor's decision in force on one item, derived from the log (one read, one snapshot).

        Its ``event_id`` is what a conditional ``record``/``undo`` expects (``expect_event``).
        """
        events = self.events(assessor=assessor, query_id=query_id, doc_id=doc_id)
        return judgment_log.derive_current(events).get((assessor, query_id, doc_id))

    def current(self, assessor: str, query_id: str, doc_id: str) -> Judgment | None:
        """``current_decision`` under its older name."""
        return self.current_decision(assessor, query_id, doc_id)
