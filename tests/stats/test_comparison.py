"""``compare_runs`` on the S1 fixture runs (library path; the CLI path is in tests/cli/test_compare.py)."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from ir_measures import RR, P, Rprec

from toolkit.errors import UsageError
from toolkit.formats import read_qrels, read_run
from toolkit.model import Run
from toolkit.stats import compare_runs

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"


def runs():
    return [read_run(DATA / "s1-a.run"), read_run(DATA / "s1-b.run")]


def test_s1_through_the_library():
    r = compare_runs(
        runs(), read_qrels(DATA / "s1.qrels"), measures="RR@10 P@1", primary="RR@10", margins={"RR@10": 0.05}
    )
    c = r.comparison("s1-b", "RR@10")
    assert c.primary and c.delta == pytest.approx(0.18) and c.randomization.pvalue == 3 / 16
    assert c.family == "confirmatory" and r.comparison("s1-b", "P@1").family == "secondary"
    assert c.t.statistic == pytest.approx(1.532879, abs=1e-6)
    assert r.rank1[0].topics["fixed"] == ("q02", "q06", "q09")
    assert r.primary == RR @ 10 and r.measures == (RR @ 10, P @ 1)  # measures are ir_measures objects
    assert r.means["s1-a"][RR @ 10] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 + 1 / 4 + 1 + 1 / 2 + 1 / 5) / 10)
    assert c.noninferiority is not None and r.comparison("s1-b", "P@1").noninferiority is None


def test_same_inputs_same_result():
    qrels = read_qrels(DATA / "s1.qrels")
    assert compare_runs(runs(), qrels, measures="RR@10 nDCG@10") == compare_runs(
        runs(), qrels, measures="RR@10 nDCG@10"
    )


def test_an_empty_topic_is_reported_and_added_removed():
    a, b = runs()
    results = {q: docs for q, docs in b.results.items() if q != "q01"}
    empty_b = Run(results, name="b-empty")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_runs([a, empty_b], read_qrels(DATA / "s1.qrels"), measures="RR@10")
    assert r.empty["b-empty"] == ("q01",)
    assert r.rank1[0].topics["removed"] == ("q01",)
    assert r.comparison("b-empty", "RR@10").n == 10  # the empty topic scores 0 and counts


def test_runs_are_read_one_at_a_time():
    """A generator of runs is consumed lazily: each run is summarised before the next one is read."""
    seen = []

    def lazily():
        for run in runs():
            seen.append(run.name)
            yield run

    r = compare_runs(lazily(), read_qrels(DATA / "s1.qrels"), measures="RR@10")
    assert r.runs == ("s1-a", "s1-b") and seen == ["s1-a", "s1-b"]


def test_fixed_sequence_when_the_order_is_declared():
    a, b = runs()
    worse = Run(a.results, name="copy-of-a")
    r = compare_runs(
        [a, b, worse],
        read_qrels(DATA / "s1.qrels"),
        measures="RR@10",
        primary="RR@10",
        order=["copy-of-a", "s1-b"],
    )
    assert r.confirmatory.adjustment == "fixed-sequence" and r.confirmatory.order == ("copy-of-a", "s1-b")
    first = r.comparison("copy-of-a", "RR@10")
    second = r.comparison("s1-b", "RR@10")
    assert first.verdict == "identical on every topic"
    # the sequence stops at the first candidate that is not significant: the next one is not tested
    assert second.verdict == "not tested (the fixed sequence stopped at copy-of-a)"
    assert second.p_adjusted == max(first.pvalue, second.pvalue)
    with pytest.raises(UsageError, match="--order must list every candidate once"):
        compare_runs([a, b, worse], read_qrels(DATA / "s1.qrels"), measures="RR@10", order=["s1-b"])


def test_holm_across_candidates_and_mde_at_alpha_over_m():
    a, b = runs()
    r = compare_runs(
        [a, b, Run(b.results, name="b2")], read_qrels(DATA / "s1.qrels"), measures="RR@10", primary="RR@10"
    )
    c1, c2 = r.comparison("s1-b", "RR@10"), r.comparison("b2", "RR@10")
    assert r.confirmatory.adjustment == "holm" and r.confirmatory.m == 2
    assert c1.p_adjusted == c2.p_adjusted == pytest.approx(min(1.0, 2 * 3 / 16))  # Holm with equal p's
    from statsmodels.stats.power import TTestPower

    assert c1.mde80.alpha == 0.025  # α/m, Bonferroni over the 2 candidates
    sd = np.std(c1.diffs, ddof=1)
    assert c1.mde80.value == pytest.approx(TTestPower().solve_power(nobs=10, alpha=0.025, power=0.8) * sd)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"correction": "bonferroni"}, "--correction must be one of holm, bh, none, not 'bonferroni'"),
        ({"alpha": 0.0}, "--alpha must be between 0 and 1, got 0.0"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare_runs(runs(), read_qrels(DATA / "s1.qrels"), **kwargs)


def test_needs_two_runs():
    with pytest.raises(UsageError, match="at least two runs"):
        compare_runs(runs()[:1], read_qrels(DATA / "s1.qrels"))


def test_measures_are_parsed_once_and_keep_their_names():
    """Aliases and trec_eval names become ir_measures objects; the names shown are the canonical spellings."""
    qrels = read_qrels(DATA / "s1.qrels")
    r = compare_runs(runs(), qrels, measures="recip_rank P.1 R-Prec", primary="P@1", margins={"Rprec": 0.1})
    assert [str(m) for m in r.measures] == ["RR", "P@1", "Rprec"]
    assert r.primary == P @ 1 and r.comparison("s1-b", "R-Prec") is r.comparison("s1-b", Rprec)
    assert list(r.margins) == [Rprec] and r.comparison("s1-b", "Rprec").noninferiority.margin == 0.1
    # the rank-1 cutoff is read from the primary measure object: P@1 looks at the top 1
    assert r.setup["cutoff"] == 1 and r.rank1[0].cutoff == 1
    # within the top 1, "found" is exactly S1's Fixed bucket (reference README: q02 q06 q09) and "lost" Degraded
    assert r.rank1[0].found_lost["found"] == ("q02", "q06", "q09") and r.rank1[0].found_lost["lost"] == (
        "q05",
    )


def test_rank1_cutoff_defaults_to_10_for_measures_without_one():
    r = compare_runs(runs(), read_qrels(DATA / "s1.qrels"), measures="AP RR@10", primary="AP")
    assert r.setup["cutoff"] == 10


def test_bad_test_name():
    with pytest.raises(UsageError, match="--test must be one of randomization, t, wilcoxon, not 'z'"):
        compare_runs(runs(), read_qrels(DATA / "s1.qrels"), test="z")


def test_declared_t_test_drives_the_p_values():
    r = compare_runs(runs(), read_qrels(DATA / "s1.qrels"), measures="RR@10", primary="RR@10", test="t")
    c = r.comparison("s1-b", "RR@10")
    assert c.test == "t" and c.pvalue == pytest.approx(0.159671, abs=1e-6)  # reference S1


def test_not_comparable_reaches_every_family_unless_allowed():
    from toolkit.pipeline.failures import comparison_failures

    a, b = runs()
    c = Run(b.results, name="c")
    failed = {"s1-a": (), "s1-b": ("q03",), "c": ()}
    policy = comparison_failures(failed, "s1-a", ["s1-b", "c"])
    r = compare_runs(
        [a, b, c], read_qrels(DATA / "s1.qrels"), measures="RR@10 P@1", primary="RR@10", failures=policy
    )
    words = "not comparable: 1 topic failed in s1-b"
    assert r.comparison("s1-b", "RR@10").verdict == words and r.comparison("s1-b", "P@1").verdict == words
    assert r.comparison("c", "RR@10").verdict == "no significant difference"
    pair = next(p for p in r.all_pairs[0].pairs if (p.a, p.b) == ("s1-b", "c"))
    assert pair.verdict == words
    assert [(v.candidate, v.comparable) for v in r.verdicts()] == [("s1-b", False), ("c", True)]
    allowed = comparison_failures(failed, "s1-a", ["s1-b", "c"], allow_failed=True)
    r = compare_runs(
        [a, b, c], read_qrels(DATA / "s1.qrels"), measures="RR@10", primary="RR@10", failures=allowed
    )
    assert r.comparison("s1-b", "RR@10").verdict == "no significant difference" and r.failures.allowed
    assert r.verdicts()[0].failed == {"s1-b": 1}
