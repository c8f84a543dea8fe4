"""Where judgments for an agreement analysis come from: a judgments TSV or a campaign store.

The TSV is the interchange format of ``judgments import`` / ``export`` (``assessor<TAB>query_id<TAB>doc_id<TAB>
grade``, an optional fifth column with a note that is ignored here, optional header, ``#`` comments), so
judgments made in a spreadsheet can be checked for agreement before they are imported. A campaign is recognised by the SQLite magic bytes (or a ``.sqlite``/``.db`` suffix), and only
``judge`` decisions count: a skip or an unrateable is not a grade, and gold items are quality control, not
part of the pool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from toolkit.errors import FormatError

SQLITE_MAGIC = b"SQLite format 3\x00"
CAMPAIGN_SUFFIXES = (".sqlite", ".sqlite3", ".db")
COLUMNS = ("assessor", "query_id", "doc_id", "grade")
#: Grade-column values that are decisions but not grades (as a campaign export writes them); never counted.
NON_GRADES = ("skip", "unrateable")


class Rating(NamedTuple):
    """One assessor's grade on one (topic, document)."""

    assessor: str
    query_id: str
    doc_id: str
    grade: int


@dataclass(frozen=True)
class JudgmentSource:
    """Judgments read from ``path``; ``labels`` is the campaign's grade scale (None for a TSV).

    ``excluded`` counts what was read but is not a grade (``skip``, ``unrateable``, ``gold``).
    """

    path: str
    kind: str
    judgments: tuple[Rating, ...]
    labels: tuple[int, ...] | None = None
    excluded: Mapping[str, int] = field(default_factory=dict)


def is_campaign(path: str | Path) -> bool:
    """SQLite magic bytes, or a campaign suffix when the file cannot be read (the store then explains)."""
    p = Path(path)
    try:
        with open(p, "rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError:
        return p.suffix.lower() in CAMPAIGN_SUFFIXES
    if head == SQLITE_MAGIC:
        return True
    return p.suffix.lower() in CAMPAIGN_SUFFIXES and not head


def load_judgments(path: str | Path, *, include_gold: bool = False) -> JudgmentSource:
    """Read a campaign or a judgments TSV, whichever ``path`` is."""
    if is_campaign(path):
        return read_campaign(path, include_gold=include_gold)
    return read_judgments_tsv(path)


def read_judgments_tsv(path: str | Path, *, labels: Sequence[int] | None = None) -> JudgmentSource:
    """Parse a judgments TSV strictly: every bad line is a ``path:line`` error, duplicates included.

    With ``labels``, a grade outside them is an error at its line (the library could only name the item).
    """
    from toolkit.formats.textfile import read_text

    allowed = set(labels) if labels is not None else None
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Rating] = []
    excluded: Counter[str] = Counter()
    first = True
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        # Not line.strip(): a leading or trailing tab is an empty column, which must be reported as such.
        fields = [f.strip() for f in line.split("\t")]
        if first and [f.lower() for f in fields[:4]] == list(COLUMNS):
            first = False
            continue
        first = False
        if len(fields) not in (4, 5):
            raise FormatError(
                path,
                number,
                "expected 4 tab-separated columns (assessor, query_id, doc_id, grade) and an optional note, "
                f"found {len(fields)}",
            )
        assessor, query_id, doc_id, raw = fields[:4]
        for name, value in (
            ("assessor", assessor),
            ("query_id", query_id),
            ("doc_id", doc_id),
            ("grade", raw),
        ):
            if not value:
                raise FormatError(path, number, f"empty {name}")
        key = (assessor, query_id, doc_id)
        if key in seen:
            raise FormatError(
                path,
                number,
                f"duplicate judgment by {assessor} of ({query_id}, {doc_id}); first at line {seen[key]} "
                "(keep one line per assessor and item)",
            )
        seen[key] = number
        if raw.lower() in NON_GRADES:
            excluded[raw.lower()] += 1
            continue
        try:
            grade = int(raw)
        except ValueError:
            raise FormatError(
                path, number, f"grade {raw!r} is not an integer (or skip / unrateable)"
            ) from None
        if allowed is not None and grade not in allowed:
            shown = ",".join(str(g) for g in sorted(allowed))
            raise FormatError(path, number, f"grade {grade} is not among the labels {shown}")
        out.append(Rating(assessor, query_id, doc_id, grade))
    if not out:
        raise FormatError(
            path, None, "no judgments found (expected assessor<TAB>query_id<TAB>doc_id<TAB>grade)"
        )
    return JudgmentSource(str(path), "tsv", tuple(out), None, dict(excluded))


def read_campaign(path: str | Path, *, include_gold: bool = False) -> JudgmentSource:
    """Current ``judge`` decisions of every assessor in a campaign, and its grade scale."""
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(path) as store:
        scale = tuple(sorted(store.grades()))
        current = store.current_judgments(include_gold=True)
        gold = set() if include_gold else set(store.gold())
    kept = [j for j in current if (j.query_id, j.doc_id) not in gold]
    ratings, excluded = ratings_from_records(kept)
    if len(kept) < len(current):
        excluded["gold"] = len(current) - len(kept)
    return JudgmentSource(str(path), "campaign", ratings, scale or None, dict(excluded))


def ratings_from_records(records: Iterable[object]) -> tuple[tuple[Rating, ...], Counter[str]]:
    """Keep only graded ``judge`` decisions of campaign ``Judgment`` records; count the rest by action."""
    out: list[Rating] = []
    excluded: Counter[str] = Counter()
    for record in records:
        action = getattr(record, "action", "judge")
        grade = getattr(record, "grade", None)
        if action != "judge" or grade is None:
            excluded[str(action)] += 1
            continue
        out.append(
            Rating(
                str(getattr(record, "assessor")),  # noqa: B009 - duck-typed Judgment records
                str(getattr(record, "query_id")),  # noqa: B009
                str(getattr(record, "doc_id")),  # noqa: B009
                int(grade),
            )
        )
    return tuple(out), excluded
