"""Whatever scores a system returns, the written run ranks exactly in the system's order under trec_eval's rule.

Checked two ways: ``Run.ranking`` (trec_eval's sort: score desc, doc_id desc) on the file read back, and
pytrec_eval itself: with only the system's k-th doc relevant, reciprocal rank must be exactly 1/k.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.formats.run import read_run
from toolkit.model import Topic, TopicSet
from toolkit.systems import PythonSystem, run_system

# Orders chosen so that sorting by the system's own score, or by doc_id descending (trec_eval's tie-break),
# would give a different order than the system's.
SYSTEM_ORDER = ["a", "c", "b", "e", "d"]
CASES = {
    "equal": [(d, 1.0) for d in SYSTEM_ORDER],
    "increasing": [(d, float(i)) for i, d in enumerate(SYSTEM_ORDER)],
    "missing": list(SYSTEM_ORDER),
    "mixed": [("a", 5.0), ("c", 9.0), ("b", None), ("e", 5.0), ("d", -1.0)],
}


def system_for(case: str) -> PythonSystem:
    items = CASES[case]
    return PythonSystem(case, f"inline:{case}", function=lambda query, depth: items)


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_order_is_the_system_order(case: str, tmp_path: Path) -> None:
    topics = TopicSet(topics=(Topic(query_id="q1", query="x"),), name="t", sha256="0" * 64)
    out = tmp_path / f"{case}.run"
    run_system(system_for(case), topics, output=out, depth=10)
    assert read_run(out).ranking("q1") == SYSTEM_ORDER


@pytest.mark.parametrize("case", sorted(CASES))
def test_trec_eval_reciprocal_rank_matches_the_system_rank(case: str, tmp_path: Path) -> None:
    import pytrec_eval

    topics = TopicSet(topics=(Topic(query_id="q1", query="x"),), name="t", sha256="0" * 64)
    out = tmp_path / f"{case}.run"
    run_system(system_for(case), topics, output=out, depth=10)
    run = read_run(out)
    for k, doc in enumerate(SYSTEM_ORDER, start=1):
        evaluator = pytrec_eval.RelevanceEvaluator({"q1": {doc: 1}}, {"recip_rank"})
        scores = evaluator.evaluate({"q1": dict(run.results["q1"])})
        assert scores["q1"]["recip_rank"] == pytest.approx(1 / k)


def test_raw_scores_go_to_the_manifest(tmp_path: Path) -> None:
    from toolkit.formats.manifest import read_manifest

    topics = TopicSet(topics=(Topic(query_id="q1", query="x"),), name="t", sha256="0" * 64)
    run_system(system_for("mixed"), topics, output=tmp_path / "m.run")
    manifest = read_manifest(tmp_path / "m.run")
    assert manifest is not None
    assert manifest["per_topic"]["q1"]["raw_scores"] == [5.0, 9.0, None, 5.0, -1.0]
    assert (tmp_path / "m.run").read_text().splitlines()[0] == "q1 Q0 a 1 5.0 mixed"
