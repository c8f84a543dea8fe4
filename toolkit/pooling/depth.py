"""Depth-k pooling: the union of the top-k documents of every run, per topic (the TREC default)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.pool import Pool, Source, run_names, topic_order


def depth_pool(runs: Sequence[Run], *, depth: int, topics: Iterable[str] | None = None) -> Pool:
    """Pool the top ``depth`` of each run per topic, ranked the trec_eval way (score desc, doc_id desc).

    Docs are listed best rank first (ties between runs by run order); each carries every (run, rank) that put
    it in the pool. Topics absent from every run get no items.
    """
    if depth < 1:
        raise UsageError(f"--depth must be at least 1, got {depth}")
    names = run_names(runs)
    entries: dict[str, dict[str, tuple[Source, ...]]] = {}
    for query_id in topic_order(runs, topics):
        found: dict[str, list[Source]] = {}
        for run in runs:
            for rank, doc_id in enumerate(run.ranking(query_id)[:depth], start=1):
                found.setdefault(doc_id, []).append((run.name, rank))
        ordered = sorted(found.items(), key=lambda kv: _first_seen(kv[1], names))
        entries[query_id] = {doc: tuple(sorted(src, key=lambda s: (s[1], s[0]))) for doc, src in ordered}
    return Pool(entries=entries, strategy="depth", runs=names, depth=depth)


def _first_seen(sources: list[Source], names: tuple[str, ...]) -> tuple[int, int]:
    """Order key: best rank, then the earliest run (in the order given) holding the doc at that rank."""
    best = min(rank for _, rank in sources)
    return best, min(names.index(run) for run, rank in sources if rank == best)
