"""The read models the database computes, written once as SQL for both backends (``Dialect`` says the rest).

Why in the database: on a judged campaign of real size (171,151 pooled items graded twice, 342,302 log events)
deriving every current judgment in Python built a record per log event on every refresh of the organiser's
screen (11.7 s) and every export (15 s). Here the database derives them and hands back what the screen or the
file needs: counts per assessor and topic, one grade per item and assessor, the few rows a screen lists.

Each statement below says in SQL a rule that ``toolkit.judging`` also says in Python, where the judging
session applies it one key at a time:

- **the decision in force** (``toolkit.judging.log``): per (assessor, topic, doc), the latest decision that no
  later undo of the same item names; an item's note is its latest note event when that is later than the
  decision (or the decision has none). The database keeps these as the log grows, in the table
  ``decisions_in_force`` (``toolkit.judging.sql.decisions``), so a read joins a row per stack instead of
  grouping the whole log;
- **an item's status** (``toolkit.judging.queue.item_status``): no decision is ``todo``; a stale item whose
  decision (not a skip) was made on another text than the latest snapshot's is ``todo`` again;
- **the rules an event must follow** (``toolkit.judging.store.event_problem``): ``log_suspects`` returns the
  events that may break them, and ``toolkit.judging.export.check_log`` judges those in Python.

``tests/judging/test_readmodels.py`` holds every statement to the Python rules on random campaigns, on both
backends. Text is ordered by code point (``Dialect.binary``), as Python orders it, whatever the server's
collation.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
from collections.abc import Callable, Collection, Sequence
from typing import Any, NamedTuple

from toolkit.judging.queries import Grade, ProgressFacts, ProgressMedians, ReadQueries
from toolkit.judging.records import Item, Judgment, LogEvent
from toolkit.judging.sql import counts
from toolkit.judging.sql.decisions import TABLE as DECISIONS_TABLE
from toolkit.judging.sql.decisions import derive
from toolkit.judging.sql.dialect import Dialect
from toolkit.judging.sql.tables import listed

Rows = list[tuple[Any, ...]]

SETTLING = counts.SETTLING
_GRADED = ("judge", "adjudicate")


def current(decisions: str, column: str, *, notes: bool = False) -> str:
    """A FROM clause over ``decisions`` (the table of the decisions in force, or its derivation): ``d`` is a
    stack, ``e`` the log row of its ``column`` (``decision_id``: the assessor's decision in force;
    ``adjudication_id``: their adjudication in force); with ``notes``, ``n`` is the item's latest note event
    (``NOTE`` is then the note in force)."""
    clause = f"{decisions} d JOIN judgment_log e ON e.id = d.{column}"
    if notes:
        clause += " LEFT JOIN judgment_log n ON n.id = d.note_id"
    return clause


#: The note in force on an item of ``current(…, notes=True)``.
NOTE = "CASE WHEN n.id IS NOT NULL AND (e.note IS NULL OR n.id > e.id) THEN n.note ELSE e.note END"


def _gold(alias: str) -> str:
    return f"EXISTS (SELECT 1 FROM gold g WHERE g.query_id = {alias}.query_id AND g.doc_id = {alias}.doc_id)"


def _numbers(values: str) -> list[float]:
    """The numbers the database joined into one text (``SQLReadQueries.progress_medians``), sorted. Reading
    times are whole milliseconds, read as integers (Python sorts those fastest); a time stored as a fraction
    is read as a float."""
    texts = values.split(",")
    try:
        return sorted(map(int, texts))
    except ValueError:
        return sorted(map(float, texts))


def _middle(ordered: list[float]) -> float:
    """The median of sorted numbers, ``statistics.median``'s: the middle one, or the mean of the middle two."""
    half = len(ordered) // 2
    return float(ordered[half]) if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


