"""Read a text file the way every reader here needs: gzip by magic number, UTF-8, binary garbage refused,
within the input limits — as a stream of lines, or whole for formats parsed as one document.

Every byte comes through ``toolkit.formats.limits.open_input`` (decompressed size, line length, document
size: docs/reliability.md, "Input limits"), so no reader here can be made to hold more than the limits allow.
Line readers get ``(line_number, line)`` pairs so that every error can name ``path:line``; lines end at
``\n`` (a ``\r`` before it is the line's, for the reader to strip), never at the other characters Python's
``str.splitlines`` also splits on (``\x1c``, ``\x85``, U+2028 …), which may sit inside a note or a query.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats.limits import GZIP_MAGIC, Kind, open_input

__all__ = [
    "BOM",
    "GZIP_MAGIC",
    "atomic_write_text",
    "decode_text",
    "iter_byte_blocks",
    "iter_data_lines",
    "iter_text_lines",
    "iter_trec_fields",
    "read_bytes",
    "read_text",
    "warn_bom",
]

#: The UTF-8 byte order mark. trec_eval reads it as the first bytes of the first line's first column.
BOM = b"\xef\xbb\xbf"


def warn_bom(shown: str | Path, raw: bytes) -> None:
    """Say that a TREC run or qrels file starts with a byte order mark, and what it becomes: part of the first
    column (``raw``: the file's first bytes, at least its first line).

    Why a warning and not a silent strip: trec_eval keeps the mark, so the first topic id is another id than
    the one the line seems to show (``\\ufeff1`` is not ``1``), and every value that depends on that topic
    changes; a reader that strips it prints another number than trec_eval without a word.
    """
    fields = raw.split(b"\n", 1)[0].split()
    token = (fields[0] if fields else BOM).decode("utf-8", "backslashreplace")
    warnings.warn(
        f"{shown}:1: the file starts with a UTF-8 byte order mark; as trec_eval does, it is read as part of the "
        f"first column ({token!r}, not {token[1:]!r}); save the file without it (UTF-8 without BOM)",
        ToolkitWarning,
        stacklevel=3,
    )


#: Bytes read at once by the line readers: a block, then its lines (and at most one line carried over).
BLOCK_BYTES = 1 << 20


def read_bytes(path: str | Path, *, stream: IO[bytes] | None = None, kind: Kind = "data") -> bytes:
    """The file's bytes, gunzipped when it is gzip, within the input limits; errors raise ``FormatError``.

    ``stream``: read this open binary stream (standard input) instead, named ``path`` in errors.
    ``kind``: ``document`` for a file that is one document (``toolkit.formats.limits``).
    """
    with open_input(path, stream=stream, kind=kind) as handle:
        return handle.read()


def decode_text(path: str | Path, raw: bytes) -> str:
    """Decode UTF-8, refusing binary data with the line where it starts; a byte-order mark is dropped."""
    text = _decode_block(path, raw, 0)
    return text[1:] if text.startswith("\ufeff") else text


def _decode_block(path: str | Path, raw: bytes, before: int) -> str:
    """``raw`` (whole lines, the first being line ``before + 1``) as text; the first defect names its line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = before + raw.count(b"\n", 0, exc.start) + 1
        raise FormatError(path, line, "binary or non-UTF-8 data; expected a UTF-8 text file") from None
    nul = raw.find(b"\x00")
    if nul >= 0:
        line = before + raw.count(b"\n", 0, nul) + 1
        raise FormatError(path, line, "binary data (NUL byte); expected a text file")
    return text


def read_text(path: str | Path, *, kind: Kind = "data") -> str:
    """The whole file as text (for formats parsed as one piece: TOML, XML, JSON; a document file)."""
    return decode_text(path, read_bytes(path, kind=kind))


def iter_byte_blocks(
    path: str | Path,
    *,
    block: int = BLOCK_BYTES,
    stream: IO[bytes] | None = None,
    kind: Kind = "data",
    digest: Any = None,
) -> Iterator[bytes]:
    """The file's bytes (gunzipped, within the limits) in blocks of whole lines: each block ends with
    ``\n``, except the file's last when the file does not. Only a block and one line are held at a time."""
    with open_input(path, stream=stream, kind=kind, digest=digest) as handle:
        pending: list[bytes] = []  # the start of a line longer than a block (the line limit bounds it)
        while True:
            chunk = handle.read(block)
            if not chunk:
                if pending:
                    yield b"".join(pending)
                return
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                pending.append(chunk)
                continue
            head = chunk if cut == len(chunk) else chunk[:cut]
            if pending:
                head = b"".join([*pending, head])
                pending.clear()
            if cut < len(chunk):
                pending.append(chunk[cut:])
            yield head


def iter_text_lines(
    path: str | Path, *, stream: IO[bytes] | None = None, kind: Kind = "data", digest: Any = None
) -> Iterator[tuple[int, str]]:
    """Every line of a UTF-8 text file, streamed: ``(line_number, line)`` without the ``\n``."""
    number = 0
    for data in iter_byte_blocks(path, stream=stream, kind=kind, digest=digest):
        text = _decode_block(path, data, number)
        if number == 0 and text.startswith("\ufeff"):
            text = text[1:]
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        for line in lines:
            number += 1
            yield number, line


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of text already read, as ``iter_text_lines`` gives them (split at ``\n`` only, lazily)."""
    for number, line in enumerate(io.StringIO(text, newline="\n"), start=1):
        yield number, line[:-1] if line.endswith("\n") else line


def iter_data_lines(
    path: str | Path, text: str | None = None, *, stream: IO[bytes] | None = None, kind: Kind = "data"
) -> Iterator[tuple[int, str]]:
    """Non-blank, non-comment lines, stripped, with their 1-based line numbers (streamed from ``path``, or
    ``stream``, unless the ``text`` is given)."""
    lines = iter_text_lines(path, stream=stream, kind=kind) if text is None else split_lines(text)
    for number, line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        yield number, stripped


#: C's ``isspace`` in the C locale: what separates columns for trec_eval (Python's ``str.split()`` also splits on
#: Unicode spaces and on \x1c-\x1f, which trec_eval keeps inside a token).
_C_SPACE = " \t\r\v\f"
_C_FIELD = re.compile(r"[^ \t\r\v\f\n]+")
#: Characters ``str.split()`` splits on that C's ``isspace`` does not (in ASCII text).
_PYTHON_ONLY_SPACE = re.compile(r"[\x1c-\x1f]")


def iter_trec_fields(path: str | Path) -> Iterator[tuple[int, list[str]]]:
    """``(line_number, columns)`` of a TREC run or qrels file, split the way trec_eval splits them, streamed.

    Lines end at ``\n`` only (a form feed or ``\x1c`` inside a line stays inside it); columns are separated by
    ASCII whitespace; blank lines and lines whose first non-blank character is ``#`` are skipped. A byte order
    mark stays part of the first column, as trec_eval reads it, with a warning (``warn_bom``).
    """
    number = 0
    for data in iter_byte_blocks(path):
        if number == 0 and data.startswith(BOM):
            warn_bom(path, data)
        text = _decode_block(path, data, number)
        plain = text.isascii() and _PYTHON_ONLY_SPACE.search(text) is None
        split = str.split if plain else _C_FIELD.findall  # the same columns; str.split is 4 times faster
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        for line in lines:
            number += 1
            stripped = line.lstrip(_C_SPACE)
            if not stripped or stripped.startswith("#"):
                continue
            fields = split(stripped)
            if fields:
                yield number, fields


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` whole or not at all, never replacing what is not a file (``toolkit.formats.output``)."""
    from toolkit.formats.output import write_text_output

    write_text_output(path, text)


def warn_text_ignored(path: str | Path, lines: list[int], column: int, why: str) -> None:
    """One ``ToolkitWarning`` for the ``lines`` whose text after the format's last ``column`` a reader ignored
    (as trec_eval does), counting them and naming the first; ``why`` says why ignoring it is right."""
    if lines:
        warnings.warn(
            f"{path}: {len(lines)} line(s) have text after column {column} (first: line {lines[0]}); "
            f"it is ignored{why}",
            ToolkitWarning,
            stacklevel=3,
        )


V = TypeVar("V")


def put_once(
    nested: dict[str, dict[str, V]],
    query_id: str,
    doc_id: str,
    value: V,
    *,
    path: str | Path,
    number: int,
    duplicate: str,
) -> None:
    """``nested[query_id][doc_id] = value`` for a line reader of runs or qrels, where a (query, doc) pair may
    stand once: a second is a ``FormatError`` at ``path:number`` saying ``duplicate`` (``{q!r}``, ``{d!r}``)."""
    docs = nested.setdefault(query_id, {})
    if doc_id in docs:
        raise FormatError(path, number, duplicate.format(q=query_id, d=doc_id))
    docs[doc_id] = value
