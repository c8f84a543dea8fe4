"""TREC run and qrels files read column-wise by pyarrow's multi-threaded CSV reader.

Why: a 5-million-line run read line by line into Python objects takes tens of seconds and gigabytes; trec_eval
itself reads it in 3 s. Arrow's CSV reader parses blocks of the file on every core into typed columns (query ids
dictionary-encoded, doc ids as one string buffer, scores as doubles) without a Python object per line.

The bytes come through ``toolkit.formats.limits.open_input`` like every reader's (gunzipped as a stream, within
the input limits), straight into reused buffers; a limit passed is the user's ``FormatError``, raised here.

Arrow splits on one delimiter byte; trec_eval splits on runs of C whitespace and skips comment lines. So the
file is read in blocks, and a block is rewritten first only when it needs it (``normalise``): tabs, ``\\r``,
``\\v`` and ``\\f`` become spaces, runs of blanks one space, blanks at a line's start or end go, and comment lines
(first non-blank character ``#``) are dropped. A plain block goes to Arrow as it is. Blank lines Arrow skips.

What Arrow cannot vouch for raises ``Irregular`` and the caller falls back to its line reader, which is the
definition of the format and names the bad line: a line with another number of columns, a token Arrow cannot
convert (``1_0``, ``1.5`` as a grade), invalid UTF-8 (strict readers), a NUL byte or a byte-order mark.
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.formats.limits import open_input

#: Bytes handed to one Arrow call (a file is read and normalised block by block, so memory stays bounded).
BLOCK_BYTES = 8 << 20
#: Arrow's own chunk: each block is parsed by the thread pool in chunks of this size.
ARROW_CHUNK = 1 << 20
#: Blocks between two ``release_memory`` calls while reading. Why: the parsed columns are allocated between
#: the parsing's temporaries, so the heap keeps the temporaries' freed pages (a 227 MB run peaked at 447 MiB
#: for 250 MiB of data; handing them back every 32 MiB of text: 407 MiB, for a few page faults more).
TRIM_BLOCKS = 4


class Irregular(Exception):
    """This file is not one the column reader vouches for; read it line by line instead."""


#: Buffers the file is read into, in turn: more than the blocks in flight (``IN_FLIGHT``), so that a buffer
#: is refilled only once the block it held has been parsed.
ROTATION = 4

Block = tuple[Any, int, int]  # (bytes or bytearray, start, end): a run of whole lines, not copied


def iter_blocks(path: str | Path, *, data: bytes | None = None, block: int | None = None) -> Iterator[Block]:
    """The file's bytes (through the input limits, gunzipped as a stream; ``data`` instead when given) in
    blocks ending at a line end.

    The file is never held whole: it is read with ``readinto`` straight into ``ROTATION`` reused buffers, and
    a block is handed out as ``(buffer, start, end)`` — no copy, and no fresh memory for the kernel to clear
    on every block (that was a fifth of the reading time). ``data`` is bytes already read through the limits
    (standard input, by ``read_bytes``): already gunzipped, so never gunzipped again.

    A ``FormatError`` from ``open_input`` (a missing file, corrupt gzip data, a limit passed) is raised as it
    is, not turned into ``Irregular``: the line reader would read the same bytes again to the same error.
    """
    size = block or BLOCK_BYTES
    if data is not None:
        if data and not data.endswith(b"\n"):
            data += b"\n"
        start = 0
        while start < len(data):
            end = data.rfind(b"\n", start, start + size) + 1
            end = end if end > start else data.find(b"\n", start) + 1
            yield data, start, end
            start = end
        return
    with open_input(path) as stream:
        buffers = [bytearray(size) for _ in range(ROTATION)]
        turn = 0
        rest = b""
        while True:
            buffer = buffers[turn % ROTATION]  # the next buffer turns only when one is handed out
            if len(rest) >= len(buffer):  # a line longer than a block (a raised line limit): a bigger buffer
                buffer = buffers[turn % ROTATION] = bytearray(len(rest) + size)
            kept = len(rest)
            buffer[:kept] = rest
            got = stream.readinto(memoryview(buffer)[kept:])
            filled = kept + got
            if not got:
                if filled:
                    yield bytes(buffer[:filled]) + b"\n", 0, filled + 1
                return
            cut = buffer.rfind(b"\n", 0, filled) + 1
            rest = bytes(buffer[cut:filled])
            if cut:
                turn += 1
                yield buffer, 0, cut


_SCRATCH = threading.local()


def _scratch(n: int) -> tuple[Any, Any]:
    """Two boolean arrays of at least ``n`` for this thread, reused from block to block."""
    import numpy as np

    kept = getattr(_SCRATCH, "arrays", None)
    if kept is None or len(kept[0]) < n:
        kept = _SCRATCH.arrays = (np.empty(n, bool), np.empty(n, bool))
    return kept[0][:n], kept[1][: max(n - 1, 0)]


#: Whitespace trec_eval splits on besides space and newline (C ``isspace``), each turned into a space.
_OTHER_BLANKS = (b"\t", b"\r", b"\v", b"\f")


def normalise(block: Block) -> Any:
    """The block with single spaces between tokens and no comment lines — rewritten only where needed.

    Whitespace other than space and newline is found with ``memchr`` and turned into spaces in place (the
    block's buffer is the reader's own; a read-only one is copied first); then numpy checks that no two
    whitespace bytes are adjacent (a blank line, a run of blanks, a blank at a line's start or end) and only
    then are blanks rewritten. Lines whose first character is ``#`` are cut out. Returns a buffer (the block
    itself when it is plain).
    """
    import numpy as np

    base, start, end = block
    if base.find(b"\x00", start, end) >= 0:
        raise Irregular  # the line reader names the NUL byte
    present = [c for c in _OTHER_BLANKS if base.find(c, start, end) >= 0]
    separator, adjacent = _scratch(end - start)
    if present:
        if not isinstance(base, bytearray):  # bytes given (standard input): a writable copy of the block
            base, start, end = bytearray(memoryview(base)[start:end]), 0, end - start
        view = np.frombuffer(base, np.uint8, end - start, start)
        for c in present:  # a boolean mask per byte present: in place, no copy of the block
            np.equal(view, c[0], out=separator)
            view[separator] = 32
    np.less_equal(np.frombuffer(base, np.uint8, end - start, start), 32, out=separator)
    np.logical_and(separator[1:], separator[:-1], out=adjacent)
    if separator[0] or adjacent.any():
        text = bytes(memoryview(base)[start:end])
        while b"  " in text:
            text = text.replace(b"  ", b" ")
        text = text.replace(b"\n ", b"\n").replace(b" \n", b"\n")
        base = text[1:] if text[:1] == b" " else text
        start, end = 0, len(base)
    if base.find(b"#", start, end) >= 0 and (base[start] == 35 or base.find(b"\n#", start, end) >= 0):
        base = _drop_comments(bytes(memoryview(base)[start:end]))
        start, end = 0, len(base)
    return memoryview(base)[start:end]


def _drop_comments(text: bytes) -> bytes:
    """``text`` without its lines that start with ``#`` (text is normalised: no blank before a ``#``)."""
    parts = []
    pos = 0  # start of the text not yet copied
    line = 0 if text[:1] == b"#" else text.find(b"\n#") + 1  # start of the next comment line (0: none)
    while line > 0 or (line == 0 and pos == 0 and text[:1] == b"#"):
        parts.append(text[pos:line])
        end = text.find(b"\n", line)
        pos = len(text) if end < 0 else end + 1
        line = text.find(b"\n#", pos - 1) + 1
        if line == 0:
            break
    parts.append(text[pos:])
    return b"".join(parts)


