"""The campaign store: one SQLite file per judging campaign (DESIGN §8).

Why SQLite with these settings: WAL lets assessors read while another writes; ``synchronous=FULL`` makes a
committed judgment survive a power cut, not just a killed process; ``busy_timeout`` lets several
processes (several assessors' TUIs, an import) write into one file at once by waiting their turn. Every
write is one ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction that has committed before the method returns, so
the UI may move on as soon as ``record`` returns (DESIGN §5 "Nothing is lost").

The judgment log is append-only: ``undo`` appends an event that cancels an earlier one, and the current
judgment is derived from the log (``toolkit.judging.log``). Assessor-facing records (``Item``,
``Document``) carry no run names or ranks; ``provenance()`` is the organiser's accessor.

Organiser-side writes that ``pool`` and ``assign`` use (``set_topics``, ``add_round``,
``add_assignments``) live here too, so that every write shares the same transaction discipline.
"""

from __future__ import annotations

import sqlite3
import statistics
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from toolkit.errors import StoreError
from toolkit.judging import log as judgment_log
from toolkit.judging.organiser import OrganiserMixin
from toolkit.judging.records import (
    DECISIONS,
    AssessorGrade,
    CampaignTopic,
    Disagreement,
    Document,
    Item,
    Judgment,
    LogEvent,
    ProgressRow,
    check_assessor,
    now_iso,
)
from toolkit.judging.schema import connect, migrate

_LOG_COLUMNS = (
    "id, time, assessor, query_id, doc_id, action, grade, note, duration_ms, position, content_hash, undoes"
)


