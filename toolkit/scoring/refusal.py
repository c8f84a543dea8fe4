"""The refusal outcome: did a run return nothing for a topic, and should it have?

A docs or knowledge-base search must also be judged on the queries it should answer with nothing — an
out-of-scope question, a removed API. A topic set declares them ``expect = "empty"`` (``Topic.expects_empty``).
Nothing is relevant to such a topic, so the relevance measures cannot see it (they would score every run 0 on
it, whatever it did); it is left out of their ``n`` (``toolkit.scoring.evaluate``) and measured here instead:

* **refusal correctness** = the share of the expected-empty topics for which the run returned nothing — null,
  with the reason, when the topic set declares none;
* **empty-result rate** = the share of every other topic (those that can have relevant documents) for which
  the run returned nothing: the price of refusing too readily.

"Returned nothing" means an empty result that the run's manifest does not record as a failure or timeout: a
failed call is a failure, not a refusal (the run-failure policy, ``toolkit.pipeline.failures``, reports it).
A failed topic therefore counts in both denominators and in neither numerator. A run without a manifest (a
bare run file) cannot tell the two apart; its empty results count as refusals, with a warning.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Collection
from dataclasses import dataclass

from toolkit.errors import ToolkitWarning
from toolkit.model import Qrels, Run, TopicSet

#: Why refusal correctness is null when no topic is declared ``expect = "empty"``.
NO_EXPECT_EMPTY = 'the topic set declares no topic expect = "empty"'
NO_EXPECT_EMPTY_IN_CLASS = 'no topic of this class is declared expect = "empty"'
NO_TOPIC_SET = 'no topic set: topics that should find nothing are declared expect = "empty" in one'


@dataclass(frozen=True)
class RefusalScores:
    """One run's refusal outcome over a topic set (or one class of it).

    ``expect_empty`` are the topics declared ``expect = "empty"`` (refusal's denominator), split into
    ``refused`` (the run returned nothing) and the rest; ``others`` are every other topic (the empty-result
    rate's denominator), of which the run returned nothing for ``empty``. ``failed`` are the topics whose call
    failed, from the manifest: they are neither refused nor empty. ``recorded`` is False for a run without a
    manifest, whose empty results had to count as refusals. ``reason`` says why refusal is null.
    """

    run: str
    expect_empty: tuple[str, ...]
    refused: tuple[str, ...]
    others: tuple[str, ...]
    empty: tuple[str, ...]
    failed: tuple[str, ...] = ()
    recorded: bool = True
    reason: str | None = None

    @property
    def answered(self) -> tuple[str, ...]:
        """Expected-empty topics the run returned documents for (its wrong answers); failed ones excluded."""
        done = set(self.refused) | set(self.failed)
        return tuple(q for q in self.expect_empty if q not in done)

    @property
    def refusal(self) -> float | None:
        """Refusal correctness: refused / expected-empty topics; None (see ``refusal_reason``) without any."""
        return len(self.refused) / len(self.expect_empty) if self.expect_empty else None

    @property
    def refusal_reason(self) -> str | None:
        return None if self.expect_empty else (self.reason or NO_EXPECT_EMPTY)

    @property
    def empty_rate(self) -> float | None:
        """Empty-result rate: empty / other topics; None when every topic is expected to be empty."""
        return len(self.empty) / len(self.others) if self.others else None

    @property
    def empty_rate_reason(self) -> str | None:
        return None if self.others else "no topic that can have relevant documents"

    def nothing(self, query_id: str) -> bool:
        """The per-topic outcome: the run returned nothing for ``query_id`` (and its call did not fail)."""
        return query_id in self._nothing

    @functools.cached_property
    def _nothing(self) -> frozenset[str]:
        return frozenset((*self.refused, *self.empty))

    def subset(self, query_ids: Collection[str], *, reason: str | None = None) -> RefusalScores:
        """The same outcome restricted to ``query_ids`` (one class), in this result's topic order; ``reason``
        says why refusal is null when none of them is expected empty."""
        keep = set(query_ids)

        def pick(ids: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(q for q in ids if q in keep)

        return RefusalScores(
            self.run,
            pick(self.expect_empty),
            pick(self.refused),
            pick(self.others),
            pick(self.empty),
            pick(self.failed),
            self.recorded,
            reason or self.reason,
        )

    def by_class(self, topics: TopicSet) -> dict[str, RefusalScores]:
        """Per query class (topic-set order; ``"unclassified"`` for topics without one), classes holding no
        topic of this result left out."""
        from toolkit.scoring.evaluate import UNCLASSIFIED  # the key RunScores.by_class uses (import cycle)

        by_id = topics.by_id
        if topics.uniform and (
            (self.expect_empty is topics.empty_ids and self.others is topics.relevance_ids)
            or all(q in by_id for ids in (self.expect_empty, self.others) for q in ids)
        ):
            # No classes, and every topic of this result in the set: the one class is this result itself (the
            # general path below would copy a million-topic result topic by topic to the same tuples).
            if not self.expect_empty and not self.others:
                return {}
            return {UNCLASSIFIED: dataclasses.replace(self, reason=NO_EXPECT_EMPTY_IN_CLASS)}
        members: dict[str, list[str]] = {}
        counted = set(self.expect_empty) | set(self.others)
        for topic in topics:
            if topic.query_id in counted:
                members.setdefault(topic.query_class or UNCLASSIFIED, []).append(topic.query_id)
        return {cls: self.subset(ids, reason=NO_EXPECT_EMPTY_IN_CLASS) for cls, ids in members.items()}


def refusal_scores(
    run: Run,
    topics: TopicSet | None,
    qrels: Qrels | None = None,
    *,
    failed: Collection[str] | None = (),
) -> RefusalScores:
    """The refusal outcome of ``run``: over the topic set (else the qrels' topics, none expected empty).

    ``failed`` are the topics the run's manifest records as failed or timed out; ``None`` means the run has no
    manifest, so an empty result counts as refused — with a warning when that decides an expected-empty topic.
    """
    if topics is not None:
        expect_empty, others = topics.empty_ids, topics.relevance_ids
        reason = None if expect_empty else NO_EXPECT_EMPTY
    else:
        expect_empty, others = (), tuple(qrels.query_ids) if qrels is not None else ()
        reason = NO_TOPIC_SET
    failures = frozenset(failed or ())
    spoke = answered_topics(run) | failures  # not "returned nothing": answered, or failed

    refused = tuple(q for q in expect_empty if q not in spoke)
    if failed is None and refused:
        warnings.warn(
            f"run {run.name} has no manifest, so a failed call cannot be told from a refusal: its "
            f'{len(refused)} empty result(s) on topics declared expect = "empty" count as refused',
            ToolkitWarning,
            stacklevel=2,
        )
    return RefusalScores(
        run=run.name,
        expect_empty=tuple(expect_empty),
        refused=refused,
        others=tuple(others),
        empty=tuple(q for q in others if q not in spoke),
        failed=tuple(q for ids in (expect_empty, others) for q in ids if q in failures) if failures else (),
        recorded=failed is not None,
        reason=reason,
    )


def answered_topics(run: Run) -> set[str]:
    """The topics ``run`` returned at least one document for.

    Asked once per run, not once per topic: a topic set of a million topics asks about each, and a run holds
    results for far fewer.
    """
    return {q for q, docs in run.results.items() if docs}


def warn_judged_empty(qrels: Qrels, topics: TopicSet) -> None:
    """Warn when qrels call a document relevant for a topic declared ``expect = "empty"``: the judgments
    contradict the topic set, and they are not used (such a topic is scored by its refusal outcome alone)."""
    judged = [q for q in topics.empty_ids if any(g > 0 for g in qrels.judgments.get(q, {}).values())]
    if judged:
        shown = ", ".join(judged[:3]) + (", …" if len(judged) > 3 else "")
        warnings.warn(
            f'{qrels.path or qrels.name}: {len(judged)} topic(s) declared expect = "empty" have documents '
            f"judged relevant ({shown}); those judgments are not used — the topics are scored by their refusal "
            'outcome alone (remove expect = "empty" if they do have right answers)',
            ToolkitWarning,
            stacklevel=3,
        )
