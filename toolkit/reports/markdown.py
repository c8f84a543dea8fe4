"""Render a document as Markdown (GitHub flavour): the audit file and ``--format md``.

Tables carry the document's alignment in their delimiter row (``---`` text, ``---:`` numbers). Images are links
to the PNG files written beside the Markdown file.

Everything the document holds as literal text — cells, headers, captions, and the text of headings,
paragraphs and list items outside their markup (``document.spans``) — is escaped, because it carries run
names, topic ids and text, and a system's output: a ``<`` that would open a tag and an ``&`` that would open an
entity become entities (a run named ``<script>`` is text, never a tag), the characters of Markdown's inline
syntax are backslash-escaped (a ``|`` cannot end a table cell, a ``*`` or ``](`` starts nothing), line breaks
become spaces (a name cannot start a heading or a list), control characters are shown made visible
(``toolkit.formats.text.visible``: the file carries no ESC for a terminal to obey), and a text that would open a block at the start of a
line (``#``, ``-``, ``1.``, ``>``, ``[``) is escaped there. A code span whose text Markdown cannot hold between
backticks literally (backticks, ``|``, ``<``, ``&``) is written as ``<code>`` with the text escaped instead.
"""

from __future__ import annotations

import re

from toolkit.formats.text import visible
from toolkit.reports.document import BOLD, CODE, Document, spans

#: Markdown's inline punctuation, backslash-escaped in literal text: always the characters that open code,
#: emphasis, strikethrough or a table cell; ``_`` only where it can start or end emphasis (at a word boundary,
#: so ``zero_method`` stays readable); ``]`` only where it would close a link (``](`` or ``][``).
_PUNCTUATION = re.compile(r"([\\`*|~])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|\](?=[(\[])")
#: What would start raw HTML or an autolink (``<`` before a letter, ``/``, ``!``, ``?``) or an entity (``&``
#: before a name or number and ``;``): written as entities, so ``p < α`` and ``<= 0.05`` stay as they are.
_HTML = re.compile(r"<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]+;)")
_ENTITIES = {"<": "&lt;", "&": "&amp;"}
#: A block marker at the start of a line: a heading, a list item, a quote, a link reference definition.
_BLOCK_START = re.compile(r"^([#+>\[-]|\d+(?=[.)]))")


def _literal(text: str) -> str:
    """Literal text made inert: one line, control characters made visible (``visible``: an ESC is shown as
    ␛, never written), HTML and entity starts as entities, Markdown punctuation escaped."""
    text = visible(" ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text)
    text = _PUNCTUATION.sub(lambda m: "\\" + m.group(0), text)
    return _HTML.sub(lambda m: _ENTITIES[m.group(0)], text)


def _code(text: str) -> str:
    """A code span: between backticks when Markdown keeps its text as it is, else ``<code>`` around the text
    escaped (a backtick, ``|``, ``<`` or ``&`` inside, or spaces at its ends)."""
    text = visible(" ".join(text.splitlines()) if ("\n" in text or "\r" in text) else text)
    if text.strip() and not re.search(r"[`|<>&]", text) and text == text.strip():
        return f"`{text}`"
    return f"<code>{_literal(text)}</code>"


def inline(text: str) -> str:
    """A heading's, paragraph's or list item's text: markup kept, literal parts escaped."""
    out = []
    for kind, literal in spans(text):
        if kind == CODE:
            out.append(_code(literal))
        elif kind == BOLD:
            out.append(f"**{_literal(literal)}**")
        else:
            out.append(_literal(literal))
    return _BLOCK_START.sub(lambda m: _escape_start(m.group(1)), "".join(out).lstrip(), count=1)


def _escape_start(token: str) -> str:
    return token + "\\" if token[0].isdigit() else "\\" + token


def _cell(text: str) -> str:
    return _literal(text)


def render_markdown(document: Document) -> str:
    out: list[str] = []
    for block in document.blocks:
        if block.kind in ("h1", "h2", "h3"):
            out += ["#" * int(block.kind[1]) + " " + inline(block.text), ""]
        elif block.kind == "p":
            out += [inline(block.text), ""]
        elif block.kind == "list":
            out += [f"- {inline(row[0])}" for row in block.rows] + [""]
        elif block.kind == "notes":
            out += [f"{i}. {inline(row[0])}" for i, row in enumerate(block.rows, start=1)] + [""]
        elif block.kind == "table":
            out.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in block.align) + "|")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif block.kind == "image":
            out += [f"![{_literal(block.text)}]({block.rows[0][0]})", ""]
        else:
            raise ValueError(f"cannot render block kind {block.kind!r} as Markdown")
    return "\n".join(out).rstrip("\n") + "\n"