class SQLReadQueries(ReadQueries):
    """The read models' queries (``toolkit.judging.queries``), mixed into ``SQLStore``, which supplies
    ``dialect`` and ``_rows``."""

    dialect: Dialect

    def _rows(self, query: str, params: Sequence[Any] = ()) -> Rows:
        raise NotImplementedError  # the backend's

    def _columns_of(self, name: str) -> Collection[str] | None:
        raise NotImplementedError  # the backend's

    def _decisions(self) -> str:
        """The decisions in force (``toolkit.judging.sql.decisions``): the table, or — a campaign read but
        not migrated to the schema that has it — the same rows derived from the log."""
        if self._columns_of(DECISIONS_TABLE.name) is not None:
            return DECISIONS_TABLE.name
        return f"({derive()})"

    def _topic_order(self, query_id: str) -> str:
        """ORDER BY terms: topic-set order (``t`` joined on ``query_id``), topics the campaign lacks last."""
        return f"(t.ord IS NULL), t.ord, {query_id}{self.dialect.binary}"

    def _by(self, *columns: str) -> str:
        return ", ".join(f"{c}{self.dialect.binary}" for c in columns)

    # ------------------------------------------------------------------ current judgments

    def current_judgments(self, *, include_gold: bool = False) -> list[Judgment]:
        gold = "" if include_gold else f"WHERE NOT {_gold('e')} "
        rows = self._rows(
            f"SELECT e.assessor, e.query_id, e.doc_id, e.grade, e.action, {NOTE}, e.time, e.duration_ms, e.id, "
            f"e.content_hash FROM {current(self._decisions(), 'decision_id', notes=True)} LEFT JOIN topics t ON t.query_id = e.query_id "
            f"{gold}ORDER BY {self._topic_order('e.query_id')}, {self._by('e.doc_id', 'e.assessor')}"
        )
        return [Judgment(*row) for row in rows]

    def current_grades(self, *, include_gold: bool = False, notes: bool = False) -> list[Grade]:
        gold = "" if include_gold else f"AND NOT {_gold('d')} "
        # the grade is the table's; only a note needs the log's rows
        rows: list[Grade] = self._rows(
            f"SELECT d.query_id, d.doc_id, d.assessor, d.grade, {NOTE if notes else 'NULL'} "
            f"FROM {current(self._decisions(), 'decision_id', notes=True) if notes else self._decisions() + ' d'} "
            f"WHERE d.decision = 'judge' {gold}"
        )
        return self._in_topic_order(rows, 3)

    def _in_topic_order(self, rows: list[Any], width: int) -> list[Any]:
        """``rows`` sorted by topic order (topics the campaign lacks last), then by their first
        ``width`` columns (a key: unique), by code point. Sorted here rather than by the database: SQLite
        sorting the 342,302 grades of a campaign of real size by topic order cost 1-2 s of an export's 5, and
        Python sorts them in a fraction of that (by key, then stably by topic)."""
        rows.sort(key=operator.itemgetter(*range(width)))
        order = {q: o for q, o in self._rows("SELECT query_id, ord FROM topics") if o is not None}
        last = max(order.values(), default=0) + 1
        # each topic's rows are together now: put the topics (not each row) in order
        topics = [
            (order.get(q, last), list(group)) for q, group in itertools.groupby(rows, operator.itemgetter(0))
        ]
        topics.sort(key=operator.itemgetter(0))  # stable: topics the campaign lacks stay by id
        return [row for _, group in topics for row in group]

    def decision_counts(self) -> dict[tuple[str, bool], int]:
        rows = self._rows(
            f"SELECT d.decision, CASE WHEN {_gold('d')} THEN 1 ELSE 0 END, COUNT(*) FROM {self._decisions()} d "
            "WHERE d.decision IS NOT NULL GROUP BY 1, 2"
        )
        return {(action, bool(gold)): int(n) for action, gold, n in rows}

    def adjudications(self) -> dict[tuple[str, str], Judgment]:
        rows = self._rows(
            "SELECT e.assessor, e.query_id, e.doc_id, e.grade, e.action, e.note, e.time, e.duration_ms, e.id, "
            f"e.content_hash FROM {current(self._decisions(), 'adjudication_id')} ORDER BY e.id"
        )
        return {(j.query_id, j.doc_id): j for j in (Judgment(*row) for row in rows)}

    # ------------------------------------------------------------------ progress

    def _kept(self, name: str, derivation: str) -> str:
        """A table the database keeps (``toolkit.judging.sql.counts``), or — a campaign read but not migrated
        to the schema that has it — the same rows derived."""
        return name if self._columns_of(name) is not None else f"({derivation})"

    def _queue_terms(self) -> _QueueTerms:
        """What the report's statements share: the decisions in force, the kept counts of the queue, the
        match of an assignment ``a`` to a stack ``c``, and the queue's stale rule on ``c``."""
        dif = self._decisions()
        kept = self._kept(counts.QUEUE.name, counts.queue(dif))
        key = "a.assessor = c.assessor AND a.query_id = c.query_id AND a.doc_id = c.doc_id"
        # the queue's stale rule: a decision (not a skip) made on another text than a stale item's latest
        # snapshot is to do again. The stale items are few: a set to look stacks up in (a join on them made
        # PostgreSQL probe the pool once per stack), or to start from (through the table's index by item)
        redone = (
            f"c.top_action <> 'skip' AND c.top_hash {self.dialect.differs} "
            "(SELECT h.content_hash FROM snapshots h WHERE h.doc_id = c.doc_id ORDER BY h.id DESC LIMIT 1)"
        )
        return _QueueTerms(
            dif,
            kept,
            key,
            stale="s AS (SELECT query_id, doc_id FROM pool_items WHERE stale)",
            stale_todo=f"c.query_id = s.query_id AND c.doc_id = s.doc_id AND {redone}",
        )

    def progress_facts(
        self, fast_below_ms: int, medians: Callable[[], ProgressMedians] | None = None
    ) -> ProgressFacts:
        d = self.dialect
        dif, kept, key, stale, stale_todo = self._queue_terms()
        brings = counts.stack_brings("c")
        statement = (
            f"WITH {stale}, "
            # what the kept counts hold of the stacks that are to do again, to take off them
            f"r AS (SELECT c.assessor, c.query_id, SUM({brings['judged']}) AS judged, "
            f"SUM({brings['unrateable']}) AS unrateable, SUM({brings['settled_ms']}) AS ms "
            # (SQLite joins in the order written after a CROSS JOIN: from the few stale items to their stacks)
            f"FROM s CROSS JOIN {dif} c CROSS JOIN assignments a "
            f"WHERE {stale_todo} AND {key} "
            "GROUP BY c.assessor, c.query_id), "
            # grouped as the table's index by item (item, decision, grade) hands the stacks over, on both
            # backends: read from the index alone, in its order, nothing sorted or hashed. Only counted, so no
            # collation matters (equal under the server's is equal by code point); grouped by code point
            # instead, PostgreSQL hashed the 342,302 pairs (0.46 s against 0.25 s)
            "grouped AS (SELECT c.query_id, c.doc_id FROM "
            f"{dif} c WHERE c.decision = 'judge' "
            "GROUP BY c.query_id, c.doc_id HAVING COUNT(*) >= 2 AND MIN(c.grade) <> MAX(c.grade)), "
            # gold items (a gold item's every stack is gold) left out after grouping: once a disagreement, not
            # once a stack
            f"dis AS (SELECT query_id, doc_id FROM grouped c WHERE NOT {_gold('c')}) "
            "SELECT 'q' AS kind, n.assessor, n.query_id, NULL AS doc_id, n.assigned AS n1, "
            "n.judged - COALESCE(r.judged, 0) AS n2, n.skipped AS n3, n.unrateable - COALESCE(r.unrateable, 0) AS n4, "
            f"n.settled_ms - COALESCE(r.ms, 0) AS n5, NULL AS x, t.ord AS ord FROM {kept} n "
            "LEFT JOIN r ON r.assessor = n.assessor AND r.query_id = n.query_id "
            "LEFT JOIN topics t ON t.query_id = n.query_id "
            # the gold items are few: from them to their stacks
            "UNION ALL SELECT 'g', c.assessor, NULL, NULL, COUNT(*), SUM(CASE WHEN c.grade = g.grade THEN 1 ELSE 0 END), "
            f"NULL, NULL, NULL, NULL, NULL FROM gold g CROSS JOIN {dif} c "
            "WHERE c.query_id = g.query_id AND c.doc_id = g.doc_id AND c.decision = 'judge' GROUP BY c.assessor "
            "UNION ALL SELECT 'f', c.assessor, c.query_id, c.doc_id, c.decision_ms, NULL, NULL, NULL, NULL, NULL, t.ord "
            f"FROM {dif} c LEFT JOIN topics t ON t.query_id = c.query_id "
            f"WHERE c.decision = 'judge' AND c.decision_ms < {d.mark} "
            "UNION ALL SELECT 'd', NULL, NULL, NULL, COUNT(*), "
            # the adjudicated items are few: a set to look the disagreements up in (an item's stacks looked up
            # by disagreement read a row of the table each, 65,492 of them at 171,151 items)
            "SUM(CASE WHEN (dis.query_id, dis.doc_id) IN "
            f"(SELECT x.query_id, x.doc_id FROM {dif} x WHERE x.adjudication_id IS NOT NULL) THEN 1 ELSE 0 END), "
            "NULL, NULL, NULL, NULL, NULL FROM dis"
        )
        rows = self._rows(statement, (fast_below_ms,))
        by_kind: dict[str, Rows] = {}
        for row in rows:
            by_kind.setdefault(row[0], []).append(row[1:])

        def topic_order(ord_: Any, query_id: str) -> tuple[bool, int, str]:
            return (ord_ is None, ord_ or 0, query_id)

        queue = sorted(by_kind.get("q", []), key=lambda r: (r[0], *topic_order(r[9], r[1])))
        fast = sorted(by_kind.get("f", []), key=lambda r: (*topic_order(r[9], r[1]), r[2], r[0]))
        (disagreements, adjudicated) = by_kind["d"][0][3:5]
        adjudicated = adjudicated or 0  # a SUM over no disagreement
        topic_medians, per_assessor = medians() if medians is not None else self.progress_medians()
        return ProgressFacts(
            queue=tuple(
                (a, q, int(n1), int(n2), int(n3), int(n4), topic_medians.get((a, q)), int(n5 or 0))
                for a, q, _, n1, n2, n3, n4, n5, _, _ in queue
            ),
            medians=per_assessor,
            gold={a: (int(n1), int(n2)) for a, _, _, n1, n2, *_ in by_kind.get("g", [])},
            fast=tuple((a, q, doc, int(n1)) for a, q, doc, n1, *_ in fast),
            disagreements=int(disagreements),
            adjudicated=int(adjudicated),
        )

    def progress_medians(self) -> ProgressMedians:
        """The medians of the report: per assessor and topic, of the reading times of the queue's settled
        items (their stack's top settles it, the item is assigned, and not stale and to do again); per
        assessor, of their settling decisions in force on any item.

        Why this shape: the database groups the times, a row per assessor and topic with its times joined
        into one text, and Python sorts each group's and takes the middle. Before, on a campaign of 171,151
        items with a reading time on every event, SQLite (which has no median) handed the 342,302 values over
        as sorted rows (2.4 s of a 4 s report; its window functions took 4.1 s), and PostgreSQL's
        ``percentile_cont(0.5)`` sorted them by assessor and topic under the server's collation (about 2 s of a
        3 s report); grouping them in a hash and joining each group's costs either about 0.5 s. And looking
        every timed stack up in the assignments cost 0.5 s more: here a topic needs none when its settling
        stacks are as many as the kept counts' settled assigned items (then every one of them is assigned)
        and none of its items is stale and to do again. Only the other topics (few: items taken back, stale
        items) are read stack by stack, each looked up."""

        dif, kept, key, stale, stale_todo = self._queue_terms()

        def joined(value: str) -> str:
            return self.dialect.joined.format(f"CAST({value} AS TEXT)", "','")

        settled = listed(SETTLING)
        rows = self._rows(
            f"WITH {stale}, "
            "g AS (SELECT c.assessor, c.query_id, "
            f"SUM(CASE WHEN c.top_action IN ({settled}) THEN 1 ELSE 0 END) AS settled, "
            f"{joined(f'CASE WHEN c.top_action IN ({settled}) THEN c.top_ms END')} AS tms, "
            f"{joined(f'CASE WHEN c.decision IN ({settled}) THEN c.decision_ms END')} AS dms "
            # (a campaign that recorded no reading time has no median: its stacks are not grouped)
            f"FROM {dif} c WHERE EXISTS (SELECT 1 FROM {dif} x WHERE x.top_ms IS NOT NULL "
            "OR x.decision_ms IS NOT NULL) GROUP BY c.assessor, c.query_id), "
            # (SQLite joins in the order written after a CROSS JOIN: from the few stale items to their stacks)
            f"st AS (SELECT DISTINCT c.assessor, c.query_id FROM s CROSS JOIN {dif} c WHERE {stale_todo}), "
            "w AS (SELECT g.assessor, g.query_id, g.tms, g.dms, "
            "CASE WHEN g.settled = n.judged + n.unrateable AND NOT EXISTS "
            "(SELECT 1 FROM st WHERE st.assessor = g.assessor AND st.query_id = g.query_id) THEN 1 ELSE 0 END "
            f"AS whole FROM g LEFT JOIN {kept} n ON n.assessor = g.assessor AND n.query_id = g.query_id), "
            f"p AS (SELECT c.assessor, c.query_id, {joined('c.top_ms')} AS tms "
            f"FROM w CROSS JOIN {dif} c WHERE w.whole = 0 AND c.assessor = w.assessor AND c.query_id = w.query_id "
            f"AND c.top_ms IS NOT NULL AND c.top_action IN ({settled}) "
            f"AND EXISTS (SELECT 1 FROM assignments a WHERE {key}) "
            f"AND NOT EXISTS (SELECT 1 FROM s WHERE {stale_todo}) GROUP BY 1, 2) "
            "SELECT w.assessor, w.query_id, CASE WHEN w.whole = 1 THEN w.tms ELSE p.tms END, w.dms FROM w "
            "LEFT JOIN p ON p.assessor = w.assessor AND p.query_id = w.query_id"
        )
        topic_medians: dict[Any, float] = {}
        per_assessor: dict[str, list[float]] = {}
        for assessor, query_id, tms, dms in rows:
            times = None if tms is None else _numbers(tms)
            if times is not None:
                topic_medians[(assessor, query_id)] = _middle(times)
            if dms is not None:
                # the same text when every stack's top is its decision (as usual): read once
                per_assessor.setdefault(assessor, []).extend(times if dms == tms and times else _numbers(dms))
        for values in per_assessor.values():
            values.sort()  # sorted runs, one a topic: merged rather than sorted afresh
        return topic_medians, {a: _middle(values) for a, values in per_assessor.items()}

    def session_segments(self, width_s: float) -> Rows:
        d = self.dialect
        params: tuple[float, ...] = ()
        if width_s == counts.WINDOW_S and self._columns_of(counts.WINDOWS.name) is not None:
            windows = counts.WINDOWS.name
        else:
            windows, params = f"({counts.windows(d, d.mark)})", (width_s,)
        return self._rows(
            "SELECT b.assessor, b.first_id, b.last_id, f.time, f.duration_ms, l.time, b.decisions, b.ms "
            f"FROM {windows} b JOIN judgment_log f ON f.id = b.first_id JOIN judgment_log l ON l.id = b.last_id "
            "ORDER BY b.first_id",
            params,
        )

    def pool_counts(self) -> tuple[int, int, int, int, int, dict[str, int]]:
        m = self.dialect.mark
        # the pool per round, and its items nobody has per round: whether an item is assigned asked once an
        # item, and only to count the few that are not (four sums over it asked PostgreSQL twice an item, 1.6 s
        # at 171,151 items; grouping every item by whether it is assigned asked SQLite twice an item)
        rows = self._rows(
            "SELECT 'p', round, COUNT(*) FROM pool_items GROUP BY round "
            "UNION ALL SELECT 'u', i.round, COUNT(*) FROM pool_items i WHERE NOT EXISTS "
            "(SELECT 1 FROM assignments a WHERE a.query_id = i.query_id AND a.doc_id = i.doc_id) GROUP BY i.round "
            "UNION ALL SELECT 'r', MAX(round), 0 FROM rounds"
        )
        by_round: dict[str, dict[int, int]] = {"p": {}, "u": {}}
        latest = 0
        for kind, round_, n in rows:
            if round_ is not None:
                latest = max(latest, int(round_))
                if kind != "r":
                    by_round[kind][int(round_)] = int(n)
        pooled, unassigned = sum(by_round["p"].values()), sum(by_round["u"].values())
        new, new_unassigned = by_round["p"].get(latest, 0), by_round["u"].get(latest, 0)
        # each assignee's items of the latest round: when the pool holds no other round, being pooled is
        # enough, and SQLite's look-up of the item reads the pool's key index, not its row
        of_latest, params = ("", ()) if pooled == new else (f" AND p.round = {m}", (latest,))
        per = self._rows(
            "SELECT a.assessor, COUNT(p.query_id) FROM assignments a LEFT JOIN pool_items p "
            f"ON p.query_id = a.query_id AND p.doc_id = a.doc_id{of_latest} GROUP BY a.assessor",
            params,
        )
        counts = {assessor: int(n) for assessor, n in sorted(per, key=lambda r: r[0])}
        return latest, pooled, new, unassigned, new_unassigned, counts

    def stale_items(self) -> list[Item]:
        rows = self._rows(
            # the (few) stale pool items first, then who has each: SQLite joins in the order written after a
            # CROSS JOIN, and the other order probed the pool once per assignment (0.4 s at 342,302 of them)
            "SELECT a.assessor, a.query_id, a.doc_id, a.position, a.overlap, a.gold FROM pool_items p "
            "CROSS JOIN assignments a WHERE p.stale AND a.query_id = p.query_id AND a.doc_id = p.doc_id "
            f"ORDER BY {self._by('a.assessor')}, a.position"
        )
        return [Item(a, q, d, pos, bool(o), bool(g), True) for a, q, d, pos, o, g in rows]

    # ------------------------------------------------------------------ export

    def pooled(self, *, include_gold: bool = True) -> list[tuple[str, str]]:
        gold = "" if include_gold else f"WHERE NOT {_gold('p')} "
        return self._in_topic_order(self._rows(f"SELECT p.query_id, p.doc_id FROM pool_items p {gold}"), 2)

    def log_position(self) -> tuple[int, int | None]:
        count, last = self._rows("SELECT COUNT(*), MAX(id) FROM judgment_log")[0]
        return int(count), None if last is None else int(last)

    def log_suspects(self) -> list[LogEvent]:
        # Each rule a condition of the event's own row: a lookup of a topic, pool item, gold item or snapshot
        # (hashed on PostgreSQL), and the undone event looked up by key only for an undo. Joining the topics and
        # the log to itself for every event instead cost PostgreSQL 0.7 s at 342,302 events, against 0.4 s.
        # No ORDER BY: it made PostgreSQL walk the log by its key index to spare sorting the few rows found;
        # they are sorted here.
        graded = listed(_GRADED)
        fields = ", ".join(
            f"e.{'id' if f.name == 'event_id' else f.name}" for f in dataclasses.fields(LogEvent)
        )
        rows = self._rows(
            f"SELECT {fields} FROM judgment_log e WHERE "
            f"(e.action IN ({graded}) AND (e.grade IS NULL OR NOT EXISTS "
            "(SELECT 1 FROM grades g WHERE g.grade = e.grade))) "
            f"OR (e.action NOT IN ({graded}) AND e.grade IS NOT NULL) "
            "OR (e.action <> 'undo' AND (NOT EXISTS (SELECT 1 FROM topics t WHERE t.query_id = e.query_id) "
            "OR NOT (EXISTS (SELECT 1 FROM pool_items p WHERE p.query_id = e.query_id AND p.doc_id = e.doc_id) "
            f"OR {_gold('e')} OR EXISTS (SELECT 1 FROM snapshots s WHERE s.doc_id = e.doc_id)))) "
            # an undo of nothing, of an undo, or of another assessor's decision or another item
            "OR (e.action = 'undo' AND NOT EXISTS (SELECT 1 FROM judgment_log x WHERE x.id = e.undoes "
            "AND x.id < e.id AND x.action <> 'undo' AND x.assessor = e.assessor AND x.query_id = e.query_id "
            "AND x.doc_id = e.doc_id))"
        )
        return sorted((LogEvent(*row) for row in rows), key=lambda event: event.event_id)

    def log_assessors(self) -> list[str]:
        return sorted(r[0] for r in self._rows("SELECT DISTINCT assessor FROM judgment_log"))


class _QueueTerms(NamedTuple):
    """SQL terms the report's statements share, said once: ``dif`` the decisions in force, ``kept`` the
    queue's kept counts, ``key`` an assignment ``a`` matching a stack ``c``, ``stale`` the common table of the
    stale items (``s``), ``stale_todo`` a stack ``c`` of a stale item ``s`` that is to do again."""

    dif: str
    kept: str
    key: str
    stale: str
    stale_todo: str
