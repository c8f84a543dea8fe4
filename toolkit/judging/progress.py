"""Progress as a read model: per assessor and topic, per assessor overall, and the organiser's report.

Counts follow the queue's status rule (``toolkit.judging.queue``): a skipped item is still ``remaining`` (a
skip is not a decision), a stale item judged on old text is remaining again. Times are the reading times
the judging screen records with each decision (``duration_ms``: from the document appearing to the key),
over settling decisions (judged or unrateable) still in force; the per-assessor median is over the
assessor's own decisions, not a median of topic medians.

What the organiser needs to run a campaign, beyond counts (docs/design.md §8):

- **time** per topic (``ProgressRow.total_ms``) and per **session** — an assessor's stretch of work, their
  log events with no pause longer than ``SESSION_GAP_S`` between two of them (``sessions``);
- an **estimate of the judging time left** per assessor: remaining items × their median time per judgment;
- **gold accuracy** per assessor: of the gold items they graded, how many got the known grade;
- **fast judgments**: grades given in less than ``fast_below_ms`` (default 1 s) — too fast to have read the
  document — counted per assessor and listed.

The pool's side (``pool_status``): the latest round, how many items it queued, and how many pool items no
assessor has yet — what a new round leaves to do before anyone can judge it, shown live by ``progress``
and ``judge`` so a round nobody was given is never silent.

A budgeted or sampled campaign (``pool --strategy mtf|maxmean|sample``) also reports its **budget**
(``budget_status``): how many of the documents its budget selected are judged, how many of those are relevant,
and the relevant documents found per judgment — the yield a good order keeps high.

Everything is counted by the database (``toolkit.judging.queries``), most of it kept as the campaign changes
(``toolkit.judging.sql.counts``: the queue's counts per assessor and topic, the session windows), so a refresh
of the organiser's screen reads a row per assessor and topic rather than the log (171,151 items judged twice:
about 1.1–2 s under load, reading times or not: ``docs/benchmarks.md``); the rules are the ones the judging
session applies in Python, and the tests hold the two to each other (``tests/judging/test_readmodels.py``).

The organiser's screen adds live Cohen's kappa per pair of assessors; that statistic is agreement's
(``toolkit.agreement.judgments.pair_kappas``), so it is not part of this report.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from toolkit.judging.beside import beside
from toolkit.judging.queries import ProgressFacts
from toolkit.judging.queue import SETTLED
from toolkit.judging.records import DECISIONS, Item, Judgment, LogEvent, ProgressRow
from toolkit.judging.sql.counts import SESSION_GAP_S  # the session rule's gap, kept windows and all
from toolkit.judging.store import CampaignStore

#: Grades given faster than this (ms) are flagged: nobody reads a document in under a second.
FAST_BELOW_MS = 1000


@dataclass(frozen=True)
class AssessorTotal:
    """Progress of one assessor over all topics.

    ``total_ms``: reading time of their decisions in force; ``left_ms``: remaining × median time per
    judgment (None before any timed decision); ``gold_judged``/``gold_correct``: gold items they graded, and
    how many with the known grade; ``fast``: grades given in less than the report's ``fast_below_ms``.
    """

    assessor: str
    assigned: int
    judged: int
    skipped: int
    unrateable: int
    remaining: int
    median_ms: float | None
    total_ms: int = 0
    left_ms: float | None = None
    gold_judged: int = 0
    gold_correct: int = 0
    fast: int = 0

    @property
    def gold_accuracy(self) -> float | None:
        return self.gold_correct / self.gold_judged if self.gold_judged else None


@dataclass(frozen=True)
class SessionSpan:
    """One stretch of an assessor's work: from the first document they read to their last event.

    ``started``/``ended`` are UTC ISO times; ``wall_s`` the length; ``judging_ms`` the reading time recorded
    with its decisions.
    """

    assessor: str
    started: str
    ended: str
    decisions: int
    wall_s: float
    judging_ms: int


@dataclass(frozen=True)
class FastJudgment:
    """A grade in force that was given faster than the report's threshold."""

    assessor: str
    query_id: str
    doc_id: str
    duration_ms: int


@dataclass(frozen=True)
class PoolStatus:
    """The pool against the assignments: ``round`` is the latest round (0 before any), ``new_round`` the items
    it queued (new and stale), ``unassigned`` the pool items no assessor has (``new_round_unassigned`` of
    them from the latest round), ``new_per_assessor`` each assessor's items from the latest round."""

    round: int
    pooled: int
    new_round: int
    unassigned: int
    new_round_unassigned: int
    new_per_assessor: Mapping[str, int]