def _edges(text: Any) -> tuple[bytes, bytes]:
    """The first and last non-empty lines of a normalised block (b"" when it has none)."""
    head = bytes(text[:4096])
    start = len(head) - len(head.lstrip(b"\n"))
    first_end = head.find(b"\n", start)
    if start == len(head) and len(text) > len(head):  # blank lines all through the head: rare, read it whole
        head = bytes(text)
        start = len(head) - len(head.lstrip(b"\n"))
        first_end = head.find(b"\n", start)
    if start == len(head):
        return b"", b""
    first = head[start:first_end] if first_end >= 0 else bytes(text[start:]).split(b"\n", 1)[0]
    tail = bytes(text[-4096:]).rstrip(b"\n")
    cut = tail.rfind(b"\n")
    last = (
        tail[cut + 1 :] if cut >= 0 or len(text) <= 4096 else bytes(text).rstrip(b"\n").rsplit(b"\n", 1)[-1]
    )
    return first, last


@dataclass(frozen=True, eq=False)
class Table:
    """What ``read_table`` read: the columns, the file's first and last data lines, and the row keys.

    ``keys`` (with ``keyed``): a 64-bit hash of (topic, doc) per row, computed block by block in the parsing
    threads (``row_keys``); no two rows of one block share a key — ``block_rows`` gives the rows of each block,
    so a caller needs to look for duplicates only across blocks (``ranked.has_duplicates``).
    """

    table: Any
    first: bytes
    last: bytes
    keys: Any = None
    block_rows: Any = None
    #: lines in the file, blank and comment lines included (a last line without ``\n`` counted)
    lines: int = 0


