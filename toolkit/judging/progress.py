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

The organiser's screen adds live Cohen's kappa per pair of assessors; that statistic is agreement's
(``toolkit.agreement.judgments.pair_kappas``), so it is not part of this report.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from toolkit.judging import log as judgment_log
from toolkit.judging.disagreements import disagreements
from toolkit.judging.queue import SETTLED, item_status
from toolkit.judging.records import DECISIONS, Item, Judgment, LogEvent, ProgressRow
from toolkit.judging.store import CampaignStore

#: A pause longer than this between two of an assessor's log events starts a new session (30 min).
SESSION_GAP_S = 30 * 60
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
    current judgments, when the caller has read them already)."""
    rounds = [r for r in store.rounds() if r.strategy in BUDGETED]
    if not rounds:
        return None
    numbers = {r.number for r in rounds}
    selected = {(p.query_id, p.doc_id) for p in store.pool_items() if p.round in numbers}
    grades: dict[tuple[str, str], int] = {}
    for j in current if current is not None else store.current_judgments():
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


def pool_status(store: CampaignStore, queues: Mapping[str, Sequence[Item]] | None = None) -> PoolStatus:
    """Latest round, its items, and the pool items nobody is assigned (``queues``: every assessor's queue,
    when the caller has read them already)."""
    if queues is None:
        queues = {a: store.queue(a) for a in store.assignees()}
    items = store.pool_items()
    latest = max((p.round for p in items), default=0)
    rounds = store.rounds()
    latest = max(latest, rounds[-1].number if rounds else 0)
    in_latest = {(p.query_id, p.doc_id) for p in items if p.round == latest}
    assigned = {(i.query_id, i.doc_id) for queue in queues.values() for i in queue}
    unassigned = [(p.query_id, p.doc_id) for p in items if (p.query_id, p.doc_id) not in assigned]
    return PoolStatus(
        round=latest,
        pooled=len(items),
        new_round=len(in_latest),
        unassigned=len(unassigned),
        new_round_unassigned=sum(1 for key in unassigned if key in in_latest),
        new_per_assessor={
            a: sum(1 for i in queue if (i.query_id, i.doc_id) in in_latest) for a, queue in queues.items()
        },
    )


def progress(
    store: CampaignStore,
    *,
    queues: Mapping[str, Sequence[Item]] | None = None,
    events: Sequence[LogEvent] | None = None,
) -> list[ProgressRow]:
    """Per assessor and topic: assigned, judged, skipped, unrateable, remaining, median and total ms.

    ``queues`` (every assignee's queue) and ``events`` (the whole log) when the caller has read them already:
    the organiser's report reads each once, not once per view (at 171,000 items that was most of a refresh).
    """
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    hashes = store.latest_hashes()
    mine: dict[str, list[LogEvent]] | None = None
    if events is not None:
        mine = {}
        for event in events:
            mine.setdefault(event.assessor, []).append(event)
    rows: list[ProgressRow] = []
    for assessor in store.assignees():
        own = mine.get(assessor, []) if mine is not None else store.events(assessor=assessor)
        current = judgment_log.derive_current(own)
        by_topic: dict[str, list[tuple[str, int | None]]] = {}
        for item in queues[assessor] if queues is not None else store.queue(assessor):
            j = current.get((assessor, item.query_id, item.doc_id))
            by_topic.setdefault(item.query_id, []).append(
                (item_status(item, j, hashes), j.duration_ms if j else None)
            )
        for query_id in sorted(by_topic, key=lambda q: (order.get(q, len(order)), q)):
            entries = by_topic[query_id]
            count = {s: sum(1 for e in entries if e[0] == s) for s in ("judge", "skip", "unrateable")}
            times = [ms for s, ms in entries if s in SETTLED and ms is not None]
            rows.append(
                ProgressRow(
                    assessor,
                    query_id,
                    len(entries),
                    count["judge"],
                    count["skip"],
                    count["unrateable"],
                    len(entries) - count["judge"] - count["unrateable"],
                    float(statistics.median(times)) if times else None,
                    sum(times),
                )
            )
    return rows


def assessor_totals(
    rows: Sequence[ProgressRow], durations: Mapping[str, Sequence[int]]
) -> list[AssessorTotal]:
    """Per assessor over all topics; ``durations``: each assessor's decision times (ms) for the median."""
    out = []
    for assessor, group in itertools.groupby(
        sorted(rows, key=lambda r: r.assessor), key=lambda r: r.assessor
    ):
        rs = list(group)
        times = durations.get(assessor, [])
        median = float(statistics.median(times)) if times else None
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


def sessions(events: Sequence[LogEvent], *, gap_s: float = SESSION_GAP_S) -> list[SessionSpan]:
    """Each assessor's sessions: their events split wherever they paused longer than ``gap_s``.

    A session starts when its first decision's document appeared (the event time less its reading time)
    and ends at its last event; adjudications are not judging sessions.
    """
    out: list[SessionSpan] = []
    mine = sorted((e for e in events if e.action != "adjudicate"), key=lambda e: (e.assessor, e.event_id))
    for assessor, group in itertools.groupby(mine, key=lambda e: e.assessor):
        span: list[LogEvent] = []
        for event in group:
            if span and (_time(event.time) - _time(span[-1].time)).total_seconds() > gap_s:
                out.append(_span(assessor, span))
                span = []
            span.append(event)
        if span:
            out.append(_span(assessor, span))
    return sorted(out, key=lambda s: (s.started, s.assessor))


def _span(assessor: str, events: list[LogEvent]) -> SessionSpan:
    decided = [e for e in events if e.action in DECISIONS]
    first = events[0]
    start = _time(first.time) - dt.timedelta(milliseconds=first.duration_ms or 0)
    end = _time(events[-1].time)
    return SessionSpan(
        assessor=assessor,
        started=start.isoformat(timespec="seconds").replace("+00:00", "Z"),
        ended=events[-1].time,
        decisions=len(decided),
        wall_s=(end - start).total_seconds(),
        judging_ms=sum(e.duration_ms or 0 for e in decided),
    )


def progress_report(store: CampaignStore, *, fast_below_ms: int = FAST_BELOW_MS) -> ProgressReport:
    """Progress rows, per-assessor totals, sessions, gold accuracy, fast grades, stale items, disagreements."""
    current = store.current_judgments(include_gold=True)
    durations: dict[str, list[int]] = {}
    for j in current:
        if j.action in SETTLED and j.duration_ms is not None:
            durations.setdefault(j.assessor, []).append(j.duration_ms)
    gold = store.gold()
    fast = tuple(
        FastJudgment(j.assessor, j.query_id, j.doc_id, j.duration_ms)
        for j in current
        if j.action == "judge" and j.duration_ms is not None and j.duration_ms < fast_below_ms
    )
    graded_gold: dict[str, list[bool]] = {}
    for j in current:
        known = gold.get((j.query_id, j.doc_id))
        if j.action == "judge" and known is not None:
            graded_gold.setdefault(j.assessor, []).append(j.grade == known)
    events = store.events()
    queues = {a: store.queue(a) for a in store.assignees()}
    rows = progress(store, queues=queues, events=events)
    totals = [
        replace(
            t,
            gold_judged=len(graded_gold.get(t.assessor, [])),
            gold_correct=sum(graded_gold.get(t.assessor, [])),
            fast=sum(1 for f in fast if f.assessor == t.assessor),
        )
        for t in assessor_totals(rows, durations)
    ]
    found = disagreements(store, current=[j for j in current if (j.query_id, j.doc_id) not in gold])
    return ProgressReport(
        progress=tuple(rows),
        totals=tuple(totals),
        stale=tuple(item for queue in queues.values() for item in queue if item.stale),
        disagreements=len(found),
        adjudicated=sum(1 for d in found if d.adjudicated is not None),
        pool=pool_status(store, queues),
        sessions=tuple(sessions(events)),
        fast=fast,
        fast_below_ms=fast_below_ms,
        budget=budget_status(store, current),
    )
