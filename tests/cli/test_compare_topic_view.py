"""``compare --show TOPIC``, ``--docs`` and ``--topics-shown`` through the installed console script.

The text view and the page are checked through the console script (exit code, stdout, stderr); their
variations (another doc source, a usage error, another ``--topics-shown``) run the same command line in this
process, through click's runner.

A small study built here: topic t1's relevant document falls from rank 1 to rank 3 (degraded), t2's rises
from 2 to 1 (fixed), t3 is unchanged. The expected lists are written out by hand from the run files
(trec_eval's order: score descending), the grades from the qrels, the titles from the corpus.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "trec-toolkit"

TOPICS = """
[[topic]]
id = "t1"
query = "first query"
class = "canonical"
truth = ["^rel1$"]

[[topic]]
id = "t2"
query = "second query"
class = "prose"
truth = ["^rel2$"]

[[topic]]
id = "t3"
query = "third query"
class = "prose"
truth = ["^rel3$"]
"""
BASE = {"t1": ["rel1", "x1", "u1"], "t2": ["a2", "rel2"], "t3": ["rel3", "z3"]}
CAND = {"t1": ["x1", "new1", "rel1"], "t2": ["rel2", "a2"], "t3": ["rel3", "z3"]}
QRELS = "t1 0 rel1 2\nt1 0 x1 0\nt2 0 rel2 1\nt3 0 rel3 1\n"
CORPUS = {
    "rel1": ("The answer to t1", "Body of the answer."),
    "x1": ("A decoy", "Looks right, is not."),
    "new1": ("Newcomer", "Only the candidate has it."),
    "rel2": ("Answer two", "Second body."),
    "a2": ("Noise two", "Noise."),
    "rel3": ("Answer three", "Third body."),
    "z3": ("Noise three", "Noise."),
    # u1 is not in the corpus: it cannot be fetched
}


def write_run(path: Path, ranked: dict[str, list[str]], tag: str) -> None:
    path.write_text(
        "".join(f"{q} Q0 {d} {r + 1} {10 - r} {tag}\n" for q, ds in ranked.items() for r, d in enumerate(ds))
    )


@pytest.fixture
def study(tmp_path: Path) -> Path:
    (tmp_path / "t.toml").write_text(TOPICS)
    (tmp_path / "q.qrels").write_text(QRELS)
    write_run(tmp_path / "base.run", BASE, "base")
    write_run(tmp_path / "cand.run", CAND, "cand")
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "title": t, "text": x}) + "\n" for d, (t, x) in CORPUS.items())
    )
    return tmp_path


COMPARE = [
    "compare",
    "base.run",
    "cand.run",
    "--qrels",
    "q.qrels",
    "--topics",
    "t.toml",
    "--primary",
    "RR@10",
]


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The comparison through the installed console script."""
    return subprocess.run(
        [str(SCRIPT), *COMPARE, *args], cwd=folder, capture_output=True, text=True, timeout=300
    )


def invoke(folder: Path, *args: str, command: list[str] = COMPARE) -> subprocess.CompletedProcess[str]:
    """The same command line in this process (click's runner): for the variations of a path whose output
    the console-script tests above check (the text view, the page), a process start each is only CPU."""
    from click.testing import CliRunner

    from toolkit.cli import main

    cwd = Path.cwd()
    os.chdir(folder)
    try:
        got = CliRunner().invoke(main, [*command, *args])
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(args, got.exit_code, got.stdout, got.stderr)


def test_show_prints_both_rankings_with_grades_moves_and_titles(study: Path) -> None:
    done = run(study, "--show", "t1", "--docs", "corpus.jsonl")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("t1  first query\nDegraded · class canonical · first relevant 1 → 3 (top 10)\n")
    assert re.search(r"RR@10\s+1\.0000\s+0\.3333\s+-0\.6667", out)  # 1/1 → 1/3
    rows = [line for line in out.splitlines() if re.match(r"^│\s+\d+ │", line)]
    cells = [[c.strip() for c in row.strip("│").split("│")] for row in rows]
    # rank, baseline doc, grade, its rank in the candidate, candidate doc, grade, move
    assert cells == [
        ["1", "rel1 ★ first relevant", "2", "→3", "x1", "0", "↑1"],
        ["2", "x1", "0", "→1", "new1", "unjudged", "new"],
        ["3", "u1", "unjudged", "out", "rel1 ★ first relevant", "2", "↓2"],
    ]
    for title in ("The answer to t1", "A decoy", "Newcomer"):
        assert title in out
    assert "not fetched: not in corpus.jsonl" in out
    assert (
        "docs: 3 of 4 documents of the per-topic view from corpus.jsonl; 1 could not be fetched"
        in done.stderr
    )


