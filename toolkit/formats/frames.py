"""pandas DataFrames of runs, qrels and topics, read column-wise into the toolkit's containers.

Column names follow the IR libraries' conventions (first present wins): query ids ``query_id`` (ir_measures),
``qid`` (PyTerrier), ``q_id`` (ranx); doc ids ``doc_id`` or ``docno``; run scores ``score``; grades
``relevance`` or ``label`` (PyTerrier), else ranx's ``score``. PyTerrier's ``docid`` — Terrier's internal
document number — is never taken for the doc id, since it matches no qrels.

Why column-wise: a run at MS MARCO scale is seven million rows; checking and grouping them with numpy and
pandas takes seconds where a Python loop over rows takes minutes. The checks are those of the file readers
(``toolkit.formats.interop`` explains them); errors name ``<DataFrame>:ROW`` with ROW the 1-based row position.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.run import DUPLICATE_DOC
from toolkit.model import Qrels, Run

WHERE = "<DataFrame>"
QUERY_ID_COLUMNS = ("query_id", "qid", "q_id")
DOC_ID_COLUMNS = ("doc_id", "docno")
RELEVANCE_COLUMNS = ("relevance", "label")
TOPIC_ID_COLUMNS = ("query_id", "qid", "q_id", "id")
TOPIC_TEXT_COLUMNS = ("query", "text", "title")

_SPACE = re.compile(r"\s")


def run_from_frame(df: Any, *, name: str) -> Run:
    """A run from a frame with query id, doc id and score columns (a PyTerrier result frame included)."""
    query_col = _column(df, QUERY_ID_COLUMNS, "query id")
    doc_col = _column(df, DOC_ID_COLUMNS, "doc id", _docid_hint(df))
    hint = ""
    if any(c in df.columns for c in RELEVANCE_COLUMNS):
        hint = "; it has a relevance/label column: is it qrels?"
    elif "rank" in df.columns:
        hint = "; with only ranks, add scores that keep the order: df.assign(score=-df['rank'])"
    score_col = _column(df, ("score",), "score", hint)
    queries, docs, codes = _ids_and_codes(df, query_col, doc_col)
    scores = _numbers(df[score_col], "score")
    return Run(results=_group(queries, docs, codes, scores), name=name)


def qrels_from_frame(df: Any, *, name: str) -> Qrels:
    """Qrels from a frame with query id, doc id and grade columns (PyTerrier ``qid, docno, label``)."""
    query_col = _column(df, QUERY_ID_COLUMNS, "query id")
    doc_col = _column(df, DOC_ID_COLUMNS, "doc id", _docid_hint(df))
    present = [c for c in (*RELEVANCE_COLUMNS, "score") if c in df.columns]
    grade_col = present[0] if present else _column(df, RELEVANCE_COLUMNS, "relevance")
    queries, docs, codes = _ids_and_codes(df, query_col, doc_col)
    values = _numbers(df[grade_col], grade_col)
    import numpy as np

    fractional = values != np.floor(values)
    if fractional.any():
        row = int(np.argmax(fractional))
        raise FormatError(
            WHERE,
            row + 1,
            f"{grade_col} {values[row].item()!r} is not an integer grade (a run's scores, not qrels?)",
        )
    return Qrels(judgments=_group(queries, docs, codes, values.astype(np.int64)), name=name)


def topic_rows(df: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each row's named fields (1-based row, fields), after checking that an id and a text column exist."""
    _empty(df)
    _column(df, TOPIC_ID_COLUMNS, "query id")
    _column(df, TOPIC_TEXT_COLUMNS, "query text")
    for row, record in enumerate(df.to_dict("records"), start=1):
        yield row, {str(k): v for k, v in record.items()}


# --------------------------------------------------------------------------- columns


def _empty(df: Any) -> None:
    if len(df) == 0:
        raise FormatError(WHERE, None, f"empty DataFrame: no rows (columns: {_names(df.columns)})")


def _names(columns: Any) -> str:
    return ", ".join(str(c) for c in columns) or "none"


def _column(df: Any, candidates: tuple[str, ...], what: str, hint: str = "") -> str:
    for name in candidates:
        if name in df.columns:
            return name
    indexed = [n for n in df.index.names if n in candidates]
    if indexed:
        hint = f"; {indexed[0]!r} is the index: call df.reset_index() first{hint}"
    raise FormatError(
        WHERE,
        None,
        f"no {what} column ({'/'.join(candidates)}) among the columns: {_names(df.columns)}{hint}",
    )


