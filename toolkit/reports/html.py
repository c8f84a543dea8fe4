"""Render the audit document as one self-contained HTML page, plots embedded as base64 PNGs."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping

from toolkit.reports.document import Block

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
code { background: #f3f3f3; padding: 0 0.2em; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
"""


def _inline(text: str) -> str:
    """Escape, then turn Markdown's `code` and **bold** into tags (all the inline markup the document uses)."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def render_html(blocks: list[Block], images: Mapping[str, bytes]) -> str:
    title = next((b.text for b in blocks if b.kind == "h1"), "Audit")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
    ]
    for block in blocks:
        if block.kind in ("h1", "h2", "h3"):
            out.append(f"<{block.kind}>{_inline(block.text)}</{block.kind}>")
        elif block.kind == "p":
            out.append(f"<p>{_inline(block.text)}</p>")
        elif block.kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(r[0])}</li>" for r in block.rows) + "</ul>")
        elif block.kind == "table":
            head = "".join(f"<th>{_inline(h)}</th>" for h in block.headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in row) + "</tr>" for row in block.rows
            )
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif block.kind == "image":
            name = block.rows[0][0]
            data = images.get(name)
            if data is not None:
                src = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
                out.append(
                    f'<figure><img src="{src}" alt="{html.escape(block.text)}">'
                    f"<figcaption>{html.escape(block.text)}</figcaption></figure>"
                )
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
