"""Input limits: every reader takes its bytes through ``open_input``, which stops hostile input early.

Why: runs, qrels, judgments, topic sets, corpora and manifests come from elsewhere. A 1 MB gzip can expand
to 1 GB (a decompression bomb), ``/dev/zero`` never ends, and a "line" without a newline can be as long as
the disk. Read whole, each of these runs the machine out of memory. So no reader opens a file itself: each
gets a ``LimitedInput`` from ``open_input``, which gunzips as a stream (gzip recognised by its magic number)
and refuses, with one ``path:line`` error, input that passes either limit:

- **decompressed size** — the most bytes one input may give, after gunzip (a plain file counts its own
  bytes, so ``/dev/zero`` and endless pipes stop too): ``TREC_TOOLKIT_MAX_DECOMPRESSED``, default 4 GiB;
- **line length** — the longest line of a data file (runs, qrels, judgments, topics, id lists, manifests,
  ``toolkit.toml``): ``TREC_TOOLKIT_MAX_LINE``, default 1 MiB;
- **document size** — document text is not made of short lines (a corpus line is one document, minified HTML
  is one line), so a corpus line and a document file may be up to ``TREC_TOOLKIT_MAX_DOCUMENT``, default
  64 MiB, instead of the line limit.

The limits are read from the environment at each open (values in bytes, or with a binary unit: ``512KiB``,
``4 MiB``, ``32GiB``). A line-reading reader then holds at most a block and one line at a time; a reader that
parses a whole document (TOML, XML, JSON) holds at most the decompressed size.

How a reader uses it — a line reader through ``toolkit.formats.textfile`` (``iter_text_lines``,
``iter_byte_blocks``, ``read_bytes``), a column reader directly::

    with open_input(path) as stream:          # or open_input("<stdin>", stream=sys.stdin.buffer)
        while got := stream.readinto(view):   # into a reused buffer; or stream.read(n)
            ...

A ``FormatError`` from the stream is the answer for the user, not a reason to fall back to another reader:
the other reader would stop at the same byte.

The line check costs a few ``rfind`` calls per megabyte — it jumps from line start to line start a whole
line limit at a time — so a column reader (pyarrow) can read through ``LimitedInput`` at full speed. The line
number of an error is counted only when there is one: by reading a regular file again up to the offset, or,
for a pipe or device that cannot be read twice, from newlines counted as they pass.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import stat
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from toolkit.errors import ConfigError, FormatError

GZIP_MAGIC = b"\x1f\x8b"

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
TIB = 1 << 40

MAX_DECOMPRESSED_ENV = "TREC_TOOLKIT_MAX_DECOMPRESSED"
MAX_LINE_ENV = "TREC_TOOLKIT_MAX_LINE"
MAX_DOCUMENT_ENV = "TREC_TOOLKIT_MAX_DOCUMENT"

#: The bytes asked of the source at once by ``read()`` without a size.
CHUNK = 1 << 20

_SIZE = re.compile(r"([0-9]+)\s*(B|KiB|MiB|GiB|TiB)?", re.ASCII)
_UNITS = {None: 1, "B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB, "TiB": TIB}


@dataclass(frozen=True)
class InputLimits:
    """What one input may hold: bytes after decompression, bytes per line, bytes per document."""

    max_decompressed: int = 4 * GIB  # docs/reliability.md: what a run of this size costs
    max_line: int = 1 * MIB
    max_document: int = 64 * MIB

    @classmethod
    def from_environment(cls) -> InputLimits:
        """The defaults, overridden by ``TREC_TOOLKIT_MAX_DECOMPRESSED``, ``…_MAX_LINE``, ``…_MAX_DOCUMENT``."""
        default = cls()
        return cls(
            max_decompressed=_env_size(MAX_DECOMPRESSED_ENV, default.max_decompressed),
            max_line=_env_size(MAX_LINE_ENV, default.max_line),
            max_document=_env_size(MAX_DOCUMENT_ENV, default.max_document),
        )


def parse_size(text: str) -> int | None:
    """``"4MiB"``, ``"4 MiB"``, ``"4194304"`` → bytes; None when ``text`` is no such size (or 0).

    Binary units only (``KiB``, ``MiB``, ``GiB``, ``TiB``), so that "MB" cannot be misread.
    """
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        return None
    size = int(match.group(1)) * _UNITS[match.group(2)]
    return size or None


def format_size(size: int) -> str:
    """``16 GiB``, ``1 MiB``, ``1000 bytes``: the largest binary unit that divides the size."""
    for unit, name in ((TIB, "TiB"), (GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size} bytes"


def _setting(name: str, size: int) -> str:
    """``NAME=4MiB``: how to write a size in the environment (what ``parse_size`` reads)."""
    text = format_size(size)
    return f"{name}={text.removesuffix(' bytes').replace(' ', '')}"


def _env_size(name: str, default: int) -> int:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    size = parse_size(value)
    if size is None:
        raise ConfigError(
            f"{name}={value!r}: expected a positive number of bytes, optionally with a binary unit "
            f"(KiB, MiB, GiB, TiB), e.g. {_setting(name, default * 4)}"
        )
    return size


#: What an input holds, which decides its limits: ``data`` (lines of ``max_line``), ``corpus`` (a document a
#: line: lines of ``max_document``), ``document`` (one document: ``max_document`` in all).
Kind = Literal["data", "corpus", "document"]


#: Below this size a plain (not gzipped) run or qrels file is read by the line reader: the column reader's
#: pyarrow and numpy cost more to import than a file this small costs to read line by line, and ``score`` is
#: called in loops, in CI and per checkpoint. The two readers are held to each other by tests.
SMALL_FILE = 256 * KIB


def is_small_file(path: str | Path) -> bool:
    """Whether ``path`` is a regular, uncompressed file under ``SMALL_FILE`` bytes (anything else: False)."""
    try:
        if os.stat(path).st_size >= SMALL_FILE or not os.path.isfile(path):
            return False
        with open(path, "rb") as handle:
            return handle.read(2) != GZIP_MAGIC
    except (OSError, ValueError, TypeError):
        return False


def open_input(
    path: str | Path,
    *,
    stream: IO[bytes] | None = None,
    kind: Kind = "data",
    digest: Any = None,
    limits: InputLimits | None = None,
) -> LimitedInput:
    """``path`` opened for reading as a binary stream: gunzipped when it is gzip, within the input limits.

    ``stream``: read this already open binary stream (standard input) instead, ``path`` naming it in errors.
    ``kind``: ``data`` (the default), ``corpus`` or ``document`` (see ``Kind``). ``digest``: a ``hashlib``
    object updated with every decompressed byte read. A missing or unreadable file, corrupt gzip data and
    every limit raise ``FormatError`` naming ``path``.
    """
    limits = limits or InputLimits.from_environment()
    document = kind == "document"
    name = str(path)
    reopen: Callable[[], io.RawIOBase] | None = None
    owned: IO[bytes] | None = None
    if stream is None:
        stream = owned = _open_file(path)
        if _regular(stream):
            reopen = lambda: _Reopened(path)  # noqa: E731 - only for counting lines after an error
    return LimitedInput(
        _decompressed(stream),
        name,
        owned=owned,
        max_total=min(limits.max_decompressed, limits.max_document) if document else limits.max_decompressed,
        max_line=limits.max_line if kind == "data" else limits.max_document,
        reopen=reopen,
        digest=digest,
        kind=kind,
    )


def _open_file(path: str | Path) -> IO[bytes]:
    try:
        return open(path, "rb")  # noqa: SIM115 - LimitedInput closes it
    except FileNotFoundError:
        raise FormatError(path, None, "file not found; check the path") from None
    except IsADirectoryError:
        raise FormatError(path, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise FormatError(path, None, f"cannot read file ({exc.strerror}); check its permissions") from None


def _regular(handle: IO[bytes]) -> bool:
    """A regular file can be read again to count lines; a pipe or a device cannot (or never ends)."""
    try:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


def _decompressed(handle: Any) -> Any:
    """``handle`` itself, or a ``GzipFile`` over it when it starts with the gzip magic number.

    ``GzipFile.read(n)`` inflates at most what it returns, so decompression is a stream, never a whole.
    """
    if not hasattr(handle, "peek"):  # a BytesIO, a test's stdin: buffer it to look at its first bytes
        handle = io.BufferedReader(handle)
    if bytes(handle.peek(2)[:2]) == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=handle, mode="rb")
    return handle


class _Reopened(io.RawIOBase):
    """The file decompressed again, without limits: only read to count the lines before an error offset."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self._file = _open_file(path)
        self._stream = _decompressed(self._file)

    def read(self, size: int | None = -1) -> bytes:
        return self._stream.read(size if size is not None else -1)

    def close(self) -> None:
        if not self.closed:
            try:
                self._stream.close()
            finally:
                self._file.close()
        super().close()


