"""The document of a ``PlanResult`` (``plan``): topics needed, Δ detectable, judgments a study would cost."""

from __future__ import annotations

from typing import Any

from toolkit.reports.document import Block, Document, code_span, esc, heading, paragraph, table
from toolkit.reports.numbers import num
from toolkit.stats.topicset import PlanResult


def plan_document(result: PlanResult) -> Document:
    r = result
    level = f"α = {r.alpha:g}" + (
        f" split over {r.comparisons} comparisons (α/m = {r.test_alpha:.4g})" if r.comparisons > 1 else ""
    )
    lines: list[str] = []
    if r.needed is not None:
        lines.append(
            f"To detect Δ = {r.needed.delta:g} in {code_span(r.measure)} with the paired t test at {esc(level)} and "
            f"power {r.power:g}: **{r.needed.topics} topics** (σ̂_d = {r.used.sd:.4f}, effect size "
            f"{r.needed.effect_size:.3f}, power at that n {r.needed.achieved_power:.4f})."
        )
    d = r.detectable
    if d.delta is not None:
        lines.append(
            f"With {d.topics} topics the smallest Δ detectable at power {r.power:g} is **{d.delta:.4f}** "
            "(the audit's minimum detectable effect when the power is 0.8)."
        )
    else:
        lines.append(esc(f"With {d.topics} topics no detectable Δ is given: {d.reason}."))
    blocks: list[Block] = [
        heading("Topic-set-size plan (Sakai 2016)", 1),
        *(paragraph(line) for line in lines),
    ]
    blocks += [
        heading("Pilot"),
        paragraph(esc(f"{r.source}; {r.pilot_topics} topics; measure {r.measure}.")),
        table(
            ["variance of the differences", "σ̂²_d", "σ̂_d", "topics", "runs", "used"],
            [
                [
                    v.method + (f" ({v.pair[0]} vs {v.pair[1]})" if v.pair else ""),
                    f"{v.variance:.6f}",
                    f"{v.sd:.4f}",
                    str(v.topics),
                    str(v.runs),
                    "yes" if v is r.used else "",
                ]
                for v in r.variances
            ],
            left=(0, 5),
        ),
    ]
    if r.judging:
        study = r.judging[0].topics
        blocks += [
            heading("Judgments"),
            paragraph(esc(f"for a study of {study} topics, from the pilot's runs")),
            table(
                ["strategy", "per topic", "total", "what"],
                [[c.strategy, num(c.per_topic, 1), str(c.total), c.note] for c in r.judging],
                left=(0, 3),
            ),
        ]
    return Document(tuple(blocks), plan_data(result))


def plan_data(r: PlanResult) -> dict[str, Any]:
    return {
        "measure": r.measure,
        "source": r.source,
        "pilot_topics": r.pilot_topics,
        "runs": list(r.runs),
        "alpha": r.alpha,
        "comparisons": r.comparisons,
        "test_alpha": r.test_alpha,
        "power": r.power,
        "variances": [
            {
                "method": v.method,
                "variance": v.variance,
                "sd": v.sd,
                "topics": v.topics,
                "runs": v.runs,
                "pair": list(v.pair) if v.pair else None,
                "used": v is r.used,
            }
            for v in r.variances
        ],
        "needed": None
        if r.needed is None
        else {
            "delta": r.needed.delta,
            "topics": r.needed.topics,
            "effect_size": r.needed.effect_size,
            "achieved_power": r.needed.achieved_power,
        },
        "needed_reason": "no --delta given" if r.needed is None else None,
        "detectable": {
            "topics": r.detectable.topics,
            "delta": r.detectable.delta,
            "reason": r.detectable.reason,
        },
        "judging": [
            {
                "strategy": c.strategy,
                "per_topic": c.per_topic,
                "topics": c.topics,
                "total": c.total,
                "what": c.note,
            }
            for c in r.judging
        ],
    }
