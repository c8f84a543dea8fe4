"""plan on the example: topics needed for Δ = 0.05 in RR@10 (α 0.05, power 0.8), held to the audit's MDE on the
same data (the comparison the audit makes), through the library and through the installed command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from toolkit.formats import read_qrels, read_run, read_topics
from toolkit.pipeline.plan import plan_from_audit, plan_from_runs
from toolkit.stats.comparison import compare_runs

REPO = Path(__file__).resolve().parents[2]
CLI = Path(sys.executable).with_name("trec-toolkit")


@pytest.fixture(scope="module")
def example() -> tuple:
    runs = [read_run(REPO / "runs" / "bm25.run"), read_run(REPO / "runs" / "bm25f.run")]
    return runs, read_qrels(REPO / "qrels" / "stdlib.qrels"), read_topics(REPO / "topics" / "stdlib.toml")


def test_plan_and_the_audit_mde_agree_on_the_example(example: tuple) -> None:
    runs, qrels, topics = example
    comparison = compare_runs(runs, qrels, topics=topics, measures=["RR@10"], primary="RR@10", seed=42)
    (confirmatory,) = [c for c in comparison.comparisons if str(c.measure) == "RR@10"]
    mde = confirmatory.mde80
    plan = plan_from_runs(runs, qrels, measure="RR@10", delta=0.05, alpha=0.05, power=0.8, topics=topics)
    assert plan.pilot_topics == confirmatory.n == 61
    # σ̂_d: the sample sd of the per-topic differences, computed here from the comparison's own diffs
    assert plan.used.sd == pytest.approx(np.std(confirmatory.diffs, ddof=1), rel=1e-12)
    # the Δ detectable with the pilot's topics is the audit's MDE …
    assert plan.detectable.delta == pytest.approx(mde.value, rel=1e-12)
    assert mde.alpha == plan.test_alpha
    # … and the topics needed to detect the MDE are the pilot's topics
    again = plan_from_runs(runs, qrels, measure="RR@10", delta=mde.value, topics=topics)
    assert again.needed is not None and again.needed.topics == 61
    # Δ = 0.05 is below the MDE, so it needs more topics; scipy's non-central t says n is the smallest
    needed = plan.needed
    assert needed is not None and needed.topics > 61
    sd = plan.used.sd

    def power(n: int) -> float:
        t = stats.t.ppf(0.975, n - 1)
        nc = np.sqrt(n) * 0.05 / sd
        return float(stats.nct.sf(t, n - 1, nc) + stats.nct.cdf(-t, n - 1, nc))

    assert power(needed.topics) >= 0.8 > power(needed.topics - 1)


def test_plan_from_the_audit_json_agrees_with_plan_from_runs(example: tuple, tmp_path: Path) -> None:
    out = tmp_path / "cmp.json"
    done = subprocess.run(
        [
            str(CLI),
            "compare",
            "runs/bm25.run",
            "runs/bm25f.run",
            "--qrels",
            "qrels/stdlib.qrels",
            "--topics",
            "topics/stdlib.toml",
            "--primary",
            "RR@10",
            "--format",
            "json",
            "-o",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    (mde,) = [c["mde80"]["value"] for c in data["comparisons"] if c["measure"] == "RR@10"]
    from_audit = plan_from_audit(out, delta=0.05)
    runs, qrels, topics = example
    from_runs = plan_from_runs(runs, qrels, measure="RR@10", delta=0.05, topics=topics)
    assert from_audit.detectable.delta == pytest.approx(mde, rel=1e-9)
    assert from_audit.needed is not None and from_runs.needed is not None
    assert from_audit.needed.topics == from_runs.needed.topics
    assert from_audit.used.sd == pytest.approx(from_runs.used.sd, rel=1e-9)


def test_the_plan_command_prints_topics_and_exits_0() -> None:
    done = subprocess.run(
        [
            str(CLI),
            "plan",
            "runs/bm25.run",
            "runs/bm25f.run",
            "--qrels",
            "qrels/stdlib.qrels",
            "--topics",
            "topics/stdlib.toml",
            "--measure",
            "RR@10",
            "--delta",
            "0.05",
            "--format",
            "json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["measure"] == "RR@10"
    assert data["needed"]["topics"] > 61
    strategies = {j["strategy"]: j for j in data["judging"]}
    assert set(strategies) == {"depth-20", "maxmean"}
    # MaxMean never needs more judgments than the depth-20 pool it searches
    assert strategies["maxmean"]["per_topic"] <= strategies["depth-20"]["per_topic"]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["plan", "runs/bm25.run"],
            2,
            "Error: plan needs a pilot: two or more RUNS with --qrels, or --audit AUDIT.json",
        ),
        (
            ["plan", "--audit", "toolkit.toml"],
            1,
            "Error: toolkit.toml:1: not JSON (Expecting value); pass the .json an audit or compare wrote",
        ),
        (
            ["plan", "runs/bm25.run", "runs/bm25f.run", "--qrels", "qrels/stdlib.qrels", "--delta", "-1"],
            2,
            "Error: --delta must be positive, got -1.0",
        ),
    ],
)
def test_plan_refuses_bad_input_in_one_line(args: list[str], code: int, message: str) -> None:
    done = subprocess.run([str(CLI), *args], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == code
    assert done.stderr.strip().splitlines()[-1] == message
    assert "Traceback" not in done.stderr
