"""The fast path of ``read_run``: Arrow columns put in trec_eval order, with vectorised checks.

Why: a 5-million-line run read line by line into a dict of dicts takes tens of seconds and gigabytes. Here
``toolkit.formats.tables`` reads the file with pyarrow's CSV reader (query ids dictionary-encoded, doc ids in
one Arrow string array, scores as doubles), and this module puts each topic into trec_eval's order — score
descending compared as doubles, ties by doc id descending, byte by byte — sorting only what is out of order:

* rows are grouped by topic (a stable sort only when a topic comes back later in the file);
* adjacent pairs are compared with numpy; only ties listed with doc ids ascending, and whole topics with rising
  scores, are sorted (by Arrow, on those rows only);
* a doc listed twice in a topic is found through a 64-bit hash of (topic, doc id) — equal hashes are compared
  as strings, so a collision just costs a reread by the line reader.

The storage (``RankedColumns``) keeps the columns, an ``order`` array (canonical position → row) and per-topic
offsets: about 30 bytes a result, no Python object per line. ``RankedResults`` is its ``Mapping`` face for the
rest of the toolkit; the scoring engine and the ``trec_eval`` drop-in use the columns directly.

Whatever the column reader cannot vouch for (``tables.Irregular``) makes ``read_ranked`` return None, and
``read_run`` rereads the file line by line: that reader is the definition of the format and names the first bad
line. ``tests/formats/test_reader_property.py`` holds the two paths to each other and to trec_eval's rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from toolkit.formats.tables import (
    PRIME,
    Irregular,
    arrow,
    compute,
    mix64,
    numbers,
    pool,
    read_table,
    release_memory,
    string_hashes,
    take,
)


@runtime_checkable
class RankedTopic(Protocol):
    """One topic's results kept in trec_eval order, handed out without building a dict (``TopicResults``).

    The scoring engine asks for the ranking, or for the prefix down to the last doc it needs, instead of
    re-sorting ``doc_id → score`` itself; any storage with these two methods gets the fast path.
    """

    def ranking(self, depth: int | None = None) -> list[str]: ...

    def prefix(self, wanted: Sequence[str], depth: int) -> tuple[list[str], int]: ...


@runtime_checkable
class RankedRun(Protocol):
    """A run's results that already know each topic's trec_eval order (``RankedResults``)."""

    def ranking(self, query_id: str, depth: int | None = None) -> list[str]: ...


# --- hashing doc ids column-wise -------------------------------------------------------------------------


def row_keys(codes: Any, topic_hashes: Any, doc_hashes: Any) -> Any:
    """The hash of (topic, doc) of every row, from the topic code, each topic's hash and the doc hash.

    Computed in place in ``doc_hashes`` (which is returned), so that no 8-byte-per-row temporary piles up.
    """
    import numpy as np

    spread = topic_hashes[codes]
    spread *= np.uint64(PRIME)
    doc_hashes ^= spread
    del spread
    return mix64(np, doc_hashes)


def has_duplicates(keys: Any, same: Any, *, starts: Any = None) -> bool:
    """True when two rows have the same key and ``same(i, j)`` says they are the same (topic, doc).

    With ``starts`` (the rows of topic t are ``starts[t] … starts[t+1]-1``), keys are compared within each topic
    only — all a duplicate can be, since a key hashes the topic too — by sorting a topics × longest-topic matrix
    row by row: many small sorts in cache instead of one over every row (a third of the time on 5 million).
    """
    import numpy as np

    equal_keys = _equal_in_topics(np, keys, starts) if starts is not None else None
    if equal_keys is None:
        ordered = np.sort(keys)
        equal_keys = ordered[1:][ordered[1:] == ordered[:-1]]
    if not len(equal_keys):
        return False
    suspects = np.flatnonzero(np.isin(keys, equal_keys))
    by_key: dict[int, list[int]] = {}
    for row in suspects.tolist():
        by_key.setdefault(int(keys[row]), []).append(row)
    return any(same(rows[0], other) for rows in by_key.values() for other in rows[1:])


#: The padding of the per-topic matrix (a real key equal to it sends the check to the global sort).
_PAD = (1 << 64) - 1


def _equal_in_topics(np: Any, keys: Any, starts: Any) -> Any:
    """Keys that occur twice within one topic, or None when the matrix would be too sparse to pay."""
    lengths = np.diff(starts)
    if not len(lengths):
        return keys[:0]
    width = int(lengths.max())
    if width * len(lengths) > 1.5 * len(keys) + 1024:
        return None  # topics of very different lengths: one global sort is cheaper
    if (lengths == width).all():
        matrix = np.sort(keys.reshape(len(lengths), width), axis=1)
    else:
        if (keys == np.uint64(_PAD)).any():
            return None
        matrix = np.full((len(lengths), width), np.uint64(_PAD), np.uint64)
        topic = np.repeat(np.arange(len(lengths)), lengths)
        matrix[topic, np.arange(len(keys)) - starts[:-1][topic]] = keys
        matrix.sort(axis=1)
    equal = matrix[:, 1:] == matrix[:, :-1]
    if not (lengths == width).all():
        equal &= matrix[:, 1:] != np.uint64(_PAD)
    return matrix[:, 1:][equal]


# --- the storage ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RankedColumns:
    """A run in trec_eval order, column-wise.

    ``topics[t]`` is topic t's id (order of first appearance); its results are the canonical positions
    ``starts[t] … starts[t+1]-1``; position p holds row ``order[p]`` of ``docs`` (an Arrow array in file order)
    with score ``scores[p]``. ``codes[row]`` is the topic of each row and ``keys[row]`` the hash of (topic, doc).
    Doc ids are ``str``; a ``binary`` run (the trec_eval drop-in's, any bytes) decodes them as latin-1.
    """

    topics: tuple[str, ...]
    starts: Any
    order: Any
    scores: Any
    docs: Any
    codes: Any
    keys: Any
    binary: bool = False

    def topic_index(self) -> dict[str, int]:
        return {q: t for t, q in enumerate(self.topics)}

    def doc_ids(self, positions: Any) -> list[str]:
        """Doc ids at canonical positions (a numpy array), as Python strings."""
        values = take(self.docs, arrow(self.order[positions])).to_pylist()
        return [v.decode("latin-1") for v in values] if self.binary else values


class TopicResults(Mapping[str, float]):
    """One topic's ``doc_id → score``, iterated in trec_eval order; doc ids are made strings only when asked."""

    __slots__ = ("_run", "_t", "_dict")

    def __init__(self, run: RankedColumns, t: int) -> None:
        self._run = run
        self._t = t
        self._dict: dict[str, float] | None = None

    def _span(self, depth: int | None = None) -> tuple[int, int]:
        a, b = int(self._run.starts[self._t]), int(self._run.starts[self._t + 1])
        return a, b if depth is None else min(b, a + max(depth, 0))

    def ranking(self, depth: int | None = None) -> list[str]:
        """Doc ids in trec_eval order, the top ``depth`` only when given."""
        import numpy as np

        a, b = self._span(depth)
        return self._run.doc_ids(np.arange(a, b))

    def prefix(self, wanted: Sequence[str], depth: int) -> tuple[list[str], int]:
        """The ranking down to the last doc in ``wanted`` (at least ``depth`` docs) and the number of docs."""
        docs = self.ranking()
        if wanted:
            keep = set(wanted)
            last = max((i for i, d in enumerate(docs) if d in keep), default=-1)
            depth = max(depth, last + 1)
        return docs[:depth], len(docs)

    def scores(self) -> Any:
        a, b = self._span()
        return self._run.scores[a:b]

    def _lookup(self) -> dict[str, float]:
        if self._dict is None:
            self._dict = dict(zip(self.ranking(), self.scores().tolist(), strict=True))
        return self._dict

    def __getitem__(self, doc_id: str) -> float:
        return self._lookup()[doc_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ranking())

    def __len__(self) -> int:
        a, b = self._span()
        return b - a

    def items(self):  # type: ignore[no-untyped-def, override]
        """(doc_id, score) pairs in trec_eval order, without building the lookup dict."""
        return list(zip(self.ranking(), self.scores().tolist(), strict=True))


V_co = TypeVar("V_co", covariant=True)


class ByTopic(Mapping[str, V_co]):
    """``query_id → value`` over columns read by topic (a run's, a qrels'): membership, order (the topics' first
    appearance) and size come from the topic list alone, so answering them never builds a topic's value."""

    def __init__(self, topics: Sequence[str]) -> None:
        self._topics = topics
        self._index = {q: t for t, q in enumerate(topics)}

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._topics)

    def __len__(self) -> int:
        return len(self._topics)


