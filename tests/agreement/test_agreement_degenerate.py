"""Degenerate campaigns: every undefined statistic comes with its reason, never a silent 0 or NaN."""

from __future__ import annotations

import json
import math

import pytest
from agreement_data import a4_judgments

from toolkit.agreement import Interval, Value, agree, agreement_summary
from toolkit.errors import ToolkitError, UsageError
from toolkit.reports import SCHEMA_VERSION, render
from toolkit.reports.agreement import agreement_data

P_E_1 = "both assessors rated all {n} shared items grade {g}: chance agreement p_e = 1, so kappa is undefined"


def test_value_holds_a_number_or_a_reason() -> None:
    assert Value(0.5).defined
    assert not Value.undefined("why").defined
    with pytest.raises(ValueError):
        Value(None, None)
    with pytest.raises(ValueError):
        Value(0.5, "both")
    with pytest.raises(ValueError):
        Value(math.nan)
    with pytest.raises(ValueError):
        Interval(0.1, None)


def test_both_assessors_one_and_the_same_grade() -> None:
    judgments = [(who, "q1", f"d{i}", 0) for who in ("alice", "bob") for i in range(12)]
    result = agree(judgments, labels=[0, 1, 2, 3], bootstrap=0)
    (pair,) = result.pairs
    assert pair.n == 12
    assert pair.percent_agreement.value == 100.0
    for k in (pair.unweighted, pair.linear, pair.quadratic):
        assert k.estimate == Value.undefined(P_E_1.format(n=12, g=0))
        assert k.ci95.reason == P_E_1.format(n=12, g=0)
    b1 = pair.binarised[0]
    assert b1.kappa.estimate.reason == (
        "both assessors rated all 12 shared items not relevant (grade < 1): chance agreement p_e = 1, "
        "so kappa is undefined"
    )
    assert b1.overlap.reason == "neither assessor judged any of the 12 shared items relevant (grade ≥ 1)"
    assert result.fleiss.estimate.reason == (
        "every judgment on the 12 items judged by 2 assessors is grade 0: chance agreement is 1, "
        "so Fleiss' kappa is undefined"
    )
    assert result.krippendorff.ordinal.reason == (
        "every judgment on the 12 items judged by 2 or more assessors is grade 0: expected disagreement is 0, "
        "so alpha is undefined"
    )


def test_the_minimum_data_rule_comes_before_the_other_reasons() -> None:
    """Four items all graded 0 by both: too few for any coefficient, whatever else is wrong with them."""
    judgments = [(who, "q1", f"d{i}", 0) for who in ("alice", "bob") for i in range(4)]
    result = agree(judgments, labels=[0, 1, 2, 3], bootstrap=0)
    assert result.pairs[0].quadratic.estimate == Value.undefined("needs at least 10 shared items (found 4)")
    assert result.fleiss.estimate.reason == "needs at least 10 items judged by 2 assessors each (found 4)"
    assert (
        result.krippendorff.nominal.reason
        == "needs at least 10 items judged by 2 or more assessors (found 4)"
    )
    assert result.pairs[0].percent_agreement.value == 100.0  # descriptive: shown at any n


def test_one_assessor_with_one_grade_gives_kappa_zero_without_a_fake_ci() -> None:
    # p_e = p_o whatever bob does (hand: p_o = 6/12 = P(bob = 0) = p_e), so kappa = 0 exactly.
    judgments = [("alice", "q1", f"d{i}", 0) for i in range(12)]
    judgments += [("bob", "q1", f"d{i}", g) for i, g in enumerate([0, 1, 0, 3] * 3)]
    (pair,) = agree(judgments, labels=[0, 1, 2, 3], bootstrap=50).pairs
    reason = "alice rated every shared item grade 0: kappa is 0 by construction and its standard error is degenerate"
    for k in (pair.unweighted, pair.linear, pair.quadratic):
        assert k.estimate.value == 0.0 and math.copysign(1, k.estimate.value) == 1  # not -0.0
        assert k.se == Value.undefined(reason)
        assert k.ci95 == Interval.undefined(reason)
        assert k.ci95_bootstrap == Interval.undefined(reason)


