"""Rank-1 buckets on S1 (docs/design.md §7)."""

from toolkit.stats.buckets import bucket_of, rank_outcome

A = [1, 2, None, 3, 1, 4, None, 1, 2, 5]
B = [1, 1, 2, 3, 2, 1, None, 1, 1, 4]
EXPECTED = [
    "unchanged",
    "fixed",
    "both_suboptimal",
    "unchanged",
    "degraded",
    "fixed",
    "unchanged",
    "unchanged",
    "fixed",
    "both_suboptimal",
]


def test_s1_buckets_per_topic():
    assert [bucket_of(a, b) for a, b in zip(A, B, strict=True)] == EXPECTED


def test_s1_outcome_table_and_mcnemar():
    ids = [f"q{i}" for i in range(1, 11)]
    r = rank_outcome(dict(zip(ids, A, strict=True)), dict(zip(ids, B, strict=True)))
    assert r.topics["fixed"] == ("q2", "q6", "q9")
    assert r.topics["degraded"] == ("q5",)
    assert r.topics["unchanged"] == ("q1", "q4", "q7", "q8")
    assert r.topics["both_suboptimal"] == ("q3", "q10")
    # rank-1 2×2 [[both at 1, degraded], [fixed, neither]] = [[2, 1], [3, 4]]
    assert (r.both_at_1, r.count("degraded"), r.count("fixed"), r.neither_at_1) == (2, 1, 3, 4)
    assert r.mcnemar.pvalue == 0.625  # binomial(3 of 4): 2 * 5/16
    assert (
        r.found_lost["found"] == ("q3",) and r.found_lost["never"] == ("q7",) and r.found_lost["lost"] == ()
    )


def test_added_and_removed_take_precedence():
    assert bucket_of(None, 1, has_a=False, has_b=True) == "added"
    assert bucket_of(1, None, has_a=True, has_b=False) == "removed"
    r = rank_outcome(
        {"a": None, "b": 1},
        {"a": 1, "b": None},
        answered_baseline={"a": False, "b": True},
        answered_candidate={"a": True, "b": False},
    )
    assert r.topics["added"] == ("a",) and r.topics["removed"] == ("b",)
    assert r.mcnemar.pvalue == 1.0
