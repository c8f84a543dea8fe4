"""Every row of a PostgreSQL campaign out (``dump``) and into a new one (``restore``), for ``campaign copy``.

The tables and columns are ``toolkit.judging.dump.TABLES``, the same for every backend. Reading happens in one
``REPEATABLE READ READ ONLY`` transaction (one snapshot while assessors keep judging); writing uses ``COPY``
into the store's one write transaction, with the ids of the log and the snapshots kept (``COPY`` writes
identity columns as given), and the identity sequences moved past them so new events follow on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import sql

from toolkit.errors import StoreError
from toolkit.judging.dump import TABLES, CampaignDump, canonical_dump

if TYPE_CHECKING:
    from toolkit.judging.postgres.store import PostgresStore

#: Flags are booleans here and 0/1 in the canonical rows.
_FLAGS = {("pool_items", "stale"), ("assignments", "overlap"), ("assignments", "gold")}
#: Identity columns whose sequences must follow the copied ids.
_IDENTITIES = (("snapshots", "id"), ("judgment_log", "id"))


def _select(table: str, columns: tuple[str, ...]) -> sql.Composed:
    fields = [
        sql.SQL("{}::int").format(sql.Identifier(c)) if (table, c) in _FLAGS else sql.Identifier(c)
        for c in columns
    ]
    return sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(fields), sql.Identifier(table))


def dump(store: PostgresStore) -> CampaignDump:
    """The campaign's rows from one consistent snapshot."""

    def read(conn: psycopg.Connection[Any]) -> dict[str, list[tuple[Any, ...]]]:
        if store._link.depth:  # inside a write (restore's check): read what it wrote
            return {t: conn.execute(_select(t, cols)).fetchall() for t, (cols, _) in TABLES.items()}
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            return {t: conn.execute(_select(t, cols)).fetchall() for t, (cols, _) in TABLES.items()}

    return canonical_dump(store._link.read(read))


def restore(store: PostgresStore, dump_: CampaignDump) -> None:
    """Write ``dump`` into this campaign, which must be empty; rolled back unless it reads back identical."""
    with store.transaction() as conn:
        try:
            for table in TABLES:
                found = conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(sql.Identifier(table)))
                if found.fetchone():
                    raise StoreError(f"{store.location}: is not empty ({table}); copy into a new campaign")
            with conn.cursor() as cur:
                for table, (columns, _) in TABLES.items():
                    flags = [i for i, c in enumerate(columns) if (table, c) in _FLAGS]
                    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
                        sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns))
                    )
                    with cur.copy(statement) as copy:
                        for row in dump_.tables[table]:
                            copy.write_row(
                                [bool(v) if i in flags else v for i, v in enumerate(row)] if flags else row
                            )
            for table, column in _IDENTITIES:
                conn.execute(
                    sql.SQL(
                        "SELECT setval(pg_get_serial_sequence({t}, {c}), COALESCE(MAX({col}), 0) + 1, false) "
                        "FROM {table}"
                    ).format(
                        t=sql.Literal(f'"{store.campaign}".{table}'),
                        c=sql.Literal(column),
                        col=sql.Identifier(column),
                        table=sql.Identifier(table),
                    )
                )
        except psycopg.Error as exc:
            raise store._link.failure(exc, "the copy failed and was rolled back") from None
        if dump(store).content_hash() != dump_.content_hash():
            raise StoreError(f"{store.location}: the copy does not read back identical; nothing was written")