def plain_fields(delimiter: str) -> Any:
    """Arrow's parse options for our text formats: fields split on one byte, and nothing else of CSV — no quotes,
    no escapes, no line breaks inside a value (a ``"`` is part of an id, as trec_eval reads it) — blank lines
    skipped."""
    from pyarrow import csv

    return csv.ParseOptions(
        delimiter=delimiter,
        quote_char=False,
        double_quote=False,
        escape_char=False,
        newlines_in_values=False,
        ignore_empty_lines=True,
    )


def read_table(
    path: str | Path,
    columns: list[str],
    types: dict[str, Any],
    *,
    data: bytes | None = None,
    block: int | None = None,
    keyed: tuple[str, str] | None = None,
) -> Table:
    """The file's ``types`` columns (of ``columns``) as one Arrow table (chunked as parsed), its first and last
    data lines, and with ``keyed`` = (a dictionary column, a string column) the row keys of those two.

    Raises ``Irregular`` when Arrow cannot read a block as ``len(columns)`` space-separated columns of those
    types, when the file has no data line, and — with ``keyed`` — as soon as one block holds a pair twice (or
    two pairs with one hash: the line reader decides).

    Why check each block at once: a file that repeats one valid line — a gzip bomb of ``q1 Q0 d1 1 1.0 r``,
    5 MB expanding to 2 GiB — would otherwise be read whole (14 GB) before the duplicate at its line 2 was
    seen. gzip repeats only within its 32 KiB window, so such a file repeats a pair within every block.
    """
    import pyarrow as pa
    from pyarrow import csv

    read = csv.ReadOptions(column_names=columns, block_size=ARROW_CHUNK, use_threads=True)
    parse = plain_fields(" ")
    convert = csv.ConvertOptions(
        include_columns=list(types),
        column_types=types,
        null_values=[],
        true_values=[],
        false_values=[],
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )

    def parse_block(chunk: Block) -> tuple[Any, bytes, bytes, Any, int]:
        lines = chunk[0].count(b"\n", chunk[1], chunk[2])  # every block ends with one (iter_blocks)
        text = normalise(chunk)
        first_line, last_line = _edges(text)
        if not first_line:
            return None, b"", b"", None, lines
        try:
            table = csv.read_csv(pa.BufferReader(owned(text)), read, parse, convert, memory_pool=pool())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, UnicodeDecodeError):
            raise Irregular from None
        keys = None
        if keyed is not None:
            keys = row_keys(table.column(keyed[0]), table.column(keyed[1]))
            ordered = np.sort(keys)
            if (ordered[1:] == ordered[:-1]).any():
                raise Irregular  # the line reader names the repeated line, having read only up to it
        return table, first_line, last_line, keys, lines

    import numpy as np

    tables: list[Any] = []
    keys: list[Any] = []
    first = last = b""
    lines = 0
    # closed on the way out, so that no block is still being parsed when this returns or raises
    with closing(_pipelined(parse_block, iter_blocks(path, data=data, block=block))) as parsed:
        for table, first_line, last_line, part, in_block in parsed:
            lines += in_block
            if table is None:
                continue
            if not tables and first_line[:3] == b"\xef\xbb\xbf":
                raise Irregular  # a byte-order mark: the line reader reads it
            first = first or first_line
            last = last_line
            tables.append(table)
            if len(tables) % TRIM_BLOCKS == 0:
                release_memory()
            keys.append(part)
    if not tables:
        raise Irregular
    if keyed is None:
        return Table(pa.concat_tables(tables, memory_pool=pool()), first, last, lines=lines)
    block_rows = np.array([len(k) for k in keys], np.int64)
    joined = np.concatenate(keys)
    del keys
    return Table(pa.concat_tables(tables, memory_pool=pool()), first, last, joined, block_rows, lines)


