"""The document of a ``CorrelationResult`` (``correlate``): do two qrels rank the systems the same?

First the answer (τ, τ_AP and ρ with their intervals), then each run's score and rank under both qrels, then
the pairs that swap with the paired test under each qrels. Every undefined number is ``null`` in JSON with its
reason beside it.
"""

from __future__ import annotations

from typing import Any

from toolkit.reports.document import Block, Document, bullets, code_span, esc, heading, paragraph, table
from toolkit.reports.numbers import interval, num, pval, signed
from toolkit.stats.correlation import CorrelationResult


def correlation_document(result: CorrelationResult) -> Document:
    r = result
    tau = r.coefficient("tau")
    blocks: list[Block] = [
        heading("Do two qrels rank the systems the same?", 1),
        paragraph(
            f"{len(r.runs)} runs ranked by mean {code_span(r.measure)} over {r.n} topics under "
            f"{code_span(r.qrels_a)} (A, the reference) and {code_span(r.qrels_b)} (B): Kendall's τ = "
            f"{num(tau.statistic)}, {len(r.swapped)} of {len(r.runs) * (len(r.runs) - 1) // 2} pairs swap"
            + (
                f", {sum(1 for s in r.swapped if s.significant_a or s.significant_b)} of them significant "
                f"under A or B (α = {r.options.alpha:g}, unadjusted)."
                if r.swapped
                else "."
            )
        ),
        table(
            ["coefficient", "value", "95% CI", "interval"],
            [
                [
                    c.name,
                    num(c.statistic),
                    interval(None if c.low is None or c.high is None else (c.low, c.high)),
                    c.reason or c.method,
                ]
                for c in r.coefficients
            ],
            left=(0, 3),
        ),
        heading("Runs"),
        table(
            ["run", "A", "rank A", "B", "rank B", "B − A"],
            [
                [s.run, num(s.score_a), str(s.rank_a), num(s.score_b), str(s.rank_b), signed(s.delta)]
                for s in r.runs
            ],
        ),
    ]
    if r.swapped:
        blocks += [
            heading("Swapped pairs"),
            paragraph(
                esc(
                    f"first is ahead under A, second under B; p is the {r.options.test} test of the pair under "
                    f"each qrels (unadjusted); * = significant at α = {r.options.alpha:g}"
                )
            ),
            table(
                ["first", "second", "Δ A", "p A", "Δ B", "p B"],
                [
                    [
                        s.first,
                        s.second,
                        signed(s.delta_a),
                        pval(s.pvalue_a) + (" *" if s.significant_a else ""),
                        signed(s.delta_b),
                        pval(s.pvalue_b) + (" *" if s.significant_b else ""),
                    ]
                    for s in r.swapped
                ],
                left=(0, 1),
            ),
        ]
    if r.notes:
        blocks += [heading("Notes"), bullets([esc(n) for n in r.notes])]
    return Document(tuple(blocks), correlation_data(result))


def correlation_data(r: CorrelationResult) -> dict[str, Any]:
    return {
        "measure": r.measure,
        "qrels_a": r.qrels_a,
        "qrels_b": r.qrels_b,
        "n": r.n,
        "coefficients": [
            {
                "name": c.name,
                "value": c.statistic,
                "value_reason": None if c.statistic is not None else "a ranking is all ties",
                "ci95": None if c.low is None else [c.low, c.high],
                "ci95_method": c.method,
                "ci95_reason": c.reason,
            }
            for c in r.coefficients
        ],
        "runs": [
            {
                "run": s.run,
                "a": s.score_a,
                "b": s.score_b,
                "rank_a": s.rank_a,
                "rank_b": s.rank_b,
                "delta": s.delta,
            }
            for s in r.runs
        ],
        "swapped": [
            {
                "first": s.first,
                "second": s.second,
                "delta_a": s.delta_a,
                "delta_b": s.delta_b,
                "pvalue_a": s.pvalue_a,
                "pvalue_b": s.pvalue_b,
                "significant_a": s.significant_a,
                "significant_b": s.significant_b,
            }
            for s in r.swapped
        ],
        "alpha": r.options.alpha,
        "test": r.options.test,
        "adjusted": False,
        "seed": r.options.seed,
        "resamples": r.options.resamples,
        "notes": list(r.notes),
    }
