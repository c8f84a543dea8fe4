"""``compare_runs`` on the S1 fixture runs (library path; the CLI path is in tests/cli/test_compare.py)."""

import warnings
from pathlib import Path

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
    r = compare_runs(runs(), read_qrels(DATA / "s1.qrels"), measures="RR@10 P@1", margins={"RR@10": 0.05})
    c = r.comparison("s1-b", "RR@10")
    assert c.primary and c.delta == pytest.approx(0.18) and c.randomization.pvalue == 3 / 16
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
