"""The two-run battery on S1's per-topic RR@10 values (reference README S1)."""

import math
import warnings

import numpy as np
import pytest

from toolkit.errors import ToolkitError, ToolkitWarning
from toolkit.stats.paired import PairedOptions, paired_test

A = [1, 2, None, 3, 1, 4, None, 1, 2, 5]
B = [1, 1, 2, 3, 2, 1, None, 1, 1, 4]
IDS = [f"q{i}" for i in range(1, 11)]


def rr(rank):
    return 0.0 if rank is None else 1 / rank


def s1(margin=None, **options):
    return paired_test(
        {q: rr(r) for q, r in zip(IDS, A, strict=True)},
        {q: rr(r) for q, r in zip(IDS, B, strict=True)},
        measure="RR@10",
        margin=margin,
        options=PairedOptions(**options),
    )


def test_s1_means_and_delta():
    r = s1()
    assert r.n == 10 and r.n_nonzero == 6
    assert r.delta == pytest.approx(0.18)
    assert r.diffs == pytest.approx((0, 0.5, 0.5, 0, -0.5, 0.75, 0, 0, 0.5, 0.05))


def test_s1_randomization():
    r = s1()
    assert r.randomization.exact and r.randomization.pvalue == 3 / 16


def test_s1_t_test_ci_and_effect():
    r = s1()
    assert r.t.statistic == pytest.approx(1.532879, abs=1e-6)
    assert r.t.df == 9
    assert r.t.pvalue == pytest.approx(0.159671, abs=1e-6)
    assert r.ci95_t.pair() == pytest.approx((-0.085636, 0.445636), abs=1e-6)
    assert (r.ci95_t.method, r.ci95_t.adjusted) == ("t", False)
    # the headline interval is withheld below 30 topics (docs/statistics.md, "Intervals")
    assert r.ci95.pair() is None and r.ci95.method == "studentized bootstrap"
    assert r.d_z == pytest.approx(0.484739, abs=1e-6)


def test_s1_wilcoxon_exact_conditional():
    w = s1().wilcoxon
    assert (w.r_plus, w.r_minus) == (17.5, 3.5)
    assert w.pvalue == pytest.approx(0.1875, abs=1e-12)
    assert w.zero_method == "wilcox" and w.method == "exact conditional" and w.correction is False
    assert s1().rank_biserial == pytest.approx((17.5 - 3.5) / 21)


@pytest.mark.parametrize("correction, expected", [(False, 0.131131), (True, 0.160967)])
def test_s1_wilcoxon_normal_approximation(correction, expected):
    w = s1(wilcoxon_method="asymptotic", correction=correction).wilcoxon
    assert w.pvalue == pytest.approx(expected, abs=1e-6)
    assert w.method == "asymptotic" and w.correction is correction


def test_s1_mde_is_statsmodels_effect_times_sd():
    from statsmodels.stats.power import TTestPower

    d = np.array([0, 0.5, 0.5, 0, -0.5, 0.75, 0, 0, 0.5, 0.05])
    effect = TTestPower().solve_power(nobs=10, alpha=0.05, power=0.8)
    assert s1().mde80.value == pytest.approx(effect * d.std(ddof=1))
    assert s1(mde_alpha=0.025).mde80.alpha == 0.025


def test_bootstrap_ci_is_seeded_and_contains_the_mean():
    ids = [f"q{i}" for i in range(30)]
    rng = np.random.default_rng(5)
    a, b = rng.random(30), rng.random(30)

    def run(seed):
        return paired_test(
            dict(zip(ids, a, strict=True)),
            dict(zip(ids, b, strict=True)),
            measure="AP",
            options=PairedOptions(seed=seed),
        )

    first, again = run(1), run(1)
    assert first.ci95 == again.ci95 and first.ci95.method == "studentized bootstrap"
    assert first.ci95.low < float(np.mean(b - a)) < first.ci95.high


def test_noninferiority():
    # S1 three times over (30 topics): the studentized test is defined; t's one-sided bound kept for the record
    d = [0, 0.5, 0.5, 0, -0.5, 0.75, 0, 0, 0.5, 0.05] * 3
    ids = [f"q{i}" for i in range(30)]
    r = paired_test(
        {q: 0.25 for q in ids}, {q: 0.25 + x for q, x in zip(ids, d, strict=False)}, measure="AP", margin=0.05
    )
    ni = r.noninferiority
    sd = np.std(d, ddof=1)
    # t = (mean + margin) / (sd/√n); the t bound = mean − t_{0.95,29}·sd/√n (hand formula, t_{0.95,29} = 1.699127)
    assert ni.statistic == pytest.approx((0.18 + 0.05) / (sd / math.sqrt(30)))
    assert ni.ci_lower_t == pytest.approx(0.18 - 1.699127 * sd / math.sqrt(30), abs=1e-6)
    assert ni.holds is (ni.pvalue < 0.05) is (ni.ci_lower > -0.05)
    assert ni.method == "studentized bootstrap"
    assert (
        s1(margin=0.05).noninferiority.holds is None
    )  # 10 topics: withheld (docs/statistics.md, "Intervals")


