"""``judgments export --format tsv|csv|jsonl`` carries notes and durations, and every layout reads back.

The expected values are the records written (or Python's own ``csv`` module reading the CSV), never the
reader's output pasted back.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import FormatError
from toolkit.formats.judgments import format_judgments, format_log, read_judgment_rows
from toolkit.judging.records import Judgment, LogEvent

NOTES = [
    "plain",
    "tab\there, line\nbreak and a\r\ncrlf",
    'a comma, a "quote" and a backslash-n that is text: \\n',
    "back\\slash\\\\twice, ünïcödé ✓",
    None,
    # what str.splitlines() breaks a line at, besides \n and \r: a reader that splits there loses the note
    "line\u2028sep, para\u2029sep, NEL\x85, FS\x1c GS\x1d RS\x1e, VT\x0b FF\x0c — kept inside the note",
    "a literal backslash-n \\n and backslash-backslash-n \\\\n and a trailing backslash\\",
]


def judgments() -> list[Judgment]:
    out = []
    for i, note in enumerate(NOTES):
        action = ("judge", "judge", "skip", "unrateable", "judge", "judge", "skip")[i]
        out.append(
            Judgment(
                assessor=("alice", "bob")[i % 2],
                query_id=f"q{i}",
                doc_id=f"d{i}",
                grade=i if action == "judge" else None,
                action=action,
                note=note,
                time=f"2024-05-0{i + 1}T10:00:00.000000Z",
                duration_ms=None if i == 3 else 1000 * i + 7,
                event_id=i + 1,
            )
        )
    return out


@pytest.mark.parametrize(("fmt", "name"), [("tsv", "j.tsv"), ("csv", "j.csv"), ("jsonl", "j.jsonl")])
def test_every_layout_reads_back_whole(tmp_path: Path, fmt: str, name: str) -> None:
    path = tmp_path / name
    path.write_text(format_judgments(judgments(), fmt), encoding="utf-8")
    rows = read_judgment_rows(path)
    got = [(r.assessor, r.query_id, r.doc_id, r.grade, r.action, r.note, r.duration_ms) for r in rows]
    want = [(j.assessor, j.query_id, j.doc_id, j.grade, j.action, j.note, j.duration_ms) for j in judgments()]
    assert got == want
    if fmt == "jsonl":
        assert [r.time for r in rows] == [j.time for j in judgments()]


def test_csv_is_what_the_csv_module_reads() -> None:
    text = format_judgments(judgments(), "csv")
    records = list(csv.DictReader(io.StringIO(text, newline="")))
    assert list(records[0]) == ["assessor", "query_id", "doc_id", "grade", "note", "duration_ms"]
    assert [r["note"] for r in records] == [n or "" for n in NOTES]
    assert [r["grade"] for r in records] == ["0", "1", "skip", "unrateable", "4", "5", "skip"]
    assert [r["duration_ms"] for r in records] == ["7", "1007", "2007", "", "4007", "5007", "6007"]


def test_tsv_keeps_one_line_per_judgment() -> None:
    lines = format_judgments(judgments(), "tsv").split("\n")
    assert lines[0] == "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms"
    assert lines[2] == "bob\tq1\td1\t1\ttab\\there, line\\nbreak and a\\r\\ncrlf\t1007"
    assert len(lines) == 1 + len(NOTES) + 1  # header, one line each, the final newline


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_log_layouts(fmt: str) -> None:
    event = LogEvent(1, "t0", "alice", "q1", "d1", "note", None, 'a, "b"\tc', 12, None, None, None)
    text = format_log([event], fmt)
    if fmt == "csv":
        (record,) = csv.DictReader(io.StringIO(text, newline=""))
        assert (record["note"], record["duration_ms"], record["grade"]) == ('a, "b"\tc', "12", "")
    else:
        assert text.splitlines()[1] == '1\tt0\talice\tq1\td1\tnote\t\ta, "b"\\tc\t12\t\t\t'


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown judgments format 'xlsx'; one of tsv, csv, jsonl"):
        format_judgments(judgments(), "xlsx")


def write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_header_names_the_extra_columns_in_any_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "assessor\tquery_id\tdoc_id\tgrade\tduration_ms\tcomment\tnote\n"
        "alice\tq1\td1\t2\t1500\tignored\tgood\nbob\tq1\td1\t1\n",
        "h.tsv",
    )
    rows = read_judgment_rows(path)
    assert [(r.note, r.duration_ms) for r in rows] == [("good", 1500), (None, None)]


@pytest.mark.parametrize(
    ("name", "text", "line", "message"),
    [
        ("x.csv", "alice,q1,d1\n", 1, "expected 4 comma-separated columns (assessor query_id doc_id grade) and an "
         "optional note, found 3"),
        ("x.csv", 'alice,q1,d1,2,"open\n', 1, "not valid CSV (unexpected end of data); expected "
         "assessor,query_id,doc_id,grade"),
        ("x.csv", "assessor,query_id,doc_id,grade,note,duration_ms\nalice,q1,d1,2,,1.5\n", 2,
         "expected a whole number of milliseconds in duration_ms, found '1.5'"),
        ("x.tsv", "assessor\tquery_id\tdoc_id\tgrade\tnote\nalice\tq1\td1\t2\tn\textra\n", 2,
         "expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 6"),
        ("x.tsv", "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\nalice\tq1\td1\t2\tn\t-3\n", 2,
         "expected a whole number of milliseconds in duration_ms, found '-3'"),
        ("x.tsv", "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\nalice\tq1\td1\t2\tn\t5\t6\n", 2,
         "expected 4 tab-separated columns (assessor query_id doc_id grade) and up to 2 more named in the "
         "header, found 7"),
        ("x.jsonl", '{"assessor": "a", "query_id": "q", "doc_id": "d", "grade": 1, "duration_ms": "5"}\n', 1,
         'expected a whole number of milliseconds or null duration_ms, found "5"'),
    ],
)  # fmt: skip
def test_errors_name_the_line(tmp_path: Path, name: str, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text, name)
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:{line}: {message}"


def test_csv_error_line_is_where_the_record_starts(tmp_path: Path) -> None:
    path = write(tmp_path, 'alice,q1,d1,2,"note\nover two lines"\nbob,q1,d1\n', "x.csv")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value).startswith(f"{path}:3: expected 4 comma-separated columns")


@pytest.fixture
def campaign(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("topics.tsv").write_text("q1\tapple pie\n")
    Path("a.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    Path("docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "title": d, "text": f"text of {d}"}) + "\n" for d in ("d1", "d2"))
    )
    for name in ("c.sqlite", "d.sqlite"):
        result = CliRunner().invoke(
            main, ["pool", "a.run", "--topics", "topics.tsv", "--docs", "docs.jsonl", "-o", name]
        )
        assert result.exit_code == 0, result.output
    return "c.sqlite"


def test_cli_csv_export_has_notes_and_durations_and_reads_back(campaign: str) -> None:
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(campaign) as store:
        store.record("alice", "q1", "d1", grade=2, note="clear, on\ntopic", duration_ms=1800)
        store.record("bob", "q1", "d1", grade=1, duration_ms=950)
        store.record("alice", "q1", "d2", action="skip", note="later")
        store.record("bob", "q1", "d2", grade=0)
    runner = CliRunner()
    result = runner.invoke(main, ["judgments", "export", campaign, "--format", "csv", "-o", "j.csv"])
    assert result.exit_code == 0, result.output
    records = list(csv.DictReader(open("j.csv", newline="", encoding="utf-8")))  # noqa: SIM115
    assert [(r["assessor"], r["doc_id"], r["grade"], r["note"], r["duration_ms"]) for r in records] == [
        ("alice", "d1", "2", "clear, on\ntopic", "1800"),
        ("bob", "d1", "1", "", "950"),
        ("alice", "d2", "skip", "later", ""),
        ("bob", "d2", "0", "", ""),
    ]
    agreed = runner.invoke(main, ["agree", "j.csv", "--format", "json", "--bootstrap", "0"])
    assert agreed.exit_code == 0, agreed.output
    assert json.loads(agreed.stdout)["n_judgments"] == 3  # the skip is not a grade
    imported = runner.invoke(main, ["judgments", "import", "d.sqlite", "j.csv"])
    assert (imported.exit_code, imported.stdout) == (0, "Imported 4 judgments into d.sqlite\n")
    with CampaignStore.open("d.sqlite") as store:
        assert store.current("alice", "q1", "d1").note == "clear, on\ntopic"  # type: ignore[union-attr]
