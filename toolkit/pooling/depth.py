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
    order = {name: i for i, name in enumerate(names)}
    entries: dict[str, dict[str, tuple[Source, ...]]] = {}
    for query_id in topic_order(runs, topics):
        found: dict[str, list[Source]] = {}
        for run in runs:
            for rank, doc_id in enumerate(run.ranking(query_id)[:depth], start=1):
                sources = found.get(doc_id)
                if sources is None:
                    found[doc_id] = [(run.name, rank)]
                else:
                    sources.append((run.name, rank))
        # Best rank first, then the earliest run (in the order given) holding the doc at that rank.
        keyed = sorted((min((rank, order[run]) for run, rank in src), doc) for doc, src in found.items())
        entries[query_id] = {doc: tuple(sorted(found[doc], key=lambda s: (s[1], s[0]))) for _, doc in keyed}
    return Pool(entries=entries, strategy="depth", runs=names, depth=depth)