@dataclass(frozen=True)
class BudgetStatus:
    """The judging budget of a campaign's budgeted and sampled rounds: ``selected`` documents (what the budget
    bought: the items those rounds queued), ``judged`` of them (a grade or unrateable in force), ``relevant``
    of those (grade ≥ 1: the adjudication where there is one, else the highest grade)."""

    rounds: tuple[int, ...]
    budget: str
    selected: int
    judged: int
    relevant: int

    @property
    def spent(self) -> float:
        """Share of the selected documents judged so far."""
        return self.judged / self.selected if self.selected else 0.0

    @property
    def per_judgment(self) -> float | None:
        """Relevant documents found per judgment (None before the first)."""
        return self.relevant / self.judged if self.judged else None


#: The strategies that spend a budget (``toolkit.pooling.rounds``).
BUDGETED = ("mtf", "maxmean", "sample")


def budget_status(store: CampaignStore, current: Sequence[Judgment] | None = None) -> BudgetStatus | None:
    """The budget of the campaign's budgeted and sampled rounds; None when it has none (``current``: the
    current judgments, gold items included, when the caller has read them already)."""
    rounds = [r for r in store.rounds() if r.strategy in BUDGETED]
    if not rounds:
        return None
    numbers = {r.number for r in rounds}
    selected = {(p.query_id, p.doc_id) for p in store.pool_items() if p.round in numbers}
    grades: dict[tuple[str, str], int] = {}
    for j in current if current is not None else store.current_judgments(include_gold=True):
        key = (j.query_id, j.doc_id)
        if key in selected and j.action in SETTLED:
            grades[key] = max(grades.get(key, -1), j.grade if j.grade is not None else -1)
    for key, adj in store.adjudications().items():
        if key in selected and adj.grade is not None:
            grades[key] = adj.grade
    budgets = sorted({f"{r.strategy} {r.budget}" if r.budget else r.strategy for r in rounds})
    return BudgetStatus(
        rounds=tuple(sorted(numbers)),
        budget=", ".join(budgets),
        selected=len(selected),
        judged=len(grades),
        relevant=sum(1 for g in grades.values() if g >= 1),
    )


@dataclass(frozen=True)
class ProgressReport:
    """What the organiser's screen shows, apart from agreement."""

    progress: tuple[ProgressRow, ...]
    totals: tuple[AssessorTotal, ...]
    stale: tuple[Item, ...]
    disagreements: int
    adjudicated: int
    pool: PoolStatus | None = None
    sessions: tuple[SessionSpan, ...] = ()
    fast: tuple[FastJudgment, ...] = ()
    fast_below_ms: int = FAST_BELOW_MS
    budget: BudgetStatus | None = None


def pool_status(store: CampaignStore) -> PoolStatus:
    """Latest round, its items, and the pool items nobody is assigned (counted by the database)."""
    latest, pooled, new, unassigned, new_unassigned, per_assessor = store.pool_counts()
    return PoolStatus(
        round=latest,
        pooled=pooled,
        new_round=new,
        unassigned=unassigned,
        new_round_unassigned=new_unassigned,
        new_per_assessor=per_assessor,
    )


def progress(store: CampaignStore, facts: ProgressFacts | None = None) -> list[ProgressRow]:
    """Per assessor and topic: assigned, judged, skipped, unrateable, remaining, median and total ms.

    Counted by the database (``CampaignStore.progress_facts``, or ``facts`` when the caller has them) under
    the queue's status rule; assessors by name, topics in topic-set order.
    """
    facts = facts or store.progress_facts(FAST_BELOW_MS)
    return [
        ProgressRow(
            a, q, assigned, judged, skipped, unrateable, assigned - judged - unrateable, median, total
        )
        for a, q, assigned, judged, skipped, unrateable, median, total in facts.queue
    ]


def assessor_totals(rows: Sequence[ProgressRow], medians: Mapping[str, float | None]) -> list[AssessorTotal]:
    """Per assessor over all topics; ``medians``: each assessor's median time per decision (ms) — over their
    decisions, not a median of the topics' medians."""
    out = []
    for assessor, group in itertools.groupby(
        sorted(rows, key=lambda r: r.assessor), key=lambda r: r.assessor
    ):
        rs = list(group)
        median = medians.get(assessor)
        remaining = sum(r.remaining for r in rs)
        out.append(
            AssessorTotal(
                assessor,
                sum(r.assigned for r in rs),
                sum(r.judged for r in rs),
                sum(r.skipped for r in rs),
                sum(r.unrateable for r in rs),
                remaining,
                median,
                total_ms=sum(r.total_ms for r in rs),
                left_ms=None if median is None else remaining * median,
            )
        )
    return out


def _time(iso: str) -> dt.datetime:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))


#: A stretch of one assessor's log events: (assessor, first time, first reading time, last time, decisions,
#: their reading time in ms).
Segment = tuple[str, str, "int | None", str, int, int]


