"""The progress read model and the organiser's report, by hand on a small campaign (no Textual)."""

from __future__ import annotations

from pathlib import Path

from toolkit.judging.progress import progress_report
from toolkit.judging.store import CampaignStore

#: alice and bob on the four items of the campaign (q1 d1, q1 d2, 401 d3, 401 d1): spreads 3, 1, 0, 2.
GRADES = {"alice": [3, 1, 0, 2], "bob": [0, 2, 0, 0]}
ITEMS = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]


def test_report_counts_medians_and_disagreements(location: Path | str, make_campaign) -> None:
    with CampaignStore.open(make_campaign(location)) as store:
        for assessor, grades in GRADES.items():
            for (query_id, doc_id), grade in zip(ITEMS, grades, strict=True):
                store.record(assessor, query_id, doc_id, grade=grade, duration_ms=1000 + 100 * grade)
        store.record("alice", "q1", "d1", action="skip", duration_ms=5)  # re-decided: a skip is not done
        store.adjudicate("judy", "q1", "d2", 2)
        report = progress_report(store)
    totals = {t.assessor: t for t in report.totals}
    a = totals["alice"]
    # alice: q1/d1 now skipped; judged 3 (d2, d3, d1@401); remaining = 4 - 3 = 1 (the skip)
    assert (a.assigned, a.judged, a.skipped, a.unrateable, a.remaining) == (4, 3, 1, 0, 1)
    # her settling decisions still in force: 1100 (q1 d2), 1000 (401 d3), 1200 (401 d1) → median 1100
    assert a.median_ms == 1100.0
    b = totals["bob"]
    assert (b.judged, b.remaining, b.median_ms) == (4, 0, 1000.0)  # 1000, 1200, 1000, 1000
    assert [(r.assessor, r.query_id, r.judged, r.skipped) for r in report.progress] == [
        ("alice", "q1", 1, 1),
        ("alice", "401", 2, 0),
        ("bob", "q1", 2, 0),
        ("bob", "401", 2, 0),
    ]
    # graded by both and different: q1 d2 (1 vs 2) and 401 d1 (2 vs 0); q1 d1 is alice's skip now
    assert (report.disagreements, report.adjudicated) == (2, 1)
    assert report.stale == ()


def test_totals_take_the_median_of_decisions_not_of_topic_medians(
    location: Path | str, make_campaign
) -> None:
    pool = [("q1", "d1"), ("q1", "d2"), ("q1", "d3"), ("401", "d1")]
    with CampaignStore.open(make_campaign(location, pool=pool, assessors=("a",))) as store:
        for (query_id, doc_id), ms in zip(pool, (5, 10, 15, 1000), strict=True):
            store.record("a", query_id, doc_id, grade=1, duration_ms=ms)
        report = progress_report(store)
    # decisions 5, 10, 15 in q1 and 1000 in 401: median of the four = 12.5 (median of medians would be 505)
    (total,) = report.totals
    assert (total.assigned, total.judged, total.remaining, total.median_ms) == (4, 4, 0, 12.5)
    assert [r.median_ms for r in report.progress] == [10.0, 1000.0]


def test_organiser_report_times_gold_accuracy_and_fast_grades(tmp_path: Path, make_campaign) -> None:
    from toolkit.judging.progress import FastJudgment

    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite")) as store:
        store.add_assignments([], gold={("q1", "d2"): 1})  # q1 d2's grade is known: 1
        store.record("alice", "q1", "d1", grade=3, duration_ms=300)  # too fast to have read it
        store.record("alice", "q1", "d2", grade=1, duration_ms=2000)  # gold, right
        store.record("alice", "401", "d3", action="unrateable", duration_ms=1000)
        store.record("bob", "q1", "d2", grade=2, duration_ms=4000)  # gold, wrong
        report = progress_report(store)
        strict = progress_report(store, fast_below_ms=2500)
    totals = {t.assessor: t for t in report.totals}
    a, b = totals["alice"], totals["bob"]
    # alice: decisions 300, 2000, 1000 → median 1000, total 3300; one item left (401 d1) → ≈ 1000 ms left
    assert (a.judged, a.unrateable, a.remaining, a.median_ms, a.total_ms, a.left_ms) == (
        2,
        1,
        1,
        1000.0,
        3300,
        1000.0,
    )
    assert (a.gold_judged, a.gold_correct, a.gold_accuracy, a.fast) == (1, 1, 1.0, 1)
    # bob: one decision of 4000 ms, three items left → ≈ 12000 ms left; the gold item graded 2, not 1
    assert (b.judged, b.remaining, b.median_ms, b.total_ms, b.left_ms) == (1, 3, 4000.0, 4000, 12000.0)
    assert (b.gold_judged, b.gold_correct, b.gold_accuracy, b.fast) == (1, 0, 0.0, 0)
    assert {(r.assessor, r.query_id): r.total_ms for r in report.progress} == {
        ("alice", "q1"): 2300,
        ("alice", "401"): 1000,
        ("bob", "q1"): 4000,
        ("bob", "401"): 0,
    }
    assert report.fast == (FastJudgment("alice", "q1", "d1", 300),)  # an unrateable is not a grade
    assert [(t.assessor, t.fast) for t in strict.totals] == [("alice", 2), ("bob", 0)]
    assert [
        (s.assessor, s.decisions, s.judging_ms) for s in sorted(report.sessions, key=lambda s: s.assessor)
    ] == [
        ("alice", 3, 3300),
        ("bob", 1, 4000),
    ]