def test_no_shared_items() -> None:
    judgments = [("alice", "q1", "d1", 1), ("alice", "q1", "d2", 0), ("bob", "q1", "d3", 2)]
    result = agree(judgments, labels=[0, 1, 2], bootstrap=0)
    (pair,) = result.pairs
    assert pair.n == 0
    assert pair.percent_agreement == Value.undefined("no shared items")
    assert pair.unweighted.estimate == Value.undefined("no shared items")
    assert pair.binarised[0].overlap == Value.undefined("no shared items")
    assert pair.per_topic == ()
    assert result.fleiss.estimate == Value.undefined("no item was judged by at least 2 assessors")
    assert (result.fleiss.n_items, result.fleiss.raters_per_item) == (0, None)
    assert result.krippendorff.nominal == Value.undefined("no item was judged by at least 2 assessors")


def test_one_shared_item() -> None:
    judgments = [("alice", "q1", "d1", 1), ("bob", "q1", "d1", 2)]
    (pair,) = agree(judgments, labels=[0, 1, 2], bootstrap=0).pairs
    assert pair.n == 1
    assert pair.percent_agreement.value == 0.0
    assert pair.unweighted.estimate == Value.undefined("needs at least 10 shared items (found 1)")
    assert pair.per_topic[0].quadratic == Value.undefined("needs at least 10 shared items (found 1)")


def test_single_assessor_has_no_pairs_and_says_why_for_alpha() -> None:
    result = agree([("alice", "q1", "d1", 1), ("alice", "q1", "d2", 0)], bootstrap=0)
    assert result.pairs == ()
    assert result.krippendorff.interval == Value.undefined("alpha needs at least 2 assessors (found 1)")


def test_bootstrap_needs_ten_topics_and_can_be_disabled() -> None:
    one_topic = agree(a4_judgments(topics=9), labels=[0, 1, 2, 3], bootstrap=100).pairs[0]
    assert one_topic.unweighted.ci95_bootstrap == Interval.undefined(
        "the topic bootstrap needs at least 10 topics with shared items (found 9)"
    )
    disabled = agree(a4_judgments(), labels=[0, 1, 2, 3], bootstrap=0).pairs[0]
    assert disabled.quadratic.ci95_bootstrap == Interval.undefined("bootstrap disabled (bootstrap=0)")


def test_bootstrap_of_identical_topics_is_refused_not_a_point() -> None:
    """Every topic carries the same table, so every resample has the same kappa: a [κ, κ] interval would claim
    certainty (it printed [1.0, 1.0] where the analytic CI was refused)."""
    judgments = []
    for t in range(1, 11):
        judgments += [
            (who, f"q{t}", f"d{t}-{i}", g)
            for who, grades in (("a", [0, 1, 1, 2]), ("b", [0, 1, 2, 2]))
            for i, g in enumerate(grades)
        ]
    pair = agree(judgments, labels=[0, 1, 2], bootstrap=200).pairs[0]
    for k in (pair.unweighted, pair.linear, pair.quadratic):
        assert k.estimate.value is not None
        assert k.ci95_bootstrap == Interval.undefined(
            f"every topic resample gives the same kappa ({k.estimate.value:.4f}): a zero-width interval says "
            "nothing about uncertainty"
        )


def test_bootstrap_is_reproducible_and_pair_local() -> None:
    base = a4_judgments(topics=12)
    first = agree(base, labels=[0, 1, 2, 3], seed=7, bootstrap=300).pairs[0]
    assert first.unweighted.ci95_bootstrap.low is not None
    again = agree(list(reversed(base)), labels=[0, 1, 2, 3], seed=7, bootstrap=300).pairs[0]
    assert first.unweighted.ci95_bootstrap == again.unweighted.ci95_bootstrap
    # Adding a third assessor does not move the alice/bob bootstrap.
    with_carol = agree([*base, ("carol", "q1", "d4", 2)], labels=[0, 1, 2, 3], seed=7, bootstrap=300)
    assert with_carol.pairs[0].unweighted.ci95_bootstrap == first.unweighted.ci95_bootstrap


