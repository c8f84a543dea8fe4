"""The fast path of ``read_run``: vectorised validation, topics kept compact and already in trec_eval order.

Why: a 7-million-line run read line by line into a dict of dicts takes tens of seconds and gigabytes. Here the
file is checked in large blocks — every line must be ASCII with six columns separated by one space (or one tab),
no comments, no blank lines — with one ``bytes.translate`` per block, then parsed column-wise with numpy
(``toolkit.formats.columns``), optionally by two forked processes. Each topic is stored as one newline-joined string of doc ids in trec_eval order plus a float64 array of
scores, about 20 bytes a result instead of ~150.

The line-by-line reader stays the definition of the format: whenever a block is not plainly regular (mixed
separators, comments, odd spacing, non-ASCII) or anything is wrong (bad column count, bad score, duplicate doc),
``read_ranked`` returns None and ``read_run`` rereads the file line by line, which accepts what it accepts and
reports the first bad line exactly.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from toolkit.formats.textfile import read_bytes

BLOCK_BYTES = 8 << 20


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


class TopicResults(Mapping[str, float]):
    """One topic's ``doc_id → score``, iterated in trec_eval order; the dict is built only when looked up."""

    __slots__ = ("_joined", "_scores", "_dict")

    def __init__(self, joined: str, scores: Any) -> None:
        self._joined = joined
        self._scores = scores
        self._dict: dict[str, float] | None = None

    def ranking(self, depth: int | None = None) -> list[str]:
        """Doc ids in trec_eval order, the top ``depth`` only when given (splits no further than needed)."""
        if not self._joined:
            return []
        if depth is None:
            return self._joined.split("\n")
        return self._joined.split("\n", depth)[:depth]

    def prefix(self, wanted: Sequence[str], depth: int) -> tuple[list[str], int]:
        """The ranking down to the last doc in ``wanted`` (at least ``depth`` docs) and the number of docs.

        Found by substring search in the joined ids, so the docs below the cut are never split into strings.
        """
        if wanted:
            padded = f"\n{self._joined}\n"
            last = max((padded.find(f"\n{d}\n") for d in wanted), default=-1)
            if last >= 0:
                depth = max(depth, padded.count("\n", 0, last + 1))
        return self.ranking(depth), len(self._scores)

    def _lookup(self) -> dict[str, float]:
        if self._dict is None:
            self._dict = dict(zip(self.ranking(), self._scores.tolist(), strict=True))
        return self._dict

    def __getitem__(self, doc_id: str) -> float:
        return self._lookup()[doc_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self.ranking())

    def __len__(self) -> int:
        return len(self._scores)

    def items(self):  # type: ignore[no-untyped-def, override]
        """(doc_id, score) pairs in trec_eval order, without building the lookup dict."""
        return list(zip(self.ranking(), self._scores.tolist(), strict=True))


class RankedResults(Mapping[str, TopicResults]):
    """``query_id → TopicResults`` in order of first appearance; ``ranking(query_id)`` is trec_eval order."""

    def __init__(self, topics: dict[str, TopicResults]) -> None:
        self._topics = topics

    def ranking(self, query_id: str, depth: int | None = None) -> list[str]:
        topic = self._topics.get(query_id)
        return topic.ranking(depth) if topic is not None else []

    def __getitem__(self, query_id: str) -> TopicResults:
        return self._topics[query_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._topics)

    def __len__(self) -> int:
        return len(self._topics)


class _Irregular(Exception):
    """The fast path cannot vouch for this file; reread it line by line."""


def read_ranked(path: str | Path, *, workers: int | None = None) -> tuple[RankedResults, str | None] | None:
    """Results and the first run tag of a plainly regular run file, or None to use the line reader.

    With ``workers`` > 1 (or ``$TREC_TOOLKIT_WORKERS``) a large file is parsed by that many forked processes,
    each taking a contiguous byte range; a topic split across ranges is merged afterwards. The default is one
    process: on a shared 2-core machine the fork and the pickling back cost more than they saved
    (bench/README numbers).
    """
    raw = read_bytes(path)
    if not raw or not raw.isascii() or raw[:1] in (b" ", b"\t", b"#", b"\n"):
        return None
    first_line = raw[: raw.find(b"\n")] if b"\n" in raw else raw
    sep = b"\t" if b"\t" in first_line else b" "  # one tab or one space between columns, file-wide
    ranges = _ranges(raw, parallelism(len(raw), workers))
    try:
        if len(ranges) == 1:
            parsed = [_parse_range(raw, *ranges[0], sep)]
        else:
            parsed = fork_map(_parse_range_job, [(raw, a, b, sep) for a, b in ranges])
    except _Irregular:
        return None
    if any(p is None for p in parsed):
        return None
    topics: dict[str, TopicResults] = {}
    tag: str | None = None
    for part_topics, part_tag in parsed:  # type: ignore[misc]
        tag = tag or part_tag
        for query_id, joined, scores in part_topics:
            topic = TopicResults(joined, scores)
            if query_id in topics:
                earlier = topics[query_id]
                try:
                    topic = _finish([(earlier.ranking(), earlier._scores), (topic.ranking(), scores)])
                except _Irregular:
                    return None
            topics[query_id] = topic
    return RankedResults(topics), tag


#: Files smaller than this are parsed in the calling process (forking costs more than it saves).
PARALLEL_BYTES = 16 << 20


