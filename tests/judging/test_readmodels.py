"""The read models the database computes (``toolkit.judging.sql.readmodels``) against the Python path they
replaced, on random campaigns, on both backends.

The reference below is the toolkit's earlier code, kept here as the oracle: it replays the whole log with
``toolkit.judging.log`` (the derivation the judging session applies key by key) and applies the queue's
status rule (``item_status``) item by item. Each random campaign has several rounds (stale items among them),
gold items, unassigned pool items, skips, unrateables, notes, undos, an adjudicator who is also an assessor,
reading times around the fast threshold, pauses around the session gap (and a clock that goes back), and ids
whose code-point order differs from a collation's (upper case, accents), so every rule and every order of
the SQL is exercised.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
import sqlite3
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers.sizes import examples

from toolkit.agreement import agreement_summary
from toolkit.agreement.ratings import RatingTable
from toolkit.errors import StoreError, ToolkitError
from toolkit.formats.names import assessor_problem
from toolkit.formats.qrels import format_qrels
from toolkit.judging import log as judgment_log
from toolkit.judging import store as store_module
from toolkit.judging.disagreements import disagreements
from toolkit.judging.export import check_log, choose_grades, export_items, export_qrels, parse_policy
from toolkit.judging.itemgrades import ItemGrades, choose_item_grades, read_item_grades
from toolkit.judging.progress import (
    FAST_BELOW_MS,
    SESSION_GAP_S,
    AssessorTotal,
    FastJudgment,
    PoolStatus,
    ProgressReport,
    SessionSpan,
    progress_report,
)
from toolkit.judging.queue import SETTLED, item_status
from toolkit.judging.records import (
    ACTIONS,
    DECISIONS,
    AssessorGrade,
    CampaignTopic,
    Disagreement,
    Item,
    Judgment,
    LogEvent,
    ProgressRow,
)
from toolkit.judging.store import CampaignStore, EventFacts, event_problem
from toolkit.model import DEFAULT_GRADES
from toolkit.pipeline.export import export_campaign
from toolkit.pooling.docsource import make_document

# ---------------------------------------------------------------------------------------------- the reference


def ref_current_judgments(store: CampaignStore, *, include_gold: bool = False) -> list[Judgment]:
    gold = set() if include_gold else set(store.gold())
    events = store.events(actions=tuple(a for a in ACTIONS if a != "adjudicate"))
    current = judgment_log.derive_current(events)
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    return sorted(
        (j for j in current.values() if j.action != "adjudicate" and (j.query_id, j.doc_id) not in gold),
        key=lambda j: (order.get(j.query_id, len(order)), j.query_id, j.doc_id, j.assessor),
    )


def ref_adjudications(store: CampaignStore) -> dict[tuple[str, str], Judgment]:
    current = judgment_log.derive_current(store.events(actions=("adjudicate", "undo")))
    out: dict[tuple[str, str], Judgment] = {}
    for j in sorted(current.values(), key=lambda j: j.event_id):
        if j.action == "adjudicate":
            out[(j.query_id, j.doc_id)] = j
    return out


def ref_disagreements(store: CampaignStore, current: list[Judgment] | None = None) -> list[Disagreement]:
    by_item: dict[tuple[str, str], list[Judgment]] = {}
    for j in ref_current_judgments(store) if current is None else current:
        if j.action == "judge":
            by_item.setdefault((j.query_id, j.doc_id), []).append(j)
    adjudicated = ref_adjudications(store)
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    out = []
    for (query_id, doc_id), js in by_item.items():
        grades = [j.grade for j in js if j.grade is not None]
        if len(js) < 2 or len(set(grades)) < 2:
            continue
        adj = adjudicated.get((query_id, doc_id))
        out.append(
            Disagreement(
                query_id,
                doc_id,
                tuple(AssessorGrade(j.assessor, j.grade, j.note) for j in js if j.grade is not None),
                max(grades) - min(grades),
                adj.grade if adj else None,
                adj.assessor if adj else None,
            )
        )
    return sorted(out, key=lambda d: (-d.spread, order.get(d.query_id, len(order)), d.query_id, d.doc_id))


def ref_progress(
    store: CampaignStore, queues: dict[str, list[Item]], events: list[LogEvent]
) -> list[ProgressRow]:
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    hashes = store.latest_hashes()
    rows = []
    for assessor in store.assignees():
        current = judgment_log.derive_current(e for e in events if e.assessor == assessor)
        by_topic: dict[str, list[tuple[str, int | None]]] = {}
        for item in queues[assessor]:
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


def ref_pool_status(store: CampaignStore, queues: dict[str, list[Item]]) -> PoolStatus:
    items = store.pool_items()
    rounds = store.rounds()
    latest = max(max((p.round for p in items), default=0), rounds[-1].number if rounds else 0)
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


def _time(iso: str) -> dt.datetime:
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00"))


def ref_sessions(events: list[LogEvent], gap_s: float = SESSION_GAP_S) -> list[SessionSpan]:
    def span(assessor: str, own: list[LogEvent]) -> SessionSpan:
        decided = [e for e in own if e.action in DECISIONS]
        start = _time(own[0].time) - dt.timedelta(milliseconds=own[0].duration_ms or 0)
        return SessionSpan(
            assessor=assessor,
            started=start.isoformat(timespec="seconds").replace("+00:00", "Z"),
            ended=own[-1].time,
            decisions=len(decided),
            wall_s=(_time(own[-1].time) - start).total_seconds(),
            judging_ms=sum(e.duration_ms or 0 for e in decided),
        )

    out = []
    mine = sorted((e for e in events if e.action != "adjudicate"), key=lambda e: (e.assessor, e.event_id))
    for assessor, group in itertools.groupby(mine, key=lambda e: e.assessor):
        current: list[LogEvent] = []
        for event in group:
            if current and (_time(event.time) - _time(current[-1].time)).total_seconds() > gap_s:
                out.append(span(assessor, current))
                current = []
            current.append(event)
        if current:
            out.append(span(assessor, current))
    return sorted(out, key=lambda s: (s.started, s.assessor))


def ref_progress_report(store: CampaignStore, fast_below_ms: int = FAST_BELOW_MS) -> ProgressReport:
    current = ref_current_judgments(store, include_gold=True)
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
        if j.action == "judge" and (j.query_id, j.doc_id) in gold:
            graded_gold.setdefault(j.assessor, []).append(j.grade == gold[(j.query_id, j.doc_id)])
    events = store.events()
    queues = {a: store.queue(a) for a in store.assignees()}
    rows = ref_progress(store, queues, events)
    totals = []
    for assessor, group in itertools.groupby(
        sorted(rows, key=lambda r: r.assessor), key=lambda r: r.assessor
    ):
        rs = list(group)
        times = durations.get(assessor, [])
        median = float(statistics.median(times)) if times else None
        remaining = sum(r.remaining for r in rs)
        totals.append(
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
                gold_judged=len(graded_gold.get(assessor, [])),
                gold_correct=sum(graded_gold.get(assessor, [])),
                fast=sum(1 for f in fast if f.assessor == assessor),
            )
        )
    found = ref_disagreements(store, [j for j in current if (j.query_id, j.doc_id) not in gold])
    return ProgressReport(
        progress=tuple(rows),
        totals=tuple(totals),
        stale=tuple(item for queue in queues.values() for item in queue if item.stale),
        disagreements=len(found),
        adjudicated=sum(1 for d in found if d.adjudicated is not None),
        pool=ref_pool_status(store, queues),
        sessions=tuple(ref_sessions(events)),
        fast=fast,
        fast_below_ms=fast_below_ms,
        budget=None,  # no budgeted rounds here; its code did not change
    )


def ref_check_log(store: CampaignStore) -> str | None:
    """The message of the first event the rules refuse, replaying the whole log (None: none)."""
    grades = store.grades()
    topics = {t.query_id: t for t in store.topics()}
    items = {(p.query_id, p.doc_id) for p in store.pool_items()} | set(store.gold())
    documents = set(store.latest_hashes())
    seen: dict[int, LogEvent] = {}
    for event in store.log():
        key = (event.query_id, event.doc_id)
        facts = EventFacts(grades, topics.get(event.query_id), key in items or event.doc_id in documents)
        problem = assessor_problem(event.assessor) or event_problem(
            event.action, event.grade, event.query_id, event.doc_id, facts
        )
        if problem is None and event.action == "undo":
            target = seen.get(event.undoes or 0)
            same = target is not None and (target.assessor, target.query_id, target.doc_id) == (
                event.assessor,
                event.query_id,
                event.doc_id,
            )
            if not same or target is None or target.action == "undo":
                problem = f"an undo of event {event.undoes}, which is not a decision of {event.assessor!r} on this item"
        if problem:
            return f"judgment log event {event.event_id} breaks the campaign's rules ({problem})"
        seen[event.event_id] = event
    return None


def _policy(text: str) -> Any:
    """``NAME`` or ``adjudicated:FALLBACK``."""
    name, _, fallback = text.partition(":")
    return parse_policy(name, fallback=fallback or "majority")


def ref_export(store: CampaignStore, policy_text: str, unjudged: str | int) -> dict[str, Any]:
    policy = _policy(policy_text)
    gold = set(store.gold())
    grades: dict[tuple[str, str], dict[str, int]] = {}
    for j in ref_current_judgments(store):
        if j.action == "judge" and j.grade is not None:
            grades.setdefault((j.query_id, j.doc_id), {})[j.assessor] = j.grade
    assessors = sorted({a for per in grades.values() for a in per})
    adjudications = ref_adjudications(store) if policy.name == "adjudicated" else {}
    # the policy is export's own rule (unchanged); what is held to the log here is what it is given
    chosen, ties, adjudicated = choose_grades(grades.items(), policy, adjudications, gold)
    pool = [(p.query_id, p.doc_id) for p in store.pool_items() if (p.query_id, p.doc_id) not in gold]
    universe = list(dict.fromkeys([*pool, *sorted(chosen)]))
    order = {t.query_id: i for i, t in enumerate(store.topics())}
    universe.sort(key=lambda k: (order.get(k[0], len(order)), k[0], k[1]))
    judgments: dict[str, dict[str, int]] = {}
    missing = 0
    for query_id, doc_id in universe:
        value = chosen.get((query_id, doc_id))
        if value is None:
            missing += 1
            if unjudged == "skip":
                continue
            value = -1
        judgments.setdefault(query_id, {})[doc_id] = value
    return {
        "judgments": [(q, list(docs.items())) for q, docs in judgments.items()],
        "assessors": tuple([policy.assessor] if policy.assessor else assessors),
        "counts": (len(universe), len(chosen), missing, adjudicated, ties, len(gold)),
        "grades": dict(Counter(chosen.values())),
    }


def new_export(store: CampaignStore, policy_text: str, unjudged: str | int) -> dict[str, Any]:
    r = export_qrels(store, _policy(policy_text), unjudged=unjudged)
    return {
        "judgments": [(q, list(docs.items())) for q, docs in r.qrels.judgments.items()],
        "assessors": r.assessors,
        "counts": (r.items, r.graded, r.unjudged, r.adjudicated, r.majority_ties, r.gold_excluded),
        "grades": r.grade_counts,
    }


# ---------------------------------------------------------------------------------------------- random campaigns

#: Ids whose code-point order is not a collation's: upper case before lower, accents after ``z``.
TOPIC_IDS = ["q1", "Q2", "q10", "401", "éq", "b"]
DOC_IDS = ["d1", "D2", "d10", "d2", "é1", "Z9", "a", "d3"]
ASSESSORS = ["alice", "Bob", "carol", "Émile"]
MS = [None, 0, 200, 999, 1000, 1001, 4000, 4000, 12000]
#: Steps of the clock between two events: seconds, around the 30-minute session gap, hours.
STEPS = [1, 7, 45, 600, SESSION_GAP_S - 1, SESSION_GAP_S, SESSION_GAP_S + 1, 3 * 3600]


class Clock:
    """``now_iso`` for the store, stepping by random amounts (sometimes backwards, when ``back``)."""

    def __init__(self, rng: random.Random, back: bool) -> None:
        self.rng, self.back = rng, back
        self.now = dt.datetime(2024, 5, 1, 9, 0, tzinfo=dt.UTC)

    def __call__(self) -> str:
        step = self.rng.choice(STEPS) + self.rng.random()
        if self.back and self.rng.random() < 0.05:
            step = -self.rng.choice(STEPS[:4])
        self.now += dt.timedelta(seconds=step)
        return self.now.isoformat(timespec="microseconds").replace("+00:00", "Z")


def random_campaign(location: Path | str, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(store_module, "now_iso", Clock(rng, back=seed % 3 == 2))
    topics = rng.sample(TOPIC_IDS, rng.randint(2, len(TOPIC_IDS)))
    assessors = rng.sample(ASSESSORS, rng.randint(1, 3))
    adjudicator = rng.choice([*assessors, "adj"])
    texts = {d: f"text of {d}" for d in DOC_IDS}
    with CampaignStore.open(location, create=True) as store:
        store.set_topics([CampaignTopic(q, f"about {q}") for q in topics], DEFAULT_GRADES)
        pooled: set[tuple[str, str]] = set()
        for round_ in range(rng.randint(1, 3)):
            new = {(q, d) for q in topics for d in DOC_IDS if rng.random() < 0.35} - pooled
            changed = [d for d in DOC_IDS if round_ and rng.random() < 0.3]
            for d in changed:
                texts[d] = f"text of {d}, revision {round_}"
            stale = [(q, d) for q, d in sorted(pooled) if d in changed]
            queued = sorted(new) + stale
            docs = sorted({d for _, d in queued} | set(changed))
            store.add_round(
                strategy="depth",
                depth=10,
                budget=None,
                runs=["runA"],
                provenance={key: [("runA", 1)] for key in sorted(pooled | new)},
                queued=queued,
                stale=stale,
                snapshots=[make_document(d, d.upper(), texts[d]) for d in docs],
                skipped=0,
            )
            pooled |= new
            gold = {}
            if rng.random() < 0.5:
                gold = {(rng.choice(topics), f"g{round_}"): rng.randint(0, 3)}
                store.add_snapshots([make_document(f"g{round_}", "gold", "gold text")])
            keys = sorted(new) + sorted(gold)  # stale items keep their assignments
            store.add_assignments(
                [
                    Item(a, q, d, 1000 * round_ + i, overlap=len(assessors) > 1, gold=(q, d) in gold)
                    for a in assessors
                    for i, (q, d) in enumerate(keys)
                    if (q, d) in gold or rng.random() < 0.8
                ],
                gold=gold,
            )
            judgeable = sorted(new | set(stale) | set(gold))
            for _ in range(rng.randint(0, 60)):
                who = rng.choice(assessors)
                q, d = rng.choice(judgeable)
                roll = rng.random()
                ms = rng.choice(MS)
                if roll < 0.5:
                    note = rng.choice([None, None, "hm"])
                    store.record(who, q, d, grade=rng.randint(0, 3), duration_ms=ms, note=note)
                elif roll < 0.6:
                    store.record(who, q, d, action="skip", duration_ms=ms)
                elif roll < 0.68:
                    store.record(who, q, d, action="unrateable", duration_ms=ms)
                elif roll < 0.76:
                    store.add_note(who, q, d, rng.choice(["see guidelines", "typo"]))
                elif roll < 0.9:
                    store.undo(who)
                elif roll < 0.97:
                    store.adjudicate(adjudicator, q, d, rng.randint(0, 3), note=rng.choice([None, "settled"]))
                else:
                    store.undo(adjudicator)


SEEDS = range(10)

#: The random campaigns of the read-models test: every seed on SQLite; on PostgreSQL, where the server makes
#: each campaign cost several times as much (most of this module's time), the README's command draws the first
#: few — the same statements in PostgreSQL's dialect — and the stress tier every seed (``helpers/sizes.py``).
CAMPAIGNS = [("sqlite", seed) for seed in SEEDS] + [
    ("postgresql", seed) for seed in SEEDS[: examples(len(SEEDS), minimum=4)]
]


@pytest.mark.sized
@pytest.mark.parametrize(("location", "seed"), CAMPAIGNS, indirect=["location"])
def test_read_models_equal_the_python_path(
    location: Path | str,
    seed: int,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Every read model against the replay, and the tables the database keeps against theirs, in the
    campaign and in its copies (``assert_kept_and_copied``): one build of each random campaign for both (on
    PostgreSQL building them was most of this module's time)."""
    random_campaign(location, seed, monkeypatch)
    assert_kept_and_copied(location, tmp_path, request)
    with CampaignStore.open(location) as store:
        for include_gold in (False, True):
            assert store.current_judgments(include_gold=include_gold) == ref_current_judgments(
                store, include_gold=include_gold
            )
        assert list(store.adjudications().items()) == list(ref_adjudications(store).items())
        assert disagreements(store) == ref_disagreements(store)
        for fast in (FAST_BELOW_MS, 4001):
            assert progress_report(store, fast_below_ms=fast) == ref_progress_report(store, fast)
        policies = ["majority", "mean", "max", "min", "adjudicated", "adjudicated:mean"]
        policies += [f"assessor={a}" for a in store.assessors()]
        for policy, unjudged in itertools.product(policies, ("skip", -1)):
            assert new_export(store, policy, unjudged) == ref_export(store, policy, unjudged), policy
        # these ids split, so export by arrays is what ran above: held to the row path too
        assert store.pool_columns() is not None and store.grade_columns() is not None
        assert_arrays_equal_rows(store)
        labels = sorted(store.grades())
        try:  # the manifest's agreement by the earlier path: a ``Rating`` per current judgment record
            expected = agreement_summary(ref_current_judgments(store), labels)
        except ToolkitError:
            expected = None
        graded = any(j.action == "judge" for j in ref_current_judgments(store))
    if graded:
        assert export_campaign(location, "majority").manifest.get("agreement") == expected


