"""The one judgments-file reader (TSV and JSONL) and the gold-list reader: rows, and every error message.

The expected rows and messages are written from the format's specification (module docstring of
``toolkit.formats.judgments``), not from the reader's output.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats.judgments import (
    JudgmentRow,
    format_judgments,
    format_log,
    iter_gold_rows,
    iter_judgment_rows,
    parse_integer,
    read_judgment_rows,
)


def write(tmp_path: Path, text: str, name: str = "j.tsv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_tsv_rows_header_comments_notes_and_decisions(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "Assessor\tQuery_ID\tDoc_ID\tGrade\tnote\r\n# comment\r\n\r\nalice\tq1\td1\t 2 \tclear\\nreally\r\n"
        "bob\tq1\td1\tSKIP\r\nbob\tq1\td2\tunrateable\t\r\ncarol\tq2\td9\t-1\r\n",
    )
    assert read_judgment_rows(path) == [
        JudgmentRow(4, "alice", "q1", "d1", 2, "judge", "clear\nreally"),
        JudgmentRow(5, "bob", "q1", "d1", None, "skip"),
        JudgmentRow(6, "bob", "q1", "d2", None, "unrateable"),
        JudgmentRow(7, "carol", "q2", "d9", -1, "judge"),
    ]


def test_a_header_only_counts_as_the_first_data_line(tmp_path: Path) -> None:
    path = write(tmp_path, "alice\tq1\td1\t1\nassessor\tquery_id\tdoc_id\tgrade\n")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:2: expected an integer grade, 'skip' or 'unrateable', found 'grade'"


#: Why a grade Python's int() reads is refused (toolkit.formats.numbers).
HINT = " (grades are ASCII integers — digits with an optional sign — as trec_eval reads them)"

TSV_ERRORS = [
    (
        "alice\tq1\td1\n",
        1,
        "expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 3",
    ),
    (
        "alice q1 d1 2\n",
        1,
        "expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 1",
    ),
    (
        "alice\tq1\td1\t1\tnote\textra\n",
        1,
        "expected 4 tab-separated columns (assessor query_id doc_id grade) and an optional note, found 6",
    ),
    ("\tq1\td1\t1\n", 1, "empty assessor (column 1); fill it in or delete the line"),
    ("alice\t\td1\t1\n", 1, "empty query_id (column 2); fill it in or delete the line"),
    ("# c\nalice\tq1\t \t1\n", 2, "empty doc_id (column 3); fill it in or delete the line"),
    ("alice\tq1\td1\t\n", 1, "empty grade (column 4); fill it in or delete the line"),
    (
        "al,ice\tq1\td1\t2\n",
        1,
        "invalid assessor name 'al,ice': use a non-empty name without tabs, commas, line breaks or other control characters",
    ),
    ("alice\tq1\td1\thigh\n", 1, "expected an integer grade, 'skip' or 'unrateable', found 'high'"),
    ("alice\tq1\td1\t1_0\n", 1, "expected an integer grade, 'skip' or 'unrateable', found '1_0'" + HINT),
    ("alice\tq1\td1\t２\n", 1, "expected an integer grade, 'skip' or 'unrateable', found '２'" + HINT),
    ("alice\tq1\td1\t1.0\n", 1, "expected an integer grade, 'skip' or 'unrateable', found '1.0'"),
    (
        "alice\tq1\td1\t1\nbob\tq1\td1\t2\nalice\tq1\td1\tskip\n",
        3,
        "duplicate judgment by alice of (q1, d1); first on line 1 (keep one line per assessor and item)",
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), TSV_ERRORS)
def test_tsv_errors_name_path_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:{line}: {message}"


def test_campaign_checks_topic_and_scale_at_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "alice\tq1\td1\t1\nalice\tq9\td1\t1\n")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path, topics={"q1"})
    assert str(err.value) == f"{path}:2: unknown topic 'q9': not in this campaign"
    path = write(tmp_path, "alice\tq1\td1\t7\n")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path, scale={3, 0, 1, 2})
    assert str(err.value) == f"{path}:1: grade 7 is not on the campaign's scale (0, 1, 2, 3)"
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path, scale=[0, 1], scale_name="the --labels scale")
    assert str(err.value) == f"{path}:1: grade 7 is not on the --labels scale (0, 1)"
    skip = write(tmp_path, "alice\tq1\td1\tskip\n")
    assert read_judgment_rows(skip, scale={0, 1})[0].action == "skip"  # a skip is never checked as a grade


def test_the_first_defect_wins_and_rows_stream(tmp_path: Path) -> None:
    """Rows come out one by one, so a caller's own check on line 1 fires before a bad line 2 is read."""
    path = write(tmp_path, "alice\tq1\td1\t1\nalice\tq1\n")
    rows = iter_judgment_rows(path)
    assert next(rows).line == 1
    with pytest.raises(FormatError, match=":2: expected 4 tab-separated columns"):
        next(rows)


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "assessor\tquery_id\tdoc_id\tgrade\n"])
def test_no_judgments_is_an_error(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert (
        str(err.value) == f"{path}: no judgments found (expected assessor<TAB>query_id<TAB>doc_id<TAB>grade)"
    )


def test_jsonl_rows_by_suffix_or_content(tmp_path: Path) -> None:
    lines = [
        {"assessor": "alice", "query_id": "q1", "doc_id": "d1", "grade": 2, "action": "judge", "note": "ok"},
        {"assessor": "bob", "query_id": "q1", "doc_id": "d1", "grade": None, "action": "skip"},
        {"assessor": "bob", "query_id": "q1", "doc_id": "d2", "grade": 0, "time": "t", "event_id": 3},
    ]
    text = "".join(json.dumps(x) + "\n" for x in lines) + "\n"
    expected = [
        JudgmentRow(1, "alice", "q1", "d1", 2, "judge", "ok"),
        JudgmentRow(2, "bob", "q1", "d1", None, "skip"),
        JudgmentRow(3, "bob", "q1", "d2", 0, "judge", time="t"),
    ]
    assert read_judgment_rows(write(tmp_path, text, "j.jsonl")) == expected
    assert read_judgment_rows(write(tmp_path, text, "j.txt")) == expected  # sniffed: starts with {
    packed = tmp_path / "j.ndjson.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert read_judgment_rows(packed) == expected


JSONL_ERRORS = [
    ('{"assessor": "a"\n', "invalid JSON (Expecting ',' delimiter); expected one JSON object per line with "
     "assessor, query_id, doc_id and grade"),
    ("[1, 2]\n", "expected one JSON object per line with assessor, query_id, doc_id and grade, found [1, 2]"),
    ('{"query_id": "q1", "doc_id": "d1", "grade": 1}\n', "empty assessor (field 1); fill it in or delete the line"),
    ('{"assessor": "a", "query_id": 1, "doc_id": "d1", "grade": 1}\n',
     "empty query_id (field 2); fill it in or delete the line"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": " ", "grade": 1}\n',
     "empty doc_id (field 3); fill it in or delete the line"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": "2"}\n',
     "expected an integer grade, 'skip' or 'unrateable', found \"2\""),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": true}\n',
     "expected an integer grade, 'skip' or 'unrateable', found true"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1"}\n',
     "expected an integer grade, 'skip' or 'unrateable', found null"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": 1, "action": "skip"}\n',
     "a skip carries no grade (found 1); set grade to null"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": null, "action": "undo"}\n',
     "action \"undo\" cannot be imported; expected judge, skip or unrateable (export current judgments, not "
     "the --log)"),
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": 1, "note": 5}\n',
     "expected a string or null note, found 5"),
    ('{"assessor": "a\\tb", "query_id": "q1", "doc_id": "d1", "grade": 1}\n',
     "invalid assessor name 'a\\tb': use a non-empty name without tabs, commas, line breaks or other control characters"),
    # a lone UTF-16 surrogate is no character: no file, database or terminal can take it
    ('{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": 1, "note": "x\\ud800"}\n',
     "note holds \\ud800, half of a UTF-16 surrogate pair and no character; write the character itself"),
    ('{"assessor": "a\\udfff", "query_id": "q1", "doc_id": "d1", "grade": 1}\n',
     "assessor holds \\udfff, half of a UTF-16 surrogate pair and no character; write the character itself"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), JSONL_ERRORS)
