"""Judging campaigns: the SQLite campaign store, assignment of pool items to assessors, qrels export policies.

The store (``toolkit.judging.store.CampaignStore``) is the one library API the CLI and the TUI share.
"""

from toolkit.judging.records import (
    ACTIONS,
    DECISIONS,
    AssessorGrade,
    CampaignTopic,
    Disagreement,
    Document,
    Item,
    Judgment,
    LogEvent,
    PoolItem,
    ProgressRow,
    Provenance,
    RoundInfo,
)
from toolkit.judging.store import CampaignStore

__all__ = [
    "ACTIONS",
    "DECISIONS",
    "AssessorGrade",
    "CampaignStore",
    "CampaignTopic",
    "Disagreement",
    "Document",
    "Item",
    "Judgment",
    "LogEvent",
    "PoolItem",
    "ProgressRow",
    "Provenance",
    "RoundInfo",
]
