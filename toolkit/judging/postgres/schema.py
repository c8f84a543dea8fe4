"""The campaign schema on PostgreSQL, its migrations, the two roles, and how a connection is opened.

The tables and columns are the declaration's (``toolkit.judging.sql.tables``), as on SQLite; one campaign per
PostgreSQL schema:

- **Versioned**: ``schema_info`` holds the application marker and the schema version (counted as SQLite's);
  migration ``i``, derived from the declaration plus what the server adds here, moves a
  campaign from ``i - 1`` to ``i`` in one transaction, under an advisory lock so two processes never migrate
  (or create) the same campaign at once. A campaign from a newer toolkit is refused, not guessed at.
- **Append-only log, enforced by the database**: triggers refuse UPDATE, DELETE and TRUNCATE on
  ``judgment_log`` (so an upsert, ``INSERT … ON CONFLICT DO UPDATE``, is refused too), and the assessor role
  may only INSERT into it. ``undo`` appends an event.
- **Idempotent writes**: every event carries a client-generated ``event_key`` (a UUID) under a unique
  constraint, so a write retried after its connection dropped mid-commit cannot be logged twice.
- **Roles**: ``campaign setup`` creates ``trec_owner`` (organisers; owns every campaign schema, may create
  campaigns in the database) and ``trec_assessor`` (what it may read and append, only in the campaigns it
  belongs to, is ``security``'s). Login roles are made members of one or the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from toolkit.errors import StoreError
from toolkit.judging.postgres import security
from toolkit.judging.sql import counts, ddl, decisions
from toolkit.judging.sql.dialect import POSTGRESQL
from toolkit.judging.sql.tables import LATEST, Table

if TYPE_CHECKING:
    import psycopg

    from toolkit.judging.postgres.url import CampaignURL

OWNER_ROLE = "trec_owner"
ASSESSOR_ROLE = "trec_assessor"
APPLICATION = "trec-toolkit campaign"

#: Seconds a write waits for the campaign's write lock (an organiser's round) before ``BusyError``.
LOCK_TIMEOUT_S = 30
#: Memory per sort or hash of a read-model statement (the server's default, 4 MB, spills at real size).
READ_MODEL_WORK_MEM = "64MB"

#: Seconds to wait for the server when connecting; the store's retries wait longer (``RETRY_SECONDS``).
CONNECT_TIMEOUT_S = 10

#: The campaign marker and its version: PostgreSQL's own bookkeeping (SQLite has ``PRAGMA user_version``).
_INFO = """
CREATE TABLE schema_info (application text NOT NULL, version integer NOT NULL);
INSERT INTO schema_info (application, version) VALUES ('trec-toolkit campaign', 0);
"""


def _append_only(table: Table) -> str:
    """Triggers refusing UPDATE, DELETE (and so upserts) and TRUNCATE on an append-only table."""
    name, what = table.name, table.name.replace("_", " ")
    return f"""
CREATE FUNCTION {name}_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the {what} is append-only (% refused)', TG_OP
        USING HINT = 'append an undo event instead';
END $$;
CREATE TRIGGER {name}_no_update BEFORE UPDATE OR DELETE ON {name}
    FOR EACH ROW EXECUTE FUNCTION {name}_append_only();
CREATE TRIGGER {name}_no_truncate BEFORE TRUNCATE ON {name}
    FOR EACH STATEMENT EXECUTE FUNCTION {name}_append_only();
