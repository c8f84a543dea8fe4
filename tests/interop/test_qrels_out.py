"""The toolkit's qrels — regex truth (``truth``) and campaign exports (``export``) — read by ranx and ir_measures.

Regex truth writes only matches, so a topic whose patterns match nothing has no qrels line at all. The toolkit
under ``--topics`` still counts it (as 0); tools that know only the qrels drop it and average over fewer topics.
``truth --zeros`` writes grade 0 for the covered docs that match nothing, which puts every topic in the qrels
and makes the tools' means equal the toolkit's. Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import ir_measures
import pytest
from click.testing import CliRunner
from helpers.lazy import ranx  # loaded on first use, by the ranx group's worker (tests/conftest.py)

from toolkit.cli import main
from toolkit.formats import read_qrels

TOPICS = """\
[[topic]]
id = "a"
query = "alpha"
truth = ['^doc:alpha$']

[[topic]]
id = "b"
query = "beta"
truth = ['^doc:beta$']

[[topic]]
id = "c"
query = "gamma"
truth = ['^doc:gamma$']
"""

# a: alpha at rank 2 → RR 1/2; b: beta at rank 1 → RR 1; c: gamma is in no run → RR 0.
RUN = """\
a Q0 doc:x 1 3.0 bm25
a Q0 doc:alpha 2 2.0 bm25
b Q0 doc:beta 1 5.0 bm25
b Q0 doc:y 2 1.0 bm25
c Q0 doc:x 1 1.0 bm25
c Q0 doc:y 2 0.5 bm25
"""


def cli(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def ranx_rr(qrels: Path, run: Path) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(
            ranx.evaluate(
                ranx.Qrels.from_file(str(qrels), kind="trec"),
                ranx.Run.from_file(str(run), kind="trec"),
                "mrr@10",
                make_comparable=True,
            )
        )


def ir_measures_rr(qrels: Path, run: Path) -> float:
    measure = ir_measures.parse_measure("RR@10")
    values = ir_measures.calc_aggregate(
        [measure], ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run))
    )
    return float(values[measure])


def test_regex_truth_needs_zeros_to_match_topics_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("t.toml").write_text(TOPICS)
    Path("bm25.run").write_text(RUN)
    cli("truth", "--topics", "t.toml", "--runs", "bm25.run", "--runs-only", "-o", "matches.qrels")
    cli("truth", "--topics", "t.toml", "--runs", "bm25.run", "--runs-only", "--zeros", "-o", "zeros.qrels")
    assert set(read_qrels("matches.qrels").judgments) == {"a", "b"}
    assert read_qrels("zeros.qrels").judgments["c"] == {"doc:alpha": 0, "doc:beta": 0, "doc:x": 0, "doc:y": 0}

    scores = json.loads(
        cli(
            "score",
            "bm25.run",
            "--qrels",
            "matches.qrels",
            "--topics",
            "t.toml",
            "--measures",
            "RR@10",
            "--format",
            "json",
        )
    )
    assert scores["runs"][0]["aggregate"]["RR@10"] == pytest.approx(0.5)  # (1/2 + 1 + 0) / 3
    # without --zeros the other tools see two topics: (1/2 + 1) / 2
    assert ranx_rr(Path("matches.qrels"), Path("bm25.run")) == pytest.approx(0.75)
    assert ir_measures_rr(Path("matches.qrels"), Path("bm25.run")) == pytest.approx(0.75)
    # with --zeros they see all three and agree with the toolkit's --topics score
    assert ranx_rr(Path("zeros.qrels"), Path("bm25.run")) == pytest.approx(0.5)
    assert ir_measures_rr(Path("zeros.qrels"), Path("bm25.run")) == pytest.approx(0.5)


def test_exported_campaign_qrels_are_read_by_ranx_and_ir_measures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("t.tsv").write_text("a\talpha\nb\tbeta\n")
    Path("docs.tsv").write_text("".join(f"{d}\ttext of {d}\n" for d in ("d1", "d2", "d3", "d4")))
    Path("one.run").write_text("a Q0 d1 1 2.0 one\na Q0 d2 2 1.0 one\nb Q0 d3 1 2.0 one\nb Q0 d4 2 1.0 one\n")
    Path("two.run").write_text("a Q0 d2 1 2.0 two\na Q0 d1 2 1.0 two\nb Q0 d4 1 2.0 two\nb Q0 d3 2 1.0 two\n")
    cli(
        "pool",
        "one.run",
        "two.run",
        "--topics",
        "t.tsv",
        "--docs",
        "docs.tsv",
        "--depth",
        "2",
        "-o",
        "c.sqlite",
    )
    cli("assign", "c.sqlite", "--assessors", "alice,bob", "--overlap", "all")
    # grades by hand; the max policy keeps the higher of the two; d4 is left unjudged
    Path("j.tsv").write_text(
        "alice\ta\td1\t0\nbob\ta\td1\t1\nalice\ta\td2\t3\nbob\ta\td2\t2\nalice\tb\td3\t0\nbob\tb\td3\t0\n"
    )
    cli("judgments", "import", "c.sqlite", "j.tsv")
    cli("export", "c.sqlite", "--policy", "max", "-o", "human.qrels")
    cli("export", "c.sqlite", "--policy", "max", "--unjudged", "-1", "-o", "human-1.qrels")
    assert read_qrels("human.qrels").judgments == {"a": {"d1": 1, "d2": 3}, "b": {"d3": 0}}
    assert read_qrels("human-1.qrels").judgments == {"a": {"d1": 1, "d2": 3}, "b": {"d3": 0, "d4": -1}}

    # RR@10 by hand: run one — a: d1 (grade 1) at rank 1 → 1; b: nothing relevant → 0; mean 1/2.
    # run two — a: d2 (grade 3) at rank 1 → 1; b → 0; mean 1/2. -1 is not relevant to any tool.
    for qrels in ("human.qrels", "human-1.qrels"):
        for run in ("one.run", "two.run"):
            ours = json.loads(cli("score", run, "--qrels", qrels, "--measures", "RR@10", "--format", "json"))
            assert ours["runs"][0]["aggregate"]["RR@10"] == pytest.approx(0.5)
            assert ranx_rr(Path(qrels), Path(run)) == pytest.approx(0.5)
            assert ir_measures_rr(Path(qrels), Path(run)) == pytest.approx(0.5)
