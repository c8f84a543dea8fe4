"""The one document model: every result is built into a ``Document`` once, and every renderer reads it.

A ``Document`` holds the blocks people read (headings, paragraphs, lists, tables, images) and the ``data``
programs read (the JSON contract of the result, unrounded). The text, Markdown, HTML and JSON renderers only
lay a document out; none of them decides what is shown. That is why a table has the same columns in every
format, and why a change of content is made in one builder (``comparison``, ``scores``, ``agreement``,
``gate``) instead of once per format.

Cells are already formatted strings (rounding happens in ``numbers`` when the document is built) and are
literal: a cell, a table header or an image caption is shown exactly as it is, whatever characters it holds.
Headings, paragraphs and list items carry inline markup: `code`, **bold**, and a backslash before a character
to take it literally (``spans`` reads it). Text that comes from outside — run names, topic ids and text,
paths, class names, a system's output — goes in through ``esc`` (literal text) or ``code_span``, so
that a run named ``a`b`` or ``**x**`` stays that name. Each renderer then makes the literal text safe for its
format: the HTML renderer escapes it, the Markdown renderer escapes HTML and Markdown's own characters (a
``|`` cannot end a table cell, a ``<script>`` is text), the text renderer makes control characters visible.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: Version of every JSON document the toolkit writes (``compare``, ``audit``, ``score``, ``agree``, ``gate``);
#: the JSON renderer puts it first. Raise it when a key is removed or changes meaning, not when one is added.
SCHEMA_VERSION = 3

#: The line at the top of every report made from a pilot run (``toolkit.pipeline.pilot`` decides which).
PILOT_BANNER = "PILOT — not for the record"

#: Block kinds: headings h1–h3, a paragraph, a bulleted list, a numbered list (notes that table cells refer
#: to as ``[1]``), a table, and an image (a PNG of ``Document.images``).
KINDS = ("h1", "h2", "h3", "p", "list", "notes", "table", "image")


@dataclass(frozen=True)
class Block:
    """One block. ``rows`` holds list items (one cell each) or table rows; ``align`` one ``l``/``r`` per column."""

    kind: str
    text: str = ""
    headers: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    align: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown block kind {self.kind!r}; one of {', '.join(KINDS)}")
        if self.kind == "table" and len(self.align) != len(self.headers):
            raise ValueError("a table needs one alignment per column; build it with reports.document.table()")


@dataclass(frozen=True)
class Document:
    """A report: ``blocks`` for people, ``data`` for programs, ``images`` (file name → PNG) the blocks show."""

    blocks: tuple[Block, ...]
    data: Mapping[str, Any] = field(default_factory=dict)
    images: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def title(self) -> str | None:
        return next((b.text for b in self.blocks if b.kind == "h1"), None)

    def tables(self) -> list[Block]:
        return [b for b in self.blocks if b.kind == "table"]


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, left: Sequence[int] = (0,)) -> Block:
    """The table helper every builder uses: columns in ``left`` (negative counts from the end) are text,
    left-aligned; the others are numbers, right-aligned (docs/design.md §7: text left, numbers right)."""
    n = len(headers)
    lefts = {i % n for i in left} if n else set()
    cells = tuple(tuple(str(c) for c in row) for row in rows)
    for row in cells:
        if len(row) != n:
            raise ValueError(f"table row has {len(row)} cells for {n} columns: {row!r}")
    align = "".join("l" if i in lefts else "r" for i in range(n))
    return Block("table", headers=tuple(headers), rows=cells, align=align)


#: The characters of the inline markup, escaped by ``esc``.
_MARKUP = re.compile(r"([\\`*])")

#: Span kinds ``spans`` yields: plain text, a code span, bold text.
TEXT, CODE, BOLD = "text", "code", "bold"


def esc(text: object) -> str:
    """``text`` (a run name, a topic id, a path …) as literal text inside a heading, paragraph or list item."""
    return _MARKUP.sub(r"\\\1", str(text))


def code_span(text: object) -> str:
    """``text`` as one code span, whatever it holds (backticks included)."""
    return f"`{esc(text)}`"


def spans(text: str) -> list[tuple[str, str]]:
    """The inline markup of a heading, paragraph or list item as ``(kind, literal text)`` pairs: ``text``,
    ``code`` (between backticks) and ``bold`` (between ``**``). A backslash takes the next character
    literally; an unmatched backtick or ``**`` is literal too."""
    out: list[tuple[str, str]] = []
    buffer: list[str] = []
    i, n = 0, len(text)

    def flush() -> None:
        if buffer:
            out.append((TEXT, "".join(buffer)))
            buffer.clear()

    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            buffer.append(text[i + 1])
            i += 2
            continue
        closer = "`" if c == "`" else "**" if text.startswith("**", i) else None
        if closer is not None:
            literal, end = _until(text, i + len(closer), closer)
            if end is not None and literal:
                flush()
                out.append((CODE if closer == "`" else BOLD, literal))
                i = end + len(closer)
                continue
        buffer.append(c)
        i += 1
    flush()
    return out


def _until(text: str, start: int, closer: str) -> tuple[str, int | None]:
    """The literal text from ``start`` to the first unescaped ``closer``, and where that closer is."""
    chars: list[str] = []
    i = start
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            chars.append(text[i + 1])
            i += 2
        elif text.startswith(closer, i):
            return "".join(chars), i
        else:
            chars.append(text[i])
            i += 1
    return "", None


def heading(text: str, level: int = 2) -> Block:
    return Block(f"h{level}", text)


def paragraph(text: str) -> Block:
    return Block("p", text)


def bullets(items: Sequence[str], *, kind: str = "list") -> Block:
    """A bulleted list (``kind="notes"``: the numbered notes that cells refer to as ``[1]``, ``[2]`` …)."""
    return Block(kind, rows=tuple((item,) for item in items))


def mark_pilot(document: Document, runs: Sequence[str]) -> Document:
    """``document`` with the pilot banner above everything (naming the pilot ``runs``) and ``pilot`` first in
    its data; the document itself when ``runs`` is empty."""
    if not runs:
        return document
    return Document(
        (paragraph(pilot_line(runs, code=True)), *document.blocks),
        {"pilot": list(runs), **document.data},
        document.images,
    )


def pilot_line(runs: Sequence[str], *, code: bool = False) -> str:
    """``PILOT — not for the record (pilot run: NAME)``, in the document's inline markup when ``code``."""
    names = ", ".join(code_span(r) if code else r for r in runs)
    label = f"**{PILOT_BANNER}**" if code else PILOT_BANNER
    return f"{label} (pilot run{'s' if len(runs) > 1 else ''}: {names})"
