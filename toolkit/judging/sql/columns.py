"""Export's read of the grades in force, column-wise: one text per column instead of a row per grade.

Why: ``export`` reads every grade in force (342,302 on the benchmark's campaign of 171,151 items graded
twice). Fetched as rows, the driver builds a tuple and four objects per grade, and the caller then walks them
in Python to group them by item and number them for the agreement summary — seconds at that size. Here the
database joins each column's values into one text (``Dialect.joined``: SQLite's ``group_concat``,
PostgreSQL's ``string_agg``), every column in one aggregate query, so the values of row ``i`` are the ``i``-th
of every column (each aggregate is fed the same rows in the same order); Python splits each text at C speed
and ``toolkit.judging.itemgrades`` numbers them with arrays.

It must never give a wrong answer, so it proves its own split: the values are joined by a line feed, and the
item key of a row (``query_id``, tab, ``doc_id``) holds one tab; a column that does not split into exactly as
many values as the query counted rows (a line feed in a value, a NULL left out), or keys that do not hold one
tab each (a tab in an id), answer None, and the caller reads rows (``current_grades``) instead.
"""

from __future__ import annotations

import bisect
import operator
import re
from collections.abc import Sequence
from typing import Any

from toolkit.judging.queries import GradeColumns, PoolColumns, item_key
from toolkit.judging.sql.dialect import Dialect

#: A character that sorts before the tab (``pool_columns`` needs none in a key).
_BELOW_TAB = re.compile("[\x00-\x08]")

#: Between two values of a column, and between the topic and the document of an item key (``item_key``).
ROW, KEY = "\n", item_key("", "")


class SQLColumnReads:
    """Column reads for export, mixed into ``SQLStore`` (which supplies ``dialect``, ``_rows`` and
    ``_decisions``)."""

    dialect: Dialect

    def _rows(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        raise NotImplementedError  # the backend's

    def _decisions(self) -> str:
        raise NotImplementedError  # ``SQLReadQueries``'

    def _not_gold(self, alias: str) -> str:
        """`` AND`` the row of ``alias`` is not a gold item — said only when the campaign has gold items
        (they are few or none; looking every row up costs a tenth of a second at 342,302 rows)."""
        (gold,) = self._rows("SELECT COUNT(*) FROM gold")[0]
        if not gold:
            return ""
        return (
            f" AND NOT EXISTS (SELECT 1 FROM gold g WHERE g.query_id = {alias}.query_id "
            f"AND g.doc_id = {alias}.doc_id)"
        )

    def grade_columns(self) -> GradeColumns | None:
        """The grades ``current_grades()`` gives (gold aside), as columns; None when they do not split
        exactly (see the module docstring): read rows then."""
        joined = self.dialect.joined
        sep, tab = f"'{ROW}'", f"'{KEY}'"
        graded = f"d.decision = 'judge'{self._not_gold('d')}"

        def of_grades(expression: str) -> str:  # NULL elsewhere: left out of the joined text
            return joined.format(f"CASE WHEN {graded} THEN {expression} END", sep)

        # one pass over the decisions in force: the grades, and whether any adjudication is in force
        n, keys, assessors, grades, adjudicated = self._rows(
            f"SELECT SUM(CASE WHEN {graded} THEN 1 ELSE 0 END), {of_grades(f'd.query_id || {tab} || d.doc_id')}, "
            f"{of_grades('d.assessor')}, {of_grades('CAST(d.grade AS TEXT)')}, COUNT(d.adjudication_id) "
            f"FROM {self._decisions()} d"
        )[0]
        n, adjudicated = int(n or 0), int(adjudicated)
        if not n:
            return GradeColumns([], [], [], adjudicated)
        if keys is None or assessors is None or grades is None or keys.count(KEY) != n:
            return None
        out = GradeColumns(keys.split(ROW), assessors.split(ROW), grades.split(ROW), adjudicated)
        if any(len(column) != n for column in (out.keys, out.assessors, out.grades)):
            return None
        return out

    def pool_columns(self) -> PoolColumns | None:
        """``pooled(include_gold=False)`` as columns, in its order (topic order, then doc id by code point);
        None when the ids do not split exactly, or a pool item's topic is not the campaign's: read rows then.

        The keys come sorted (the pool's key index gives them so; Python sorts them if not): every key's
        characters are at least a tab (checked), so the keys sort as their (topic, doc) pairs, and each
        topic's items are one run of them, found by bisection and put in topic order — a step a topic, not an
        item."""
        joined, b = self.dialect.joined, self.dialect.binary
        sep, tab = f"'{ROW}'", f"'{KEY}'"
        n, keys_text, docs_text = self._rows(
            f"SELECT COUNT(*), {joined.format(f'p.query_id || {tab} || p.doc_id', sep)}, "
            f"{joined.format('p.doc_id', sep)} FROM (SELECT p.query_id, p.doc_id FROM pool_items p "
            f"WHERE 1 = 1{self._not_gold('p')} ORDER BY p.query_id{b}, p.doc_id{b}) AS p"
        )[0]
        n = int(n)
        if not n:
            return PoolColumns([], [], [])
        if (
            keys_text is None
            or docs_text is None
            or keys_text.count(KEY) != n
            or _BELOW_TAB.search(keys_text)
        ):
            return None
        keys, docs = keys_text.split(ROW), docs_text.split(ROW)
        if len(keys) != n or len(docs) != n:
            return None
        if not all(map(operator.le, keys, keys[1:])):
            order = sorted(range(n), key=keys.__getitem__)
            keys, docs = [keys[i] for i in order], [docs[i] for i in order]
        topics = self._rows("SELECT query_id, ord FROM topics")
        last = max((o for _, o in topics if o is not None), default=0) + 1
        topics.sort(key=lambda t: (last if t[1] is None else t[1], t[0]))  # as ``_in_topic_order``
        out = PoolColumns([], [], [])
        for query_id, _ in topics:
            lo = bisect.bisect_left(keys, query_id + KEY)
            hi = bisect.bisect_left(keys, query_id + ROW, lo)  # ROW sorts right after KEY
            out.keys.extend(keys[lo:hi])
            out.doc_ids.extend(docs[lo:hi])
            out.query_ids.extend([query_id] * (hi - lo))
        return out if len(out.keys) == n else None  # else some item's topic is not the campaign's
