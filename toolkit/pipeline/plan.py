"""``plan``: before a study, how many topics and how many judgments (topic-set-size design, Sakai 2016).

From a pilot — runs scored against qrels, or the JSON of an earlier audit — the plan estimates σ̂_d, the
standard deviation of the primary measure's per-topic differences (``toolkit.stats.topicset``), and answers:

* the **topics needed** to detect a difference Δ with the paired t test at α and the power asked for;
* the **Δ detectable** with the topics at hand (the pilot's, or ``topics``) — the audit's minimum detectable
  effect when the power is 0.8: one formula, one statsmodels call;
* the **judgments** a study of that many topics would cost, from the pilot's runs: depth-k pooling judges the
  whole depth-k pool (its mean size per topic, times the topics); the MaxMean order
  (``toolkit.pooling.bandit``) is simulated on the pilot, one judgment at a time with the pilot's qrels
  revealing each grade, and costs the judgments it needs to find every relevant document of that pool.

α is split over ``comparisons`` (Bonferroni, as the audit's confirmatory MDE is computed at α/m for m
candidates), so a plan for a study of m candidates against a baseline agrees with that audit.

From an audit's JSON the per-topic values are not there: σ̂_d of each confirmatory comparison is recovered
from its paired t interval (``sd_from_t_interval``), and no judgment cost is given (no runs).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import FormatError, UsageError
from toolkit.stats.topicset import (
    JudgingCost,
    PlanResult,
    VarianceEstimate,
    make_plan,
    pair_variance,
    pooled_variance,
    sd_from_t_interval,
)

if TYPE_CHECKING:
    from toolkit.model import Qrels, Run, TopicSet


def plan_from_runs(
    runs: Sequence[Run],
    qrels: Qrels,
    *,
    measure: str,
    delta: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    comparisons: int = 1,
    topics: TopicSet | None = None,
    study_topics: int | None = None,
    depth: int = 20,
    min_rel: int = 1,
) -> PlanResult:
    """The plan from a pilot of runs and qrels (module docstring). The first run is the baseline: each
    candidate's pair variance is listed; the pooled 2·V_E over all runs is used (with two runs they are one
    number)."""
    import numpy as np

    from toolkit.model import Topic
    from toolkit.model import TopicSet as TopicSetType
    from toolkit.scoring.evaluate import evaluate_many

    if len(runs) < 2:
        raise UsageError("plan needs a pilot of at least 2 runs: the variance is of their differences")
    denominator = topics or TopicSetType(topics=tuple(Topic(q, q) for q in qrels.query_ids), name=qrels.name)
    scores = evaluate_many(runs, qrels, topics=denominator, measures=[measure])
    name = scores[0].measures[0]
    query_ids = scores[0].query_ids
    values = np.array([[s.per_query[q][name] for s in scores] for q in query_ids])
    baseline = scores[0].run
    pairs = [
        pair_variance(values[:, 0], values[:, k], (baseline, s.run)) for k, s in enumerate(scores) if k > 0
    ]
    pooled = pooled_variance(values)
    variances = [pooled, *pairs] if len(runs) > 2 else pairs
    used = pooled if len(runs) > 2 else pairs[0]
    costs = judging_costs(runs, qrels, query_ids, depth=depth, min_rel=min_rel)
    return make_plan(
        measure=name,
        source=f"{len(runs)} runs scored against {qrels.name}",
        pilot_topics=len(query_ids),
        runs=[s.run for s in scores],
        variances=variances,
        used=used,
        delta=delta,
        alpha=alpha,
        comparisons=comparisons,
        power=power,
        topics=study_topics,
        judging=costs,
    )


def judging_costs(
    runs: Sequence[Run], qrels: Qrels, query_ids: Sequence[str], *, depth: int, min_rel: int = 1
) -> tuple[JudgingCost, ...]:
    """Mean judgments per topic for depth-``depth`` pooling and for MaxMean to find the relevant documents
    of that pool (simulated on the pilot, the qrels revealing each grade)."""
    from toolkit.pooling.bandit import maxmean_walk
    from toolkit.pooling.depth import depth_pool

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pool = depth_pool(runs, depth=depth, topics=query_ids)
    sizes: list[int] = []
    spent: list[int] = []
    for q in query_ids:
        docs = pool.docs(q)
        sizes.append(len(docs))
        judged = qrels.judgments.get(q, {})
        relevant = {d for d in docs if judged.get(d, 0) >= min_rel}
        if not relevant:
            spent.append(0)
            continue
        rankings = [run.ranking(q)[:depth] for run in runs]
        oracle = {d: True for d in relevant}
        found = cost = 0
        for doc, _arm, _rank, step_cost, _known in maxmean_walk(
            rankings, budget=len(docs), known={}, oracle=oracle
        ):
            cost += step_cost
            found += doc in relevant
            if found == len(relevant):
                break
        spent.append(cost)
    n = max(1, len(query_ids))
    return (
        JudgingCost(f"depth-{depth}", sum(sizes) / n, 0, f"the whole depth-{depth} pool of {len(runs)} runs"),
        JudgingCost(
            "maxmean",
            sum(spent) / n,
            0,
            f"MaxMean until it has found every relevant document of the depth-{depth} pool (simulated on the pilot)",
        ),
    )


def plan_from_audit(
    path: str | Path,
    *,
    delta: float | None = None,
    alpha: float | None = None,
    power: float = 0.8,
    comparisons: int | None = None,
    study_topics: int | None = None,
) -> PlanResult:
    """The plan from an audit's (or ``compare``'s) JSON: the primary measure's comparisons, σ̂_d recovered
    from each paired t interval; the largest is used (the hardest comparison decides the topic count). α and
    the number of comparisons default to the audit's confirmatory family."""
    from toolkit.formats.report_json import read_report_json

    data = read_report_json(path)
    primary = data.get("primary")
    comparisons_data = data.get("comparisons")
    if not isinstance(primary, str) or not isinstance(comparisons_data, list):
        raise FormatError(
            path, None, "no 'primary' and 'comparisons': pass the .json an audit or compare wrote"
        )
    confirmatory = data.get("confirmatory") or {}
    level = float(alpha if alpha is not None else data.get("alpha", 0.05))
    m = int(comparisons if comparisons is not None else confirmatory.get("m", 1) or 1)
    variances: list[VarianceEstimate] = []
    notes: list[str] = []
    n = 0
    for c in comparisons_data:
        if not isinstance(c, dict) or c.get("measure") != primary:
            continue
        n = int(c.get("n", 0))
        # the paired t interval: "ci95_t" since JSON schema 3, "ci95" (method "t") before
        ci: dict[str, Any] = c.get("ci95_t") or c.get("ci95") or {}
        low, high = ci.get("low"), ci.get("high")
        if low is None or high is None or not str(ci.get("method", "t")).startswith("t"):
            notes.append(
                f"{c.get('baseline')} vs {c.get('candidate')}: {ci.get('reason') or 'no t interval'}"
            )
            continue
        sd = sd_from_t_interval(float(low), float(high), n)
        variances.append(
            VarianceEstimate(
                sd * sd,
                "variance of the pair's per-topic differences, from its paired t interval",
                n,
                2,
                (str(c.get("baseline")), str(c.get("candidate"))),
            )
        )
    if not variances:
        why = "; ".join(notes) or f"no comparison on the primary measure {primary}"
        raise UsageError(f"{path}: no variance can be recovered ({why})")
    used = max(variances, key=lambda v: v.variance)
    runs = data.get("runs") or []
    return make_plan(
        measure=primary,
        source=f"audit {path}",
        pilot_topics=n,
        runs=[str(r) for r in runs],
        variances=variances,
        used=used,
        delta=delta,
        alpha=level,
        comparisons=m,
        power=power,
        topics=study_topics,
    )