def test_jsonl_errors_name_path_and_line(tmp_path: Path, text: str, message: str) -> None:
    good = '{"assessor": "z", "query_id": "q0", "doc_id": "d0", "grade": 0}\n'
    path = write(tmp_path, good + text, "j.jsonl")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:2: {message}"


def test_jsonl_duplicates_and_emptiness(tmp_path: Path) -> None:
    row = '{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": 1}\n'
    path = write(tmp_path, row + row, "j.jsonl")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == (
        f"{path}:2: duplicate judgment by a of (q1, d1); first on line 1 (keep one line per assessor and item)"
    )
    empty = write(tmp_path, "\n", "e.jsonl")
    with pytest.raises(FormatError) as err:
        read_judgment_rows(empty)
    assert str(err.value) == (
        f"{empty}: no judgments found (expected one JSON object per line with assessor, query_id, doc_id and grade)"
    )


@dataclass(frozen=True)
class _Judgment:
    assessor: str
    query_id: str
    doc_id: str
    grade: int | None
    action: str
    note: str | None


def test_what_format_judgments_writes_reads_back(tmp_path: Path) -> None:
    records = [
        _Judgment("alice", "q1", "d1", 2, "judge", "two\nlines"),
        _Judgment("bob", "q1", "d1", None, "unrateable", None),
    ]
    tsv = format_judgments(records)
    assert tsv == (
        "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\n"
        "alice\tq1\td1\t2\ttwo\\nlines\t\nbob\tq1\td1\tunrateable\t\t\n"
    )
    assert read_judgment_rows(write(tmp_path, tsv)) == [
        JudgmentRow(2, "alice", "q1", "d1", 2, "judge", "two\nlines"),
        JudgmentRow(3, "bob", "q1", "d1", None, "unrateable"),
    ]
    jsonl = format_judgments(records, "jsonl")
    assert read_judgment_rows(write(tmp_path, jsonl, "j.jsonl")) == [
        JudgmentRow(1, "alice", "q1", "d1", 2, "judge", "two\nlines"),
        JudgmentRow(2, "bob", "q1", "d1", None, "unrateable"),
    ]


