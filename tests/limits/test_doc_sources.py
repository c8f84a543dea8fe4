"""Documents from a folder or a corpus meet the document limit, not the line limit (minified HTML is one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.pooling.docsource import doc_source_from_option, fetch_documents


def test_a_document_file_of_one_long_line_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TREC_TOOLKIT_MAX_LINE", "1KiB")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "d1.html").write_text("<title>t</title>" + "<p>x</p>" * 1000)  # 8 KiB on one line
    (document,) = fetch_documents(doc_source_from_option(tmp_path / "docs"), ["d1"]).values()
    assert document.fetch_error is None and len(document.text) == 8016


def test_a_document_file_past_the_document_limit_is_a_fetch_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DOCUMENT", "4KiB")
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "d1.txt"
    page.write_text("title\n" + "a line of text\n" * 1000)
    (document,) = fetch_documents(doc_source_from_option(tmp_path / "docs"), ["d1"]).values()
    assert document.fetch_error == (
        f"{page.resolve()}:274: document larger than 4 KiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT); "
        "check that this is the right file, or raise the limit (e.g. TREC_TOOLKIT_MAX_DOCUMENT=16KiB)"
    )


def test_a_corpus_line_past_the_document_limit_stops_the_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DOCUMENT", "4KiB")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"doc_id": "d1", "text": "short"}\n{"doc_id": "d2", "text": "' + "x" * 5000 + '"}\n')
    with pytest.raises(FormatError) as err:
        fetch_documents(doc_source_from_option(corpus), ["d1"])
    assert str(err.value).startswith(f"{corpus}:2: document longer than 4 KiB, the limit for one document")
