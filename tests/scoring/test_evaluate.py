"""Scoring semantics: ties in trec_eval 10 order for every cutoff measure, the denominator, string ids.

Expected values are computed by hand in the comments next to them.
"""

from __future__ import annotations

import math
import warnings

import pytest

from toolkit.errors import ToolkitWarning, UsageError
from toolkit.model import Qrels, Run, Topic, TopicSet
from toolkit.scoring import (
    default_measures,
    evaluate,
    evaluate_many,
    first_relevant_rank,
    parse_measures,
)

# q1: a, b, c tie at 1.0, d at 0.5 → trec_eval order (doc_id descending on ties): c, b, a, d.
# Only a is relevant (grade 1); e is judged non-relevant; nothing else is judged.
TIES = Run({"q1": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}}, name="ties")
TIES_QRELS = Qrels({"q1": {"a": 1, "e": 0}})


@pytest.mark.parametrize(
    ("measure", "value"),
    [
        ("RR@10", 1 / 3),  # first relevant at rank 3
        ("RR@2", 0.0),  # … which is outside the top 2
        ("RR", 1 / 3),
        ("P@1", 0.0),
        ("P@2", 0.0),
        ("P@3", 1 / 3),
        ("P@5", 1 / 5),
        ("Success@2", 0.0),
        ("Success@3", 1.0),
        ("nDCG@3", (1 / math.log2(4)) / 1.0),  # gain 1 at rank 3 over ideal gain 1 at rank 1
        ("nDCG@2", 0.0),
        ("AP", 1 / 3),  # one relevant doc, precision 1/3 where it is found
        ("AP@2", 0.0),
        ("Rprec", 0.0),  # R = 1: precision at rank 1
        ("Judged@2", 0.0),  # c, b unjudged
        ("Judged@3", 1 / 3),  # a judged
        ("NumRet", 4.0),
        ("NumRet(rel=1)", 1.0),
        ("NumRel", 1.0),
    ],
)
def test_every_cutoff_measure_ranks_ties_by_doc_id_descending(measure: str, value: float) -> None:
    scores = evaluate(TIES, TIES_QRELS, measures=[measure])
    assert scores.per_query["q1"][str(parse_measures(measure)[0])] == pytest.approx(value, abs=1e-12)


def test_scores_are_compared_as_doubles_like_trec_eval_10() -> None:
    # 1.0000000001 and 1.0 are one float32 (pytrec_eval would tie them and put b first by doc_id) but two
    # doubles: trec_eval 10 ranks a first, so the relevant a is at rank 1.
    run = Run({"q": {"a": 1.0000000001, "b": 1.0}})
    scores = evaluate(run, Qrels({"q": {"a": 1}}), measures="RR@10 P@1")
    assert scores.per_query["q"] == {"RR@10": 1.0, "P@1": 1.0}


def test_first_relevant_rank_follows_trec_eval_order() -> None:
    assert first_relevant_rank(TIES, TIES_QRELS, "q1") == 3
    assert first_relevant_rank(TIES, TIES_QRELS, "q1", cutoff=2) is None
    assert first_relevant_rank(TIES, TIES_QRELS, "q1", min_rel=2) is None
    assert first_relevant_rank(TIES, TIES_QRELS, "missing") is None


def test_string_topic_ids_denominator_empty_and_ignored() -> None:
    run = Run({"alpha-1": {"d1": 2.0, "d2": 1.0}, "gamma": {"x": 1.0}}, name="r")
    qrels = Qrels({"alpha-1": {"d2": 1}, "beta_2": {"d9": 1}})
    with pytest.warns(ToolkitWarning, match=r"run r: 1 topic\(s\) not in the qrels ignored \(gamma\)"):
        scores = evaluate(run, qrels, measures="RR@10 P@1 NumRel")
    assert scores.query_ids == ("alpha-1", "beta_2")  # qrels order
    assert scores.n == 2
    assert scores.empty == ("beta_2",)
    assert scores.ignored == ("gamma",)
    assert scores.per_query["alpha-1"]["RR@10"] == 0.5  # d2 at rank 2
    assert scores.per_query["beta_2"] == {"RR@10": 0.0, "P@1": 0.0, "NumRel": 1.0}
    assert scores.aggregate["RR@10"] == 0.25  # (0.5 + 0) / 2
    assert scores.aggregate["NumRel"] == 2.0  # counts are summed
    assert scores.values("RR@10") == [0.5, 0.0]
    with pytest.raises(UsageError, match="was not computed"):
        scores.values("AP")


