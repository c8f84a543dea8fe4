"""Judgments files: the TSV people edit in a spreadsheet, its CSV and JSONL twins, the log export, gold lists.

**Judgments TSV** (``judgments export`` writes it; ``judgments import`` and ``agree`` read it)::

    assessor<TAB>query_id<TAB>doc_id<TAB>grade[<TAB>note]

``grade`` is an integer or the word ``skip`` / ``unrateable`` (decisions that are never grades). An optional
first line naming the columns is a header; blank lines and ``#`` lines are skipped. Columns are split on
tabs only and each is stripped, so a stray leading or trailing tab shows up as an empty column instead of
shifting the others. In a note, ``\\n``, ``\\t``, ``\\r`` and ``\\\\`` stand for a line break, a tab, a
carriage return and a backslash. With a header, the columns after ``grade`` are found by name: ``note``,
``duration_ms`` (a whole number of milliseconds) and ``time`` are read, any other column is ignored — so the
export's ``assessor query_id doc_id grade note duration_ms`` reads back whole.

**Judgments CSV**: the same columns, comma-separated with the quoting of Python's ``csv`` module (a note may
hold commas, quotes and line breaks as they are). Chosen by a ``.csv`` name.

**Judgments JSONL**: one object per line with ``assessor``, ``query_id``, ``doc_id``, ``grade`` (an integer
or null) and optionally ``action`` (``judge``, ``skip``, ``unrateable``), ``note``, ``duration_ms`` and
``time`` — what ``judgments export --format jsonl`` writes (its other fields are ignored). Chosen by a
``.jsonl`` / ``.ndjson`` name or a first line that starts with ``{``.

One reader serves every command, so a file gets the same ``path:line`` error whichever command reads it.
The checks a file can carry on its own (columns, empty fields, assessor names, grade syntax, duplicates)
happen here; a caller that knows the campaign passes its ``topics`` and grade ``scale`` (plain sets) and gets
those checks at the same line, in file order. Every row is yielded as soon as it is checked, so a caller
that checks more (e.g. unknown documents) still reports the first defect of the file.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import FormatError
from toolkit.formats.names import assessor_problem
from toolkit.formats.numbers import NumberError, NumberRangeError, grade_hint, parse_grade
from toolkit.formats.structured import json_line_object
from toolkit.formats.textfile import iter_data_lines, iter_text_lines, split_lines

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

TSV_COLUMNS = ("assessor", "query_id", "doc_id", "grade")
#: What ``format_judgments`` writes as TSV and CSV: the four import columns, the note and the time spent.
EXPORT_COLUMNS = (*TSV_COLUMNS, "note", "duration_ms")
LOG_COLUMNS = (
    "event_id", "time", "assessor", "query_id", "doc_id", "action", "grade", "note",
    "duration_ms", "position", "content_hash", "undoes",
)  # fmt: skip
#: Grade-column words that are decisions but not grades.
NON_GRADES = ("skip", "unrateable")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: The layouts ``format_judgments`` and ``format_log`` write.
FORMATS = ("tsv", "csv", "jsonl")
EXPECTED_TSV = "assessor<TAB>query_id<TAB>doc_id<TAB>grade"
EXPECTED_CSV = "assessor,query_id,doc_id,grade"
EXPECTED_JSONL = "one JSON object per line with assessor, query_id, doc_id and grade"


@dataclass(frozen=True)
class JudgmentRow:
    """One checked line of a judgments file: a grade (``action`` ``judge``) or a skip / unrateable."""

    line: int
    assessor: str
    query_id: str
    doc_id: str
    grade: int | None
    action: str
    note: str | None = None
    duration_ms: int | None = None
    time: str | None = None


def parse_integer(text: str) -> int | None:
    """An ASCII decimal integer within 64 bits, or None when ``text`` is not one (``parse_grade``'s rule)."""
    try:
        return parse_grade(text)
    except NumberError:
        return None


def grade_problem(token: str) -> str | None:
    """Why the grade ``token`` is no grade (None when it is one): not an ASCII integer, or out of 64 bits."""
    try:
        parse_grade(token)
    except NumberRangeError as exc:
        return f"grade {token} is {exc.reason}"
    except NumberError:
        return f"expected an integer grade, 'skip' or 'unrateable', found {token!r}{grade_hint(token)}"
    return None


def is_jsonl(path: str | Path, text: str) -> bool:
    """A ``.jsonl``/``.ndjson`` name (``.gz`` allowed), or a first data line that opens a JSON object."""
    return judgments_format(path, text) == "jsonl"


def judgments_format(path: str | Path, text: str) -> str:
    """``jsonl`` (by name or a first line opening an object), ``csv`` (by a ``.csv`` name), else ``tsv``."""
    return _layout(path, split_lines(text))[0]


Lines = Iterator[tuple[int, str]]


def _layout(path: str | Path, lines: Lines) -> tuple[str, Lines]:
    """The file's layout and its lines (those looked at to decide it put back in front)."""
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith(JSONL_SUFFIXES):
        return "jsonl", lines
    if name.endswith(".csv"):
        return "csv", lines
    # Before the first data line come only blank and comment lines: every layout skips the blank ones, and
    # of the comments JSONL refuses the first, so that one is all that needs to be put back (not a bomb of
    # blank lines held in memory).
    kept: list[tuple[int, str]] = []
    layout = "tsv"
    for number, line in lines:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            kept = kept or [(number, line)]
            continue
        kept.append((number, line))
        layout = "jsonl" if stripped.startswith("{") else "tsv"
        break
    return layout, itertools.chain(kept, lines)


def iter_judgment_rows(
    path: str | Path,
    *,
    topics: Collection[str] | None = None,
    scale: Collection[int] | None = None,
    scale_name: str = "the campaign's scale",
    text: str | None = None,
) -> Iterator[JudgmentRow]:
    """Check and yield the rows of a judgments TSV or JSONL file, in file order.

    The first defect raises ``FormatError`` naming ``path:line``. Per line the checks run in this order:
    columns and empty fields, the assessor name, the topic (when ``topics`` is given), the grade, the
    scale (when ``scale`` is given; ``scale_name`` says where it came from), duplicates. A file without any
    row is an error once the whole file has been read. ``text``: the file's content, if already read;
    otherwise the file is streamed (``toolkit.formats.textfile``: gzip, the input limits), never held whole.
    """
    yield from _open_rows(path, topics, scale, scale_name, text)[1]


def _open_rows(
    path: str | Path,
    topics: Collection[str] | None,
    scale: Collection[int] | None,
    scale_name: str,
    text: str | None,
) -> tuple[str, Iterator[JudgmentRow]]:
    """The file's layout and its checked rows, as a stream (the file is opened once)."""
    layout, lines = _layout(path, iter_text_lines(path) if text is None else split_lines(text))
    if layout == "jsonl":
        rows = _jsonl_rows(path, lines)
    else:
        fields = _tsv_lines(lines) if layout == "tsv" else _csv_lines(path, lines)
        rows = _table_rows(path, fields, layout)
    expected = {"jsonl": EXPECTED_JSONL, "csv": EXPECTED_CSV}.get(layout, EXPECTED_TSV)
    return layout, _checked(path, rows, topics, scale, scale_name, expected)


def _checked(
    path: str | Path,
    rows: Iterable[tuple[JudgmentRow, str]],
    topics: Collection[str] | None,
    scale: Collection[int] | None,
    scale_name: str,
    expected: str,
) -> Iterator[JudgmentRow]:
    """The checks every source of rows shares (see ``iter_judgment_rows``), in row order."""
    allowed = set(scale) if scale is not None else None
    known = set(topics) if topics is not None else None
    seen: dict[tuple[str, str, str], int] = {}
    names: dict[str, str | None] = {}
    count = 0
    for row, found in rows:
        number = row.line
        if row.assessor in names:  # a file has a handful of assessors and many lines: check each name once
            problem = names[row.assessor]
        else:
            problem = names[row.assessor] = assessor_problem(row.assessor)
        if problem:
            raise FormatError(path, number, problem)
        if known is not None and row.query_id not in known:
            raise FormatError(path, number, f"unknown topic {row.query_id!r}: not in this campaign")
        if row.action == "judge":
            if row.grade is None:
                raise FormatError(path, number, found)
            if allowed is not None and row.grade not in allowed:
                shown = ", ".join(str(g) for g in sorted(allowed))
                raise FormatError(path, number, f"grade {row.grade} is not on {scale_name} ({shown})")
        key = (row.assessor, row.query_id, row.doc_id)
        if key in seen:
            raise FormatError(
                path,
                number,
                f"duplicate judgment by {row.assessor} of ({row.query_id}, {row.doc_id}); first on line "
                f"{seen[key]} (keep one line per assessor and item)",
            )
        seen[key] = number
        count += 1
        yield row
    if not count:
        raise FormatError(path, None, f"no judgments found (expected {expected})")


def judgment_rows_from_records(
    records: Iterable[Mapping[str, Any]], *, where: str, scale: Collection[int] | None = None
) -> list[JudgmentRow]:
    """Rows from records shaped like JSONL objects (a DataFrame's rows), numbered from 1, checked as a file.

    ``where`` names the source in errors (``<DataFrame>:3: …``).
    """
    rows = (_record_row(where, number, dict(record)) for number, record in enumerate(records, start=1))
    return list(_checked(where, rows, None, scale, "the labels", EXPECTED_JSONL))


def read_judgment_rows(
    path: str | Path,
    *,
    topics: Collection[str] | None = None,
    scale: Collection[int] | None = None,
    scale_name: str = "the campaign's scale",
    text: str | None = None,
) -> list[JudgmentRow]:
    """Every row of a judgments file (see ``iter_judgment_rows``)."""
    return list(iter_judgment_rows(path, topics=topics, scale=scale, scale_name=scale_name, text=text))


def read_judgment_file(
    path: str | Path,
    *,
    topics: Collection[str] | None = None,
    scale: Collection[int] | None = None,
    scale_name: str = "the campaign's scale",
) -> tuple[str, list[JudgmentRow]]:
    """The layout (``tsv``, ``csv``, ``jsonl``) and every row of a judgments file, streamed in one reading."""
    layout, rows = _open_rows(path, topics, scale, scale_name, None)
    return layout, list(rows)


def _tsv_lines(lines: Lines) -> Iterator[tuple[int, list[str]]]:
    """Data lines split on tabs, each column stripped (not the line: a stray tab is an empty column)."""
    for number, line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        yield number, [f.strip() for f in line.split("\t")]


def _csv_lines(path: str | Path, lines: Lines) -> Iterator[tuple[int, list[str]]]:
    """Records of a CSV file (quoted fields may span lines) with the line each starts on."""
    reader = csv.reader((f"{line}\n" for _, line in lines), strict=True)
    start = 1
    try:
        for record in reader:
            number, start = start, reader.line_num + 1
            if not any(f.strip() for f in record) or record[0].lstrip().startswith("#"):
                continue
            yield number, [f.strip() for f in record]
    except csv.Error as exc:
        raise FormatError(path, reader.line_num, f"not valid CSV ({exc}); expected {EXPECTED_CSV}") from None


def _table_rows(
    path: str | Path, lines: Iterable[tuple[int, list[str]]], layout: str
) -> Iterator[tuple[JudgmentRow, str]]:
    """Rows of a TSV or CSV file; an unparsable grade comes back as None with why (for the error).

    The columns after ``grade`` are what a header names there (``note``, ``duration_ms``, ``time`` are read,
    others ignored); without a header, or with a header of just the four, a fifth column is the note.
    """
    names = ["note"]
    first = True
    sep = "tab" if layout == "tsv" else "comma"
    for number, fields in lines:
        if first and [f.lower() for f in fields[:4]] == list(TSV_COLUMNS):
            names = [f.lower() for f in fields[4:]] or names
            first = False
            continue
        first = False
        if not 4 <= len(fields) <= 4 + len(names):
            wanted = (
                "an optional note" if names == ["note"] else f"up to {len(names)} more named in the header"
            )
            raise FormatError(
                path,
                number,
                f"expected 4 {sep}-separated columns (assessor query_id doc_id grade) and {wanted}, "
                f"found {len(fields)}",
            )
        for column, (name, value) in enumerate(zip(TSV_COLUMNS, fields, strict=False), start=1):
            if not value:
                raise FormatError(
                    path, number, f"empty {name} (column {column}); fill it in or delete the line"
                )
        extra = dict(zip(names, fields[4:], strict=False))
        note_text = extra.get("note") or ""
        note = (_unescape(note_text) if layout == "tsv" else note_text) or None
        duration = _duration(path, number, extra.get("duration_ms") or "")
        time = extra.get("time") or None
        assessor, query_id, doc_id, grade_text = fields[:4]
        word = grade_text.lower()
        if word in NON_GRADES:
            row = JudgmentRow(number, assessor, query_id, doc_id, None, word, note, duration, time)
            yield row, ""
        else:
            problem = grade_problem(grade_text)
            grade = None if problem else parse_grade(grade_text)
            row = JudgmentRow(number, assessor, query_id, doc_id, grade, "judge", note, duration, time)
            yield row, problem or ""


def _duration(path: str | Path, number: int, text: str) -> int | None:
    if not text:
        return None
    value = parse_integer(text)
    if value is None or value < 0:
        raise FormatError(
            path, number, f"expected a whole number of milliseconds in duration_ms, found {text!r}"
        )
    return value


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}
_ESCAPED = re.compile(r"\\([ntr\\])")