"""


def migration_script(version: int) -> str:
    """Migration ``version``, derived from the declaration (``toolkit.judging.sql.tables``) plus what the
    server adds: the marker table, append-only triggers, row-level security (``security``). Its
    ``{schema}`` and ``{assessor}`` placeholders are filled by ``security.compose``."""
    created = ddl.created_at(version)
    parts = [_INFO] if version == 1 else []
    parts += [f"{statement};\n" for statement in ddl.migration(POSTGRESQL, version)]
    parts += [_append_only(t) for t in created if t.append_only]
    if version == decisions.SINCE:  # the decisions in force: built from the log, then kept by a trigger
        parts += [f"{decisions.build()};\n", decisions.postgresql_trigger()]
    if version == counts.SINCE:  # the report's counts: built from the campaign, then kept by triggers
        parts += [
            counts.postgresql_window_function(),
            *(f"{statement};\n" for statement in counts.build(POSTGRESQL)),
            counts.postgresql_triggers(),
        ]
    parts.append(security.migration(version, created))
    return "".join(parts)


SCHEMA_VERSION = max(LATEST, security.SECURED)


class ConnectionLost(StoreError):
    """The connection dropped (or the transaction was chosen as a victim) in the middle of a call."""


#: SQLSTATEs of a lost connection (class 08) and of a server shutting down or starting up (57P0x).
LOST_STATES = ("57P01", "57P02", "57P03")


def is_lost(exc: BaseException, conn: psycopg.Connection[Any] | None = None) -> bool:
    """A connection-level failure: reconnecting and running the call again may succeed."""
    import psycopg

    if not isinstance(exc, psycopg.Error):
        return False
    state = exc.sqlstate or ""
    return (
        (conn is not None and conn.closed)
        or state.startswith("08")
        or state in LOST_STATES
        or (state == "" and isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError))
    )


def lock_key(*parts: str) -> int:
    """A stable 64-bit advisory lock key for the campaign (and an assessor): the same in every process."""
    import hashlib

    digest = hashlib.sha256("\x1f".join(("trec-toolkit", *parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def setup_advice() -> str:
    return (
        "organisers need `trec-toolkit campaign setup ADMIN_URL --organiser USER`, assessors "
        "`--assessor USER` (ask the database administrator)"
    )


def connect(url: CampaignURL) -> psycopg.Connection[Any]:
    """A new autocommit connection (transactions are explicit) with the session settings a campaign needs.

    ``synchronous_commit = on`` whatever the server default: a committed judgment must survive a power cut.
    TCP keepalives notice a vanished server within about half a minute instead of two hours.
    """
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    defaults: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT_S,
        "application_name": "trec-toolkit",
        "keepalives": 1,
        "keepalives_idle": 10,
        "keepalives_interval": 5,
        "keepalives_count": 3,
    }
    try:
        given = conninfo_to_dict(url.conninfo)
        options = {k: v for k, v in defaults.items() if k not in given}
        conn = psycopg.connect(url.conninfo, autocommit=True, **options)
    except psycopg.ProgrammingError as exc:  # a query parameter libpq does not know
        raise StoreError(
            f"{url.url}: cannot connect ({first_line(exc)}); the URL's query takes libpq's connection "
            "parameters (sslmode=require, …) and campaign=NAME"
        ) from None
    except psycopg.OperationalError as exc:
        raise StoreError(
            f"{url.url}: cannot connect ({first_line(exc)}); check the host, port, user and database, "
            "and PGPASSWORD or ~/.pgpass"
        ) from None
    try:
        # The read models (``toolkit.judging.sql.readmodels``) aggregate the whole log in one statement: with
        # the server's default 4 MB per sort or hash they spill to disk at real size (342,302 events), and JIT
        # compiling them costs more than it saves.
        conn.execute(
            "SELECT set_config('synchronous_commit', 'on', false), set_config('lock_timeout', %s, false), "
            "set_config('work_mem', %s, false), set_config('jit', 'off', false)",
            (f"{int(LOCK_TIMEOUT_S * 1000)}ms", READ_MODEL_WORK_MEM),
        )
    except psycopg.Error as exc:
        conn.close()
        raise ConnectionLost(f"{url.url}: connection lost ({first_line(exc)})") from None
    return conn


def use_campaign(conn: psycopg.Connection[Any], name: str) -> None:
    """Point unqualified table names at the campaign's schema (and nothing else)."""
    conn.execute("SELECT set_config('search_path', quote_ident(%s), false)", (name,))


