"""Where a name or a grade enters through the command line, it meets the rules of the judgments format.

Assessor names: every control, format and separator character is refused (``toolkit.formats.judgments``),
whichever door the name comes in by — ``assign --assessors``, ``judge --assessor``, ``judgments import``,
``agree``. Grades: ``agree --labels`` reads what trec_eval's ``atol`` reads whole. A grade of a document pooled
for another topic only is imported with ``--allow-unpooled`` alone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main

NAME_RULE = "use a non-empty name without tabs, commas, line breaks or other control characters"
EXPECTED = "expected comma-separated integer grades, e.g. 0,1,2,3"
GRADE_WHY = "(grades are ASCII integers — digits with an optional sign — as trec_eval reads them)"


def cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Two topics; d3 is pooled for q2 only."""
    monkeypatch.chdir(tmp_path)
    Path("topics.tsv").write_text("q1\tapple pie\nq2\tbanana bread\n")
    Path("a.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\nq2 Q0 d3 1 1.0 a\n")
    Path("docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "text": f"text of {d}"}) + "\n" for d in ("d1", "d2", "d3"))
    )
    result = cli("pool", "a.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", "c.sqlite")
    assert result.exit_code == 0, result.output
    return "c.sqlite"


@pytest.mark.parametrize("char", ["\u2028", "\x85", "\x1b", "\u202e", "\u200b", "\x7f"])
def test_assign_refuses_such_a_name(campaign: str, char: str) -> None:
    name = f"bo{char}b"
    result = cli("assign", campaign, "--assessors", f"alice,{name}")
    assert (result.exit_code, result.stderr) == (1, f"Error: invalid assessor name {name!r}: {NAME_RULE}\n")
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(campaign) as store:
        assert store.assignees() == [] or set(store.assignees()) == set()  # nothing assigned


@pytest.mark.parametrize("char", ["\u2028", "\x85", "\x1c"])
def test_assign_does_not_trim_separators_off_a_name(campaign: str, char: str) -> None:
    """Python's strip() takes U+2028, NEL and FS for blanks: trimming them would silently change the name."""
    name = f"bob{char}"
    result = cli("assign", campaign, "--assessors", f"alice,{name}")
    assert (result.exit_code, result.stderr) == (1, f"Error: invalid assessor name {name!r}: {NAME_RULE}\n")


@pytest.mark.parametrize("char", ["\x1b", "\u2029", "\x00"])
def test_judge_refuses_such_a_name_before_the_screen_opens(campaign: str, char: str) -> None:
    name = f"al{char}ice"
    result = cli("judge", campaign, "--assessor", name)
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: --assessor: invalid assessor name {name!r}: {NAME_RULE}\n",
    )


@pytest.mark.parametrize("char", ["\u2028", "\x1b"])
def test_import_and_agree_refuse_such_a_name_at_its_line(campaign: str, char: str) -> None:
    Path("j.tsv").write_text(f"alice\tq1\td1\t1\nbo{char}b\tq1\td1\t2\n", encoding="utf-8")
    message = f"Error: j.tsv:2: invalid assessor name {f'bo{char}b'!r}: {NAME_RULE}\n"
    imported = cli("judgments", "import", campaign, "j.tsv")
    agreed = cli("agree", "j.tsv")
    assert (imported.exit_code, imported.stderr) == (1, message)
    assert (agreed.exit_code, agreed.stderr) == (1, message)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ("0,1_0", f"--labels '0,1_0': '1_0' is not an integer grade {GRADE_WHY}; {EXPECTED}"),
        ("0,١", f"--labels '0,١': '١' is not an integer grade {GRADE_WHY}; {EXPECTED}"),
        ("0,１", f"--labels '0,１': '１' is not an integer grade {GRADE_WHY}; {EXPECTED}"),
        (
            "0,9223372036854775808",
            "--labels '0,9223372036854775808': '9223372036854775808' is out of range: grades must lie within "
            "-9223372036854775808 … 9223372036854775807 (64 bits)",
        ),
        ("0,x", f"--labels '0,x': 'x' is not an integer grade; {EXPECTED}"),
    ],
)
def test_agree_labels_are_read_like_trec_eval(tmp_path: Path, labels: str, message: str) -> None:
    path = tmp_path / "j.tsv"
    path.write_text("a\tq1\td1\t0\nb\tq1\td1\t1\n")
    result = cli("agree", str(path), "--labels", labels)
    assert (result.exit_code, result.stderr) == (2, f"Error: {message}\n")


def test_agree_labels_take_a_sign_as_atol_does(tmp_path: Path) -> None:
    path = tmp_path / "j.tsv"
    path.write_text("a\tq1\td1\t0\nb\tq1\td1\t1\n")
    result = cli("agree", str(path), "--labels", "+0,+1,-1", "--format", "json", "--bootstrap", "0")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["labels"] == [-1, 0, 1]


def test_import_of_a_doc_pooled_for_another_topic_needs_allow_unpooled(campaign: str) -> None:
    Path("j.tsv").write_text("alice\tq1\td1\t1\nalice\tq1\td3\t2\n")
    refused = cli("judgments", "import", campaign, "j.tsv")
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: j.tsv:2: document 'd3' was not pooled for topic 'q1' (only for q2); judge it in a round that "
        "pools it for q1, or import it anyway with --allow-unpooled\n",
    )
    allowed = cli("judgments", "import", campaign, "j.tsv", "--allow-unpooled")
    assert (allowed.exit_code, allowed.stdout) == (0, f"Imported 2 judgments into {campaign}\n")
