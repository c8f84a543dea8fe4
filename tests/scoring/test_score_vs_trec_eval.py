"""Differential test: ``score``'s library (``evaluate``) against the trec_eval 10 binary on 1,000 random cases.

The cases are ``tests/trec_adversarial.py``'s, kept to what the toolkit's strict readers accept (decimal scores,
no duplicates) but otherwise as hostile: ties and equal scores, tiny/huge/negative scores, topics only in the
run or only in the qrels, grades from -2 to 12, topics whose grades are all negative, comments, blank lines,
tabs, CRLF. ``score`` counts every qrels topic (a topic without results scores 0), which is trec_eval's ``-c``;
every per-topic value and every summary value of the measures below must print as trec_eval prints it.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest
from trec_adversarial import make_batch, render_qrels, render_run

from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run
from toolkit.scoring import evaluate

BATCHES = 100
CASES_PER_BATCH = 10

#: ir_measures name → (name trec_eval prints, its -m argument); relevance level 1.
MEASURES = {
    "AP": ("map", "map"),
    "P@5": ("P_5", "P.5,10"),
    "P@10": ("P_10", None),
    "RR": ("recip_rank", "recip_rank"),
    "nDCG": ("ndcg", "ndcg"),
    "nDCG@10": ("ndcg_cut_10", "ndcg_cut.3,10"),
    "nDCG@3": ("ndcg_cut_3", None),
    "Rprec": ("Rprec", "Rprec"),
    "Bpref": ("bpref", "bpref"),
    "R@5": ("recall_5", "recall.5"),
    "Success@1": ("success_1", "success.1"),
    "SetP": ("set_P", "set_P"),
    "SetR": ("set_recall", "set_recall"),
    "SetF": ("set_F", "set_F"),
    "SetAP": ("set_map", "set_map"),
    "infAP": ("infAP", "infAP"),
    "IPrec@0.5": ("iprec_at_recall_0.50", "iprec_at_recall.0.1,0.3,0.5"),
    "IPrec@0.1": ("iprec_at_recall_0.10", None),
    "IPrec@0.3": ("iprec_at_recall_0.30", None),
    "NumRel": ("num_rel", "num_rel"),
    "NumRet": ("num_ret", "num_ret"),
    "NumRet(rel=1)": ("num_rel_ret", "num_rel_ret"),
    "NumQ": ("num_q", "num_q"),
}

#: The same at relevance level 2 (trec_eval -l2), where the measure has a level.
LEVEL_2 = {
    "AP(rel=2)": "map",
    "P(rel=2)@5": "P_5",
    "RR(rel=2)": "recip_rank",
    "Rprec(rel=2)": "Rprec",
    "Bpref(rel=2)": "bpref",
    "SetP(rel=2)": "set_P",
    "R(rel=2)@5": "recall_5",
    "NumRet(rel=2)": "num_rel_ret",
}


def oracle(trec_eval, options: list[str], qrels: Path, run: Path) -> dict[tuple[str, str], str]:  # type: ignore[no-untyped-def]
    done = trec_eval(*options, qrels, run)
    assert done.returncode == 0, done.stderr
    out = {}
    for line in done.stdout.decode("latin-1").splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        out[(name, qid)] = value
    return out


def printed(value: float, like: str) -> str:
    return str(int(value)) if "." not in like else f"{value:.4f}"


def check_batch(trec_eval, tmp_path: Path, seed: int, level: int) -> int:  # type: ignore[no-untyped-def]
    batch = make_batch(seed, cases=CASES_PER_BATCH, strict=True)
    rng = random.Random(seed * 31)
    run_path, qrels_path = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
    run_path.write_bytes(render_run(batch, rng, strict=True))
    qrels_path.write_bytes(render_qrels(batch, rng))
    qrels = read_qrels(qrels_path)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", ToolkitWarning
        )  # run topics without qrels are ignored, with a warning
        run = read_run(run_path)
        if level == 1:
            mapping = {m: name for m, (name, _) in MEASURES.items()}
            args = [a for _, arg in MEASURES.values() if arg for a in ("-m", arg)]
        else:
            mapping = dict(LEVEL_2)
            args = ["-l2", "-m", "map", "-m", "P.5", "-m", "recip_rank", "-m", "Rprec", "-m", "bpref"]
            args += ["-m", "set_P", "-m", "recall.5", "-m", "num_rel_ret"]
        scores = evaluate(run, qrels, measures=list(mapping))
    want = oracle(trec_eval, ["-q", "-c", *args], qrels_path, run_path)
    checked = 0
    for measure, trec_name in mapping.items():
        for qid in [*scores.query_ids, "all"]:
            expected = want.get((trec_name, qid))
            if expected is None:
                assert qid == "all" or trec_name == "num_q", (measure, qid)
                continue
            ours = scores.aggregate[measure] if qid == "all" else scores.per_query[qid][measure]
            assert printed(ours, expected) == expected, (
                f"seed {seed}: {measure} {qid}: trec_eval {expected}, ours {ours!r}"
            )
            checked += 1
    return checked


@pytest.mark.parametrize("block", range(10))
def test_score_equals_trec_eval_c_on_random_batches(trec_eval, tmp_path: Path, block: int) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for seed in range(block * BATCHES // 10, (block + 1) * BATCHES // 10):
        checked += check_batch(trec_eval, tmp_path, 10_000 + seed, level=2 if seed % 5 == 0 else 1)
    assert checked > 1000