def campaign_state(conn: psycopg.Connection[Any], name: str) -> tuple[bool, int | None]:
    """(the schema exists, its version — None when it is not a campaign); one query."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s), to_regclass(%s) IS NOT NULL",
        (name, f"{name}.schema_info"),
    ).fetchone()
    exists, marked = (bool(row[0]), bool(row[1])) if row else (False, False)
    if not marked:
        return exists, None
    from psycopg import sql

    info = conn.execute(
        sql.SQL("SELECT application, version FROM {}.schema_info").format(sql.Identifier(name))
    ).fetchall()
    if len(info) != 1 or info[0][0] != APPLICATION:
        return exists, None
    return exists, int(info[0][1])


def prepare(conn: psycopg.Connection[Any], url: CampaignURL, *, create: bool) -> None:
    """Check the campaign's version; create it (``create=True``) or migrate it when needed."""
    import psycopg

    name = url.campaign or ""
    version: int | None = None
    try:
        exists, version = campaign_state(conn, name)
        _check(url, exists, version, create=create)
        if exists and version == SCHEMA_VERSION:
            return
        with conn.transaction():
            # One creator or migrator at a time; the state is read again under the lock.
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"trec-toolkit campaign {name}",))
            exists, version = campaign_state(conn, name)
            _check(url, exists, version, create=create)
            if exists and version == SCHEMA_VERSION:
                return
            _migrate(conn, name, exists=exists, version=version or 0)
    except psycopg.errors.InsufficientPrivilege as exc:
        if version is not None and version < SCHEMA_VERSION:
            raise StoreError(
                f"{url.url}: the campaign's schema needs an upgrade (version {version} → {SCHEMA_VERSION}), "
                "which only an organiser may make: ask an organiser to open it once with this trec-toolkit"
            ) from None
        raise StoreError(f"{url.url}: permission denied ({first_line(exc)}); {setup_advice()}") from None
    except psycopg.errors.UndefinedObject as exc:  # role trec_owner does not exist
        raise StoreError(
            f"{url.url}: {first_line(exc)}; the database is not set up for campaigns: run "
            "`trec-toolkit campaign setup ADMIN_URL` once"
        ) from None
    except psycopg.Error as exc:
        if is_lost(exc, conn):
            raise ConnectionLost(f"{url.url}: connection lost ({first_line(exc)})") from None
        raise StoreError(f"{url.url}: cannot open the campaign ({first_line(exc)})") from None


def check_member(conn: psycopg.Connection[Any], url: CampaignURL) -> bool:
    """True for an organiser's login (a member of ``trec_owner``); for another login, a one-line error unless
    it belongs to the campaign (``security``: mapped by ``campaign member``, or with assignments)."""
    row = conn.execute(
        "SELECT pg_has_role(current_user, %s, 'USAGE'), campaign_member(), session_user", (OWNER_ROLE,)
    ).fetchone()
    organiser, member, login = (bool(row[0]), bool(row[1]), str(row[2])) if row else (False, False, "")
    if not organiser and not member:
        raise StoreError(
            f"{url.url}: login {login!r} does not belong to campaign {url.campaign!r}: it has no items there "
            f"and no mapping; an organiser assigns it items (`trec-toolkit assign`) or maps it with "
            f"`trec-toolkit campaign member CAMPAIGN {login} --as NAME`"
        )
    return organiser


def _check(url: CampaignURL, exists: bool, version: int | None, *, create: bool) -> None:
    name = url.campaign
    if exists and version is None:
        raise StoreError(
            f"{url.url}: schema {name!r} exists but is not a campaign; choose another ?campaign= name"
        )
    if version is not None and version > SCHEMA_VERSION:
        raise StoreError(
            f"{url.url}: campaign schema version {version} is newer than this trec-toolkit supports "
            f"({SCHEMA_VERSION}); upgrade trec-toolkit"
        )
    if not exists and not create:
        from toolkit.judging.store import MissingCampaignError

        raise MissingCampaignError(
            f"{url.url}: no such campaign {name!r} in database {url.database!r}; create one with "
            f"`trec-toolkit pool RUN… -o {url.url}`"
        )


