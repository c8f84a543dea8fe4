"""The campaign schema, declared once: every table and column a campaign holds, whatever database holds it.

Both backends derive everything from ``TABLES``: their DDL and migrations (``toolkit.judging.sql.ddl``), the
column lists of their INSERTs and SELECTs (``toolkit.judging.sql.store``), the canonical dump that
``campaign copy`` moves and ``campaign hash`` hashes (``toolkit.judging.dump``), PostgreSQL's row-level
security (``toolkit.judging.postgres.security``), and the tests that round-trip every column of every table
through both backends. Adding a column is one line here — ``Column("inclusion", REAL, null=True, since=5)``
in ``pool_items`` — and both backends gain it by a migration, the dump and the hash cover it, and the
round-trip tests exercise it.

Versions: a campaign's schema version counts the same on both backends. A table or column carries the version
that added it (``since``); migration ``v`` creates the tables of version ``v`` and adds its columns to older
tables, plus what a backend adds of its own at ``v`` (SQLite's REPLACE guard at 2, PostgreSQL's row-level
security at 4). So the SQLite and PostgreSQL campaigns of one version hold the same tables and columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toolkit.judging.records import ACTIONS

#: Column types. A flag is 0/1 in SQLite and boolean in PostgreSQL, and 0/1 in the dump; ``SERIAL`` is the
#: table's own row id (kept by a copy); ``UUID`` only exists where a backend needs it (PostgreSQL's event keys).
TEXT, INTEGER, BIGINT, REAL, FLAG, SERIAL, UUID = (
    "text",
    "integer",
    "bigint",
    "real",
    "flag",
    "serial",
    "uuid",
)
TYPES = (TEXT, INTEGER, BIGINT, REAL, FLAG, SERIAL, UUID)

#: Who among the assessors may read a table's rows (organisers read everything; PostgreSQL enforces this with
#: row-level security, SQLite has no logins): the members of the campaign, an assessor's own rows (its
#: ``assessor`` column, its ``login``), adjudicators, or nobody (runs and ranks stay hidden).
MEMBERS, OWN, ADJUDICATORS, ORGANISERS = "members", "own", "adjudicators", "organisers"


@dataclass(frozen=True)
class Column:
    """One column. ``default`` is a literal (text, integer, or 0/1 for a flag); ``only`` names the one backend
    that has the column (never dumped: a copy makes its own); ``hidden``: organisers alone read it (an
    assessor may read the rest of the table); ``since`` the schema version that added it."""

    name: str
    type: str
    null: bool = False
    default: str | int | None = None
    references: str | None = None
    unique: bool = False
    only: str | None = None
    hidden: bool = False
    since: int = 1

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"column {self.name}: unknown type {self.type!r}")
        if self.since > 1 and not self.null and self.default is None:
            raise ValueError(f"column {self.name}: a column added later needs null=True or a default")


@dataclass(frozen=True)
class Index:
    name: str
    columns: tuple[str, ...]
    since: int = 1


@dataclass(frozen=True)
class Table:
    """One table: ``key`` is its primary key (a ``SERIAL`` column is the key by itself), ``order`` the columns
    its dumped rows are sorted by (the key unless said), ``checks`` SQL conditions both backends enforce.
    ``derived``: computed from other tables by the database itself (``toolkit.judging.sql.decisions``), so
    never dumped, hashed or copied — a copy or a migration rebuilds it."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    readers: str = MEMBERS
    order: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    indexes: tuple[Index, ...] = ()
    append_only: bool = False
    derived: bool = False
    since: int = 1

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.name}: a column is declared twice")
        for name in (*self.key, *self.order, *(c for i in self.indexes for c in i.columns)):
            if name not in names:
                raise ValueError(f"table {self.name}: no column {name!r}")

    @property
    def sort_key(self) -> tuple[str, ...]:
        return self.order or self.key

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name}.{name}")

    def stored(self, backend: str) -> tuple[Column, ...]:
        """The columns this backend's table has."""
        return tuple(c for c in self.columns if c.only in (None, backend))

    @property
    def dumped(self) -> tuple[Column, ...]:
        """The columns of the canonical dump: every column both backends have."""
        return tuple(c for c in self.columns if c.only is None)

    def names(self, *, dumped: bool = True) -> tuple[str, ...]:
        return tuple(c.name for c in (self.dumped if dumped else self.columns))


