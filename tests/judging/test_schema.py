"""The campaign schema declared once: every column of every table, generated from the declaration, goes into
both backends and comes back out, across ``campaign copy``, and into the content hash.

Nothing here lists a column by hand: the rows are generated from ``toolkit.judging.sql.tables.DUMPED`` (every table but the derived ones), so a
column added there is written, read back, copied and hashed by these tests without anyone remembering to.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.dump import CampaignDump, canonical_dump, copy_campaign
from toolkit.judging.sql import ddl
from toolkit.judging.sql.dialect import POSTGRESQL, SQLITE
from toolkit.judging.sql.tables import (
    BIGINT,
    DUMPED,
    FLAG,
    INTEGER,
    LATEST,
    REAL,
    SERIAL,
    TABLES,
    TEXT,
    Column,
    table,
)
from toolkit.judging.store import CampaignStore

#: The only values the generator cannot derive: what the CHECKs demand (an adjudication has a grade; an
#: inclusion probability is in (0, 1]).
_CHECKED = {("judgment_log", "action"): "adjudicate", ("inclusion", "probability"): 0.375}


def _value(table_index: int, column_index: int, column: Column, name: str) -> object:
    """A value unlike any default, distinct per column, that only a faithful round trip returns unchanged."""
    if (name, column.name) in _CHECKED:
        return _CHECKED[(name, column.name)]
    if column.type == SERIAL:
        return 40 + table_index  # not 1: ids are kept, not renumbered
    if column.type == FLAG:
        return 1  # every flag defaults to 0
    if column.type == INTEGER:
        return 1000 * table_index + column_index + 2
    if column.type == BIGINT:
        return 2**40 + 1000 * table_index + column_index  # wider than 32 bits
    if column.type == REAL:
        return 0.1 + table_index + column_index / 8
    assert column.type == TEXT, column.type
    return f"{name}.{column.name} · ‮x✓"  # non-ASCII, a bidi control: text is text


def generated_rows() -> dict[str, list[tuple[object, ...]]]:
    """One row per table with a non-null value in every dumped column; references point at the row of the
    table they name (a self-reference at the row itself)."""
    rows: dict[str, dict[str, object]] = {}
    for ti, t in enumerate(DUMPED):
        row: dict[str, object] = {}
        for ci, column in enumerate(t.dumped):
            if column.references:
                target, target_column = column.references.rstrip(")").split("(")
                source = row if target == t.name else rows[target]
                row[column.name] = source.get(target_column) or _value(
                    ti, t.names().index(target_column), t.column(target_column), t.name
                )
            else:
                row[column.name] = _value(ti, ci, column, t.name)
        rows[t.name] = row
    return {name: [tuple(row.values())] for name, row in rows.items()}


def generated_dump() -> CampaignDump:
    return canonical_dump(generated_rows())


def test_the_generated_rows_fill_every_column() -> None:
    dump = generated_dump()
    for t in DUMPED:
        (row,) = dump.tables[t.name]
        assert len(row) == len(t.dumped) and None not in row, t.name


def test_every_column_of_every_table_round_trips(location: Path | str) -> None:
    expected = generated_dump()
    with CampaignStore.open(location, create=True) as store:
        store.restore(expected)
    with CampaignStore.open(location) as store:
        found = store.dump()
    for t in DUMPED:
        assert found.tables[t.name] == expected.tables[t.name], t.name
    assert found.content_hash() == expected.content_hash()


def test_a_copy_from_sqlite_to_postgresql_and_back_keeps_every_column(
    tmp_path: Path, pg_location: str
) -> None:
    expected = generated_dump()
    first, last = tmp_path / "first.sqlite", tmp_path / "last.sqlite"
    with CampaignStore.open(first, create=True) as store:
        store.restore(expected)
    there = copy_campaign(first, pg_location)
    back = copy_campaign(pg_location, last)
    with CampaignStore.open(last) as store:
        found = store.dump()
    assert found.tables == expected.tables
    assert there.content_hash == back.content_hash == expected.content_hash()


@pytest.mark.parametrize(
    ("name", "column"), [(t.name, c.name) for t in DUMPED for c in t.dumped], ids=lambda v: str(v)
)
def test_the_content_hash_covers_every_column(name: str, column: str) -> None:
    rows = generated_rows()
    t = table(name)
    position = t.names().index(column)
    (row,) = rows[name]
    changed = row[position]
    changed = changed + 1 if isinstance(changed, int | float) else f"{changed}!"
    rows[name] = [(*row[:position], changed, *row[position + 1 :])]
    assert canonical_dump(rows).content_hash() != generated_dump().content_hash()


# ---------------------------------------------------------------------------------------------- migrations


def test_a_column_added_later_is_one_line_in_the_declaration() -> None:
    """What a new column costs: declared with the next version, each backend's migration adds it."""
    added = Column("inclusion", REAL, null=True, since=LATEST + 1)
    pool = table("pool_items")
    with_column = replace(pool, columns=(*pool.columns, added))
    import toolkit.judging.sql.ddl as module

    original = module.TABLES
    module.TABLES = tuple(with_column if t.name == "pool_items" else t for t in TABLES)
    try:
        assert ddl.migration(SQLITE, LATEST + 1) == ["ALTER TABLE pool_items ADD COLUMN inclusion REAL"]
        assert ddl.migration(POSTGRESQL, LATEST + 1) == [
            "ALTER TABLE pool_items ADD COLUMN inclusion double precision"
        ]
    finally:
        module.TABLES = original
    assert with_column.names()[-1] == "inclusion"  # and so in the dump, the hash and the tests above


