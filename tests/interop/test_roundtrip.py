"""Round trips with ranx and ir_measures: what they write the toolkit reads, what the toolkit writes they read.

Each tool is the oracle for its own reading: a file counts as read correctly when the tool's scores on it
equal the toolkit's scores on the same data. ranx is an independent implementation of the measures (numba);
ir_measures goes through pytrec_eval, the toolkit's own backend, so for it the check is on the files and the
records, not the arithmetic. Runs are tie-free (random doubles), because the tools break ties differently
(docs/design.md §5) and ties are not what is tested here.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from helpers.lazy import ranx  # loaded on first use, by the ranx group's worker (tests/conftest.py)
from ir_measures.util import QrelsConverter, RunConverter

from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run, write_qrels, write_run
from toolkit.model import Qrels, Run
from toolkit.scoring import evaluate

#: toolkit measure → ranx metric of the same definition.
RANX = {
    "AP": "map",
    "RR@10": "mrr@10",
    "P@5": "precision@5",
    "nDCG@10": "ndcg@10",
    "Rprec": "r-precision",
    "R@20": "recall@20",
}
MEASURES = list(RANX)


def make_data(seed: int = 7) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """12 topics × 40 scored docs and 12 graded judgments each (one at least relevant); topic t13 is judged but
    has no results (counts 0 in every tool), topic t99 has results but no judgments (ignored by every tool)."""
    rng = np.random.default_rng(seed)
    pool = [f"doc{i:03d}" for i in range(100)]
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for t in range(1, 13):
        q = f"t{t:02d}"
        run[q] = {
            str(d): float(s) for d, s in zip(rng.choice(pool, 40, replace=False), rng.random(40), strict=True)
        }
        grades = rng.integers(0, 4, 12)
        grades[0] = max(int(grades[0]), 1)
        qrels[q] = {str(d): int(g) for d, g in zip(rng.choice(pool, 12, replace=False), grades, strict=True)}
    qrels["t13"] = {"doc001": 2}
    run["t99"] = {"doc002": 1.0}
    return run, qrels


def toolkit_scores(run: object, qrels: object, **kw: object) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ToolkitWarning)  # t99 is ignored, by design
        return dict(evaluate(run, qrels, measures=MEASURES, **kw).aggregate)  # type: ignore[arg-type]


def ranx_scores(qrels: ranx.Qrels, run: ranx.Run) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's casting notes
        values = ranx.evaluate(qrels, run, list(RANX.values()), make_comparable=True)
    return {m: float(values[r]) for m, r in RANX.items()}


def ir_measures_scores(qrels: object, run: object) -> dict[str, float]:
    values = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], qrels, run)
    return {str(k): float(v) for k, v in values.items()}


def same(a: dict[str, float], b: dict[str, float]) -> None:
    assert a.keys() == b.keys()
    for m in a:
        assert a[m] == pytest.approx(b[m], abs=1e-12), m


# --------------------------------------------------------------------------- ranx


def test_ranx_files_and_objects_are_read(tmp_path: Path) -> None:
    run, qrels = make_data()
    ranx_run, ranx_qrels = ranx.Run(run, name="bm25"), ranx.Qrels(qrels)
    ranx_run.save(str(tmp_path / "bm25.trec"), kind="trec")  # no final newline, ranks from 1, tag = name
    ranx_qrels.save(str(tmp_path / "qrels.trec"), kind="trec")
    expected = ranx_scores(ranx_qrels, ranx_run)

    from_files = (read_run(tmp_path / "bm25.trec"), read_qrels(tmp_path / "qrels.trec"))
    assert from_files[0].results == run and from_files[0].run_tag == "bm25"  # scores round-trip exactly
    assert from_files[1].judgments == qrels
    same(toolkit_scores(*from_files), expected)
    same(toolkit_scores(ranx_run, ranx_qrels), expected)  # the objects themselves


def test_toolkit_files_are_read_by_ranx(tmp_path: Path) -> None:
    run, qrels = make_data(11)
    write_run(Run(run, name="mine"), tmp_path / "mine.run")
    write_qrels(Qrels(qrels), tmp_path / "mine.qrels")
    ranx_run = ranx.Run.from_file(str(tmp_path / "mine.run"), kind="trec")
    ranx_qrels = ranx.Qrels.from_file(str(tmp_path / "mine.qrels"), kind="trec")
    assert ranx_run.name == "mine"
    assert {q: dict(d) for q, d in ranx_run.to_dict().items()} == run
    same(ranx_scores(ranx_qrels, ranx_run), toolkit_scores(run, qrels))


# --------------------------------------------------------------------------- ir_measures


def test_ir_measures_files_and_records_are_read(tmp_path: Path) -> None:
    run, qrels = make_data(3)
    scored = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    judged = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    expected = ir_measures_scores(judged, scored)
    same(toolkit_scores(scored, judged), expected)
    # the files ir_measures writes for its trec_eval-based providers (ranks from 0, tag "run")
    with RunConverter(scored).as_tmp_file() as run_file, QrelsConverter(judged).as_tmp_file() as qrels_file:
        ours = toolkit_scores(read_run(run_file.name), read_qrels(qrels_file.name))
        # and ir_measures' own readers on the same files
        theirs = ir_measures_scores(
            ir_measures.read_trec_qrels(qrels_file.name), ir_measures.read_trec_run(run_file.name)
        )
    same(ours, expected)
    same(theirs, expected)


def test_toolkit_files_are_read_by_ir_measures(tmp_path: Path) -> None:
    run, qrels = make_data(5)
    write_run(Run(run, name="mine"), tmp_path / "mine.run.gz")  # gzip too
    write_qrels(Qrels(qrels), tmp_path / "mine.qrels")
    read_back = list(ir_measures.read_trec_run(str(tmp_path / "mine.run.gz")))
    assert {(r.query_id, r.doc_id, r.score) for r in read_back} == {
        (q, d, s) for q, docs in run.items() for d, s in docs.items()
    }
    theirs = ir_measures_scores(
        ir_measures.read_trec_qrels(str(tmp_path / "mine.qrels")),
        ir_measures.read_trec_run(str(tmp_path / "mine.run.gz")),
    )
    same(theirs, toolkit_scores(run, qrels))
