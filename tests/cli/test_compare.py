"""``trec-toolkit compare`` on hand-built runs whose per-topic values are the reference examples S1–S5.

The runs in tests/data/stats/ (made by make_fixtures.py) put each topic's single relevant document at the
first-relevant rank the reference prescribes, so every expected number below comes from
/work/shared/reference/README.md, not from this program.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def compare_json(*args: str) -> dict:
    code, out, err = run("compare", *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def s1(*extra: str) -> dict:
    return compare_json(
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--measures",
        "RR@10 P@1",
        *extra,
    )


def test_s1_json_values():
    doc = s1()
    c = doc["comparisons"][0]
    assert (c["baseline"], c["candidate"], c["measure"]) == ("s1-a", "s1-b", "RR@10")
    assert c["n"] == 10 and c["n_nonzero"] == 6
    assert c["delta"] == pytest.approx(0.18)
    assert c["tests"]["randomization"] == {"pvalue": 0.1875, "exact": True, "resamples": None}
    assert c["tests"]["t"]["statistic"] == pytest.approx(1.532879, abs=1e-6)
    assert c["tests"]["t"]["df"] == 9
    assert c["tests"]["t"]["pvalue"] == pytest.approx(0.159671, abs=1e-6)
    assert c["ci95_t"] == pytest.approx([-0.085636, 0.445636], abs=1e-6)
    assert c["effect"]["d_z"] == pytest.approx(0.484739, abs=1e-6)
    w = c["tests"]["wilcoxon"]
    assert w["statistic"] == 3.5 and w["pvalue"] == pytest.approx(0.1875) and w["zero_method"] == "wilcox"
    assert w["method"] == "exact conditional"


def test_s1_buckets_through_the_cli():
    r = s1()["rank1"][0]
    assert r["topics"]["fixed"] == ["q02", "q06", "q09"]
    assert r["topics"]["degraded"] == ["q05"]
    assert r["topics"]["unchanged"] == ["q01", "q04", "q07", "q08"]
    assert r["topics"]["both_suboptimal"] == ["q03", "q10"]
    assert (r["fixed"], r["degraded"], r["unchanged"], r["both_suboptimal"], r["added"], r["removed"]) == (
        3,
        1,
        4,
        2,
        0,
        0,
    )
    assert r["mcnemar"]["pvalue"] == pytest.approx(0.625)  # exact binomial, 3 of 4


def test_json_contract_keys_in_order():
    doc = s1("--margin", "RR@10=0.05")
    assert list(doc)[:10] == [
        "schema_version",
        "seed",
        "alpha",
        "baseline",
        "runs",
        "primary",
        "comparisons",
        "rank1",
        "preferences",
        "by_class",
    ]
    assert list(doc)[10] == "versions" and doc["schema_version"] == 1
    assert list(doc["comparisons"][0]) == [
        "baseline",
        "candidate",
        "measure",
        "n",
        "n_nonzero",
        "mean_baseline",
        "mean_candidate",
        "delta",
        "ci95",
        "ci95_t",
        "tests",
        "p_adjusted",
        "effect",
        "mde80",
        "noninferiority",
    ]
    assert list(doc["rank1"][0])[:10] == [
        "baseline",
        "candidate",
        "fixed",
        "degraded",
        "unchanged",
        "both_suboptimal",
        "added",
        "removed",
        "mcnemar",
        "topics",
    ]
    assert doc["comparisons"][0]["noninferiority"]["margin"] == 0.05
    assert doc["comparisons"][1]["noninferiority"] is None
    assert "scipy" in doc["versions"] and doc["seed"] == 42 and doc["primary"] == "RR@10"


def test_holm_adjusts_over_the_family():
    from statsmodels.stats.multitest import multipletests

    doc = s1()
    raw = [c["tests"]["randomization"]["pvalue"] for c in doc["comparisons"]]
    assert [c["p_adjusted"] for c in doc["comparisons"]] == pytest.approx(
        list(multipletests(raw, method="holm")[1])
    )
    bh = s1("--correction", "bh")
    assert [c["p_adjusted"] for c in bh["comparisons"]] == pytest.approx(
        list(multipletests(raw, method="fdr_bh")[1])
    )


@pytest.mark.parametrize(
    "name, fixed, degraded, expected",
    [("s2-1", 9, 2, 67 / 1024), ("s2-2", 5, 1, 7 / 32), ("s2-3", 0, 0, 1.0)],
)
def test_s2_mcnemar_through_the_cli(name, fixed, degraded, expected):
    doc = compare_json(
        str(DATA / f"{name}-a.run"),
        str(DATA / f"{name}-b.run"),
        "--qrels",
        str(DATA / "s2.qrels"),
        "--measures",
        "P@1",
    )
    r = doc["rank1"][0]
    assert (r["fixed"], r["degraded"]) == (fixed, degraded)
    assert r["mcnemar"]["pvalue"] == pytest.approx(expected, abs=1e-12)


def test_s3_preferences_through_the_cli():
    doc = compare_json(
        str(DATA / "s3-a.run"),
        str(DATA / "s3-b.run"),
        "--qrels",
        str(DATA / "s3.qrels"),
        "--topics",
        str(DATA / "s3.toml"),
    )
    pref = {p["run"]: p for p in doc["preferences"]}["s3-b"]
    assert (pref["wins"], pref["losses"], pref["ties"]) == (13, 3, 4)
    assert pref["sign_test"]["pvalue"] == pytest.approx(697 / 32768, abs=1e-12)
    assert pref["sign_test"]["pvalue_greater"] == pytest.approx(0.0106354, abs=1e-7)
    assert pref["win_rate"] == 13 / 16
    assert pref["ci95"] == pytest.approx([0.543543, 0.959526], abs=1e-6)
    assert pref["topics"]["tie"] == ["d17", "d18", "d19", "d20"]
    assert doc["by_class"]["deprecation"]["n"] == 20


def test_s5_cannot_reach_alpha_text():
    code, out, _ = run(
        "compare",
        str(DATA / "s5-a.run"),
        str(DATA / "s5-b.run"),
        "--qrels",
        str(DATA / "s5.qrels"),
        "--measures",
        "P@1",
    )
    assert code == 0
    assert "cannot reach α = 0.05 with 5 non-zero pairs" in out
    assert "not significant" not in out
    assert (
        "Exact McNemar (Fixed 5 vs Degraded 0): p = 0.0625 — cannot reach α = 0.05 with 5 non-zero pairs"
        in out
    )


def test_text_report_lines():
    code, out, _ = run(
        "compare",
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--measures",
        "RR@10",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Audit: s1-b vs s1-a"
    assert "- Measures: RR@10; primary measure: RR@10" in lines  # Markdown's **bold** is dropped in text
    assert "Fixed                 3  q02 q06 q09" in lines
    assert "\x1b[" not in out  # no colour off a terminal


@pytest.mark.parametrize("fmt", ["table", "md", "json"])
def test_same_inputs_same_bytes(fmt, tmp_path):
    args = [
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--format",
        fmt,
    ]
    first = run("compare", *args)[1]
    second = run("compare", *args)[1]
    assert first == second and first


def test_md_to_a_file_writes_plots_beside_it(tmp_path):
    out = tmp_path / "report.md"
    code, _, err = run(
        "compare",
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--format",
        "md",
        "-o",
        str(out),
    )
    assert code == 0, err
    text = out.read_text()
    assert "## Rank-1 buckets" in text and "![" in text
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["report-ci-forest.png", "report-delta-s1-b-rr-10.png", "report-first-relevant-rank.png"]
    assert all((tmp_path / p).read_bytes().startswith(b"\x89PNG") for p in pngs)


def test_html_embeds_plots():
    code, out, _ = run(
        "compare",
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--format",
        "html",
        "--measures",
        "RR@10",
    )
    assert code == 0
    assert out.startswith("<!DOCTYPE html>") and out.count("data:image/png;base64,") == 3


def test_three_runs_get_all_pairs():
    doc = compare_json(
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        str(DATA / "s5-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--measures",
        "RR@10",
    )
    assert doc["runs"] == ["s1-a", "s1-b", "s5-b"]
    assert len(doc["comparisons"]) == 2 and len(doc["rank1"]) == 2
    pairs = doc["all_pairs"][0]["pairs"]
    assert [(p["a"], p["b"]) for p in pairs] == [("s1-a", "s1-b"), ("s1-a", "s5-b"), ("s1-b", "s5-b")]


def test_fail_on_regression_exits_3():
    code, _, err = run(
        "compare",
        str(DATA / "s3-b.run"),
        str(DATA / "s3-a.run"),
        "--qrels",
        str(DATA / "s3.qrels"),
        "--measures",
        "P@1",
        "--fail-on",
        "regression",
    )
    assert code == 3
    assert err.strip() == "Error: significant regression on the primary measure: s3-a (P@1 -0.6500)"


@pytest.mark.parametrize(
    "args, message",
    [
        (["ONE"], "Error: compare needs at least two runs: the baseline first, then the candidate(s)"),
        (
            ["A", "B", "--margin", "nDCG@10"],
            "Error: --margin 'nDCG@10': expected MEASURE=NUMBER with NUMBER >= 0, e.g. nDCG@10=0.02",
        ),
        (
            ["A", "B", "--margin", "nDCG@10=-1"],
            "Error: --margin 'nDCG@10=-1': expected MEASURE=NUMBER with NUMBER >= 0, e.g. nDCG@10=0.02",
        ),
        (["A", "A"], "Error: run names must be distinct, got s1-a, s1-a; rename a file or pass it once"),
        (["A", "B", "--alpha", "2"], "Error: --alpha must be between 0 and 1, got 2.0"),
    ],
)
def test_usage_errors(args, message):
    files = {"A": str(DATA / "s1-a.run"), "B": str(DATA / "s1-b.run"), "ONE": str(DATA / "s1-a.run")}
    code, _, err = run("compare", *[files.get(a, a) for a in args], "--qrels", str(DATA / "s1.qrels"))
    assert code == 2
    assert err.strip() == message


def test_bad_run_file_names_path_and_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("q01 Q0 doc 1\n")
    code, _, err = run("compare", str(DATA / "s1-a.run"), str(bad), "--qrels", str(DATA / "s1.qrels"))
    assert code == 1
    assert err.startswith(f"Error: {bad}:1: ")
