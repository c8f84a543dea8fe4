"""What a comparison keeps of one run: its per-topic values and ranks — so that the run itself can go.

A run of 6,980 topics × 1,000 docs takes ~140 MB even in the compact form ``formats`` reads it into; ten of
them do not fit in the 1 GB a comparison may use. Everything the statistics need from a run is small: the
per-topic value of each measure, the rank of the first relevant document within the cutoff (rank-1 buckets),
which topics it answered, its preference outcomes, Judged@k, and its refusal outcome. ``summarise_run`` takes that and nothing
else, so ``compare_runs`` reads, scores and summarises one run at a time and lets it be freed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from toolkit.model import Qrels, Run, TopicSet
from toolkit.stats.preference import PreferenceResult, evaluate_preferences

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

    from toolkit.scoring.judged import JudgedResult
    from toolkit.scoring.refusal import RefusalScores


@dataclass(frozen=True)
class RunSummary:
    """One run, reduced to what a comparison uses; ``values[measure]`` and ``ranks`` follow ``query_ids``."""

    name: str
    path: str | None
    query_ids: tuple[str, ...]
    values: dict[Measure, np.ndarray]
    ranks: tuple[int | None, ...]
    answered: tuple[bool, ...]
    preferences: PreferenceResult | None
    judged: JudgedResult
    refusal: RefusalScores


def judged_depth(measures: Sequence[Measure]) -> int:
    """The k of Judged@k: the deepest cutoff among the measures compared, 10 when none has one (the same k
    ``score`` warns at, ``toolkit.scoring.judged.warn_unjudged``)."""
    from toolkit.scoring.measures import measure_cutoff

    return max((c for c in map(measure_cutoff, measures) if c is not None), default=10)


def summarise_run(
    run: Run,
    qrels: Qrels,
    *,
    topics: TopicSet | None,
    measures: Sequence[Measure],
    cutoff: int,
    judged_measures: Sequence[Measure],
    human: bool,
    failed: Collection[str] | None = (),
) -> RunSummary:
    """Score ``run`` on ``measures`` and keep its summary (warns once when human qrels left its top k unjudged).

    ``failed`` are the run's failed topics from its manifest, None without a manifest (the refusal outcome,
    ``toolkit.scoring.refusal``)."""
    from toolkit.scoring import evaluate_many, first_relevant_rank
    from toolkit.scoring.judged import judged_at, warn_unjudged
    from toolkit.scoring.refusal import refusal_scores

    (scores,) = evaluate_many([run], qrels, topics=topics, measures=list(measures))
    ids = tuple(scores.query_ids)
    per_query = scores.per_query
    values = {}
    for m in measures:
        name = str(m)  # once: ir_measures builds the name on every call
        values[m] = np.array([per_query[q][name] for q in ids], dtype=float)
    ranks = tuple(first_relevant_rank(run, qrels, q, cutoff=cutoff) for q in ids)
    answered = tuple(bool(run.results.get(q)) for q in ids)
    preferences = evaluate_preferences(run, topics) if topics is not None else None
    checked = warn_unjudged([run], qrels, [scores], judged_measures) if human else []
    judged = checked[0] if checked else judged_at(run, qrels, ids, depth=judged_depth(judged_measures))
    refusal = refusal_scores(run, topics, qrels, failed=failed)
    return RunSummary(run.name, run.path, ids, values, ranks, answered, preferences, judged, refusal)
