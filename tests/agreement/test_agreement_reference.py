"""A1–A4 (shared/reference/README.md) through the library: published values, not our own output."""

from __future__ import annotations

import pytest
from agreement_data import (
    A1_GRADES,
    A1_TABLE,
    A2_GRADES,
    A2_TABLE,
    A3_COUNTS,
    A4_A,
    A4_B,
    a4_judgments,
    expand_counts,
    expand_table,
)

from toolkit.agreement import agree

TOL4 = 5e-5  # the references are given to 4 decimals
TOL6 = 5e-7  # … or to 6


def test_a1_cohen_kappa_2x2() -> None:
    result = agree(expand_table(A1_TABLE, A1_GRADES, topics=5), labels=[0, 1], bootstrap=0)
    (pair,) = result.pairs
    assert (pair.a, pair.b, pair.n) == ("alice", "bob", 50)
    assert pair.percent_agreement.value == pytest.approx(70.0)  # p_o = 0.70
    k = pair.unweighted
    assert k.estimate.value == pytest.approx(0.4, abs=1e-12)
    assert k.se.value == pytest.approx(0.1270, abs=TOL4)
    assert k.ci95.low == pytest.approx(0.1511, abs=TOL4)
    assert k.ci95.high == pytest.approx(0.6489, abs=TOL4)
    # With two categories every weighting is the same statistic.
    assert pair.linear.estimate.value == pytest.approx(0.4)
    assert pair.quadratic.estimate.value == pytest.approx(0.4)


def test_a2_weighted_kappa_3x3_over_the_full_label_set() -> None:
    # Assessor bob never uses grade 0: the table must still be 3 wide.
    result = agree(expand_table(A2_TABLE, A2_GRADES, topics=4), labels=[0, 1, 2], bootstrap=0)
    (pair,) = result.pairs
    assert pair.n == 19
    assert pair.percent_agreement.value == pytest.approx(100 * 13 / 19)  # diagonal 0 + 8 + 5
    assert pair.confusion == ((0, 4, 1), (0, 8, 0), (0, 1, 5))
    u, lin, quad = pair.unweighted, pair.linear, pair.quadratic
    assert u.estimate.value == pytest.approx(0.4842, abs=TOL4)
    assert u.se.value == pytest.approx(0.1380, abs=TOL4)
    assert (u.ci95.low, u.ci95.high) == pytest.approx((0.2137, 0.7547), abs=TOL4)
    assert lin.estimate.value == pytest.approx(0.4701, abs=TOL4)
    assert lin.se.value == pytest.approx(0.1457, abs=TOL4)
    assert (lin.ci95.low, lin.ci95.high) == pytest.approx((0.1845, 0.7558), abs=TOL4)
    assert quad.estimate.value == pytest.approx(0.4502, abs=TOL4)


def test_a2_default_labels_are_zero_to_max_seen() -> None:
    """Without labels the scale is 0..max grade seen, so the table is still 3 wide and nothing changes."""
    full = agree(expand_table(A2_TABLE, A2_GRADES), labels=[0, 1, 2], bootstrap=0).pairs[0]
    default = agree(expand_table(A2_TABLE, A2_GRADES), bootstrap=0).pairs[0]
    assert default.linear.estimate == full.linear.estimate


def test_a3_fleiss_kappa() -> None:
    judgments = expand_counts(A3_COUNTS)
    assert len(judgments) == 140
    result = agree(judgments, labels=[0, 1, 2, 3, 4], bootstrap=0)
    f = result.fleiss
    assert f.estimate.value == pytest.approx(0.2099, abs=TOL4)
    assert (f.n_items, f.raters_per_item, f.items_excluded) == (10, 14, 0)
    # Hand check of the published intermediate values: P̄ = 0.378, P̄e = 0.213.
    n = 14
    p_bar = sum((sum(c * c for c in row) - n) / (n * (n - 1)) for row in A3_COUNTS) / len(A3_COUNTS)
    p_j = [sum(row[j] for row in A3_COUNTS) / (n * len(A3_COUNTS)) for j in range(5)]
    p_e = sum(p * p for p in p_j)
    assert p_bar == pytest.approx(0.378, abs=5e-4)
    assert p_e == pytest.approx(0.213, abs=5e-4)
    assert f.estimate.value == pytest.approx((p_bar - p_e) / (1 - p_e))


def test_a4_every_reference_value() -> None:
    result = agree(a4_judgments(), labels=[0, 1, 2, 3], bootstrap=0)
    (pair,) = result.pairs
    assert pair.unweighted.estimate.value == pytest.approx(0.444444, abs=TOL6)
    assert pair.linear.estimate.value == pytest.approx(0.666667, abs=TOL6)
    assert pair.quadratic.estimate.value == pytest.approx(0.833333, abs=TOL6)
    by_t = {b.threshold: b for b in pair.binarised}
    assert sorted(by_t) == [1, 2, 3]
    assert by_t[1].kappa.estimate.value == pytest.approx(0.555556, abs=TOL6)
    assert by_t[1].overlap.value == pytest.approx(0.8)
    assert by_t[2].kappa.estimate.value == pytest.approx(0.833333, abs=TOL6)
    assert by_t[2].overlap.value == pytest.approx(6 / 7)
    assert result.krippendorff.ordinal.value == pytest.approx(0.838943, abs=TOL6)
    assert result.krippendorff.nominal.value == pytest.approx(0.465116, abs=TOL6)
    # Hand counts: A relevant at ≥ 3 on items 5, 6, 11; B on 6, 7, 11 → both 2, either 4.
    assert (by_t[3].both_relevant, by_t[3].either_relevant) == (2, 4)
    assert by_t[3].overlap.value == pytest.approx(0.5)


def test_a4_confusion_distributions_and_per_topic() -> None:
    result = agree(a4_judgments(topics=1), labels=[0, 1, 2, 3], bootstrap=0)
    (pair,) = result.pairs
    # Hand tally of (A, B) over the 12 items.
    assert pair.confusion == ((2, 1, 0, 0), (1, 1, 1, 0), (0, 0, 2, 1), (0, 0, 1, 2))
    dist = {d.assessor: d.counts for d in result.distributions}
    assert dist == {"alice": (3, 3, 3, 3), "bob": (3, 2, 4, 3)}
    # One topic: the per-topic kappa is the overall kappa.
    (topic,) = pair.per_topic
    assert (topic.query_id, topic.n) == ("q1", 12)
    assert topic.unweighted.value == pytest.approx(0.444444, abs=TOL6)
    assert topic.quadratic.value == pytest.approx(0.833333, abs=TOL6)


def test_a4_matches_scikit_learn_with_explicit_labels() -> None:
    from sklearn.metrics import cohen_kappa_score

    pair = agree(a4_judgments(), labels=[0, 1, 2, 3], bootstrap=0).pairs[0]
    for weights, ours in (("linear", pair.linear), ("quadratic", pair.quadratic)):
        assert ours.estimate.value == pytest.approx(
            cohen_kappa_score(A4_A, A4_B, labels=[0, 1, 2, 3], weights=weights)
        )
