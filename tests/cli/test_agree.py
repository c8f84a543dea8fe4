"""``trec-toolkit agree`` end to end on judgments TSVs: A1–A4 values, exact table lines, every input error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "agreement"))
from agreement_data import (  # noqa: E402
    A1_GRADES,
    A1_TABLE,
    A2_GRADES,
    A2_TABLE,
    A3_COUNTS,
    a4_judgments,
    expand_counts,
    expand_table,
    write_tsv,
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["agree", *args])
    return result.exit_code, result.stdout, result.stderr


def agree_json(path: Path, *extra: str) -> dict:
    code, out, err = run(str(path), "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


# A1, the whole table. Every number is the reference's or a hand computation:
#   p_o = 35/50 = 70.0%; κ = 0.4, CI 0.1511–0.6489 (reference; with 2 labels every weighting is the same);
#   relevant = yes: both 20, either 20 + 5 + 10 = 35, overlap 20/35 = 0.5714;
#   confusion in label order (0 = no, 1 = yes): no/no 15, no/yes 10, yes/no 5, yes/yes 20;
#   alice 25 no 25 yes, bob 20 no 30 yes;
#   Fleiss: P̄ = p_o = 0.7, P̄e = 0.55² + 0.45² = 0.505 → (0.7 − 0.505) / 0.495 = 0.3939;
#   Krippendorff (2 coders, 100 values, n_yes 55, n_no 45, 15 disagreeing units):
#   α = 1 − 99 · 30 / (2 · 55 · 45) = 0.4 at every level (two values: every metric is the same).
A1_TABLE_TEXT = """\
Assessor agreement

Agreement on labels 0,1: 2 assessors, 50 items, 100 judgments (seed 42, no bootstrap)

Cohen's kappa per pair (shared items; 95% CI analytic and bootstrap over topics)
a      b     n  agree%  weights      kappa  95% CI            bootstrap 95% CI
alice  bob  50    70.0  unweighted  0.4000  [0.1511, 0.6489]  n/a [1]
                        linear      0.4000  [0.1511, 0.6489]  n/a [1]
                        quadratic   0.4000  [0.1511, 0.6489]  n/a [1]

Binarised (relevant = grade >= t): kappa and Voorhees overlap |both| / |either|
a      b    t      kappa  overlap  both  either
alice  bob  >= 1  0.4000   0.5714    20      35

Confusion: alice (rows) x bob (columns)
alice \\ bob   0   1
0            15  10
1             5  20

Per topic
a      b    topic   n  agree%  unweighted  linear  quadratic
alice  bob  q1     50    70.0      0.4000  0.4000     0.4000

Grade distributions
assessor   n   0   1
alice     50  25  25
bob       50  20  30

Across all assessors
- Fleiss' kappa: 0.3939 over 50 items judged by 2 assessors each (0 other items left out)
- Krippendorff's alpha (50 of 50 items judged by 2 or more): nominal 0.4000, ordinal 0.4000, interval 0.4000

Undefined
  [1] bootstrap disabled (bootstrap=0)
