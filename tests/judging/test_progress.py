"""The progress read model and the organiser's report, by hand on a small campaign (no Textual)."""

from __future__ import annotations

from pathlib import Path

from toolkit.judging.progress import assessor_totals, progress_report
from toolkit.judging.records import ProgressRow
from toolkit.judging.store import CampaignStore

#: alice and bob on the four items of the campaign (q1 d1, q1 d2, 401 d3, 401 d1): spreads 3, 1, 0, 2.
GRADES = {"alice": [3, 1, 0, 2], "bob": [0, 2, 0, 0]}
ITEMS = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]


def test_report_counts_medians_and_disagreements(tmp_path: Path, make_campaign) -> None:
    with CampaignStore.open(make_campaign(tmp_path / "c.sqlite")) as store:
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


def test_totals_take_the_median_of_decisions_not_of_topic_medians() -> None:
    rows = [
        ProgressRow("a", "q1", 3, 3, 0, 0, 0, 10.0),
        ProgressRow("a", "q2", 1, 1, 0, 0, 0, 1000.0),
    ]
    # decisions 5, 10, 15 in q1 and 1000 in q2: median of the four = 12.5 (median of medians would be 505)
    (total,) = assessor_totals(rows, {"a": [5, 10, 15, 1000]})
    assert (total.assigned, total.judged, total.remaining, total.median_ms) == (4, 4, 0, 12.5)
