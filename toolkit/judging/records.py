"""Records the campaign store hands out: frozen, blind to provenance, cheap to compare in tests.

``Item`` and ``Document`` deliberately carry no run names and no ranks: they are what an assessor may see
(docs/design.md §8). Provenance has its own record and its own accessor, meant for the organiser only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from toolkit.errors import StoreError
from toolkit.formats.names import assessor_problem

#: What an assessor can decide about an item. Only ``judge`` carries a grade: a skip or an unrateable is never
#: a grade, so exports and agreement can never turn one into a 0 by accident.
DECISIONS: tuple[str, ...] = ("judge", "skip", "unrateable")

#: Every action the append-only log can hold. ``undo`` cancels an earlier decision (it names it in
#: ``undoes``); ``note`` attaches text without changing the decision; ``adjudicate`` is an adjudicator's
#: final grade for an item.
ACTIONS: tuple[str, ...] = (*DECISIONS, "undo", "note", "adjudicate")


@dataclass(frozen=True)
class CampaignTopic:
    """A topic as stored in a campaign: what the assessor reads before judging its documents."""

    query_id: str
    query: str
    description: str = ""
    narrative: str = ""
    query_class: str | None = None


@dataclass(frozen=True)
class Item:
    """One (topic, doc) in an assessor's queue, at its seeded position.

    ``overlap``: also given to another assessor (for agreement). ``gold``: a quality-control item whose grade
    is known; its judgments never reach an export. ``stale``: re-queued because the document's text changed
    since it was judged in an earlier round.
    """

    assessor: str
    query_id: str
    doc_id: str
    position: int
    overlap: bool = False
    gold: bool = False
    stale: bool = False


@dataclass(frozen=True)
class Document:
    """A document snapshot taken at pool time; ``fetch_error`` is set (and text empty) when it failed.

    ``format`` is how the source says the text is written (``text``, ``markdown``, ``html``; None when it
    did not say); ``version`` is the source's own version of the document, which lets a later round skip
    fetching it again when the source reports the same version (``toolkit.formats.corpus``).
    """

    doc_id: str
    title: str
    text: str
    content_hash: str | None
    fetch_error: str | None = None
    format: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class Judgment:
    """The current decision of one assessor on one item, derived from the log.

    ``grade`` is None unless ``action`` is ``judge`` or ``adjudicate``. ``note`` is the latest note on the
    item (from the decision itself or a later ``note`` event). ``content_hash`` is the hash of the snapshot
    the assessor saw, which is how a later round knows the judgment is stale.
    """

    assessor: str
    query_id: str
    doc_id: str
    grade: int | None
    action: str
    note: str | None
    time: str
    duration_ms: int | None
    event_id: int
    content_hash: str | None = None


@dataclass(frozen=True)
class LogEvent:
    """One row of the append-only judgment log, exactly as stored."""

    event_id: int
    time: str
    assessor: str
    query_id: str
    doc_id: str
    action: str
    grade: int | None
    note: str | None
    duration_ms: int | None
    position: int | None
    content_hash: str | None
    undoes: int | None


@dataclass(frozen=True)
class ProgressRow:
    """Progress of one assessor on one topic. ``remaining`` counts skipped items: a skip is not a decision.

    ``total_ms``: the reading time of the settling decisions in force (time spent on the topic).
    """

    assessor: str
    query_id: str
    assigned: int
    judged: int
    skipped: int
    unrateable: int
    remaining: int
    median_ms: float | None
    total_ms: int = 0


@dataclass(frozen=True)
class AssessorGrade:
    """One assessor's current grade and note on an item in a disagreement."""

    assessor: str
    grade: int
    note: str | None


@dataclass(frozen=True)
class Disagreement:
    """An item graded differently by two or more assessors; ``adjudicated`` is the adjudicator's grade if any."""

    query_id: str
    doc_id: str
    grades: tuple[AssessorGrade, ...]
    spread: int
    adjudicated: int | None = None
    adjudicator: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Organiser-only: run ``run`` put ``doc_id`` into the pool of ``query_id`` at ``rank`` in ``round``."""

    round: int
    query_id: str
    doc_id: str
    run: str
    rank: int


@dataclass(frozen=True)
class OrderStep:
    """Organiser-only: step ``step`` of an adaptive judging order (MaxMean, ``toolkit.pooling.bandit``) over
    ``query_id`` in ``round`` — run ``run`` led at ``rank`` to ``doc_id``; ``cost`` 1 when it was selected
    for judging, 0 when its relevance was known (``known``: True/False, None when pending or selected)."""

    round: int
    query_id: str
    step: int
    run: str
    rank: int
    doc_id: str
    cost: int
    known: bool | None


@dataclass(frozen=True)
class Inclusion:
    """Organiser-only: in a sampled round, the probability ``doc_id`` had of being drawn for judging in
    ``query_id``, and its stratum (best rank range, ``toolkit.pooling.sampling``) — drawn or not."""

    round: int
    query_id: str
    doc_id: str
    probability: float
    stratum: str


@dataclass(frozen=True)
class PoolItem:
    """A (topic, doc) in the pool; ``round`` is the round that (last) queued it."""

    query_id: str
    doc_id: str
    round: int
    stale: bool = False


@dataclass(frozen=True)
class RoundInfo:
    """One pooling round: how it was built and from which runs."""

    number: int
    created: str
    strategy: str
    depth: int | None
    budget: int | None
    runs: tuple[str, ...]
    added: int
    stale: int
    skipped: int


def now_iso() -> str:
    """UTC time with microseconds: log events sort by id, the time is for people and durations."""
    return dt.datetime.now(tz=dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def check_assessor(name: str) -> str:
    """Assessor names end up in TSV columns and manifests: the judgments format's rule, as a store error."""
    problem = assessor_problem(name)
    if problem:
        raise StoreError(problem)
    return name