"""


def test_a1_table_output_exactly(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "a1.tsv", expand_table(A1_TABLE, A1_GRADES))
    code, out, err = run(str(path), "--bootstrap", "0")
    assert (code, err) == (0, "")
    assert out == A1_TABLE_TEXT


def test_a1_json(tmp_path: Path) -> None:
    doc = agree_json(write_tsv(tmp_path / "a1.tsv", expand_table(A1_TABLE, A1_GRADES, topics=5)))
    assert list(doc)[:5] == ["schema_version", "labels", "pairs", "fleiss", "krippendorff"]
    assert doc["schema_version"] == 3
    assert doc["labels"] == [0, 1]
    (pair,) = doc["pairs"]
    assert list(pair)[:6] == ["a", "b", "n", "percent_agreement", "kappa", "binarised"]
    assert (pair["a"], pair["b"], pair["n"]) == ("alice", "bob", 50)
    assert pair["percent_agreement"] == pytest.approx(70.0)
    k = pair["kappa"]["unweighted"]
    assert k["value"] == pytest.approx(0.4)
    assert k["ci95"] == pytest.approx([0.1511, 0.6489], abs=5e-5)
    assert k["se"] == pytest.approx(0.1270, abs=5e-5)
    # 5 topics: too few for the topic bootstrap (minimum-data rule)
    assert k["ci95_bootstrap"] is None
    assert (
        k["ci95_bootstrap_reason"]
        == "the topic bootstrap needs at least 10 topics with shared items (found 5)"
    )
    assert pair["binarised"]["1"]["kappa"] == pytest.approx(0.4)
    assert pair["binarised"]["1"]["overlap"] == pytest.approx(20 / 35)


def test_a2_json(tmp_path: Path) -> None:
    doc = agree_json(write_tsv(tmp_path / "a2.tsv", expand_table(A2_TABLE, A2_GRADES)), "--bootstrap", "0")
    kappa = doc["pairs"][0]["kappa"]
    assert kappa["unweighted"]["value"] == pytest.approx(0.4842, abs=5e-5)
    assert kappa["unweighted"]["ci95"] == pytest.approx([0.2137, 0.7547], abs=5e-5)
    assert kappa["linear"]["value"] == pytest.approx(0.4701, abs=5e-5)
    assert kappa["linear"]["se"] == pytest.approx(0.1457, abs=5e-5)
    assert kappa["linear"]["ci95"] == pytest.approx([0.1845, 0.7558], abs=5e-5)
    assert kappa["quadratic"]["value"] == pytest.approx(0.4502, abs=5e-5)
    assert doc["pairs"][0]["confusion"]["counts"] == A2_TABLE


def test_a3_json_fleiss(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "a3.tsv", expand_counts(A3_COUNTS))
    doc = agree_json(path, "--labels", "0,1,2,3,4", "--bootstrap", "0")
    assert doc["fleiss"]["value"] == pytest.approx(0.2099, abs=5e-5)
    assert doc["fleiss"]["n_items"] == 10
    assert doc["fleiss"]["raters_per_item"] == 14
    assert len(doc["pairs"]) == 14 * 13 // 2


def test_a4_json_every_reference_value(tmp_path: Path) -> None:
    doc = agree_json(write_tsv(tmp_path / "a4.tsv", a4_judgments()), "--labels", "0,1,2,3")
    (pair,) = doc["pairs"]
    kappa = pair["kappa"]
    assert kappa["unweighted"]["value"] == pytest.approx(0.444444, abs=5e-7)
    assert kappa["linear"]["value"] == pytest.approx(0.666667, abs=5e-7)
    assert kappa["quadratic"]["value"] == pytest.approx(0.833333, abs=5e-7)
    assert sorted(pair["binarised"]) == ["1", "2", "3"]
    assert pair["binarised"]["1"]["kappa"] == pytest.approx(0.555556, abs=5e-7)
    assert pair["binarised"]["1"]["overlap"] == pytest.approx(0.8)
    assert pair["binarised"]["2"]["kappa"] == pytest.approx(0.833333, abs=5e-7)
    assert pair["binarised"]["2"]["overlap"] == pytest.approx(6 / 7)
    assert doc["krippendorff"]["ordinal"] == pytest.approx(0.838943, abs=5e-7)
    assert doc["krippendorff"]["nominal"] == pytest.approx(0.465116, abs=5e-7)
    assert doc["distributions"]["bob"] == {"n": 12, "counts": {"0": 3, "1": 2, "2": 4, "3": 3}}
    assert doc["seed"] == 42 and doc["bootstrap"] == 2000
    assert "krippendorff" in doc["versions"] and "statsmodels" in doc["versions"]


def test_a4_table_and_markdown_lines(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "a4.tsv", a4_judgments())
    code, out, _ = run(str(path), "--labels", "0,1,2,3", "--bootstrap", "0")
    assert code == 0
    lines = out.splitlines()
    # p_o = 7/12 = 58.3%; kappas from the reference; binarised: both/either from hand counts (8/10, 6/7, 2/4).
    assert any(line.startswith("alice  bob  12    58.3  unweighted  0.4444  [") for line in lines)
    assert "                        quadratic   0.8333  [0.6954, 0.9712]  n/a [1]" in lines
    assert "alice  bob  >= 1  0.5556   0.8000     8      10" in lines
    assert "alice  bob  >= 2  0.8333   0.8571     6       7" in lines
    assert "alice  bob  >= 3  0.5556   0.5000     2       4" in lines
    assert (
        "- Krippendorff's alpha (12 of 12 items judged by 2 or more): nominal 0.4651, ordinal 0.8389, interval 0.8401"
        in lines
    )
    code, md, _ = run(str(path), "--labels", "0,1,2,3", "--format", "md", "--bootstrap", "0")
    assert code == 0
    md_lines = md.splitlines()
    assert md_lines[0] == "# Assessor agreement"
    assert "| a | b | t | kappa | overlap | both | either |" in md_lines
    assert "| alice | bob | >= 2 | 0.8333 | 0.8571 | 6 | 7 |" in md_lines
    assert "1. bootstrap disabled (bootstrap=0)" in md_lines


def test_quadratic_ci_matches_statsmodels(tmp_path: Path) -> None:
    """The analytic CI of quadratic kappa has no published value; check it against statsmodels directly."""
    import numpy as np
    from statsmodels.stats.inter_rater import cohens_kappa

    path = write_tsv(tmp_path / "a4.tsv", a4_judgments())
    doc = agree_json(path, "--labels", "0,1,2,3", "--bootstrap", "0")
    table = np.array(doc["pairs"][0]["confusion"]["counts"], dtype=float)
    assert table.tolist() == [[2, 1, 0, 0], [1, 1, 1, 0], [0, 0, 2, 1], [0, 0, 1, 2]]  # hand tally
    ref = cohens_kappa(table, wt="quadratic")
    assert doc["pairs"][0]["kappa"]["quadratic"]["ci95"] == pytest.approx([ref.kappa_low, ref.kappa_upp])


def test_seed_changes_only_the_bootstrap_and_output_file(tmp_path: Path) -> None:
    path = write_tsv(tmp_path / "a4.tsv", a4_judgments(topics=6))
    one = agree_json(path, "--seed", "1", "--bootstrap", "300")
    same = agree_json(path, "--seed", "1", "--bootstrap", "300")
    assert one == same
    target = tmp_path / "out" / "agreement.json"
    code, out, err = run(
        str(path), "--format", "json", "--seed", "1", "--bootstrap", "300", "-o", str(target)
    )
    assert (code, out, err) == (0, "", f"Wrote {target}\n")
    assert json.loads(target.read_text()) == one


def test_labels_widen_the_scale(tmp_path: Path) -> None:
    """Grades seen are 0..2; --labels 0,1,2,3 adds an unused grade and one more binarisation threshold."""
    path = write_tsv(
        tmp_path / "j.tsv",
        [("a", "q1", "d1", 0), ("b", "q1", "d1", 2), ("a", "q1", "d2", 1), ("b", "q1", "d2", 1)],
    )
    assert agree_json(path, "--bootstrap", "0")["labels"] == [0, 1, 2]
    doc = agree_json(path, "--labels", "3,2,1,0", "--bootstrap", "0")
    assert doc["labels"] == [0, 1, 2, 3]
    assert sorted(doc["pairs"][0]["binarised"]) == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "alice\tq1\td1\n",
            "{p}:1: expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 3",
        ),
        ("# c\nalice\tq1\td1\tx\n", "{p}:2: expected an integer grade, 'skip' or 'unrateable', found 'x'"),
        (
            "alice\tq1\td1\t1\nbob\tq1\td1\t2\nalice\tq1\td1\t0\n",
            "{p}:3: duplicate judgment by alice of (q1, d1); first on line 1 (keep one line per assessor and item)",
        ),
        (
            "alice\tq1\td1\t1\n\tq1\td2\t1\n",
            "{p}:2: empty assessor (column 1); fill it in or delete the line",
        ),
        ("alice\tq1\td1\t\n", "{p}:1: empty grade (column 4); fill it in or delete the line"),
        ("alice\tq1\td1\t7\n", "{p}:1: grade 7 is not on the --labels scale (0, 1, 2, 3)"),
        ("# nothing\n\n", "{p}: no judgments found (expected assessor<TAB>query_id<TAB>doc_id<TAB>grade)"),
    ],
)
def test_bad_tsv_lines(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(content, encoding="utf-8")
    code, out, err = run(str(path), "--labels", "0,1,2,3")
    assert (code, out) == (1, "")
    assert err == f"Error: {message.format(p=path)}\n"


def test_missing_file_and_bad_labels(tmp_path: Path) -> None:
    missing = tmp_path / "nope.tsv"
    assert run(str(missing)) == (1, "", f"Error: {missing}: file not found; check the path\n")
    path = write_tsv(tmp_path / "a4.tsv", a4_judgments())
    assert run(str(path), "--labels", "0,x") == (
        2,
        "",
        "Error: --labels '0,x': 'x' is not an integer grade; expected comma-separated integer grades, e.g. 0,1,2,3\n",
    )
    assert run(str(path), "--labels", "0,1,1") == (
        2,
        "",
        "Error: --labels '0,1,1' repeats a grade; list each grade once\n",
    )


def test_skip_and_unrateable_lines_are_not_grades(tmp_path: Path) -> None:
    path = tmp_path / "j.tsv"
    path.write_text(
        "assessor\tquery_id\tdoc_id\tgrade\na\tq1\td1\t1\nb\tq1\td1\t1\na\tq1\td2\tskip\nb\tq1\td2\tunrateable\n",
        encoding="utf-8",
    )
    doc = agree_json(path, "--bootstrap", "0")
    assert doc["n_judgments"] == 2
    assert doc["pairs"][0]["n"] == 1


# Hand-made degenerate campaign: alice and bob agree on all 10 shared items (five 0s, five 1s); carol judged
# one item nobody else did. Hand results: alice/bob p_o = 100%, kappa = 1 (p_e = 1/2), but the asymptotic SE
# is 0 (statsmodels), so no normal CI; carol shares nothing with anyone; Fleiss on the 10 doubly-judged
# items: P̄ = 1, P̄e = 0.5 → 1; alpha = 1 (no disagreement among pairable values).
DEGENERATE_TSV = "".join(f"{who}\tq1\td{i}\t{i % 2}\n" for i in range(1, 11) for who in ("alice", "bob"))
DEGENERATE_TSV += "carol\tq2\td11\t1\n"
DEGENERATE_TEXT = """\
Assessor agreement

