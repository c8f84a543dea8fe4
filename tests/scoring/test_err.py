"""ERR@k (Chapelle et al., CIKM 2009) held to computations made outside the toolkit, on any topic ids.

Two oracles: a plain reading of the definition written here (rank by score descending, ties by doc id
descending as trec_eval; R = (2^g − 1) / 16 for a grade g in 0–4, 0 for unjudged docs; ERR@k = Σ_{i≤k} R_i / i ·
Π_{j<i} (1 − R_j)), on topic ids with and without ``-``; and gdeval.pl itself (the TREC Web track's script, which
ir_measures ships), on numeric ids, the only ids it reads correctly — it keeps what follows the last ``-``, so
``q-1`` and ``r-1`` become one topic, which is why ``score`` does not use it.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from toolkit.formats import read_qrels, read_run
from toolkit.scoring import evaluate

VENV_BIN = Path(__file__).resolve().parents[2] / ".venv" / "bin"


def make_files(tmp_path: Path, ids: list[str], seed: int) -> tuple[Path, Path, dict, dict]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in ids:
        docs = [f"d{k}" for k in rng.sample(range(60), rng.randint(3, 30))]
        qrels[q] = {d: rng.choice([0, 0, 1, 2, 3, 4]) for d in docs if rng.random() < 0.6} or {docs[0]: 2}
        run[q] = {
            d: float(rng.choice([1, 2, 2, 3, 5])) for d in docs + [f"u{k}" for k in range(rng.randint(0, 5))]
        }
    run_path, qrels_path = tmp_path / "r.run", tmp_path / "q.qrels"
    run_path.write_text(
        "".join(
            f"{q} Q0 {d} {i} {s} tag\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items())
        )
    )
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return run_path, qrels_path, run, qrels


def err_by_hand(ranked: dict[str, float], grades: dict[str, int], k: int) -> float:
    order = sorted(ranked, key=lambda d: (ranked[d], d), reverse=True)[:k]
    total, stay = 0.0, 1.0
    for i, doc in enumerate(order, start=1):
        r = (2 ** max(grades.get(doc, 0), 0) - 1) / 16
        total += stay * r / i
        stay *= 1 - r
    return total


@pytest.mark.parametrize(
    "ids",
    [
        [
            "q-101",
            "r-101",
            "q-102",
            "can-01",
            "attr-01",
            "s-1-2",
        ],  # gdeval would merge these on what follows '-'
        ["101", "102", "t101", "q7", "can01"],
    ],
)
def test_err_is_the_definition_on_any_topic_ids(tmp_path: Path, ids: list[str]) -> None:
    for seed in range(5):
        run_path, qrels_path, run, qrels = make_files(tmp_path, ids, seed)
        scores = evaluate(read_run(run_path), read_qrels(qrels_path), measures="ERR@5 ERR@10 ERR@20")
        assert scores.providers["ERR@10"] == "trec_toolkit"
        for k in (5, 10, 20):
            by_hand = {q: err_by_hand(run[q], qrels[q], k) for q in ids}
            for q in ids:
                assert scores.per_query[q][f"ERR@{k}"] == pytest.approx(by_hand[q], abs=1e-12), (seed, q, k)
            assert scores.aggregate[f"ERR@{k}"] == pytest.approx(sum(by_hand.values()) / len(ids), abs=1e-12)


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
def test_err_equals_gdeval_on_numeric_topic_ids(tmp_path: Path) -> None:
    import importlib.resources

    script = tmp_path / "gdeval.pl"
    script.write_bytes(importlib.resources.files("ir_measures").joinpath("bin/gdeval.pl").read_bytes())
    ids = [str(100 + t) for t in range(12)]
    for seed in range(4):
        run_path, qrels_path, _, _ = make_files(tmp_path, ids, 100 + seed)
        for k in (5, 10, 20):
            out = subprocess.run(
                ["perl", str(script), str(qrels_path), str(run_path), str(k)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            gdeval = {line.split(",")[1]: line.split(",")[3] for line in out.splitlines()[1:] if line}
            scores = evaluate(read_run(run_path), read_qrels(qrels_path), measures=f"ERR@{k}")
            assert {q: f"{scores.per_query[q][f'ERR@{k}']:.5f}" for q in ids} == {q: gdeval[q] for q in ids}


def test_compare_primary_err_gives_the_true_mean_with_dashed_ids(tmp_path: Path) -> None:
    ids = ["q-101", "r-101", "s-101", "q-102", "r-102", "s-102", "q-103", "r-103", "s-103", "q-104", "r-104"]
    run_path, qrels_path, run, qrels = make_files(tmp_path, ids, 7)
    other = tmp_path / "b.run"
    other.write_text(
        "".join(
            f"{q} Q0 {d} 1 {len(docs) - i} other\n"
            for q, docs in run.items()
            for i, d in enumerate(sorted(docs))
        )
    )
    from click.testing import CliRunner

    from toolkit.cli import main

    # compare's JSON through click's runner: its console-script path is tests/reports/test_hostile_text.py's
    done = CliRunner().invoke(
        main,
        [
            "compare",
            str(run_path),
            str(other),
            "--qrels",
            str(qrels_path),
            "--primary",
            "ERR@10",
            "--format",
            "json",
        ],
    )
    assert done.exit_code == 0, done.stderr
    (primary,) = [c for c in json.loads(done.stdout)["comparisons"] if c["family"] == "confirmatory"]
    assert primary["measure"] == "ERR@10" and primary["n"] == len(ids)
    for key, ranked in (("mean_baseline", run), ("mean_candidate", None)):
        if ranked is None:
            ranked = {q: {d: float(len(run[q]) - i) for i, d in enumerate(sorted(run[q]))} for q in ids}
        mean = sum(err_by_hand(ranked[q], qrels[q], 10) for q in ids) / len(ids)
        assert mean > 0.05
        assert primary[key] == pytest.approx(mean, abs=1e-12)


def test_a_grade_above_gdevals_scale_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "r.run").write_text("q-1 Q0 a 1 2 t\nq-1 Q0 b 2 1 t\n")
    (tmp_path / "q.qrels").write_text("q-1 0 a 7\n")
    done = subprocess.run(
        [
            str(VENV_BIN / "trec-toolkit"),
            "score",
            str(tmp_path / "r.run"),
            "--qrels",
            str(tmp_path / "q.qrels"),
        ]
        + ["--measures", "ERR@10"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: ERR@10: grade 7: ERR maps grades 0–4 (R = (2^g − 1)/16, gdeval's scale); rescale the qrels "
        "to 0–4 for ERR"
    ]