def _escape(text: str) -> str:
    """A note in one TSV cell: backslash, tab and line breaks written as ``\\\\``, ``\\t``, ``\\n``, ``\\r``."""
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _unescape(text: str) -> str:
    return _ESCAPED.sub(lambda m: _ESCAPES[m.group(1)], text)


def _jsonl_rows(path: str | Path, lines: Lines) -> Iterator[tuple[JudgmentRow, str]]:
    """Rows of a JSONL file; field types are checked here, the common checks in ``iter_judgment_rows``."""
    for number, line in lines:
        if not line.strip():
            continue
        yield _record_row(path, number, json_line_object(path, number, line, EXPECTED_JSONL))


def _record_row(path: str | Path, number: int, record: dict[str, Any]) -> tuple[JudgmentRow, str]:
    """One JSON-shaped record checked field by field; the common checks are ``_checked``'s."""
    for column, name in enumerate(TSV_COLUMNS[:3], start=1):
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise FormatError(path, number, f"empty {name} (field {column}); fill it in or delete the line")
    action = record.get("action", "judge")
    grade = record.get("grade")
    if action not in ("judge", *NON_GRADES):
        raise FormatError(
            path,
            number,
            f"action {_shown(action)} cannot be imported; expected judge, skip or unrateable "
            "(export current judgments, not the --log)",
        )
    if action != "judge" and grade is not None:
        raise FormatError(
            path, number, f"a {action} carries no grade (found {_shown(grade)}); set grade to null"
        )
    if isinstance(grade, int) and not isinstance(grade, bool):
        problem = grade_problem(str(grade)) or ""  # an integer outside 64 bits
    else:
        problem = f"expected an integer grade, 'skip' or 'unrateable', found {_shown(grade)}"
    note = record.get("note")
    if note is not None and not isinstance(note, str):
        raise FormatError(path, number, f"expected a string or null note, found {_shown(note)}")
    duration = record.get("duration_ms")
    if duration is not None and (not isinstance(duration, int) or isinstance(duration, bool) or duration < 0):
        raise FormatError(
            path,
            number,
            f"expected a whole number of milliseconds or null duration_ms, found {_shown(duration)}",
        )
    time = record.get("time")
    if time is not None and not isinstance(time, str):
        raise FormatError(path, number, f"expected a string or null time, found {_shown(time)}")
    for name in ("assessor", "query_id", "doc_id", "note", "time"):
        half = _surrogate(record.get(name))
        if half:
            raise FormatError(
                path,
                number,
                f"{name} holds {half}, half of a UTF-16 surrogate pair and no character; write the character "
                "itself",
            )
    row = JudgmentRow(
        number,
        record["assessor"].strip(),
        record["query_id"].strip(),
        record["doc_id"].strip(),
        None if problem else grade,
        action,
        (note.strip() or None) if note is not None else None,
        duration,
        time or None,
    )
    return row, problem


