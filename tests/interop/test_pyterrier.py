"""PyTerrier's data conventions, without PyTerrier (it downloads Terrier at start-up).

PyTerrier's frames (its data model, docs/datamodel.md): queries ``qid, query``; results ``qid, docno, score,
rank`` (plus ``docid``, Terrier's internal number, and the ``query``); qrels ``qid, docno, label``.
``pt.Evaluate`` scores a result frame by renaming those columns to ir_measures' (``qid`` → ``query_id``,
``docno`` → ``doc_id``, ``label`` → ``relevance``) and calling ir_measures — so ir_measures on the renamed
frames is what PyTerrier would report, and the oracle here. Scores are tie-free (tools break ties differently).
"""

from __future__ import annotations

from pathlib import Path

import ir_measures
import pandas as pd
import pytest

from toolkit.formats import write_qrels
from toolkit.formats.interop import as_qrels, as_run, as_topics
from toolkit.scoring import evaluate

MEASURES = ["AP", "RR@10", "P@2", "nDCG@10"]


def result_frame() -> pd.DataFrame:
    rows = [
        # qid, docid, docno, rank, score
        ("1", 10, "d10", 0, 9.5),
        ("1", 3, "d3", 1, 7.25),
        ("1", 7, "d7", 2, 7.0),
        ("1", 1, "d1", 3, 2.5),
        ("2", 3, "d3", 0, 12.0),
        ("2", 8, "d8", 1, 4.0),
        ("2", 4, "d4", 2, 1.0),
    ]
    frame = pd.DataFrame(rows, columns=["qid", "docid", "docno", "rank", "score"])
    frame["query"] = frame["qid"].map({"1": "chemical reactions", "2": "ocean currents"})
    return frame


def qrels_frame() -> pd.DataFrame:
    rows = [("1", "d3", 2), ("1", "d1", 1), ("1", "d99", 1), ("2", "d4", 1), ("2", "d10", 0)]
    return pd.DataFrame(rows, columns=["qid", "docno", "label"])


def pyterrier_would_report(results: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, float]:
    run = results.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    judged = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    values = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], judged, run)
    return {str(k): float(v) for k, v in values.items()}


def test_result_and_qrels_frames_score_as_pyterrier_would() -> None:
    expected = pyterrier_would_report(result_frame(), qrels_frame())
    ours = evaluate(result_frame(), qrels_frame(), measures=MEASURES).aggregate
    assert ours == pytest.approx(expected, abs=1e-12)
    # and by hand for one: RR@10 — topic 1's first relevant (d3) at rank 2, topic 2's (d4) at rank 3
    assert ours["RR@10"] == pytest.approx((1 / 2 + 1 / 3) / 2)


def test_docno_is_the_doc_id_not_terriers_docid() -> None:
    run = as_run(result_frame())
    assert run.results["1"] == {"d10": 9.5, "d3": 7.25, "d7": 7.0, "d1": 2.5}
    assert run.ranking("2") == ["d3", "d8", "d4"]  # by score; PyTerrier's 0-based rank column is not used


def test_integer_qids_match_text_qrels() -> None:
    """``pd.read_csv`` makes qid an integer column; qrels loaded elsewhere hold it as text."""
    results = result_frame().assign(qid=lambda f: f["qid"].astype(int))
    assert evaluate(results, qrels_frame(), measures=MEASURES).aggregate == pytest.approx(
        pyterrier_would_report(result_frame(), qrels_frame()), abs=1e-12
    )


def test_topics_frame_is_the_denominator() -> None:
    topics = pd.DataFrame(
        {"qid": ["1", "2", "3"], "query": ["chemical reactions", "ocean currents", "unjudged"]}
    )
    assert [(t.query_id, t.query) for t in as_topics(topics)] == [
        ("1", "chemical reactions"),
        ("2", "ocean currents"),
        ("3", "unjudged"),
    ]
    with pytest.warns(UserWarning, match=r"1 of 3 topics have no qrels \(3\)"):
        scores = evaluate(result_frame(), qrels_frame(), topics=topics, measures="RR@10")
    # topic 3 has neither results nor qrels: it scores 0 and counts — (1/2 + 1/3 + 0) / 3
    assert scores.n == 3 and scores.aggregate["RR@10"] == pytest.approx((1 / 2 + 1 / 3) / 3)


def test_results_and_qrels_files_as_pyterrier_writes_and_reads_them(tmp_path: Path) -> None:
    """``pt.io.write_results`` writes ``qid Q0 docno rank score run_name`` with ``DataFrame.to_csv(sep=" ")``;
    ``pt.io.read_qrels`` reads ``qid iter docno label`` with ``read_csv(sep=r"\\s+")``. Both steps are pandas
    calls, reproduced here as PyTerrier makes them (pyterrier/io.py)."""
    frame = result_frame()[["qid", "docno", "rank", "score"]].copy()
    frame.insert(1, "Q0", "Q0")
    frame.insert(5, "run_name", "pyterrier")
    frame.to_csv(tmp_path / "pt.res", sep=" ", header=False, index=False)
    assert as_run(tmp_path / "pt.res").results == as_run(result_frame()).results

    write_qrels(as_qrels(qrels_frame()), tmp_path / "q.qrels")
    read_back = pd.read_csv(tmp_path / "q.qrels", sep=r"\s+", names=["qid", "iter", "docno", "label"])
    read_back = read_back.drop(columns="iter").astype({"qid": str, "docno": str})
    pd.testing.assert_frame_equal(read_back, qrels_frame())