def test_grade_outside_labels_and_duplicates_are_errors() -> None:
    with pytest.raises(UsageError, match=r"grade 4 of alice on \(q1, d1\) is not among the labels 0,1,2,3"):
        agree([("alice", "q1", "d1", 4)], labels=[0, 1, 2, 3])
    with pytest.raises(ToolkitError, match=r"alice judged \(q1, d1\) twice"):
        agree([("alice", "q1", "d1", 1), ("alice", "q1", "d1", 2)])
    with pytest.raises(ToolkitError, match="is not an integer"):
        agree([("alice", "q1", "d1", 1.5)])


def test_json_of_a_degenerate_result_is_strict_json_with_reasons() -> None:
    judgments = [("alice", "q1", "d1", 1), ("bob", "q1", "d1", 1), ("carol", "q2", "d9", 0)]
    text = render(agree(judgments, labels=[0, 1], bootstrap=10), "json")

    def refuse(constant: str) -> None:
        raise AssertionError(f"non-finite number {constant} in JSON")

    doc = json.loads(text, parse_constant=refuse)
    pair = doc["pairs"][0]
    assert pair["kappa"]["unweighted"]["value"] is None
    assert pair["kappa"]["unweighted"]["reason"] == "needs at least 10 shared items (found 1)"
    assert doc["pairs"][1]["reason"] == "no shared items"
    assert doc == {
        "schema_version": SCHEMA_VERSION,
        **agreement_data(agree(judgments, labels=[0, 1], bootstrap=10)),
    }


def test_summary_for_the_export_manifest() -> None:
    summary = agreement_summary(a4_judgments(), [0, 1, 2, 3])
    assert summary["labels"] == [0, 1, 2, 3]
    (pair,) = summary["pairs"]
    assert pair["kappa_unweighted"] == pytest.approx(0.444444, abs=5e-7)
    assert pair["kappa_quadratic"] == pytest.approx(0.833333, abs=5e-7)
    assert summary["krippendorff"]["ordinal"] == pytest.approx(0.838943, abs=5e-7)
    assert summary["reasons"] == {}
    json.dumps(summary, allow_nan=False)
    degenerate = agreement_summary([("a", "q", "d", 0), ("b", "q", "d", 0)], [0, 1])
    assert degenerate["pairs"][0]["kappa_linear"] is None
    assert degenerate["reasons"]["a/b linear"] == "needs at least 10 shared items (found 1)"


def test_analytic_ci_is_clipped_to_the_range_of_kappa() -> None:
    """A4 binarised at ≥ 1: κ = 0.5556 with ASE large enough that κ + 1.96·ASE > 1 (statsmodels says so)."""
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    pair = agree(a4_judgments(), labels=[0, 1, 2, 3], bootstrap=0).pairs[0]
    b1 = pair.binarised[0]
    # Hand tally at rel ≥ 1 (rows alice not/rel, columns bob not/rel): [[2, 1], [1, 8]].
    ref = cohens_kappa(np.array([[2.0, 1.0], [1.0, 8.0]]))
    assert ref.kappa_upp > 1
    assert b1.kappa.ci95.low == pytest.approx(ref.kappa_low)
    assert b1.kappa.ci95.high == 1.0


def test_thresholds_are_positive_labels_above_the_lowest() -> None:
    judgments = [("a", "q", "d1", -1), ("b", "q", "d1", 0), ("a", "q", "d2", 2), ("b", "q", "d2", 2)]
    result = agree(judgments, bootstrap=0)
    assert result.labels == (-1, 0, 1, 2)  # default: from the lowest grade seen to the highest
    assert [b.threshold for b in result.pairs[0].binarised] == [1, 2]
    one_to_five = agree([("a", "q", "d1", 1), ("b", "q", "d1", 5)], labels=[1, 2, 3, 4, 5], bootstrap=0)
    assert [b.threshold for b in one_to_five.pairs[0].binarised] == [2, 3, 4, 5]
