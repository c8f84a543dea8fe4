"""``judgments import`` and ``agree`` read judgments files with one reader: same file, same error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("topics.tsv").write_text("q1\tapple pie\n")
    Path("a.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    Path("docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "title": d, "text": f"text of {d}"}) + "\n" for d in ("d1", "d2"))
    )
    result = cli("pool", "a.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite")
    assert result.exit_code == 0, result.output
    return "c.sqlite"


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("alice\tq1\td1\t2\nbob\tq1\n", "bad.tsv:2: expected 4 tab-separated columns (assessor query_id doc_id "
         "grade) and an optional note, found 2"),
        ("alice\tq1\td1\t2\nbob\tq1\td1\tmaybe\n", "bad.tsv:2: expected an integer grade, 'skip' or 'unrateable', "
         "found 'maybe'"),
        ("alice\tq1\td1\t2\nalice\tq1\td1\t1\n", "bad.tsv:2: duplicate judgment by alice of (q1, d1); first on "
         "line 1 (keep one line per assessor and item)"),
        ("alice\tq1\td1\t2\nbob,x\tq1\td1\t1\n", "bad.tsv:2: invalid assessor name 'bob,x': use a non-empty name "
         "without tabs, commas, line breaks or other control characters"),
        ("alice\tq1\td1\t2\n\tq1\td1\t1\n", "bad.tsv:2: empty assessor (column 1); fill it in or delete the line"),
    ],
)  # fmt: skip
def test_same_file_same_error_in_import_and_agree(campaign: str, text: str, message: str) -> None:
    Path("bad.tsv").write_text(text)
    imported = cli("judgments", "import", campaign, "bad.tsv")
    agreed = cli("agree", "bad.tsv")
    assert (imported.exit_code, imported.stderr) == (1, f"Error: {message}\n")
    assert (agreed.exit_code, agreed.stderr) == (1, f"Error: {message}\n")


def test_jsonl_export_imports_back_and_agree_reads_it(campaign: str) -> None:
    Path("j.tsv").write_text("alice\tq1\td1\t2\tclear\nbob\tq1\td1\t1\nalice\tq1\td2\t0\nbob\tq1\td2\tskip\n")
    assert cli("judgments", "import", campaign, "j.tsv").exit_code == 0
    exported = cli("judgments", "export", campaign, "--format", "jsonl", "-o", "j.jsonl")
    assert exported.exit_code == 0, exported.output
    assert (
        cli("pool", "a.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "d.sqlite").exit_code
        == 0
    )
    result = cli("judgments", "import", "d.sqlite", "j.jsonl")
    assert (result.exit_code, result.stdout) == (0, "Imported 4 judgments into d.sqlite\n")
    assert cli("judgments", "export", "d.sqlite").stdout == cli("judgments", "export", campaign).stdout
    doc = json.loads(cli("agree", "j.jsonl", "--format", "json", "--bootstrap", "0").stdout)
    assert doc["n_judgments"] == 3  # the skip is not a grade


def test_a_log_export_is_refused_with_a_fix(campaign: str) -> None:
    from toolkit.judging.store import CampaignStore

    Path("j.tsv").write_text("alice\tq1\td1\t2\n")
    cli("judgments", "import", campaign, "j.tsv")
    with CampaignStore.open(campaign) as store:
        store.undo("alice")
    cli("judgments", "export", campaign, "--log", "--format", "jsonl", "-o", "log.jsonl")
    result = cli("judgments", "import", campaign, "log.jsonl")
    assert (result.exit_code, result.stderr) == (
        1,
        'Error: log.jsonl:2: action "undo" cannot be imported; expected judge, skip or unrateable '
        "(export current judgments, not the --log)\n",
    )
