"""Judgments into a campaign (``trec-toolkit judgments import``): all or nothing, first defect at its line.

The file format (TSV or JSONL, header, notes) and its ``path:line`` errors are ``toolkit.formats.judgments``'
— the same reader ``agree`` uses. What only a campaign can tell is checked here, row by row as the reader
yields them, so the error is always the file's first defect: unknown topics and grades off the scale
(passed to the reader), documents the campaign never pooled, and documents pooled for another topic only
(unless ``allow_unpooled``). Only a clean file is appended to the log, in one transaction.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.judgments import JudgmentRow, iter_judgment_rows
from toolkit.judging.store import CampaignStore


def read_import(store: CampaignStore, path: str | Path, *, allow_unpooled: bool = False) -> list[JudgmentRow]:
    """Every row of ``path``, checked against the campaign (topics, scale, documents).

    A document must be pooled (or gold) for the row's topic: one pooled for another topic only is refused
    unless ``allow_unpooled`` — a grade of an item nobody pooled would enter the qrels as if the runs had
    retrieved it for that topic. A document the campaign never saw is refused either way (it has no text
    snapshot that the grade could be about).
    """
    topics = {t.query_id for t in store.topics()}
    known_docs = set(store.latest_hashes())
    pooled = {(p.query_id, p.doc_id) for p in store.pool_items()} | set(store.gold())
    pooled_for: dict[str, set[str]] = defaultdict(set)
    for query_id, doc_id in pooled:
        pooled_for[doc_id].add(query_id)
    rows: list[JudgmentRow] = []
    for row in iter_judgment_rows(path, topics=topics, scale=set(store.grades())):
        if (row.query_id, row.doc_id) not in pooled:
            if row.doc_id not in known_docs and row.doc_id not in pooled_for:
                raise FormatError(
                    path, row.line, f"unknown document {row.doc_id!r}: not in this campaign (pool it first)"
                )
            if not allow_unpooled:
                raise FormatError(path, row.line, _unpooled(row, sorted(pooled_for[row.doc_id])))
        rows.append(row)
    return rows


def _unpooled(row: JudgmentRow, others: list[str]) -> str:
    where = (
        f"only for {', '.join(others[:5])}{' …' if len(others) > 5 else ''}" if others else "for any topic"
    )
    return (
        f"document {row.doc_id!r} was not pooled for topic {row.query_id!r} ({where}); judge it in a round that "
        f"pools it for {row.query_id}, or import it anyway with --allow-unpooled"
    )


def import_judgments(store: CampaignStore, path: str | Path, *, allow_unpooled: bool = False) -> int:
    """Check the whole file, then append it to the log in one transaction; returns the number of rows."""
    rows = read_import(store, path, allow_unpooled=allow_unpooled)
    store.record_many([(r.assessor, r.query_id, r.doc_id, r.grade, r.action, r.note) for r in rows])
    return len(rows)
