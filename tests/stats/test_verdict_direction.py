"""Regression tests: verdicts that cannot point the wrong way (docs/statistics.md, "The direction of a verdict").

Expected values come from hand computations in exact rationals (``fractions``) and from scipy, never from
the toolkit's own output.
"""

from fractions import Fraction
from itertools import product
from math import comb

import numpy as np
import pytest

from toolkit.scoring.measures import measure_object
from toolkit.stats.families import verdict
from toolkit.stats.grid import integer_diffs
from toolkit.stats.paired import PairedOptions, paired_test
from toolkit.stats.randomization import randomization_test

# -- item 1: a constant non-zero difference has no spread ------------------------------------------------


def constant(n=12, test="t", margin=0.05):
    ids = [f"q{i}" for i in range(n)]
    return paired_test(
        {q: 0.2 for q in ids},
        {q: 0.3 for q in ids},
        measure="P@10",
        options=PairedOptions(test=test),
        margin={"P@10": margin}["P@10"],
    )


def test_constant_difference_is_no_spread_not_a_huge_t():
    r = constant()
    # every difference is exactly +1/10 (hand computation): the sd is 0, t, d_z, the CI and the MDE do not exist
    assert (
        r.t.statistic is None
        and r.t.pvalue is None
        and "every per-topic difference is the same" in r.t.reason
    )
    assert r.ci95.pair() is None and "every per-topic difference is the same" in r.ci95.reason
    assert r.d_z is None and "every per-topic difference is the same" in r.effect_reason
    assert r.mde80.value is None and "every per-topic difference is the same" in r.mde80.reason
    ni = r.noninferiority
    assert ni.holds is None and ni.statistic is None and "every per-topic difference is the same" in ni.reason
    assert r.ci95_t.pair() is None and "every per-topic difference is the same" in r.ci95_t.reason
    assert r.verdict == "" and verdict(r).startswith("undefined: every per-topic difference is the same")


def test_constant_difference_under_randomization_is_exact_and_significant():
    r = constant(test="randomization")
    # all 12 differences positive: exactly 2 of the 2^12 sign vectors reach |Σ| (hand computation)
    assert r.randomization.pvalue == 2 / 2**12
    assert verdict(r) == "better"


# -- item 3: "exact" means exact, whatever the common denominator ------------------------------------------

RANKS_A = [6, 10, 6, 0, 997, 0, 991, 0, 983, 0, 977, 0, 971, 0, 967, 0]
RANKS_B = [0, 0, 0, 3, 0, 997, 0, 991, 0, 983, 0, 977, 0, 971, 0, 967]


def rr(ranks):
    return np.array([0.0 if r == 0 else 1 / r for r in ranks])


def brute_force(diffs):
    """p of the two-sided sign-flip test by enumerating every sign vector in exact rationals."""
    observed = abs(sum(diffs))
    hits = sum(
        1
        for s in product((1, -1), repeat=len(diffs))
        if abs(sum(a * b for a, b in zip(s, diffs, strict=False))) >= observed
    )
    return Fraction(hits, 2 ** len(diffs))


@pytest.mark.slow
def test_rr_at_1000_with_a_huge_common_denominator_is_enumerated_exactly():
    exact = [
        (Fraction(1, b) if b else 0) - (Fraction(1, a) if a else 0)
        for a, b in zip(RANKS_A, RANKS_B, strict=False)
    ]
    expected = brute_force(exact)
    assert expected == Fraction(57472, 65536)  # the brute force above, pinned
    ids = [f"q{i}" for i in range(16)]
    r = paired_test(
        dict(zip(ids, rr(RANKS_A), strict=False)),
        dict(zip(ids, rr(RANKS_B), strict=False)),
        measure="RR@1000",
    )
    assert r.randomization.exact and r.randomization.pvalue == float(expected)
    assert r.randomization.method == "exact (all 2^16 sign vectors)"
    assert "1e-9" not in r.randomization.grid
    # the same from differences alone
    alone = randomization_test(rr(RANKS_B) - rr(RANKS_A), measure="RR@1000")
    assert alone.pvalue == float(expected) and alone.exact


def test_the_exact_grid_past_2_to_53_keeps_every_difference():
    g = integer_diffs(rr(RANKS_A), rr(RANKS_B), measure_object("RR@1000"))
    exact = [
        (Fraction(1, b) if b else 0) - (Fraction(1, a) if a else 0)
        for a, b in zip(RANKS_A, RANKS_B, strict=False)
    ]
    assert g.exact and g.scale > 2**53
    assert [Fraction(int(v), g.scale) for v in g.values] == exact


# -- item 2: the verdict's direction is the declared test's -----------------------------------------------


def wilcoxon_example():
    ids = [f"q{i}" for i in range(23)]
    base = [0.2] * 20 + [1.0] * 3
    cand = [0.3] * 20 + [0.0] * 3
    return paired_test(
        dict(zip(ids, base, strict=False)),
        dict(zip(ids, cand, strict=False)),
        measure="P@10",
        options=PairedOptions(test="wilcoxon"),
    )


def test_wilcoxon_verdict_follows_the_signed_ranks_and_says_the_mean_disagrees():
    r = wilcoxon_example()
    # hand computation: 20 differences of +1/10 share ranks 1..20 (mid-rank 10.5), 3 of −1 ranks 21..23 (22)
    assert (r.wilcoxon.r_plus, r.wilcoxon.r_minus) == (210.0, 66.0)
    # exact conditional null: S = 10.5 (2j − 20) + 22 (2k − 3), j ~ Bin(20, 1/2), k ~ Bin(3, 1/2)
    observed = 210 - 66
    hits = sum(
        comb(20, j) * comb(3, k)
        for j in range(21)
        for k in range(4)
        if abs(Fraction(21, 2) * (2 * j - 20) + 22 * (2 * k - 3)) >= observed
    )
    p = Fraction(hits, 2**23)
    assert r.wilcoxon.pvalue == pytest.approx(float(p), rel=1e-12) and float(p) < 0.05
    assert r.delta == pytest.approx(-1 / 23)
    words = verdict(r)
    assert words.startswith("better by signed ranks (R+ 210 > R− 66)")
    assert "but the mean Δ is -0.0435" in words and "disagree" in words
