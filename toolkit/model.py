"""Records and containers shared by every stage of the pipeline: topics, runs, qrels.

Containers are frozen dataclasses; their mappings are treated as read-only by convention (the library never
mutates an input). Ranking follows trec_eval (docs/design.md §5): score descending, ties broken by doc_id descending
as a string compare — ``Run.ranking`` is the one place that rule lives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache, cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: The query classes of docs/design.md §6 and their default measures (a topic set may override them).
CLASS_MEASURES: dict[str, tuple[str, ...]] = {
    "canonical": ("RR@10", "P@1"),
    "root": ("RR@10", "P@1"),
    "synonym": ("RR@10", "P@1"),
    "fragment": ("P@5", "P@10", "Rprec"),
    "deprecation": ("RR@10", "P@1"),
    "cross-source": ("RR@10", "P@1"),
    "prose": ("nDCG@10", "Rprec"),
    "attribute": ("P@5", "P@10"),
}

#: Measures used when neither the command line nor the topic set names any.
DEFAULT_MEASURES: tuple[str, ...] = ("RR@10", "P@1", "P@5", "nDCG@10", "R-Prec", "AP")

#: The one value of ``Topic.expect``: a topic that should find nothing (an out-of-scope question, a removed
#: API). Such a topic has no relevant document, is left out of the relevance measures' ``n`` and is scored by
#: its refusal outcome alone (``toolkit.scoring.refusal``).
EXPECT_EMPTY = "empty"

#: Grade definitions shown to assessors when a topic set declares none (TREC graded-judging style).
DEFAULT_GRADES: dict[int, str] = {
    0: "Not relevant: the document does not answer the query or is about something else.",
    1: "Related: on the topic, but a user would still have to look elsewhere for the answer.",
    2: "Relevant: answers the query in part, or answers it but is not the best page for it.",
    3: "Highly relevant: the page a user is looking for; answers the query fully.",
}


@dataclass(frozen=True)
class TruthPattern:
    """One regex on doc ids naming right answers of a topic, with the grade a match earns."""

    pattern: str
    grade: int = 1
    regex: re.Pattern[str] = field(compare=False, repr=False, default=None)  # type: ignore[assignment,arg-type]

    def __post_init__(self) -> None:
        if self.regex is None:
            object.__setattr__(self, "regex", re.compile(self.pattern))

    def matches(self, doc_id: str) -> bool:
        return self.regex.search(doc_id) is not None


@dataclass(frozen=True)
class Preference:
    """A deprecation pair: a doc matching ``modern`` must rank above a doc matching ``legacy``."""

    modern: str
    legacy: str
    modern_regex: re.Pattern[str] = field(compare=False, repr=False, default=None)  # type: ignore[assignment,arg-type]
    legacy_regex: re.Pattern[str] = field(compare=False, repr=False, default=None)  # type: ignore[assignment,arg-type]

    def __post_init__(self) -> None:
        if self.modern_regex is None:
            object.__setattr__(self, "modern_regex", re.compile(self.modern))
        if self.legacy_regex is None:
            object.__setattr__(self, "legacy_regex", re.compile(self.legacy))


@dataclass(frozen=True, slots=True)
class Topic:
    """One query with its id, text, class and optional truth.

    Slotted: a topic set of MS MARCO's size holds millions of these, and a slotted topic is a third of the
    size of one with a ``__dict__``.

    ``metadata`` keeps the fields a topic format carries beyond these (TIPSTER ``<con>`` concepts, Web-track
    subtopics, extra JSONL keys), so that reading a topic set loses nothing.

    ``expect = "empty"`` declares a topic that should find nothing. Nothing can be relevant to it, so it can
    carry no truth, preference pairs or measures of its own: its only measure is whether a run returned
    nothing (refusal correctness). The readers refuse such a topic with ``path:line``; this check keeps a topic
    built in code just as honest.
    """

    query_id: str
    query: str
    query_class: str | None = None
    description: str = ""
    narrative: str = ""
    truth: tuple[TruthPattern, ...] = ()
    preferences: tuple[Preference, ...] = ()
    measures: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict, hash=False)
    expect: str | None = None

    def __post_init__(self) -> None:
        if self.expect is None:
            return
        if self.expect != EXPECT_EMPTY:
            raise ValueError(
                f"topic {self.query_id!r}: expect must be {EXPECT_EMPTY!r} or None, not {self.expect!r}"
            )
        declared = [name for name in ("truth", "preferences", "measures") if getattr(self, name)]
        if declared:
            raise ValueError(
                f"topic {self.query_id!r} expects nothing to be found, so it cannot have {', '.join(declared)}"
            )

    @property
    def expects_empty(self) -> bool:
        """Declared ``expect = "empty"``: scored by its refusal outcome, outside the relevance measures' n."""
        return self.expect == EXPECT_EMPTY

    def grade(self, doc_id: str) -> int | None:
        """The regex-truth grade of a doc: the highest grade of all matching patterns, None if none match."""
        grades = [t.grade for t in self.truth if t.matches(doc_id)]
        return max(grades) if grades else None


