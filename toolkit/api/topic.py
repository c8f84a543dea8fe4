"""``ComparisonResult.topic``: one topic's two rankings as a DataFrame that shows itself side by side.

A plain DataFrame is what a notebook user filters, joins and plots; in an output cell, though, a reviewer
wants the two lists next to each other with grades and moves — what the HTML audit shows. ``TopicFrame`` is
a DataFrame (every pandas operation works, and returns a plain one) whose ``_repr_html_`` is the view's
static HTML (``toolkit.reports.topic_view.topic_fragment``). This module imports pandas at import time, so
it is imported only when ``topic()`` is called.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.stats.topic_view import RankedDoc, TopicView

#: The columns of each run's group, in order.
FIELDS = ("doc_id", "title", "snippet", "grade", "first_relevant", "rank_in_other")


class TopicFrame(pd.DataFrame):
    """A DataFrame of one ``TopicView``; ``_repr_html_`` shows the view (see the module docstring)."""

    _metadata = ["view"]
    view: TopicView

    @property
    def _constructor(self) -> Any:
        return pd.DataFrame  # a derived frame is plain data: the view describes this one only

    def _repr_html_(self) -> str:
        from toolkit.reports.topic_view import topic_fragment

        return topic_fragment(self.view)


def _column(docs: tuple[RankedDoc, ...], depth: int, field: str) -> list[Any]:
    values: list[Any] = []
    for i in range(depth):
        d = docs[i] if i < len(docs) else None
        if d is None:
            values.append(None)
        elif field == "doc_id":
            values.append(d.doc_id)
        elif field in ("title", "snippet"):  # None: not fetched (no doc source, or it failed)
            values.append(getattr(d.text, field) if d.text and not d.text.error else None)
        elif field == "grade":
            values.append(d.grade)
        elif field == "first_relevant":
            values.append(d.first_relevant)
        else:
            values.append(d.other_rank)
    return values


def topic_frame(view: TopicView) -> TopicFrame:
    """``view`` as a frame indexed by rank (1…k) with a column group per run (``FIELDS``); ``attrs`` hold the
    topic's query, class, bucket, changes and values."""
    depth = max(len(view.baseline_docs), len(view.candidate_docs))
    dtypes = {"grade": "Int64", "rank_in_other": "Int64", "first_relevant": "boolean"}  # <NA>: none
    columns = {}
    for run, docs in ((view.baseline, view.baseline_docs), (view.candidate, view.candidate_docs)):
        for field in FIELDS:
            columns[(run, field)] = pd.array(_column(docs, depth, field), dtype=dtypes.get(field, "string"))
    frame = TopicFrame(columns, index=pd.RangeIndex(1, depth + 1, name="rank"))
    frame.columns = pd.MultiIndex.from_tuples(list(columns), names=["run", "field"])
    frame.view = view
    o = view.outcome
    frame.attrs.update(
        query_id=view.query_id,
        query=view.query,
        query_class=view.query_class,
        baseline=view.baseline,
        candidate=view.candidate,
        bucket=o.bucket,
        rank_baseline=o.rank_baseline,
        rank_candidate=o.rank_candidate,
        changes=list(o.changes),
        values={m: {view.baseline: b, view.candidate: c} for m, b, c in view.values},
    )
    return frame