def _surrogate(value: Any) -> str | None:
    """The first lone surrogate of a string as its JSON escape (``\\ud800``), or None.

    JSON's ``\\ud800`` decodes to half a UTF-16 pair that no UTF-8 file, database or terminal takes: such a
    name or note would fail later, far from its line.
    """
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"\\u{ord(value[exc.start]):04x}"
    return None


def _shown(value: Any) -> str:
    """A value as JSON shows it (``"2"``, ``true``, ``null``); anything JSON cannot hold by its repr."""
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def iter_gold_rows(
    path: str | Path, *, topics: Collection[str] | None = None, scale: Collection[int] | None = None
) -> Iterator[tuple[int, str, str, int]]:
    """``query_id<TAB>doc_id<TAB>grade`` lines of a gold file (tabs or blanks) as ``(line, query, doc, grade)``."""
    seen: set[tuple[str, str]] = set()
    for number, line in iter_data_lines(path):
        parts = line.split("\t") if "\t" in line else line.split()
        if len(parts) != 3:
            raise FormatError(path, number, f"expected 3 columns (query_id doc_id grade), found {len(parts)}")
        query_id, doc_id, grade_text = parts
        if topics is not None and query_id not in topics:
            raise FormatError(path, number, f"unknown topic {query_id!r}: not in this campaign")
        try:
            grade = parse_grade(grade_text)
        except NumberRangeError as exc:
            raise FormatError(path, number, f"grade {grade_text} is {exc.reason}") from None
        except NumberError:
            raise FormatError(
                path, number, f"expected an integer grade, found {grade_text!r}{grade_hint(grade_text)}"
            ) from None
        if scale is not None and grade not in scale:
            allowed = ", ".join(str(g) for g in sorted(scale))
            raise FormatError(path, number, f"grade {grade} is not on the campaign's scale ({allowed})")
        if (query_id, doc_id) in seen:
            raise FormatError(path, number, f"duplicate gold item ({query_id}, {doc_id})")
        seen.add((query_id, doc_id))
        yield number, query_id, doc_id, grade


