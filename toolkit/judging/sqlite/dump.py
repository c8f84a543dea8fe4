"""Every row of an SQLite campaign out (``dump``) and into a new one (``restore``), for ``campaign copy``.

The tables and columns are ``toolkit.judging.dump.TABLES``, the same for every backend. Reading happens in one
read transaction (``BEGIN`` … ``COMMIT``: one WAL snapshot, so assessors may keep judging while a campaign is
copied); writing happens in the store's one write transaction, with the ids of the log and the snapshots kept,
so undo links and the ``judgments export --log`` output survive the copy.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from toolkit.errors import StoreError
from toolkit.judging.dump import TABLES, CampaignDump, canonical_dump

if TYPE_CHECKING:
    from toolkit.judging.sqlite.store import SQLiteStore


def dump(store: SQLiteStore) -> CampaignDump:
    """The campaign's rows from one consistent snapshot."""
    with store._lock:
        conn = store._conn
        own = not conn.in_transaction
        try:
            if own:
                conn.execute("BEGIN")
            tables = {
                table: conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
                for table, (columns, _) in TABLES.items()
            }
        except sqlite3.Error as exc:
            raise StoreError(f"{store.path}: cannot read the campaign ({exc})") from None
        finally:
            if own and conn.in_transaction:
                conn.execute("COMMIT")
    return canonical_dump(tables)


def restore(store: SQLiteStore, dump: CampaignDump) -> None:
    """Write ``dump`` into this campaign, which must be empty; rolled back unless it reads back identical."""
    with store.transaction() as conn:
        for table in TABLES:
            if conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                raise StoreError(f"{store.path}: is not empty ({table}); copy into a new campaign")
        for table, (columns, _) in TABLES.items():
            marks = ",".join("?" * len(columns))
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", dump.tables[table]
            )
        if store.dump().content_hash() != dump.content_hash():
            raise StoreError(f"{store.path}: the copy does not read back identical; nothing was written")
