"""``Campaign``: a judging campaign from a notebook — its judgments and its log as DataFrames.

A ``Campaign`` is a location, not an open connection: every call opens the store through
``CampaignStore.open(location)`` (an SQLite file, or a ``postgresql://…?campaign=NAME`` URL once that backend
is installed — the store chooses by the location) and closes it before returning. A notebook kernel that
stays up for hours then holds no database connection or lock between cells, and always reads what the
assessors have committed so far.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from toolkit.api.results import AgreementResult
    from toolkit.judging.store import CampaignStore

#: Columns of ``Campaign.judgments()``: the fields of ``toolkit.judging.records.Judgment``.
JUDGMENT_COLUMNS = (
    "assessor", "query_id", "doc_id", "grade", "action", "note", "time", "duration_ms", "event_id",
    "content_hash",
)  # fmt: skip
#: Columns of ``Campaign.log()``: the fields of ``toolkit.judging.records.LogEvent``.
LOG_COLUMNS = (
    "event_id", "time", "assessor", "query_id", "doc_id", "action", "grade", "note", "duration_ms",
    "position", "content_hash", "undoes",
)  # fmt: skip
#: Integer columns that may be missing (a skip has no grade): pandas' nullable integers keep them integers.
_NULLABLE_INTS = ("grade", "duration_ms", "event_id", "position", "undoes")


@dataclass(frozen=True)
class Campaign:
    """A judging campaign at ``location``; open one with ``Campaign.open(location)``."""

    location: str

    @classmethod
    def open(cls, location: str | os.PathLike[str]) -> Campaign:
        """The campaign at ``location`` (a ``.sqlite`` file or a ``postgresql://`` URL), checked to exist."""
        campaign = cls(os.fspath(location))
        with campaign.store():
            pass
        return campaign

    def store(self) -> CampaignStore:
        """The campaign store itself (close it, or use ``with``), for everything the DataFrames leave out."""
        from toolkit.judging.store import CampaignStore

        return CampaignStore.open(self.location)

    def judgments(self, *, include_gold: bool = False) -> pd.DataFrame:
        """Every assessor's current decision per item (undone ones gone, adjudications apart), one row each.

        Columns ``JUDGMENT_COLUMNS``; ``grade`` is empty (``<NA>``) for a skip or unrateable, ``time`` is a
        UTC timestamp, ``note`` the latest note on the item. Gold items only with ``include_gold``.
        """
        with self.store() as store:
            records = store.current_judgments(include_gold=include_gold)
        return _frame(records, JUDGMENT_COLUMNS)

    def log(self) -> pd.DataFrame:
        """The append-only judgment log, oldest first: every decision, undo, note and adjudication."""
        with self.store() as store:
            events = store.log()
        return _frame(events, LOG_COLUMNS)

    def agree(self, **options: Any) -> AgreementResult:
        """Inter-assessor agreement of this campaign (``toolkit.agree``'s options: ``labels``, ``seed`` …)."""
        from toolkit.api.evaluation import agree

        return agree(self, **options)


def _frame(records: list[Any], columns: tuple[str, ...]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame([[getattr(r, c) for c in columns] for r in records], columns=list(columns))
    types = {c: "Int64" for c in _NULLABLE_INTS if c in columns}
    frame = frame.astype({**types, **{c: "string" for c in columns if c not in types and c != "time"}})
    frame["time"] = pd.to_datetime(frame["time"], utc=True, format="ISO8601")
    return frame