def row_keys(topics: Any, docs: Any) -> Any:
    """The hash of (topic, doc) of every row: a dictionary column of topics and a string column of docs.

    The doc's ``string_hashes`` xor the topic's times a prime, mixed; computed here for the rows of one block
    (in its parsing thread), so each topic's hash is computed once per chunk dictionary.
    """
    import numpy as np

    keys = string_hashes(docs)
    at = 0
    for chunk in topics.chunks:
        spread = string_hashes(chunk.dictionary)[numbers(chunk.indices)]
        spread *= np.uint64(PRIME)
        keys[at : at + len(chunk)] ^= spread
        at += len(chunk)
    return mix64(np, keys)


def owned(text: Any) -> Any:
    """The bytes of ``text`` copied into an Arrow-allocated buffer, for Arrow's threaded CSV reader.

    Why: ``read_csv`` returns before its worker threads have let go of their input. When that input is a
    Python object (``pa.py_buffer``: bytes, a memoryview), the last worker to let go must take the GIL to
    release it; if the interpreter is finalising by then, Python 3.11 ends that thread with ``pthread_exit``,
    whose unwinding through Arrow's ``noexcept`` destructors calls ``std::terminate``: the process aborts
    (exit 134) after printing the right output — about 1 run in 100 that exits right after reading a small
    file (tests/treceval/test_drop_in_exit.py). An Arrow-owned buffer is freed by whichever thread lets go last, without the GIL.

    The buffer is this thread's own, reused from block to block (the parsed table holds copies of the values,
    never the input: tested), so a block costs one ``memcpy`` and no fresh memory: fresh pages for every 8 MiB
    block cost the kernel's clearing and left the heap fragmented.
    """
    import numpy as np
    import pyarrow as pa

    view = memoryview(text).cast("B")
    kept = getattr(_SCRATCH, "arrow", None)
    if kept is None or kept.size < len(view):
        kept = _SCRATCH.arrow = pa.allocate_buffer(max(len(view), BLOCK_BYTES), memory_pool=pool())
    np.frombuffer(kept, np.uint8, len(view))[:] = np.frombuffer(view, np.uint8)
    return kept.slice(0, len(view))


#: Blocks normalised and parsed at once: one block's Python work overlaps another's parsing in Arrow.
IN_FLIGHT = 2


