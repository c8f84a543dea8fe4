"""The judgments TSV reader: optional header, comments, CRLF, and campaign detection by content."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from toolkit.agreement import Rating, load_judgments, read_judgments_tsv
from toolkit.agreement.judgments import is_campaign


def test_header_is_optional_and_comments_and_crlf_are_fine(tmp_path: Path) -> None:
    with_header = tmp_path / "a.tsv"
    with_header.write_bytes(
        b"Assessor\tQuery_ID\tDoc_ID\tGrade\r\n# a comment\r\nalice\tq1\td1\t2\r\n\r\nbob\tq1\td1\t 0 \r\n"
    )
    without = tmp_path / "b.tsv"
    without.write_text("alice\tq1\td1\t2\nbob\tq1\td1\t0\n", encoding="utf-8")
    expected = (Rating("alice", "q1", "d1", 2), Rating("bob", "q1", "d1", 0))
    assert read_judgments_tsv(with_header).judgments == expected
    assert read_judgments_tsv(without).judgments == expected
    assert read_judgments_tsv(without).labels is None


def test_campaign_detection_is_by_content_first(tmp_path: Path) -> None:
    tsv_named_db = tmp_path / "judgments.db"
    tsv_named_db.write_text("alice\tq1\td1\t1\n", encoding="utf-8")
    assert not is_campaign(tsv_named_db)
    assert load_judgments(tsv_named_db).kind == "tsv"
    sqlite_named_tsv = tmp_path / "camp.tsv"
    sqlite3.connect(sqlite_named_tsv).execute("CREATE TABLE t (x)").connection.commit()
    assert is_campaign(sqlite_named_tsv)
    assert is_campaign(tmp_path / "not-yet.sqlite")
    assert not is_campaign(tmp_path / "not-yet.tsv")


def test_a_note_column_and_exported_files_are_read(tmp_path: Path) -> None:
    """What ``judgments export`` writes (skip/unrateable as words) and import accepts (a fifth note column)."""
    path = tmp_path / "export.tsv"
    path.write_text(
        "assessor\tquery_id\tdoc_id\tgrade\tnote\nalice\tq1\td1\t2\tclear\nbob\tq1\td1\t1\t\n"
        "bob\tq1\td2\tskip\n",
        encoding="utf-8",
    )
    source = read_judgments_tsv(path)
    assert source.judgments == (Rating("alice", "q1", "d1", 2), Rating("bob", "q1", "d1", 1))
    assert source.excluded == {"skip": 1}
