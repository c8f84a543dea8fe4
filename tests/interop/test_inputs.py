"""Every input kind ``evaluate()`` and ``toolkit.formats.interop`` accept, and the clear errors for everything else.

One small run and qrels, written out by hand in each convention; the expected values are worked out by hand
in the comments. Whatever the input kind, the scores must be these.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers.lazy import ranx  # loaded on first use, by the ranx group's worker (tests/conftest.py)

from toolkit.errors import FormatError
from toolkit.formats import read_topics, write_qrels, write_run
from toolkit.formats.interop import as_qrels, as_run, as_topics
from toolkit.model import Qrels, Run, TopicSet
from toolkit.scoring import evaluate, evaluate_many

# q1: d3 (2.5) > d1 (2.0) > d2 (1.0); relevant d1 (grade 1), d9 (grade 2, not retrieved), d2 judged 0.
# q2: d4 (0.9) > d5 (0.1); relevant d4 (grade 3).
RESULTS = {"q1": {"d1": 2.0, "d2": 1.0, "d3": 2.5}, "q2": {"d4": 0.9, "d5": 0.1}}
JUDGMENTS = {"q1": {"d1": 1, "d9": 2, "d2": 0}, "q2": {"d4": 3}}
# RR@10: q1 first relevant at rank 2 → 1/2; q2 at rank 1 → 1. AP: q1 (1/2)/2 relevant = 1/4; q2 1.
EXPECTED = {"q1": {"RR@10": 0.5, "AP": 0.25}, "q2": {"RR@10": 1.0, "AP": 1.0}}

RUN_ROWS = [(q, d, s) for q, docs in RESULTS.items() for d, s in docs.items()]
QREL_ROWS = [(q, d, r) for q, docs in JUDGMENTS.items() for d, r in docs.items()]


def run_inputs(tmp_path: Path) -> dict[str, Callable[[], object]]:
    """Each run kind, made when called: collection lists the kinds without building them (ranx compiles)."""
    path = tmp_path / "a.run"

    def written() -> Path:
        write_run(Run(RESULTS, name="a"), path)
        return path

    return {
        "path": written,
        "str path": lambda: str(written()),
        "Run": lambda: Run(RESULTS),
        "dict": lambda: RESULTS,
        "DataFrame query_id/doc_id": lambda: pd.DataFrame(RUN_ROWS, columns=["query_id", "doc_id", "score"]),
        "DataFrame qid/docno (PyTerrier)": lambda: pd.DataFrame(RUN_ROWS, columns=["qid", "docno", "score"]),
        "DataFrame q_id (ranx)": lambda: ranx.Run(RESULTS).to_dataframe(),
        "ranx.Run": lambda: ranx.Run(RESULTS, name="a"),
        "ScoredDoc list": lambda: [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUN_ROWS],
        "ScoredDoc generator": lambda: (ir_measures.ScoredDoc(q, d, s) for q, d, s in RUN_ROWS),
    }


def qrels_inputs(tmp_path: Path) -> dict[str, Callable[[], object]]:
    """Each qrels kind, made when called (as ``run_inputs``)."""
    path = tmp_path / "a.qrels"

    def written() -> Path:
        write_qrels(Qrels(JUDGMENTS), path)
        return path

    return {
        "path": written,
        "Qrels": lambda: Qrels(JUDGMENTS),
        "dict": lambda: JUDGMENTS,
        "DataFrame relevance": lambda: pd.DataFrame(QREL_ROWS, columns=["query_id", "doc_id", "relevance"]),
        "DataFrame label (PyTerrier)": lambda: pd.DataFrame(QREL_ROWS, columns=["qid", "docno", "label"]),
        "DataFrame ranx (score = grade)": lambda: ranx.Qrels(JUDGMENTS).to_dataframe(),
        "ranx.Qrels": lambda: ranx.Qrels(JUDGMENTS),
        "Qrel list": lambda: [ir_measures.Qrel(q, d, r) for q, d, r in QREL_ROWS],
        "Qrel generator": lambda: (ir_measures.Qrel(q, d, r) for q, d, r in QREL_ROWS),
    }


@pytest.mark.parametrize("kind", list(run_inputs(Path("/nonexistent"))))
def test_every_run_kind_scores_the_same(tmp_path: Path, kind: str) -> None:
    run = run_inputs(tmp_path)[kind]()
    scores = evaluate(run, Qrels(JUDGMENTS), measures="RR@10 AP")
    assert scores.per_query == EXPECTED
    assert as_run(run_inputs(tmp_path)[kind]()).results == RESULTS


@pytest.mark.parametrize("kind", list(qrels_inputs(Path("/nonexistent"))))
def test_every_qrels_kind_scores_the_same(tmp_path: Path, kind: str) -> None:
    qrels = qrels_inputs(tmp_path)[kind]()
    scores = evaluate(Run(RESULTS), qrels, measures="RR@10 AP")
    assert scores.per_query == EXPECTED
    assert as_qrels(qrels_inputs(tmp_path)[kind]()).judgments == JUDGMENTS


def test_names_come_along() -> None:
    assert evaluate(ranx.Run(RESULTS, name="bm25"), JUDGMENTS, measures="AP").run == "bm25"
    assert as_run(RESULTS, name="mine").name == "mine"
    assert as_qrels(pd.DataFrame(QREL_ROWS, columns=["qid", "docno", "label"]), name="h").name == "h"


def test_integer_ids_become_text_and_match() -> None:
    """pandas reads ``301`` as an integer; it must still match qrels topic '301' (and doc '7' doc 7)."""
    run = pd.DataFrame({"qid": [301, 301], "docno": [7, 8], "score": [2.0, 1.0]})
    scores = evaluate(run, {"301": {"8": 1}}, measures="RR@10")
    assert scores.per_query == {"301": {"RR@10": 0.5}}
    assert evaluate({301: {7: 1.0, 8: 2.0}}, {"301": {"8": 1}}, measures="RR@10").aggregate == {"RR@10": 1.0}


def test_topics_from_every_kind(tmp_path: Path) -> None:
    from ir_datasets.formats import GenericQuery, TrecQuery

    path = tmp_path / "t.tsv"
    path.write_text("q1\tapple pie\nq2\tbanana bread\n")
    expected = [("q1", "apple pie"), ("q2", "banana bread")]
    kinds: dict[str, object] = {
        "path": path,
        "TopicSet": read_topics(path),
        "dict": {"q1": "apple pie", "q2": "banana bread"},
        "DataFrame (PyTerrier)": pd.DataFrame({"qid": ["q1", "q2"], "query": ["apple pie", "banana bread"]}),
        "GenericQuery iterable": iter([GenericQuery("q1", "apple pie"), GenericQuery("q2", "banana bread")]),
    }
    for kind, obj in kinds.items():
        assert [(t.query_id, t.query) for t in as_topics(obj)] == expected, kind
    trec = as_topics([TrecQuery("301", "crime", "Identify organizations.", "Relevant: …")])
    assert (trec.topics[0].query, trec.topics[0].description, trec.topics[0].narrative) == (
        "crime",
        "Identify organizations.",
        "Relevant: …",
    )
    # the topic set is the denominator: q2 has no results and counts as 0 (hand: (1/2 + 0) / 2)
    frame = pd.DataFrame({"qid": ["q1", "q2"], "query": ["x", "y"], "query_0": ["x0", "y0"]})
    topics = as_topics(frame)
    assert topics.topics[0].metadata == {"query_0": "x0"}  # PyTerrier's earlier formulation, kept
    assert topics.path is None and topics.sha256  # no file behind it, but its content has a digest
    scores = evaluate(Run({"q1": RESULTS["q1"]}), Qrels(JUDGMENTS), topics=frame, measures="RR@10")
    assert scores.aggregate["RR@10"] == 0.25 and scores.empty == ("q2",)


def test_measures_as_string_object_or_list() -> None:
    expected = {"RR@10": 0.75, "AP": 0.625}  # means of EXPECTED
    for measures in (
        "RR@10 AP",
        [ir_measures.RR @ 10, ir_measures.AP],
        [ir_measures.RR @ 10, "AP"],
        ("RR@10", "map"),
    ):
        assert evaluate(RESULTS, JUDGMENTS, measures=measures).aggregate == expected, measures
    assert evaluate(RESULTS, JUDGMENTS, measures=ir_measures.AP).aggregate == {"AP": 0.625}
    graded = evaluate(RESULTS, JUDGMENTS, measures=ir_measures.P(rel=2) @ 1).aggregate
    assert graded == {"P(rel=2)@1": 0.5}  # q1's top doc d3 is unjudged, q2's d4 has grade 3


# --------------------------------------------------------------------------- what is refused


ACCEPTED_RUN = "pass a TREC run file path, a toolkit Run, a pandas DataFrame with query_id/qid, doc_id/docno"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: 42, f"cannot use int as a run; {ACCEPTED_RUN}"),
        (lambda: None, f"cannot use NoneType as a run; {ACCEPTED_RUN}"),
        (lambda: 3.5, f"cannot use float as a run; {ACCEPTED_RUN}"),
        (lambda: b"q1 Q0 d1 1 1.0 x", f"cannot use bytes as a run; {ACCEPTED_RUN}"),
        (lambda: Qrels(JUDGMENTS), f"toolkit.Qrels holds qrels, not a run; {ACCEPTED_RUN}"),
        (lambda: TopicSet(()), f"toolkit.TopicSet holds topics, not a run; {ACCEPTED_RUN}"),
        (lambda: ranx.Qrels(JUDGMENTS), f"ranx.Qrels holds qrels, not a run; {ACCEPTED_RUN}"),
        (
            lambda: ["a.run", "b.run"],
            "<iterable>: items must be ScoredDoc records with fields query_id, doc_id, score, found str",
        ),
        (
            lambda: [ir_measures.Qrel("q1", "d1", 1)],
            "<iterable>: items must be ScoredDoc records with fields query_id, doc_id, score, found fields "
            "(query_id, doc_id, relevance, iteration)",
        ),
        (
            lambda: np.zeros((2, 3)),
            "<iterable>: items must be ScoredDoc records with fields query_id, doc_id, score, found numpy.ndarray",
        ),
    ],
)
def test_anything_else_is_a_type_error_naming_what_is_accepted(
    make: Callable[[], object], message: str
) -> None:
    """Each object is made when the test runs: collection (in every worker) would otherwise import ranx."""
    with pytest.raises(TypeError) as info:
        evaluate(make(), Qrels(JUDGMENTS), measures="AP")
    assert str(info.value).startswith(message)


def test_wrong_kind_for_qrels_and_topics() -> None:
    with pytest.raises(TypeError, match=r"^toolkit.Run holds a run, not qrels; pass a TREC qrels file path"):
        evaluate(Run(RESULTS), Run(RESULTS), measures="AP")
    with pytest.raises(TypeError, match=r"^cannot use int as qrels; pass .*ir_datasets dataset$"):
        as_qrels(7)
    with pytest.raises(
        TypeError, match=r"^cannot use int as topics; pass .*queries_iter\(\)\), or an ir_datasets dataset$"
    ):
        as_topics(7)
    with pytest.raises(
        TypeError, match=r"^expected a list of runs, got pandas.DataFrame; wrap one run in a list$"
    ):
        evaluate_many(pd.DataFrame(RUN_ROWS, columns=["qid", "docno", "score"]), JUDGMENTS)


def test_run_of_a_dataframe_is_refused_not_scored_zero() -> None:
    """Regression: ``Run(results=df)`` had "topics" named after the columns and scored AP 0.0."""
    frame = pd.DataFrame(RUN_ROWS, columns=["query_id", "doc_id", "score"])
    with pytest.raises(
        TypeError, match=r"^Run\(results=…\) needs a mapping \{query_id: \{doc_id: score\}\}, got DataFrame"
    ):
        Run(results=frame)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Qrels\(judgments=…\) needs a mapping"):
        Qrels(judgments=[("q1", "d1", 1)])  # type: ignore[arg-type]


def frame(**columns: list[object]) -> pd.DataFrame:
    return pd.DataFrame(columns)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            frame(query_id=["q1"], doc_id=["d1"]),
            "<DataFrame>: no score column (score) among the columns: query_id, doc_id",
        ),
        (
            frame(qid=["q1"], docno=["d1"], label=[1]),
            "<DataFrame>: no score column (score) among the columns: qid, docno, label; it has a relevance/label "
            "column: is it qrels?",
        ),
        (
            frame(qid=["q1"], docno=["d1"], rank=[0]),
            "<DataFrame>: no score column (score) among the columns: qid, docno, rank; with only ranks, add scores "
            "that keep the order: df.assign(score=-df['rank'])",
        ),
        (
            frame(qid=["q1"], docid=[17], score=[1.0]),
            "<DataFrame>: no doc id column (doc_id/docno) among the columns: qid, docid, score; PyTerrier's 'docid' "
            "is Terrier's internal number, not the document id: keep the 'docno' column",
        ),
        (
            frame(qid=["q1"], docno=["d1"], score=[1.0]).set_index("qid"),
            "<DataFrame>: no query id column (query_id/qid/q_id) among the columns: docno, score; 'qid' is the "
            "index: call df.reset_index() first",
        ),
        (
            frame(text=["q1"], body=["d1"], value=[1.0]),
            "<DataFrame>: no query id column (query_id/qid/q_id) among the columns: text, body, value",
        ),
        (
            frame(qid=[], docno=[], score=[]),
            "<DataFrame>: empty DataFrame: no rows (columns: qid, docno, score)",
        ),
        (
            frame(qid=[301.0, 302.0], docno=["a", "b"], score=[1.0, 2.0]),
            "<DataFrame>:1: qid 301.0 is a float; ids must be text or integers (a float id like 301.0 matches no "
            "qrels: read ids with dtype=str)",
        ),
        (
            frame(qid=["q1", None], docno=["a", "b"], score=[1.0, 2.0]),
            "<DataFrame>:2: qid is missing (NaN/None)",
        ),
        (
            frame(qid=["q1", "q1"], docno=["a", "a b"], score=[1.0, 2.0]),
            "<DataFrame>:2: docno 'a b' is empty or contains whitespace",
        ),
        (
            frame(qid=["q1", "q1"], docno=["a", "a"], score=[1.0, 2.0]),
            "<DataFrame>:2: duplicate doc 'a' for query 'q1'",
        ),
        (
            frame(qid=["q1", "q1"], docno=["a", "b"], score=[1.0, math.nan]),
            "<DataFrame>:2: score nan is not a finite number",
        ),
        (
            frame(qid=["q1"], docno=["a"], score=["high"]),
            "<DataFrame>: column 'score' must be numeric, found dtype",
        ),
        (
            frame(qid=["q1"], docno=["a"], score=[True]),
            "<DataFrame>: column 'score' must be numeric, found dtype bool",
        ),
        ({"q1": {"d1": "high"}}, "<dict>: query 'q1', doc 'd1': score 'high' is not a finite number"),
        ({"q1": ["d1", "d2"]}, "<dict>: query 'q1': expected {doc_id: score}, found list"),
        ({1.5: {"d1": 1.0}}, "<dict>: query id 1.5 is a float; ids must be text or integers"),
        ({"q1": {}}, "<dict>: empty run: no results"),
        (
            [ir_measures.ScoredDoc("q1", "d1", 1.0), ir_measures.ScoredDoc("q1", "d1", 2.0)],
            "<iterable>:2: duplicate doc 'd1' for query 'q1'",
        ),
        (
            [ir_measures.ScoredDoc("q1", "d1", math.inf)],
            "<iterable>:1: query 'q1', doc 'd1': score inf is not a finite number",
        ),
    ],
)
def test_bad_run_content_names_where(obj: object, message: str) -> None:
    with pytest.raises(FormatError) as info:
        as_run(obj)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (frame(qid=["q1"], docno=["d1"], label=[0.5]), "<DataFrame>:1: label 0.5 is not an integer grade"),
        (
            frame(qid=["q1"], docno=["d1"], score=[0.5]),
            "<DataFrame>:1: score 0.5 is not an integer grade (a run's scores, not qrels?)",
        ),
        (
            frame(qid=["q1"], docno=["d1"]),
            "<DataFrame>: no relevance column (relevance/label) among the columns: qid, docno",
        ),
        ({"q1": {"d1": 1.5}}, "<dict>: query 'q1', doc 'd1': relevance 1.5 is not an integer grade"),
        ({"q1": {"d1": True}}, "<dict>: query 'q1', doc 'd1': relevance True is not an integer grade"),
        (
            [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d1", 2)],
            "<iterable>:2: duplicate judgment of doc 'd1' for query 'q1'",
        ),
    ],
)
def test_bad_qrels_content_names_where(obj: object, message: str) -> None:
    with pytest.raises(FormatError) as info:
        as_qrels(obj)
    assert str(info.value).startswith(message)


def test_rows_of_a_topic_need_not_be_adjacent() -> None:
    run = as_run(frame(qid=["q2", "q1", "q2", "q1"], docno=["b", "a", "c", "d"], score=[1.0, 2.0, 3.0, 4.0]))
    assert list(run.results) == ["q2", "q1"]  # order of first appearance
    assert run.results == {"q2": {"b": 1.0, "c": 3.0}, "q1": {"a": 2.0, "d": 4.0}}
    with pytest.raises(FormatError, match=r"^<DataFrame>:4: duplicate doc 'b' for query 'q2'"):
        as_run(frame(qid=["q2", "q1", "q1", "q2"], docno=["b", "a", "c", "b"], score=[1.0, 2.0, 3.0, 4.0]))


def test_dicts_with_numpy_values_read_like_plain_ones() -> None:
    """The bulk check (text ids, plain floats) and the item-by-item one must agree."""
    numpy_valued = {q: {d: np.float64(v) for d, v in docs.items()} for q, docs in RESULTS.items()}
    assert as_run(numpy_valued).results == as_run(RESULTS).results == RESULTS
    with pytest.raises(
        FormatError, match=r"^<dict>: query 'q1': a doc id appears twice \(as text and as a number\)"
    ):
        as_run({"q1": {7: 1.0, "7": 2.0}})
    with pytest.raises(FormatError, match=r"^<dict>: query id '1' appears twice \(as text and as a number\)"):
        as_qrels({1: {"d": 1}, "1": {"d": 2}})


def test_integral_float_grades_are_grades() -> None:
    """A grade column read as float because of a missing value elsewhere is still a grade when it is whole."""
    assert as_qrels(frame(qid=["q1"], docno=["d1"], label=[2.0])).judgments == {"q1": {"d1": 2}}
    assert as_qrels({"q1": {"d1": np.int64(3), "d2": np.float32(1.0)}}).judgments == {
        "q1": {"d1": 3, "d2": 1}
    }


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        (
            frame(query_id=["q1"], doc_id=["d1"], score=[1.0]),
            "<DataFrame>: no query text column (query/text/title) among the columns: query_id, doc_id, score",
        ),
        (
            frame(name=["x"], query=["y"]),
            "<DataFrame>: no query id column (query_id/qid/q_id/id) among the columns: name, query",
        ),
        (frame(qid=["a", "a"], query=["x", "y"]), "<DataFrame>:2: duplicate topic id 'a'"),
        (frame(qid=[1.0], query=["x"]), "<DataFrame>:1: query id 1.0 is a float"),
        ({"q1": ""}, "<dict>: query 'q1': no query text (query, text, title) among ['id', 'query']"),
    ],
)
def test_bad_topics_are_refused_not_named_after_columns(obj: object, message: str) -> None:
    with pytest.raises(FormatError) as info:
        as_topics(obj)
    assert str(info.value).startswith(message)
