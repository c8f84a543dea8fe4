"""Render a document as plain text for a terminal or a pipe: aligned tables, paste-friendly, no colour off a TTY.

Layout: blocks are separated by one blank line, except that a heading sits directly on top of what it heads.
Tables are columns padded to width, two spaces apart, no rule line (so ``awk``/``column`` read them), text
left-aligned and numbers right-aligned as the document says. Markdown's inline `code` and **bold** marks are
dropped. Colour is added only when the caller says the output is a TTY (headings in bold); the text itself
never depends on it, so the same inputs and seed give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolkit.formats.text import visible
from toolkit.reports.document import Block, Document, spans


def plain(text: str) -> str:
    """Inline markup removed (`code` → code, **bold** → bold, ``\\x`` → x: ``document.spans``), then control
    characters from run names, ids and topic text made visible (``toolkit.formats.text.visible``), since this
    layout goes to terminals."""
    if "`" in text or "*" in text or "\\" in text:
        text = "".join(literal for _, literal in spans(text))
    return visible(text)


def table_lines(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """The header line and one line per row, each column padded to its widest cell."""
    widths = [max(len(c) for c in col) for col in zip(headers, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(cells, widths, align, strict=True)]
        return "  ".join(parts).rstrip()

    return [line(headers), *(line(r) for r in rows)]


def render_text(document: Document, *, color: bool = False) -> str:
    out: list[str] = []
    under_heading = True  # no blank line before the first block
    for block in document.blocks:
        if not under_heading:
            out.append("")
        under_heading = block.kind in ("h2", "h3")
        out += _block(block, color)
    return "\n".join(out) + "\n"


def _block(block: Block, color: bool) -> list[str]:
    if block.kind in ("h1", "h2", "h3"):
        text = plain(block.text)
        return [f"\x1b[1m{text}\x1b[0m" if color else text]
    if block.kind == "p":
        return [plain(block.text)]
    if block.kind == "list":
        return [f"- {plain(row[0])}" for row in block.rows]
    if block.kind == "notes":
        return [f"  [{i}] {plain(row[0])}" for i, row in enumerate(block.rows, start=1)]
    if block.kind == "table":
        headers = tuple(visible(h, one_line=True) for h in block.headers)
        rows = [tuple(visible(c, one_line=True) for c in row) for row in block.rows]
        return table_lines(headers, rows, block.align)
    if block.kind == "image":
        return [f"{visible(block.text)}: {block.rows[0][0]}"]
    raise ValueError(f"cannot render block kind {block.kind!r} as text")
