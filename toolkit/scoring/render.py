"""Render ``RunScores`` as the ``score`` command's outputs: table, CSV/TSV, trec_eval ``-q`` text, JSON.

Text formats round to 4 decimals like trec_eval; CSV/TSV and JSON carry unrounded values (shortest repr that
round-trips), so that downstream tools never compute on rounded numbers.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from toolkit.model import TopicSet
from toolkit.scoring.evaluate import ClassScores, RunScores
from toolkit.scoring.measures import is_count

JSON_SCHEMA_VERSION = 1


def _fixed(measure: str, value: float) -> str:
    if is_count(measure) and math.isfinite(value) and value == int(value):
        return str(int(value))
    return f"{value:.4f}"


def _full(value: float) -> str:
    return repr(float(value))


def _classes(scores: RunScores, topics: TopicSet | None) -> dict[str, ClassScores]:
    return scores.by_class(topics) if topics is not None else {}


def render_table(
    results: Sequence[RunScores],
    *,
    per_query: bool = False,
    topics: TopicSet | None = None,
    by_class: bool = False,
) -> str:
    """An aligned text table: one ``all`` row per run, then classes and topics when asked."""
    measures = list(results[0].measures) if results else []
    header = ["run", "topic", "n", "empty", *measures]
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
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"


def render_delimited(
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


def render_trec(results: Sequence[RunScores], *, per_query: bool = False) -> str:
    """``measure<TAB>query_id<TAB>value`` like ``trec_eval -q``: a ``runid`` line, topics, then ``all`` rows."""
    out: list[str] = []
    for scores in results:
        out.append(f"runid\tall\t{scores.run}\n")
        if per_query:
            for q in scores.query_ids:
                values = scores.per_query[q]
                out.extend(f"{m}\t{q}\t{_fixed(m, values[m])}\n" for m in scores.measures)
        out.extend(f"{m}\tall\t{_fixed(m, scores.aggregate[m])}\n" for m in scores.measures)
    return "".join(out)


def scores_document(
    results: Sequence[RunScores], *, topics: TopicSet | None = None, versions: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The JSON document of the README's schema (``schema_version`` 1), values unrounded."""
    runs = []
    for scores in results:
        classes = _classes(scores, topics)
        runs.append(
            {
                "run": scores.run,
                "path": scores.path,
                "n": scores.n,
                "empty": list(scores.empty),
                "ignored": list(scores.ignored),
                "aggregate": {m: scores.aggregate[m] for m in scores.measures},
                "per_query": {
                    q: {m: scores.per_query[q][m] for m in scores.measures} for q in scores.query_ids
                },
                "by_class": {
                    cls: {"n": part.n, "measures": list(part.measures), "aggregate": dict(part.aggregate)}
                    for cls, part in classes.items()
                },
            }
        )
    measures = list(results[0].measures) if results else []
    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "measures": measures,
        "runs": runs,
        "versions": dict(versions or {}),
    }


def render_json(
    results: Sequence[RunScores], *, topics: TopicSet | None = None, versions: Mapping[str, str] | None = None
) -> str:
    return (
        json.dumps(scores_document(results, topics=topics, versions=versions), indent=2, ensure_ascii=False)
        + "\n"
    )