def test_random_campaigns_exercise_every_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The campaigns above are not vacuous: together they hold every case the SQL distinguishes."""
    seen: Counter[str] = Counter()
    for seed in SEEDS:
        path = tmp_path / f"{seed}.sqlite"
        random_campaign(path, seed, monkeypatch)
        with CampaignStore.open(path) as store:
            report = ref_progress_report(store)
            events = store.log()
            seen["undo"] += sum(e.action == "undo" for e in events)
            seen["stale todo"] += sum(
                r.assigned - r.judged - r.skipped - r.unrateable for r in report.progress
            )
            seen["stale"] += len(report.stale)
            seen["adjudicated disagreement"] += report.adjudicated
            seen["disagreement"] += report.disagreements
            seen["gold graded"] += sum(t.gold_judged for t in report.totals)
            seen["fast"] += len(report.fast)
            seen["sessions > assessors"] += len(report.sessions) > len({s.assessor for s in report.sessions})
            seen["unassigned"] += report.pool is not None and report.pool.unassigned > 0
            seen["later note"] += any(
                e.action == "note" and j.note == e.note
                for j in ref_current_judgments(store, include_gold=True)
                for e in events
                if (e.assessor, e.query_id, e.doc_id) == (j.assessor, j.query_id, j.doc_id)
            )
            seen["clock back"] += any(_time(b.time) < _time(a.time) for a, b in itertools.pairwise(events))
            seen["older rounds in the pool"] += (
                report.pool is not None and report.pool.new_round < report.pool.pooled
            )
        with sqlite3.connect(path) as conn:  # what the medians' statement tells apart
            (not_assigned, skip_on_decision) = conn.execute(
                "SELECT SUM(CASE WHEN top_action IN ('judge', 'unrateable') AND NOT EXISTS (SELECT 1 FROM "
                "assignments a WHERE a.assessor = c.assessor AND a.query_id = c.query_id AND a.doc_id = c.doc_id) "
                "THEN 1 ELSE 0 END), SUM(CASE WHEN top_action = 'skip' AND decision IS NOT NULL THEN 1 ELSE 0 END) "
                "FROM decisions_in_force c"
            ).fetchone()
            seen["a settled stack of an item not assigned"] += not_assigned
            seen["a skip on top of a decision"] += skip_on_decision
    assert all(seen[k] > 0 for k in seen), seen


# ---------------------------------------------------------------------------------- the decisions in force (table)


def ref_decisions(events: list[LogEvent]) -> set[tuple[Any, ...]]:
    """The rows of ``decisions_in_force`` by a replay of the log (``toolkit.judging.log.effective_stacks``):
    per key, the top of the stack, the assessor's latest decision and adjudication on it, the latest note."""
    stacks, notes = judgment_log.effective_stacks(events)
    rows = set()
    for key in stacks.keys() | notes.keys():
        stack = stacks.get(key, [])
        top = stack[-1] if stack else None
        dec = next((e for e in reversed(stack) if e.action != "adjudicate"), None)
        adj = next((e for e in reversed(stack) if e.action == "adjudicate"), None)
        note = notes.get(key)
        rows.add(
            (
                *key,
                *((top.event_id, top.action, top.duration_ms, top.content_hash) if top else (None,) * 4),
                *((dec.event_id, dec.action, dec.grade, dec.duration_ms) if dec else (None,) * 4),
                adj.event_id if adj else None,
                note.event_id if note else None,
            )
        )
    return rows


