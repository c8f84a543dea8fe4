"""Through the CLI (docs/design.md §5, Denominator): topics declared ``expect = "empty"`` — refusal correctness, the
empty-result rate, the denominator, the failure rule, McNemar in ``compare``/``audit``, and ``gate`` rules.

Every expected number is a hand computation on the small fixture below (comments give the sums); McNemar's
p-values are checked against statsmodels' exact McNemar as well.

Fixture: four topics with answers (t1, t2 canonical; t3, t4 prose) and three that should find nothing (e1
canonical, e2 prose, e3 without a class).

* run ``a``: t1 [a1, x] · t2 [x, b1] · t3 [g1] · t4 — · e1 — · e2 — · e3 [x]
* run ``b``: t1 [a1] · t2 [b1] · t3 — · t4 [d1] · e1 [x] · e2 — · e3 —

So ``a`` refuses e1, e2 (2 of 3) and leaves t4 empty (1 of 4); ``b`` refuses e2, e3 (2 of 3) and leaves t3
empty (1 of 4). RR@10 over the four topics that can have relevant documents: a = (1 + 1/2 + 1 + 0)/4 = 0.625,
b = (1 + 1 + 0 + 1)/4 = 0.75.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import make_workspace

from toolkit.cli import main

TOPICS = """
[[topic]]
id = "t1"
query = "alpha"
class = "canonical"
truth = ['^a1$']

[[topic]]
id = "t2"
query = "beta"
class = "canonical"
truth = ['^b1$']

[[topic]]
id = "t3"
query = "gamma"
class = "prose"
truth = ['^g1$']

[[topic]]
id = "t4"
query = "delta"
class = "prose"
truth = ['^d1$']

[[topic]]
id = "e1"
query = "pandas DataFrame"
class = "canonical"
expect = "empty"

[[topic]]
id = "e2"
query = "kubernetes helm chart"
class = "prose"
expect = "empty"