def test_show_reads_titles_from_a_campaigns_snapshots(study: Path) -> None:
    """A campaign pooled from an older corpus: the view shows what the assessors read, not today's text."""
    old = study / "old.jsonl"
    old.write_text(
        "".join(
            json.dumps({"doc_id": d, "title": f"Old {t}", "text": x}) + "\n" for d, (t, x) in CORPUS.items()
        )
    )
    pooled = invoke(
        study,
        "base.run",
        "cand.run",
        "--topics",
        "t.toml",
        "--docs",
        "old.jsonl",
        "-o",
        "c.sqlite",
        command=["pool"],
    )
    assert pooled.returncode == 0, pooled.stderr
    done = invoke(study, "--show", "t2", "--docs", "c.sqlite")
    assert done.returncode == 0, done.stderr
    assert "Old Answer two" in done.stdout and "Old Noise two" in done.stdout
    assert "from campaign c" in done.stderr


def test_show_uses_the_workspace_doc_source(study: Path) -> None:
    (study / "toolkit.toml").write_text('[docs]\npath = "corpus.jsonl"\n')
    done = invoke(study, "--show", "t3")
    assert done.returncode == 0, done.stderr
    assert "Answer three" in done.stdout and "Noise three" in done.stdout


def test_show_of_an_unknown_topic_or_with_a_format_is_a_usage_error(study: Path) -> None:
    done = invoke(study, "--show", "nope")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "Error: topic 'nope' is not in this comparison (3 topics: t1, t2, t3, …); pass one of its topic ids"
    )
    done = invoke(study, "--show", "t1", "--format", "json")
    assert done.returncode == 2
    assert (
        done.stderr.splitlines()[-1]
        == "Error: --show prints the rankings as text; drop --format json (or drop --show)"
    )


def page_data(html: str) -> dict:
    block = html.split('<script type="application/json" id="tv-data">', 1)[1].split("</script>", 1)[0]
    return json.loads(block)


def test_html_holds_the_view_bounded_by_topics_shown(study: Path) -> None:
    done = run(study, "--format", "html", "--docs", "corpus.jsonl", "--topics-shown", "2")
    assert done.returncode == 0, done.stderr
    data = page_data(done.stdout)
    # changed outcomes first: t1 degraded (|Δ| 2/3), t2 fixed (1/2); t3 unchanged is left out
    assert [t["q"] for t in data["topics"]] == ["t1", "t2"] and (data["shown"], data["total"]) == (2, 3)
    docs = {row[0]: row for row in data["docs"]}
    t1 = data["topics"][0]
    assert [[docs_id(data, i), g] for i, g in t1["l"][0]] == [["rel1", 2], ["x1", 0], ["u1", None]]
    assert [[docs_id(data, i), g] for i, g in t1["l"][1]] == [["x1", 0], ["new1", None], ["rel1", 2]]
    assert docs["rel1"][1:3] == ["The answer to t1", "Body of the answer."]
    assert docs["u1"][3] == "not in corpus.jsonl"
    assert "z3" not in docs  # only the documents of the topics shown are fetched and embedded
    everything = page_data(invoke(study, "--format", "html", "--topics-shown", "0").stdout)
    assert everything["shown"] == 3


def docs_id(data: dict, index: int) -> str:
    return str(data["docs"][index][0])


def test_topics_shown_must_be_a_whole_number(study: Path) -> None:
    done = invoke(study, "--format", "html", "--topics-shown", "-1")
    assert done.returncode == 2 and "--topics-shown" in done.stderr
