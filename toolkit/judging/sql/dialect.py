"""What truly differs between the two SQL databases a campaign can live in, and nothing else.

A ``Dialect`` is consulted by the statements both backends share (``toolkit.judging.sql.store``) and by the DDL
they derive from the declaration (``toolkit.judging.sql.ddl``): the parameter marker, the column types, the
row id column, how "one of these values" is written (``IN (?, ?, …)`` against ``= ANY(%s)``), and what the
read models (``toolkit.judging.sql.readmodels``) need said differently: a null-safe "differs", text ordered
by code point whatever the server's collation, and a time's seconds.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolkit.judging.sql.tables import BIGINT, FLAG, INTEGER, REAL, SERIAL, TEXT, UUID, Column


@dataclass(frozen=True)
class Dialect:
    name: str
    #: The parameter marker of the driver (sqlite3's qmark, psycopg's format style).
    mark: str
    #: Column type → SQL type.
    types: Mapping[str, str]
    #: A flag's literal values (false, true).
    flags: tuple[str, str]
    #: ``col = ANY(%s)`` with one array parameter (else ``col IN (?, ?, …)``, one parameter per value).
    array_parameters: bool = False
    #: Column type → the default the database generates for it (PostgreSQL's event keys).
    generated: Mapping[str, str] = field(default_factory=dict)
    #: The null-safe "differs" operator (NULL and NULL are the same; NULL and a value differ).
    differs: str = "IS NOT"
    #: Appended to a text expression in ORDER BY: code-point order, as Python sorts (SQLite's BINARY is).
    binary: str = ""
    #: A log time (ISO 8601 text) as seconds, ``{}`` the text; within a few milliseconds is enough (NULL
    #: where the database cannot read it): the read models use it only to find candidates they check exactly.
    seconds: str = "(julianday({}) * 86400.0)"
    #: A text expression's values over the rows, joined into one text by a separator (``{}`` the expression,
    #: then the separator's literal): one value per column instead of a row each (``toolkit.judging.sql.columns``).
    joined: str = "group_concat({}, {})"

    def marks(self, n: int) -> str:
        return ", ".join([self.mark] * n)

    def default(self, column: Column) -> str:
        value = column.default
        if column.type == FLAG:
            return self.flags[int(bool(value))]
        if isinstance(value, str):
            return "'" + value.replace("'", "''") + "'"
        return str(value)

    def column_ddl(self, column: Column, *, key: bool = False) -> str:
        parts = [column.name, self.types[column.type]]
        if column.type == SERIAL:
            return " ".join(parts)  # the type says it all: the row id, the key
        if key:
            parts.append("PRIMARY KEY")
        elif not column.null:
            parts.append("NOT NULL")
        if column.default is not None:
            parts.append(f"DEFAULT {self.default(column)}")
        elif column.type in self.generated:
            parts.append(f"DEFAULT {self.generated[column.type]}")
        if column.unique:
            parts.append("UNIQUE")
        if column.references:
            parts.append(f"REFERENCES {column.references}")
        return " ".join(parts)

    def one_of(self, column: str, values: Collection[Any]) -> tuple[str, list[Any]]:
        """The condition "``column`` is one of ``values``" and its parameters."""
        wanted = sorted(values)
        if self.array_parameters:
            return f"{column} = ANY({self.mark})", [wanted]
        return f"{column} IN ({self.marks(len(wanted))})", wanted


SQLITE = Dialect(
    name="sqlite",
    mark="?",
    types={
        TEXT: "TEXT",
        INTEGER: "INTEGER",
        BIGINT: "INTEGER",
        REAL: "REAL",
        FLAG: "INTEGER",
        SERIAL: "INTEGER PRIMARY KEY AUTOINCREMENT",
    },
    flags=("0", "1"),
)

POSTGRESQL = Dialect(
    name="postgresql",
    mark="%s",
    types={
        TEXT: "text",
        INTEGER: "integer",
        BIGINT: "bigint",
        REAL: "double precision",
        FLAG: "boolean",
        SERIAL: "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        UUID: "uuid",
    },
    flags=("false", "true"),
    joined="string_agg({}, {})",
    array_parameters=True,
    generated={UUID: "gen_random_uuid()"},
    differs="IS DISTINCT FROM",
    binary=' COLLATE "C"',
    seconds="extract(epoch FROM CAST({} AS timestamptz))",
)
