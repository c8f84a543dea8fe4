"""The estimates document: every inferred value is labelled an estimate, in text and JSON."""

from __future__ import annotations

import json

from toolkit.model import Qrels, Run, SampledQrels
from toolkit.reports import render
from toolkit.reports.estimates import ESTIMATE_LABEL, estimates_document
from toolkit.scoring.inferred import estimate_many


def test_every_value_is_labelled_an_estimate() -> None:
    judgments = {f"q{t}": {"a": 1, "b": 0, "c": -1, "d": 1, "e": -1} for t in range(3)}
    probs = {q: {"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.5, "e": 0.5} for q in judgments}
    sampled = SampledQrels(Qrels(judgments, name="sample"), probs)
    run = Run(results={q: {"a": 5.0, "c": 4.0, "d": 3.0, "b": 2.0} for q in judgments}, name="r1")
    results = estimate_many([run], sampled, ["statAP", "P@2"])
    doc = estimates_document(results, qrels="sample.probs", refused=["RR@10 cannot be estimated …"])
    text = render(doc, "table")
    rows = [line for line in text.splitlines() if line.startswith("r1")]
    assert len(rows) == 2 and all(ESTIMATE_LABEL in row for row in rows)
    assert "RR@10 cannot be estimated" in text
    data = json.loads(render(doc, "json"))
    measures = data["runs"][0]["measures"]
    assert [m["estimate"] for m in measures] == [True, True]
    # P@2 by hand: the top 2 are a (judged relevant, π = 1) and c (unjudged) → (1/2)·1 = 0.5 on every topic
    p2 = measures[1]
    assert p2["measure"] == "P@2" and p2["mean"] == 0.5
    assert data["refused"] == ["RR@10 cannot be estimated …"]