[[topic]]
id = "e3"
query = "sourdough starter"
expect = "empty"
"""

QRELS = "t1 0 a1 1\nt2 0 b1 1\nt3 0 g1 1\nt4 0 d1 1\n"

RUNS = {
    "a": {"t1": ["a1", "x"], "t2": ["x", "b1"], "t3": ["g1"], "e3": ["x"]},
    "b": {"t1": ["a1"], "t2": ["b1"], "t4": ["d1"], "e1": ["x"]},
}


def run_text(ranked: dict[str, list[str]], tag: str) -> str:
    return "".join(
        f"{q} Q0 {d} {i + 1} {10 - i} {tag}\n" for q, docs in ranked.items() for i, d in enumerate(docs)
    )


def manifest(failures: list[str] = ()) -> str:
    """A run manifest as ``run`` writes it, reduced to what the refusal rule reads."""
    return json.dumps(
        {
            "kind": "run",
            "failures": [
                {
                    "query_id": q,
                    "reason": "timed out after 30.0s",
                    "exit_code": None,
                    "stderr_tail": "",
                    "duration_ms": 30000.0,
                    "attempts": 1,
                }
                for q in failures
            ],
        }
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "topics.toml").write_text(TOPICS)
    (tmp_path / "t.qrels").write_text(QRELS)
    for name, ranked in RUNS.items():
        (tmp_path / f"{name}.run").write_text(run_text(ranked, name))
        (tmp_path / f"{name}.run.json").write_text(manifest())
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def score(ws: Path, *args: str) -> tuple[int, str, str]:
    return invoke(
        "score", str(ws / "a.run"), str(ws / "b.run"), "--qrels", str(ws / "t.qrels"),
        "--topics", str(ws / "topics.toml"), "--measures", "RR@10", *args,
    )  # fmt: skip


# --- score ------------------------------------------------------------------------------------------------


def test_score_reports_refusal_and_empty_rate_and_n_without_the_expected_empty_topics(ws: Path) -> None:
    code, out, err = score(ws)
    assert code == 0, err
    assert err == ""
    assert out.splitlines() == [
        "run  topic  n  empty   RR@10",
        "a    all    4      1  0.6250",
        "b    all    4      1  0.7500",
        "",
        'n counts only the topics that can have relevant documents: the 3 topics declared expect = "empty" '
        "(e1 e2 e3) are left out of it and scored by their refusal outcome alone (below).",
        "",
        "Refusal and empty results",
        'Refusal = the share of the 3 topics declared expect = "empty" for which a run returned nothing; empty '
        "rate = the share of the other 4 topics for which it returned nothing. A call the run's manifest records "
        "as failed or timed out is neither.",
        "",
        "run  topic  expect empty  refused  refusal  other  empty  empty rate",
        "a    all               3        2   0.6667      4      1      0.2500",
        "b    all               3        2   0.6667      4      1      0.2500",
        "",
        "- a answered (not refused) (1): e3",
        "- a left empty (1): t4",
        "- b answered (not refused) (1): e1",
        "- b left empty (1): t3",
    ]


def test_score_refusal_per_class_and_in_json(ws: Path) -> None:
    code, out, err = score(ws, "--by-class")
    assert code == 0, err
    table = out.split("Refusal and empty results")[1].splitlines()
    # a, class canonical: e1 refused (1/1); t1, t2 answered (0/2). prose: e2 refused (1/1); t4 empty (1/2).
    # unclassified: e3 answered (0/1); no other topic → empty rate undefined. b likewise.
    assert table[3:12] == [
        "run  topic               expect empty  refused  refusal  other  empty  empty rate",
        "a    all                            3        2   0.6667      4      1      0.2500",
        "a    class:canonical                1        1   1.0000      2      0      0.0000",
        "a    class:prose                    1        1   1.0000      2      1      0.5000",
        "a    class:unclassified             1        0   0.0000      0      0           –",
        "b    all                            3        2   0.6667      4      1      0.2500",
        "b    class:canonical                1        0   0.0000      2      0      0.0000",
        "b    class:prose                    1        1   1.0000      2      1      0.5000",
        "b    class:unclassified             1        1   1.0000      0      0           –",
    ]
    assert "- – (undefined): no topic that can have relevant documents" in out

    code, out, _ = score(ws, "--by-class", "--format", "json")
    runs = {r["run"]: r for r in json.loads(out)["runs"]}
    a, b = runs["a"], runs["b"]
    assert a["n"] == 4 and list(a["per_query"]) == ["t1", "t2", "t3", "t4"]
    assert a["refusal"]["refusal"] == pytest.approx(2 / 3) and a["refusal"]["refusal_reason"] is None
    assert a["refusal"]["empty_rate"] == 0.25 and a["refusal"]["empty_topics"] == ["t4"]
    assert a["refusal"]["refused_topics"] == ["e1", "e2"] and a["refusal"]["answered_topics"] == ["e3"]
    assert a["refusal"]["expect_empty_topics"] == ["e1", "e2", "e3"] and a["refusal"]["manifest"] is True
    assert b["refusal"]["by_class"]["canonical"]["refusal"] == 0.0  # b answered e1
    assert b["refusal"]["by_class"]["prose"]["empty_rate"] == 0.5  # b left t3 empty
    unclassified = a["refusal"]["by_class"]["unclassified"]
    assert unclassified["empty_rate"] is None
    assert unclassified["empty_rate_reason"] == "no topic that can have relevant documents"


def test_refusal_is_null_with_a_reason_when_the_topic_set_declares_none(ws: Path) -> None:
    plain = ws / "plain.toml"
    plain.write_text(TOPICS.split('[[topic]]\nid = "e1"')[0])
    code, out, _ = invoke(
        "score", str(ws / "a.run"), "--qrels", str(ws / "t.qrels"), "--topics", str(plain), "--format", "json"
    )
    assert code == 0
    refusal = json.loads(out)["runs"][0]["refusal"]
    assert refusal["refusal"] is None
    assert refusal["refusal_reason"] == 'the topic set declares no topic expect = "empty"'
    assert refusal["empty_rate"] == 0.25  # t4 of t1..t4
    code, out, _ = invoke("score", str(ws / "a.run"), "--qrels", str(ws / "t.qrels"), "--topics", str(plain))
    assert "Refusal" not in out  # nothing declared: the table layout stays as it was


def test_a_failed_call_is_a_failure_not_a_refusal(ws: Path) -> None:
    (ws / "b.run.json").write_text(manifest(["e2", "t3"]))  # b's empty e2 and t3 were timeouts
    code, out, _ = score(ws, "--format", "json")
    assert code == 0
    b = json.loads(out)["runs"][1]["refusal"]
    # refused: only e3 (e2 failed) → 1/3; empty: none (t3 failed) → 0/4; both failures in the denominators
    assert b["refused_topics"] == ["e3"] and b["refusal"] == pytest.approx(1 / 3)
    assert b["empty_topics"] == [] and b["empty_rate"] == 0.0
    assert b["failed_topics"] == ["e2", "t3"]


def test_a_bare_run_without_a_manifest_counts_empty_as_refused_with_a_warning(ws: Path) -> None:
    (ws / "a.run.json").unlink()
    code, out, err = score(ws, "--format", "json")
    assert code == 0
    assert err == (
        "Warning: run a has no manifest, so a failed call cannot be told from a refusal: its 2 empty result(s) "
        'on topics declared expect = "empty" count as refused\n'
    )
    a = json.loads(out)["runs"][0]["refusal"]
    assert a["refused_topics"] == ["e1", "e2"] and a["manifest"] is False


def test_trec_and_csv_layouts_say_where_the_refusal_outcome_is(ws: Path) -> None:
    code, out, err = score(ws, "--format", "csv")
    assert code == 0
    assert out.splitlines()[1].startswith("a,all,all,4,")  # n = 4
    assert err == (
        'Warning: 3 topic(s) declared expect = "empty" are left out of n; their refusal outcome is in --format '
        "table, md, html and json\n"
    )


# --- topic sets ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "declared"),
    [
        ("truth = ['^x$']", "truth"),
        ("prefer = [{ modern = 'a', legacy = 'b' }]", "prefer"),
        ('measures = ["P@1"]', "measures"),
    ],
)
@pytest.mark.parametrize("command", ["score", "truth"])
def test_expected_empty_topics_refuse_truth_with_path_and_line(
    ws: Path, extra: str, declared: str, command: str
) -> None:
    bad = ws / "bad.toml"
    bad.write_text(
        '[[topic]]\nid = "ok"\nquery = "x"\ntruth = [\'^a1$\']\n'
        f'[[topic]]\nid = "none"\nquery = "y"\nexpect = "empty"\n{extra}\n'
    )
    (ws / "ids.txt").write_text("a1\n")
    if command == "score":
        code, _, err = invoke(
            "score", str(ws / "a.run"), "--qrels", str(ws / "t.qrels"), "--topics", str(bad)
        )
    else:
        code, _, err = invoke("truth", "--topics", str(bad), "--doc-ids", str(ws / "ids.txt"), "--runs-only")
    assert code == 1
    # line 5: the second topic's [[topic]] header
    assert err == (
        f"Error: {bad}:5: topic 'none': expect = \"empty\" says nothing should be found, so it cannot declare "
        f'{declared} (its only measure is the refusal outcome); remove {declared}, or remove expect = "empty" if '
        "the topic has right answers\n"
    )


def test_an_unknown_expect_value_is_refused(ws: Path) -> None:
    bad = ws / "bad.jsonl"
    bad.write_text('{"id": "q1", "query": "x"}\n{"id": "q2", "query": "y", "expect": "nothing"}\n')
    code, _, err = invoke("score", str(ws / "a.run"), "--qrels", str(ws / "t.qrels"), "--topics", str(bad))
    assert code == 1
    assert err == (
        f"Error: {bad}:2: topic 'q2': expect = 'nothing' is not known; the one value is \"empty\" (a topic that "
        "should find nothing), or leave the key out\n"
    )


def test_truth_does_not_call_expected_empty_topics_missing_truth(ws: Path) -> None:
    ids = ws / "ids.txt"
    ids.write_text("a1\nb1\ng1\nd1\nx\n")
    out = ws / "out.qrels"
    code, _, err = invoke(
        "truth", "--topics", str(ws / "topics.toml"), "--doc-ids", str(ids), "--runs-only", "-o", str(out)
    )
    assert code == 0, err
    assert "no truth" not in err
    assert out.read_text() == QRELS
    recorded = json.loads((ws / "out.qrels.json").read_text())
    assert recorded["expect_empty_topics"] == ["e1", "e2", "e3"] and recorded["topics_without_truth"] == []


# --- compare and audit ----------------------------------------------------------------------------------------

#: A larger fixture for McNemar: 12 topics that should find nothing (e01…e12) and 12 with one right answer
#: each (r01…r12, answer rNNx). A refuses e01–e10 and leaves r01, r02 empty; B refuses e01, e02, e11 and
#: leaves r01 empty. Refusal: A 10/12, B 3/12; changed: B no longer refuses e03–e10 (8), newly refuses e11
#: (1) → exact McNemar p = 2·(C(9,0) + C(9,1))/2⁹ = 20/512 = 0.0390625. Empty results: A 2/12, B 1/12;
#: changed: r02 no longer empty (1), none newly empty → p = 1.
E = [f"e{i:02d}" for i in range(1, 13)]
R = [f"r{i:02d}" for i in range(1, 13)]
A_REFUSES, B_REFUSES = set(E[:10]), {"e01", "e02", "e11"}
A_EMPTY, B_EMPTY = {"r01", "r02"}, {"r01"}


def big_ws(root: Path) -> Path:
    topics = "".join(f'[[topic]]\nid = "{r}"\nquery = "{r}"\ntruth = [\'^{r}x$\']\n' for r in R)
    topics += "".join(f'[[topic]]\nid = "{e}"\nquery = "{e}"\nexpect = "empty"\n' for e in E)
    (root / "big.toml").write_text(topics)
    (root / "big.qrels").write_text("".join(f"{r} 0 {r}x 1\n" for r in R))
    for name, refuses, empty in (("A", A_REFUSES, A_EMPTY), ("B", B_REFUSES, B_EMPTY)):
        ranked = {r: [f"{r}x"] for r in R if r not in empty} | {e: ["junk"] for e in E if e not in refuses}
        (root / f"{name}.run").write_text(run_text(ranked, name))
        (root / f"{name}.run.json").write_text(manifest())
    return root


def statsmodels_mcnemar(became_empty: int, became_answered: int) -> float:
    from statsmodels.stats.contingency_tables import mcnemar

    return float(mcnemar([[0, became_empty], [became_answered, 0]], exact=True).pvalue)


def test_compare_reports_both_rates_per_run_with_exact_mcnemar_and_the_changed_topics(tmp_path: Path) -> None:
    ws = big_ws(tmp_path)
    args = ["compare", str(ws / "A.run"), str(ws / "B.run"), "--qrels", str(ws / "big.qrels")]
    args += ["--topics", str(ws / "big.toml"), "--measures", "RR@10", "--primary", "RR@10"]
    code, out, err = invoke(*args, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    runs = {r["run"]: r for r in doc["refusal"]["runs"]}
    assert runs["A"]["refusal"] == pytest.approx(10 / 12) and runs["B"]["refusal"] == pytest.approx(3 / 12)
    assert runs["A"]["empty_rate"] == pytest.approx(2 / 12) and runs["B"]["empty_rate"] == pytest.approx(
        1 / 12
    )
    (test,) = doc["refusal"]["tests"]
    assert test["refusal"]["became_answered"] == E[2:10] and test["refusal"]["became_empty"] == ["e11"]
    assert test["refusal"]["mcnemar"]["pvalue"] == pytest.approx(20 / 512)
    assert test["refusal"]["mcnemar"]["pvalue"] == pytest.approx(statsmodels_mcnemar(1, 8))
    assert test["empty"]["became_answered"] == ["r02"] and test["empty"]["became_empty"] == []
    assert test["empty"]["mcnemar"]["pvalue"] == pytest.approx(statsmodels_mcnemar(0, 1)) == 1.0
    assert doc["comparisons"][0]["n"] == 12  # RR@10 over the 12 topics that can have relevant documents

    code, out, _ = invoke(*args, "--format", "md")
    assert code == 0
    section = out.split("## Refusal and empty results\n")[1].split("\n## ")[0]
    assert "| A | all | 12 | 10 | 0.8333 | 12 | 2 | 0.1667 |" in section
    assert "| B | all | 12 | 3 | 0.2500 | 12 | 1 | 0.0833 |" in section
    assert "| B | refusal | 12 | 1 | 8 | 0.0391 |" in section
    assert "| B | empty result | 12 | 0 | 1 | 1.0000 |" in section
    assert "- B no longer refused (vs A, 8): e03 e04 e05 e06 e07 e08 e09 e10" in section
    assert "- B now refused (vs A, 1): e11" in section
    assert "- B no longer empty (vs A, 1): r02" in section
    verdict = out.split("## Verdict\n")[1].split("\n## ")[0]
    assert (
        'Refusal 0.8333 → 0.2500 on 12 topics declared expect = "empty" (exact McNemar p = 0.0391). Empty '
        "results 0.1667 → 0.0833 of 12 other topics (exact McNemar p = 1.0000)."
    ) in verdict


AUDIT_TOPICS = [
    {"id": "t1", "query": "alpha", "truth": ["^a1$"]},
    {"id": "t2", "query": "beta", "truth": ["^b1$"]},
    {"id": "t3", "query": "gamma", "truth": ["^g1$"]},
    {"id": "e1", "query": "pandas DataFrame", "expect": "empty"},
    {"id": "e2", "query": "kubernetes", "expect": "empty"},
    {"id": "e3", "query": "sourdough", "expect": "empty"},
]

AUDIT_RANKINGS = {
    "strict": {"t1": ["a1"], "t2": ["b1"], "t3": ["x", "g1"]},
    "loose": {"t1": ["a1"], "t2": ["x", "b1"], "t3": ["g1"], "e1": ["x"], "e2": ["x"]},
}


def test_audit_shows_refusal_and_empty_rate_per_run(tmp_path: Path) -> None:
    """strict refuses e1, e2, e3 (3/3) and answers every other topic (0/3 empty); loose answers e1 and e2
    (refusal 1/3). Changed: e1, e2 no longer refused → exact McNemar p = 2·(1/2)² = 0.5."""
    make_workspace(
        tmp_path,
        topics=AUDIT_TOPICS,
        topics_file="topics.toml",
        engines=AUDIT_RANKINGS,
        workspace={"baseline": "strict", "measures": ["RR@10"], "primary": "RR@10"},
    )
    code, out, err = invoke("audit", "--config", str(tmp_path / "toolkit.toml"))
    assert code == 0, err
    assert out.startswith("Audit of loose against strict on topics (3 topics, primary RR@10")
    assert (
        "  loose: refusal 1.0000 → 0.3333 on 3 expect-empty topics (McNemar p 0.5000); empty results "
        "0.0000 → 0.0000 of 3 (McNemar p 1.0000)\n"
    ) in out
    md = (tmp_path / "audits" / "audit.md").read_text()
    assert "| strict | all | 3 | 3 | 1.0000 | 3 | 0 | 0.0000 |" in md
    assert "| loose | all | 3 | 1 | 0.3333 | 3 | 0 | 0.0000 |" in md
    assert "- loose no longer refused (vs strict, 2): e1 e2" in md
    assert (
        "3 topics counted (`topics.toml`); n counts only topics that can have relevant documents: the 3 topics "
        'declared expect = "empty" are scored by their refusal outcome alone'
    ) in md
    doc = json.loads((tmp_path / "audits" / "audit.json").read_text())
    assert [r["refusal"] for r in doc["refusal"]["runs"]] == [1.0, pytest.approx(1 / 3)]
    assert doc["setup"]["expect_empty_topics"] == ["e1", "e2", "e3"] and doc["setup"]["n_topics"] == 3
    html = (tmp_path / "audits" / "audit.html").read_text()
    assert "<h2>Refusal and empty results</h2>" in html


# --- gate -------------------------------------------------------------------------------------------------------


def gate(ws: Path, *rules: str, topics: bool = True) -> tuple[int, str, str]:
    args = [
        "gate",
        "--baseline",
        str(ws / "a.run"),
        "--candidate",
        str(ws / "b.run"),
        "--qrels",
        str(ws / "t.qrels"),
    ]
    if topics:
        args += ["--topics", str(ws / "topics.toml")]
    for rule in rules:
        args += ["--rule", rule]
    return invoke(*args)


def test_gate_refusal_rule_fails_below_the_threshold(ws: Path) -> None:
    code, out, err = gate(ws, "refusal >= 0.9", "refusal >= 0.6")
    assert code == 3
    assert out.splitlines()[2:5] == [
        "rule             value  topics  verdict",
        "refusal >= 0.9  0.6667       3  FAIL",  # b refuses e2, e3 of e1–e3
        "refusal >= 0.6  0.6667       3  pass",
    ]
    assert err == "Error: 1 of 2 gate rule(s) failed: refusal >= 0.9\n"


def test_gate_empty_rate_rule(ws: Path) -> None:
    code, out, _ = gate(ws, "empty_rate <= 0.05")
    assert code == 3
    assert "empty_rate <= 0.05  0.2500       4  FAIL" in out  # b left t3 of t1–t4 empty
    code, out, _ = gate(ws, "empty_rate <= 0.25", "empty_rate delta <= 0", "refusal drop <= 0")
    assert code == 0, out  # 1/4 on the grid; a and b both leave one topic empty and refuse two
    assert "3 of 3 rule(s) passed" in out


def test_gate_refusal_rule_per_class(ws: Path) -> None:
    code, out, _ = gate(ws, "refusal >= 1 class=prose", "refusal >= 1 class=canonical")
    assert code == 3
    assert "refusal >= 1 class=prose      1.0000       1  pass" in out  # b refuses e2
    assert "refusal >= 1 class=canonical  0.0000       1  FAIL" in out  # b answers e1


def test_gate_refusal_rule_without_expected_empty_topics_fails_with_the_reason(ws: Path) -> None:
    code, out, _ = gate(ws, "refusal >= 0.9", topics=False)
    assert code == 3
    assert 'FAIL (no topic set: topics that should find nothing are declared expect = "empty" in one)' in out
    code, out, _ = gate(ws, "empty_rate <= 0.5", topics=False)
    assert code == 0  # over the qrels' topics t1–t4: b left t3 empty


def test_gate_json_names_the_refusal_rule(ws: Path) -> None:
    code, out, _ = invoke(
        "gate", "--baseline", str(ws / "a.run"), "--candidate", str(ws / "b.run"), "--qrels", str(ws / "t.qrels"),
        "--topics", str(ws / "topics.toml"), "--rule", "refusal >= 0.5", "--format", "json",
    )  # fmt: skip
    assert code == 0
    (rule,) = json.loads(out)["rules"]
    assert rule["measure"] == "refusal" and rule["value"] == pytest.approx(2 / 3) and rule["n"] == 3


def test_gate_refusal_rule_on_a_class_without_expected_empty_topics_says_so(ws: Path) -> None:
    fragment = ws / "topics.toml"
    fragment.write_text(
        TOPICS + '\n[[topic]]\nid = "t5"\nquery = "eps"\nclass = "fragment"\ntruth = [\'^e5$\']\n'
    )
    code, out, _ = gate(ws, "refusal >= 0.5 class=fragment")
    assert code == 3
    assert 'FAIL (no topic of this class is declared expect = "empty")' in out