def _pipelined(work: Any, items: Iterator[Block]) -> Generator[Any, None, None]:
    """``work(item)`` for each item, in order, with up to ``IN_FLIGHT`` items in progress in threads.

    Why threads: Arrow parses without the GIL and numpy releases it, so a block's normalisation runs while
    the previous block is being parsed; at most ``IN_FLIGHT`` blocks are held at a time.
    """
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(IN_FLIGHT) as pool:
        pending: deque[Any] = deque()
        try:
            for item in items:
                pending.append(pool.submit(work, item))
                if len(pending) >= IN_FLIGHT:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def numbers(array: Any, *, nulls: bool = False) -> Any:
    """A numpy copy of an Arrow array (or chunked array) of numbers without nulls, or of booleans.

    pyarrow's own ``to_numpy`` imports pandas the first time (a second of start-up); this reads the buffers.
    ``nulls=True`` accepts nulls and leaves their slots as the buffer holds them (the caller masks them).
    """
    import numpy as np
    import pyarrow as pa

    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    parts = []
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.indices
        if chunk.null_count and not nulls:
            raise ValueError("numbers() takes arrays without nulls")
        buffer = chunk.buffers()[1]
        if pa.types.is_boolean(chunk.type):
            bits = np.frombuffer(buffer, np.uint8) if buffer is not None else np.zeros(0, np.uint8)
            parts.append(
                np.unpackbits(bits, bitorder="little")[chunk.offset : chunk.offset + len(chunk)].view(bool)
            )
        else:
            if not _DTYPES:
                _init_dtypes()
            dtype = _DTYPES[str(chunk.type)]
            if buffer is None:
                parts.append(np.zeros(0, dtype))
            else:
                parts.append(np.frombuffer(buffer, dtype, len(chunk), chunk.offset * dtype.itemsize))
    if not parts:
        return np.zeros(0)
    return parts[0].copy() if len(parts) == 1 else np.concatenate(parts)


_DTYPES: dict[str, Any] = {}


def _init_dtypes() -> None:
    import numpy as np

    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        _DTYPES[name] = np.dtype(name)
    _DTYPES["double"] = np.dtype(np.float64)
    _DTYPES["float"] = np.dtype(np.float32)


def pool() -> Any:
    """The Arrow memory pool the readers allocate from: the C library's ``malloc``.

    Why not Arrow's default (mimalloc): numpy allocates with ``malloc`` too, so memory one of them frees the other
    reuses, and a run's peak memory stays near its live data (387 against 455 MiB on the 5,000 × 1,000 file of bench/bench_trec_eval_speed.py).
    Passed to every Arrow call here rather than set as Arrow's default, which would change it for the whole
    process.
    """
    import pyarrow as pa

    return pa.system_memory_pool()


def release_memory() -> None:
    """Hand freed memory back to the system: Arrow's pool, and glibc's heap (``malloc_trim``).

    Why: a column converted to numpy frees its Arrow chunks into Arrow's allocator, and numpy's temporaries go
    back to glibc's heap; both keep those pages, so the peak memory of reading a run would hold every
    intermediate copy at once. Called between the reader's big steps (where nothing else is in flight).
    """
    import ctypes
    from contextlib import suppress

    pool().release_unused()
    with suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def arrow(values: Any) -> Any:
    """A numpy array of numbers as an Arrow array, sharing its memory (``pa.array`` would import pandas)."""
    import numpy as np
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


# --- hashing strings column-wise ---------------------------------------------------------------------------

_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
PRIME = 0x100000001B3
#: one odd multiplier per 8-byte word position (a value's words are weighted by their position)
_WEIGHTS = [(_MIX1 * (2 * k + 1) + _MIX2 * k) & 0xFFFFFFFFFFFFFFFF | 1 for k in range(4096)]


def mix64(np: Any, z: Any, *, step: int = 1 << 16) -> Any:
    """splitmix64's finaliser, in place on a uint64 array, a cache-sized slice at a time (each step's
    temporary is then 512 KiB, not 8 bytes a row)."""
    for a in range(0, len(z), step):
        w = z[a : a + step]
        w ^= w >> np.uint64(30)
        w *= np.uint64(_MIX1)
        w ^= w >> np.uint64(27)
        w *= np.uint64(_MIX2)
        w ^= w >> np.uint64(31)
    return z


