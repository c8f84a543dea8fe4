"""Every vectorised kernel of the measure table held to its row's reference port, on random tie-heavy batches.

Generated from the table (``toolkit.treceval.measures.MEASURES``): each row with a ``kernel`` is computed for
every topic at once and, topic by topic, by its ``calc`` (trec_eval's C code ported statement for statement,
itself held to trec_eval built from source in ``tests/scoring/test_table.py`` and the drop-in's tests) on the
same ranked relevance lists — at relevance levels 0 to 3, with ``-J`` and without, with default and random
parameters. Every value must be the same double: a kernel added to the table is tested without anyone
remembering to.
"""

from __future__ import annotations

import random

import pytest

from toolkit.treceval import vector
from toolkit.treceval.measures import MEASURES
from toolkit.treceval.measures.base import (
    DOUBLE_CUTOFFS,
    DOUBLE_PARAMS,
    LONG_CUTOFFS,
    RELVALUE_NONPOOL,
    RELVALUE_UNJUDGED,
    Settings,
)
from toolkit.treceval.vector import Batch

KERNEL_ROWS = [row for row in MEASURES if row.kernel is not None]


def random_batch(rng: random.Random, *, max_grade: int) -> Batch:
    """Topics with qrels grades -2 … max_grade (some topics all negative, some unjudged) and rankings that mix
    judged docs (many of one grade: ties in every measure's sense) with docs the qrels do not list."""
    import numpy as np

    starts, rel, qstarts, grades = [0], [], [0], []
    for _ in range(rng.randint(1, 7)):
        top = rng.choice([max_grade, max_grade, 1, 0, -1])
        judged = [rng.randint(-2, max(top, -2)) for _ in range(rng.randint(0, 25))]
        ranking = []
        for grade in judged:
            if rng.random() < 0.7:
                ranking.append(RELVALUE_UNJUDGED if grade < 0 else grade)
        ranking += [RELVALUE_NONPOOL] * rng.randint(0, 12)
        rng.shuffle(ranking)
        if rng.random() < 0.1:
            ranking = ranking[:1]
        rel += ranking
        starts.append(len(rel))
        grades += sorted(judged, reverse=True)
        qstarts.append(len(grades))
    return Batch(np.array(starts), np.array(rel, np.int64), np.array(qstarts), np.array(grades, np.int64))


def random_params(row, rng: random.Random) -> tuple:  # type: ignore[no-untyped-def]
    if rng.random() < 0.3:
        return tuple(row.defaults)
    if row.params == LONG_CUTOFFS:
        return tuple(sorted(rng.sample(range(1, 45), rng.randint(1, 4))))
    if row.params == DOUBLE_CUTOFFS:
        return tuple(sorted(rng.sample([0.0, 0.1, 0.15, 0.2, 0.33, 0.5, 0.75, 0.9, 1.0, 1.4, 2.0], 3)))
    if row.params == DOUBLE_PARAMS:
        return tuple(sorted(rng.sample([0.0, 0.1, 0.25, 0.5, 0.6, 0.8, 1.0], rng.randint(1, 5))))
    return tuple(row.defaults)  # PAIR_PARAMS: the kernels take none (ndcg with gains is the port's)


@pytest.mark.parametrize("row", KERNEL_ROWS, ids=[row.name for row in KERNEL_ROWS])
def test_kernel_equals_its_port(row) -> None:  # type: ignore[no-untyped-def]
    compared = 0
    for seed in range(150):
        rng = random.Random(f"{row.name}-{seed}")
        batch = random_batch(rng, max_grade=4 if row.name == "ERR" else rng.choice([1, 3, 6]))
        judged_only = rng.random() < 0.25
        if judged_only:
            batch = batch.judged()
        level = rng.choice([1, 1, 2, 3, 0])
        params = random_params(row, rng)
        if not vector.usable(row.name, params, batch, level, fresh=True):
            continue
        fast = [array.tolist() for array in row.kernel(batch, level, params)]
        settings = Settings(relevance_level=level, judged_only=judged_only)
        for t in range(batch.topics):
            slow = row.calc(settings, batch.res_rels(t, level, judged_only=judged_only), params)
            got = [column[t] for column in fast]
            assert got == slow, f"seed {seed}, topic {t}, level {level}, params {params}: {got} != {slow}"
            compared += 1
    assert compared > 200