class TopicColumns(Sequence[Topic]):
    """A topic set's topics kept as columns — ids and query texts — with a ``Topic`` made only when one is
    asked for.

    Why: an MS MARCO-sized query set is a million topics that are an id and a query and nothing else, and most
    commands (``score`` above all) need only their ids. A million frozen ``Topic`` objects took longer to make
    than everything else ``score`` does with them. Topics that carry more (a class, truth, metadata …) are kept
    whole in ``rich``, by position; the others are made on access, equal each time (not the same object).

    ``positions`` maps each id to its position (the readers build it to find duplicate ids, and ``TopicSet.by_id``
    answers from it).
    """

    __slots__ = ("ids", "positions", "queries", "rich")

    def __init__(
        self,
        ids: tuple[str, ...],
        queries: Sequence[str],
        rich: Mapping[int, Topic] | None = None,
        positions: Mapping[str, int] | None = None,
    ) -> None:
        if len(ids) != len(queries):
            raise ValueError(f"TopicColumns: {len(ids)} ids but {len(queries)} queries")
        self.ids = ids
        self.queries = queries
        self.rich: Mapping[int, Topic] = rich or {}
        self.positions: Mapping[str, int] = (
            positions if positions is not None else dict(zip(ids, range(len(ids)), strict=True))
        )

    def __len__(self) -> int:
        return len(self.ids)

    def _topic(self, position: int) -> Topic:
        topic = self.rich.get(position) if self.rich else None
        if topic is not None:
            return topic
        return Topic(self.ids[position], self.queries[position], metadata=NO_METADATA)

    @overload
    def __getitem__(self, position: int) -> Topic: ...

    @overload
    def __getitem__(self, position: slice) -> tuple[Topic, ...]: ...

    def __getitem__(self, position: int | slice) -> Topic | tuple[Topic, ...]:
        if isinstance(position, slice):
            return tuple(self._topic(i) for i in range(len(self.ids))[position])
        if position < 0:
            position += len(self.ids)
        if not 0 <= position < len(self.ids):
            raise IndexError("topic position out of range")
        return self._topic(position)

    def __iter__(self) -> Iterator[Topic]:
        return map(self._topic, range(len(self.ids)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TopicColumns | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TopicColumns({len(self.ids)} topics, {len(self.rich)} with more than id and query)"


#: The metadata of a topic that carries none: one shared empty mapping (a million topics, no million dicts).
NO_METADATA: Mapping[str, Any] = MappingProxyType({})


class _TopicsById(Mapping[str, Topic]):
    """``TopicSet.by_id`` of a set kept as columns: the id → position index, the topic made on access."""

    __slots__ = ("_columns",)

    def __init__(self, columns: TopicColumns) -> None:
        self._columns = columns

    def __getitem__(self, query_id: str) -> Topic:
        return self._columns._topic(self._columns.positions[query_id])

    def __contains__(self, query_id: object) -> bool:
        return query_id in self._columns.positions

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns.ids)

    def __len__(self) -> int:
        return len(self._columns.ids)


@dataclass(frozen=True)
class TopicSet:
    """A file of topics, with the grade definitions and per-class measures that travel with it.

    ``topics`` is a tuple of ``Topic``, or a ``TopicColumns`` (what the readers make: the same topics, made on
    access); the views below answer from the columns without making a topic each.
    """

    topics: Sequence[Topic]
    name: str = "topics"
    path: str | None = None
    sha256: str | None = None
    description: str = ""
    grades: Mapping[int, str] = field(default_factory=lambda: dict(DEFAULT_GRADES))
    class_measures: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: dict(CLASS_MEASURES))

    def __iter__(self) -> Iterator[Topic]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)

    # The views below are computed once per topic set (cached_property writes the instance's __dict__ directly,
    # which a frozen dataclass allows): a command asks for them once per run or per topic, and recomputing a
    # million-topic view per question made ``score`` quadratic in the number of topics.

    @cached_property
    def _rich(self) -> Iterable[Topic]:
        """The topics that may carry more than an id and a query: all of them, or a column set's ``rich``."""
        topics = self.topics
        return topics.rich.values() if isinstance(topics, TopicColumns) else topics

    @cached_property
    def ids(self) -> tuple[str, ...]:
        if isinstance(self.topics, TopicColumns):
            return self.topics.ids
        return tuple(t.query_id for t in self.topics)

    @cached_property
    def relevance_ids(self) -> tuple[str, ...]:
        """The topics that can have relevant documents: the relevance measures' denominator (docs/design.md §5)."""
        if isinstance(self.topics, TopicColumns) and not self.empty_ids:
            return self.ids  # the same tuple: callers may tell "every topic" by identity
        return tuple(t.query_id for t in self.topics if t.expect is None)

    @cached_property
    def empty_ids(self) -> tuple[str, ...]:
        """The topics declared ``expect = "empty"``: scored by their refusal outcome alone."""
        return tuple(t.query_id for t in self._rich if t.expect is not None)

    @cached_property
    def uniform(self) -> bool:
        """No topic has a class or measures of its own: all are ``"unclassified"`` with the default measures
        (as an MS MARCO-sized query set is), so per-class views need not look at each topic."""
        return not any(t.query_class or t.measures for t in self._rich)

    def get(self, query_id: str) -> Topic | None:
        return self.by_id.get(query_id)

    @cached_property
    def by_id(self) -> Mapping[str, Topic]:
        if isinstance(self.topics, TopicColumns):
            return _TopicsById(self.topics)
        return MappingProxyType(dict(zip(self.ids, self.topics, strict=True)))

    def measures_for(self, topic: Topic) -> tuple[str, ...]:
        """A topic's measures: its own, else its class's, else the defaults."""
        if topic.measures:
            return topic.measures
        if topic.query_class and topic.query_class in self.class_measures:
            return tuple(self.class_measures[topic.query_class])
        return DEFAULT_MEASURES

    def measure_lists(self) -> list[tuple[str, ...]]:
        """The distinct ``measures_for`` of the topics that can have relevant documents, in order of first
        appearance. A set kept as columns looks only at its rich topics: every other topic has the defaults."""
        seen: dict[tuple[str, ...], None] = {}
        topics = self.topics
        if isinstance(topics, TopicColumns):
            plain = next((i for i in range(len(topics)) if i not in topics.rich), None)
            for position, topic in sorted(topics.rich.items()):
                if plain is not None and plain < position:
                    seen.setdefault(DEFAULT_MEASURES, None)
                if topic.expect is None:
                    seen.setdefault(self.measures_for(topic), None)
            if plain is not None:
                seen.setdefault(DEFAULT_MEASURES, None)
            return list(seen)
        for topic in topics:
            if topic.expect is None:
                seen.setdefault(self.measures_for(topic), None)
        return list(seen)

    def classes(self) -> list[str]:
        """The classes present, in order of first appearance."""
        seen: dict[str, None] = {}
        for t in self._rich:
            if t.query_class:
                seen.setdefault(t.query_class, None)
        return list(seen)