def table_decisions(store: CampaignStore) -> set[tuple[Any, ...]]:
    """The table as the database holds it (a key whose every event was undone keeps a row of NULLs)."""
    from toolkit.judging.sql.decisions import TABLE

    rows = store._rows(f"SELECT {', '.join(TABLE.names(dumped=False))} FROM {TABLE.name}")  # type: ignore[attr-defined]
    return {tuple(r) for r in rows if r[3] is not None or r[-1] is not None}


def ref_queue_counts(store: CampaignStore) -> set[tuple[Any, ...]]:
    """The rows of ``queue_counts`` from a replay of the log and the assignments: per assessor and topic, the
    items assigned, how many have each decision on top of their stack, the reading time of the settling ones."""
    tops = {row[:3]: (row[4], row[5]) for row in ref_decisions(store.log())}
    out: dict[tuple[str, str], list[int]] = {}
    for key in store._rows("SELECT assessor, query_id, doc_id FROM assignments"):  # type: ignore[attr-defined]
        row = out.setdefault(tuple(key[:2]), [0, 0, 0, 0, 0])
        action, ms = tops.get(tuple(key), (None, None))
        row[0] += 1
        for i, counted in enumerate(("judge", "skip", "unrateable"), start=1):
            row[i] += action == counted
        row[4] += (ms or 0) if action in SETTLED else 0
    return {(*key, *row) for key, row in out.items()}