class RankedResults(ByTopic[TopicResults]):
    """``query_id → TopicResults`` in order of first appearance; ``ranking(query_id)`` is trec_eval order."""

    def __init__(self, columns: RankedColumns) -> None:
        super().__init__(columns.topics)
        self.columns = columns

    def ranking(self, query_id: str, depth: int | None = None) -> list[str]:
        t = self._index.get(query_id)
        return TopicResults(self.columns, t).ranking(depth) if t is not None else []

    def __getitem__(self, query_id: str) -> TopicResults:
        return TopicResults(self.columns, self._index[query_id])


# --- reading -------------------------------------------------------------------------------------------

RUN_NAMES = ["query_id", "q0", "doc_id", "rank", "score", "run_tag"]


def read_ranked(
    path: str | Path, *, data: bytes | None = None, binary: bool = False, block: int | None = None
) -> tuple[RankedColumns, bytes, bytes] | None:
    """The run in trec_eval order and its first and last data lines, or None to use the line reader.

    ``binary=True`` reads doc ids as bytes (the drop-in: any bytes, NaN scores left to its line reader) and
    ``data`` gives the file's bytes instead of ``path`` (standard input).
    """
    import pyarrow as pa

    text = pa.binary() if binary else pa.string()
    types = {"query_id": pa.dictionary(pa.int32(), text), "doc_id": text, "score": pa.float64()}
    try:
        read = read_table(path, RUN_NAMES, types, data=data, block=block, keyed=("query_id", "doc_id"))
        columns = [read.table.column(name) for name in types]
        first, last, keys, block_rows = read.first, read.last, read.keys, read.block_rows
        del read  # canonical() drops each column once it has what it needs: memory stays near one copy
        return canonical(columns, binary=binary, keys=keys, block_rows=block_rows), first, last
    except Irregular:
        return None


