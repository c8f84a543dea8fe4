"""``trec-toolkit gate``: rule, value, verdict table; exit 0 when all rules hold, 3 when any fails.

The runs are the S1 runs of the reference values (tests/data/stats): mean RR@10 is 0.478333 for A and 0.658333
for B (hand computation: A = (1 + 1/2 + 0 + 1/3 + 1 + 1/4 + 0 + 1 + 1/2 + 1/5)/10, B likewise), so swapping
them makes a deliberately degraded candidate whose RR@10 drops by 0.18.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

DATA = Path(__file__).resolve().parents[1] / "data" / "stats"
GOOD, BAD, QRELS = str(DATA / "s1-b.run"), str(DATA / "s1-a.run"), str(DATA / "s1.qrels")


CRITERION = (
    "thresholds on mean values over the topics — no significance or non-inferiority test. A passing drop rule "
    "is not evidence of no regression: for that claim use compare --margin MEASURE=M --fail-on regression."
)


def gate(*args: str):
    result = CliRunner().invoke(main, ["gate", *args])
    return result.exit_code, result.stdout, result.stderr


def test_degraded_run_fails_with_exit_3():
    code, out, err = gate(
        "--baseline",
        GOOD,
        "--candidate",
        BAD,
        "--qrels",
        QRELS,
        "--rule",
        "RR@10 drop <= 0.05",
        "--rule",
        "P@1 >= 0.3",
    )
    assert code == 3
    assert out == (
        "gate: s1-a against s1-b\n"
        "\n"
        "rule                 value  topics  verdict\n"
        "RR@10 drop <= 0.05  0.1800      10  FAIL\n"
        "P@1 >= 0.3          0.3000      10  pass\n"
        "\n"
        "1 of 2 rule(s) passed\n"
        "\n"
        f"Criterion: {CRITERION}\n"
    )
    assert err == "Error: 1 of 2 gate rule(s) failed: RR@10 drop <= 0.05\n"


def test_improved_run_passes_with_exit_0():
    code, out, _ = gate(
        "--baseline",
        BAD,
        "--candidate",
        GOOD,
        "--qrels",
        QRELS,
        "--rule",
        "RR@10 drop <= 0.05",
        "--rule",
        "RR@10 delta >= 0.18",
        "--rule",
        "P@1 >= 0.5",
    )
    assert code == 0
    assert "3 of 3 rule(s) passed" in out


def test_boundary_is_compared_on_the_grid():
    # drop of exactly 0.18 (float arithmetic gives 0.17999999999999994) passes '<= 0.18'
    code, _, _ = gate(
        "--baseline", GOOD, "--candidate", BAD, "--qrels", QRELS, "--rule", "RR@10 drop <= 0.18"
    )
    assert code == 0


def test_class_rule_and_win_rate():
    args = [
        "--baseline",
        str(DATA / "s3-a.run"),
        "--candidate",
        str(DATA / "s3-b.run"),
        "--qrels",
        str(DATA / "s3.qrels"),
        "--topics",
        str(DATA / "s3.toml"),
    ]
    code, out, _ = gate(
        *args, "--rule", "win_rate >= 0.8", "--rule", "P@1 >= 0.65 class=deprecation", "--format", "json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["passed"] is True
    assert doc["rules"][0]["value"] == 13 / 16  # S3 win rate
    assert doc["rules"][1]["value"] == pytest.approx(0.65)  # 13 of 20 topics with the modern page at rank 1
    code, out, err = gate(*args, "--rule", "P@1 >= 1 class=canonical")
    assert code == 3
    assert "FAIL (no topics of class 'canonical'; classes: deprecation)" in out


def test_rules_from_toolkit_toml(tmp_path):
    config = tmp_path / "toolkit.toml"
    config.write_text('[gate]\nrules = ["RR@10 drop <= 0.05"]\n')
    code, out, _ = gate("--baseline", GOOD, "--candidate", BAD, "--qrels", QRELS, "--config", str(config))
    assert code == 3 and "RR@10 drop <= 0.05" in out


@pytest.mark.parametrize(
    "rule, message",
    [
        (
            "nDCG@10 drop <= x",
            "Error: cannot read gate rule 'nDCG@10 drop <= x'; expected MEASURE [value|drop|delta] "
            "<=|<|>=|> NUMBER [class=CLASS], e.g. 'nDCG@10 drop <= 0.05'",
        ),
        (
            "P@1 >= 1 topic=q1",
            "Error: gate rule 'P@1 >= 1 topic=q1': unknown filter 'topic=q1'; the only filter is class=CLASS",
        ),
    ],
)
def test_bad_rules(rule, message):
    code, _, err = gate("--baseline", GOOD, "--candidate", BAD, "--qrels", QRELS, "--rule", rule)
    assert code == 2
    assert err.strip() == message


def test_no_rules(tmp_path):
    config = tmp_path / "toolkit.toml"
    config.write_text("[workspace]\n")
    code, _, err = gate("--baseline", GOOD, "--candidate", BAD, "--qrels", QRELS, "--config", str(config))
    assert code == 2
    assert err.strip() == (
        "Error: no gate rules: pass --rule 'nDCG@10 drop <= 0.05' or set [gate] rules in toolkit.toml"
    )


def test_unknown_measure_is_a_usage_error():
    code, _, err = gate("--baseline", GOOD, "--candidate", BAD, "--qrels", QRELS, "--rule", "Foo@3 >= 1")
    assert code == 2 and err.startswith("Error: ")


def test_gate_says_which_criterion_it_used_in_json():
    code, out, _ = gate(
        "--baseline", BAD, "--candidate", GOOD, "--qrels", QRELS, "--rule", "RR@10 >= 0", "--format", "json"
    )
    doc = json.loads(out)
    assert code == 0 and doc["criterion"] == CRITERION
    assert doc["comparable"] is True and doc["failed_topics"] == {"s1-a": [], "s1-b": []}


def test_a_run_with_failed_topics_is_not_comparable_unless_allowed(tmp_path):
    """The run-failure policy (toolkit.pipeline.failures), shared with compare and audit."""
    import shutil

    run = tmp_path / "cand.run"
    shutil.copy(GOOD, run)
    failure = {
        "query_id": "q03",
        "reason": "timeout after 10 s",
        "exit_code": None,
        "stderr_tail": "",
        "duration_ms": 10000.0,
        "attempts": 3,
    }
    (tmp_path / "cand.run.json").write_text(json.dumps({"failures": [failure]}))
    args = ["--baseline", BAD, "--candidate", str(run), "--qrels", QRELS, "--rule", "RR@10 >= 0"]
    code, out, err = gate(*args)
    assert code == 3
    assert "not comparable: 1 topic failed in cand (q03)" in out
    assert err == "Error: not comparable: 1 topic failed in cand; pass --allow-failed to gate anyway\n"
    code, out, err = gate(*args, "--allow-failed")
    assert code == 0 and "1 topic failed in cand (q03; allowed with --allow-failed)" in out