def listed(values: Sequence[str]) -> str:
    """SQL literals of fixed words (actions, statuses) for an ``IN (…)`` list or a CHECK: ``'a', 'b'``."""
    return ", ".join(f"'{v}'" for v in values)


_ACTIONS = listed(ACTIONS)

#: Every table, in dump and restore order (topics before the pool that refers to them).
TABLES: tuple[Table, ...] = (
    Table("meta", (Column("key", TEXT), Column("value", TEXT)), key=("key",)),
    Table("grades", (Column("grade", INTEGER), Column("definition", TEXT)), key=("grade",)),
    Table(
        "topics",
        (
            Column("query_id", TEXT),
            Column("ord", INTEGER),
            Column("query", TEXT),
            Column("description", TEXT, default=""),
            Column("narrative", TEXT, default=""),
            Column("query_class", TEXT, null=True),
        ),
        key=("query_id",),
        order=("ord", "query_id"),
    ),
    Table(
        "rounds",
        (
            Column("round", INTEGER),
            Column("created", TEXT),
            Column("strategy", TEXT),
            Column("depth", INTEGER, null=True),
            Column("budget", INTEGER, null=True),
            Column("runs", TEXT, hidden=True),
            Column("added", INTEGER, default=0),
            Column("stale", INTEGER, default=0),
            Column("skipped", INTEGER, default=0),
            Column("params", TEXT, null=True, hidden=True),
        ),
        key=("round",),
    ),
    Table(
        "pool_items",
        (
            Column("query_id", TEXT, references="topics(query_id)"),
            Column("doc_id", TEXT),
            Column("round", INTEGER),
            Column("stale", FLAG, default=0),
        ),
        key=("query_id", "doc_id"),
    ),
    Table(
        "provenance",
        (
            Column("round", INTEGER),
            Column("query_id", TEXT),
            Column("doc_id", TEXT),
            Column("run", TEXT),
            Column("rank", INTEGER),
        ),
        key=("round", "query_id", "doc_id", "run"),
        readers=ORGANISERS,
    ),
    Table(
        "snapshots",
        (
            Column("id", SERIAL),
            Column("doc_id", TEXT),
            Column("round", INTEGER),
            Column("title", TEXT, default=""),
            Column("text", TEXT, default=""),
            Column("content_hash", TEXT, null=True),
            Column("fetch_error", TEXT, null=True),
            Column("fetched", TEXT),
            Column("format", TEXT, null=True, since=3),
            Column("version", TEXT, null=True, since=3),
        ),
        key=("id",),
        indexes=(Index("snapshots_doc", ("doc_id", "id")),),
    ),
    Table(
        "gold",
        (Column("query_id", TEXT), Column("doc_id", TEXT), Column("grade", INTEGER)),
        key=("query_id", "doc_id"),
        readers=ADJUDICATORS,
    ),
    Table(
        "assignments",
        (
            Column("assessor", TEXT),
            Column("query_id", TEXT),
            Column("doc_id", TEXT),
            Column("position", INTEGER),
            Column("overlap", FLAG, default=0),
            Column("gold", FLAG, default=0),
            Column("round", INTEGER, default=1),
        ),
        key=("assessor", "query_id", "doc_id"),
        indexes=(
            Index("assignments_order", ("assessor", "position")),
            # who has an item: the pool's unassigned items, counted on every refresh of a judging screen
            Index("assignments_item", ("query_id", "doc_id"), since=5),
        ),
    ),
    Table(
        "judgment_log",
        (
            Column("id", SERIAL),
            Column("event_key", UUID, unique=True, only="postgresql"),
            Column("time", TEXT),
            Column("assessor", TEXT),
            Column("query_id", TEXT),
            Column("doc_id", TEXT),
            Column("action", TEXT),
            Column("grade", INTEGER, null=True),
            Column("note", TEXT, null=True),
            Column("duration_ms", BIGINT, null=True),
            Column("position", INTEGER, null=True),
            Column("content_hash", TEXT, null=True),
            Column("undoes", BIGINT, null=True, references="judgment_log(id)"),
        ),
        key=("id",),
        readers=OWN,
        checks=(
            f"action IN ({_ACTIONS})",
            "(action IN ('judge','adjudicate')) = (grade IS NOT NULL)",
        ),
        indexes=(
            Index("judgment_log_assessor", ("assessor", "id")),
            Index("judgment_log_item", ("assessor", "query_id", "doc_id", "id"), since=4),
        ),
        append_only=True,
    ),
    Table(
        "order_steps",
        (
            Column("round", INTEGER),
            Column("query_id", TEXT),
            Column("step", INTEGER),
            Column("run", TEXT),
            Column("rank", INTEGER),
            Column("doc_id", TEXT),
            Column("cost", INTEGER),
            Column("known", FLAG, null=True),
        ),
        key=("round", "query_id", "step"),
        readers=ORGANISERS,
        since=5,
    ),
    Table(
        "inclusion",
        (
            Column("round", INTEGER),
            Column("query_id", TEXT),
            Column("doc_id", TEXT),
            Column("probability", REAL),
            Column("stratum", TEXT),
        ),
        key=("round", "query_id", "doc_id"),
        readers=ORGANISERS,
        checks=("probability > 0 AND probability <= 1",),
        since=5,
    ),
    Table(
        # the log's decisions in force, one row per stack (``toolkit.judging.sql.decisions``): the top of the
        # stack, the assessor's decision in force, their adjudication in force and latest note (event ids), and
        # what the read models read of the first two events, so that a read needs no join back to the log
        "decisions_in_force",
        (
            Column("assessor", TEXT),
            Column("query_id", TEXT),
            Column("doc_id", TEXT),
            Column("top_id", BIGINT, null=True),
            Column("top_action", TEXT, null=True),
            Column("top_ms", BIGINT, null=True),
            Column("top_hash", TEXT, null=True),
            Column("decision_id", BIGINT, null=True),
            Column("decision", TEXT, null=True),
            Column("grade", INTEGER, null=True),
            Column("decision_ms", BIGINT, null=True),
            Column("adjudication_id", BIGINT, null=True),
            Column("note_id", BIGINT, null=True),
        ),
        key=("assessor", "query_id", "doc_id"),
        readers=OWN,
        # the stacks of an item, for what groups by item (disagreements, an export's policy) without a sort
        indexes=(Index("decisions_in_force_item", ("query_id", "doc_id", "decision", "grade"), since=7),),
        derived=True,
        since=6,
    ),
    Table(
        # per assessor and topic: their assigned items, and how many of those have each decision on top of
        # the stack, with the reading time of the settling ones (``toolkit.judging.sql.counts``)
        "queue_counts",
        (
            Column("assessor", TEXT),
            Column("query_id", TEXT),
            Column("assigned", INTEGER),
            Column("judged", INTEGER),
            Column("skipped", INTEGER),
            Column("unrateable", INTEGER),
            Column("settled_ms", BIGINT),
        ),
        key=("assessor", "query_id"),
        readers=OWN,
        derived=True,
        since=7,
    ),
    Table(
        # an assessor's log events in windows shorter than a session's gap, by blocks of event ids
        # (``toolkit.judging.sql.counts``)
        "session_windows",
        (
            Column("assessor", TEXT),
            Column("bucket", BIGINT),
            Column("block", BIGINT),
            Column("first_id", BIGINT),
            Column("last_id", BIGINT),
            Column("decisions", INTEGER),
            Column("ms", BIGINT),
        ),
        key=("assessor", "bucket", "block"),
        readers=OWN,
        derived=True,
        since=7,
    ),
    Table(
        "logins",
        (
            Column("login", TEXT),
            Column("assessor", TEXT),
            Column("adjudicator", FLAG, default=0),
        ),
        key=("login",),
        readers=OWN,
        since=4,
    ),
)

BY_NAME = {table.name: table for table in TABLES}

#: The tables a campaign's content is: what the dump holds, the hash covers and a copy moves (not ``derived``).
DUMPED: tuple[Table, ...] = tuple(t for t in TABLES if not t.derived)

#: A version that changed no table: PostgreSQL's ``campaign_member()`` compares the login under the database's
#: collation, so an index finds it (``toolkit.judging.postgres.security``). Both backends count one numbering
#: (SQLite's migration 8 is empty), so the next column is declared after it and means the same version on both.
MEMBER_INDEXED = 8

#: The newest version: the declaration's own, or a version that changed no table.
LATEST = max(
    MEMBER_INDEXED,
    *(max(t.since, *(c.since for c in t.columns), *(i.since for i in t.indexes)) for t in TABLES),
)


def table(name: str) -> Table:
    return BY_NAME[name]