def dictionary_codes(column: Any) -> tuple[Any, Any]:
    """Row codes and the dictionary (an Arrow array, order of first appearance) of a dictionary column."""
    unified = column.unify_dictionaries(memory_pool=pool())  # one dictionary for every chunk
    return numbers(unified), unified.chunk(0).dictionary


def canonical(
    columns: list[Any], *, binary: bool = False, keys: Any = None, block_rows: Any = None
) -> RankedColumns:
    """Put the rows of ``[query ids, doc ids, scores]`` (Arrow, emptied here) in trec_eval order.

    ``keys``: the rows' (topic, doc) hashes when the reader computed them, ``block_rows`` the rows of each
    block it found no duplicate in (``tables.read_table``); otherwise both are computed here.
    ``Irregular`` for a duplicate doc or a non-finite score.
    """
    import numpy as np
    import pyarrow as pa

    # the doc ids stay in the chunks Arrow parsed them into: one buffer would be a second copy of the
    # largest column at the peak (90 MiB on 5 million unique doc ids); takes look chunks up
    docs = columns.pop(1)
    codes, dictionary = dictionary_codes(columns.pop(0))
    release_memory()  # each column's chunks, once copied, go back to the system before the next copy
    values = dictionary.to_pylist()
    topics = [v.decode("latin-1") for v in values] if binary else values
    scores = numbers(columns.pop(0))
    release_memory()
    n, n_topics = len(scores), len(topics)
    if not binary and not np.isfinite(scores).all():
        raise Irregular  # inf, nan: the line reader names the line
    if binary and np.isnan(scores).any():
        raise Irregular  # NaN orders the drop-in's way (glibc's merge sort), which its line path reproduces
    boundary = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    stretches = np.concatenate(([0], boundary)).astype(np.int64)
    if len(stretches) == n_topics and (codes[stretches] == np.arange(n_topics)).all():
        # every topic in one stretch, in code order (codes number topics by first appearance)
        grouped = True  # row order groups the topics: keys[starts[t]:starts[t+1]] are topic t's
        order = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
        starts = np.concatenate(([0], boundary, [n])).astype(np.int64)
    else:
        grouped = False
        order = np.argsort(codes, kind="stable")
        starts = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=n_topics)))).astype(np.int64)
        scores = scores[order]
    del boundary, stretches
    order, scores = _fix_order(np, pa, starts, order, scores, docs)
    release_memory()
    if keys is None:
        keys = row_keys(codes, string_hashes(dictionary), string_hashes(docs))
        block_rows = None

    def same(i: int, j: int) -> bool:
        return bool(codes[i] == codes[j] and docs[i].as_py() == docs[j].as_py())

    if grouped and block_rows is not None:
        duplicated = _duplicated_across_blocks(np, keys, same, codes, starts, block_rows)
    else:
        duplicated = has_duplicates(keys, same, starts=starts if grouped else None)
    if duplicated:
        raise Irregular  # the line reader names the duplicate's line
    return RankedColumns(tuple(topics), starts, order, scores, docs, codes, keys, binary)


