"""Small campaigns for the judging tests, built through the store's own organiser API, on either backend.

``location`` gives a fresh campaign location per test and per backend: an SQLite file in ``tmp_path``, and a
new campaign (schema) on the PostgreSQL server named by ``TOOLKIT_TEST_PG``, dropped after the test. Without
that variable the PostgreSQL cases skip with one line locally, and fail under ``CI=true``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.judging.records import CampaignTopic, Item
from toolkit.judging.store import CampaignStore
from toolkit.model import DEFAULT_GRADES
from toolkit.pooling.docsource import make_document

TOPICS = [CampaignTopic("q1", "apple pie"), CampaignTopic("401", "banana bread", query_class="prose")]
DOCS = {"d1": ("Apple", "apple text"), "d2": ("Pie", "pie text"), "d3": ("Banana", "banana text")}
POOL = [("q1", "d1"), ("q1", "d2"), ("401", "d3"), ("401", "d1")]


def build(
    path: Path | str,
    *,
    pool: list[tuple[str, str]] = POOL,
    assessors: tuple[str, ...] = ("alice", "bob"),
    assign_all: bool = True,
) -> Path | str:
    """A campaign with TOPICS, DOCS and POOL; every assessor gets every item (positions in POOL order)."""
    with CampaignStore.open(path, create=True) as store:
        store.set_topics(TOPICS, DEFAULT_GRADES)
        store.add_round(
            strategy="depth",
            depth=10,
            budget=None,
            runs=["runA", "runB"],
            provenance={key: [("runA", i + 1)] for i, key in enumerate(pool)},
            queued=pool,
            stale=[],
            snapshots=[
                make_document(d, *DOCS.get(d, (d, f"text of {d}"))) for d in dict.fromkeys(d for _, d in pool)
            ],
            skipped=0,
        )
        if assign_all:
            store.add_assignments(
                Item(a, q, d, i, overlap=len(assessors) > 1)
                for a in assessors
                for i, (q, d) in enumerate(pool)
            )
    return path


@pytest.fixture
def make_campaign():
    """The ``build`` function, as a fixture (test modules here are not importable as a package)."""
    return build


def downgrade_sqlite(conn, version: int) -> None:
    """Take an SQLite campaign back to schema ``version``, as a campaign made then would be: what the
    declaration added later is dropped (tables, columns, indexes), SQLite's REPLACE guard before 2, and the
    trigger that keeps the decisions in force before 6, and those that keep the report's counts before 7."""
    from toolkit.judging.sql import counts, decisions
    from toolkit.judging.sql.tables import TABLES
    from toolkit.judging.sqlite.schema import REPLACE_GUARD

    if version < REPLACE_GUARD:
        conn.execute("DROP TRIGGER IF EXISTS judgment_log_no_replace")
    if version < counts.SINCE:
        for name in counts.SQLITE_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    if version < decisions.SINCE:
        for name in decisions.SQLITE_TRIGGERS:
            conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for table in TABLES:
        if table.since > version:
            conn.execute(f"DROP TABLE {table.name}")
            continue
        for index in table.indexes:
            if index.since > version:
                conn.execute(f"DROP INDEX IF EXISTS {index.name}")
        for column in table.stored("sqlite"):
            if column.since > version:
                conn.execute(f"ALTER TABLE {table.name} DROP COLUMN {column.name}")
    conn.execute(f"PRAGMA user_version = {version}")


@pytest.fixture
def downgrade():
    """``downgrade_sqlite``, as a fixture."""
    return downgrade_sqlite


PG_ENV = "TOOLKIT_TEST_PG"
PG_REASON = f"set {PG_ENV}=postgresql://user@host:port/db to run them (docs/postgresql.md)"


def _needs_server(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    uses = getattr(item, "fixturenames", ())
    return "pg_server" in uses or (callspec is not None and callspec.params.get("location") == "postgresql")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without a server, the PostgreSQL cases are left out with one line of explanation (not one per test);
    under CI=true they stay, and fail in ``pg_server``."""
    if os.environ.get(PG_ENV) or os.environ.get("CI") == "true":
        return
    skipped = [item for item in items if _needs_server(item)]
    if skipped:
        config.hook.pytest_deselected(items=skipped)
        items[:] = [item for item in items if not _needs_server(item)]
        config._toolkit_pg_skipped = len(skipped)  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    count = getattr(config, "_toolkit_pg_skipped", 0)
    if count:
        terminalreporter.write_line(f"PostgreSQL store tests skipped ({count}): {PG_REASON}")


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The test server's URL (no campaign), set up once with ``campaign setup`` for the test role."""
    url = os.environ.get(PG_ENV)
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(
                f"PostgreSQL store tests must run under CI: .ci/run starts the server and sets {PG_ENV}",
                pytrace=False,
            )
        pytest.skip(f"PostgreSQL store tests: {PG_REASON}")
    from toolkit.judging.postgres import setup_campaigns
    from toolkit.judging.postgres.url import parse_campaign_url

    user = parse_campaign_url(url, campaign_required=False).user
    setup_campaigns(url, organisers=[user] if user else [], assessors=[user] if user else [])
    return url


def campaign_url(server: str, name: str) -> str:
    return f"{server}{'&' if '?' in server else '?'}campaign={name}"


def drop_campaign(server: str, name: str) -> None:
    import psycopg
    from psycopg import sql

    from toolkit.judging.postgres.url import parse_campaign_url

    with psycopg.connect(
        parse_campaign_url(server, campaign_required=False).conninfo, autocommit=True
    ) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


@pytest.fixture
def pg_location(pg_server: str) -> Iterator[str]:
    """A campaign URL on the test server, not created yet; dropped after the test."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield campaign_url(pg_server, name)
    drop_campaign(pg_server, name)


@pytest.fixture
def other_pg_location(pg_server: str) -> Iterator[str]:
    """A second campaign URL on the test server (a copy's target), dropped after the test."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    yield campaign_url(pg_server, name)
    drop_campaign(pg_server, name)


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    """Where a fresh campaign goes, once per backend (the store tests run against both)."""
    if request.param == "sqlite":
        return tmp_path / "c.sqlite"
    return str(request.getfixturevalue("pg_location"))
