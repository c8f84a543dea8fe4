"""Results that render themselves: the stats and agreement result dataclasses with ``to_…`` methods.

``toolkit.stats`` and ``toolkit.agreement`` sit below ``toolkit.reports`` and must not import it (the import
contract, docs/architecture.md), so their frozen dataclasses cannot render themselves. The public API's
``ComparisonResult`` and ``AgreementResult`` are subclasses — still frozen dataclasses, still instances of the
originals, with the same fields — whose methods only delegate to ``toolkit.reports``: the one document built
for the command line, in every format. ``ComparisonResult.of(result)`` wraps a result from
``toolkit.stats.compare_runs`` (``AgreementResult.of`` one from ``toolkit.agreement.agree``).

``to_dataframe()`` is one table of the JSON contract (docs/reports.md), one row per record with nested keys
joined by ``.`` and values unrounded: a comparison's ``comparisons`` (one row per candidate and measure), an
agreement's ``pairs`` (one row per pair of assessors). Lists of records inside a record (an agreement pair's
per-topic rows) are left to the JSON.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from toolkit.agreement.result import AgreementResult as _Agreement
from toolkit.errors import UsageError
from toolkit.model import TopicSet
from toolkit.stats import ComparisonResult as _Comparison

if TYPE_CHECKING:
    import pandas as pd

    from toolkit.reports.document import Document
    from toolkit.stats.rankings import Rankings

R = TypeVar("R", bound="Rendered")


class Rendered:
    """Renderings through ``toolkit.reports``; ``_records`` names the JSON list ``to_dataframe`` tabulates."""

    _records: ClassVar[str]

    @classmethod
    def of(cls: type[R], result: Any, **extra: Any) -> R:
        """``result`` (the plain dataclass) as this type: the same field values, nothing recomputed."""
        values = {f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.init}
        return cls(**values, **extra)

    def _topics(self) -> TopicSet | None:
        return None

    def document(self, *, plots: bool = False) -> Document:
        """The report document (``.blocks``, ``.data``, ``.tables()``) every format is laid out from."""
        from toolkit.reports import document

        return document(self, topics=self._topics(), plots=plots)

    def _render(self, fmt: str) -> str:
        from toolkit.reports import render

        return render(self, fmt, topics=self._topics())

    def to_text(self) -> str:
        """The report as plain text (``--format table``)."""
        return self._render("table")

    def to_markdown(self) -> str:
        """The report as GitHub Markdown (``--format md``; plots are left out: they need files beside it)."""
        return self._render("md")

    def to_html(self) -> str:
        """The report as one self-contained HTML page, plots embedded (``--format html``)."""
        return self._render("html")

    def to_json(self) -> str:
        """The JSON document (``--format json``): ``schema_version`` first, numbers unrounded."""
        return self._render("json")

    def _repr_html_(self) -> str:
        """What a notebook shows: the HTML report as a fragment whose style touches only itself."""
        from toolkit.reports.html import render_html

        return render_html(self.document(plots=True), fragment=True)

    def to_dataframe(self) -> pd.DataFrame:
        """The JSON contract's ``_records`` list as a DataFrame (see the module docstring)."""
        import pandas as pd

        records = self.document().data[self._records]
        frame = pd.json_normalize(records, sep=".") if records else pd.DataFrame()
        nested = [c for c in frame.columns if frame[c].map(_holds_records).any()]
        return frame.drop(columns=nested)


def _holds_records(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


@dataclass(frozen=True)
class ComparisonResult(Rendered, _Comparison):
    """``toolkit.stats.ComparisonResult`` that renders itself; ``topic_set`` gives the worst-regressions
    table its query texts; ``rankings`` (each run's top k per topic, ``toolkit.stats.rankings``) and ``docs``
    (where titles come from) give ``topic()`` and ``to_html()`` the per-topic view."""

    _records: ClassVar[str] = "comparisons"
    topic_set: TopicSet | None = field(default=None, compare=False, repr=False)
    rankings: Rankings | None = field(default=None, compare=False, repr=False)
    docs: Any = field(default=None, compare=False, repr=False)

    def _topics(self) -> TopicSet | None:
        return self.topic_set

    def to_latex(self) -> str:
        """The runs × measures table for a paper (``--format latex``): significance as superscript letters
        (ranx's convention), the best value per measure in bold, test, adjustment and α in the caption; it
        needs ``\\usepackage{booktabs}``."""
        return self._render("latex")

    def to_html(self, *, topics_shown: int | None = None) -> str:
        """The report as one self-contained HTML page, plots embedded, with the per-topic view when the
        result keeps its rankings (``toolkit.compare`` does): ``topics_shown`` topics per candidate (the most
        changed first; 0 = all)."""
        if self.rankings is None:
            return self._render("html")
        from toolkit.reports import render
        from toolkit.reports.topic_view import TopicPage
        from toolkit.reports.view_limits import DEFAULT_TOPICS_SHOWN
        from toolkit.stats.topic_view import TopicViews

        shown = DEFAULT_TOPICS_SHOWN if topics_shown is None else topics_shown
        ids = TopicViews(self, self.rankings, self.topic_set).shown(shown)
        page = TopicPage(self, self._with_docs(self.rankings, ids), self.topic_set, shown)
        return render(self, "html", topics=self.topic_set, view=page)

    def topic(self, query_id: str, *, candidate: str | None = None) -> pd.DataFrame:
        """One topic's two rankings side by side: the baseline's and ``candidate``'s (default: the first).

        A DataFrame indexed by rank, with a column group per run (``doc_id``, ``title`` and ``snippet`` —
        ``<NA>`` when not fetched —, ``grade`` — ``<NA>`` when unjudged —, ``first_relevant``, and
        ``rank_in_other``, the document's rank in the other run, ``<NA>`` when not in its top k); ``.attrs`` holds the query, its class, the rank-1 bucket, the
        refusal and empty-result changes and each measure's values. In a notebook it shows as the two
        lists side by side with grades and moves."""
        from toolkit.api.topic import topic_frame
        from toolkit.stats.topic_view import TopicViews

        if self.rankings is None:
            raise UsageError(
                "this result keeps no rankings: make it with toolkit.compare(...), which keeps each run's top k"
            )
        rankings = self._with_docs(self.rankings, [query_id])
        view = TopicViews(self, rankings, self.topic_set).view(query_id, candidate)
        return topic_frame(view)

    def _with_docs(self, rankings: Rankings, query_ids: Sequence[str]) -> Rankings:
        """``rankings`` with the titles and snippets of ``query_ids``' documents from ``docs``."""
        from toolkit.api.inputs import doc_texts_of

        wanted = [d for d in rankings.doc_ids(query_ids) if d not in rankings.docs]
        if self.docs is None or not wanted:
            return rankings
        return rankings.with_docs(doc_texts_of(self.docs, wanted))


@dataclass(frozen=True)
class AgreementResult(Rendered, _Agreement):
    """``toolkit.agreement.AgreementResult`` that renders itself."""

    _records: ClassVar[str] = "pairs"