def test_log_tsv_escapes_tabs_and_newlines() -> None:
    @dataclass(frozen=True)
    class Event:
        event_id: int = 1
        time: str = "t"
        assessor: str = "a"
        query_id: str = "q"
        doc_id: str = "d"
        action: str = "note"
        grade: int | None = None
        note: str | None = "x\ty\nz"
        duration_ms: int | None = None
        position: int | None = None
        content_hash: str | None = None
        undoes: int | None = None

    assert format_log([Event()]).splitlines()[1] == "1\tt\ta\tq\td\tnote\t\tx\\ty\\nz\t\t\t\t"


def test_parse_integer_is_ascii_only() -> None:
    assert [parse_integer(t) for t in ("0", "-1", "+3", "007")] == [0, -1, 3, 7]
    assert [parse_integer(t) for t in ("1_0", "٣", "1.0", "", " 1", "0x1")] == [None] * 6


GOLD_ERRORS = [
    ("q1\ta01\n", 1, "expected 3 columns (query_id doc_id grade), found 2"),
    ("q9\ta01\t2\n", 1, "unknown topic 'q9': not in this campaign"),
    ("q1\ta01\tx\n", 1, "expected an integer grade, found 'x'"),
    ("q1\ta01\t1_0\n", 1, "expected an integer grade, found '1_0'" + HINT),
    ("q1\ta01\t5\n", 1, "grade 5 is not on the campaign's scale (0, 1, 2, 3)"),
    ("q1\ta01\t1\n# c\nq1\ta01\t2\n", 3, "duplicate gold item (q1, a01)"),
]


@pytest.mark.parametrize(("text", "line", "message"), GOLD_ERRORS)
def test_gold_errors(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text, "gold.tsv")
    with pytest.raises(FormatError) as err:
        list(iter_gold_rows(path, topics={"q1"}, scale={0, 1, 2, 3}))
    assert str(err.value) == f"{path}:{line}: {message}"


def test_gold_rows_tabs_or_blanks(tmp_path: Path) -> None:
    path = write(tmp_path, "q1\ta 01\t2\nq2 b01 0\n", "gold.tsv")
    assert list(iter_gold_rows(path)) == [(1, "q1", "a 01", 2), (2, "q2", "b01", 0)]