Agreement on labels 0,1: 3 assessors, 11 items, 21 judgments (seed 42, no bootstrap)

Cohen's kappa per pair (shared items; 95% CI analytic and bootstrap over topics)
a      b       n   agree%  weights       kappa  95% CI   bootstrap 95% CI
alice  bob    10    100.0  unweighted   1.0000  n/a [1]  n/a [2]
                           linear       1.0000  n/a [1]  n/a [2]
                           quadratic    1.0000  n/a [1]  n/a [2]
alice  carol   0  n/a [3]  unweighted  n/a [3]  n/a [3]  n/a [2]
                           linear      n/a [3]  n/a [3]  n/a [2]
                           quadratic   n/a [3]  n/a [3]  n/a [2]
bob    carol   0  n/a [3]  unweighted  n/a [3]  n/a [3]  n/a [2]
                           linear      n/a [3]  n/a [3]  n/a [2]
                           quadratic   n/a [3]  n/a [3]  n/a [2]

Binarised (relevant = grade >= t): kappa and Voorhees overlap |both| / |either|
a      b      t       kappa  overlap  both  either
alice  bob    >= 1   1.0000   1.0000     5       5
alice  carol  >= 1  n/a [3]  n/a [3]     0       0
bob    carol  >= 1  n/a [3]  n/a [3]     0       0
"""
DEGENERATE_TAIL = """\
Across all assessors
- Fleiss' kappa: 1.0000 over 10 items judged by 2 assessors each (1 other item left out)
- Krippendorff's alpha (10 of 11 items judged by 2 or more): nominal 1.0000, ordinal 1.0000, interval 1.0000

