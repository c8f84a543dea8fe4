"""TREC qrels files: ``query_id iteration doc_id relevance`` (DESIGN §5)."""

from __future__ import annotations

from pathlib import Path

from toolkit.errors import FormatError
from toolkit.formats.irds import is_irds, read_irds_qrels
from toolkit.formats.numbers import NumberError, NumberRangeError, grade_hint, parse_grade
from toolkit.formats.textfile import atomic_write_text, iter_trec_fields
from toolkit.model import Qrels

QRELS_COLUMNS = "query_id iteration doc_id relevance"


def qrels_name(path: str | Path) -> str:
    name = Path(path).name
    for suffix in (".gz", ".qrels", ".txt", ".tsv"):
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def read_qrels(path: str | Path, *, name: str | None = None) -> Qrels:
    """Read and validate TREC qrels; any defect raises ``FormatError`` naming ``path:line``.

    Grades are ASCII integers within 64 bits, read as C's ``atol`` reads them (``toolkit.formats.numbers``).
    """
    if is_irds(path):  # ir_datasets:DATASET_ID (toolkit.formats.irds)
        return read_irds_qrels(path, name=name)
    _refuse_campaign(path)
    judgments: dict[str, dict[str, int]] = {}
    count = 0
    for number, parts in iter_trec_fields(path):
        if len(parts) != 4:
            raise FormatError(path, number, f"expected 4 columns ({QRELS_COLUMNS}), found {len(parts)}")
        query_id, _iteration, doc_id, rel_text = parts
        try:
            relevance = parse_grade(rel_text)
        except NumberRangeError as exc:
            raise FormatError(path, number, f"relevance {rel_text!r} is {exc.reason}") from None
        except NumberError:
            raise FormatError(
                path,
                number,
                f"expected an integer relevance in column 4, found {rel_text!r}{grade_hint(rel_text)}",
            ) from None
        docs = judgments.setdefault(query_id, {})
        if doc_id in docs:
            raise FormatError(
                path,
                number,
                f"duplicate judgment of doc {doc_id!r} for query {query_id!r}; keep one line per (query, doc)",
            )
        docs[doc_id] = relevance
        count += 1
    if count == 0:
        raise FormatError(path, None, f"empty qrels: no judgment lines ({QRELS_COLUMNS})")
    return Qrels(judgments=judgments, name=name or qrels_name(path), path=str(path))


def _refuse_campaign(path: str | Path) -> None:
    """A judging campaign (an SQLite file) passed where qrels belong: say how to get qrels out of it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(16)
    except OSError:
        return  # the reader reports it
    if head == b"SQLite format 3\x00":
        target = f"qrels/{Path(path).stem}-human.qrels"  # not NAME.qrels: that may be the regex truth
        raise FormatError(
            path, None, f"this is a campaign; export qrels first: trec-toolkit export {path} -o {target}"
        )


def format_qrels(qrels: Qrels) -> str:
    out: list[str] = []
    for query_id, docs in qrels.judgments.items():
        for doc_id, rel in docs.items():
            out.append(f"{query_id} 0 {doc_id} {rel}\n")
    return "".join(out)


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write qrels atomically in the order held (callers sort when they want a canonical file)."""
    atomic_write_text(path, format_qrels(qrels))
