"""Where judgments for an agreement analysis come from: a judgments file or a campaign store.

A judgments file is the interchange format of ``judgments import`` / ``export`` (TSV ``assessor<TAB>query_id
<TAB>doc_id<TAB>grade`` with an optional note column, or JSONL), read by the same reader as ``judgments
import`` (``toolkit.formats.judgments``), so judgments made in a spreadsheet can be checked for agreement
before they are imported and get the same errors. A campaign is recognised by the SQLite magic bytes (or a
``.sqlite``/``.db`` suffix). Only ``judge`` decisions count: a skip or an unrateable is not a grade, and gold
items are quality control, not part of the pool.

``pair_kappas`` is the organiser screen's live agreement: kappa per pair over what a campaign holds so far.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from toolkit.errors import FormatError

if TYPE_CHECKING:
    from toolkit.agreement.ratings import RatingTable
    from toolkit.judging.store import CampaignStore

SQLITE_MAGIC = b"SQLite format 3\x00"
CAMPAIGN_SUFFIXES = (".sqlite", ".sqlite3", ".db")


class Rating(NamedTuple):
    """One assessor's grade on one (topic, document)."""

    assessor: str
    query_id: str
    doc_id: str
    grade: int


@dataclass(frozen=True)
class JudgmentSource:
    """Judgments read from ``path``; ``labels`` is the campaign's grade scale (None for a TSV).

    ``ratings`` holds the graded judgments column-wise (``toolkit.agreement.ratings``), which is what ``agree``
    takes; ``judgments`` gives them as ``Rating`` records. ``excluded`` counts what was read but is not a grade
    (``skip``, ``unrateable``, ``gold``).
    """

    path: str
    kind: str
    ratings: RatingTable
    labels: tuple[int, ...] | None = None
    excluded: Mapping[str, int] = field(default_factory=dict)

    @property
    def judgments(self) -> tuple[Rating, ...]:
        return tuple(self.ratings)


def is_campaign(path: str | Path) -> bool:
    """A campaign URL, SQLite magic bytes, or a campaign suffix when the file cannot be read (the store then
    explains)."""
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(path):
        return True
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
    """Read a judgments file (TSV, CSV, or the JSONL ``judgments export`` writes) with ``judgments import``'s
    rules.

    Every bad line is a ``path:line`` error (``toolkit.formats.judgments``), duplicates included; with
    ``labels``, a grade outside them is an error at its line (the library could only name the item). The file
    is read column-wise when the column reader can vouch for it (``toolkit.formats.judgment_table``).
    """
    import numpy as np
    import pyarrow as pa

    from toolkit.agreement.ratings import RatingTable
    from toolkit.formats.judgment_table import ACTIONS, read_judgment_table

    table = read_judgment_table(path, scale=labels, scale_name="the --labels scale")
    counts = np.bincount(table.action, minlength=len(ACTIONS))
    excluded = {ACTIONS[i]: int(c) for i, c in enumerate(counts.tolist()) if i and c}
    if not counts[0]:
        raise FormatError(
            path, None, "no graded judgments (every line is skip or unrateable); agreement needs grades"
        )
    graded = table.action == 0
    mask = pa.array(graded)
    ratings = RatingTable.from_arrays(
        table.assessor.filter(mask),
        table.query_id.filter(mask),
        table.doc_id.filter(mask),
        table.grade[graded],
    )
    return JudgmentSource(str(path), table.layout, ratings, None, excluded)


def read_campaign(path: str | Path, *, include_gold: bool = False) -> JudgmentSource:
    """Current ``judge`` decisions of every assessor in a campaign, and its grade scale."""
    from toolkit.agreement.ratings import RatingTable
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(path) as store:
        scale = tuple(sorted(store.grades()))
        current = store.current_judgments(include_gold=True)
        gold = set() if include_gold else set(store.gold())
    kept = [j for j in current if (j.query_id, j.doc_id) not in gold]
    ratings, excluded = ratings_from_records(kept)
    if len(kept) < len(current):
        excluded["gold"] = len(current) - len(kept)
    return JudgmentSource(
        str(path), "campaign", RatingTable.from_ratings(ratings), scale or None, dict(excluded)
    )


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


@dataclass(frozen=True)
class PairKappa:
    """Unweighted Cohen's kappa of two assessors on their shared graded items (``reason`` when undefined)."""

    a: str
    b: str
    n: int
    kappa: float | None
    reason: str | None = None


def pair_kappa(a: str, b: str, pairs: Sequence[tuple[int, int]], labels: Sequence[int]) -> PairKappa:
    """Kappa of one pair, over ``labels`` (the whole scale, not just the grades that occur).

    The minimum-data rule (``toolkit.minimum``) holds here as in ``agree``'s reports: a live number from four
    shared items would be read by the organiser as a finding that ``agree`` then refuses to print.
    """
    from toolkit.agreement.kappa import cohen_kappa, contingency

    result = cohen_kappa(contingency(pairs, labels), labels, "unweighted", minimum=True)
    return PairKappa(a, b, len(pairs), result.estimate.value, result.estimate.reason)


def pair_kappas(store: CampaignStore) -> list[PairKappa]:
    """Live kappa for the organiser: every pair of assessors on the items both have graded so far.

    Skips, unrateables and gold items are left out; the scale is the campaign's full grade scale, so an
    undefined kappa (fewer than 10 shared items, or one grade for everything) says why instead of showing 0 or
    NaN.
    """
    labels = sorted(store.grades())
    gold = set(store.gold())
    graded: dict[str, dict[tuple[str, str], int]] = {}
    for j in store.current_judgments(include_gold=True):
        if j.action == "judge" and j.grade is not None and (j.query_id, j.doc_id) not in gold:
            graded.setdefault(j.assessor, {})[(j.query_id, j.doc_id)] = j.grade
    out = []
    for a, b in itertools.combinations(sorted(store.assessors()), 2):
        ga, gb = graded.get(a, {}), graded.get(b, {})
        shared = sorted(set(ga) & set(gb))
        out.append(pair_kappa(a, b, [(ga[k], gb[k]) for k in shared], labels))
    return out
