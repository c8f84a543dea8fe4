"""Render a document as one self-contained HTML page, its images embedded as base64 PNGs.

Every literal text of the document (``document.spans``: run names, topic ids and text, a system's output) has
its control characters made visible (``toolkit.formats.text.visible``) and is HTML-escaped; the document's
markup becomes ``<code>`` and ``<strong>``. A page may carry one extra ``section`` (the per-topic view,
``toolkit.reports.topic_view``), placed before the appendix, and the inline ``scripts`` it needs. The page's
Content-Security-Policy allows those scripts by their hash and nothing from the network: no request can leave
the page, whatever a title or a run name holds.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Sequence

from toolkit.formats.text import visible
from toolkit.reports.document import BOLD, CODE, Document, spans

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; vertical-align: top; }
th.l, td.l { text-align: left; }
th { background: #f3f3f3; }
code { background: #f3f3f3; padding: 0 0.2em; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
"""


def _escape(text: str) -> str:
    """Literal text for HTML: control characters made visible (``toolkit.formats.text.visible``: an ESC in a
    topic's text is shown as ␛, never written), then HTML-escaped."""
    return html.escape(visible(text))


def _inline(text: str) -> str:
    """A heading's, paragraph's or list item's text: `code` and **bold** as tags, every literal part escaped."""
    out = []
    for kind, literal in spans(text):
        escaped = _escape(literal)
        out.append(
            f"<code>{escaped}</code>"
            if kind == CODE
            else f"<strong>{escaped}</strong>"
            if kind == BOLD
            else escaped
        )
    return "".join(out)


#: The page style scoped to one ``<div class="trec-toolkit">``, for a fragment inside someone else's page.
_FRAGMENT_STYLE = "".join(
    ", ".join(f".trec-toolkit {s.strip()}" for s in selectors.split(",")) + " {" + body + "\n"
    for selectors, body in (rule.split("{", 1) for rule in _STYLE.strip().splitlines())
    if selectors.strip() != "body"
)


#: The heading the extra ``section`` is placed before (the document's last part); at the end without one.
APPENDIX = "Appendix"


def script_hash(script: str) -> str:
    """The CSP source that allows exactly ``script`` inline: ``'sha256-…'``."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_policy(scripts: Sequence[str] = ()) -> str:
    """The page's CSP: inline styles, ``data:`` images, exactly ``scripts`` (by hash), nothing else."""
    allowed = " ".join(script_hash(s) for s in scripts) or "'none'"
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src {allowed}; base-uri 'none'; form-action 'none'"
    )


def render_html(
    document: Document, *, fragment: bool = False, section: str = "", scripts: Sequence[str] = ()
) -> str:
    """One self-contained page; ``fragment=True`` gives one ``<div>`` with a scoped style instead, to sit in
    another page (a notebook's output cell) without restyling it. ``section`` (HTML) goes before the
    appendix, ``scripts`` at the end of the page (see the module docstring)."""
    title = document.title or "trec-toolkit report"
    if fragment:
        out = ['<div class="trec-toolkit">', f"<style>\n{_FRAGMENT_STYLE}</style>"]
    else:
        out = [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{content_policy(scripts)}">',
            f"<title>{_escape(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
        ]
    for block in document.blocks:
        if section and block.kind == "h2" and block.text == APPENDIX:
            out.append(section)
            section = ""
        if block.kind in ("h1", "h2", "h3"):
            out.append(f"<{block.kind}>{_inline(block.text)}</{block.kind}>")
        elif block.kind == "p":
            out.append(f"<p>{_inline(block.text)}</p>")
        elif block.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(r[0])}</li>" for r in block.rows) + "</ul>")
        elif block.kind == "notes":
            out.append("<ol>" + "".join(f"<li>{_inline(r[0])}</li>" for r in block.rows) + "</ol>")
        elif block.kind == "table":
            cls = [' class="l"' if a == "l" else "" for a in block.align]
            head = "".join(f"<th{c}>{_escape(h)}</th>" for c, h in zip(cls, block.headers, strict=True))
            body = "".join(
                "<tr>" + "".join(f"<td{c}>{_escape(v)}</td>" for c, v in zip(cls, row, strict=True)) + "</tr>"
                for row in block.rows
            )
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif block.kind == "image":
            name = block.rows[0][0]
            data = document.images.get(name)
            if data is not None:
                src = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
                out.append(
                    f'<figure><img src="{src}" alt="{_escape(block.text)}">'
                    f"<figcaption>{_escape(block.text)}</figcaption></figure>"
                )
        else:
            raise ValueError(f"cannot render block kind {block.kind!r} as HTML")
    if section:
        out.append(section)
    out += [f"<script>{script}</script>" for script in scripts]
    out += ["</div>"] if fragment else ["</body>", "</html>"]
    return "\n".join(out) + "\n"
