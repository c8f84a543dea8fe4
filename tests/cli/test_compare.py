"""``trec-toolkit compare`` on hand-built runs whose per-topic values are the reference examples S1–S5.

The runs in tests/data/stats/ (made by make_fixtures.py) put each topic's single relevant document at the
first-relevant rank the reference prescribes, so every expected number below comes from
/work/shared/reference/README.md, not from this program.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
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
        "--primary",
        "RR@10",
        *extra,
    )


def test_s1_json_values():
    doc = s1()
    c = doc["comparisons"][0]
    assert (c["baseline"], c["candidate"], c["measure"], c["family"]) == (
        "s1-a",
        "s1-b",
        "RR@10",
        "confirmatory",
    )
    assert c["n"] == 10 and c["n_nonzero"] == 6
    assert c["delta"] == pytest.approx(0.18)
    rand = c["tests"]["randomization"]
    assert (rand["pvalue"], rand["exact"], rand["resamples"]) == (0.1875, True, None)
    assert c["test"] == "randomization" and c["pvalue"] == 0.1875
    assert c["tests"]["t"]["statistic"] == pytest.approx(1.532879, abs=1e-6)
    assert c["tests"]["t"]["df"] == 9
    assert c["tests"]["t"]["pvalue"] == pytest.approx(0.159671, abs=1e-6)
    # the headline interval is the studentized bootstrap's, withheld below 30 topics (docs/statistics.md, "Intervals");
    # the paired t interval is kept beside it, labelled and unadjusted
    assert (c["ci95"]["method"], c["ci95"]["adjusted"], c["ci95"]["low"]) == (
        "studentized bootstrap",
        False,
        None,
    )
    assert c["ci95"]["reason"] == (
        "an interval that holds under skewed per-topic differences needs at least 30 topics (found 10)"
    )
    assert (c["ci95_t"]["method"], c["ci95_t"]["adjusted"]) == ("t", False)
    assert [c["ci95_t"]["low"], c["ci95_t"]["high"]] == pytest.approx([-0.085636, 0.445636], abs=1e-6)
    assert c["effect"]["d_z"] == pytest.approx(0.484739, abs=1e-6)
    w = c["tests"]["wilcoxon"]
    assert w["statistic"] == 3.5 and w["pvalue"] == pytest.approx(0.1875) and w["zero_method"] == "wilcox"
    assert w["method"] == "exact conditional"
    assert c["mde80"]["post_hoc"] is True and c["mde80"]["alpha"] == 0.05


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
    assert list(doc) == [
        "schema_version",
        "seed",
        "alpha",
        "baseline",
        "runs",
        "primary",
        "primary_declared",
        "test",
        "correction",
        "confirmatory",
        "verdicts",
        "comparisons",
        "rank1",
        "preferences",
        "by_class",
        "all_pairs",
        "judged",
        "judged_qrels",
        "failed_topics",
        "allow_failed",
        "refusal",  # added later (a key added: same schema_version)
        "versions",
        "setup",
    ]
    assert doc["schema_version"] == 3
    assert list(doc["comparisons"][0]) == [
        "baseline",
        "candidate",
        "measure",
        "family",
        "n",
        "n_nonzero",
        "mean_baseline",
        "mean_candidate",
        "delta",
        "ci95",
        "ci95_t",
        "test",
        "pvalue",
        "pvalue_reason",
        "p_adjusted",
        "p_adjusted_reason",
        "adjustment",
        "verdict",
        "tests",
        "effect",
        "mde80",
        "noninferiority",
        "noninferiority_reason",
        "notes",
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
    assert doc["confirmatory"] == {
        "measure": "RR@10",
        "test": "randomization",
        "adjustment": "holm",
        "order": ["s1-b"],
        "alpha": 0.05,
        "m": 1,
    }
    assert doc["verdicts"] == [
        {
            "candidate": "s1-b",
            "measure": "RR@10",
            "verdict": "no significant difference",
            "comparable": True,
            "failed": {},
            "warnings": [],
        }
    ]


def test_secondary_measures_are_their_own_adjusted_family():
    from statsmodels.stats.multitest import multipletests

    doc = s1("--measures", "RR@10 P@1 P@5 AP")
    first, *rest = doc["comparisons"]
    assert first["family"] == "confirmatory" and first["p_adjusted"] == first["pvalue"]  # one candidate
    assert [c["family"] for c in rest] == ["secondary"] * 3
    raw = [c["pvalue"] for c in rest]
    assert [c["p_adjusted"] for c in rest] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    bh = s1("--measures", "RR@10 P@1 P@5 AP", "--correction", "bh")["comparisons"][1:]
    assert [c["p_adjusted"] for c in bh] == pytest.approx(list(multipletests(raw, method="fdr_bh")[1]))


def test_default_primary_is_ndcg_at_10_and_is_added_when_not_measured():
    doc = compare_json(
        str(DATA / "s1-a.run"),
        str(DATA / "s1-b.run"),
        "--qrels",
        str(DATA / "s1.qrels"),
        "--measures",
        "RR@10",
    )
    assert doc["primary"] == "nDCG@10" and doc["primary_declared"] is False
    assert [c["measure"] for c in doc["comparisons"]] == ["nDCG@10", "RR@10"]


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
        "--primary",
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
        "--primary",
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
        "--primary",
        "RR@10",
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == ["Audit: s1-b vs s1-a", "", "Verdict"]
    # the first screen: the verdict in words (S1: delta 0.18 and exact p = 3/16 from the reference; 10 topics
    # are too few for an interval that holds under skew; the MDE is statsmodels' effect times sd(Δ))
    from statsmodels.stats.power import TTestPower

    sd = np.std([0, 0.5, 0.5, 0, -0.5, 0.75, 0, 0, 0.5, 0.05], ddof=1)
    mde = TTestPower().solve_power(nobs=10, alpha=0.05, power=0.8) * sd
    assert lines[5] == (
        "s1-b vs s1-a: no significant difference. RR@10 0.4783 → 0.6583, Δ +0.1800, 95% CI – (an interval that "
        "holds under skewed per-topic differences needs at least 30 topics (found 10)) (studentized bootstrap, "
        "unadjusted), p = 0.1875 (randomization, exact), one candidate: no adjustment. This is not a claim of "
        f"equivalence: the smallest Δ this comparison could detect with 80% power is {mde:.4f} (post hoc MDE) "
        "against the observed +0.1800: an effect of that size could not have been detected reliably; declare --margin for a "
        "non-inferiority test. Rank 1 (top 10): Fixed 3, Degraded 1 (exact McNemar p = 0.6250)."
    )
    assert lines[7:10] == ["Aggregate", "measure            s1-a    s1-b", "RR@10 (primary)  0.4783  0.6583"]
    assert "- Measures: RR@10; primary measure: RR@10" in lines  # Markdown's **bold** is dropped in text
    assert "Fixed                 3" in lines and "- Fixed (3): q02 q06 q09" in lines
    assert "\x1b[" not in out  # no colour off a terminal


def test_the_terminal_view_fits_a_normal_terminal():
    """``--format table`` lays out the audit for a terminal: every table line of the S3 report (3 classes,
    preferences, margins) within 120 columns; only paragraphs and id lists are longer (the terminal wraps them)."""
    code, out, _ = run(
        "compare",
        str(DATA / "s3-a.run"),
        str(DATA / "s3-b.run"),
        "--qrels",
        str(DATA / "s3.qrels"),
        "--topics",
        str(DATA / "s3.toml"),
        "--margin",
        "P@1=0.1",
    )
    assert code == 0
    blocks = out.split("\n\n")
    tables = [b for b in blocks if "  " in b.splitlines()[-1] and not b.startswith("- ")]
    assert (
        tables
        and max(len(line) for b in tables for line in b.splitlines() if not line.startswith("- ")) <= 120
    )


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
    assert pngs == ["report-ci-forest.png", "report-delta-s1-b-ndcg-10.png", "report-first-relevant-rank.png"]
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
    assert len(doc["comparisons"]) == 4 and len(doc["rank1"]) == 2  # nDCG@10 (default primary) and RR@10
    rr = doc["all_pairs"][1]
    assert rr["measure"] == "RR@10" and rr["family"] == "exploratory" and rr["adjustment"] == "holm"
    pairs = rr["pairs"]
    assert [(p["a"], p["b"]) for p in pairs] == [("s1-a", "s1-b"), ("s1-a", "s5-b"), ("s1-b", "s5-b")]
    # a pair with the baseline is the battery's own test; the adjusted p is Holm over the three pairs
    from statsmodels.stats.multitest import multipletests

    assert pairs[0]["pvalue"] == doc["comparisons"][1]["pvalue"] == 0.1875
    raw = [p["pvalue"] for p in pairs]
    assert [p["p_adjusted"] for p in pairs] == pytest.approx(list(multipletests(raw, method="holm")[1]))


def test_fail_on_regression_exits_3_and_names_its_criterion():
    args = [str(DATA / "s3-b.run"), str(DATA / "s3-a.run"), "--qrels", str(DATA / "s3.qrels")]
    args += ["--measures", "P@1", "--primary", "P@1", "--fail-on", "regression"]
    code, _, err = run("compare", *args)
    assert code == 3
    # S3: P@1 0.65 → 0 on 13 of 20 topics; exact randomization p = 2/2^13
    assert err.strip() == (
        "Error: --fail-on regression failed: s3-a (P@1 -0.6500, p adj. 0.0002441). Criterion: the "
        "confirmatory randomization test of P@1 (holm over 1 candidate(s), α = 0.05): a candidate fails when "
        "it is significantly worse, or significant with its test's direction and the mean's disagreeing; passing "
        "is not evidence of no regression (declare --margin for that)"
    )


def test_fail_on_regression_with_a_margin_uses_non_inferiority():
    args = [str(DATA / "s1-a.run"), str(DATA / "s1-b.run"), "--qrels", str(DATA / "s1.qrels")]
    args += ["--measures", "RR@10", "--primary", "RR@10", "--fail-on", "regression"]
    # S1 has 10 topics: too few for a non-inferiority claim that holds under skew, so the check fails, saying why
    code, _, err = run("compare", *args, "--margin", "RR@10=0.05")
    assert code == 3 and "regression not ruled out" not in err
    assert (
        "s1-b (RR@10 +0.1800: a non-inferiority claim that holds under skewed per-topic differences needs at "
        "least 30 topics (found 10))" in err
    )
    assert "Criterion: non-inferiority of RR@10 with margin 0.05" in err


def test_fail_on_regression_passes_when_non_inferiority_holds():
    """The example workspace (61 topics): the claim is made iff the one-sided bound is above −margin."""
    root = Path(__file__).resolve().parents[2]
    args = [
        str(root / "runs/bm25.run"),
        str(root / "runs/bm25f.run"),
        "--qrels",
        str(root / "qrels/stdlib.qrels"),
    ]
    args += ["--topics", str(root / "topics/stdlib.toml"), "--measures", "RR@10", "--primary", "RR@10"]
    for margin, passes in (("0.05", True), ("0.001", False)):
        code, out, err = run("compare", *args, "--margin", f"RR@10={margin}", "--fail-on", "regression")
        assert code == (0 if passes else 3), err
        ni = compare_json(*args, "--margin", f"RR@10={margin}")["comparisons"][0]["noninferiority"]
        assert ni["method"] == "studentized bootstrap" and ni["holds"] is passes
        assert (ni["ci_lower"] > -float(margin)) is passes and (ni["pvalue"] < 0.05) is passes


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


# --- Regression tests for faults found on realistic data, each through the CLI ---------------


def write_ranked(path: Path, tag: str, ranks: dict[str, int | None], *, depth: int = 10) -> Path:
    """One relevant doc ``<qid>-rel`` per topic at the given rank (None: not retrieved) among ``depth`` docs."""
    lines = []
    for qid, rank in ranks.items():
        n = max(depth, rank or 0)
        docs = [f"{qid}-d{j}" for j in range(1, n + 1)]
        if rank is not None:
            docs[rank - 1] = f"{qid}-rel"
        lines += [f"{qid} Q0 {doc} {i} {n + 1 - i} {tag}" for i, doc in enumerate(docs, start=1)]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_rel_qrels(path: Path, qids, *, judged_nonrel: dict[str, list[str]] | None = None) -> Path:
    lines = [f"{q} 0 {q}-rel 1" for q in qids]
    for q, docs in (judged_nonrel or {}).items():
        lines += [f"{q} 0 {d} 0" for d in docs]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_more_than_1024_differing_pairs_do_not_overflow(tmp_path: Path) -> None:
    """2**1100 used to be turned into a float (OverflowError in counts.min_pvalue)."""
    ids = [f"t{i:04d}" for i in range(1200)]
    # baseline at rank 2 everywhere; the candidate fixes 700 topics (rank 1) and degrades 450 (rank 3)
    a = dict.fromkeys(ids, 2)
    b = {q: 1 if i < 700 else 3 if i < 1150 else 2 for i, q in enumerate(ids)}
    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    doc = compare_json(
        str(write_ranked(tmp_path / "a.run", "a", a)),
        str(write_ranked(tmp_path / "b.run", "b", b)),
        "--qrels",
        str(qrels),
        "--measures",
        "RR@10 P@1",
        "--primary",
        "RR@10",
    )
    from scipy.stats import binomtest

    c = doc["comparisons"][0]
    assert c["n"] == 1200 and c["n_nonzero"] == 1150
    r = doc["rank1"][0]
    assert (r["fixed"], r["degraded"]) == (700, 0)  # rank 3 is not rank 1: 2 → 3 is both-suboptimal
    p1 = doc["comparisons"][1]  # P@1: +1 on 700 topics, 0 elsewhere
    assert p1["measure"] == "P@1" and p1["n_nonzero"] == 700
    assert r["mcnemar"]["pvalue"] == binomtest(700, 700, 0.5).pvalue  # 2 · 2^-700, no overflow


def test_rr_at_large_k_falls_back_to_monte_carlo_and_says_so(tmp_path: Path) -> None:
    """lcm(1..100) does not fit an int64: the exact grid used to crash (ValueError / OverflowError)."""
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(12)
    ids = [f"t{i:02d}" for i in range(40)]
    ra = {q: int(r) for q, r in zip(ids, rng.integers(1, 101, len(ids)), strict=True)}
    rb = {q: int(r) for q, r in zip(ids, rng.integers(1, 61, len(ids)), strict=True)}
    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    args = [str(write_ranked(tmp_path / "a.run", "a", ra)), str(write_ranked(tmp_path / "b.run", "b", rb))]
    doc = compare_json(*args, "--qrels", str(qrels), "--measures", "RR@100", "--primary", "RR@100")
    rand = doc["comparisons"][0]["tests"]["randomization"]
    assert rand["exact"] is False and rand["resamples"] == 100_000
    assert rand["method"].startswith("Monte Carlo")
    d = np.array([1 / rb[q] - 1 / ra[q] for q in ids])
    ref = stats.permutation_test(
        (d,),
        np.mean,
        permutation_type="samples",
        n_resamples=100_000,
        alternative="two-sided",
        random_state=1,
    )
    assert abs(rand["pvalue"] - ref.pvalue) < 0.01  # two independent Monte Carlo estimates
    code, out, _ = run("compare", *args, "--qrels", str(qrels), "--measures", "RR@100", "--primary", "RR@100")
    assert code == 0 and "Monte Carlo" in out


@pytest.mark.slow
def test_three_thousand_topics_with_rr_at_1000(tmp_path: Path) -> None:
    """Compare succeeds on 3,000-topic runs with RR@1000 among the measures."""
    import random

    rng = random.Random(5)
    ids = [f"q{i:04d}" for i in range(3000)]

    def rank() -> int | None:
        x = rng.random()
        return (
            None
            if x < 0.1
            else rng.randint(1, 1000)
            if x < 0.15
            else min(1000, int(rng.expovariate(0.3)) + 1)
        )

    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    a = write_ranked(tmp_path / "a.run", "a", {q: rank() for q in ids}, depth=3)
    b = write_ranked(tmp_path / "b.run", "b", {q: rank() for q in ids}, depth=3)
    doc = compare_json(str(a), str(b), "--qrels", str(qrels), "--measures", "RR@10 RR@1000 P@1")
    by = {c["measure"]: c for c in doc["comparisons"]}
    assert set(by) == {"nDCG@10", "RR@10", "RR@1000", "P@1"} and by["RR@1000"]["n"] == 3000
    assert all(0 < c["pvalue"] <= 1 for c in by.values())


def test_exact_enumeration_counts_rational_ties_exactly(tmp_path: Path) -> None:
    """The example of docs/statistics.md: RR (1/2, 1/5, 1/6, 0) vs (1/3, 1/10, 0, 1/3). Differences −1/6, −1/10, −1/6, +1/3:
    every one of the 16 sign vectors has |sum| ≥ 1/10 (the smallest is 1/3 − 1/6 − 1/6 ± 1/10), so p = 1.
    The 1e-9 grid used to miscount the ties and say 0.875."""
    from fractions import Fraction
    from itertools import product

    ids = ["t1", "t2", "t3", "t4"]
    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    a = write_ranked(tmp_path / "a.run", "a", dict(zip(ids, [2, 5, 6, None], strict=True)))
    b = write_ranked(tmp_path / "b.run", "b", dict(zip(ids, [3, 10, None, 3], strict=True)))
    d = [Fraction(-1, 6), Fraction(-1, 10), Fraction(-1, 6), Fraction(1, 3)]
    brute = Fraction(
        sum(
            abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= abs(sum(d))
            for signs in product((1, -1), repeat=4)
        ),
        16,
    )
    assert brute == 1
    doc = compare_json(str(a), str(b), "--qrels", str(qrels), "--measures", "RR@10", "--primary", "RR@10")
    rand = doc["comparisons"][0]["tests"]["randomization"]
    assert rand["pvalue"] == float(brute) and rand["exact"] is True


def test_noninferiority_without_spread_is_null_with_a_reason(tmp_path: Path) -> None:
    """Every difference equal (sd = 0): no t statistic, no interval — it used to say p = 0 and "holds"."""
    ids = [f"t{i:02d}" for i in range(12)]
    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    a = write_ranked(tmp_path / "a.run", "a", dict.fromkeys(ids, 2))
    b = write_ranked(tmp_path / "b.run", "b", dict.fromkeys(ids, 1))
    args = [str(a), str(b), "--qrels", str(qrels), "--measures", "RR@10", "--primary", "RR@10"]
    ni = compare_json(*args, "--margin", "RR@10=0.05")["comparisons"][0]["noninferiority"]
    assert ni["pvalue"] is None and ni["holds"] is None and ni["ci_lower"] is None
    assert ni["reason"] == "every per-topic difference is the same (sd = 0): no standard error to test by"
    code, out, _ = run("compare", *args, "--margin", "RR@10=0.05")
    assert code == 0 and "no regression larger than 0.05" not in out
    assert "every per-topic difference is the same (sd = 0)" in out


def test_compare_reports_judged_at_k_per_run_with_a_warning(tmp_path: Path) -> None:
    """Pooled human qrels (judged non-relevant docs present) that judged only part of each run's top 10."""
    ids = [f"t{i:02d}" for i in range(12)]
    # judged: the relevant doc and d1..d4 of every topic; the baseline puts rel at 2, the candidate at 1
    qrels = write_rel_qrels(
        tmp_path / "q.qrels", ids, judged_nonrel={q: [f"{q}-d{j}" for j in range(1, 5)] for q in ids}
    )
    a = write_ranked(tmp_path / "a.run", "a", dict.fromkeys(ids, 2))
    b = write_ranked(tmp_path / "b.run", "b", dict.fromkeys(ids, 1))
    args = [str(a), str(b), "--qrels", str(qrels), "--measures", "RR@10"]
    result = CliRunner().invoke(main, ["compare", *args, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    judged = {j["run"]: j for j in json.loads(result.stdout)["judged"]}
    # a: top 10 = d1, rel, d3..d10 → judged d1, rel, d3, d4 = 4/10; b: rel, d2..d10 → rel, d2, d3, d4 = 4/10
    assert judged["a"]["depth"] == 10 and judged["a"]["rate"] == pytest.approx(0.4)
    assert judged["b"]["rate"] == pytest.approx(0.4) and judged["b"]["unjudged_topics"] == 12
    assert (
        "Warning: run a: Judged@10 = 0.4000; 12 of 12 topics have unjudged docs in the top 10"
        in result.stderr
    )
    code, out, _ = run("compare", *args)
    assert code == 0
    lines = out.splitlines()
    table = lines[lines.index("Judged@10") :]
    assert table[3].split() == [
        "run",
        "Judged@10",
        "topics",
        "with",
        "results",
        "topics",
        "with",
        "unjudged",
        "docs",
    ]
    assert table[4].split() == ["a", "0.4000", "12", "12"] and table[5].split() == ["b", "0.4000", "12", "12"]
    first_screen = out.split("\nAggregate\n")[0]
    assert (
        "Warning: Judged@10 of a is 0.4000: 12 of 12 topics have unjudged documents in the top 10"
        in first_screen
    )


def test_wilcoxon_verdict_says_when_the_mean_disagrees(tmp_path: Path) -> None:
    """The direction of a verdict: P@10 baseline [0.2]×20 + [1.0]×3, candidate [0.3]×20 + [0.0]×3, --test wilcoxon.
    The signed ranks favour the candidate (R+ 210 vs R− 66, hand computation; p < 0.05: tests/stats/
    test_verdict_direction.py enumerates it), the mean Δ is −1/23: the verdict must say both, not "worse"."""
    ids = [f"t{i:02d}" for i in range(23)]
    qrels = tmp_path / "q.qrels"
    lines = [f"{q} 0 {q}-r{k} 1" for q in ids for k in range(10)]
    qrels.write_text("\n".join(lines) + "\n")

    def run_file(name: str, relevant: list[int]) -> Path:
        out = []
        for q, r in zip(ids, relevant, strict=True):
            docs = [f"{q}-r{k}" for k in range(r)] + [f"{q}-n{k}" for k in range(10 - r)]
            out += [f"{q} Q0 {d} {i} {20 - i} {name}" for i, d in enumerate(docs, start=1)]
        path = tmp_path / f"{name}.run"
        path.write_text("\n".join(out) + "\n")
        return path

    a = run_file("a", [2] * 20 + [10] * 3)
    b = run_file("b", [3] * 20 + [0] * 3)
    args = [
        str(a),
        str(b),
        "--qrels",
        str(qrels),
        "--measures",
        "P@10",
        "--primary",
        "P@10",
        "--test",
        "wilcoxon",
    ]
    doc = compare_json(*args)
    verdict = doc["verdicts"][0]["verdict"]
    assert verdict.startswith("better by signed ranks (R+ 210 > R− 66), but the mean Δ is -0.0435")
    assert doc["comparisons"][0]["delta"] == pytest.approx(-1 / 23)
    # --fail-on regression does not pass a significant result whose mean dropped silently
    code, _, err = run("compare", *args, "--fail-on", "regression")
    assert code == 3 and "the test and the mean disagree" in err


def test_one_pair_one_verdict_under_bh(tmp_path: Path) -> None:
    """One pair, one verdict: three runs on 12 topics, P@1. b and c each win 6 topics of a (different ones) and lose
    none: exact randomization p = 2/2^6 = 0.03125 each (hand computation); Holm over the 2 candidates gives
    0.0625 (no significant difference), while BH over the 3 pairs (p = 0.03125, 0.03125, 1) gives
    0.046875 < 0.05. The all-pairs row of a pair with the baseline must not read "better" without saying why."""
    ids = [f"t{i:02d}" for i in range(12)]
    qrels = write_rel_qrels(tmp_path / "q.qrels", ids)
    a = write_ranked(tmp_path / "a.run", "a", dict.fromkeys(ids, 2))
    b = write_ranked(tmp_path / "b.run", "b", {q: 1 if i < 6 else 2 for i, q in enumerate(ids)})
    c = write_ranked(tmp_path / "c.run", "c", {q: 1 if i >= 6 else 2 for i, q in enumerate(ids)})
    args = [str(a), str(b), str(c), "--qrels", str(qrels), "--measures", "P@1", "--primary", "P@1"]
    doc = compare_json(*args, "--correction", "bh")
    conf = {v["candidate"]: v["verdict"] for v in doc["verdicts"]}
    assert conf == {"b": "no significant difference", "c": "no significant difference"}
    (fam,) = doc["all_pairs"]
    pairs = {(p["a"], p["b"]): p for p in fam["pairs"]}
    for cand in ("b", "c"):
        p = pairs[("a", cand)]
        assert p["pvalue"] == 0.03125 and p["p_adjusted"] == pytest.approx(0.046875)
        assert p["verdict"] == "no significant difference (confirmatory)"
        assert "would read 'better'" in p["note"] and "confirmatory family (holm, p adj. 0.0625)" in p["note"]
    assert pairs[("b", "c")]["verdict"] == "–" and pairs[("b", "c")]["note"] is None
    code, out, _ = run("compare", *args, "--correction", "bh")
    assert code == 0 and "c − a: the all-pairs adjustment alone would read 'better'" in out