Undefined
  [1] the asymptotic SE of kappa is 0 for this table (as under perfect agreement), so the normal-approximation CI would be a single point
  [2] bootstrap disabled (bootstrap=0)
  [3] no shared items
"""


def test_degenerate_table_output(tmp_path: Path) -> None:
    path = tmp_path / "deg.tsv"
    path.write_text(DEGENERATE_TSV, encoding="utf-8")
    code, out, err = run(str(path), "--bootstrap", "0")
    assert (code, err) == (0, "")
    assert out.startswith(DEGENERATE_TEXT)
    assert out.endswith(DEGENERATE_TAIL)
    doc = agree_json(path, "--bootstrap", "0")
    assert doc["pairs"][1]["kappa"]["linear"] == {
        "value": None,
        "ci95": None,
        "reason": "no shared items",
        "se": None,
        "se_reason": "no shared items",
        "ci95_reason": "no shared items",
        "ci95_bootstrap": None,
        "ci95_bootstrap_reason": "bootstrap disabled (bootstrap=0)",
        "bootstrap_dropped": 0,
    }
    assert doc["pairs"][0]["kappa"]["unweighted"]["se"] == 0.0
    assert doc["pairs"][0]["kappa"]["unweighted"]["ci95"] is None


def test_nothing_to_compare_exits_non_zero_with_the_reason(tmp_path: Path) -> None:
    # Two assessors who graded different items, and a campaign where only one assessor graded: no item has
    # two grades, so there is no agreement to report.
    apart = tmp_path / "apart.tsv"
    apart.write_text("alice\tq1\td1\t2\nbob\tq1\td2\t1\nbob\tq2\td1\t0\n")
    code, out, err = run(str(apart))
    assert (code, out) == (1, "")
    assert err == (
        f"Error: {apart}: nothing to compare: no item has grades from two assessors (2 assessors, 3 graded "
        "items); agreement needs items that two or more assessors graded (give them an overlap: "
        "`trec-toolkit assign --overlap …`)\n"
    )
    from toolkit.judging.records import CampaignTopic, Document
    from toolkit.judging.store import CampaignStore
    from toolkit.model import DEFAULT_GRADES

    campaign = tmp_path / "one.sqlite"
    with CampaignStore.open(campaign, create=True) as store:
        store.set_topics([CampaignTopic("q1", "apple pie")], DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=1,
            budget=None,
            runs=["r"],
            provenance={("q1", "d1"): [("r", 1)]},
            queued=[("q1", "d1")],
            stale=[],
            snapshots=[Document("d1", "Apple", "apple text", "h1")],
            skipped=0,
        )
        store.record("alice", "q1", "d1", grade=2)
    code, out, err = run(str(campaign), "--format", "json")
    assert (code, out) == (1, "")
    assert "nothing to compare: no item has grades from two assessors (1 assessor, 1 graded item)" in err


# --- One minimum-data rule (toolkit.minimum) for every statistic, and a reason for every null --------------


def tsv(path: Path, rows: list[tuple[str, str, str, int]]) -> Path:
    path.write_text("".join(f"{a}\t{q}\t{d}\t{g}\n" for a, q, d, g in rows), encoding="utf-8")
    return path


def nulls_without_reason(node, where: str = "") -> list[str]:
    """Paths of JSON nulls that have no reason next to them (``X_reason``, or ``reason`` in the same object)."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if value is None and not key.endswith("reason"):
                reason = node.get(f"{key}_reason", node.get("reason"))
                if not reason:
                    found.append(f"{where}/{key}")
            else:
                found += nulls_without_reason(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += nulls_without_reason(value, f"{where}/{i}")
    return found


def test_minimum_data_fleiss_and_alpha_on_two_items_are_null_with_the_rule(tmp_path: Path) -> None:
    """Two items, two assessors who disagree on both: Fleiss' kappa used to print −1.0."""
    path = tsv(
        tmp_path / "two.tsv",
        [("alice", "q1", "d1", 0), ("bob", "q1", "d1", 1)]
        + [("alice", "q1", "d2", 1), ("bob", "q1", "d2", 0)],
    )
    doc = agree_json(path, "--labels", "0,1")
    assert doc["fleiss"]["value"] is None
    assert doc["fleiss"]["reason"] == "needs at least 10 items judged by 2 assessors each (found 2)"
    assert doc["krippendorff"]["nominal"] is None
    assert doc["krippendorff"]["reason"] == "needs at least 10 items judged by 2 or more assessors (found 2)"
    k = doc["pairs"][0]["kappa"]["unweighted"]
    assert k["value"] is None and k["reason"] == "needs at least 10 shared items (found 2)"
    assert nulls_without_reason(doc) == []
    code, out, _ = run(str(path), "--labels", "0,1")
    assert code == 0 and "-1.0000" not in out


def test_minimum_data_no_bootstrap_point_interval_where_the_analytic_ci_is_refused(tmp_path: Path) -> None:
    """Perfect agreement on 20 items over 20 topics: SE 0, no analytic CI — the bootstrap said [1.0, 1.0]."""
    rows = [(who, f"q{i:02d}", f"d{i}", i % 4) for i in range(20) for who in ("alice", "bob")]
    doc = agree_json(tsv(tmp_path / "perfect.tsv", rows), "--labels", "0,1,2,3")
    k = doc["pairs"][0]["kappa"]["quadratic"]
    assert k["value"] == 1.0 and k["ci95"] is None and k["ci95_bootstrap"] is None
    assert k["ci95_bootstrap_reason"] == (
        "every topic resample gives the same kappa (1.0000): a zero-width interval says nothing about uncertainty"
    )
    binarised = doc["pairs"][0]["binarised"]["1"]
    assert binarised["kappa"] == 1.0 and binarised["kappa_ci95"] is None and binarised["kappa_ci95_reason"]
    assert nulls_without_reason(doc) == []


def test_minimum_data_a_constant_assessor_never_prints_negative_zero(tmp_path: Path) -> None:
    """alice grades every item 0: kappa is exactly 0 whatever bob does — it printed as -0.0000."""
    bob = [3, 0, 2, 3, 3, 2, 3, 2, 1, 1, 2, 1, 0, 2, 1, 2, 0, 0, 2, 3, 0, 2]
    rows = [("alice", f"q{i % 10}", f"d{i}", 0) for i in range(22)]
    rows += [("bob", f"q{i % 10}", f"d{i}", g) for i, g in enumerate(bob)]
    path = tsv(tmp_path / "const.tsv", rows)
    code, out, _ = run(str(path), "--labels", "0,1,2,3", "--bootstrap", "0")
    assert code == 0 and "-0.0000" not in out
    doc = agree_json(path, "--labels", "0,1,2,3", "--bootstrap", "0")
    for w in ("unweighted", "linear", "quadratic"):
        value = doc["pairs"][0]["kappa"][w]["value"]
        assert value == 0.0 and str(value) == "0.0"  # not -0.0
    assert nulls_without_reason(doc) == []


def test_minimum_data_the_bootstrap_needs_ten_topics(tmp_path: Path) -> None:
    rows = [
        (who, f"q{i % 5}", f"d{i}", g) for i, g in enumerate([0, 1, 2, 3] * 5) for who in ("alice", "bob")
    ]
    rows[-1] = ("bob", "q4", "d19", 0)
    doc = agree_json(tsv(tmp_path / "five.tsv", rows), "--labels", "0,1,2,3")
    k = doc["pairs"][0]["kappa"]["unweighted"]
    assert k["value"] is not None and k["ci95_bootstrap"] is None
    assert (
        k["ci95_bootstrap_reason"]
        == "the topic bootstrap needs at least 10 topics with shared items (found 5)"
    )


def test_per_topic_lists_the_topics_with_a_kappa_and_says_once_why_the_others_are_not(tmp_path: Path) -> None:
    """At a 20 % overlap most topics share a few items: a row of "n/a" each would bury the ones with a value.
    q1: 12 shared items (a kappa, checked against scikit-learn); q2 and q3: 2 and 3 shared items."""
    from sklearn.metrics import cohen_kappa_score

    alice = [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    bob = [0, 1, 2, 2, 0, 1, 3, 3, 1, 1, 2, 3]
    rows = [
        (who, "q1", f"d{i}", g)
        for who, grades in (("alice", alice), ("bob", bob))
        for i, g in enumerate(grades)
    ]
    rows += [(who, "q2", f"d{i}", i) for who in ("alice", "bob") for i in range(2)]
    rows += [(who, "q3", f"d{i}", i) for who in ("alice", "bob") for i in range(3)]
    path = tsv(tmp_path / "few.tsv", rows)
    code, out, err = run(str(path), "--bootstrap", "0")
    assert (code, err) == (0, "")
    section = out.split("Per topic\n", 1)[1].split("\n\nGrade distributions", 1)[0].replace("\n\n", "\n")
    section = section.splitlines()
    expected = cohen_kappa_score(alice, bob)
    assert section == [
        "a      b    topic   n  agree%  unweighted  linear  quadratic",
        f"alice  bob  q1     12    75.0      {expected:.4f}"
        f"  {cohen_kappa_score(alice, bob, weights='linear'):.4f}"
        f"     {cohen_kappa_score(alice, bob, weights='quadratic'):.4f}",
        "2 of 3 topic rows are not listed: kappa per topic needs at least 10 items both assessors graded, and they "
        "have 3 or fewer (each one's n and agree% are in --format json).",
    ]
    assert [t["query_id"] for t in agree_json(path, "--bootstrap", "0")["pairs"][0]["per_topic"]] == [
        "q1",
        "q2",
        "q3",
    ]
