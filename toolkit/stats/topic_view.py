"""The per-topic view of a comparison: which topics changed, in what order, and each one's two rankings.

A verdict says *whether* a candidate is better; a reviewer's next question is *where* it got worse and why.
``TopicViews`` answers it from a ``ComparisonResult`` and the ``Rankings`` kept beside it
(``toolkit.stats.rankings``), for one (baseline, candidate) pair at a time:

* ``outcomes(candidate)`` — every topic of the comparison once, in the order a reviewer reads them: topics
  whose **outcome changed** first — rank-1 ``fixed`` or ``degraded``, ``added`` or ``removed`` (results in
  only one run), or a change of the refusal / empty-result outcome (``toolkit.stats.refusal``) — then the
  others; within each group the largest |Δ| of the primary measure first, ties in topic-set order.
* ``view(query_id, candidate)`` — one topic: its query and class, each measure's value in both runs, the
  rank-1 bucket, and both top-k rankings with each document's grade (None: unjudged), whether it is
  relevant, the first relevant document of each list, and where the same document sits in the other list
  (a move, or not in the other's top k).

The buckets, ranks and Δ are the comparison's own (``RankOutcome``, ``PairedResult.diffs``): nothing here is
computed twice. Relevant means a grade of at least 1 — the rule of ``first_relevant_rank`` the buckets use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from toolkit.model import TopicSet
from toolkit.stats.rankings import DocText, Rankings
from toolkit.stats.result import ComparisonResult

#: Rank-1 buckets that count as a changed outcome (fixed and degraded are McNemar's discordant cells; added
#: and removed are topics with results in only one run).
CHANGED_BUCKETS = ("fixed", "degraded", "added", "removed")
#: The bucket given to topics declared ``expect = "empty"``: they have no relevant document to rank, only
#: a refusal outcome.
EXPECT_EMPTY = "expect_empty"
#: The least grade of a relevant document (``toolkit.scoring.evaluate.first_relevant_rank``'s ``min_rel``).
MIN_REL = 1


@dataclass(frozen=True)
class TopicOutcome:
    """One topic for one candidate: its rank-1 bucket (``EXPECT_EMPTY`` for a topic that should find
    nothing), the first-relevant ranks, the refusal / empty-result changes in words, and Δ of the primary
    measure (None when the topic is not in its ``n``)."""

    query_id: str
    candidate: str
    bucket: str
    rank_baseline: int | None
    rank_candidate: int | None
    changes: tuple[str, ...]
    delta: float | None

    @property
    def changed(self) -> bool:
        return self.bucket in CHANGED_BUCKETS or bool(self.changes)


@dataclass(frozen=True)
class RankedDoc:
    """One document of one list: ``other_rank`` is its rank in the other run's top k (None: not there)."""

    rank: int
    doc_id: str
    grade: int | None
    other_rank: int | None
    first_relevant: bool
    text: DocText | None

    @property
    def relevant(self) -> bool:
        return self.grade is not None and self.grade >= MIN_REL

    @property
    def moved(self) -> bool:
        """In both lists, at different ranks."""
        return self.other_rank is not None and self.other_rank != self.rank


@dataclass(frozen=True)
class TopicView:
    """One topic of a (baseline, candidate) pair, as the HTML view, ``compare --show`` and
    ``ComparisonResult.topic`` show it; ``values`` are (measure, baseline value, candidate value), a value
    None when the topic is not in that measure's ``n``."""

    query_id: str
    query: str
    query_class: str | None
    baseline: str
    candidate: str
    depth: int
    outcome: TopicOutcome
    values: tuple[tuple[str, float | None, float | None], ...]
    baseline_docs: tuple[RankedDoc, ...]
    candidate_docs: tuple[RankedDoc, ...]


