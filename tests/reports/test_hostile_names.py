"""Run names, topic ids and topic text are text in every report, never markup.

Names come from outside (file names, ``toolkit.toml``, topic sets): a run named ``<script>…`` must not become a
tag in the HTML or the Markdown report, a ``|`` must not end a table cell, a backtick or ``**`` must not
start a code span or bold text, a newline must not start a heading. The Markdown is read back by an
independent parser (markdown-it-py, GitHub-flavoured, raw HTML allowed as GitHub allows it), the HTML by the
standard library's parser; both must give back each hostile name exactly, as text.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import make_workspace
from markdown_it import MarkdownIt

from toolkit.cli import main

#: A run name from a file name (no "/"): a tag, a table pipe, code and bold marks, a link, a line break with
#: a heading after it.
CAND = "<script>alert(1)<|`x`**y**_z_[l](u)\n# h"
#: A topic id (no whitespace) and its query text.
TOPIC = "<b>q|1`*"
QUERY = "<script>alert('q')</script> | **b** `c`\n- item"


class _Text(HTMLParser):
    """Every start tag and every text node of a page; each script's attributes and text apart."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.data: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "script":
            self.scripts.append((dict(attrs), ""))
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        else:
            self.data.append(data)


def read_html(text: str) -> _Text:
    parser = _Text()
    parser.feed(text)
    return parser


def md_texts(text: str) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """What a Markdown reader sees: every inline's text (table cells, paragraphs, list items, headings; code
    and bold flattened), the (block, text) of every heading, and every raw HTML tag it would pass through."""
    tokens = MarkdownIt("gfm-like").parse(text)
    texts, headings, html = [], [], []
    for i, token in enumerate(tokens):
        if token.type == "html_block":
            html.append(token.content)
        if token.type != "inline":
            continue
        parts = []
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append("\n")
            elif child.type == "html_inline":
                html.append(child.content)
        texts.append("".join(parts))
        if tokens[i - 1].type == "heading_open":
            headings.append((tokens[i - 1].tag, texts[-1]))
    return texts, headings, html


def one_line(text: str) -> str:
    return " ".join(text.splitlines())


def assert_markdown_is_text(md: str, *names: str) -> list[str]:
    texts, headings, html = md_texts(md)
    assert set(html) <= {"<code>", "</code>"}, html  # the only raw HTML: code spans we could not fence
    assert [h for h in headings if h[0] == "h1"][1:] == [], headings  # no heading from a name
    assert not any(text.startswith("h") and tag != "h1" and text == "h" for tag, text in headings)
    joined = "\n".join(texts)
    for name in names:
        assert one_line(name) in joined, name
    return texts


def assert_html_is_text(page: str, *names: str) -> None:
    from toolkit.reports.topic_view import view_script

    parsed = read_html(page)
    assert "b" not in parsed.tags
    # the only scripts: the per-topic view's own, and its data (JSON, which a browser does not run)
    for attrs, text in parsed.scripts:
        assert attrs == {"type": "application/json", "id": "tv-data"} or (not attrs and text == view_script())
    joined = "".join(parsed.data)
    for name in names:
        assert name in joined, name


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Baseline answers the hostile topic at rank 1, the hostile candidate at rank 2: the topic is a regression,
    so it is listed (id and query) in the rank-1 buckets and the worst-regressions table."""
    topics = tmp_path / "t.toml"
    topics.write_text(
        f'[[topic]]\nid = {json.dumps(TOPIC)}\nquery = {json.dumps(QUERY)}\ntruth = ["^d1$"]\n'
        '[[topic]]\nid = "plain"\nquery = "x"\ntruth = ["^d2$"]\n'
    )
    qrels = tmp_path / "q.qrels"
    qrels.write_text(f"{TOPIC} 0 d1 1\nplain 0 d2 1\n")
    base = tmp_path / "base.run"
    base.write_text(f"{TOPIC} Q0 d1 1 2 base\nplain Q0 d2 1 2 base\n")
    cand = tmp_path / f"{CAND}.run"
    cand.write_text(f"{TOPIC} Q0 x 1 2 c\n{TOPIC} Q0 d1 2 1 c\nplain Q0 d2 1 2 c\n")
    return {"topics": topics, "qrels": qrels, "base": base, "cand": cand}


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_compare_markdown_and_html_show_hostile_names_as_text(files: dict[str, Path]) -> None:
    args = ["compare", str(files["base"]), str(files["cand"]), "--qrels", str(files["qrels"])]
    args += ["--topics", str(files["topics"]), "--measures", "RR@10", "--primary", "RR@10"]
    md = run(*args, "--format", "md")
    texts = assert_markdown_is_text(md, CAND, TOPIC, QUERY)
    assert "base" in texts and one_line(CAND) in texts  # the aggregate table's header cells, whole
    assert f"\n{one_line(CAND)} vs base: " in "\n".join(texts)  # the verdict in bold, whole
    assert f"Degraded (1): {TOPIC}" in texts  # the rank-1 bucket list item
    assert one_line(QUERY) in texts  # the worst-regressions table's query cell
    assert_html_is_text(run(*args, "--format", "html"), CAND, TOPIC, QUERY)


def test_score_markdown_and_html_show_hostile_names_as_text(files: dict[str, Path]) -> None:
    args = ["score", str(files["cand"]), "--qrels", str(files["qrels"]), "--measures", "RR@10", "--per-query"]
    texts = assert_markdown_is_text(run(*args, "--format", "md"), CAND, TOPIC)
    assert one_line(CAND) in texts and TOPIC in texts  # cells, whole
    assert_html_is_text(run(*args, "--format", "html"), CAND, TOPIC)


def test_audit_markdown_and_html_show_hostile_names_as_text(tmp_path: Path) -> None:
    system = "<script>`x`|y**z**"  # a system name is a run file name and a run tag: no "/", no whitespace
    make_workspace(
        tmp_path,
        topics=[{"id": TOPIC, "query": QUERY, "truth": ["^d1$"]}],
        engines={"base": {TOPIC: ["d1"]}, system: {TOPIC: ["x", "d1"]}},
        workspace={"baseline": "base", "measures": ["RR@10"], "primary": "RR@10"},
    )
    run("audit", "--config", str(tmp_path / "toolkit.toml"))
    md = (tmp_path / "audits" / "audit.md").read_text()
    texts = assert_markdown_is_text(md, system, TOPIC, QUERY)
    assert system in texts  # a cell, whole
    assert not re.search(r"<(?!/?code>)", md)  # not one raw tag in the file itself
    assert_html_is_text((tmp_path / "audits" / "audit.html").read_text(), system, TOPIC, QUERY)