def _cell(value: object) -> str:
    return "" if value is None else _escape(str(value))


def format_judgments(judgments: Sequence[DataclassInstance], fmt: str = "tsv") -> str:
    """Current judgments as TSV or CSV (``EXPORT_COLUMNS``, with a header) or JSONL (every field).

    Every layout reads back with ``read_judgment_rows`` — assessor, item, grade or decision, note and
    duration (JSONL also the time) — so ``judgments import`` and ``agree`` take what ``judgments export`` writes. ``judgments`` are
    ``toolkit.judging.Judgment`` records (any dataclass with their fields).
    """
    if fmt == "jsonl":
        return "".join(json.dumps(asdict(j), ensure_ascii=False, sort_keys=True) + "\n" for j in judgments)
    rows = []
    for j in judgments:
        fields = asdict(j)
        if fields["action"] != "judge":
            fields["grade"] = fields["action"]
        rows.append([fields.get(c) for c in EXPORT_COLUMNS])
    return _table(EXPORT_COLUMNS, rows, fmt)


def format_log(events: Sequence[DataclassInstance], fmt: str = "tsv") -> str:
    """The full append-only log (``toolkit.judging.LogEvent`` records) as TSV or CSV with a header, or JSONL."""
    if fmt == "jsonl":
        return "".join(json.dumps(asdict(e), ensure_ascii=False, sort_keys=True) + "\n" for e in events)
    return _table(LOG_COLUMNS, [[getattr(e, c) for c in LOG_COLUMNS] for e in events], fmt)


def _table(columns: Sequence[str], rows: Iterable[Sequence[object]], fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown judgments format {fmt!r}; one of {', '.join(FORMATS)}")
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(["" if v is None else v for v in row] for row in rows)
        return out.getvalue()
    lines = ["\t".join(columns)]
    lines.extend("\t".join(_cell(v) for v in row) for row in rows)
    return "\n".join(lines) + "\n"