def parallelism(size: int, workers: int | None) -> int:
    """Processes for ``size`` bytes of work: ``workers`` if given, else ``$TREC_TOOLKIT_WORKERS``, else 1.

    Never more than one for small inputs, off posix, or while other threads run (forking a threaded process
    is unsafe).
    """
    import os
    import threading

    if workers is None and os.environ.get("TREC_TOOLKIT_WORKERS", "").isdigit():
        workers = int(os.environ["TREC_TOOLKIT_WORKERS"])
    if workers is None or workers <= 1:
        return 1
    if size < PARALLEL_BYTES or os.name != "posix" or threading.active_count() > 1:
        return 1
    return workers


def fork_map(func: Any, jobs: list[Any]) -> list[Any]:
    """``[func(job) for job in jobs]`` in forked worker processes (posix), results in job order.

    Fork (not spawn): the children inherit the parent's memory, so big inputs are never pickled on the way in.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _JOBS
    _JOBS = jobs
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=len(jobs), mp_context=context) as pool:
            return list(pool.map(_run_job, [(func, i) for i in range(len(jobs))]))
    finally:
        _JOBS = []


_JOBS: list[Any] = []


def _run_job(item: tuple[Any, int]) -> Any:
    func, index = item
    return func(_JOBS[index])


def _ranges(raw: bytes, parts: int) -> list[tuple[int, int]]:
    """``parts`` byte ranges that start at line starts."""
    bounds = [0]
    for k in range(1, parts):
        cut = raw.find(b"\n", len(raw) * k // parts)
        if cut < 0 or cut + 1 <= bounds[-1]:
            continue
        bounds.append(cut + 1)
    bounds.append(len(raw))
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def _parse_range_job(job: tuple[bytes, int, int, bytes]) -> Any:
    try:
        return _parse_range(*job)
    except _Irregular:
        return None


def _blocks(raw: bytes, start: int, stop: int) -> Iterator[bytes]:
    while start < stop:
        end = min(start + BLOCK_BYTES, stop)
        if end < stop:
            cut = raw.rfind(b"\n", start, end)
            end = cut + 1 if cut >= start else (raw.find(b"\n", end, stop) + 1 or stop)
        yield raw[start:end]
        start = end


_NON_SEPARATORS = bytes(range(33, 256))


def _check_block(block: bytes, sep: bytes = b" ") -> int:
    """Number of lines; raises _Irregular unless every line's whitespace is exactly five ``sep`` bytes.

    ``translate`` keeps only the bytes ≤ 32 (spaces, newlines, tabs, control bytes); for a regular block they
    spell five separators and a newline per line. A line whose five spaces are doubled, leading or trailing has
    an empty token, which the column parser then catches.
    """
    if block[:1] in (b" ", b"\t", b"#", b"\n"):
        raise _Irregular
    lines = block.count(b"\n")
    pattern = (sep * 5 + b"\n") * lines
    if not block.endswith(b"\n"):
        lines += 1
        pattern += sep * 5
    if block.translate(None, _NON_SEPARATORS) != pattern:
        raise _Irregular
    return lines


def _parse_range(
    raw: bytes, start: int, stop: int, sep: bytes = b" "
) -> tuple[list[tuple[str, str, Any]], str | None]:
    """Topics of one byte range, each finished (validated, in trec_eval order): ``(query_id, joined, scores)``.

    Blocks are parsed column-wise (``toolkit.formats.columns``); a topic that continues into the next block, or
    comes back later in the file, is merged with ``_finish``.
    """
    from toolkit.formats.columns import Irregular, parse_block

    topics: dict[str, TopicResults] = {}  # insertion order = first appearance, the line reader's order
    tag: str | None = None
    for block in _blocks(raw, start, stop):
        _check_block(block, sep)
        try:
            segments, block_tag = parse_block(block)
        except Irregular:
            raise _Irregular from None
        tag = tag or block_tag
        for query_id, joined, scores in segments:
            earlier = topics.get(query_id)
            if earlier is None:
                topics[query_id] = TopicResults(joined, scores)
            else:
                topics[query_id] = _finish(
                    [(earlier.ranking(), earlier._scores), (joined.split("\n"), scores)]
                )
    return [(q, t._joined, t._scores) for q, t in topics.items()], tag


def _finish(parts: list[tuple[list[str], Any]]) -> TopicResults:
    """One topic's docs in trec_eval order (score desc, doc_id desc); duplicates send the file to the line reader."""
    import numpy as np

    if len(parts) == 1:
        docs, scores = parts[0]
    else:
        docs = [d for part_docs, _ in parts for d in part_docs]
        scores = np.concatenate([s for _, s in parts])
    if len(set(docs)) != len(docs):
        raise _Irregular
    if len(docs) > 1:
        before, after = scores[:-1], scores[1:]
        if (before < after).any():
            order = np.lexsort((np.array(docs), scores))[::-1]
            docs, scores = [docs[i] for i in order.tolist()], scores[order]
        else:
            ties = np.flatnonzero(before == after).tolist()
            if any(docs[i] < docs[i + 1] for i in ties):
                docs, scores = _fix_ties(docs, scores, ties)
    return TopicResults("\n".join(docs), np.ascontiguousarray(scores))


def _fix_ties(docs: list[str], scores: Any, ties: list[int]) -> tuple[list[str], Any]:
    """Scores are non-increasing: sort each run of equal scores by doc_id descending, in place of a full sort."""
    docs = list(docs)
    start = None
    previous = -2
    groups = []
    for i in ties:
        if i != previous + 1:
            if start is not None:
                groups.append((start, previous + 2))
            start = i
        previous = i
    if start is not None:
        groups.append((start, previous + 2))
    for a, b in groups:
        docs[a:b] = sorted(docs[a:b], reverse=True)
    return docs, scores