def string_hashes(array: Any, *, rows: int = 1 << 20) -> Any:
    """A 64-bit hash of every value of an Arrow string/binary array, vectorised 8 bytes at a time.

    Each value is read as little-endian 8-byte words through a byte-strided numpy view of (a padded copy of)
    the data buffer, the bytes past its end masked off (so a value shorter than the others adds 0 there); the
    words times a per-position odd weight are added and the sum is mixed with the length. Equal strings hash
    equal in any array (tested); where two different ones collide, the callers compare the strings.
    """
    import numpy as np
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        parts = [string_hashes(chunk, rows=rows) for chunk in array.chunks]
        return np.concatenate(parts) if parts else np.zeros(0, np.uint64)
    n = len(array)
    out = np.empty(n, np.uint64)
    if n == 0:
        return out
    wide = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    offsets_buf, data_buf = array.buffers()[1:3]
    width = 8 if wide else 4
    offsets = np.frombuffer(offsets_buf, np.int64 if wide else np.int32, n + 1, array.offset * width)
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    masks = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], np.uint64)
    for a in range(0, n, rows):
        b = min(n, a + rows)
        first, stop = int(offsets[a]), int(offsets[b])
        padded = np.zeros(stop - first + 16, np.uint8)
        padded[: stop - first] = data[first:stop]
        words = np.ndarray((len(padded) - 7,), dtype="<u8", buffer=padded, strides=(1,))
        starts = offsets[a:b].astype(np.int64) - first
        lengths = offsets[a + 1 : b + 1].astype(np.int64) - offsets[a:b].astype(np.int64)
        h = lengths.astype(np.uint64) * np.uint64(PRIME)
        last = len(words) - 1
        shortest = int(lengths.min())
        for k in range(0, int(lengths.max()), 8):
            word = words[np.minimum(starts + k, last)]
            if k + 8 > shortest:  # some values end within this word: mask their other bytes off
                word &= masks[np.clip(lengths - k, 0, 8)]
            word *= np.uint64(_WEIGHTS[(k // 8) % len(_WEIGHTS)])
            h += word
        out[a:b] = mix64(np, h)
    return out


def take(array: Any, indices: Any) -> Any:
    """``array[indices]`` (one Arrow array) for an Arrow array or chunked array and an Arrow array of indices.

    A chunked array is taken from chunk by chunk: Arrow's own ``take`` joins all the chunks into one array
    first — a copy of the whole column (90 MiB of doc ids on 5 million lines) to fetch a few thousand values.
    """
    import numpy as np
    import pyarrow as pa

    if not isinstance(array, pa.ChunkedArray) or array.num_chunks <= 1:
        out = compute("take", array if not isinstance(array, pa.ChunkedArray) else _one(array), indices)
        return out.combine_chunks(memory_pool=pool()) if isinstance(out, pa.ChunkedArray) else out
    wanted = numbers(indices).astype(np.int64, copy=False)
    offsets = np.cumsum([0] + [len(chunk) for chunk in array.chunks])
    if len(wanted) and (wanted.min() < 0 or wanted.max() >= offsets[-1]):
        raise IndexError("take: index out of bounds")
    ascending = len(wanted) < 2 or bool((wanted[1:] >= wanted[:-1]).all())  # a join's rows: no reordering
    by_chunk = None if ascending else np.argsort(wanted, kind="stable")
    in_order = wanted if by_chunk is None else wanted[by_chunk]
    bounds = np.searchsorted(in_order, offsets)
    parts = [
        compute("take", array.chunk(c), arrow(in_order[bounds[c] : bounds[c + 1]] - offsets[c]))
        for c in range(array.num_chunks)
        if bounds[c] < bounds[c + 1]
    ]
    gathered = pa.concat_arrays(parts, memory_pool=pool()) if parts else _one(array).slice(0, 0)
    if by_chunk is None:
        return gathered
    back = np.empty(len(by_chunk), np.int64)
    back[by_chunk] = np.arange(len(by_chunk))
    return compute("take", gathered, arrow(back))


def _one(array: Any) -> Any:
    """The one chunk of a chunked array of at most one (an empty array of its type when none)."""
    import pyarrow as pa

    return array.chunk(0) if array.num_chunks else pa.nulls(0, array.type)


def compute(name: str, *args: Any, options: Any = None) -> Any:
    """Arrow compute function ``name`` on ``args``, allocated from ``pool()``.

    Called through ``pyarrow._compute`` rather than ``pyarrow.compute``: importing the latter wraps and
    documents every one of Arrow's ~300 functions, a tenth of a second of every command's start-up.
    """
    from pyarrow._compute import call_function

    return call_function(name, list(args), options, pool())
