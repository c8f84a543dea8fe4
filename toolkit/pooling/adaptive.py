"""Budgeted pools: the documents an adaptive order (move-to-front, ``toolkit.pooling.mtf``, or MaxMean,
``toolkit.pooling.bandit``) visits first, ``budget`` new ones per topic.

The two orders differ only in how they walk one topic's rankings; what surrounds the walk — the budget and
depth checks, the known relevance split by topic, a per-topic budget, the provenance of every visited
document — is one function here, so the strategies cannot drift apart. MaxMean's steps are kept in the pool
(``Pool.steps``: a round stores them and ``bandit.replay`` checks them); a move-to-front walk is its runs
and known relevance alone, and keeps none.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence

from toolkit.errors import UsageError
from toolkit.model import Run
from toolkit.pooling.bandit import Step, maxmean_walk
from toolkit.pooling.mtf import mtf_order
from toolkit.pooling.pool import Pool, Source, provenance, run_names, topic_order


def adaptive_pool(
    runs: Sequence[Run],
    strategy: str,
    *,
    budget: int,
    depth: int | None = None,
    topics: Iterable[str] | None = None,
    known: Mapping[tuple[str, str], bool | None] | None = None,
    budgets: Mapping[str, int] | None = None,
) -> Pool:
    """Pool by ``strategy`` (``mtf`` or ``maxmean``) with ``budget`` new documents per topic (``budgets``
    overrides it per topic, e.g. a total split by ``toolkit.pooling.bandit.split_budget``).

    Every visited doc is in the pool (the known ones too, so provenance covers them); each carries every
    (run, rank) that has it within ``depth`` (anywhere when None).
    """
    if strategy not in ("mtf", "maxmean"):
        raise UsageError(f"unknown adaptive pooling strategy {strategy!r}; use mtf or maxmean")
    if budget < 1:
        raise UsageError(f"--budget must be at least 1, got {budget}")
    if depth is not None and depth < 1:
        raise UsageError(f"--depth must be at least 1, got {depth}")
    names = run_names(runs)
    by_topic: dict[str, dict[str, bool | None]] = {}
    for (q, d), rel in (known or {}).items():
        by_topic.setdefault(q, {})[d] = rel
    entries: dict[str, dict[str, tuple[Source, ...]]] = {}
    steps: list[Step] = []
    for query_id in topic_order(runs, topics):
        rankings = [run.ranking(query_id) if depth is None else run.ranking(query_id)[:depth] for run in runs]
        mine = budget if budgets is None else budgets.get(query_id, 0)
        seen = by_topic.get(query_id, {})
        if strategy == "mtf":
            order = [doc for doc, _ in mtf_order(rankings, budget=mine, known=seen)] if mine > 0 else []
        else:
            walk = maxmean_walk(rankings, budget=mine, known=seen) if mine > 0 else []
            order = [doc for doc, *_ in walk]
            steps.extend(
                Step(query_id, k, names[arm], rank, doc, cost, state)
                for k, (doc, arm, rank, cost, state) in enumerate(walk, start=1)
            )
        entries[query_id] = {doc: provenance(runs, query_id, doc, depth=depth) for doc in order}
    return Pool(
        entries=entries, strategy=strategy, runs=names, depth=depth, budget=budget, steps=tuple(steps)
    )


#: move-to-front under a budget (``toolkit.pooling.mtf``'s docstring says exactly which variant)
mtf_pool = functools.partial(adaptive_pool, strategy="mtf")
#: MaxMean under a budget; every step is in ``Pool.steps`` (``toolkit.pooling.bandit``'s docstring)
maxmean_pool = functools.partial(adaptive_pool, strategy="maxmean")