def test_topic_set_is_the_denominator_and_classes_aggregate() -> None:
    topics = TopicSet(
        topics=(
            Topic("t2", "two", "prose"),
            Topic("t1", "one", "canonical"),
            Topic("t3", "three", "canonical"),
        )
    )
    run = Run({"t1": {"a": 1.0, "b": 0.5}, "t2": {"a": 1.0}, "t9": {"z": 1.0}}, name="r")
    qrels = Qrels({"t1": {"a": 1}, "t2": {"b": 2}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = evaluate(run, qrels, topics=topics)
    messages = [str(w.message) for w in caught]
    assert messages == [
        "1 of 3 topics have no qrels (t3); they score 0 and count in n",
        "run r: 1 topic(s) not in the topic set ignored (t9)",
    ]
    # canonical: RR@10, P@1; prose: nDCG@10, Rprec → union in topic order (prose first)
    assert scores.measures == ("nDCG@10", "Rprec", "RR@10", "P@1")
    assert scores.query_ids == ("t2", "t1", "t3")
    assert scores.empty == ("t3",)
    classes = scores.by_class(topics)
    assert list(classes) == ["prose", "canonical"]
    assert classes["canonical"].n == 2
    assert classes["canonical"].measures == ("RR@10", "P@1")
    assert classes["canonical"].aggregate == {"RR@10": 0.5, "P@1": 0.5}  # t1: 1, t3: 0
    assert classes["prose"].aggregate == {"nDCG@10": 0.0, "Rprec": 0.0}


def test_default_measures_without_classes() -> None:
    assert tuple(map(str, default_measures(None))) == ("RR@10", "P@1", "P@5", "nDCG@10", "Rprec", "AP")


def test_evaluate_many_keeps_run_order_and_pairs_topics() -> None:
    qrels = Qrels({"q": {"a": 1}, "r": {"b": 1}})
    a = Run({"q": {"a": 1.0}, "r": {"x": 1.0}}, name="a")
    b = Run({"r": {"b": 1.0}}, name="b")
    results = evaluate_many([a, b], qrels, measures=["P@1"])
    assert [s.run for s in results] == ["a", "b"]
    assert results[0].values("P@1") == [1.0, 0.0]
    assert results[1].values("P@1") == [0.0, 1.0]
    assert results[1].empty == ("q",)


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        ("RR@10 P@1, P(rel=2)@5", ("RR@10", "P@1", "P(rel=2)@5")),
        ("ndcg_cut.10 recip_rank P.5 map Rprec R-Prec", ("nDCG@10", "RR", "P@5", "AP", "Rprec")),
        (
            "success.5,num_rel num_ret num_rel_ret bpref ndcg",
            ("Success@5", "NumRel", "NumRet", "NumRet(rel=1)", "Bpref", "nDCG"),
        ),
        (["Judged@10", "P_5"], ("Judged@10", "P@5")),
    ],
)
def test_parse_measures_accepts_both_syntaxes(spec: str | list[str], names: tuple[str, ...]) -> None:
    assert tuple(map(str, parse_measures(spec))) == names


def test_unknown_measure_says_how_to_fix() -> None:
    with pytest.raises(
        UsageError, match=r"unknown measure 'ndgc@10'; did you mean 'nDCG@10'\? use ir_measures syntax"
    ):
        parse_measures("P@5 ndgc@10")
    with pytest.raises(UsageError, match="no measures given"):
        parse_measures(" , ")