def table_rows(store: CampaignStore, name: str) -> set[tuple[Any, ...]]:
    from toolkit.judging.sql.tables import table

    columns = ", ".join(table(name).names(dumped=False))
    return {tuple(r) for r in store._rows(f"SELECT {columns} FROM {name}")}  # type: ignore[attr-defined]


def derived_windows(store: CampaignStore) -> set[tuple[Any, ...]]:
    """``session_windows`` derived from the whole log by the statement the migration fills it with."""
    from toolkit.judging.sql import counts

    return {tuple(r) for r in store._rows(counts.windows(store.dialect))}  # type: ignore[attr-defined]


def assert_kept(store: CampaignStore, where: object = None) -> None:
    """Every table the database keeps beside the log equals its replay (the windows: their derivation, the
    sessions of the report being held to the replay by ``test_read_models_equal_the_python_path``)."""
    assert table_decisions(store) == ref_decisions(store.log()), where
    assert table_rows(store, "queue_counts") == ref_queue_counts(store), where
    assert table_rows(store, "session_windows") == derived_windows(store), where


def assert_kept_and_copied(location: Path | str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The decisions in force and the report's counts, kept by the database through random appends, undos,
    notes, adjudications and re-pools (stale items), equal their replay; never part of the dump, so a copy
    (either way between the backends) rebuilds them from the copied log."""
    from toolkit.judging.dump import copy_campaign

    with CampaignStore.open(location) as store:
        expected = ref_decisions(store.log())
        assert_kept(store)
        assert table_rows(store, "queue_counts")  # not vacuous
        assert not {"decisions_in_force", "queue_counts", "session_windows"} & set(store.dump().tables)
    copies: list[Path | str] = [tmp_path / "copy.sqlite"]
    copy_campaign(location, copies[0])
    if not isinstance(location, Path):  # and back to another PostgreSQL campaign
        copies.append(request.getfixturevalue("other_pg_location"))
        copy_campaign(copies[0], copies[1])
    for copy in copies:
        with CampaignStore.open(copy) as store:
            assert table_decisions(store) == expected, copy
            assert_kept(store, copy)


def _downgrade_postgresql(url: str, version: int = 5) -> None:
    """Take a PostgreSQL campaign back to schema ``version`` (5 or 6), as one made then: no table, no trigger
    of a later version."""
    import psycopg

    from toolkit.judging.postgres.url import parse_campaign_url
    from toolkit.judging.sql import counts, decisions

    parsed = parse_campaign_url(url)
    with psycopg.connect(parsed.conninfo, autocommit=True) as conn:
        conn.execute("SELECT set_config('search_path', %s, false)", (parsed.campaign,))
        for name, on in (
            (counts.STACKS, "decisions_in_force"),
            (counts.ASSIGNED, "assignments"),
            (counts.WINDOWED, "judgment_log"),
        ):
            conn.execute(f"DROP TRIGGER {name} ON {on}")
            conn.execute(f"DROP FUNCTION {name}()")
        conn.execute(f"DROP FUNCTION {counts.WINDOW_FUNCTION}(text, bigint)")
        conn.execute(f"DROP TABLE {counts.QUEUE.name}, {counts.WINDOWS.name}")
        conn.execute("DROP INDEX decisions_in_force_item")
        if version == counts.SINCE - 1:
            conn.execute(f"UPDATE schema_info SET version = {version}")
            return
        conn.execute(f"DROP TRIGGER {decisions.TRIGGER} ON judgment_log")
        conn.execute(f"DROP FUNCTION {decisions.TRIGGER}()")
        conn.execute(f"DROP TABLE {decisions.TABLE.name}")
        conn.execute("UPDATE schema_info SET version = 5")


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_a_campaign_of_schema_5_is_migrated_with_its_decisions_in_force(
    location: Path | str, seed: int, monkeypatch: pytest.MonkeyPatch, downgrade
) -> None:
    """The migration to 6 builds the table from the log of a campaign made before it; then the trigger
    keeps it as before."""
    random_campaign(location, seed, monkeypatch)
    if isinstance(location, Path):
        with sqlite3.connect(location) as conn:
            downgrade(conn, 5)
            assert not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'decisions_in_force'"
            ).fetchall()
    else:
        _downgrade_postgresql(location)
    with CampaignStore.open(location) as store:  # migrated on open
        assert_kept(store)
        who, q, d = next((e.assessor, e.query_id, e.doc_id) for e in store.log() if e.action == "judge")
        store.record(who, q, d, grade=3)
        store.undo(who)
        store.add_note(who, q, d, "after the upgrade")
        assert_kept(store)


@pytest.mark.parametrize("seed", SEEDS[4:8])
def test_a_campaign_of_schema_6_is_migrated_with_its_counts(
    location: Path | str, seed: int, monkeypatch: pytest.MonkeyPatch, downgrade
) -> None:
    """The migration to 7 fills the report's counts from the decisions in force, the assignments and the
    log of a campaign of 6; then the triggers keep them as before."""
    random_campaign(location, seed, monkeypatch)
    if isinstance(location, Path):
        with sqlite3.connect(location) as conn:
            downgrade(conn, 6)
            assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'queue_counts'").fetchall()
    else:
        _downgrade_postgresql(location, 6)
    with CampaignStore.open(location) as store:  # migrated on open
        assert_kept(store)
        who, q, d = next((e.assessor, e.query_id, e.doc_id) for e in store.log() if e.action == "judge")
        store.record(who, q, d, action="skip", duration_ms=700)
        store.undo(who)
        store.record(who, q, d, action="unrateable", duration_ms=900)
        assert_kept(store)
        assert progress_report(store) == ref_progress_report(store)


def test_the_counts_follow_assignments_taken_back_or_moved_by_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Assignments deleted or re-keyed in an SQLite shell (the toolkit only adds them): the counts follow."""
    path = tmp_path / "c.sqlite"
    random_campaign(path, 1, monkeypatch)
    with sqlite3.connect(path) as conn:
        judged = conn.execute(
            "SELECT a.assessor, a.query_id, a.doc_id FROM assignments a JOIN decisions_in_force d USING "
            "(assessor, query_id, doc_id) WHERE d.top_action IS NOT NULL ORDER BY 1, 2, 3"
        ).fetchall()
        assert len(judged) >= 2
        conn.execute("DELETE FROM assignments WHERE assessor = ? AND query_id = ? AND doc_id = ?", judged[0])
        conn.execute(
            "UPDATE assignments SET assessor = 'zed' WHERE assessor = ? AND query_id = ? AND doc_id = ?",
            judged[1],
        )
        conn.execute("DELETE FROM assignments WHERE rowid IN (SELECT rowid FROM assignments LIMIT 3)")
    with CampaignStore.open(path) as store:
        assert_kept(store)
        assert progress_report(store) == ref_progress_report(store)


def test_a_campaign_read_but_not_migrated_derives_the_decisions_from_the_log(
    location: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only campaign of schema 5 has none of the kept tables: the read models derive the same rows in
    place of them."""
    from toolkit.judging.sql.decisions import TABLE

    random_campaign(location, 3, monkeypatch)
    with CampaignStore.open(location) as store:
        present = store._columns_of  # type: ignore[attr-defined]
        kept = {TABLE.name, "queue_counts", "session_windows"}  # as before 6: every read derives its rows
        monkeypatch.setattr(store, "_columns_of", lambda name: None if name in kept else present(name))
        assert store._decisions() != TABLE.name  # type: ignore[attr-defined]
        assert store.current_judgments(include_gold=True) == ref_current_judgments(store, include_gold=True)
        assert list(store.adjudications().items()) == list(ref_adjudications(store).items())
        assert progress_report(store) == ref_progress_report(store)
        assert new_export(store, "adjudicated", -1) == ref_export(store, "adjudicated", -1)


# ---------------------------------------------------------------------------------------------- the log check

#: Rows written around the store's rules (by hand in an SQLite shell): what ``check_log`` must name (a
#: grade missing or on a skip the table's CHECK refuses already).
BAD_ROWS = [
    ("judge", "alice", "q1", "d1", 9, None),  # off the scale
    ("judge", "alice", "nope", "d1", 1, None),  # no such topic
    ("judge", "alice", "q1", "zzz", 1, None),  # no such document
    ("judge", "al\x07ice", "q1", "d1", 1, None),  # a control character in a name
    ("undo", "alice", "q1", "d1", None, 10_000),  # an undo of nothing
    ("undo", "alice", "q1", "d1", None, "other item"),  # of another item's decision
    ("undo", "alice", "q1", "d1", None, "an undo"),  # of an undo
    ("undo", "alice", "q1", "d1", None, "later"),  # of a later event
    ("undo", "Bob", "q1", "d1", None, "other assessor"),  # of another assessor's decision
]


@pytest.mark.parametrize("bad", BAD_ROWS, ids=lambda row: repr(row))
def test_log_check_names_the_event_the_python_path_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: tuple[Any, ...]
) -> None:
    path = tmp_path / "c.sqlite"
    random_campaign(path, 4, monkeypatch)
    with CampaignStore.open(path) as store:
        if "q1" not in {t.query_id for t in store.topics()}:
            store.set_topics([*store.topics(), CampaignTopic("q1", "q1")], DEFAULT_GRADES)
        store.add_snapshots([make_document("d1", "D1", "text")])
        store.record("alice", "q1", "d1", grade=1)
        store.record("Bob", "q1", "d1", grade=1)
        store.record("alice", "q1", "d1", grade=2)
        other = store.record("alice", *other_item(store), grade=0)  # in force
        store.record("alice", "q1", "d1", grade=3)
        store.undo("alice")  # of the 3
        assert ref_check_log(store) is None
        check_log(store)  # a log the toolkit wrote passes
        last = store.log_position()[1] or 0
    action, assessor, query_id, doc_id, grade, undoes = bad
    events = {e.event_id: e for e in CampaignStore.open(path).log()}
    targets = {
        "other item": other,
        "an undo": last,
        "later": last + 2,
        "other assessor": next(i for i, e in events.items() if e.assessor == "Bob"),
    }
    undoes = targets.get(undoes, undoes)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade, undoes) "
            "VALUES ('2024-06-01T00:00:00.000000Z', ?, ?, ?, ?, ?, ?)",
            (assessor, query_id, doc_id, action, grade, undoes),
        )
        conn.execute(
            "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade) "
            "VALUES ('2024-06-01T00:00:01.000000Z', 'alice', 'q1', 'd1', 'judge', 1)"
        )
    with CampaignStore.open(path) as store:
        expected = ref_check_log(store)
        assert expected is not None
        with pytest.raises(StoreError) as caught:
            check_log(store)
        # what the log says stays what the Python path says, odd rows and all (an undo of another item's
        # decision undoes nothing)
        assert store.current_judgments(include_gold=True) == ref_current_judgments(store, include_gold=True)
        assert progress_report(store) == ref_progress_report(store)
    assert expected in str(caught.value)


def other_item(store: CampaignStore) -> tuple[str, str]:
    """A pooled item other than (q1, d1)."""
    return next((p.query_id, p.doc_id) for p in store.pool_items() if (p.query_id, p.doc_id) != ("q1", "d1"))


def test_two_connections_racing_on_one_item_leave_the_later_event_in_force(
    pg_location: str, make_campaign
) -> None:
    """PostgreSQL: an event with the older id whose trigger runs after a later event's (the two connections
    could not see each other's uncommitted event) must not overwrite it. Made deterministic: the later event
    is appended and held uncommitted; the older id (drawn from the sequence first, written explicitly as a
    restore writes ids) waits for its row, and then finds the later event there."""
    import threading

    import psycopg

    from toolkit.judging.postgres.url import parse_campaign_url

    make_campaign(pg_location)
    with CampaignStore.open(pg_location) as store:
        store.record("alice", "q1", "d1", grade=1)
    parsed = parse_campaign_url(pg_location)
    insert = (
        "INSERT INTO judgment_log ({}time, assessor, query_id, doc_id, action, grade) {}"
        "VALUES ({}'2024-06-01T00:00:00Z', 'alice', 'q1', 'd1', 'judge', %s)"
    )

    def connect() -> psycopg.Connection[Any]:
        conn = psycopg.connect(parsed.conninfo, autocommit=True)
        conn.execute("SELECT set_config('search_path', %s, false)", (parsed.campaign,))
        return conn

    with connect() as older, connect() as later:
        (skipped,) = older.execute("SELECT nextval(pg_get_serial_sequence('judgment_log', 'id'))").fetchone()
        later.execute("BEGIN")
        later.execute(insert.format("", "", ""), (3,))  # id skipped + 1, in force once committed
        done = threading.Event()

        def append_older() -> None:
            older.execute(insert.format("id, ", "OVERRIDING SYSTEM VALUE ", "%s, "), (skipped, 0))
            done.set()

        thread = threading.Thread(target=append_older)
        thread.start()
        assert not done.wait(1.0)  # waiting for the row the later event's trigger holds
        later.execute("COMMIT")
        thread.join(30)
        assert done.is_set()
    with CampaignStore.open(pg_location) as store:
        assert table_decisions(store) == ref_decisions(store.log())
        assert [g[3] for g in store.current_grades() if g[:3] == ("q1", "d1", "alice")] == [3]


def test_a_window_of_more_events_than_a_block_is_kept_in_rows_the_report_joins(
    location: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One assessor's events in one window of log time span several blocks of ids (``counts.BLOCK``): the
    rows are split by block, and the report's sessions are still the replay's."""
    from toolkit.judging.sql import counts

    random_campaign(location, 2, monkeypatch)
    with CampaignStore.open(location) as store:
        who, q, d = store._rows("SELECT assessor, query_id, doc_id FROM assignments ORDER BY 1, 2, 3")[0]  # type: ignore[attr-defined]
        for i in range(counts.BLOCK + 10):
            store.record(who, q, d, grade=i % 4, duration_ms=1000 + i)
        assert_kept(store)
        assert len({row[2] for row in table_rows(store, "session_windows") if row[0] == who}) >= 2
        assert progress_report(store) == ref_progress_report(store)


# ------------------------------------------------------------------------------- export by arrays (itemgrades)

#: Every policy the arrays apply (``assessor=NAME`` reads rows).
ARRAY_POLICIES = ["majority", "mean", "max", "min", "adjudicated", "adjudicated:mean", "adjudicated:max"]


def summary_of(table: RatingTable, labels: list[int]) -> dict[str, Any] | None:
    try:
        return agreement_summary(table, labels)
    except ToolkitError:
        return None


def assert_arrays_equal_rows(store: CampaignStore) -> None:
    """Export by arrays (``toolkit.judging.itemgrades``) gives what the row path gives — the same result,
    the same file byte for byte, the same manifest — for every policy the arrays apply (and they do apply),
    and the manifest's agreement summary numbered per item is the row path's, float for float."""
    rows = store.current_grades()
    grades = read_item_grades(store)
    assert grades is not None
    pool = list(zip(grades.query_ids, grades.doc_ids, strict=True))
    assert pool == store.pooled(include_gold=False)
    names = [grades.assessors[a] for a in grades.assessor.tolist()]
    read = sorted(
        (pool[p][0], pool[p][1], a, g)
        for p, a, g in zip(grades.item.tolist(), names, grades.grade.tolist(), strict=True)
    )
    assert read == sorted((q, d, a, g) for q, d, a, g, _ in rows)
    for policy_text, unjudged in itertools.product(ARRAY_POLICIES, ("skip", -1)):
        policy = _policy(policy_text)
        assert export_items(store, policy, grades, unjudged=unjudged, name="qrels") is not None, policy_text
        by_rows = export_qrels(store, policy, unjudged=unjudged, grades=rows)
        by_arrays = export_qrels(store, policy, unjudged=unjudged, grades=grades)
        assert by_arrays == by_rows, policy_text
        assert format_qrels(by_arrays.qrels) == format_qrels(by_rows.qrels), policy_text
        assert by_arrays.manifest() == by_rows.manifest(), policy_text
    labels = sorted(store.grades())
    if rows:
        q, d, a, g, _ = zip(*rows, strict=True)
        by_rows = RatingTable.from_columns(a, q, d, g)
        table = RatingTable.from_items(
            grades.item, grades.assessor, grades.assessors, grades.grade, grades.query_ids, grades.doc_ids
        )
        # numbered alike (so every statistic adds its terms in the same order), judgment for judgment
        assert (table.assessors, table.topics) == (by_rows.assessors, by_rows.topics)
        assert table.item_topic.tolist() == by_rows.item_topic.tolist()

        def numbered(t: RatingTable) -> list[tuple[int, ...]]:
            return sorted(
                zip(t.assessor.tolist(), t.topic.tolist(), t.item.tolist(), t.grade.tolist(), strict=True)
            )

        assert numbered(table) == numbered(by_rows)
        assert sorted(table) == sorted(by_rows)
        assert summary_of(table, labels) == summary_of(by_rows, labels)


@pytest.mark.parametrize(
    ("doc_id", "columns"),
    [("plain", (True, True)), ("a\x01b", (True, False)), ("a\nb", (False, False)), ("a\tb", (False, False))],
)
def test_ids_the_column_reads_cannot_split_are_read_as_rows(
    location: Path | str, doc_id: str, columns: tuple[bool, bool]
) -> None:
    """A line feed or a tab in an id (the column reads' separators), or a character that sorts before the
    tab (the pool's keys would not sort as its pairs): the column read declines, and export still gives the
    replay's qrels."""
    with CampaignStore.open(location, create=True) as store:
        store.set_topics([CampaignTopic("q1", "about q1"), CampaignTopic("q0", "about q0")], DEFAULT_GRADES)
        keys = [("q1", doc_id), ("q1", "z"), ("q0", "b"), ("q0", doc_id)]
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["runA"],
            provenance={key: [("runA", 1)] for key in keys},
            queued=keys,
            stale=[],
            snapshots=[make_document(d, "t", f"text of {d}") for d in sorted({d for _, d in keys})],
            skipped=0,
        )
        for who, grades in (("alice", (1, 2, 0, 3)), ("bob", (1, 0, 0, 2))):
            for (q, d), g in zip(keys, grades, strict=True):
                store.record(who, q, d, grade=g)
        assert (store.grade_columns() is not None, store.pool_columns() is not None) == columns
        for policy_text, unjudged in itertools.product(ARRAY_POLICIES, ("skip", -1)):
            assert new_export(store, policy_text, unjudged) == ref_export(store, policy_text, unjudged)
        if columns[0]:
            assert_arrays_equal_rows(store)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["majority", "mean", "max", "min"])