def create_in_transaction(conn: psycopg.Connection[Any], url: CampaignURL) -> None:
    """Create the campaign inside the caller's open transaction (``CampaignStore.create``): it appears to
    others only when that transaction commits; ``CampaignExistsError`` when it is there already."""
    import psycopg

    from toolkit.judging.store import CampaignExistsError

    name = url.campaign or ""
    exists, _ = campaign_state(conn, name)
    if exists:
        raise CampaignExistsError(
            f"{url.url}: a campaign (or schema) {name!r} exists already; nothing was replaced"
        )
    try:
        _migrate(conn, name, exists=False, version=0)
    except psycopg.errors.UndefinedObject as exc:  # role trec_owner does not exist
        raise StoreError(
            f"{url.url}: {first_line(exc)}; the database is not set up for campaigns: run "
            "`trec-toolkit campaign setup ADMIN_URL` once"
        ) from None
    except psycopg.errors.DuplicateSchema:
        raise CampaignExistsError(
            f"{url.url}: another process created campaign {name!r} meanwhile; nothing was replaced"
        ) from None


def _migrate(conn: psycopg.Connection[Any], name: str, *, exists: bool, version: int) -> None:
    """Create and/or migrate inside the caller's transaction, as the owner role (so organisers share it)."""
    from psycopg import sql

    schema = sql.Identifier(name)
    conn.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(OWNER_ROLE)))
    if not exists:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(schema))
    conn.execute("SELECT set_config('search_path', quote_ident(%s), true)", (name,))
    for number in range(version + 1, SCHEMA_VERSION + 1):
        conn.execute(security.compose(migration_script(number), name, ASSESSOR_ROLE))
        conn.execute("UPDATE schema_info SET version = %s", (number,))
    conn.execute(security.compose(security.grants(), name, ASSESSOR_ROLE))


def setup_database(
    conn: psycopg.Connection[Any],
    database: str,
    *,
    organisers: Sequence[str] = (),
    assessors: Sequence[str] = (),
) -> list[str]:
    """Create the two roles (once), let organisers create campaigns in ``database``, grant memberships.

    Idempotent: running it again only adds the memberships asked for. Returns what was done, for the CLI.
    """
    import psycopg
    from psycopg import sql

    done: list[str] = []
    with conn.transaction():
        # One setup at a time: each GRANT rewrites one catalog row (the database's, a membership), and the
        # server refuses a second session rewriting it concurrently ("tuple concurrently updated") rather than
        # waiting, so two organisers running setup at once would see one of them fail. The roles are read
        # again under the lock. (Advisory locks belong to one database: setups of two databases of one
        # server can still race to create the roles; the one refused succeeds when run again.)
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key("setup"),))
        for role in (OWNER_ROLE, ASSESSOR_ROLE):
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
                conn.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(role)))
                done.append(f"created role {role}")
        db = sql.Identifier(database)
        conn.execute(
            sql.SQL("GRANT CONNECT, CREATE ON DATABASE {} TO {}").format(db, sql.Identifier(OWNER_ROLE))
        )
        conn.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(db, sql.Identifier(ASSESSOR_ROLE)))
        done.append(f"{OWNER_ROLE} may create campaigns in database {database}")
        for role, users in ((OWNER_ROLE, organisers), (ASSESSOR_ROLE, assessors)):
            for user in users:
                try:
                    with conn.transaction():
                        conn.execute(
                            sql.SQL("GRANT {} TO {}").format(sql.Identifier(role), sql.Identifier(user))
                        )
                except psycopg.errors.UndefinedObject:
                    raise StoreError(
                        f"no login role {user!r} on this server; create it first "
                        f"(CREATE ROLE {user} LOGIN PASSWORD '…')"
                    ) from None
                done.append(f"{user} is a member of {role}")
    return done


def first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
