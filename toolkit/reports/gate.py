"""Render a gate result: a rule/value/verdict table, or JSON for CI systems."""

from __future__ import annotations

import json

from toolkit.reports.numbers import num
from toolkit.reports.text import table
from toolkit.stats.gate import GateResult


def gate_table(result: GateResult) -> str:
    rows = []
    for c in result.checks:
        verdict = "pass" if c.passed else "FAIL"
        rows.append([c.rule.text, num(c.value), str(c.n), verdict + (f" ({c.detail})" if c.detail else "")])
    lines = [f"gate: {result.candidate} against {result.baseline}", ""]
    lines += table(["rule", "value", "topics", "verdict"], rows, left=(0, -1))
    passed = sum(1 for c in result.checks if c.passed)
    lines += ["", f"{passed} of {len(result.checks)} rule(s) passed"]
    return "\n".join(lines) + "\n"


def gate_json(result: GateResult) -> str:
    doc = {
        "baseline": result.baseline,
        "candidate": result.candidate,
        "passed": result.passed,
        "rules": [
            {
                "rule": c.rule.text,
                "measure": c.rule.measure,
                "quantity": c.rule.quantity,
                "op": c.rule.op,
                "threshold": c.rule.threshold,
                "class": c.rule.query_class,
                "value": c.value,
                "n": c.n,
                "passed": c.passed,
                "detail": c.detail or None,
            }
            for c in result.checks
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
