"""``score --pool-bias``: leave-one-run-out on a hand-made two-run pool, values computed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main


def test_pool_bias_table(tmp_path: Path) -> None:
    # Depth-2 pool: A contributes a, b (q1) and d (q2); B contributes c, b (q1) and e (q2).
    # Unique to A: a (rel), d (rel) → 2 docs, 2 relevant. Unique to B: c (rel), e (non-rel) → 2, 1.
    # P@1 with full qrels: A = (1 + 1)/2 = 1.0, B = (1 + 0)/2 = 0.5.
    # Without its own docs each run's top doc is unjudged on both topics → P@1 = 0 for both.
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\n")
    (tmp_path / "A.run").write_text("q1 Q0 a 1 3 A\nq1 Q0 b 2 2 A\nq2 Q0 d 1 1 A\n")
    (tmp_path / "B.run").write_text("q1 Q0 c 1 3 B\nq1 Q0 b 2 2 B\nq2 Q0 e 1 1 B\n")
    args = [str(tmp_path / "A.run"), str(tmp_path / "B.run"), "--qrels", str(tmp_path / "q.qrels")]
    result = CliRunner().invoke(
        main, ["score", *args, "--measures", "P@1", "--pool-bias", "--pool-depth", "2"]
    )
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in result.stdout.splitlines()]
    assert ["A", "P@1", "1.0000", "0.0000", "-1.0000", "2", "2"] in lines
    assert ["B", "P@1", "0.5000", "0.0000", "-0.5000", "2", "1"] in lines
    # left out, both runs score 0: that ranking is all ties, so τ does not exist
    assert ["P@1", "–", "–", "none"] in lines  # τ-b and τ_AP: a ranking that is all ties has none


def test_pool_bias_needs_two_runs_and_table(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_text("q1 0 a 1\n")
    (tmp_path / "A.run").write_text("q1 Q0 a 1 3 A\n")
    result = CliRunner().invoke(
        main, ["score", str(tmp_path / "A.run"), "--qrels", str(tmp_path / "q.qrels"), "--pool-bias"]
    )
    assert result.exit_code == 2
    assert "Error: --pool-bias needs --format table, md, html or json and at least two runs" in result.stderr


def test_pool_bias_in_json(tmp_path: Path) -> None:
    """The same hand-made pool as above, as JSON: unrounded values, the rows in run order."""
    import json

    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 d 1\nq2 0 e 0\n")
    (tmp_path / "A.run").write_text("q1 Q0 a 1 3 A\nq1 Q0 b 2 2 A\nq2 Q0 d 1 1 A\n")
    (tmp_path / "B.run").write_text("q1 Q0 c 1 3 B\nq1 Q0 b 2 2 B\nq2 Q0 e 1 1 B\n")
    args = [str(tmp_path / "A.run"), str(tmp_path / "B.run"), "--qrels", str(tmp_path / "q.qrels")]
    result = CliRunner().invoke(
        main, ["score", *args, "--measures", "P@1", "--pool-bias", "--pool-depth", "2", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    bias = json.loads(result.stdout)["pool_bias"]
    assert (bias["source"], bias["n"]) == ("depth-2 pool of the runs", 2)
    rows = [
        (r["run"], r["full"], r["without_own"], r["unique_docs"], r["unique_relevant"]) for r in bias["rows"]
    ]
    assert rows == [("A", 1.0, 0.0, 2, 2), ("B", 0.5, 0.0, 2, 1)]


def test_pool_bias_shows_the_leave_one_out_ranking_as_tau(tmp_path: Path) -> None:
    """Three runs; τ between the full and the leave-one-out scores is checked against scipy's kendalltau of
    the scores the JSON reports (an outside computation of the same ranking agreement)."""
    import json

    from scipy import stats

    (tmp_path / "q.qrels").write_text(
        "q1 0 a 1\nq1 0 b 1\nq1 0 c 0\nq1 0 x 1\nq2 0 d 1\nq2 0 e 1\nq2 0 f 0\nq2 0 y 1\n"
    )
    (tmp_path / "A.run").write_text("q1 Q0 a 1 3 A\nq1 Q0 b 2 2 A\nq2 Q0 d 1 3 A\nq2 Q0 y 2 2 A\n")
    (tmp_path / "B.run").write_text("q1 Q0 b 1 3 B\nq1 Q0 c 2 2 B\nq2 Q0 e 1 3 B\nq2 Q0 d 2 2 B\n")
    (tmp_path / "C.run").write_text("q1 Q0 x 1 3 C\nq1 Q0 a 2 2 C\nq2 Q0 f 1 3 C\nq2 Q0 e 2 2 C\n")
    args = [str(tmp_path / f"{r}.run") for r in "ABC"] + ["--qrels", str(tmp_path / "q.qrels")]
    result = CliRunner().invoke(
        main, ["score", *args, "--measures", "P@2", "--pool-bias", "--pool-depth", "2", "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    bias = json.loads(result.stdout)["pool_bias"]
    full = [r["full"] for r in bias["rows"]]
    without = [r["without_own"] for r in bias["rows"]]
    assert bias["ranking"]["P@2"]["tau"] == pytest.approx(
        stats.kendalltau(full, without).statistic, abs=1e-12
    )
    assert bias["ranking"]["P@2"]["swapped"] == []
