"""``trec-toolkit compare`` imports what its work needs and nothing else.

People run ``compare`` per pull request, per checkpoint, in CI loops: at small sizes the process's imports are
most of its time. The statistics need numpy, scipy.stats and statsmodels (the post hoc MDE, Holm across a
family of several measures); a table or JSON report needs no plotting library, no campaign store and no
agreement statistics. The values checked come from /work/shared/reference/README.md (example S1).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers.imports import console_script_imports

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"

#: What a table or JSON comparison must not load: the HTML's plots and per-topic view (matplotlib, PIL, the
#: rankings kept for the view, which read titles from a campaign's store), the judging and agreement rooms,
#: the system runners, the TUI and the libraries only other commands use.
UNNEEDED_BY_COMPARE = (
    "matplotlib",
    "PIL",
    "toolkit.judging",
    "toolkit.agreement",
    "toolkit.pooling",
    "toolkit.systems",
    "toolkit.tui",
    "toolkit.stats.rankings",
    "toolkit.reports.topic_view",
    "textual",
    "rich",
    "sklearn",
    "krippendorff",
    "psycopg",
    "sqlite3",
)


def _imported(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The installed console script under ``python -X importtime``: its result and every module loaded."""
    proc, modules = console_script_imports(*args, cwd=cwd)
    assert "toolkit.stats.comparison" in modules  # the probe saw the command at work
    return proc, modules


def s1(measures: str, fmt: str) -> list[str]:
    """``compare`` of the reference example S1's two runs, primary RR@10."""
    return [
        "compare",
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--measures",
        measures,
        "--primary",
        "RR@10",
        "--format",
        fmt,
    ]


def _unneeded(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in UNNEEDED_BY_COMPARE))


@pytest.mark.parametrize("fmt", ["json", "table"])
def test_compare_of_two_small_runs_imports_only_what_it_needs(tmp_path: Path, fmt: str) -> None:
    """S1: two runs, ten topics, RR@10 and P@1; the exact randomization p is the reference's 0.1875."""
    args = s1("RR@10 P@1", fmt)
    proc, modules = _imported(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    if fmt == "json":
        assert json.loads(proc.stdout)["comparisons"][0]["pvalue"] == 0.1875
    else:
        assert "p = 0.1875" in proc.stdout
    assert _unneeded(modules) == []


def test_one_candidate_and_one_measure_need_no_multiple_testing_correction(tmp_path: Path) -> None:
    """A family of one p-value is its own adjusted p: the correction's library is not loaded for it."""
    args = s1("RR@10", "json")
    proc, modules = _imported(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    comparison = json.loads(proc.stdout)["comparisons"][0]
    assert comparison["pvalue"] == 0.1875
    assert "statsmodels.stats.multitest" not in modules