def test_a_policy_by_patterns_is_the_policy_item_by_item(seed: int, policy: str) -> None:
    """``choose_item_grades`` (each distinct pattern of grades ruled once) against ``choose_grades`` (each
    item ruled), on many items with up to five assessors and negative grades — and with enough distinct
    grades that the patterns no longer fit one integer (the other branch)."""
    rng = random.Random(seed)
    values = list(range(-2, 4)) if seed % 2 else list(range(-2, 40))
    assessors = tuple(f"a{i}" for i in range(5))
    n = 400
    rows = [(p, a, rng.choice(values)) for p in range(n) for a in range(len(assessors)) if rng.random() < 0.6]
    import numpy as np

    item, assessor, grade = (np.array(c, np.int64) for c in zip(*rows, strict=True))
    query_ids = [f"q{p // 20}" for p in range(n)]
    doc_ids = [f"d{p}" for p in range(n)]
    grades = ItemGrades(
        query_ids,
        doc_ids,
        {f"{q}\t{d}": p for p, (q, d) in enumerate(zip(query_ids, doc_ids, strict=True))},
        item,
        assessor,
        assessors,
        grade,
    )
    choice = choose_item_grades(grades, policy, {}, {})
    assert choice is not None
    per_item: dict[tuple[str, str], dict[str, int]] = {}
    for p, a, g in rows:
        per_item.setdefault((query_ids[p], doc_ids[p]), {})[assessors[a]] = g
    expected, ties, _ = choose_grades(per_item.items(), parse_policy(policy), {}, set())
    got = {
        (query_ids[p], doc_ids[p]): g
        for p, (g, c) in enumerate(zip(choice.grade.tolist(), choice.chosen.tolist(), strict=True))
        if c
    }
    assert got == expected
    assert choice.ties == ties


