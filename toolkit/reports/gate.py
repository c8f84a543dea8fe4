"""The document of a gate result: one row per rule (value, topics, verdict), and its JSON for CI systems."""

from __future__ import annotations

from typing import Any

from toolkit.reports.document import Document, esc, heading, paragraph, table
from toolkit.reports.numbers import num
from toolkit.stats.gate import GateResult


def gate_document(result: GateResult) -> Document:
    rows = [
        [
            c.rule.text,
            num(c.value),
            str(c.n),
            ("pass" if c.passed else "FAIL") + (f" ({c.detail})" if c.detail else ""),
        ]
        for c in result.checks
    ]
    passed = sum(1 for c in result.checks if c.passed)
    blocks = [
        heading(esc(f"gate: {result.candidate} against {result.baseline}"), 1),
        table(["rule", "value", "topics", "verdict"], rows, left=(0, -1)),
        paragraph(f"{passed} of {len(result.checks)} rule(s) passed"),
    ]
    f = result.failures
    blocked = f.not_comparable.get(result.candidate)
    for run in (result.baseline, result.candidate):
        ids = f.failed.get(run, ())
        if ids:
            failed = f"{len(ids)} topic{'' if len(ids) == 1 else 's'} failed in {run}"
            if blocked:
                blocks.append(paragraph(esc(f"not comparable: {failed} ({' '.join(ids)})")))
            else:
                blocks.append(paragraph(esc(f"{failed} ({' '.join(ids)}; allowed with --allow-failed)")))
    blocks.append(paragraph(esc(f"Criterion: {result.criterion}")))
    return Document(tuple(blocks), gate_data(result))


def gate_data(result: GateResult) -> dict[str, Any]:
    """The JSON contract of ``gate`` (keys after ``schema_version``)."""
    return {
        "baseline": result.baseline,
        "candidate": result.candidate,
        "passed": result.passed,
        "criterion": result.criterion,
        "comparable": result.comparable,
        "failed_topics": {
            run: list(result.failures.failed.get(run, ())) for run in (result.baseline, result.candidate)
        },
        "rules": [
            {
                "rule": c.rule.text,
                "measure": str(c.rule.measure),
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
