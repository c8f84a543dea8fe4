"""Pool diagnostics for scoring with pooled human qrels: Judged@k, and leave-one-run-out pool bias.

Pooled qrels only judge what the pooled runs retrieved; everything else counts as non-relevant. Two checks
say how much that matters for a run:

- **Judged@k** — the share of a run's top k that the qrels judged (low = the run is scored on guesses);
- **leave-one-run-out** (Zobel 1998; Büttcher et al. 2007) — score each pooled run against the qrels
  *without the documents only it contributed to the pool*, as if it had not been pooled. A large drop
  says a new, unpooled system like it would be under-scored by these qrels: the pool is biased toward
  its contributors.

"Contributed" comes from the campaign's provenance when the qrels were exported from one
(``contributors_from_campaign``), else from a depth-k pool of the runs given (``pool_contributors``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolkit.judging.store import CampaignStore
from toolkit.model import Qrels, Run, Topic, TopicSet
from toolkit.scoring.judged import JudgedResult, judged_at

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

Contributors = Mapping[tuple[str, str], frozenset[str]]  # (query_id, doc_id) → runs that pooled it


def judged_at_k(
    runs: Iterable[Run], qrels: Qrels, query_ids: Sequence[str], *, k: int = 10
) -> list[JudgedResult]:
    """Judged@k of each run (ir_measures' definition; topics with no results are skipped)."""
    return [judged_at(run, qrels, query_ids, depth=k) for run in runs]


def pool_contributors(runs: Sequence[Run], *, depth: int) -> dict[tuple[str, str], frozenset[str]]:
    """Which runs have each (topic, doc) in their top ``depth`` — the depth-k pool's provenance."""
    found: dict[tuple[str, str], set[str]] = {}
    for run in runs:
        for query_id in run.results:
            for doc_id in run.ranking(query_id)[:depth]:
                found.setdefault((query_id, doc_id), set()).add(run.name)
    return {key: frozenset(names) for key, names in found.items()}


def contributors_from_campaign(store: CampaignStore) -> dict[tuple[str, str], frozenset[str]]:
    """Which runs pooled each (topic, doc), over every round of a campaign."""
    found: dict[tuple[str, str], set[str]] = {}
    for p in store.provenance():
        found.setdefault((p.query_id, p.doc_id), set()).add(p.run)
    return {key: frozenset(names) for key, names in found.items()}


def without_run(qrels: Qrels, run: str, contributors: Contributors) -> tuple[Qrels, int, int]:
    """The qrels minus the judgments of docs pooled by ``run`` alone; with how many and how many relevant."""
    kept: dict[str, dict[str, int]] = {}
    removed = removed_relevant = 0
    for query_id, docs in qrels.judgments.items():
        for doc_id, rel in docs.items():
            if contributors.get((query_id, doc_id)) == frozenset({run}):
                removed += 1
                removed_relevant += rel >= 1
                continue
            kept.setdefault(query_id, {})[doc_id] = rel
    return Qrels(judgments=kept, name=f"{qrels.name}-without-{run}", path=None), removed, removed_relevant


@dataclass(frozen=True)
class PoolBiasRow:
    """One run, one measure: the score with the full qrels and without the run's unique contributions."""

    run: str
    measure: str
    full: float
    without_own: float
    unique_docs: int
    unique_relevant: int

    @property
    def delta(self) -> float:
        """``without_own − full``: negative when the run depends on documents only it found."""
        return self.without_own - self.full


@dataclass(frozen=True)
class PoolBiasResult:
    """Leave-one-run-out over every run; ``n`` topics counted; ``source`` says where contributions came from."""

    rows: tuple[PoolBiasRow, ...]
    measures: tuple[str, ...]
    n: int
    source: str

    def worst(self, measure: str) -> PoolBiasRow | None:
        """The run that loses the most on ``measure`` when its own documents are taken out."""
        rows = [r for r in self.rows if r.measure == measure]
        return min(rows, key=lambda r: (r.delta, r.run), default=None)


def leave_one_run_out(
    runs: Sequence[Run],
    qrels: Qrels,
    *,
    topics: TopicSet | None = None,
    measures: Measure | str | Sequence[Measure | str] | None = None,
    contributors: Contributors | None = None,
    depth: int = 10,
) -> PoolBiasResult:
    """Score each run with the full qrels and without the docs only it contributed (see module docstring).

    ``contributors`` defaults to the depth-``depth`` pool of ``runs``. The denominator stays the same for
    both scores (the topic set's topics, else the full qrels'), so a topic that loses all its judgments
    still counts.
    """
    from toolkit.scoring.evaluate import denominator as counted
    from toolkit.scoring.evaluate import evaluate_many, resolve_measures

    source = "campaign provenance" if contributors is not None else f"depth-{depth} pool of the runs"
    pool = contributors if contributors is not None else pool_contributors(runs, depth=depth)
    names = tuple(str(m) for m in resolve_measures(measures, topics))
    denominator = topics or TopicSet(topics=tuple(Topic(q, q) for q in qrels.query_ids), name=qrels.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = {s.run: s for s in evaluate_many(runs, qrels, topics=denominator, measures=names)}
        rows: list[PoolBiasRow] = []
        for run in runs:
            reduced, removed, removed_rel = without_run(qrels, run.name, pool)
            if not reduced.judgments:
                reduced = Qrels(judgments={denominator.ids[0]: {}}, name=reduced.name)
            scores = evaluate_many([run], reduced, topics=denominator, measures=names)[0]
            for m in names:
                rows.append(
                    PoolBiasRow(
                        run.name, m, full[run.name].aggregate[m], scores.aggregate[m], removed, removed_rel
                    )
                )
    n = len(counted(qrels, denominator))  # the topics the values are means over (not expect = "empty" ones)
    return PoolBiasResult(rows=tuple(rows), measures=tuple(names), n=n, source=source)