def join_segments(segments: Iterable[Segment], *, gap_s: float = SESSION_GAP_S) -> list[SessionSpan]:
    """Sessions from stretches of the log in log order: a stretch continues its assessor's previous one
    unless the pause between them is longer than ``gap_s`` — the one statement of the session rule."""
    spans: dict[str, list[Segment]] = {}
    for segment in segments:
        own = spans.setdefault(segment[0], [])
        last = own[-1] if own else None
        if last is not None and (_time(segment[1]) - _time(last[3])).total_seconds() <= gap_s:
            own[-1] = (last[0], last[1], last[2], segment[3], last[4] + segment[4], last[5] + segment[5])
        else:
            own.append(segment)
    out = [_span(s) for own in spans.values() for s in own]
    return sorted(out, key=lambda s: (s.started, s.assessor))


def sessions(events: Sequence[LogEvent], *, gap_s: float = SESSION_GAP_S) -> list[SessionSpan]:
    """Each assessor's sessions: their events split wherever they paused longer than ``gap_s``.

    A session starts when its first decision's document appeared (the event time less its reading time)
    and ends at its last event; adjudications are not judging sessions.
    """
    mine = sorted((e for e in events if e.action != "adjudicate"), key=lambda e: (e.assessor, e.event_id))
    return join_segments((_segment(e) for e in mine), gap_s=gap_s)


def campaign_sessions(store: CampaignStore, *, gap_s: float = SESSION_GAP_S) -> list[SessionSpan]:
    """``sessions`` of the campaign's whole log, without reading it event by event: the database groups each
    assessor's events into windows shorter than ``gap_s`` (no session can end inside one), and
    ``join_segments`` decides on the pause between two windows exactly. An assessor whose windows interleave
    in log order (a clock that went back) is read event by event."""
    if gap_s < 2:
        return sessions(store.events(), gap_s=gap_s)
    segments: dict[str, list[tuple[int, int, Segment]]] = {}
    for assessor, first_id, last_id, first, first_ms, last, decisions, ms in store.session_segments(
        gap_s - 1
    ):
        segments.setdefault(assessor, []).append(
            (first_id, last_id, (assessor, first, first_ms, last, int(decisions), int(ms or 0)))
        )
    joined: list[Segment] = []
    for assessor, own in segments.items():
        if any(later[0] < earlier[1] for earlier, later in itertools.pairwise(own)):
            events = [e for e in store.events(assessor=assessor) if e.action != "adjudicate"]
            joined.extend(_segment(e) for e in events)
        else:
            joined.extend(segment for _, _, segment in own)
    return join_segments(joined, gap_s=gap_s)


def _segment(event: LogEvent) -> Segment:
    decided = event.action in DECISIONS
    ms = (event.duration_ms or 0) if decided else 0
    return (event.assessor, event.time, event.duration_ms, event.time, int(decided), ms)


def _span(segment: Segment) -> SessionSpan:
    assessor, first, first_ms, last, decisions, judging_ms = segment
    start = _time(first) - dt.timedelta(milliseconds=first_ms or 0)
    end = _time(last)
    return SessionSpan(
        assessor=assessor,
        started=start.isoformat(timespec="seconds").replace("+00:00", "Z"),
        ended=last,
        decisions=int(decisions),
        wall_s=(end - start).total_seconds(),
        judging_ms=int(judging_ms),
    )


def progress_report(store: CampaignStore, *, fast_below_ms: int = FAST_BELOW_MS) -> ProgressReport:
    """Progress rows, per-assessor totals, sessions, gold accuracy, fast grades, stale items, disagreements
    — counted by the database (``toolkit.judging.queries``), so a refresh costs what the screen shows, not
    what the campaign holds."""
    # the medians, and the pool's counts with the sessions and the stale items, are statements of their own:
    # two more connections read them while this one counts the queue (PostgreSQL's server then runs them on
    # every core; SQLite's driver lets go of the interpreter while a statement runs)
    medians = beside(store, lambda other: other.progress_medians())
    aside = beside(store, lambda other: (pool_status(other), campaign_sessions(other), other.stale_items()))
    facts = store.progress_facts(fast_below_ms, medians)
    fast = tuple(FastJudgment(*row) for row in facts.fast)
    fast_per = Counter(f.assessor for f in fast)
    rows = progress(store, facts)
    totals = [
        replace(
            t,
            gold_judged=facts.gold.get(t.assessor, (0, 0))[0],
            gold_correct=facts.gold.get(t.assessor, (0, 0))[1],
            fast=fast_per[t.assessor],
        )
        for t in assessor_totals(rows, facts.medians)
    ]
    budget = budget_status(store)
    pool, spans, stale = aside()
    return ProgressReport(
        progress=tuple(rows),
        totals=tuple(totals),
        stale=tuple(stale),
        disagreements=facts.disagreements,
        adjudicated=facts.adjudicated,
        pool=pool,
        sessions=tuple(spans),
        fast=fast,
        fast_below_ms=fast_below_ms,
        budget=budget,
    )