@pytest.mark.parametrize("seed", range(5))
def test_sqlite_median_of_the_grouped_times_is_statistics_median(seed: int) -> None:
    """SQLite's medians split ``group_concat``'s text: whole milliseconds as integers, a time stored as a
    fraction as floats — either way ``statistics.median``'s value."""
    from toolkit.judging.sql.readmodels import _middle, _numbers

    rng = random.Random(seed)
    whole = [rng.choice([0, 1, 999, 1000, 12000, 2**40]) for _ in range(rng.randint(1, 9))]
    fractions = [*whole, rng.choice([0.5, 1500.25])]
    for values in (whole, fractions):
        text = ",".join(str(v) for v in values)
        assert _numbers(text) == sorted(values)
        assert _middle(_numbers(text)) == statistics.median(values)


def test_the_report_read_beside_is_the_report_read_alone(
    location: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report reads its medians on a second connection, the pool's counts, the sessions and the stale
    items on a third: where none opens it reads them on its own, the same report; what another connection
    meets is raised to the caller, not lost in its thread."""
    random_campaign(location, 3, monkeypatch)
    opened: list[str] = []
    real_open = CampaignStore.open

    def counted(where: Any, **kw: Any) -> CampaignStore:
        opened.append(str(where))
        return real_open(where, **kw)

    with CampaignStore.open(location) as store:
        expected = ref_progress_report(store)
        monkeypatch.setattr(CampaignStore, "open", staticmethod(counted))
        assert progress_report(store) == expected
        assert (
            opened == [str(location)] * 2
        )  # medians, and pool with sessions, each on a connection of its own

        def refused(where: Any, **kw: Any) -> CampaignStore:
            raise StoreError("no second connection")

        monkeypatch.setattr(CampaignStore, "open", staticmethod(refused))
        assert progress_report(store) == expected

        # an error on either other connection (the pool's side, the medians') reaches the caller
        for method in ("stale_items", "progress_medians"):

            def broken(where: Any, method: str = method, **kw: Any) -> CampaignStore:
                other = real_open(where, **kw)
                monkeypatch.setattr(other, method, lambda: 1 / 0)
                return other

            monkeypatch.setattr(CampaignStore, "open", staticmethod(broken))
            with pytest.raises(ZeroDivisionError):
                progress_report(store)
