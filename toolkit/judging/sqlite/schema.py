"""The campaign database schema, versioned by ``PRAGMA user_version`` and upgraded by ordered migrations.

Migration ``i`` (1-based) moves a database from version ``i - 1`` to ``i``; each runs in one transaction
together with the ``user_version`` bump, so a crash mid-migration leaves the old version intact. A file
with a newer version than this code knows is refused rather than guessed at.

The judgment log is append-only by construction: triggers make UPDATE and DELETE on it fail, so even a
buggy caller cannot rewrite history (DESIGN §5 "Nothing is lost").
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from toolkit.errors import StoreError

#: Marks a campaign database (``PRAGMA application_id``), so a stray SQLite file is not mistaken for one.
APPLICATION_ID = 0x54524543  # "TREC"

MIGRATIONS: tuple[str, ...] = (
    # 1: the initial schema (DESIGN §8).
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE topics (
        query_id TEXT PRIMARY KEY, ord INTEGER NOT NULL, query TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '', narrative TEXT NOT NULL DEFAULT '', query_class TEXT
    );
    CREATE TABLE grades (grade INTEGER PRIMARY KEY, definition TEXT NOT NULL);
    CREATE TABLE rounds (
        round INTEGER PRIMARY KEY, created TEXT NOT NULL, strategy TEXT NOT NULL, depth INTEGER,
        budget INTEGER, runs TEXT NOT NULL, added INTEGER NOT NULL DEFAULT 0,
        stale INTEGER NOT NULL DEFAULT 0, skipped INTEGER NOT NULL DEFAULT 0, params TEXT
    );
    CREATE TABLE pool_items (
        query_id TEXT NOT NULL REFERENCES topics(query_id), doc_id TEXT NOT NULL,
        round INTEGER NOT NULL, stale INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (query_id, doc_id)
    );
    CREATE TABLE provenance (
        round INTEGER NOT NULL, query_id TEXT NOT NULL, doc_id TEXT NOT NULL, run TEXT NOT NULL,
        rank INTEGER NOT NULL, PRIMARY KEY (round, query_id, doc_id, run)
    );
    CREATE TABLE snapshots (
        id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, round INTEGER NOT NULL,
        title TEXT NOT NULL DEFAULT '', text TEXT NOT NULL DEFAULT '', content_hash TEXT,
        fetch_error TEXT, fetched TEXT NOT NULL
    );
    CREATE INDEX snapshots_doc ON snapshots (doc_id, id);
    CREATE TABLE gold (
        query_id TEXT NOT NULL, doc_id TEXT NOT NULL, grade INTEGER NOT NULL,
        PRIMARY KEY (query_id, doc_id)
    );
    CREATE TABLE assignments (
        assessor TEXT NOT NULL, query_id TEXT NOT NULL, doc_id TEXT NOT NULL,
        position INTEGER NOT NULL, overlap INTEGER NOT NULL DEFAULT 0, gold INTEGER NOT NULL DEFAULT 0,
        round INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (assessor, query_id, doc_id)
    );
    CREATE INDEX assignments_order ON assignments (assessor, position);
    CREATE TABLE judgment_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        time TEXT NOT NULL, assessor TEXT NOT NULL, query_id TEXT NOT NULL, doc_id TEXT NOT NULL,
        action TEXT NOT NULL CHECK (action IN ('judge','skip','unrateable','undo','note','adjudicate')),
        grade INTEGER, note TEXT, duration_ms INTEGER, position INTEGER, content_hash TEXT,
        undoes INTEGER REFERENCES judgment_log(id),
        CHECK ((action IN ('judge','adjudicate')) = (grade IS NOT NULL))
    );
    CREATE INDEX judgment_log_assessor ON judgment_log (assessor, id);
    CREATE TRIGGER judgment_log_no_update BEFORE UPDATE ON judgment_log
        BEGIN SELECT RAISE(ABORT, 'the judgment log is append-only'); END;
    CREATE TRIGGER judgment_log_no_delete BEFORE DELETE ON judgment_log
        BEGIN SELECT RAISE(ABORT, 'the judgment log is append-only'); END;
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)

#: Seconds a writer waits for another process's transaction before giving up.
BUSY_TIMEOUT_S = 30.0


def connect(path: Path) -> sqlite3.Connection:
    """Open with the durability settings every connection needs: WAL, ``synchronous=FULL``, busy timeout.

    ``isolation_level=None`` puts transactions under our control (``BEGIN IMMEDIATE`` … ``COMMIT``), so
    a write takes the lock up front instead of failing half-way with SQLITE_BUSY on upgrade.
    """
    try:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _set_wal(conn)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path}: not a campaign database ({exc}); pass the .sqlite file `pool` created"
        ) from None
    return conn


def _set_wal(conn: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode = WAL``, waiting out another process that is creating the same file.

    Switching a new file to WAL needs an exclusive lock, and SQLite reports "database is locked" at once
    (without the busy handler) while another connection holds the file in its first transaction.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def migrate(conn: sqlite3.Connection, path: Path, *, new: bool) -> None:
    """Bring the schema to ``SCHEMA_VERSION``; refuse foreign or newer files."""
    try:
        # One statement, so one snapshot: another process may be creating the file at this very moment.
        version, app_id, tables = conn.execute(
            "SELECT (SELECT user_version FROM pragma_user_version), "
            "(SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_master)"
        ).fetchone()
        has_tables = tables > 0
    except sqlite3.DatabaseError as exc:
        raise StoreError(
            f"{path}: not a campaign database ({exc}); pass the .sqlite file `pool` created"
        ) from None
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: campaign schema version {version} is newer than this trec-toolkit supports "
            f"({SCHEMA_VERSION}); upgrade trec-toolkit"
        )
    if (version == 0 and has_tables) or (version > 0 and app_id != APPLICATION_ID):
        raise StoreError(
            f"{path}: an SQLite file but not a campaign database; pass the .sqlite file `pool` created"
        )
    if version == 0 and not new:
        raise StoreError(f"{path}: empty campaign database; create it with `trec-toolkit pool … -o {path}`")
    for number in range(version + 1, SCHEMA_VERSION + 1):
        script = MIGRATIONS[number - 1]
        try:
            conn.executescript(
                f"BEGIN IMMEDIATE;\n{script}\nPRAGMA application_id = {APPLICATION_ID};\n"
                f"PRAGMA user_version = {number};\nCOMMIT;"
            )
        except sqlite3.DatabaseError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if conn.execute("PRAGMA user_version").fetchone()[0] >= number:
                continue  # another process migrated (or created) the file at the same moment
            raise StoreError(f"{path}: migration to schema version {number} failed ({exc})") from None
