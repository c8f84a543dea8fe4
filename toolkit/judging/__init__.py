"""Judging campaigns: the campaign store and its read models, the judging rules, assignment, export.

- ``store.CampaignStore``: the store interface (writes, raw reads, the rules every backend shares);
  ``sqlite.SQLiteStore`` and ``postgres.PostgresStore`` implement it over what they share (``sql``: the schema
  declared once, every statement). ``CampaignStore.open(location)`` is the one way in for the CLI and TUI.
- Read models over a store: ``queue`` (item status, resume order, stale items), ``progress`` (per assessor
  and topic, the organiser's report), ``disagreements``.
- Sessions, the logic behind the judging screens without Textual: ``session.JudgingSession`` and
  ``adjudication.AdjudicationSession``.
- ``assign`` (who judges what), ``exchange`` (judgments import), ``export`` (qrels under a merge policy),
  ``log`` (current judgments from the append-only log).
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
from toolkit.judging.store import NO_DECISION, CampaignStore, ConflictError

__all__ = [
    "ACTIONS",
    "DECISIONS",
    "NO_DECISION",
    "AssessorGrade",
    "CampaignStore",
    "ConflictError",
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
