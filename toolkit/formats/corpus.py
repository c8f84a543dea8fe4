"""Documents as data: JSONL and TSV corpora, and the JSON object a doc command answers with.

A corpus can be much larger than the pool drawn from it (a pool of 170,000 documents from a corpus of
millions), so it is **streamed**: one line at a time, gzip recognised by its magic number, UTF-8 decoded
per block, a line longer than the document limit refused (``toolkit.formats.limits``, default 64 MiB) —
nothing holds the whole file. Every defect names ``path:line``.

One document object, whatever carries it (a JSONL corpus line, a batch doc command's answer line, a
per-document command's JSON output):

- an id: ``doc_id`` (or ``docno``, ``id``, ``_id``);
- ``text`` (or ``body``, ``contents``), a string; optional ``title``;
- optional ``format``: how the text is written — ``text`` (line breaks kept), ``markdown`` or ``html``;
- optional ``version``: any string that changes whenever the title or text changes (a revision number, an
  ETag, a hash, a build id), so a later pool round can recognise an unchanged document without fetching
  it again;
- for a doc command only: ``error`` instead of ``text`` says the document cannot be given (the reason is
  recorded as a fetch failure).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from toolkit.errors import FormatError
from toolkit.formats.limits import InputLimits
from toolkit.formats.structured import json_line_object
from toolkit.formats.textfile import iter_data_lines

ID_KEYS = ("doc_id", "docno", "id", "_id")
TEXT_KEYS = ("text", "body", "contents")
#: How a document's text is written; the judging screen renders each its own way.
DOC_FORMATS = ("text", "markdown", "html")
#: The longest line a doc command's answer may have by default: a document of 64 MiB is not a page. A corpus
#: line's limit is ``TREC_TOOLKIT_MAX_DOCUMENT`` (``toolkit.formats.limits``), whose default this is.
MAX_LINE_BYTES = InputLimits().max_document


class DocRecord(NamedTuple):
    """One document as a corpus or a doc command gives it; ``error`` set (and text empty) when it cannot.

    A named tuple, not a frozen dataclass: a corpus may hold millions of lines, and this is made per line."""

    doc_id: str
    title: str
    text: str
    format: str | None = None
    version: str | None = None
    error: str | None = None


#: what a line of a JSON Lines corpus holds
_EXPECTED_JSONL = 'one document object per line, like {"doc_id": "d1", "text": "…"}'


def is_jsonl(path: str | Path) -> bool:
    name = Path(path).name.lower()
    return name.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz"))


def doc_id_of(data: Mapping[str, Any]) -> str | None:
    """The object's document id as a string; None when it has none (or a list/object/boolean)."""
    for key in ID_KEYS:
        if key in data:
            value = data[key]
            if isinstance(value, str):
                return value
            if value is None or isinstance(value, bool | dict | list):
                return None
            return str(value)
    return None


def doc_record(data: Mapping[str, Any], *, allow_error: bool = False) -> DocRecord | str:
    """A ``DocRecord`` from one document object, or what is wrong with it (for the caller's ``path:line``)."""
    doc_id = doc_id_of(data)
    if doc_id is None:
        return f"missing document id (one of {', '.join(ID_KEYS)})"
    text = data.get("text")
    if not isinstance(text, str):
        text = next((data[k] for k in TEXT_KEYS[1:] if isinstance(data.get(k), str)), None)
    if text is None:
        if allow_error and "error" in data:
            return DocRecord(
                doc_id, "", "", error=str(data["error"]) or "the doc command gave an empty error"
            )
        return f"missing document text (one of {', '.join(TEXT_KEYS)})"
    title = data.get("title", "")
    fmt = data.get("format")
    if fmt is not None and fmt not in DOC_FORMATS:
        return f"format {fmt!r} is not one of {', '.join(DOC_FORMATS)}"
    version = data.get("version")
    if version is not None and (isinstance(version, bool | dict | list) or str(version) == ""):
        return "version must be a non-empty string or number"
    return DocRecord(
        doc_id,
        title if isinstance(title, str) else str(title),
        text,
        format=fmt,
        version=None if version is None else str(version),
    )


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Stream ``(line_number, line)`` over a corpus (gzip by magic), skipping blank and ``#`` lines.

    A line is a document, so it may be as long as the document limit (``toolkit.formats.limits``).
    """
    return iter_data_lines(path, kind="corpus")


def iter_corpus(path: str | Path, wanted: Collection[str] | None = None) -> Iterator[tuple[int, DocRecord]]:
    """The documents of a JSONL or TSV corpus with their line numbers — every one, or only the ids in
    ``wanted`` (the other lines are checked for a valid id only). A duplicate id is an error."""
    jsonl = is_jsonl(path)
    seen: set[str] = set()
    for number, line in iter_lines(path):
        if jsonl:
            data = json_line_object(path, number, line, _EXPECTED_JSONL)
            doc_id = doc_id_of(data)
            if doc_id is None:
                raise FormatError(path, number, f"missing document id (one of {', '.join(ID_KEYS)})")
        else:
            doc_id = line.split("\t", 1)[0]
        if doc_id in seen:
            raise FormatError(path, number, f"duplicate document {doc_id!r}; keep one line per doc_id")
        seen.add(doc_id)
        if wanted is not None and doc_id not in wanted:
            continue
        if jsonl:
            record = doc_record(data)
            if isinstance(record, str):
                raise FormatError(path, number, record)
        else:
            record = _tsv_record(path, number, line)
        yield number, record


def _tsv_record(path: str | Path, number: int, line: str) -> DocRecord:
    parts = line.split("\t")
    if len(parts) == 2:
        return DocRecord(parts[0], "", parts[1].replace("\\n", "\n"))
    if len(parts) == 3:
        return DocRecord(parts[0], parts[1], parts[2].replace("\\n", "\n"))
    raise FormatError(
        path, number, f"expected doc_id<TAB>text or doc_id<TAB>title<TAB>text, found {len(parts)} columns"
    )
