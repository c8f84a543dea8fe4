"""Text from outside carries no control character to any output (docs/reliability.md).

A topic's text holds OSC 52 (which sets the clipboard), a clear-screen, BEL and the 8-bit CSI (U+009B); a
doc id holds OSC 52; a pre-flight check prints them. Every output of the real CLI (subprocess, exit code
checked) — ``compare`` and ``score`` in every ``--format``, to stdout and to ``-o FILE`` (``-o`` but
for the HTML page through click's runner in-process, the same command line), ``pool``'s warning,
``run``'s ``Pre-flight`` line — must hold no C0 control but newline and tab, no DEL and no C1 control; the
text people read shows the sequence made visible (``␛``), and JSON keeps it as an escape that reads back to
the same string (checked with ``json.loads``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

HOSTILE = "hash\x1b]52;c;cHduZWQ=\x07 \x1b[2J \x9b31m"
#: Every control character a terminal may obey: C0 but newline and tab, DEL, C1.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def toolkit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        cwd=root,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env={**os.environ, "COLUMNS": "200"},
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    return done


def toml_string(text: str) -> str:
    return json.dumps(text)  # TOML basic strings take JSON's escapes (\u001b …)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    topics = "".join(
        f'[[topic]]\nid = "t{i}"\nquery = {toml_string(f"{HOSTILE} {i}")}\nclass = "canonical"\n'
        f"description = {toml_string(HOSTILE)}\n\n"
        for i in range(1, 13)
    )
    (root / "topics.toml").write_text(topics, encoding="utf-8")
    with open(root / "a.run", "w") as a, open(root / "b.run", "w") as b, open(root / "q.qrels", "w") as q:
        for i in range(1, 13):
            a.write(f"t{i} Q0 d{i} 1 2.0 a\nt{i} Q0 x{i} 2 1.0 a\n")
            b.write(f"t{i} Q0 x{i} 1 2.0 b\nt{i} Q0 d{i} 2 1.0 b\n")
            q.write(f"t{i} 0 d{i} 1\n")
    return root


def assert_inert(text: str, where: str, *, shown: bool = True) -> None:
    found = sorted({hex(ord(c)) for c in CONTROL.findall(text)})
    assert not found, f"{where}: control characters {found}"
    if shown:
        assert "␛]52;c;cHduZWQ=" in text, f"{where}: the sequence is not shown made visible"


COMPARE = ["compare", "a.run", "b.run", "--qrels", "q.qrels", "--topics", "topics.toml"]


@pytest.fixture(scope="module")
def compared(root: Path) -> Callable[[str], subprocess.CompletedProcess[str]]:
    """``compare --format FMT`` to stdout through the real CLI, run once per format for the tests that read it."""
    done: dict[str, subprocess.CompletedProcess[str]] = {}

    def compare(fmt: str) -> subprocess.CompletedProcess[str]:
        if fmt not in done:
            done[fmt] = toolkit(root, *COMPARE, "--format", fmt)
        return done[fmt]

    return compare


def written_in_process(root: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """The same command line run in this process (click's runner), for an output the subprocess checks
    elsewhere: ``-o`` through the console script is checked once, with the HTML page."""
    from click.testing import CliRunner

    from toolkit.cli import main

    monkeypatch.chdir(root)
    return CliRunner().invoke(main, args, env={"COLUMNS": "200"}).exit_code


@pytest.mark.parametrize("fmt", ["md", "html", "table", "json"])
def test_compare_in_every_format_carries_no_control_character(
    root: Path,
    compared: Callable[[str], subprocess.CompletedProcess[str]],
    fmt: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    args = [*COMPARE, "--format", fmt, "-o", f"out.{fmt}"]
    done = compared(fmt)
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout, f"compare --format {fmt}", shown=fmt in ("md", "html"))
    assert_inert(done.stderr, "stderr", shown=False)
    if fmt == "html":  # -o through the console script once: the page a browser opens
        written = toolkit(root, *args)
        assert written.returncode == 0, written.stderr
        assert_inert(written.stderr + written.stdout, "-o stderr", shown=False)
    else:
        assert written_in_process(root, args, monkeypatch) == 0
    assert_inert(
        (root / f"out.{fmt}").read_text(encoding="utf-8"), f"-o out.{fmt}", shown=fmt in ("md", "html")
    )
    if fmt == "json":
        json.loads(done.stdout)  # still JSON


def test_the_markdown_report_shows_the_topic_text_made_visible(
    compared: Callable[[str], subprocess.CompletedProcess[str]],
) -> None:
    """Read back by an independent Markdown reader (markdown-it-py): the cell text is the visible form."""
    from markdown_it import MarkdownIt

    done = compared("md")
    assert done.returncode == 0, done.stderr
    page = MarkdownIt("commonmark").enable("table").render(done.stdout)
    assert "<td>hash␛]52;c;cHduZWQ=␇ ␛[2J \\x9b31m 1</td>" in page


@pytest.mark.parametrize("fmt", ["md", "html", "table", "json", "trec", "csv"])
def test_score_in_every_format_carries_no_control_character(root: Path, fmt: str) -> None:
    done = toolkit(
        root,
        "score",
        "a.run",
        "--qrels",
        "q.qrels",
        "--topics",
        "topics.toml",
        "--per-query",
        "--format",
        fmt,
    )
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout, f"score --format {fmt}", shown=False)
    assert_inert(done.stderr, "stderr", shown=False)


def test_json_keeps_the_text_exactly_as_an_escape() -> None:
    from toolkit.formats.text import json_inert

    data = {"query": HOSTILE, "del": "\x7f", "é": "é"}
    text = json_inert(json.dumps(data, ensure_ascii=False))
    assert not CONTROL.search(text)
    assert json.loads(text) == data


def test_pool_warns_about_a_doc_id_it_could_not_fetch_made_visible(tmp_path: Path) -> None:
    evil = "d\x1b]52;c;cHduZWQ=\x07"
    (tmp_path / "r.run").write_text(f"t1 Q0 d1 1 2.0 a\nt1 Q0 {evil} 2 1.0 a\n", encoding="utf-8")
    (tmp_path / "topics.tsv").write_text("t1\tapple pie\n", encoding="utf-8")
    (tmp_path / "docs.jsonl").write_text(json.dumps({"doc_id": "d1", "text": "one"}) + "\n", encoding="utf-8")
    done = toolkit(
        tmp_path, "pool", "r.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite"
    )
    assert done.returncode == 0, done.stderr
    assert "Warning: could not fetch 1 document(s): d␛]52;c;cHduZWQ=␇" in done.stderr
    assert_inert(done.stderr + done.stdout, "pool")


def test_the_preflight_line_shows_the_checks_output_made_visible(tmp_path: Path) -> None:
    (tmp_path / "topics.tsv").write_text("q1\tfirst\n", encoding="utf-8")
    check = ["{python}", "-c", f"print({HOSTILE!r})"]
    command = ["{python}", "-c", "print('d1')", "{query}"]
    (tmp_path / "toolkit.toml").write_text(
        f'[workspace]\ntopics = "topics.tsv"\n[systems.s]\ncommand = {json.dumps(command)}\n'
        f"preflight = {json.dumps(check)}\n",
        encoding="utf-8",
    )
    done = toolkit(tmp_path, "run", "s")
    assert done.returncode == 0, done.stderr
    assert "Pre-flight s: hash␛]52;c;cHduZWQ=␇ ␛[2J \\x9b31m" in done.stderr
    assert_inert(done.stderr, "run")
