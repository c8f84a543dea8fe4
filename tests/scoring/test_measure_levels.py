"""Relevance levels: ``rel=0`` is trec_eval's ``-l0`` (every judged doc relevant); below 0 is a usage error.

pytrec_eval raised a TypeError deep inside for ``rel=0``; the measure table's kernels compute it as trec_eval 10
does, so it is held to the trec_eval binary built from source. A negative level is refused before any file is
read, in one line.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from toolkit.cli import main
from toolkit.formats import read_qrels, read_run
from toolkit.scoring import evaluate

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def test_rel_zero_is_trec_eval_l0(trec_eval) -> None:  # type: ignore[no-untyped-def]
    done = trec_eval("-c", "-l0", "-m", "P.3", "-m", "map", f"{DATA}/qrels.test", f"{DATA}/results.test")
    want = {line.split()[0]: line.split()[2] for line in done.stdout.decode().splitlines()}
    scores = evaluate(
        read_run(f"{DATA}/results.test"), read_qrels(f"{DATA}/qrels.test"), measures="P(rel=0)@3 AP(rel=0)"
    )
    assert f"{scores.aggregate['P(rel=0)@3']:.4f}" == want["P_3"]
    assert f"{scores.aggregate['AP(rel=0)']:.4f}" == want["map"]


def test_rel_below_zero_is_refused_with_one_line() -> None:
    result = CliRunner().invoke(
        main,
        ["score", f"{DATA}/results.test", "--qrels", f"{DATA}/qrels.test", "--measures", "P(rel=-1)@3"],
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: P(rel=-1)@3: rel=-1; a relevance level counts docs graded at least rel as "
        "relevant and must be a whole number ≥ 0 (e.g. P(rel=2)@5)"
    ]


def test_rel_two_still_scores() -> None:
    result = CliRunner().invoke(
        main,
        ["score", f"{DATA}/results.test", "--qrels", f"{DATA}/qrels.test", "--measures", "P(rel=2)@3"],
    )
    assert result.exit_code == 0, result.output
