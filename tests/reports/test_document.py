"""One document, every renderer: each table has the same columns in text, Markdown and HTML, and JSON is the data.

The column sets are read back out of each renderer's output (Markdown's header rows, HTML's ``<th>`` cells, the
text layout's header lines split on its two-space column gap), so a renderer that drops or adds a column —
as the old text report did with the preferences' "losses (ids)" — fails here.
"""

from __future__ import annotations

import html
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.agreement import agree
from toolkit.cli import main
from toolkit.formats import read_qrels, read_run, read_topics
from toolkit.pooling.diagnostics import leave_one_run_out
from toolkit.reports import SCHEMA_VERSION, Document, render, table
from toolkit.reports.scores import scores_document
from toolkit.scoring import evaluate_many
from toolkit.stats import compare_runs
from toolkit.stats.gate import run_gate

TESTS = Path(__file__).resolve().parents[1]
STATS = TESTS / "data" / "stats"
sys.path.insert(0, str(TESTS / "agreement"))
from agreement_data import a4_judgments  # noqa: E402


def md_headers(text: str) -> list[tuple[str, ...]]:
    """Header row of every Markdown table (the line above a ``|---|---:|`` delimiter row), as Markdown reads
    the cells: backslash escapes and HTML entities resolved."""
    lines = text.splitlines()
    out = []
    for above, line in zip(lines, lines[1:], strict=False):
        if re.fullmatch(r"\|(---:?\|)+", line):
            cells = re.split(r"(?<!\\) \| ", above[2:-2])
            out.append(tuple(html.unescape(re.sub(r"\\(.)", r"\1", c)) for c in cells))
    return out


def md_alignments(text: str) -> list[str]:
    return [
        "".join("r" if d.endswith(":") else "l" for d in line.strip("|").split("|"))
        for line in text.splitlines()
        if re.fullmatch(r"\|(---:?\|)+", line)
    ]


