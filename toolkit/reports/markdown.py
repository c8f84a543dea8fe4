"""Render the audit document (``document.build_document``) as Markdown."""

from __future__ import annotations

from toolkit.reports.document import Block


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if block.kind in ("h1", "h2", "h3"):
            out += ["#" * int(block.kind[1]) + " " + block.text, ""]
        elif block.kind == "p":
            out += [block.text, ""]
        elif block.kind == "list":
            out += [f"- {row[0]}" for row in block.rows] + [""]
        elif block.kind == "table":
            out.append("| " + " | ".join(_cell(h) for h in block.headers) + " |")
            out.append("|" + "|".join("---" for _ in block.headers) + "|")
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in block.rows]
            out.append("")
        elif block.kind == "image":
            out += [f"![{block.text}]({block.rows[0][0]})", ""]
    return "\n".join(out).rstrip("\n") + "\n"