def test_sessions_split_at_a_long_pause() -> None:
    from toolkit.judging.progress import SessionSpan, sessions
    from toolkit.judging.records import LogEvent

    def event(i: int, time: str, action: str = "judge", ms: int | None = 1000) -> LogEvent:
        return LogEvent(
            i, time, "alice", "q1", f"d{i}", action, 1 if action == "judge" else None, None, ms, i, None, None
        )

    events = [
        event(1, "2024-05-01T10:00:00.000000Z", ms=5000),  # the document appeared at 09:59:55
        event(2, "2024-05-01T10:00:10.000000Z"),
        event(3, "2024-05-01T10:44:50.000000Z"),  # 44 min 40 s later: a new session
        event(4, "2024-05-01T10:45:30.000000Z", action="undo", ms=None),
        LogEvent(
            5,
            "2024-05-01T10:46:00.000000Z",
            "judy",
            "q1",
            "d1",
            "adjudicate",
            2,
            None,
            None,
            None,
            None,
            None,
        ),
    ]
    assert sessions(events) == [
        SessionSpan("alice", "2024-05-01T09:59:55Z", "2024-05-01T10:00:10.000000Z", 2, 15.0, 6000),
        SessionSpan("alice", "2024-05-01T10:44:49Z", "2024-05-01T10:45:30.000000Z", 1, 41.0, 1000),
    ]


def test_the_report_reads_once_and_agrees_with_each_view_read_alone(tmp_path: Path, make_campaign) -> None:
    """The organiser's report shares one read of the log and the queues among its views; each view read on
    its own (the slow path) must say the same, on a campaign with skips, undos, notes, gold, an assessor
    who also adjudicates, and an assessor with nothing yet."""
    import random

    from toolkit.judging.disagreements import disagreements
    from toolkit.judging.progress import pool_status, progress, sessions
    from toolkit.judging.queue import stale_items

    pool = [(q, f"d{i}") for q in ("q1", "401") for i in range(12)]
    path = make_campaign(tmp_path / "c.sqlite", pool=pool, assessors=("alice", "bob", "carol"))
    rng = random.Random(5)
    with CampaignStore.open(path) as store:
        store.add_assignments([], gold={("q1", "d0"): 2})
        for step in range(150):
            who = rng.choice(("alice", "bob"))
            q, d = rng.choice(pool)
            roll = rng.random()
            if roll < 0.1:
                store.undo(who)
            elif roll < 0.2:
                store.record(who, q, d, action=rng.choice(("skip", "unrateable")), duration_ms=step)
            elif roll < 0.25:
                store.adjudicate("alice", q, d, rng.randrange(4))
            else:
                store.record(who, q, d, grade=rng.randrange(4), duration_ms=rng.randrange(3000))
        report = progress_report(store)
        found = disagreements(store)
        assert report.progress == tuple(progress(store))
        assert report.stale == tuple(stale_items(store))
        assert report.pool == pool_status(store)
        assert report.sessions == tuple(sessions(store.events()))
        assert (report.disagreements, report.adjudicated) == (
            len(found),
            sum(1 for d in found if d.adjudicated is not None),
        )
        assert report.disagreements > 0 and report.adjudicated > 0
