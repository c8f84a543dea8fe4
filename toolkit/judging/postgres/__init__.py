"""The PostgreSQL backend of the campaign store, for campaigns judged from several machines.

A campaign is one schema (``?campaign=NAME``) in a database that ``trec-toolkit campaign setup`` prepared once
with two roles: ``trec_owner`` (organisers: they create campaigns, pool, assign, export) and ``trec_assessor``
(only in the campaigns it belongs to: reads them but not provenance or runs, and appends to the log as itself,
on its own items — ``security``). ``schema`` holds the migrations (derived from the declaration in
``toolkit.judging.sql.tables``) and roles, ``security`` the row-level security, ``store`` the connection and
locking, ``url`` the campaign URLs (without importing the driver). The rules shared with SQLite live in
``toolkit.judging.store.CampaignStore``, the statements in ``toolkit.judging.sql.store``.

psycopg 3 is an optional dependency: ``pip install 'trec-toolkit[postgresql]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from toolkit.errors import StoreError

if TYPE_CHECKING:
    from toolkit.judging.postgres.store import PostgresStore

INSTALL_ADVICE = "install the driver with: pip install 'trec-toolkit[postgresql]'"


def require_driver() -> None:
    """A one-line error naming the extra to install, instead of an ImportError, when psycopg is missing."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise StoreError(f"postgresql:// campaigns need psycopg 3; {INSTALL_ADVICE}") from None


def open_store(url: str, *, create: bool = False) -> PostgresStore:
    """``CampaignStore.open`` for a ``postgresql://`` URL."""
    from toolkit.judging.postgres.url import parse_campaign_url

    parsed = parse_campaign_url(url)  # a bad URL is refused before the driver is needed
    require_driver()
    from toolkit.judging.postgres.store import PostgresStore

    return PostgresStore.open(parsed, create=create)


def create_store(url: str) -> AbstractContextManager[PostgresStore]:
    """``CampaignStore.create`` for a ``postgresql://`` URL."""
    from toolkit.judging.postgres.url import parse_campaign_url

    parsed = parse_campaign_url(url)
    require_driver()
    from toolkit.judging.postgres.store import PostgresStore

    return PostgresStore.create(parsed)


def setup_campaigns(
    admin_url: str, *, organisers: Sequence[str] = (), assessors: Sequence[str] = ()
) -> list[str]:
    """``campaign setup``: the roles and grants of a database, once; with ``?campaign=NAME`` that campaign too.

    ``admin_url`` connects as a role that may create roles and owns the database (or a superuser). Returns
    the steps taken, for the command to print.
    """
    from toolkit.judging.postgres.url import parse_campaign_url

    url = parse_campaign_url(admin_url, campaign_required=False)
    require_driver()
    from toolkit.judging.postgres import schema

    conn = schema.connect(url)
    try:
        database = str(conn.info.dbname)
        try:
            done = schema.setup_database(conn, database, organisers=organisers, assessors=assessors)
        except StoreError:
            raise
        except Exception as exc:  # a psycopg error: say what the administrator needs
            raise StoreError(
                f"{admin_url}: setup failed ({schema.first_line(exc)}); connect as a role that may create "
                "roles and owns the database (or as a superuser)"
            ) from None
        if url.campaign is not None:
            existed = schema.campaign_state(conn, url.campaign)[0]
            schema.prepare(conn, url, create=True)
            done.append(f"campaign {url.campaign} {'is ready' if existed else 'created'} in {database}")
    finally:
        conn.close()
    return done


__all__ = ["INSTALL_ADVICE", "create_store", "open_store", "require_driver", "setup_campaigns"]
