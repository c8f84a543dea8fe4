"""Doc-id lists (``truth --doc-ids``): one id per line, comments, stdin, and the two error messages."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats.docids import read_doc_ids


def test_ids_comments_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("# corpus\nd1\n\n  d2  \r\nd1\n", encoding="utf-8")
    assert read_doc_ids(path) == ["d1", "d2", "d1"]


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"a\nb\n")))  # read as bytes, within limits
    assert read_doc_ids("-") == ["a", "b"]


def test_an_id_with_a_blank_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("d1\ntwo words\n", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_doc_ids(path)
    assert (
        str(err.value)
        == f"{path}:2: expected one doc id per line, found 'two words' (doc ids have no spaces)"
    )


def test_no_ids(tmp_path: Path) -> None:
    path = tmp_path / "ids.txt"
    path.write_text("# nothing\n\n", encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_doc_ids(path)
    assert str(err.value) == f"{path}: no doc ids; expected one doc id per line"