def _docid_hint(df: Any) -> str:
    if "docid" in df.columns:
        return (
            "; PyTerrier's 'docid' is Terrier's internal number, not the document id: keep the 'docno' column"
        )
    return ""


def _ids(series: Any, what: str) -> Any:
    """The column as an object array of id strings (integers written as text); anything else is an error."""
    import numbers

    import numpy as np
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    missing = series.isna().to_numpy()
    if missing.any():
        row = int(np.argmax(missing))
        raise FormatError(WHERE, row + 1, f"{what} is missing (NaN/None); every row needs one")
    kind = pd.api.types.infer_dtype(series, skipna=False)
    if kind == "integer":
        values = series.astype(str)
    elif kind == "string":
        values = series
    else:
        for row, value in enumerate(series.tolist(), start=1):
            if not (
                isinstance(value, str)
                or (isinstance(value, numbers.Integral) and not isinstance(value, bool))
            ):
                raise FormatError(
                    WHERE,
                    row,
                    f"{what} {value!r} is a {type(value).__name__}; ids must be text or integers "
                    "(a float id like 301.0 matches no qrels: read ids with dtype=str)",
                )
        values = series.map(lambda v: v if isinstance(v, str) else str(int(v)))
    strings: list[str] = values.tolist()
    # one regex scan over all ids joined (NUL is neither whitespace nor in TREC ids) instead of one per id
    if min(map(len, strings)) == 0 or _SPACE.search("\x00".join(strings)):
        row = next(i for i, v in enumerate(strings) if not v or _SPACE.search(v))
        raise FormatError(
            WHERE,
            row + 1,
            f"{what} {strings[row]!r} is empty or contains whitespace (TREC files split on it)",
        )
    return np.array(strings, dtype=object)


def _ids_and_codes(df: Any, query_col: str, doc_col: str) -> tuple[Any, Any, Any]:
    """Query ids, doc ids, and each row's query code (0, 1, … in order of first appearance)."""
    import pandas as pd

    _empty(df)
    queries = _ids(df[query_col], query_col)
    docs = _ids(df[doc_col], doc_col)
    codes, _ = pd.factorize(queries)
    return queries, docs, codes


def _numbers(series: Any, what: str) -> Any:
    """The column as finite float64 values; booleans, text and NaN are errors."""
    import numpy as np
    import pandas as pd

    if pd.api.types.is_bool_dtype(series) or not pd.api.types.is_numeric_dtype(series):
        raise FormatError(
            WHERE,
            None,
            f"column {what!r} must be numeric, found dtype {series.dtype}; convert it with pd.to_numeric",
        )
    values = series.to_numpy(dtype="float64", na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise FormatError(WHERE, row + 1, f"{what} {values[row].item()!r} is not a finite number")
    return values


def _group(queries: Any, docs: Any, codes: Any, values: Any) -> dict[str, dict[str, Any]]:
    """``{query: {doc: value}}`` with queries in order of first appearance and docs in row order.

    A (query, doc) pair given twice shows as a topic dict shorter than its rows: then the second row of the
    pair is looked up and named. (Checked here rather than by hashing every pair up front, which costs more
    than the whole conversion at MS MARCO scale.)
    """
    import numpy as np

    order = np.argsort(codes, kind="stable")
    ends = np.cumsum(np.bincount(codes)).tolist()
    first = queries[np.unique(codes, return_index=True)[1]].tolist()
    doc_list = docs[order].tolist()
    value_list = values[order].tolist()
    out: dict[str, dict[str, Any]] = {}
    start = 0
    for query, end in zip(first, ends, strict=True):
        topic = dict(zip(doc_list[start:end], value_list[start:end], strict=True))
        if len(topic) != end - start:
            seen: set[str] = set()
            for position in range(start, end):  # rows of one topic stay in row order (stable sort)
                if doc_list[position] in seen:
                    raise FormatError(
                        WHERE,
                        int(order[position]) + 1,
                        DUPLICATE_DOC.format(d=doc_list[position], q=query),
                    )
                seen.add(doc_list[position])
        out[query] = topic
        start = end
    return out
