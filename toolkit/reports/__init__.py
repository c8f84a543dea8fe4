"""Reports: every result is built into one ``Document`` and rendered as text, Markdown, HTML or JSON.

Only this package formats results; the library returns frozen dataclasses. A builder per result turns it into
a document (``comparison_document``, ``scores_document``, ``agreement_document``, ``gate_document``); a
renderer per format lays the document out (``render``). ``write_audit`` writes the audit bundle
(``NAME.md``, ``NAME.json``, ``NAME.html`` and the PNG plots beside them). See docs/reports.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.model import TopicSet
from toolkit.reports.document import SCHEMA_VERSION, Block, Document, mark_pilot, pilot_line, table

if TYPE_CHECKING:
    from toolkit.reports.topic_view import TopicPage

#: The formats every document renders to (``table`` is the plain-text layout).
FORMATS = ("table", "md", "html", "json")

__all__ = [
    "FORMATS",
    "SCHEMA_VERSION",
    "Block",
    "Document",
    "document",
    "mark_pilot",
    "pilot_line",
    "render",
    "table",
    "write_audit",
    "write_markdown",
]


def document(result: Any, *, topics: TopicSet | None = None, plots: bool = False) -> Document:
    """The document of a ``ComparisonResult``, ``AgreementResult`` or ``GateResult`` with default options.

    ``plots`` draws a comparison's plots into the document (for HTML). Scores need their options
    (per topic, per class, pool bias): build them with ``reports.scores.scores_document``.
    """
    from toolkit.stats.comparison import ComparisonResult

    if isinstance(result, ComparisonResult):
        from toolkit.reports.comparison import comparison_document
        from toolkit.reports.plots import render_plots

        return comparison_document(result, topics=topics, plots=render_plots(result) if plots else ())
    # each kind's module is loaded only to test a result that is not a comparison (``compare`` needs neither)
    from toolkit.agreement.result import AgreementResult
    from toolkit.stats.gate import GateResult

    if isinstance(result, AgreementResult):
        from toolkit.reports.agreement import agreement_document

        return agreement_document(result)
    if isinstance(result, GateResult):
        from toolkit.reports.gate import gate_document

        return gate_document(result)
    raise TypeError(
        f"no report for {type(result).__name__}; pass a Document, ComparisonResult, AgreementResult or GateResult"
    )


def render(
    subject: Any,
    fmt: str,
    *,
    topics: TopicSet | None = None,
    color: bool = False,
    view: TopicPage | None = None,
) -> str:
    """``subject`` (a ``Document``, or a result ``document`` accepts) as ``fmt``: table (text), md, html, json,
    or — for a comparison — latex (``toolkit.reports.latex``).

    ``color`` bolds headings in the text layout (for a terminal). A comparison rendered as HTML gets its
    plots embedded, and with ``view`` its per-topic view (``toolkit.reports.topic_view``).
    """
    if fmt == "latex":
        from toolkit.reports.latex import render_latex

        return render_latex(subject if isinstance(subject, Document) else document(subject, topics=topics))
    if fmt not in FORMATS:
        raise ValueError(f"unknown report format {fmt!r}; one of {', '.join(FORMATS)}")
    doc = subject if isinstance(subject, Document) else document(subject, topics=topics, plots=fmt == "html")
    if fmt == "json":
        from toolkit.reports.jsonreport import render_json

        return render_json(doc)
    if fmt == "table":
        from toolkit.reports.text import render_text

        return render_text(doc, color=color)
    if fmt == "md":
        from toolkit.reports.markdown import render_markdown

        return render_markdown(doc)
    if view is not None:
        return view.render(doc)
    from toolkit.reports.html import render_html

    return render_html(doc)


def write_markdown(
    result: Any, path: str | Path, *, topics: TopicSet | None = None, pilot: Sequence[str] = ()
) -> list[Path]:
    """A comparison's report as Markdown at ``path``, its plots beside it as ``STEM-*.png`` (paths written)."""
    path = Path(path)
    written = write_audit(result, path.parent, name=path.stem, topics=topics, formats=("md",), pilot=pilot)
    if written[-1] != path:  # report.markdown: keep the name asked for
        written[-1] = written[-1].replace(path)
    return written


def write_audit(
    result: Any,
    directory: str | Path,
    *,
    name: str = "audit",
    topics: TopicSet | None = None,
    title: str | None = None,
    formats: tuple[str, ...] = ("md", "json", "html"),
    pilot: Sequence[str] = (),
    preflight: Mapping[str, Mapping[str, Any]] | None = None,
    view: TopicPage | None = None,
) -> list[Path]:
    """Write ``NAME-*.png`` and ``NAME.md``, ``NAME.json``, ``NAME.html`` (those in ``formats``) into ``directory``.

    ``result`` is a ``ComparisonResult``; every file renders the one document built here. ``pilot`` names the
    pilot runs (the banner on top), ``preflight`` each run's pre-flight record (shown in the setup), ``view``
    the per-topic view of the HTML page.
    """
    from toolkit.formats.output import write_output
    from toolkit.formats.textfile import atomic_write_text
    from toolkit.reports.comparison import comparison_document
    from toolkit.reports.plots import render_plots

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    plots = render_plots(result, prefix=f"{name}-")
    doc = mark_pilot(
        comparison_document(result, topics=topics, title=title, plots=plots, preflight=preflight), pilot
    )
    written = []
    for plot in plots:
        path = out / plot.name
        write_output(path, plot.png)
        written.append(path)
    for suffix in formats:
        path = out / f"{name}.{suffix}"
        atomic_write_text(path, render(doc, suffix, view=view))
        written.append(path)
    return written
