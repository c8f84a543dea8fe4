"""Render comparison results: text, Markdown (the audit document), JSON (the contract), HTML with plots.

Only this package formats results; the stats package returns frozen dataclasses. ``write_audit`` writes the
whole bundle (``NAME.md``, ``NAME.json``, ``NAME.html`` and the PNGs beside them).
"""

from __future__ import annotations

from pathlib import Path

from toolkit.model import TopicSet
from toolkit.stats.comparison import ComparisonResult


def render(result: ComparisonResult, fmt: str, *, topics: TopicSet | None = None, color: bool = False) -> str:
    """``fmt`` is table (text), md, json or html (plots embedded)."""
    if fmt == "json":
        from toolkit.reports.jsonreport import to_json

        return to_json(result)
    if fmt == "table":
        from toolkit.reports.text import render_text

        return render_text(result, color=color)
    from toolkit.reports.document import build_document

    if fmt == "md":
        from toolkit.reports.markdown import render_markdown

        return render_markdown(build_document(result, topics=topics))
    if fmt == "html":
        from toolkit.reports.html import render_html
        from toolkit.reports.plots import render_plots

        plots = render_plots(result)
        blocks = build_document(result, topics=topics, images=[(p.name, p.caption) for p in plots])
        return render_html(blocks, {p.name: p.png for p in plots})
    raise ValueError(f"unknown report format {fmt!r}")


def write_audit(
    result: ComparisonResult,
    directory: str | Path,
    *,
    name: str = "audit",
    topics: TopicSet | None = None,
    title: str | None = None,
    formats: tuple[str, ...] = ("md", "json", "html"),
) -> list[Path]:
    """Write ``NAME.md``, ``NAME.json``, ``NAME.html`` (those in ``formats``) and ``NAME-*.png`` into ``directory``."""
    from toolkit.formats.textfile import atomic_write_text
    from toolkit.reports.document import build_document
    from toolkit.reports.html import render_html
    from toolkit.reports.jsonreport import to_json
    from toolkit.reports.markdown import render_markdown
    from toolkit.reports.plots import render_plots

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    plots = render_plots(result, prefix=f"{name}-")
    blocks = build_document(result, topics=topics, images=[(p.name, p.caption) for p in plots], title=title)
    written = []
    for plot in plots:
        path = out / plot.name
        path.write_bytes(plot.png)
        written.append(path)
    renderers = {
        "md": lambda: render_markdown(blocks),
        "json": lambda: to_json(result),
        "html": lambda: render_html(blocks, {p.name: p.png for p in plots}),
    }
    for suffix in formats:
        text = renderers[suffix]()
        path = out / f"{name}.{suffix}"
        atomic_write_text(path, text)
        written.append(path)
    return written
