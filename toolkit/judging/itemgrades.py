"""Every grade in force numbered against the pool: export's policy applied with arrays, not per item.

Why: ``export`` on a campaign of 171,151 items graded twice spent most of its time on Python objects — a
tuple per grade from the driver, a sort of them into topic order, a list of grades per item, a call of the
policy per item, and again a numbering of the same grades for the manifest's agreement summary. Here the
grades come column-wise (``CampaignStore.grade_columns``), each is numbered once by its item's position in
the pool (which the store gives in topic order), and the policy is applied to each distinct *pattern* of an
item's grades — an item's grade under ``majority``, ``mean``, ``max`` or ``min`` depends only on how many
of each grade it got, and a campaign has a few dozen such patterns for its hundred thousand items — by
``toolkit.judging.export.combine`` itself, so the rule is said once.

What it does not cover, it declines (None), and ``export_qrels`` reads rows as before: ``assessor=NAME``,
a campaign with sampled rounds, a grade or an adjudication on an item outside the pool, grades the column
read cannot give (``toolkit.judging.sql.columns``). ``tests/judging/test_export.py`` holds this path to the
row path and to a replay of the log on random campaigns, on both backends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkit.judging.queries import PoolColumns, item_key

if TYPE_CHECKING:
    from toolkit.judging.records import Judgment
    from toolkit.judging.store import CampaignStore


@dataclass(frozen=True, eq=False)
class ItemGrades:
    """The grades in force (gold aside), one row a grade, against the pool (gold aside) in topic order.

    ``query_ids[p]``, ``doc_ids[p]``: the pool's item ``p`` (``store.pooled(include_gold=False)``'s order);
    per grade: ``item`` (its item's ``p``), ``assessor`` (an index into ``assessors``, by code point) and
    ``grade`` — numpy arrays. ``position``: an item's ``item_key`` → its ``p``. ``adjudicated``: whether any
    adjudication is in force (read with the grades).
    """

    query_ids: Sequence[str]
    doc_ids: Sequence[str]
    position: Mapping[str, int]
    item: Any
    assessor: Any
    assessors: tuple[str, ...]
    grade: Any
    adjudicated: bool = True

    def __len__(self) -> int:
        return len(self.grade)


def read_item_grades(
    store: CampaignStore, pool_beside: Callable[[], PoolColumns | None] | None = None
) -> ItemGrades | None:
    """The campaign's grades in force numbered against its pool; None when the store cannot give them
    column-wise or a grade lies outside the pool (read ``store.current_grades()`` then). ``pool_beside``:
    the pool as another connection read it meanwhile (``toolkit.judging.beside``; None: read it here)."""
    columns = store.grade_columns()  # first: the statement runs while numpy is imported beside
    if columns is None:
        return None
    import numpy as np

    pool = pool_beside() if pool_beside is not None else None
    if pool is None:
        pool = store.pool_columns()  # topic order, then doc id
    if pool is None:
        rows = store.pooled(include_gold=False)
        query_ids, doc_ids = (list(c) for c in zip(*rows, strict=True)) if rows else ([], [])
        pool = PoolColumns(query_ids, doc_ids, list(map(item_key, query_ids, doc_ids)))
    query_ids, doc_ids = pool.query_ids, pool.doc_ids
    position = dict(zip(pool.keys, range(len(pool.keys)), strict=True))
    n = len(columns.keys)
    try:
        item = np.fromiter(map(position.__getitem__, columns.keys), np.int64, n)
        grade = np.array(columns.grades, dtype=np.int64) if n else np.zeros(0, np.int64)
    except (KeyError, ValueError):  # graded outside the pool; a grade that is not an integer
        return None
    assessors = tuple(sorted(set(columns.assessors)))
    code = {name: i for i, name in enumerate(assessors)}
    assessor = np.fromiter(map(code.__getitem__, columns.assessors), np.int64, n)
    return ItemGrades(query_ids, doc_ids, position, item, assessor, assessors, grade, columns.adjudicated > 0)


@dataclass(frozen=True)
class ItemChoice:
    """The policy's grade of each pool item: ``grade[p]`` where ``chosen[p]``; how many ties were broken and
    items adjudicated (as ``toolkit.judging.export.choose_grades`` counts them)."""

    grade: Any
    chosen: Any
    ties: int
    adjudicated: int


def choose_item_grades(
    grades: ItemGrades,
    base: str,
    adjudications: Mapping[tuple[str, str], Judgment],
    gold: Mapping[tuple[str, str], int],
) -> ItemChoice | None:
    """``base`` (majority, mean, max, min) applied to every graded pool item, the grade of an adjudication in
    force (not of a gold item) standing instead; None when an adjudication lies outside the pool."""
    import numpy as np

    from toolkit.judging.export import combine

    n = len(grades.query_ids)
    values, level = np.unique(grades.grade, return_inverse=True)
    k = max(len(values), 1)
    counts = np.bincount(grades.item * k + level.reshape(-1), minlength=n * k).reshape(n, k)
    chosen: Any = counts.any(axis=1)
    grade = np.zeros(n, np.int64)
    tie = np.zeros(n, bool)
    if chosen.any():
        rows = counts[chosen]
        radix = int(rows.max()) + 1
        # each row's counts as one integer (its digits in base ``radix``): a sort of integers, not of rows
        if radix**k < 2**62:
            code = rows @ (radix ** np.arange(k, dtype=np.int64))
            _, first, which = np.unique(code, return_index=True, return_inverse=True)
            patterns = rows[first]
        else:
            patterns, which = np.unique(rows, axis=0, return_inverse=True)
        ruled = [combine(np.repeat(values, pattern).tolist(), base) for pattern in patterns]
        grade[chosen] = np.array([g for g, _ in ruled], np.int64)[which.reshape(-1)]
        tie[chosen] = np.array([t for _, t in ruled], bool)[which.reshape(-1)]
    adjudicated = 0
    for key, adjudication in adjudications.items():
        if adjudication.grade is None or key in gold:
            continue
        p = grades.position.get(item_key(*key))
        if p is None:
            return None
        grade[p], chosen[p], tie[p] = adjudication.grade, True, False
        adjudicated += 1
    return ItemChoice(grade, chosen, int(tie.sum()), adjudicated)
