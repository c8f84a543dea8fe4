"""``trec-toolkit correlate`` as an outsider runs it: the installed script, exit codes, exact messages.

The JSON held to scipy's τ, the table and the refusals run the installed script; the variations of the JSON
path (identical qrels, the measure a workspace declares) run the same command line in this process, through
click's runner.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scipy import stats

REPO = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("trec-toolkit")


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), "correlate", *args], cwd=cwd, capture_output=True, text=True)


def invoke(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``run``'s command line in this process (click's runner), from the folder ``cwd``."""
    from click.testing import CliRunner

    from toolkit.cli import main

    here = Path.cwd()
    os.chdir(cwd)
    try:
        got = CliRunner().invoke(main, ["correlate", *args])
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(args, got.exit_code, got.stdout, got.stderr)


def _write_runs(folder: Path) -> list[str]:
    """Five runs of graded quality over 12 topics with 4 relevant docs each (d0..d3)."""
    paths = []
    for k in range(5):
        lines = []
        for q in range(12):
            docs = [f"n{q}-{i}" for i in range(6)]
            for i in range(4 - (k % 4)):
                docs.insert(min(len(docs), i * (k + 1)), f"d{i}")
            lines += [f"q{q} Q0 {d} {r} {100 - r} run{k}" for r, d in enumerate(docs, start=1)]
        path = folder / f"run{k}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return paths


def test_identical_qrels_give_tau_one(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path)
    qrels = tmp_path / "full.qrels"
    qrels.write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(12) for i in range(4)))
    copy = tmp_path / "copy.qrels"
    copy.write_text(qrels.read_text())
    done = invoke(
        *runs,
        "--qrels",
        str(qrels),
        "--qrels",
        str(copy),
        "--measure",
        "AP",
        "--format",
        "json",
        "--resamples",
        "200",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [c["value"] for c in data["coefficients"]] == [1.0, 1.0, 1.0]
    assert data["swapped"] == []


def test_a_partial_qrels_is_correlated_with_scipy_tau(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path)
    full = tmp_path / "full.qrels"
    full.write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(12) for i in range(4)))
    part = tmp_path / "part.qrels"
    part.write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(12) for i in range(4) if (q + i) % 3))
    done = run(
        *runs,
        "--qrels",
        str(full),
        "--qrels",
        str(part),
        "--measure",
        "AP",
        "--format",
        "json",
        "--resamples",
        "200",
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    a = [r["a"] for r in data["runs"]]
    b = [r["b"] for r in data["runs"]]
    assert data["coefficients"][0]["value"] == pytest.approx(stats.kendalltau(a, b).statistic)
    assert data["n"] == 12


def test_correlate_table_names_the_coefficients(tmp_path: Path) -> None:
    runs = _write_runs(tmp_path)
    qrels = tmp_path / "full.qrels"
    qrels.write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(12) for i in range(4)))
    done = run(*runs, "--qrels", str(qrels), "--qrels", str(qrels), "--measure", "AP", "--resamples", "100")
    assert done.returncode == 0, done.stderr
    assert "Kendall's τ" in done.stdout and "τ_AP" in done.stdout and "Spearman's ρ" in done.stdout


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["runs/bm25.run", "--qrels", "qrels/stdlib.qrels"],
            2,
            "Error: correlate needs --qrels twice (the reference, then the one checked); got 1",
        ),
        (
            ["runs/bm25.run", "--qrels", "qrels/stdlib.qrels", "--qrels", "qrels/stdlib.qrels"],
            2,
            "Error: correlate needs at least 2 runs (found 1): a ranking of one is no ranking",
        ),
        (
            ["runs/bm25.run", "runs/bm25f.run", "--qrels", "qrels/stdlib.qrels", "--qrels", "nope.qrels"],
            1,
            None,
        ),
    ],
)
def test_correlate_refuses_bad_input_in_one_line(args: list[str], code: int, message: str | None) -> None:
    done = run(*args)
    assert done.returncode == code, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ")
    if message is not None:
        assert last == message
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("config", "measure"),
    [
        ('[workspace]\nprimary = "P@5"\n', "P@5"),  # the one evaluation setting score, compare and audit read
        ("", "nDCG@10"),  # none declared: compare's default
    ],
)
def test_the_measure_defaults_to_the_workspace_primary(tmp_path: Path, config: str, measure: str) -> None:
    runs = _write_runs(tmp_path)
    qrels = tmp_path / "full.qrels"
    qrels.write_text("".join(f"q{q} 0 d{i} 1\n" for q in range(12) for i in range(4)))
    (tmp_path / "toolkit.toml").write_text(config)
    done = invoke(*runs, "--qrels", str(qrels), "--qrels", str(qrels), "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["measure"] == measure