def _sqlite_columns(path: Path) -> dict[str, list[tuple[object, ...]]]:
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        ]
        return {n: conn.execute(f"PRAGMA table_info({n})").fetchall() for n in names}
    finally:
        conn.close()


def test_an_upgraded_sqlite_campaign_has_the_tables_of_a_new_one(
    tmp_path: Path, make_campaign, downgrade
) -> None:
    new = make_campaign(tmp_path / "new.sqlite")
    old = make_campaign(tmp_path / "old.sqlite")
    conn = sqlite3.connect(old, isolation_level=None)
    downgrade(conn, 1)
    conn.close()
    assert "logins" not in _sqlite_columns(old)
    CampaignStore.open(old).close()  # migrates 1 → latest
    assert _sqlite_columns(old) == _sqlite_columns(new)


def _old_postgres_campaign(url: str) -> None:
    """The campaign as trec-toolkit 0.1.0 made it on PostgreSQL (schema version 1), with a few rows."""
    import psycopg
    from psycopg import sql

    from toolkit.judging.postgres.url import parse_campaign_url

    name = parse_campaign_url(url).campaign
    script = (Path(__file__).parent / "data" / "postgres_schema_v1.sql").read_text()
    with psycopg.connect(parse_campaign_url(url).conninfo, autocommit=True) as conn, conn.transaction():
        conn.execute("SET LOCAL ROLE trec_owner")
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL("SET LOCAL search_path = {}").format(sql.Identifier(name)))
        conn.execute(sql.SQL(script.replace("{schema}", "{0}")).format(sql.Identifier(name)))  # type: ignore[arg-type]
        conn.execute(
            "INSERT INTO topics (query_id, ord, query) VALUES ('q1', 0, 'apple');"
            "INSERT INTO grades VALUES (0, 'no'), (1, 'yes');"
            "INSERT INTO pool_items (query_id, doc_id, round) VALUES ('q1', 'd1', 1);"
            "INSERT INTO snapshots (doc_id, round, title, text, content_hash, fetched) "
            "VALUES ('d1', 1, 'T', 'old text', 'h1', 'then');"
            "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade) "
            "VALUES ('then', 'alice', 'q1', 'd1', 'judge', 1)"
        )


def _pg_columns(url: str) -> dict[str, list[tuple[object, ...]]]:
    import psycopg

    from toolkit.judging.postgres.url import parse_campaign_url

    name = parse_campaign_url(url).campaign
    with psycopg.connect(parse_campaign_url(url).conninfo, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default IS NOT NULL "
            "FROM information_schema.columns WHERE table_schema = %s ORDER BY table_name, ordinal_position",
            (name,),
        ).fetchall()
        policies = conn.execute(
            "SELECT tablename, policyname, cmd, qual, with_check FROM pg_policies WHERE schemaname = %s "
            "ORDER BY 1, 2",
            (name,),
        ).fetchall()
    out: dict[str, list[tuple[object, ...]]] = {"policies": [p[:3] for p in policies]}
    for t, *rest in rows:
        out.setdefault(t, []).append(tuple(rest))
    return out


def test_an_old_postgresql_campaign_migrates_and_gains_format_and_version(
    pg_location: str, other_pg_location: str
) -> None:
    from toolkit.judging.postgres.schema import SCHEMA_VERSION
    from toolkit.pooling.docsource import make_document

    _old_postgres_campaign(pg_location)
    with CampaignStore.open(pg_location) as store:  # an organiser opens it: migrated 1 → latest
        assert store.document("d1").text == "old text"
        assert (store.document("d1").format, store.document("d1").version) == (None, None)
        assert [(e.assessor, e.grade) for e in store.log()] == [("alice", 1)]
        store.add_snapshots([replace(make_document("d1", "T", "<p>new</p>"), format="html", version="v2")])
        assert (store.document("d1").format, store.document("d1").version) == ("html", "v2")
        assert store.latest_versions() == {"d1": "v2"}
        conn = store._link.conn  # type: ignore[attr-defined]
        assert conn.execute("SELECT version FROM schema_info").fetchone()[0] == SCHEMA_VERSION
    CampaignStore.open(
        other_pg_location, create=True
    ).close()  # a new campaign: the same schema, policies too
    assert _pg_columns(pg_location) == _pg_columns(other_pg_location)