def test_fewer_than_six_nonzero_pairs_say_so():
    r = paired_test({"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 1, "c": 0}, measure="P@1")
    assert "cannot reach α = 0.05 with 2 non-zero pairs" in r.notes


def test_all_zero_deltas():
    r = paired_test({"a": 0.5, "b": 1.0}, {"a": 0.5, "b": 1.0}, measure="RR@10")
    assert r.pvalue == 1.0 and r.t.statistic is None and r.d_z is None and r.mde80.value is None
    assert r.effect_reason == r.mde80.reason == "needs at least 10 topics (found 2)"
    assert r.wilcoxon.pvalue == 1.0
    assert "all per-topic differences are zero" in r.notes


def test_missing_and_nan_topics_are_dropped_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = paired_test(
            {"a": 1.0, "b": float("nan"), "c": 0.5}, {"a": 0.5, "b": 1.0, "d": 1.0}, measure="RR@10"
        )
    messages = [str(w.message) for w in caught if issubclass(w.category, ToolkitWarning)]
    assert "RR@10: 1 topic(s) missing from candidate were left out: c" in messages
    assert "RR@10: 1 topic(s) missing from baseline were left out: d" in messages
    assert "RR@10: 1 topic(s) with a NaN/infinite value were left out: b" in messages
    assert r.n == 1 and r.topics == ("a",)


def test_no_shared_topic_is_an_error():
    with pytest.raises(ToolkitError, match="share no topic"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paired_test({"a": 1.0}, {"b": 1.0}, measure="RR@10")


def test_exact_conditional_wilcoxon_matches_scipy_permutation():
    # independent oracle: scipy's permutation test enumerates all 2^m sign flips when n_resamples >= 2^m
    from scipy import stats

    d = np.array([0.2, -0.1, 0.2, 0.3, 0.1, -0.2, 0.2, 0.3, 0.1, 0.4, -0.1, 0.2])  # tied magnitudes
    ours = paired_test(dict(enumerate(np.zeros(12))), dict(enumerate(d)), measure="nDCG@10").wilcoxon
    ref = stats.wilcoxon(
        d,
        zero_method="wilcox",
        correction=False,
        alternative="two-sided",
        method=stats.PermutationMethod(n_resamples=2**12),
    )
    assert ours.method == "exact conditional"
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert ours.statistic == ref.statistic


def test_untied_wilcoxon_uses_scipy_exact():
    from scipy import stats

    d = np.array([0.11, -0.02, 0.23, 0.35, 0.04, -0.16, 0.27, 0.08])
    ours = paired_test(dict(enumerate(np.zeros(8))), dict(enumerate(d)), measure="nDCG@10").wilcoxon
    ref = stats.wilcoxon(d, zero_method="wilcox", correction=False, alternative="two-sided", method="exact")
    assert ours.method == "exact" and ours.pvalue == ref.pvalue


def test_estimates_need_ten_topics_by_the_minimum_data_rule():
    ids = [f"q{i}" for i in range(9)]
    r = paired_test(
        dict(zip(ids, [0.1 * i for i in range(9)], strict=True)), dict.fromkeys(ids, 0.5), measure="AP"
    )
    rule = "needs at least 10 topics (found 9)"
    assert r.ci95_t.pair() is None and r.ci95_t.reason == rule
    assert r.mde80.reason == rule and r.effect_reason == rule
    assert (
        r.ci95.reason
        == "an interval that holds under skewed per-topic differences needs at least 30 topics (found 9)"
    )
    assert r.t.pvalue is not None  # a test is valid at any n; an estimate is not


def test_noninferiority_needs_spread_and_ten_topics():
    """One topic, or every difference equal, used to give p = 0 and "holds"."""
    one = paired_test({"a": 0.2}, {"a": 0.5}, measure="RR@10", margin=0.05).noninferiority
    assert (one.pvalue, one.holds) == (None, None)
    assert one.reason == (
        "a non-inferiority claim that holds under skewed per-topic differences needs at least 30 topics (found 1)"
    )
    ids = [f"q{i}" for i in range(12)]
    same = paired_test(dict.fromkeys(ids, 0.5), dict.fromkeys(ids, 1.0), measure="RR@10", margin=0.05)
    assert same.noninferiority.holds is None and same.noninferiority.statistic is None
    assert (
        same.noninferiority.reason
        == "every per-topic difference is the same (sd = 0): no standard error to test by"
    )
    assert same.ci95.reason == "every per-topic difference is the same (sd = 0)"


def test_declared_test_gives_the_p_value():
    assert s1(test="t").pvalue == pytest.approx(0.159671, abs=1e-6)
    assert s1(test="wilcoxon").pvalue == pytest.approx(0.1875, abs=1e-12)
    with pytest.raises(ToolkitError, match="test must be one of randomization, t, wilcoxon"):
        s1(test="z")


def test_t_test_and_interval_match_scipy_ttest_rel_on_a_large_sample():
    """Paired t on 3,000 topics against scipy's ttest_rel (an independent implementation: paired samples)."""
    from scipy import stats

    rng = np.random.default_rng(21)
    a = rng.random(3000)
    b = np.clip(a + rng.normal(0.01, 0.2, 3000), 0, 1)
    ids = [f"q{i}" for i in range(3000)]
    r = paired_test(
        dict(zip(ids, a, strict=True)),
        dict(zip(ids, b, strict=True)),
        measure="AP",
        options=PairedOptions(bootstrap=0),
    )
    ref = stats.ttest_rel(b, a)
    ci = ref.confidence_interval(0.95)
    assert r.t.statistic == pytest.approx(ref.statistic, rel=1e-6)
    assert r.t.pvalue == pytest.approx(ref.pvalue, rel=1e-6)
    assert r.ci95_t.pair() == pytest.approx((ci.low, ci.high), rel=1e-6)
