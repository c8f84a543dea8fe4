"""Graded judgments held column-wise: integer codes for assessors, topics and items, and the grades.

Why: ``agree`` on 628,200 judgments spent most of its time on Python objects — a ``Rating`` per judgment, a
dict per item, a list per pair and topic. Every statistic here is a count over (assessor, item, grade), so
the judgments are numbered once: assessors and topics in natural order (``q2`` before ``q10``; pairs and
per-topic rows come out in that order), items by topic and then document, and each statistic is a
``bincount`` or an intersection of sorted arrays (``toolkit.agreement.agree``).

A ``RatingTable`` is also a sequence of ``Rating`` (built on demand), so code that iterates judgments keeps
working.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from toolkit.agreement.judgments import Rating

#: Compiled once: ``re.split`` with a pattern string looks it up in ``re``'s cache on every call (an export's
#: 3,000 topic ids: tens of milliseconds).
_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[Any, ...]:
    """``q2`` before ``q10``: topic and doc ids are often numbered; ids the numbers alone do not tell apart
    (``q01``, ``q1``) in string order, so that the order never depends on the order of the input."""
    pieces = _DIGITS.split(text)  # odd places hold the runs of digits
    parts = tuple((0, int(part), "") if i % 2 else (1, 0, part) for i, part in enumerate(pieces))
    return (parts, text)


@dataclass(frozen=True, eq=False)
class RatingTable(Sequence[Rating]):
    """Graded judgments, one row per judgment in the order given.

    ``assessor`` and ``topic`` are codes into ``assessors`` and ``topics`` (both in natural order); ``item``
    numbers the distinct (topic, doc) pairs, in topic order; ``item_topic[i]`` is item ``i``'s topic code.
    ``doc_ids`` (any sequence of str, e.g. an Arrow array) is only read to give back ``Rating``s.
    """

    assessors: tuple[str, ...]
    topics: tuple[str, ...]
    assessor: Any
    topic: Any
    item: Any
    grade: Any
    item_topic: Any
    doc_ids: Any

    @property
    def n_items(self) -> int:
        return len(self.item_topic)

    def __len__(self) -> int:
        return len(self.grade)

    @overload
    def __getitem__(self, index: int) -> Rating: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Rating]: ...

    def __getitem__(self, index: int | slice) -> Rating | Sequence[Rating]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = range(len(self))[index]
        doc = self.doc_ids[i]
        return Rating(
            self.assessors[int(self.assessor[i])],
            self.topics[int(self.topic[i])],
            doc.as_py() if hasattr(doc, "as_py") else doc,
            int(self.grade[i]),
        )

    def __iter__(self) -> Iterator[Rating]:
        docs = self.doc_ids.to_pylist() if hasattr(self.doc_ids, "to_pylist") else self.doc_ids
        for a, t, doc, g in zip(
            self.assessor.tolist(), self.topic.tolist(), docs, self.grade.tolist(), strict=True
        ):
            yield Rating(self.assessors[a], self.topics[t], doc, g)

    @classmethod
    def from_ratings(cls, ratings: Sequence[Rating]) -> RatingTable:
        """A table of ``Rating``s (or 4-tuples of assessor, query id, doc id, integer grade)."""
        import numpy as np

        assessors: dict[str, int] = {}
        topics: dict[str, int] = {}
        docs: dict[str, int] = {}
        n = len(ratings)
        codes = np.empty((3, n), np.int64)
        grades = np.empty(n, np.int64)
        doc_ids = []
        for row, (assessor, query_id, doc_id, grade) in enumerate(ratings):
            codes[0, row] = assessors.setdefault(assessor, len(assessors))
            codes[1, row] = topics.setdefault(query_id, len(topics))
            codes[2, row] = docs.setdefault(doc_id, len(docs))
            grades[row] = grade
            doc_ids.append(doc_id)
        return _numbered(
            codes[0], list(assessors), codes[1], list(topics), codes[2], len(docs), grades, doc_ids
        )

    @classmethod
    def from_columns(
        cls, assessor: Sequence[str], query_id: Sequence[str], doc_id: Sequence[str], grade: Sequence[int]
    ) -> RatingTable:
        """A table of four equally long columns of Python values — what a campaign store's lean rows give —
        numbered as ``from_ratings`` numbers the same judgments, without a ``Rating`` per judgment (a campaign's
        342,302 grades: the agreement summary in 1.1 s CPU instead of 2.8 s). The caller vouches for one
        judgment per assessor and item and integer grades (``normalise``'s checks), as the store's decisions in
        force are.

        Numbered with dicts at C speed (``dict.fromkeys``, ``map``), not Arrow: ``pyarrow.array`` of Python
        values imports pandas (0.3 s) to ask whether they are a pandas object, which ``export`` cannot afford.
        """
        import numpy as np

        def encoded(values: Sequence[str]) -> tuple[Any, list[str]]:
            names = list(dict.fromkeys(values))
            code = {name: i for i, name in enumerate(names)}
            return np.fromiter(map(code.__getitem__, values), np.int64, len(values)), names

        a, assessors = encoded(assessor)
        t, topics = encoded(query_id)
        d, docs = encoded(doc_id)
        grades = np.fromiter(grade, np.int64, len(grade))
        return _numbered(a, assessors, t, topics, d, len(docs), grades, doc_id)

    @classmethod
    def from_items(
        cls,
        item: Any,
        assessor: Any,
        assessors: Sequence[str],
        grade: Any,
        query_ids: Sequence[str],
        doc_ids: Sequence[str],
    ) -> RatingTable:
        """A table of judgments already numbered by item — judgment ``i`` is ``assessors[assessor[i]]``'s
        ``grade[i]`` on item ``item[i]``, the item (``query_ids[item[i]]``, ``doc_ids[item[i]]``), items in
        topic order then doc id (numpy arrays; what ``toolkit.judging.itemgrades`` reads for export) —
        numbered exactly as ``from_columns`` numbers the same judgments listed in item order (so the
        statistics add their terms in the same order, to the same bits): documents by their first item.
        One dict entry a distinct item instead of three a judgment."""
        import numpy as np

        n_items = len(query_ids)
        judged = np.flatnonzero(np.bincount(item, minlength=n_items))
        every = len(judged) == n_items  # the common case: no list to make
        judged_list = judged.tolist()

        def encoded(names_of_item: Sequence[str]) -> tuple[Any, list[str]]:
            names = names_of_item if every else [names_of_item[i] for i in judged_list]
            unique = list(dict.fromkeys(names))
            code = dict(zip(unique, range(len(unique)), strict=True))  # at C speed, not a comprehension
            of_item = np.zeros(n_items, np.int64)
            of_item[judged] = np.fromiter(map(code.__getitem__, names), np.int64, len(names))
            return of_item[item], unique

        topic, topics = encoded(query_ids)
        doc, docs = encoded(doc_ids)
        rows = list(map(doc_ids.__getitem__, item.tolist()))
        return _numbered(assessor, list(assessors), topic, topics, doc, len(docs), grade, rows)

    @classmethod
    def from_arrays(cls, assessor: Any, query_id: Any, doc_id: Any, grade: Any) -> RatingTable:
        """A table of Arrow string arrays of assessors, query ids and doc ids, and a numpy array of grades."""
        import numpy as np
        import pyarrow.compute as pc

        def encoded(array: Any) -> tuple[Any, Any]:
            codes = pc.dictionary_encode(array)
            return np.asarray(codes.indices.to_numpy(zero_copy_only=False), np.int64), codes.dictionary

        a, assessors = encoded(assessor)
        t, topics = encoded(query_id)
        d, docs = encoded(doc_id)
        grades = np.asarray(grade, np.int64)
        return _numbered(a, assessors.to_pylist(), t, topics.to_pylist(), d, len(docs), grades, doc_id)


def _numbered(
    assessor: Any,
    assessors: list[str],
    topic: Any,
    topics: list[str],
    doc: Any,
    n_docs: int,
    grade: Any,
    doc_ids: Any,
) -> RatingTable:
    """Renumber assessors and topics in natural order and number the items (topic, then doc code)."""
    import numpy as np

    def natural(names: list[str], codes: Any) -> tuple[tuple[str, ...], Any]:
        order = sorted(range(len(names)), key=lambda i: natural_key(names[i]))
        rank = np.empty(len(names), np.int64)
        rank[order] = np.arange(len(names))
        return tuple(names[i] for i in order), rank[codes] if len(codes) else codes

    assessor_names, assessor = natural(assessors, assessor)
    topic_names, topic = natural(topics, topic)
    keys, item = np.unique(topic * max(n_docs, 1) + doc, return_inverse=True)
    return RatingTable(
        assessor_names,
        topic_names,
        assessor,
        topic,
        item.reshape(-1),
        grade,
        keys // max(n_docs, 1),
        doc_ids,
    )
