"""A relevance level below 1 is a usage error before any file is read (pytrec_eval raised TypeError inside)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"


def test_rel_zero_is_refused_with_one_line() -> None:
    result = CliRunner().invoke(
        main,
        ["score", f"{DATA}/results.test", "--qrels", f"{DATA}/qrels.test", "--measures", "P(rel=0)@3"],
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: 'P(rel=0)@3': rel=0 is below 1; a relevance level counts docs graded at "
        "least rel as relevant and must be ≥ 1 (e.g. P(rel=2)@5)"
    ]


def test_rel_two_still_scores() -> None:
    result = CliRunner().invoke(
        main,
        ["score", f"{DATA}/results.test", "--qrels", f"{DATA}/qrels.test", "--measures", "P(rel=2)@3"],
    )
    assert result.exit_code == 0, result.output
