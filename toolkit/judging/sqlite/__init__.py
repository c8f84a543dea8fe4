"""The SQLite backend of the campaign store: the schema and its migrations (``schema``), the SQL (``store``).

Every SQL statement of this backend lives in this package; the rules it shares with other backends live in
``toolkit.judging.store.CampaignStore``.
"""

from toolkit.judging.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