class TopicViews:
    """Per-topic views of ``result``; ``rankings`` from the runs compared, ``topics`` for query text and class."""

    def __init__(self, result: ComparisonResult, rankings: Rankings, topics: TopicSet | None = None) -> None:
        self.result = result
        self.rankings = rankings
        self._topics = {t.query_id: t for t in topics} if topics is not None else {}

    def candidate(self, candidate: str | None) -> str:
        """``candidate`` checked, or the first candidate."""
        from toolkit.errors import UsageError

        if candidate is None:
            return self.result.candidates[0]
        if candidate not in self.result.candidates:
            raise UsageError(
                f"{candidate!r} is not a candidate of this comparison; one of {', '.join(self.result.candidates)}"
            )
        return candidate

    @cached_property
    def query_ids(self) -> tuple[str, ...]:
        """Every topic of the comparison: the relevance measures' topics, then those that should find nothing."""
        r = self.result
        counted = tuple(r.rank1[0].ranks_baseline) if r.rank1 else ()
        empty = r.refusal[0].expect_empty if r.refusal else ()
        return tuple(dict.fromkeys((*counted, *empty)))

    def _outcome_index(self, candidate: str) -> dict[str, TopicOutcome]:
        return self._outcomes_of[candidate]

    @cached_property
    def _outcomes_of(self) -> dict[str, dict[str, TopicOutcome]]:
        return {c: self._compute_outcomes(c) for c in self.result.candidates}

    def _compute_outcomes(self, candidate: str) -> dict[str, TopicOutcome]:
        r = self.result
        rank = next(o for o in r.rank1 if o.candidate == candidate)
        bucket = {q: b for b, ids in rank.topics.items() for q in ids}
        primary = r.comparison(candidate, r.primary)
        delta = dict(zip(primary.topics, primary.diffs, strict=True)) if primary is not None else {}
        changes: dict[str, list[str]] = {}
        test = next((t for t in r.refusal_tests if t.candidate == candidate), None)
        if test is not None:
            for change, became_empty, became_answered in (
                (test.refusal, "refused now (was answered)", "answered now (was refused)"),
                (test.empty, "empty result now", "results again (was empty)"),
            ):
                if change is not None:
                    for q in change.became_empty:
                        changes.setdefault(q, []).append(became_empty)
                    for q in change.became_answered:
                        changes.setdefault(q, []).append(became_answered)
        return {
            q: TopicOutcome(
                q,
                candidate,
                bucket.get(q, EXPECT_EMPTY),
                rank.ranks_baseline.get(q),
                rank.ranks_candidate.get(q),
                tuple(changes.get(q, ())),
                delta.get(q),
            )
            for q in self.query_ids
        }

    def outcomes(self, candidate: str | None = None) -> tuple[TopicOutcome, ...]:
        """Every topic for ``candidate`` (default: the first), in the view's order (the module docstring)."""
        index = self._outcome_index(self.candidate(candidate))
        position = {q: i for i, q in enumerate(self.query_ids)}
        return tuple(
            sorted(
                index.values(),
                key=lambda o: (not o.changed, -abs(o.delta or 0.0), position[o.query_id]),
            )
        )

    def shown(self, limit: int) -> tuple[str, ...]:
        """The topics a bounded view holds: the first ``limit`` of each candidate's order (every topic when
        ``limit`` is 0 or less), in topic-set order."""
        picked: set[str] = set()
        for cand in self.result.candidates:
            outcomes = self.outcomes(cand)
            picked.update(o.query_id for o in (outcomes if limit <= 0 else outcomes[:limit]))
        return tuple(q for q in self.query_ids if q in picked)

    @cached_property
    def _values(self) -> dict[str, dict[str, dict[str, float]]]:
        """run → measure → topic → value, from the paired results (the baseline's from any candidate's)."""
        out: dict[str, dict[str, dict[str, float]]] = {run: {} for run in self.result.runs}
        for c in self.result.comparisons:
            name = str(c.measure)
            out[c.baseline].setdefault(name, dict(zip(c.topics, c.baseline_values, strict=True)))
            out[c.candidate][name] = dict(zip(c.topics, c.candidate_values, strict=True))
        return out

    def values(self, query_id: str, candidate: str) -> tuple[tuple[str, float | None, float | None], ...]:
        base, cand = self._values[self.result.baseline], self._values[candidate]
        return tuple(
            (str(m), base.get(str(m), {}).get(query_id), cand.get(str(m), {}).get(query_id))
            for m in self.result.measures
        )

    def view(self, query_id: str, candidate: str | None = None) -> TopicView:
        """One topic of the pair (baseline, ``candidate``); an unknown topic is a ``UsageError``."""
        from toolkit.errors import UsageError

        cand = self.candidate(candidate)
        outcome = self._outcome_index(cand).get(query_id)
        if outcome is None:
            sample = ", ".join(self.query_ids[:5])
            raise UsageError(
                f"topic {query_id!r} is not in this comparison ({len(self.query_ids)} topics: {sample}, …); "
                "pass one of its topic ids"
            )
        base_list = self.rankings.ranking(self.result.baseline, query_id)
        cand_list = self.rankings.ranking(cand, query_id)
        topic = self._topics.get(query_id)
        return TopicView(
            query_id,
            topic.query if topic is not None else "",
            topic.query_class if topic is not None else None,
            self.result.baseline,
            cand,
            self.rankings.depth,
            outcome,
            self.values(query_id, cand),
            self._docs(query_id, base_list, cand_list),
            self._docs(query_id, cand_list, base_list),
        )

    def _docs(self, query_id: str, docs: tuple[str, ...], other: tuple[str, ...]) -> tuple[RankedDoc, ...]:
        where = {d: i + 1 for i, d in enumerate(other)}
        grades = [self.rankings.grade(query_id, d) for d in docs]
        first = next((i for i, g in enumerate(grades) if g is not None and g >= MIN_REL), None)
        return tuple(
            RankedDoc(i + 1, d, g, where.get(d), i == first, self.rankings.docs.get(d))
            for i, (d, g) in enumerate(zip(docs, grades, strict=True))
        )