# ---------------------------------------------------------------------------------------------- done when


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "trec-toolkit"
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, env=os.environ.copy(), timeout=120
    )


def test_format_and_version_survive_campaign_copy_and_change_the_hash(
    tmp_path: Path, pg_location: str, other_pg_location: str, make_campaign
) -> None:
    """A campaign made on PostgreSQL from HTML documents with a version keeps both through ``campaign copy``
    to SQLite and back; ``campaign hash`` tells apart campaigns that differ only in one of them."""
    from toolkit.pooling.docsource import make_document

    html = replace(make_document("d9", "Page", "<h1>Page</h1><p>body</p>"), format="html", version="2024-06")
    make_campaign(pg_location)
    with CampaignStore.open(pg_location) as store:
        store.add_snapshots([html])
    archive = tmp_path / "archive.sqlite"
    for source, target in ((pg_location, str(archive)), (str(archive), other_pg_location)):
        result = _cli("campaign", "copy", source, target)
        assert result.returncode == 0, result.stderr
    for location in (archive, other_pg_location):
        with CampaignStore.open(location) as store:
            doc = store.document("d9")
            assert (doc.format, doc.version, doc.text) == ("html", "2024-06", html.text)
    hashes = [_cli("campaign", "hash", str(loc)) for loc in (pg_location, archive, other_pg_location)]
    assert all(h.returncode == 0 for h in hashes)
    assert len({h.stdout.split()[0] for h in hashes}) == 1
    with CampaignStore.open(archive) as store:
        dump = store.dump()
    columns = table("snapshots").names()
    for field, other in (("format", "markdown"), ("version", "2024-07")):
        at = columns.index(field)
        rows = dict(dump.tables)
        rows["snapshots"] = tuple(
            (*r[:at], other, *r[at + 1 :]) if r[columns.index("doc_id")] == "d9" else r
            for r in rows["snapshots"]
        )
        twin = tmp_path / f"twin-{field}.sqlite"
        with CampaignStore.open(twin, create=True) as store:
            store.restore(canonical_dump(rows))
        result = _cli("campaign", "hash", str(twin))
        assert result.returncode == 0
        assert result.stdout.split()[0] != hashes[0].stdout.split()[0], field


_ADDED_COLUMN = """
    import sys
    from dataclasses import replace

    import toolkit.judging.sql.tables as declared

    # the one line a helper adds: an inclusion probability on pool items (declared before anything else reads it)
    pool = declared.table("pool_items")
    added = declared.Column("inclusion", declared.REAL, null=True, since=declared.LATEST + 1)
    declared.TABLES = tuple(replace(pool, columns=(*pool.columns, added)) if t is pool else t for t in declared.TABLES)
    declared.BY_NAME = {t.name: t for t in declared.TABLES}
    declared.DUMPED = tuple(t for t in declared.TABLES if not t.derived)
    declared.LATEST += 1

    sys.path.insert(0, sys.argv[2])
    import test_schema
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(sys.argv[1]) as store:  # a campaign made before the column: migrated on open
        assert store.pool_items() and store.dump().tables["pool_items"][0][-1] is None
    expected = test_schema.generated_dump()  # the generator fills the new column too
    assert isinstance(expected.tables["pool_items"][0][-1], float)
    with CampaignStore.open(sys.argv[3], create=True) as store:
        store.restore(expected)
    with CampaignStore.open(sys.argv[3]) as store:
        assert store.dump() == expected
    print("ok")
    """


def test_a_column_added_to_the_declaration_is_migrated_copied_and_round_tripped(
    location: Path | str, tmp_path: Path, make_campaign, request: pytest.FixtureRequest
) -> None:
    """The one-line promise end to end, on each backend: a process whose declaration has one more column
    migrates an existing campaign, and writes and reads back the generated value of the new column."""
    import textwrap

    old = make_campaign(location)
    new = (
        tmp_path / "new.sqlite"
        if isinstance(location, Path)
        else request.getfixturevalue("other_pg_location")
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(_ADDED_COLUMN),
            str(old),
            str(Path(__file__).parent),
            str(new),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (0, "ok\n"), result.stderr
    with pytest.raises(StoreError, match="is newer than this trec-toolkit supports"):
        CampaignStore.open(old)  # and this process, one column behind, refuses the migrated campaign
