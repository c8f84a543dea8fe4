"""The document of inferred measures (``score`` with sampled qrels): every value labelled an estimate.

One row per run and measure: the estimate of the whole-pool mean, its 95 % interval and standard error over
the judging sample, n. Measures the sample cannot estimate are listed once with the one-line reason. The JSON
keeps ``"estimate": true`` on every value, the per-topic estimates and variances, and a reason beside every
``null``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from toolkit.reports.document import Block, Document, bullets, code_span, esc, heading, paragraph, table
from toolkit.reports.numbers import interval, num
from toolkit.scoring.inferred import ESTIMATORS, EstimateResult

#: The label every estimated value carries in text (the JSON says ``"estimate": true``); an exact value (the
#: run's top k judged in full) says so.
ESTIMATE_LABEL = "(est.)"
EXACT_LABEL = "(exact: top k judged in full)"


def estimates_document(
    results: Sequence[Sequence[EstimateResult]],
    *,
    qrels: str,
    refused: Sequence[str] = (),
    per_query: bool = False,
) -> Document:
    rows: list[list[str]] = []
    for per_run in results:
        for r in per_run:
            se = None if r.variance is None else math.sqrt(r.variance)
            ci = None if r.low is None or r.high is None else (r.low, r.high)
            label = ESTIMATE_LABEL if r.estimate else EXACT_LABEL
            rows.append(
                [
                    r.run,
                    f"{r.measure} {label}",
                    str(r.n),
                    num(r.mean),
                    interval(ci),
                    num(se),
                    r.note or "",
                ]
            )
            if per_query:
                for q, t in r.per_topic.items():
                    tse = None if t.variance is None else math.sqrt(t.variance)
                    rows.append(
                        [
                            r.run,
                            f"{r.measure} {label} {q}",
                            "1",
                            num(t.value),
                            "",
                            num(tse),
                            t.reason or "",
                        ]
                    )
    blocks: list[Block] = [
        heading("Estimates from a sampled pool", 1),
        paragraph(
            f"Every value is an **estimate** of the measure with the whole pool judged, inferred from the sample "
            f"in {code_span(qrels)} (inclusion probabilities in its fifth column). The 95% interval covers the "
            "judging sample only, not the choice of topics; it is centred on the jackknife bias-corrected mean, "
            "so it need not be centred on the estimate."
        ),
        table(["run", "measure", "n", "estimate", "95% CI", "se", "note"], rows, left=(0, 1, 6)),
    ]
    if refused:
        blocks += [heading("Not estimated"), bullets([esc(line) for line in refused])]
    return Document(tuple(blocks), estimates_data(results, qrels=qrels, refused=refused))


def estimates_data(
    results: Sequence[Sequence[EstimateResult]], *, qrels: str, refused: Sequence[str] = ()
) -> dict[str, Any]:
    return {
        "qrels": qrels,
        "estimators": dict(ESTIMATORS),
        "interval": (
            "t, corrected ± t(0.975, df)·√(Σ v_t)/n, clipped to [0, 1]: corrected the mean of the jackknife "
            "bias-corrected topic estimates, v_t the stratified jackknife variance of topic t, df Satterthwaite's; "
            "a topic whose sample met no relevant document (bounded) counts 0 in the mean and its whole range "
            "[0, 1] in the interval"
        ),
        "runs": [
            {
                "run": per_run[0].run if per_run else None,
                "measures": [
                    {
                        "measure": r.measure,
                        "estimate": r.estimate,
                        "n": r.n,
                        "mean": r.mean,
                        "variance": r.variance,
                        "se": None if r.variance is None else math.sqrt(r.variance),
                        "corrected": r.corrected,
                        "df": r.df,
                        "ci95": None if r.low is None or r.high is None else [r.low, r.high],
                        "ci95_reason": r.reason,
                        "bounded": list(r.bounded),
                        "note": r.note,
                        "per_query": {
                            q: {
                                "value": t.value,
                                "variance": t.variance,
                                "reason": t.reason,
                                "bounded": t.bounded,
                            }
                            for q, t in r.per_topic.items()
                        },
                    }
                    for r in per_run
                ],
            }
            for per_run in results
        ],
        "refused": list(refused),
    }