def trec_order_key(item: tuple[str, float]) -> tuple[float, str]:
    """Sort key giving trec_eval's order when used with ``reverse=True``: score desc, then doc_id desc."""
    return (item[1], item[0])


@dataclass(frozen=True)
class Run:
    """One system's scored results: ``results[query_id][doc_id] = score``."""

    results: Mapping[str, Mapping[str, float]]
    name: str = "run"
    path: str | None = None
    run_tag: str | None = None

    def __post_init__(self) -> None:
        _require_mapping(self.results, "Run(results=…)", "{query_id: {doc_id: score}}", "as_run")

    @property
    def query_ids(self) -> list[str]:
        return list(self.results)

    def ranking(self, query_id: str) -> list[str]:
        """Doc ids of a topic in trec_eval's order (score desc, ties by doc_id desc); [] if absent."""
        presorted = getattr(self.results, "ranking", None)  # formats.ranked.RankedResults keeps this order
        if presorted is not None:
            return list(presorted(query_id))
        docs = self.results.get(query_id)
        if not docs:
            return []
        return [d for d, _ in sorted(docs.items(), key=trec_order_key, reverse=True)]

    def __len__(self) -> int:
        return sum(len(v) for v in self.results.values())


@dataclass(frozen=True)
class Qrels:
    """Relevance grades: ``judgments[query_id][doc_id] = relevance`` (negative = judged non-relevant)."""

    judgments: Mapping[str, Mapping[str, int]]
    name: str = "qrels"
    path: str | None = None

    def __post_init__(self) -> None:
        _require_mapping(self.judgments, "Qrels(judgments=…)", "{query_id: {doc_id: relevance}}", "as_qrels")

    @property
    def query_ids(self) -> list[str]:
        return list(self.judgments)

    def relevant(self, query_id: str, *, min_rel: int = 1) -> set[str]:
        return {d for d, r in self.judgments.get(query_id, {}).items() if r >= min_rel}

    def __len__(self) -> int:
        return sum(len(v) for v in self.judgments.values())