class LimitedInput(io.RawIOBase):
    """A binary stream over a (decompressed) source that refuses to give more than its limits allow.

    ``read(n)`` returns what the source gives, after checking it: the total stays within ``max_total`` and
    no line is longer than ``max_line`` bytes (the newline not counted). The first byte past a limit raises
    ``FormatError`` naming the path and the line, and nothing past the limit is ever handed out.
    """

    def __init__(
        self,
        source: Any,
        name: str,
        *,
        owned: IO[bytes] | None = None,
        max_total: int,
        max_line: int,
        reopen: Callable[[], io.RawIOBase] | None = None,
        digest: Any = None,
        kind: Kind = "data",
    ) -> None:
        super().__init__()
        self._source = source
        self._owned = owned  # the file this input opened, closed with it (a caller's stream is not)
        self.name = name
        self.max_total = max_total
        self.max_line = max_line
        self._reopen = reopen
        self._digest = digest
        self._kind = kind
        self._gzip = isinstance(source, gzip.GzipFile)
        self._total = 0  # bytes handed out so far
        self._line_start = 0  # offset of the current line's first byte: no newline in [line_start, total)
        self._newlines: int | None = None if reopen is not None else 0  # counted as they pass when no reopen

    # ------------------------------------------------------------------ the io protocol

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Read into the caller's buffer (a column reader's reused one: no fresh memory per block), checked."""
        view = memoryview(buffer).cast("B")
        try:
            size = self._source.readinto(view) or 0
        except (OSError, EOFError, zlib.error) as exc:
            raise self._read_error(exc) from None
        if size:
            self._check(view[:size])
        return size

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when ``size`` is negative or None), checked."""
        if size is None or size < 0:
            return self.readall()
        if size == 0:
            return b""
        try:
            data = self._source.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise self._read_error(exc) from None
        if data:
            self._check(data)
        return data

    def readall(self) -> bytes:
        parts: list[bytes] = []
        while True:
            data = self.read(CHUNK)
            if not data:
                return b"".join(parts)
            parts.append(data)

    def close(self) -> None:
        if not self.closed:
            try:
                if self._gzip:
                    self._source.close()  # a GzipFile leaves the file it reads open
            finally:
                if self._owned is not None:
                    self._owned.close()
        super().close()

    # ------------------------------------------------------------------ the checks

    def _check(self, data: bytes | memoryview) -> None:
        base = self._total
        allowed = self.max_total - base
        within = data if len(data) <= allowed else data[:allowed]
        self._check_lines(within, base)
        if len(data) > allowed:
            raise self._limit_error(self.max_total, data, base)
        if self._newlines is not None:
            self._newlines += _count_newlines(data, 0, len(data))
        if self._digest is not None:
            self._digest.update(data)
        self._total = base + len(data)

    def _check_lines(self, data: bytes | memoryview, base: int) -> None:
        """No line longer than ``max_line``: jump from a line start to the last newline within reach.

        Every line that starts in ``[s, q]`` and ends at or before the last newline ``q`` within ``max_line``
        bytes of ``s`` is short enough; the next line starts after ``q``. With short lines each jump covers
        nearly ``max_line`` bytes, so a megabyte costs a few ``rfind`` calls, not a scan per line.
        """
        end = base + len(data)
        start = self._line_start
        limit = self.max_line
        while True:
            reach = start + limit + 1  # the newline must come before this offset
            low = max(start - base, 0)
            high = min(reach, end) - base
            newline = _rfind_newline(data, low, high) if high > low else -1
            if newline >= 0:
                start = base + newline + 1
                continue
            if reach <= end:
                raise self._line_error(start, data, base)
            break
        self._line_start = start

    # ------------------------------------------------------------------ errors

    def _line_at(self, offset: int, data: bytes | memoryview, base: int) -> int | None:
        """The 1-based line holding byte ``offset`` (``data`` is the chunk that starts at ``base``)."""
        if self._newlines is not None:
            before = _count_newlines(data, 0, max(offset - base, 0))
            return self._newlines + before + 1
        if self._reopen is None:
            return None
        count = 0
        left = offset
        try:
            with self._reopen() as again:
                while left > 0:
                    chunk = again.read(min(CHUNK, left))
                    if not chunk:
                        break
                    count += chunk.count(b"\n")
                    left -= len(chunk)
        except (OSError, EOFError, zlib.error, FormatError):
            return None
        return count + 1

    def _line_error(self, start: int, data: bytes | memoryview, base: int) -> FormatError:
        line = self._line_at(start, data, base)
        if self._kind == "data":
            what, env = "line", MAX_LINE_ENV
        else:
            what, env = "document", MAX_DOCUMENT_ENV
        size = format_size(self.max_line)
        return FormatError(
            self.name,
            line,
            f"{what} longer than {size}, the limit for one {what} ({env}); check that this is the right "
            f"file, or raise the limit (e.g. {_setting(env, self.max_line * 4)})",
        )

    def _limit_error(self, offset: int, data: bytes | memoryview, base: int) -> FormatError:
        line = self._line_at(offset, data, base)
        size = format_size(self.max_total)
        if self._kind == "document":
            return FormatError(
                self.name,
                line,
                f"document larger than {size}, the limit for one document ({MAX_DOCUMENT_ENV}); check that "
                f"this is the right file, or raise the limit (e.g. {_setting(MAX_DOCUMENT_ENV, self.max_total * 4)})",
            )
        kind = "decompresses to more than" if self._gzip else "holds more than"
        return FormatError(
            self.name,
            line,
            f"{kind} {size}, the limit for one input ({MAX_DECOMPRESSED_ENV}); check that this is the "
            f"right file (a small .gz that expands this far is a decompression bomb), or raise the limit "
            f"(e.g. {_setting(MAX_DECOMPRESSED_ENV, self.max_total * 4)})",
        )

    def _read_error(self, exc: BaseException) -> FormatError:
        """A read that failed: corrupt gzip data (zlib's errors, a truncated stream), else the system's error."""
        system = isinstance(exc, OSError) and exc.errno is not None
        if self._gzip and not system:
            return FormatError(self.name, None, f"corrupt gzip data ({exc}); re-create the file")
        strerror = getattr(exc, "strerror", None) or str(exc)
        return FormatError(self.name, None, f"cannot read file ({strerror}); check its permissions")


#: How far back from the end of a window the newline is looked for first, in a memoryview (short lines: it is
#: there), before the whole window is copied to search it.
_TAIL = 4096


def _rfind_newline(data: bytes | memoryview, low: int, high: int) -> int:
    """``data.rfind(b"\\n", low, high)``, also for a memoryview (which has no ``rfind``): the tail first."""
    if not isinstance(data, memoryview):
        return data.rfind(b"\n", low, high)
    tail = max(low, high - _TAIL)
    found = bytes(data[tail:high]).rfind(b"\n")
    if found >= 0 or tail == low:
        return tail + found if found >= 0 else -1
    found = bytes(data[low:tail]).rfind(b"\n")
    return low + found if found >= 0 else -1


def _count_newlines(data: bytes | memoryview, low: int, high: int) -> int:
    if isinstance(data, memoryview):
        return bytes(data[low:high]).count(b"\n")
    return data.count(b"\n", low, high)