def _duplicated_across_blocks(
    np: Any, keys: Any, same: Any, codes: Any, starts: Any, block_rows: Any
) -> bool:
    """``has_duplicates`` for a grouped run whose blocks hold no duplicate each: only a topic whose rows
    cross a block's edge can hold one, so only those topics' keys are compared (a few thousand rows, not
    every row: a sort of 5 million keys was a tenth of the time on a file of unique doc ids)."""
    edges = np.cumsum(block_rows)[:-1]
    edges = edges[(edges > 0) & (edges < len(codes))]
    crossing = np.sort(codes[edges][codes[edges - 1] == codes[edges]])  # (np.unique imports numpy.ma)
    if not len(crossing):
        return False
    crossing = crossing[np.concatenate(([True], crossing[1:] != crossing[:-1]))]
    lengths = starts[crossing + 1] - starts[crossing]
    rows = np.repeat(starts[crossing] - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    sub_starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    return has_duplicates(keys[rows], lambda i, j: same(int(rows[i]), int(rows[j])), starts=sub_starts)


def _fix_order(np: Any, pa: Any, starts: Any, order: Any, scores: Any, docs: Any) -> tuple[Any, Any]:
    """Sort the rows out of trec_eval order: whole topics with rising scores, else just the misordered ties.

    Works on the tie pairs (positions p with ``scores[p] == scores[p+1]`` in one topic), not on every row: a
    stretch of consecutive pairs is one tie group, and only groups holding a pair listed with doc ids
    ascending (or equal: a duplicate, reported later) are sorted, by Arrow, as are topics with rising scores.
    """
    n = len(scores)
    if n < 2:
        return order, scores
    same = np.ones(n - 1, bool)
    same[starts[1:-1] - 1] = False
    rising_at = np.flatnonzero(same & (scores[:-1] < scores[1:]))
    pairs = np.flatnonzero(same & (scores[:-1] == scores[1:]))
    del same
    wrong = np.zeros(len(pairs), bool)
    if len(pairs):
        upper = take(docs, arrow(order[pairs]))
        lower = take(docs, arrow(order[pairs + 1]))
        wrong = numbers(compute("less_equal", upper, lower))
    if not len(rising_at) and not wrong.any():
        return order, scores
    # tie groups: runs of consecutive pair positions; group g covers positions first[g] … last[g] + 1
    new_group = np.ones(len(pairs), bool)
    new_group[1:] = pairs[1:] != pairs[:-1] + 1
    group = np.cumsum(new_group) - 1
    first = pairs[new_group]
    last = pairs[np.append(new_group[1:], True)] if len(pairs) else pairs
    bad = np.zeros(len(first), bool)
    bad[group[wrong]] = True
    lo, hi = first[bad], last[bad] + 2
    if len(rising_at):
        topic_of_pair = np.searchsorted(starts, rising_at, side="right") - 1
        topics = np.unique(topic_of_pair)
        inside = np.zeros(len(starts) - 1, bool)
        inside[topics] = True
        keep = ~inside[np.searchsorted(starts, lo, side="right") - 1]
        lo = np.concatenate((lo[keep], starts[topics]))
        hi = np.concatenate((hi[keep], starts[topics + 1]))
        by_start = np.argsort(lo, kind="stable")
        lo, hi = lo[by_start], hi[by_start]
    sizes = hi - lo
    positions = np.repeat(lo - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))
    block = np.repeat(lo, sizes)
    rows = order[positions]
    keyed = pa.Table.from_arrays(
        [arrow(block), arrow(scores[positions]), take(docs, arrow(rows))],
        names=["block", "score", "doc"],
    )
    from pyarrow._compute import SortOptions

    sort_keys = [("block", "ascending"), ("score", "descending"), ("doc", "descending")]
    sorted_idx = numbers(compute("sort_indices", keyed, options=SortOptions(sort_keys=sort_keys)))
    order[positions] = rows[sorted_idx]  # both are this module's own arrays: changed in place
    scores[positions] = scores[positions][sorted_idx]
    return order, scores
