"""Judgments in and out of a campaign as TSV or JSONL (``trec-toolkit judgments export|import``).

The TSV is the one people edit in a spreadsheet: ``assessor<TAB>query_id<TAB>doc_id<TAB>grade`` (import also
takes an optional fifth column, a note),
with ``grade`` an integer on the campaign's scale or the word ``skip`` / ``unrateable``. An optional first
line naming the columns (``assessor query_id doc_id grade …``) is allowed; ``#`` lines are comments. What
``export`` writes, ``import`` reads back.

Import is all-or-nothing: every line is checked first (unknown topic, unknown document, grade off the
scale, bad assessor name, duplicate line), the first defect raises ``FormatError`` naming ``path:line``,
and only a clean file is appended to the log — in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from toolkit.errors import FormatError, StoreError
from toolkit.formats.textfile import iter_data_lines
from toolkit.judging.records import Judgment, LogEvent, check_assessor
from toolkit.judging.store import CampaignStore

TSV_COLUMNS = ("assessor", "query_id", "doc_id", "grade")
LOG_COLUMNS = (
    "event_id", "time", "assessor", "query_id", "doc_id", "action", "grade", "note",
    "duration_ms", "position", "content_hash", "undoes",
)  # fmt: skip


@dataclass(frozen=True)
class ImportRow:
    """One validated line of an import file."""

    line: int
    assessor: str
    query_id: str
    doc_id: str
    grade: int | None
    action: str
    note: str | None


def _cell(value: object) -> str:
    if value is None:
        return ""
    return str(value).replace("\t", " ").replace("\r", " ").replace("\n", "\\n")


def format_judgments(judgments: Sequence[Judgment], fmt: str = "tsv") -> str:
    """Current judgments as TSV (the 4 import columns, readable by ``agree``) or JSONL (every field, notes too)."""
    if fmt == "jsonl":
        return "".join(json.dumps(asdict(j), ensure_ascii=False, sort_keys=True) + "\n" for j in judgments)
    lines = ["\t".join(TSV_COLUMNS)]
    for j in judgments:
        grade = str(j.grade) if j.action == "judge" else j.action
        lines.append("\t".join(_cell(v) for v in (j.assessor, j.query_id, j.doc_id, grade)))
    return "\n".join(lines) + "\n"


def format_log(events: Sequence[LogEvent], fmt: str = "tsv") -> str:
    """The full append-only log as TSV (with a header) or JSONL."""
    if fmt == "jsonl":
        return "".join(json.dumps(asdict(e), ensure_ascii=False, sort_keys=True) + "\n" for e in events)
    lines = ["\t".join(LOG_COLUMNS)]
    lines.extend("\t".join(_cell(getattr(e, c)) for c in LOG_COLUMNS) for e in events)
    return "\n".join(lines) + "\n"


def read_judgments_tsv(
    path: str | Path, *, topics: set[str] | None = None, scale: set[int] | None = None
) -> list[ImportRow]:
    """Parse (and, given ``topics``/``scale``, check) an import TSV; errors name ``path:line``."""
    rows: list[ImportRow] = []
    seen: dict[tuple[str, str, str], int] = {}
    for number, line in iter_data_lines(path):
        parts = line.split("\t")
        if not rows and [p.strip().lower() for p in parts[:4]] == list(TSV_COLUMNS):
            continue  # a header line
        if len(parts) not in (4, 5):
            raise FormatError(
                path,
                number,
                f"expected 4 tab-separated columns (assessor query_id doc_id grade), found {len(parts)}",
            )
        assessor, query_id, doc_id, grade_text = (p.strip() for p in parts[:4])
        note = parts[4].strip().replace("\\n", "\n") if len(parts) == 5 and parts[4].strip() else None
        try:
            check_assessor(assessor)
        except StoreError as exc:
            raise FormatError(path, number, str(exc)) from None
        if not query_id or not doc_id:
            raise FormatError(path, number, "empty query_id or doc_id")
        if topics is not None and query_id not in topics:
            raise FormatError(path, number, f"unknown topic {query_id!r}: not in this campaign")
        grade, action = _grade(path, number, grade_text, scale)
        key = (assessor, query_id, doc_id)
        if key in seen:
            raise FormatError(
                path,
                number,
                f"duplicate judgment by {assessor} of ({query_id}, {doc_id}); first on line {seen[key]}",
            )
        seen[key] = number
        rows.append(ImportRow(number, assessor, query_id, doc_id, grade, action, note))
    return rows


def _grade(path: str | Path, number: int, text: str, scale: set[int] | None) -> tuple[int | None, str]:
    if text.lower() in ("skip", "unrateable"):
        return None, text.lower()
    try:
        grade = int(text)
    except ValueError:
        raise FormatError(
            path, number, f"expected an integer grade, 'skip' or 'unrateable', found {text!r}"
        ) from None
    if scale is not None and grade not in scale:
        allowed = ", ".join(str(g) for g in sorted(scale))
        raise FormatError(path, number, f"grade {grade} is not on the campaign's scale ({allowed})")
    return grade, "judge"


def import_judgments(store: CampaignStore, path: str | Path) -> int:
    """Check the whole file, then append it to the log in one transaction; returns the number of rows."""
    topics = {t.query_id for t in store.topics()}
    rows = read_judgments_tsv(path, topics=topics, scale=set(store.grades()))
    known_docs = set(store.latest_hashes())
    pooled = {(p.query_id, p.doc_id) for p in store.pool_items()} | set(store.gold())
    for row in rows:
        if row.doc_id not in known_docs and (row.query_id, row.doc_id) not in pooled:
            raise FormatError(
                path, row.line, f"unknown document {row.doc_id!r}: not in this campaign (pool it first)"
            )
    if not rows:
        raise FormatError(path, None, "no judgments to import (assessor<TAB>query_id<TAB>doc_id<TAB>grade)")
    store.record_many([(r.assessor, r.query_id, r.doc_id, r.grade, r.action, r.note) for r in rows])
    return len(rows)
