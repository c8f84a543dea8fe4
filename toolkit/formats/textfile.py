"""Open a text file the way every reader here needs: gzip by magic number, UTF-8, binary garbage refused.

Readers get ``(line_number, line)`` pairs so that every error can name ``path:line``.
"""

from __future__ import annotations

import gzip
import io
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from toolkit.errors import FormatError

GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip; unreadable files raise ``FormatError``."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise FormatError(path, None, "file not found; check the path") from None
    except IsADirectoryError:
        raise FormatError(path, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise FormatError(path, None, f"cannot read file ({exc.strerror}); check its permissions") from None
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise FormatError(path, None, f"corrupt gzip data ({exc}); re-create the file") from None
    return raw


def decode_text(path: str | Path, raw: bytes) -> str:
    """Decode UTF-8, refusing binary data with the line where it starts."""
    nul = raw.find(b"\x00")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise FormatError(path, line, "binary or non-UTF-8 data; expected a UTF-8 text file") from None
    if nul >= 0:
        line = raw.count(b"\n", 0, nul) + 1
        raise FormatError(path, line, "binary data (NUL byte); expected a text file")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def read_text(path: str | Path) -> str:
    return decode_text(path, read_bytes(path))


def iter_data_lines(path: str | Path, text: str | None = None) -> Iterator[tuple[int, str]]:
    """Non-blank, non-comment lines with their 1-based line numbers."""
    if text is None:
        text = read_text(path)
    for number, line in enumerate(text.splitlines(), start=1):
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
    """``(line_number, columns)`` of a TREC run or qrels file, split the way trec_eval splits them.

    Lines end at ``\n`` only (a form feed or ``\x1c`` inside a line stays inside it); columns are separated by
    ASCII whitespace; blank lines and lines whose first non-blank character is ``#`` are skipped.
    """
    text = read_text(path)
    plain = text.isascii() and _PYTHON_ONLY_SPACE.search(text) is None
    split = str.split if plain else _C_FIELD.findall  # the same columns; str.split is 4 times faster
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip(_C_SPACE)
        if not stripped or stripped.startswith("#"):
            continue
        fields = split(stripped)
        if fields:
            yield number, fields


def open_for_write(path: str | Path) -> IO[str]:
    """A text handle that gzips when the name ends in ``.gz``; ``-`` is stdout."""
    if str(path) == "-":
        import sys

        return io.TextIOWrapper(os.fdopen(os.dup(sys.stdout.fileno()), "wb"), encoding="utf-8")
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    if p.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(p, "wb"), encoding="utf-8")
    return open(p, "w", encoding="utf-8", newline="\n")


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.tmp{os.getpid()}")
    if p.suffix == ".gz":
        tmp.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    os.replace(tmp, p)
