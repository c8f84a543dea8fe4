"""Exact McNemar (S2), sign test and Clopper–Pearson (S1, S3), the p floor (S5)."""

import pytest

from toolkit.stats.counts import mcnemar_exact, min_pvalue, reach_note, sign_test


@pytest.mark.parametrize(
    "table, expected",
    [
        ([[30, 2], [9, 9]], 67 / 1024),
        ([[40, 1], [5, 4]], 7 / 32),
        ([[45, 0], [0, 5]], 1.0),  # b = c = 0
    ],
)
def test_s2_exact_mcnemar(table, expected):
    # rows: baseline at 1 / not; columns: candidate at 1 / not → degraded = [0][1], fixed = [1][0]
    result = mcnemar_exact(fixed=table[1][0], degraded=table[0][1])
    assert result.pvalue == pytest.approx(expected, abs=1e-12)


def test_s3_sign_test_and_clopper_pearson():
    r = sign_test(13, 3, 4)
    assert r.pvalue == pytest.approx(697 / 32768, abs=1e-12)
    assert r.pvalue_greater == pytest.approx(0.0106354, abs=1e-7)
    assert r.win_rate == 13 / 16
    assert r.ci95 == pytest.approx((0.543543, 0.959526), abs=1e-6)
    assert r.ties == 4


def test_s1_sign_test():
    assert sign_test(5, 1, 4).pvalue == pytest.approx(7 / 32, abs=1e-12)


def test_sign_test_without_decided_pairs():
    r = sign_test(0, 0, 5)
    assert r.pvalue == 1.0 and r.win_rate is None and r.ci95 is None


def test_s5_minimum_p():
    assert min_pvalue(5) == 0.0625
    assert min_pvalue(6) == 0.03125
    assert min_pvalue(0) == 1.0
    assert reach_note(5, 0.05) == "cannot reach α = 0.05 with 5 non-zero pairs"
    assert reach_note(1, 0.05) == "cannot reach α = 0.05 with 1 non-zero pair"
    assert reach_note(6, 0.05) is None


def test_negative_counts_are_rejected():
    with pytest.raises(ValueError, match="fixed must be a non-negative integer"):
        mcnemar_exact(-1, 2)


@pytest.mark.parametrize("m", [1024, 1025, 1100, 5000, 10**6])
def test_min_pvalue_and_reach_work_for_any_number_of_pairs(m):
    """2.0 / 2**m overflowed past m = 1,024. 2^(1−m) from exact integers is the reference."""
    from fractions import Fraction

    assert min_pvalue(m) == float(Fraction(2, 2**m))  # exact rational, rounded once (0.0 below 2^-1074)
    assert reach_note(m, 0.05) is None


def test_mcnemar_and_sign_test_on_thousands_of_pairs_match_scipy():
    from scipy.stats import binomtest

    assert mcnemar_exact(3000, 2900).pvalue == binomtest(3000, 5900, 0.5).pvalue
    assert sign_test(4000, 0).pvalue == binomtest(4000, 4000, 0.5).pvalue


@pytest.mark.parametrize("fixed, degraded", [(9, 2), (700, 650), (1500, 1400)])
def test_mcnemar_matches_statsmodels_exact_mcnemar(fixed, degraded):
    from statsmodels.stats.contingency_tables import mcnemar

    ref = mcnemar([[10, degraded], [fixed, 10]], exact=True)
    assert mcnemar_exact(fixed, degraded).pvalue == pytest.approx(ref.pvalue, rel=1e-9)
