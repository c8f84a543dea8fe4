"""Judgments files (TSV, CSV, JSONL) read column-wise by pyarrow, held to the line reader.

Why: ``agree`` on 628,200 judgments spent half its time in the line reader of ``toolkit.formats.judgments``
(a ``JudgmentRow`` per line, a Python check per field). Arrow's CSV and JSON readers parse a block of the file
into columns without a Python object per line, and the checks run once per column (numpy, Arrow compute) or
once per distinct value (assessor names).

The line reader stays the definition of the format and the only source of errors. This reader **only
accepts**: whatever it cannot vouch for — a check that fails, a layout Arrow reads differently from Python
(quotes in a CSV, ``\\u`` escapes in JSON, a ``+`` before a grade, a byte-order mark, a bare ``\\r``, a line
Arrow would split differently) — raises ``Irregular``, and ``read_judgment_table`` reads the file again with
the line reader, which either accepts it (the same rows, by another route) or names the first bad line. So a
file gets the same rows and the same ``path:line`` error whichever path reads it; a property test
(``tests/formats/test_judgments_columns.py``) holds the two paths to each other on generated files of every
layout. Only ``open_input``'s own errors (a missing file, a limit passed) come from here, as the line reader
would raise them on the same bytes.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.formats.judgments import (
    NON_GRADES,
    TSV_COLUMNS,
    JudgmentRow,
    _layout,
    _unescape,
    parse_integer,
    read_judgment_file,
)
from toolkit.formats.names import assessor_problem
from toolkit.formats.tables import Irregular, iter_blocks, plain_fields
from toolkit.formats.textfile import iter_text_lines

#: The decisions a row records, in the order of ``JudgmentTable.action``'s codes.
ACTIONS = ("judge", *NON_GRADES)
#: Most ``{`` and ``[`` one JSON line may hold for this reader: deeper nesting is left to the line reader.
JSON_NESTING = 64


@dataclass(frozen=True)
class JudgmentTable:
    """Every row of a judgments file, column by column, in file order (what ``read_judgment_rows`` gives).

    ``assessor``, ``query_id``, ``doc_id``, ``note`` and ``time`` are Arrow string arrays (null: no note, no
    time), ``duration_ms`` an Arrow int64 array with nulls; ``line``, ``grade`` (0 where the row is no grade)
    and ``action`` (codes into ``ACTIONS``) numpy arrays.
    """

    layout: str
    line: Any
    assessor: Any
    query_id: Any
    doc_id: Any
    grade: Any
    action: Any
    note: Any
    duration_ms: Any
    time: Any

    def __len__(self) -> int:
        return len(self.line)

    def rows(self) -> Iterator[JudgmentRow]:
        """The rows as the line reader gives them (for callers that want records; slow at scale)."""
        columns = zip(
            self.line.tolist(),
            self.assessor.to_pylist(),
            self.query_id.to_pylist(),
            self.doc_id.to_pylist(),
            self.grade.tolist(),
            self.action.tolist(),
            self.note.to_pylist(),
            self.duration_ms.to_pylist(),
            self.time.to_pylist(),
            strict=True,
        )
        for line, assessor, query_id, doc_id, grade, action, note, duration, time in columns:
            judged = action == 0
            yield JudgmentRow(
                line,
                assessor,
                query_id,
                doc_id,
                grade if judged else None,
                ACTIONS[action],
                note,
                duration,
                time,
            )


def read_judgment_table(
    path: str | Path,
    *,
    topics: Collection[str] | None = None,
    scale: Collection[int] | None = None,
    scale_name: str = "the campaign's scale",
) -> JudgmentTable:
    """Every row of a judgments file, checked as ``read_judgment_rows`` checks it (the same errors).

    The column reader reads it when it can vouch for every row; otherwise the line reader does (see the
    module docstring).
    """
    table = fast_judgment_table(path, topics=topics, scale=scale)
    if table is not None:
        return table
    layout, rows = read_judgment_file(path, topics=topics, scale=scale, scale_name=scale_name)
    return table_from_rows(layout, rows)


def table_from_rows(layout: str, rows: Sequence[JudgmentRow]) -> JudgmentTable:
    """Rows of the line reader as a ``JudgmentTable``."""
    import numpy as np
    import pyarrow as pa

    code = {action: i for i, action in enumerate(ACTIONS)}
    return JudgmentTable(
        layout,
        np.array([r.line for r in rows], np.int64),
        pa.array([r.assessor for r in rows], pa.string()),
        pa.array([r.query_id for r in rows], pa.string()),
        pa.array([r.doc_id for r in rows], pa.string()),
        np.array([r.grade if r.grade is not None else 0 for r in rows], np.int64),
        np.array([code[r.action] for r in rows], np.int8),
        pa.array([r.note for r in rows], pa.string()),
        pa.array([r.duration_ms for r in rows], pa.int64()),
        pa.array([r.time for r in rows], pa.string()),
    )


def fast_judgment_table(
    path: str | Path,
    *,
    topics: Collection[str] | None = None,
    scale: Collection[int] | None = None,
    block: int | None = None,
) -> JudgmentTable | None:
    """The file read column-wise, or None when the column reader cannot vouch for it (read it line by line).

    ``block``: bytes read at a time (``toolkit.formats.tables.BLOCK_BYTES``; tests make it small).
    """
    with _closing(iter_text_lines(path)) as lines:
        layout, _ = _layout(path, lines)
    if layout == "jsonl":
        # pyarrow's JSON reader (``_read_json``) crashed the process (SIGSEGV) on a generated JSONL file in the
        # property test below: no column read may crash where the line reader gives an answer. JSONL
        # judgments go to the line reader until that crash is understood; TSV and CSV keep the column reader.
        return None
    try:
        table = _read_delimited(path, layout, block)
        _check(table, topics, scale)
    except Irregular:
        return None
    return table


class _closing:
    """Close a generator when done with it (the file it holds open is closed at once, not at collection)."""

    def __init__(self, generator: Any) -> None:
        self.generator = generator

    def __enter__(self) -> Any:
        return self.generator

    def __exit__(self, *exc: object) -> None:
        self.generator.close()


# --- blocks -----------------------------------------------------------------------------------------------


#: ASCII bytes Python's ``str.strip`` removes (besides ``\n``, which ends a line).
BLANK = b" \t\r\x0b\x0c\x1c\x1d\x1e\x1f"


@dataclass(frozen=True)
class _Block:
    """The data lines of a block (each ending with ``\n``), their 1-based numbers in the file and the length
    of the longest."""

    data: bytes
    numbers: Any
    longest: int


def _blocks(path: str | Path, size: int | None, *, comments: bool) -> Iterator[_Block]:
    """The file's data lines, block by block: lines holding a byte that is not ``BLANK``, and (``comments``:
    TSV, CSV) whose first such byte is not ``#``. What Python would decode or split otherwise than Arrow — a
    byte-order mark, a NUL byte, invalid UTF-8, a ``\r`` not before a ``\n`` — raises ``Irregular``."""
    import numpy as np

    before = 0
    blank = np.frombuffer(BLANK + b"\n", np.uint8)
    for base, start, end in iter_blocks(path, block=size):
        data = bytes(memoryview(base)[start:end])
        if before == 0 and data.startswith(b"\xef\xbb\xbf"):
            raise Irregular
        if b"\x00" in data or data.count(b"\r") != data.count(b"\r\n"):
            raise Irregular
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise Irregular from None
        raw = np.frombuffer(data, np.uint8)
        ends = np.flatnonzero(raw == 10)
        starts = np.concatenate(([0], ends[:-1] + 1)).astype(np.int64)
        solid = np.flatnonzero(~np.isin(raw, blank))
        at = np.searchsorted(solid, starts)
        first = solid[np.minimum(at, len(solid) - 1)] if len(solid) else starts
        data_line = (at < len(solid)) & (first < ends)
        if comments and len(solid):
            data_line &= raw[first] != 35
        picked = np.flatnonzero(data_line)
        if len(picked) < len(ends):  # cut out blank and comment lines, keeping each data line whole
            edges = np.zeros(len(raw) + 1, np.int64)
            np.add.at(edges, starts[picked], 1)
            np.add.at(edges, ends[picked] + 1, -1)
            data = raw[np.cumsum(edges[:-1]) > 0].tobytes()
        longest = int((ends[picked] - starts[picked]).max()) if len(picked) else 0
        yield _Block(data, before + picked + 1, longest)
        before += len(ends)


def _pa() -> tuple[Any, Any, Any]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    return np, pa, pc


def _read_delimited(path: str | Path, layout: str, size: int | None) -> JudgmentTable:
    """A TSV or CSV file: Arrow splits each block on the separator; the header is found as the line reader
    finds it (its first data line)."""
    np, pa, pc = _pa()
    from pyarrow import csv as arrow_csv

    sep = "\t" if layout == "tsv" else ","
    width = 0
    names: list[str] = ["note"]
    header = False
    parts: list[Any] = []
    numbers: list[Any] = []
    for block in _blocks(path, size, comments=True):
        if not len(block.numbers):
            continue
        data = block.data
        if layout == "csv" and (b'"' in data or block.longest > csv.field_size_limit()):
            raise Irregular  # quoting, or a field past the csv module's limit: the module is the definition
        skip = 0
        if not width:
            first = data[: data.index(b"\n")].decode("utf-8")
            fields = [f.strip() for f in first.split(sep)]
            header = [f.lower() for f in fields[:4]] == list(TSV_COLUMNS)
            if header:
                names = [f.lower() for f in fields[4:]] or names
                skip = 1
            width = len(fields)
            if not 4 <= width <= 4 + len(names):
                raise Irregular
        read = arrow_csv.ReadOptions(column_names=[f"c{i}" for i in range(width)], block_size=1 << 20)
        parse = plain_fields(sep)
        convert = arrow_csv.ConvertOptions(
            column_types={f"c{i}": pa.string() for i in range(width)},
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        )
        try:
            table = arrow_csv.read_csv(pa.BufferReader(data), read, parse, convert)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, UnicodeDecodeError):
            raise Irregular from None
        if table.num_rows != len(block.numbers):
            raise Irregular
        parts.append(table.slice(skip))
        numbers.append(block.numbers[skip:])
    if not parts:
        raise Irregular
    table = pa.concat_tables(parts)
    named = {
        name: f"c{4 + i}" for i, name in enumerate(names[: width - 4])
    }  # a later column of one name wins
    assessor, query_id, doc_id, grade_text = (_stripped(table.column(f"c{i}"), empty=False) for i in range(4))
    grade, action = _grades(np, pa, pc, grade_text)
    note = _optional(table, named.get("note"))
    if layout == "tsv" and note is not None:
        note = _unescaped(pa, pc, note)
    duration = _durations(np, pa, pc, _optional(table, named.get("duration_ms")), len(grade))
    time = _optional(table, named.get("time"))
    n = len(grade)
    return JudgmentTable(
        layout,
        np.concatenate(numbers).astype(np.int64),
        assessor,
        query_id,
        doc_id,
        grade,
        action,
        note if note is not None else pa.nulls(n, pa.string()),
        duration,
        time if time is not None else pa.nulls(n, pa.string()),
    )


def _optional(table: Any, name: str | None) -> Any:
    """An optional column, stripped, its empty values null (None when the file has no such column)."""
    if name is None:
        return None
    import pyarrow.compute as pc

    values = _stripped(table.column(name), empty=True)
    return pc.if_else(pc.equal(pc.binary_length(values), 0), None, values)


def _stripped(column: Any, *, empty: bool) -> Any:
    """``column`` as one array with every value stripped as Python's ``str.strip`` strips it.

    Values whose first or last byte is ASCII blank or control, or not ASCII, are stripped in Python (the rest
    are already stripped: a cheap test on the bytes). ``empty=False``: a value that is empty once stripped
    raises ``Irregular`` (the line reader names it).
    """
    np, pa, pc = _pa()
    array = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    n = len(array)
    if not n:
        return array
    offsets = np.frombuffer(array.buffers()[1], np.int32, n + 1, array.offset * 4)
    data_buffer = array.buffers()[2]
    data = np.frombuffer(data_buffer, np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    lengths = np.diff(offsets)
    filled = lengths > 0
    if not filled.all() and not empty:
        raise Irregular
    heads = data[offsets[:-1][filled]] if filled.any() else np.zeros(0, np.uint8)
    tails = data[offsets[1:][filled] - 1] if filled.any() else np.zeros(0, np.uint8)
    odd = np.zeros(n, bool)
    odd[filled] = (heads <= 32) | (heads >= 127) | (tails <= 32) | (tails >= 127)
    if not odd.any():
        return array
    rows = np.flatnonzero(odd)
    values = array.take(pa.array(rows)).to_pylist()
    stripped = [v.strip() for v in values]
    if not empty and not all(stripped):
        raise Irregular
    if stripped == values:
        return array
    full = array.to_pylist()
    for row, value in zip(rows.tolist(), stripped, strict=True):
        full[row] = value
    return pa.array(full, pa.string())


def _grades(np: Any, pa: Any, pc: Any, text: Any) -> tuple[Any, Any]:
    """Grades and actions from the grade column, each distinct value read once by the line reader's rules
    (``skip``/``unrateable`` in any case, else ``parse_grade``; Arrow's own cast would read ``0x10`` as 16).
    A value that is neither is left to the line reader."""
    codes, values = codes_of(pc, text)
    grade_of = np.zeros(len(values), np.int64)
    action_of = np.zeros(len(values), np.int8)
    for i, value in enumerate(values.to_pylist()):
        word = value.lower()
        if word in NON_GRADES:
            action_of[i] = ACTIONS.index(word)
            continue
        grade = parse_integer(value)
        if grade is None:
            raise Irregular
        grade_of[i] = grade
    return grade_of[codes], action_of[codes]


def _durations(np: Any, pa: Any, pc: Any, text: Any, n: int) -> Any:
    """``duration_ms``: null where empty, else a whole number ≥ 0 by ``parse_integer`` (once per distinct
    value); anything else is the line reader's to name."""
    if text is None:
        return pa.nulls(n, pa.int64())
    codes, values = codes_of(pc, pc.fill_null(text, ""))
    parsed = [None if not v else parse_integer(v) for v in values.to_pylist()]
    if any(v is None and t for v, t in zip(parsed, values.to_pylist(), strict=True)) or any(
        v is not None and v < 0 for v in parsed
    ):
        raise Irregular
    return pa.array(parsed, pa.int64()).take(pa.array(codes))


_ESCAPED = re.compile(r"\\")


def _unescaped(pa: Any, pc: Any, notes: Any) -> Any:
    """TSV notes with their ``\\n``, ``\\t``, ``\\r``, ``\\\\`` escapes undone (in Python, on the notes that
    hold a backslash)."""
    if not pc.any(pc.match_substring(notes, "\\")).as_py():
        return notes
    return pa.array(
        [_unescape(v) if v is not None and "\\" in v else v for v in notes.to_pylist()], pa.string()
    )


# --- JSONL --------------------------------------------------------------------------------------------------

_ESCAPE = re.compile(rb"\\u")


def _read_json(path: str | Path, size: int | None) -> JudgmentTable:
    """A JSONL file: Arrow reads each block against the fields the line reader reads (others ignored)."""
    np, pa, pc = _pa()
    from pyarrow import json as arrow_json

    schema = pa.schema(
        [
            ("assessor", pa.string()),
            ("query_id", pa.string()),
            ("doc_id", pa.string()),
            ("grade", pa.int64()),
            ("action", pa.string()),
            ("note", pa.string()),
            ("duration_ms", pa.int64()),
            ("time", pa.string()),
        ]
    )
    parts = []
    numbers = []
    for block in _blocks(path, size, comments=False):
        if not len(block.numbers):
            continue
        data = block.data
        if _ESCAPE.search(data):
            raise Irregular  # escapes (surrogates, keys spelled with escapes): Python's json is the definition
        raw = np.frombuffer(data, np.uint8)
        ends = np.flatnonzero(raw == 10)
        opening = np.concatenate(([0], np.cumsum((raw == 123) | (raw == 91))))
        per_line = np.diff(np.concatenate(([0], opening[ends])))
        if len(per_line) and per_line.max() > JSON_NESTING:
            raise Irregular  # deep nesting: Python's json has a recursion limit, the line reader says so
        read = arrow_json.ReadOptions(block_size=max(1 << 20, len(data) + 1))
        parse = arrow_json.ParseOptions(
            explicit_schema=schema, newlines_in_values=False, unexpected_field_behavior="ignore"
        )
        try:
            table = arrow_json.read_json(pa.BufferReader(data), read, parse)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise Irregular from None
        if table.num_rows != len(block.numbers):
            raise Irregular  # two objects on one line, or a line Arrow skipped that Python would not
        if data.count(b'"action"') != len(table) - table.column("action").null_count:
            raise Irregular  # "action": null is an error, a missing action a judge: Arrow reads both as null
        parts.append(table)
        numbers.append(block.numbers)
    if not parts:
        raise Irregular
    table = pa.concat_tables(parts).combine_chunks()
    for name in ("assessor", "query_id", "doc_id"):
        if table.column(name).null_count:
            raise Irregular
    assessor, query_id, doc_id = (_stripped(table.column(n), empty=False) for n in TSV_COLUMNS[:3])
    actions = table.column("action").combine_chunks()
    codes = pc.index_in(pc.fill_null(actions, "judge"), pa.array(ACTIONS))
    if codes.null_count:
        raise Irregular
    action = np.asarray(codes.to_numpy(zero_copy_only=False), np.int8)
    grades = table.column("grade").combine_chunks()
    graded = np.asarray(pc.is_valid(grades).to_numpy(zero_copy_only=False), bool)
    if not np.array_equal(graded, action == 0):
        raise Irregular  # a judge without a grade, or a skip with one
    grade = np.asarray(pc.fill_null(grades, 0).to_numpy(zero_copy_only=False), np.int64)
    note = _stripped(table.column("note"), empty=True)
    note = pc.if_else(pc.equal(pc.binary_length(note), 0), None, note)
    duration = table.column("duration_ms").combine_chunks()
    if pc.any(pc.less(duration, 0)).as_py():
        raise Irregular
    time = table.column("time").combine_chunks()
    time = pc.if_else(pc.equal(pc.binary_length(time), 0), None, time)
    return JudgmentTable(
        "jsonl",
        np.concatenate(numbers).astype(np.int64),
        assessor,
        query_id,
        doc_id,
        grade,
        action,
        note,
        duration,
        time,
    )


# --- the checks every row gets ------------------------------------------------------------------------------


def _check(table: JudgmentTable, topics: Collection[str] | None, scale: Collection[int] | None) -> None:
    """What ``iter_judgment_rows`` checks across rows: assessor names (once per name), topics, the scale, one
    line per assessor and item. Any failure is ``Irregular``: the line reader names the line."""
    np, pa, pc = _pa()
    if not len(table):
        raise Irregular
    names = pc.unique(table.assessor).to_pylist()
    if any(assessor_problem(name) for name in names):
        raise Irregular
    if (
        topics is not None
        and not pc.all(pc.is_in(table.query_id, pa.array(list(topics), pa.string()))).as_py()
    ):
        raise Irregular
    if scale is not None:
        judged = table.grade[table.action == 0]
        if len(judged) and not np.isin(judged, np.fromiter(scale, np.int64)).all():
            raise Irregular
    if has_duplicate_keys(np, pc, (table.assessor, table.query_id, table.doc_id)):
        raise Irregular


def codes_of(pc: Any, array: Any) -> tuple[Any, Any]:
    """Integer codes of an Arrow string array's values (order of first appearance) and the distinct values."""
    import numpy as np

    encoded = pc.dictionary_encode(array)
    return np.asarray(encoded.indices.to_numpy(zero_copy_only=False), np.int64), encoded.dictionary


def has_duplicate_keys(np: Any, pc: Any, columns: Sequence[Any]) -> bool:
    """Whether two rows agree on every one of ``columns`` (string arrays of one length).

    The columns' codes are combined into one integer per row (renumbered when the product of the numbers of
    distinct values would pass 2**62), then sorted: a duplicate is two equal neighbours.
    """
    key = np.zeros(len(columns[0]), np.int64)
    span = 1
    for column in columns:
        codes, values = codes_of(pc, column)
        if span * len(values) >= 1 << 62:
            _, key = np.unique(key, return_inverse=True)
            span = int(key.max()) + 1
        key = key * len(values) + codes
        span *= len(values)
    key.sort()
    return bool((key[1:] == key[:-1]).any())
