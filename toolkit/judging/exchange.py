"""Judgments into a campaign (``trec-toolkit judgments import``): all or nothing, first defect at its line.

The file format (TSV or JSONL, header, notes) and its ``path:line`` errors are ``toolkit.formats.judgments``'
— the same reader ``agree`` uses. What only a campaign can tell is checked here, row by row as the reader
yields them, so the error is always the file's first defect: unknown topics and grades off the scale
(passed to the reader), documents the campaign never pooled. Only a clean file is appended to the log, in
one transaction.
"""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.judgments import JudgmentRow, iter_judgment_rows
from toolkit.judging.store import CampaignStore


def read_import(store: CampaignStore, path: str | Path) -> list[JudgmentRow]:
    """Every row of ``path``, checked against the campaign (topics, scale, documents)."""
    topics = {t.query_id for t in store.topics()}
    known_docs = set(store.latest_hashes())
    pooled = {(p.query_id, p.doc_id) for p in store.pool_items()} | set(store.gold())
    rows: list[JudgmentRow] = []
    for row in iter_judgment_rows(path, topics=topics, scale=set(store.grades())):
        if row.doc_id not in known_docs and (row.query_id, row.doc_id) not in pooled:
            raise FormatError(
                path, row.line, f"unknown document {row.doc_id!r}: not in this campaign (pool it first)"
            )
        rows.append(row)
    return rows


def import_judgments(store: CampaignStore, path: str | Path) -> int:
    """Check the whole file, then append it to the log in one transaction; returns the number of rows."""
    rows = read_import(store, path)
    store.record_many([(r.assessor, r.query_id, r.doc_id, r.grade, r.action, r.note) for r in rows])
    return len(rows)
