"""``score``'s two ways to form the ``Batch`` (``toolkit.scoring.kernels``) held to each other.

The same random adversarial cases as the trec_eval differential tests (ties, equal scores, rising scores, grades
-2 to 12, topics whose grades are all negative, docs and topics on one side only, every layout the strict
readers accept) are scored twice: from files read column-wise (the column-wise join) and from the same data
read line by line into dicts (the dict path, which every DataFrame, dict or ranx input takes). The batches must
be equal array for array, and every per-topic value and every aggregate the same double; and the column-wise
join must have answered, so that the test cannot pass by falling back.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers.sizes import examples
from trec_adversarial import lengthen_doc_ids, make_batch, render_qrels, render_run

from toolkit.formats import read_qrels, read_run
from toolkit.formats.qrels import read_qrels_lines
from toolkit.formats.run import read_run_lines
from toolkit.scoring import evaluate, kernels

MEASURES = [
    "AP P@5 RR nDCG@10 gm_map 11pt_avg",
    "P@1 P@3 P@200 R@2 R@100 Rprec Bpref",
    "RR@3 RR@10 nDCG nDCG@1 nDCG@4 AP@2 Success@2",
    "P(rel=2)@5 AP(rel=2) RR(rel=3) R(rel=2)@5 Rprec(rel=2) Bpref(rel=2) NumRet(rel=2)",
    "NumRel NumRet NumQ NumRel(rel=2) NumRet(rel=1) RR(rel=2)@2 utility unj.5 relative_P.3",
]


#: Random batches per block: a fifth (at least ten) in the README's command, all 40 in the stress tier.
CASES = examples(40)


@pytest.mark.sized
@pytest.mark.parametrize("block", range(4))
def test_column_path_equals_the_dict_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    answered = []
    original = kernels._from_columns

    def counting(ranked, judged, query_ids):  # type: ignore[no-untyped-def]
        result = original(ranked, judged, query_ids)
        answered.append(True)
        return result

    monkeypatch.setattr(kernels, "_from_columns", counting)
    for seed in range(block * 40, block * 40 + CASES):
        rng = random.Random(seed * 7321)
        batch = make_batch(seed, cases=rng.randint(1, 5), strict=True)
        run, qrels = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
        run_text, qrels_text = render_run(batch, rng, strict=True), render_qrels(batch, rng)
        if seed % 2:
            run_text, qrels_text = lengthen_doc_ids(run_text, seed), lengthen_doc_ids(qrels_text, seed)
        run.write_bytes(run_text)
        qrels.write_bytes(qrels_text)
        measures = rng.choice(MEASURES)
        fast_run, fast_qrels = read_run(run), read_qrels(qrels)
        slow_run, slow_qrels = read_run_lines(run), read_qrels_lines(qrels)
        topics = [q for q in fast_qrels.query_ids if q in fast_qrels.judgments]
        by_columns = kernels.build(fast_run, fast_qrels, topics, lambda: None)
        by_dicts = kernels.from_dicts(slow_run, {q: dict(d) for q, d in slow_qrels.judgments.items()}, topics)
        for field in ("starts", "rel", "qstarts", "grades"):
            assert getattr(by_columns, field).tolist() == getattr(by_dicts, field).tolist(), (seed, field)
        fast = evaluate(fast_run, fast_qrels, measures=measures)
        slow = evaluate(slow_run, slow_qrels, measures=measures)
        assert fast.per_query == slow.per_query, f"seed {seed}: {measures}"
        assert fast.aggregate == slow.aggregate, f"seed {seed}: {measures}"
    assert len(answered) >= CASES * 7 // 4, "the column-wise join should answer nearly every case"