class _Heads(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[str]] = []
        self.align: list[str] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "thead":
            self.tables.append([])
            self.align.append("")
        elif tag == "th":
            self.cell = []
            self.align[-1] += "l" if ("class", "l") in attrs else "r"

    def handle_endtag(self, tag: str) -> None:
        if tag == "th" and self.cell is not None:
            self.tables[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def html_headers(text: str) -> tuple[list[tuple[str, ...]], list[str]]:
    parser = _Heads()
    parser.feed(text)
    return [tuple(t) for t in parser.tables], parser.align


def text_has_headers_in_order(text: str, headers: list[tuple[str, ...]]) -> bool:
    """Each header appears as a line of the text layout, in order (cells are two or more spaces apart)."""
    lines = iter(text.splitlines())
    for header in headers:
        wanted = [h for h in header if h]
        if not any(re.split(r"\s{2,}", line.strip()) == wanted for line in lines):
            return False
    return True


def comparison() -> object:
    runs = [read_run(STATS / "s3-a.run"), read_run(STATS / "s3-b.run")]
    return compare_runs(
        runs, read_qrels(STATS / "s3.qrels"), topics=read_topics(STATS / "s3.toml"), margins={"P@1": 0.1}
    )


def scores() -> Document:
    runs = [read_run(STATS / "s1-a.run"), read_run(STATS / "s1-b.run")]
    qrels = read_qrels(STATS / "s1.qrels")
    results = evaluate_many(runs, qrels, measures="RR@10 P@1 NumRel")
    bias = leave_one_run_out(runs, qrels, measures="P@1", depth=2)
    return scores_document(results, per_query=True, versions={"python": "3"}, pool_bias=bias)


def agreement() -> object:
    return agree(a4_judgments(), labels=[0, 1, 2, 3], bootstrap=0)


def gate() -> object:
    return run_gate(
        ["win_rate >= 0.8", "P@1 >= 0.65 class=deprecation", "RR@10 drop <= 0"],
        read_run(STATS / "s3-a.run"),
        read_run(STATS / "s3-b.run"),
        read_qrels(STATS / "s3.qrels"),
        topics=read_topics(STATS / "s3.toml"),
    )


@pytest.mark.parametrize("make", [comparison, scores, agreement, gate], ids=lambda f: f.__name__)
def test_every_renderer_shows_the_same_columns(make) -> None:
    subject = make()
    md = render(subject, "md")
    headers = md_headers(md)
    assert headers, "the document has tables"
    html_heads, html_align = html_headers(render(subject, "html"))
    assert html_heads == headers
    assert html_align == md_alignments(md)  # text columns left, numbers right, in both
    assert text_has_headers_in_order(render(subject, "table"), headers)


def test_preferences_list_the_lost_topics_in_every_format() -> None:
    """The drift this model removed: the text report had no lost ids (now a list under the table)."""
    result = comparison()
    # S3: s3-b loses on d14-d16 (the legacy page first, reference README)
    for fmt in ("table", "md", "html"):
        assert "s3-b lost (3): d14 d15 d16" in render(result, fmt), fmt


@pytest.mark.parametrize("make", [comparison, scores, agreement, gate], ids=lambda f: f.__name__)
def test_json_is_the_document_data_under_one_schema_version(make) -> None:
    subject = make()
    doc = json.loads(render(subject, "json"))
    assert list(doc)[0] == "schema_version" and doc["schema_version"] == SCHEMA_VERSION == 3


def test_pool_bias_is_in_every_format_of_the_scores_document() -> None:
    doc = scores()
    data = json.loads(render(doc, "json"))["pool_bias"]
    assert data["source"] == "depth-2 pool of the runs" and data["measures"] == ["P@1"]
    assert [r["run"] for r in data["rows"]] == ["s1-a", "s1-b"]
    for fmt in ("table", "md", "html"):
        assert "Pool bias (leave-one-run-out, depth-2 pool of the runs, n=10)" in render(doc, fmt)


def test_count_measures_print_as_integers_and_text_has_no_markup() -> None:
    text = render(scores(), "table").splitlines()
    assert text[0].split() == ["run", "topic", "n", "empty", "RR@10", "P@1", "NumRel"]
    assert text[1].split()[-1] == "10"  # NumRel summed over 10 topics, one relevant doc each
    assert "`" not in render(comparison(), "table") and "**" not in render(comparison(), "table")


def test_table_helper_refuses_ragged_rows() -> None:
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        table(["a", "b", "c"], [["1", "2"]])
    assert table(["a", "b", "c"], [], left=(0, -1)).align == "lrl"


SCORE = ["score", str(STATS / "s1-a.run"), "--qrels", str(STATS / "s1.qrels"), "--measures", "RR@10"]
GATE = ["gate", "--baseline", str(STATS / "s1-a.run"), "--candidate", str(STATS / "s1-b.run")]
GATE += ["--qrels", str(STATS / "s1.qrels"), "--rule", "RR@10 >= 0"]


@pytest.mark.parametrize(
    "args, fmt, expected",
    [
        (
            SCORE,
            "md",
            "| run | topic | n | empty | RR@10 |\n|---|---|---:|---:|---:|\n| s1-a | all | 10 | 0 |",
        ),
        (SCORE, "html", '<th class="l">topic</th><th>n</th><th>empty</th><th>RR@10</th>'),
        (GATE, "md", "# gate: s1-b against s1-a\n\n| rule | value | topics | verdict |"),
        (GATE, "html", '<td class="l">RR@10 &gt;= 0</td><td>0.6583</td><td>10</td><td class="l">pass</td>'),
    ],
)
def test_commands_render_markdown_and_html(args, fmt, expected) -> None:
    result = CliRunner().invoke(main, [*args, "--format", fmt])
    assert result.exit_code == 0, result.stderr
    assert expected in result.stdout
