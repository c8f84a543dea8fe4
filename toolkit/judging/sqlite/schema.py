"""The campaign schema in an SQLite file, versioned by ``PRAGMA user_version`` and upgraded by ordered migrations.

The tables and columns are the declaration's (``toolkit.judging.sql.tables``); the migrations are derived from
it (``toolkit.judging.sql.ddl``), with SQLite's own triggers added here. Migration ``i`` (1-based) moves a
database from version ``i - 1`` to ``i``; each runs in one transaction
together with the ``user_version`` bump, so a crash mid-migration leaves the old version intact. A file
with a newer version than this code knows is refused rather than guessed at.

The judgment log is append-only by construction: triggers make UPDATE and DELETE on it fail, and (since
version 2) an INSERT that names an existing event id — so ``INSERT OR REPLACE``/``REPLACE INTO``, whose
delete of the old row fires no delete trigger, cannot overwrite an event either. Even a buggy caller or a
stray ``sqlite3`` session cannot rewrite history (docs/design.md §5 "Nothing is lost").

Everything here runs after ``files.check_header`` accepted the file, and checks the file again in SQL
before writing: a newer schema or another program's database is refused untouched.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from toolkit.errors import StoreError
from toolkit.judging.sql import counts, ddl, decisions
from toolkit.judging.sql.dialect import SQLITE
from toolkit.judging.sql.tables import LATEST, Table
from toolkit.judging.sqlite import files
from toolkit.judging.sqlite.files import APPLICATION_ID, busy_error, foreign, read_only_error, sqlite_error

#: The version that added the REPLACE guard (SQLite's own: PostgreSQL's update trigger covers upserts).
REPLACE_GUARD = 2


def _guards(table: Table, version: int) -> list[str]:
    """The triggers that keep an append-only table append-only, as ``version`` adds them.

    REPLACE deletes the conflicting row without firing delete triggers (recursive_triggers is off by
    default, and per connection anyway): so an insert of an id the table already holds is refused too.
    """
    name = table.name
    refuse = f"BEGIN SELECT RAISE(ABORT, 'the {name.replace('_', ' ')} is append-only'); END"
    out = []
    if table.since == version:
        out.append(f"CREATE TRIGGER {name}_no_update BEFORE UPDATE ON {name} {refuse}")
        out.append(f"CREATE TRIGGER {name}_no_delete BEFORE DELETE ON {name} {refuse}")
    if version == max(table.since, REPLACE_GUARD):
        out.append(
            f"CREATE TRIGGER {name}_no_replace BEFORE INSERT ON {name} "
            f"WHEN EXISTS (SELECT 1 FROM {name} WHERE id = NEW.id) {refuse}"
        )
    return out


def _script(version: int) -> str:
    statements = ddl.migration(SQLITE, version)
    statements += [g for t in ddl.TABLES if t.append_only and t.since <= version for g in _guards(t, version)]
    if version == decisions.SINCE:  # the decisions in force: built from the log, then kept by a trigger
        statements += [decisions.build(), *decisions.sqlite_triggers()]
    if version == counts.SINCE:  # the report's counts: built from the campaign, then kept by triggers
        statements += [*counts.build(SQLITE), *counts.sqlite_triggers()]
    return "".join(f"{statement};\n" for statement in statements)


SCHEMA_VERSION = max(LATEST, REPLACE_GUARD)

#: Migration ``i`` (1-based) as one script, derived from the declaration (``toolkit.judging.sql.tables``).
MIGRATIONS: tuple[str, ...] = tuple(_script(v) for v in range(1, SCHEMA_VERSION + 1))


#: The oldest schema this code reads as it is. A read-only campaign cannot be migrated: the columns it lacks
#: read as NULL and the tables it lacks as empty (``SQLiteStore._columns_of``).
READABLE_FROM = 1


def _statements(script: str) -> list[str]:
    """Split a migration into statements (a trigger body holds semicolons of its own)."""
    out: list[str] = []
    buffer = ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \n;"):
                out.append(buffer.strip())
            buffer = ""
    return out


def _state(conn: sqlite3.Connection) -> tuple[int, int, int, str]:
    """user_version, application_id, table count and journal mode — one statement, so one snapshot."""
    row = conn.execute(
        "SELECT (SELECT user_version FROM pragma_user_version), "
        "(SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_master), "
        "(SELECT journal_mode FROM pragma_journal_mode)"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2]), str(row[3])


def _check(path: Path, version: int, app_id: int, tables: int, *, new: bool) -> None:
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"{path}: campaign schema version {version} is newer than this trec-toolkit supports "
            f"({SCHEMA_VERSION}); upgrade trec-toolkit"
        )
    if app_id != APPLICATION_ID and not (new and version == 0 and tables == 0):
        raise foreign(path)


def prepare(conn: sqlite3.Connection, path: Path, *, read_only: str | None, new: bool = False) -> None:
    """Check the schema, then (when writable) switch to WAL, set ``synchronous=FULL`` and migrate.

    ``new``: ``path`` is our own temporary file of ``files.building``, still empty. Nothing is written
    before the checks pass; the migrations re-check the version inside ``BEGIN IMMEDIATE``, so two
    processes upgrading one file at once migrate it once.
    """
    try:
        version, app_id, tables, journal = _state(conn)
    except sqlite3.Error as exc:
        raise sqlite_error(path, exc, "read the campaign") from None
    _check(path, version, app_id, tables, new=new)
    if read_only is not None:
        if version < READABLE_FROM:
            raise read_only_error(path, f"{read_only}, and its schema needs an upgrade first")
        return
    try:
        if journal != "wal":
            _set_wal(conn, path)
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as exc:
        raise sqlite_error(path, exc, "open the campaign") from None
    if version < SCHEMA_VERSION:
        migrate(conn, path, new=new)


def _set_wal(conn: sqlite3.Connection, path: Path) -> None:
    """``PRAGMA journal_mode = WAL``, waiting out another process that holds the file.

    Switching to WAL needs an exclusive lock, and SQLite reports "database is locked" at once (without the
    busy handler) while another connection reads or writes; so retry until the busy timeout, then say busy.
    Only files from before atomic creation get here: a new campaign is published in WAL mode already.
    """
    deadline = time.monotonic() + files.BUSY_TIMEOUT_S
    while True:
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode == "wal":
                return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        if time.monotonic() > deadline:
            raise busy_error(path)
        time.sleep(0.01)


def migrate(conn: sqlite3.Connection, path: Path, *, new: bool) -> None:
    """Bring the schema to ``SCHEMA_VERSION`` in one ``BEGIN IMMEDIATE`` transaction, checks inside it."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise sqlite_error(path, exc, "upgrade the campaign") from None
    try:
        version, app_id, tables, _ = _state(conn)
        _check(path, version, app_id, tables, new=new)
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[number - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.Error):
            raise sqlite_error(
                path, exc, f"upgrade the campaign to schema version {SCHEMA_VERSION}"
            ) from None
        raise
