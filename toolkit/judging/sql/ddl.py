"""The DDL of every schema version, derived from the declaration (``toolkit.judging.sql.tables``).

Migration ``v`` creates the tables added at ``v`` (with the columns they had then), adds the columns of ``v``
to older tables, and creates the indexes of ``v``; the backend appends what it adds of its own (triggers,
row-level security). A backend runs the migrations one after another, each in one transaction with its version
bump — for a new campaign too — so a new campaign and an upgraded old one have the same tables, columns and
column order.
"""

from __future__ import annotations

from toolkit.judging.sql.dialect import Dialect
from toolkit.judging.sql.tables import SERIAL, TABLES, Table


def create_table(dialect: Dialect, table: Table, version: int) -> str:
    """``CREATE TABLE`` for ``table`` as it was at schema ``version``."""
    columns = [c for c in table.stored(dialect.name) if c.since <= version]
    inline_key = len(table.key) == 1 and table.column(table.key[0]).type != SERIAL
    lines = [dialect.column_ddl(c, key=inline_key and c.name == table.key[0]) for c in columns]
    if len(table.key) > 1:
        lines.append(f"PRIMARY KEY ({', '.join(table.key)})")
    lines.extend(f"CHECK ({check})" for check in table.checks)
    body = ",\n    ".join(lines)
    return f"CREATE TABLE {table.name} (\n    {body}\n)"


def migration(dialect: Dialect, version: int) -> list[str]:
    """The statements that take a campaign from ``version - 1`` to ``version`` (the declared part)."""
    out: list[str] = []
    for table in TABLES:
        if table.since == version:
            out.append(create_table(dialect, table, version))
        elif table.since < version:
            out.extend(
                f"ALTER TABLE {table.name} ADD COLUMN {dialect.column_ddl(c)}"
                for c in table.stored(dialect.name)
                if c.since == version
            )
        if table.since <= version:
            out.extend(
                f"CREATE INDEX IF NOT EXISTS {index.name} ON {table.name} ({', '.join(index.columns)})"
                for index in table.indexes
                if max(index.since, table.since) == version
            )
    return out


def created_at(version: int) -> list[Table]:
    """The tables migration ``version`` creates (for a backend's own additions, e.g. append-only triggers)."""
    return [t for t in TABLES if t.since == version]
