"""The ``score`` command's outputs: the scores document (table, Markdown, HTML, JSON) and the data layouts.

The document has one table (a row per run, then per class and per topic when asked) and, with a pool-bias
check, a second one; text rounds to 4 decimals like trec_eval (counts as integers). Two layouts are data
exports rather than views of the document, and carry unrounded values (shortest repr that round-trips) so
that downstream tools never compute on rounded numbers: wide CSV/TSV (``run,scope,id,n,<measures…>``) and
trec_eval's ``-q`` text (``measure<TAB>query_id<TAB>value``, 4 decimals as trec_eval prints them).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.model import TopicSet
from toolkit.reports.document import Block, Document, esc, heading, paragraph, table
from toolkit.scoring.evaluate import ClassScores, RunScores
from toolkit.scoring.measures import is_count

if TYPE_CHECKING:
    from toolkit.pooling.diagnostics import PoolBiasResult
    from toolkit.scoring.refusal import RefusalScores
    from toolkit.stats.correlation import RankAgreement


def _fixed(measure: str, value: float) -> str:
    if is_count(measure) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return f"{value:.4f}"


def _full(value: float) -> str:
    return repr(float(value))


def _classes(scores: RunScores, topics: TopicSet | None) -> dict[str, ClassScores]:
    return scores.by_class(topics) if topics is not None else {}


def scores_document(
    results: Sequence[RunScores],
    *,
    per_query: bool = False,
    topics: TopicSet | None = None,
    by_class: bool = False,
    versions: Mapping[str, str] | None = None,
    pool_bias: PoolBiasResult | None = None,
    refusal: Sequence[RefusalScores] | None = None,
    primary: str | None = None,
    pool_bias_agreement: Mapping[str, RankAgreement] | None = None,
) -> Document:
    """One ``all`` row per run, then its classes (``by_class``) and topics (``per_query``); then, when the topic
    set declares topics ``expect = "empty"``, a note that ``n`` leaves them out and each run's refusal outcome
    (``refusal``, one per run, ``toolkit.reports.refusal``); pool bias after. A declared ``primary`` measure
    is marked in the header as ``compare`` marks it, and named in the JSON."""
    from toolkit.reports.refusal import declared, n_note, score_blocks

    measures = list(results[0].measures) if results else []
    rows: list[list[str]] = []
    for scores in results:
        rows.append(
            [
                scores.run,
                "all",
                str(scores.n),
                str(len(scores.empty)),
                *(_fixed(m, scores.aggregate[m]) for m in measures),
            ]
        )
        if by_class:
            for cls, part in _classes(scores, topics).items():
                cells = [_fixed(m, part.aggregate[m]) if m in part.aggregate else "-" for m in measures]
                rows.append([scores.run, f"class:{cls}", str(part.n), "", *cells])
        if per_query:
            empty = set(scores.empty)
            for q in scores.query_ids:
                values = scores.per_query[q]
                rows.append(
                    [scores.run, q, "1", "1" if q in empty else "", *(_fixed(m, values[m]) for m in measures)]
                )
    header = [f"{m} (primary)" if m == primary else m for m in measures]
    blocks: list[Block] = [table(["run", "topic", "n", "empty", *header], rows, left=(0, 1))]
    if refusal and declared(refusal):
        blocks += [paragraph(n_note(refusal[0])), *score_blocks(refusal, topics, by_class=by_class)]
    data = scores_data(
        results, topics=topics if by_class or topics else None, versions=versions, refusal=refusal
    )
    if primary is not None:
        data["primary"] = primary
    if pool_bias is not None:
        blocks += _pool_bias(pool_bias, pool_bias_agreement or {})
        data["pool_bias"] = _pool_bias_data(pool_bias, pool_bias_agreement or {})
    return Document(tuple(blocks), data)


def _pool_bias(result: PoolBiasResult, agreement: Mapping[str, RankAgreement]) -> list[Block]:
    """A large negative delta means the run's score rests on docs only it found; τ below 1 that leaving a run
    out of the pool changes how it ranks."""
    rows = [
        [
            row.run,
            row.measure,
            f"{row.full:.4f}",
            f"{row.without_own:.4f}",
            f"{row.delta:+.4f}",
            str(row.unique_docs),
            str(row.unique_relevant),
        ]
        for row in result.rows
    ]
    blocks = [
        heading(esc(f"Pool bias (leave-one-run-out, {result.source}, n={result.n})")),
        table(["run", "measure", "full", "without", "delta", "unique", "uniq.rel"], rows, left=(0, 1)),
    ]
    if agreement:
        blocks.append(
            table(
                ["measure", "Kendall's τ", "τ_AP", "swapped pairs"],
                [
                    [m, _coef(a.tau), _coef(a.tau_ap), ", ".join(f"{x}/{y}" for x, y in a.swapped) or "none"]
                    for m, a in agreement.items()
                ],
                left=(0, 3),
            )
        )
    return blocks


def _coef(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _pool_bias_data(result: PoolBiasResult, agreement: Mapping[str, RankAgreement]) -> dict[str, Any]:
    return {
        "ranking": {
            m: {"tau": a.tau, "tau_ap": a.tau_ap, "swapped": [list(pair) for pair in a.swapped]}
            for m, a in agreement.items()
        },
        "source": result.source,
        "n": result.n,
        "measures": list(result.measures),
        "rows": [
            {
                "run": row.run,
                "measure": row.measure,
                "full": row.full,
                "without_own": row.without_own,
                "delta": row.delta,
                "unique_docs": row.unique_docs,
                "unique_relevant": row.unique_relevant,
            }
            for row in result.rows
        ],
    }


def _per_query(scores: RunScores) -> dict[str, Mapping[str, float]]:
    """Each topic's values in measure order; a topic's own mapping when it is in that order already (so a
    million topics that share one mapping of zeros are not copied a million times).

    Built at C speed: the topics' mappings in one pass, then only the distinct mappings (a million topics
    nobody judged share one) are looked at for their order."""
    measures = list(scores.measures)
    ids, per_query = tuple(scores.query_ids), scores.per_query
    if tuple(per_query) == ids:  # the scorer's own order: a copy, not a lookup per topic
        out = dict(per_query)
    else:
        out = dict(zip(ids, map(per_query.__getitem__, ids), strict=True))
    values = list(out.values())
    distinct = dict(zip(map(id, values), values, strict=True))
    reordered = {key: {m: v[m] for m in measures} for key, v in distinct.items() if list(v) != measures}
    if reordered:
        out = {q: reordered.get(id(v), v) for q, v in out.items()}
    return out


def scores_data(
    results: Sequence[RunScores],
    *,
    topics: TopicSet | None = None,
    versions: Mapping[str, str] | None = None,
    refusal: Sequence[RefusalScores] | None = None,
) -> dict[str, Any]:
    """The JSON contract of ``score`` (keys after ``schema_version``), values unrounded; each run's ``refusal``
    when given (one per run, in order). ``providers`` names, per measure, the provider that computed it
    (``toolkit.scoring.provider``: ``trec_toolkit`` for the measure table's kernels)."""
    from toolkit.reports.refusal import refusal_data

    runs = []
    for index, scores in enumerate(results):
        classes = _classes(scores, topics)
        runs.append(
            {
                "run": scores.run,
                "path": scores.path,
                "n": scores.n,
                "empty": list(scores.empty),
                "ignored": list(scores.ignored),
                "aggregate": {m: scores.aggregate[m] for m in scores.measures},
                "per_query": _per_query(scores),
                "by_class": {
                    cls: {"n": part.n, "measures": list(part.measures), "aggregate": dict(part.aggregate)}
                    for cls, part in classes.items()
                },
            }
        )
        if refusal is not None:
            runs[-1]["refusal"] = refusal_data(refusal[index], topics)
    return {
        "measures": list(results[0].measures) if results else [],
        "providers": dict(results[0].providers) if results else {},
        "runs": runs,
        "versions": dict(versions or {}),
    }


def scores_delimited(
    results: Sequence[RunScores],
    *,
    delimiter: str = ",",
    per_query: bool = False,
    topics: TopicSet | None = None,
    by_class: bool = False,
) -> str:
    """Wide CSV/TSV: ``run,scope,id,n,<measures…>``; scope is ``all``, ``class`` or ``query``; unrounded."""
    measures = list(results[0].measures) if results else []
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["run", "scope", "id", "n", *measures])
    for scores in results:
        writer.writerow([scores.run, "all", "all", scores.n, *(_full(scores.aggregate[m]) for m in measures)])
        if by_class:
            for cls, part in _classes(scores, topics).items():
                writer.writerow(
                    [
                        scores.run,
                        "class",
                        cls,
                        part.n,
                        *(_full(part.aggregate[m]) if m in part.aggregate else "" for m in measures),
                    ]
                )
        if per_query:
            for q in scores.query_ids:
                values = scores.per_query[q]
                writer.writerow([scores.run, "query", q, 1, *(_full(values[m]) for m in measures)])
    return buffer.getvalue()


def scores_trec(results: Sequence[RunScores], *, per_query: bool = False) -> str:
    """trec_eval's ``-q -c`` text with trec_eval's measure names and layout (``toolkit.reports.trec_eval``)."""
    from toolkit.reports.trec_eval import render_lines, scores_lines

    return render_lines(scores_lines(results, per_query=per_query))