class CampaignStore(OrganiserMixin):
    """A judging campaign in one SQLite file. Use ``CampaignStore.open(path)``; close it (or use ``with``)."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()
        self._depth = 0  # nesting level of transaction()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(cls, path: str | Path, *, create: bool = False) -> CampaignStore:
        """Open a campaign; ``create=True`` makes a new empty one when the file does not exist.

        A missing file without ``create`` raises ``StoreError`` with the command that makes one; a file that
        is not a campaign, or comes from a newer schema, is refused. Older schemas are migrated in place.
        """
        p = Path(path)
        new = not p.exists()
        if new and not create:
            raise StoreError(f"{p}: no such campaign; create one with `trec-toolkit pool RUN… -o {p}`")
        if p.is_dir():
            raise StoreError(f"{p}: is a directory; pass the campaign's .sqlite file")
        if new:
            p.parent.mkdir(parents=True, exist_ok=True)
        conn = connect(p)
        try:
            migrate(conn, p, new=new or create)
        except StoreError:
            conn.close()
            raise
        return cls(conn, p)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> CampaignStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One durable write: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back whole on any error.

        Nested uses join the outermost transaction, so several writes can be made atomic together.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise StoreError(
                    f"{self.path}: cannot start a write ({exc}); is another process stuck?"
                ) from None
            self._depth = 1
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise StoreError(f"{self.path}: write failed and was rolled back ({exc})") from None
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot read the campaign ({exc})") from None

    # ------------------------------------------------------------------ topics, grades, documents

    def topics(self) -> list[CampaignTopic]:
        """The campaign's topics in topic-set order."""
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics ORDER BY ord"
        )
        return [CampaignTopic(*row) for row in rows]

    def topic(self, query_id: str) -> CampaignTopic:
        rows = self._rows(
            "SELECT query_id, query, description, narrative, query_class FROM topics WHERE query_id = ?",
            (query_id,),
        )
        if not rows:
            raise StoreError(f"{self.path}: no topic {query_id!r} in this campaign")
        return CampaignTopic(*rows[0])

    def grades(self) -> dict[int, str]:
        """The grade scale shown to assessors: grade → definition, ascending."""
        return dict(self._rows("SELECT grade, definition FROM grades ORDER BY grade"))

    def assessors(self) -> list[str]:
        """Assessors with assignments or log events (adjudicators only when they also judged), sorted."""
        rows = self._rows(
            "SELECT assessor FROM assignments UNION "
            "SELECT assessor FROM judgment_log WHERE action IN ('judge','skip','unrateable') ORDER BY 1"
        )
        return [r[0] for r in rows]

    def document(self, doc_id: str) -> Document:
        """The latest snapshot of a document (text as pooled; ``fetch_error`` set if fetching failed)."""
        rows = self._rows(
            "SELECT doc_id, title, text, content_hash, fetch_error FROM snapshots WHERE doc_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (doc_id,),
        )
        if not rows:
            raise StoreError(f"{self.path}: no snapshot of document {doc_id!r} in this campaign")
        return Document(*rows[0])

    def has_document(self, doc_id: str) -> bool:
        return bool(self._rows("SELECT 1 FROM snapshots WHERE doc_id = ? LIMIT 1", (doc_id,)))

    def latest_hashes(self) -> dict[str, str | None]:
        """doc_id → content hash of its latest snapshot."""
        rows = self._rows("SELECT doc_id, content_hash FROM snapshots ORDER BY id")
        return {doc: h for doc, h in rows}

    # ------------------------------------------------------------------ queues

    def queue(self, assessor: str) -> list[Item]:
        """The assessor's items in their seeded presentation order."""
        rows = self._rows(
            "SELECT a.assessor, a.query_id, a.doc_id, a.position, a.overlap, a.gold, COALESCE(p.stale, 0) "
            "FROM assignments a LEFT JOIN pool_items p ON p.query_id = a.query_id AND p.doc_id = a.doc_id "
            "WHERE a.assessor = ? ORDER BY a.position",
            (assessor,),
        )
        return [Item(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]), bool(r[6])) for r in rows]

    def _status(self, item: Item, current: Judgment | None, hashes: Mapping[str, str | None]) -> str:
        """``todo``, ``skip``, ``judge`` or ``unrateable``; a stale item judged on old text is ``todo``."""
        if current is None:
            return "todo"
        if item.stale and current.action != "skip" and current.content_hash != hashes.get(item.doc_id):
            return "todo"
        return current.action

    def _statuses(self, assessor: str) -> list[tuple[Item, str]]:
        items = self.queue(assessor)
        current = judgment_log.derive_current(self._events("WHERE assessor = ?", (assessor,)))
        hashes = self.latest_hashes()
        return [(i, self._status(i, current.get((assessor, i.query_id, i.doc_id)), hashes)) for i in items]

    def resume_position(self, assessor: str) -> int:
        """Index in ``queue(assessor)`` of ``next_item`` (``len(queue)`` when the assessor is done).

        Items without a decision come first, in queue order; skipped items come back once every other
        item is decided. Judged and unrateable items are done (stale ones judged on old text are not).
        """
        statuses = self._statuses(assessor)
        for wanted in ("todo", "skip"):
            for index, (_, status) in enumerate(statuses):
                if status == wanted:
                    return index
        return len(statuses)

    def next_item(self, assessor: str) -> Item | None:
        """The item the assessor should judge now, or None when their queue is done."""
        statuses = self._statuses(assessor)
        for wanted in ("todo", "skip"):
            for item, status in statuses:
                if status == wanted:
                    return item
        return None

    # ------------------------------------------------------------------ the log

    def _events(self, where: str = "", params: Sequence[Any] = ()) -> list[LogEvent]:
        rows = self._rows(f"SELECT {_LOG_COLUMNS} FROM judgment_log {where} ORDER BY id", params)
        return [LogEvent(*row) for row in rows]

    def log(self) -> list[LogEvent]:
        """The full append-only log, oldest first."""
        return self._events()

    def _check_item(self, conn: sqlite3.Connection, query_id: str, doc_id: str) -> None:
        if conn.execute("SELECT 1 FROM topics WHERE query_id = ?", (query_id,)).fetchone() is None:
            raise StoreError(f"{self.path}: no topic {query_id!r} in this campaign")
        known = conn.execute(
            "SELECT 1 FROM pool_items WHERE query_id = ? AND doc_id = ? UNION "
            "SELECT 1 FROM gold WHERE query_id = ? AND doc_id = ? UNION "
            "SELECT 1 FROM snapshots WHERE doc_id = ?",
            (query_id, doc_id, query_id, doc_id, doc_id),
        ).fetchone()
        if known is None:
            raise StoreError(f"{self.path}: document {doc_id!r} is not in this campaign (topic {query_id!r})")

    def _append(
        self,
        conn: sqlite3.Connection,
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
        grades: Collection[int] | None = None,
    ) -> int:
        check_assessor(assessor)
        if action in ("judge", "adjudicate"):
            scale = grades if grades is not None else [r[0] for r in conn.execute("SELECT grade FROM grades")]
            if grade is None or isinstance(grade, bool) or grade not in scale:
                allowed = ", ".join(str(g) for g in sorted(scale))
                raise StoreError(f"grade {grade!r} is not on this campaign's scale ({allowed})")
        elif grade is not None:
            raise StoreError(
                f"a {action!r} carries no grade (got {grade!r}); skip and unrateable are never grades"
            )
        if action != "undo":
            self._check_item(conn, query_id, doc_id)
        row = conn.execute(
            "SELECT content_hash FROM snapshots WHERE doc_id = ? ORDER BY id DESC LIMIT 1", (doc_id,)
        ).fetchone()
        cursor = conn.execute(
            "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade, note, duration_ms, "
            "position, content_hash, undoes) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                now_iso(),
                assessor,
                query_id,
                doc_id,
                action,
                grade,
                note,
                duration_ms,
                position,
                row[0] if row else None,
                undoes,
            ),
        )
        return int(cursor.lastrowid or 0)

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
    ) -> int:
        """Append a decision (``judge`` with a grade, ``skip`` or ``unrateable`` without) and commit it.

        Returns the event id once the transaction is durable. Re-judging an item appends a new decision;
        the latest one is current.
        """
        if action not in DECISIONS:
            raise StoreError(f"unknown action {action!r}; use one of {', '.join(DECISIONS)}")
        with self.transaction() as conn:
            return self._append(
                conn,
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
        with self.transaction() as conn:
            scale = [r[0] for r in conn.execute("SELECT grade FROM grades")]
            ids: list[int] = []
            for assessor, query_id, doc_id, grade, action, note in rows:
                if action not in DECISIONS:
                    raise StoreError(f"unknown action {action!r}; use one of {', '.join(DECISIONS)}")
                ids.append(
                    self._append(
                        conn, assessor, query_id, doc_id, action, grade=grade, note=note, grades=scale
                    )
                )
            return ids

    def undo(self, assessor: str) -> Item | None:
        """Cancel the assessor's latest decision still in force (appends an ``undo``); returns its item.

        Repeated undos walk further back; an item re-judged twice returns to its earlier grade. None when
        there is nothing left to undo.
        """
        with self.transaction() as conn:
            events = self._events("WHERE assessor = ?", (assessor,))
            target = judgment_log.latest_decision(events)
            if target is None:
                return None
            self._append(conn, assessor, target.query_id, target.doc_id, "undo", undoes=target.event_id)
        for item in self.queue(assessor):
            if (item.query_id, item.doc_id) == (target.query_id, target.doc_id):
                return item
        return Item(assessor, target.query_id, target.doc_id, position=-1)

    def add_note(self, assessor: str, query_id: str, doc_id: str, text: str) -> int:
        """Attach a note to an item without changing its decision."""
        with self.transaction() as conn:
            return self._append(conn, assessor, query_id, doc_id, "note", note=text)

    def adjudicate(
        self, adjudicator: str, query_id: str, doc_id: str, grade: int, *, note: str | None = None
    ) -> int:
        """Record the adjudicator's final grade for an item (undoable with ``undo(adjudicator)``)."""
        with self.transaction() as conn:
            return self._append(conn, adjudicator, query_id, doc_id, "adjudicate", grade=grade, note=note)

    # ------------------------------------------------------------------ derived views

    def current(self, assessor: str, query_id: str, doc_id: str) -> Judgment | None:
        """The assessor's current decision on one item, derived from the log."""
        events = self._events(
            "WHERE assessor = ? AND query_id = ? AND doc_id = ?", (assessor, query_id, doc_id)
        )
        return judgment_log.derive_current(events).get((assessor, query_id, doc_id))

    def gold(self) -> dict[tuple[str, str], int]:
        """Gold items (query_id, doc_id) → known grade."""
        return {(q, d): g for q, d, g in self._rows("SELECT query_id, doc_id, grade FROM gold")}

    def _ordered(self, judgments: Iterable[Judgment]) -> list[Judgment]:
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        return sorted(
            judgments, key=lambda j: (order.get(j.query_id, len(order)), j.query_id, j.doc_id, j.assessor)
        )

    def current_judgments(self, *, include_gold: bool = False) -> list[Judgment]:
        """Every assessor's current decision (adjudications excluded), in topic order then doc id."""
        gold = set() if include_gold else set(self.gold())
        current = judgment_log.derive_current(self._events("WHERE action != 'adjudicate' OR action IS NULL"))
        return self._ordered(
            j for j in current.values() if j.action != "adjudicate" and (j.query_id, j.doc_id) not in gold
        )

    def adjudications(self) -> dict[tuple[str, str], Judgment]:
        """(query_id, doc_id) → the current adjudication (the latest, whoever the adjudicator)."""
        events = self._events("WHERE action = 'adjudicate' OR action = 'undo'")
        current = judgment_log.derive_current(events)
        out: dict[tuple[str, str], Judgment] = {}
        for j in sorted(current.values(), key=lambda j: j.event_id):
            if j.action == "adjudicate":
                out[(j.query_id, j.doc_id)] = j
        return out

    def progress(self) -> list[ProgressRow]:
        """Per assessor and topic: assigned, judged, skipped, unrateable, remaining, median ms per decision."""
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        rows: list[ProgressRow] = []
        for assessor in sorted({r[0] for r in self._rows("SELECT DISTINCT assessor FROM assignments")}):
            current = judgment_log.derive_current(self._events("WHERE assessor = ?", (assessor,)))
            by_topic: dict[str, list[tuple[str, int | None]]] = {}
            for item, status in self._statuses(assessor):
                j = current.get((assessor, item.query_id, item.doc_id))
                by_topic.setdefault(item.query_id, []).append((status, j.duration_ms if j else None))
            for query_id in sorted(by_topic, key=lambda q: (order.get(q, len(order)), q)):
                entries = by_topic[query_id]
                count = {s: sum(1 for e in entries if e[0] == s) for s in ("judge", "skip", "unrateable")}
                times = [ms for s, ms in entries if s in ("judge", "unrateable") and ms is not None]
                rows.append(
                    ProgressRow(
                        assessor,
                        query_id,
                        len(entries),
                        count["judge"],
                        count["skip"],
                        count["unrateable"],
                        len(entries) - count["judge"] - count["unrateable"],
                        float(statistics.median(times)) if times else None,
                    )
                )
        return rows

    def disagreements(self) -> list[Disagreement]:
        """Items graded by ≥ 2 assessors whose grades differ, widest spread first (then topic order, doc)."""
        by_item: dict[tuple[str, str], list[Judgment]] = {}
        for j in self.current_judgments():
            if j.action == "judge":
                by_item.setdefault((j.query_id, j.doc_id), []).append(j)
        adjudicated = self.adjudications()
        order = {t.query_id: i for i, t in enumerate(self.topics())}
        out: list[Disagreement] = []
        for (query_id, doc_id), js in by_item.items():
            grades = [j.grade for j in js if j.grade is not None]
            if len(js) < 2 or len(set(grades)) < 2:
                continue
            adj = adjudicated.get((query_id, doc_id))
            out.append(
                Disagreement(
                    query_id,
                    doc_id,
                    tuple(AssessorGrade(j.assessor, j.grade, j.note) for j in js if j.grade is not None),
                    max(grades) - min(grades),
                    adj.grade if adj else None,
                    adj.assessor if adj else None,
                )
            )
        return sorted(out, key=lambda d: (-d.spread, order.get(d.query_id, len(order)), d.query_id, d.doc_id))

    def stale_items(self) -> list[Item]:
        """Assigned items re-queued because their document's text changed since they were judged."""
        rows = self._rows("SELECT DISTINCT assessor FROM assignments ORDER BY assessor")
        return [item for (assessor,) in rows for item in self.queue(assessor) if item.stale]
