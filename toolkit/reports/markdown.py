"""Render a document as Markdown (GitHub flavour): the audit file and ``--format md``.

Tables carry the document's alignment in their delimiter row (``---`` text, ``---:`` numbers); a ``|`` inside a
cell is escaped. Images are links to the PNG files written beside the Markdown file.
"""

from __future__ import annotations

from toolkit.reports.document import Document


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(document: Document) -> str:
    out: list[str] = []
    for block in document.blocks:
        if block.kind in ("h1", "h2", "h3"):
            out += ["#" * int(block.kind[1]) + " " + block.text, ""]
        elif block.kind == "p":
            out += [block.text, ""]
        elif block.kind == "list":
            out += [f"- {row[0]}" for row in block.rows] + [""]
        elif block.kind == "notes":
            out += [f"{i}. {row[0]}" for i, row in enumerate(block.rows, start=1)] + [""]
        elif block.kind == "table":
            out.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in block.align) + "|")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif block.kind == "image":
            out += [f"![{block.text}]({block.rows[0][0]})", ""]
        else:
            raise ValueError(f"cannot render block kind {block.kind!r} as Markdown")
    return "\n".join(out).rstrip("\n") + "\n"
