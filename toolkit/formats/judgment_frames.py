"""Judgments held in a pandas DataFrame (``Campaign.judgments()``, a spreadsheet read with pandas) as rows.

Columns: ``assessor``, the query id (``query_id``/``qid``/``q_id``), the doc id (``doc_id``/``docno``) and
``grade``; optionally ``action`` (``judge``, ``skip``, ``unrateable``), ``note`` and ``duration_ms``. Other
columns are ignored, so the frame ``Campaign.judgments()`` returns reads back as it is.

Each row is checked as a line of a JSONL judgments file (``toolkit.formats.judgments``), after undoing what a
DataFrame does to values: numpy scalars become Python numbers, a missing value (``NaN``, ``<NA>``, ``None``)
becomes null, an integer id becomes text, and a grade of ``2.0`` (a grade column with a skip in it holds
floats) becomes 2. A fractional grade or a float id stays what it is and is refused at its row.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from toolkit.formats.frames import DOC_ID_COLUMNS, QUERY_ID_COLUMNS, WHERE
from toolkit.formats.judgments import JudgmentRow, judgment_rows_from_records

#: The columns a judgments frame must have: assessor, a query id, a doc id, grade.
REQUIRED = "assessor, query_id (or qid), doc_id (or docno) and grade"


def judgments_from_frame(df: Any) -> list[JudgmentRow]:
    """Every row of ``df`` as a checked ``JudgmentRow`` (errors ``<DataFrame>:ROW: …``, rows from 1)."""
    columns = [str(c) for c in df.columns]
    query = next((c for c in QUERY_ID_COLUMNS if c in columns), None)
    doc = next((c for c in DOC_ID_COLUMNS if c in columns), None)
    if "assessor" not in columns or "grade" not in columns or query is None or doc is None:
        raise TypeError(
            f"a judgments DataFrame needs the columns {REQUIRED}; found {', '.join(columns) or 'none'}"
        )
    renamed = {query: "query_id", doc: "doc_id"}
    kept = ["assessor", query, doc, "grade", *(c for c in ("action", "note", "duration_ms") if c in columns)]
    records = (
        {renamed.get(k, k): _plain(k, v) for k, v in record.items()} for record in df[kept].to_dict("records")
    )
    return judgment_rows_from_records(records, where=WHERE)


def _plain(column: str, value: Any) -> Any:
    if value is None or _missing(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()  # numpy scalar → Python
    if column in ("assessor", "query_id", "qid", "q_id", "doc_id", "docno"):
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return str(value)
    elif column in ("grade", "duration_ms") and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _missing(value: Any) -> bool:
    """``NaN`` and pandas' ``NA``/``NaT``; pandas is loaded here, since the value came from a DataFrame."""
    if isinstance(value, float):
        return math.isnan(value)
    import pandas as pd

    return bool(pd.isna(value)) if pd.api.types.is_scalar(value) else False