@dataclass(frozen=True)
class SampledQrels:
    """Qrels of a sampled pool: ``qrels`` (grades; a negative grade is a pooled document left unjudged) and
    ``probabilities[query_id][doc_id]``, the probability the document had of being selected for judging (the
    fifth column of TREC Legal's ``.probs`` qrels; ``toolkit.formats.sampled``).

    Every pooled document of a topic, judged or not, should be listed: the inferred measures (infAP, infNDCG)
    need to know where the unjudged ones are. A file listing only the judged documents still gives the
    Horvitz–Thompson estimates (statAP, estimated P@k), which need the probabilities alone.
    """

    qrels: Qrels
    probabilities: Mapping[str, Mapping[str, float]]

    @property
    def name(self) -> str:
        return self.qrels.name

    @property
    def query_ids(self) -> list[str]:
        return self.qrels.query_ids


def _require_mapping(value: object, what: str, shape: str, converter: str) -> None:
    """Why: iterating a DataFrame yields its column names, so ``Run(results=df)`` used to score a run whose
    "topics" were ``query_id, doc_id, score`` — every real topic empty, a silent 0.0."""
    if not isinstance(value, Mapping):
        raise TypeError(
            f"{what} needs a mapping {shape}, got {type(value).__name__}; convert DataFrames, ranx and "
            f"ir_measures objects with toolkit.formats.interop.{converter}() (evaluate() accepts them directly)"
        )


_Record = TypeVar("_Record", bound="DataclassInstance")


def fields_from(cls: type[_Record], source: object, **given: Any) -> _Record:
    """A ``cls`` dataclass built from ``source``: each field is ``given``, else ``source``'s attribute of the
    same name. One record made from another (a judgment from the log event that made it, trec_eval's settings
    from its options) then names only what differs, and a field added to both is carried without an edit."""
    return cls(
        **{name: given[name] if name in given else getattr(source, name) for name in _field_names(cls)}
    )


@cache
def _field_names(cls: type[DataclassInstance]) -> tuple[str, ...]:
    """Asked once per class: ``fields_from`` runs once per judgment when a log is replayed."""
    return tuple(f.name for f in fields(cls))
