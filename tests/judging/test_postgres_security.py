"""An assessor's login can only do what the store promises — enforced by the server, tried as real logins.

Every attack of the report that found the hole (docs/postgresql.md "Who may do what") is tried twice: through
the toolkit, and in plain SQL on a psycopg connection of the assessor's own login, as someone who skips the
toolkit would. The logins are real PostgreSQL login roles, members of ``trec_assessor`` only, created for the
test and dropped after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from toolkit.errors import StoreError
from toolkit.judging.postgres.url import parse_campaign_url
from toolkit.judging.progress import pool_status, progress
from toolkit.judging.records import Item
from toolkit.judging.session import JudgingSession
from toolkit.judging.store import CampaignStore

REFUSED = "the server refused the event"


def _as(url: str, login: str) -> str:
    """``url`` with another user name (the password comes from PGPASSWORD: the test logins share it)."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, f"{login}@{host}", parts.path, parts.query, parts.fragment))


def _admin(url: str):
    import psycopg

    return psycopg.connect(parse_campaign_url(url, campaign_required=False).conninfo, autocommit=True)


@pytest.fixture
def logins(pg_server: str) -> Iterator[Callable[[str], str]]:
    """Make a login role in ``trec_assessor`` (nothing else) for a short name; returns its role name."""
    from psycopg import sql

    made: list[str] = []
    tag = uuid.uuid4().hex[:8]

    def make(short: str) -> str:
        role = f"t_{tag}_{short}"
        with _admin(pg_server) as conn:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} IN ROLE trec_assessor").format(
                    sql.Identifier(role), sql.Literal(os.environ.get("PGPASSWORD", ""))
                )
            )
        made.append(role)
        return role

    yield make
    with _admin(pg_server) as conn:
        for role in made:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).parent / "trec-toolkit"
    return subprocess.run([str(script), *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def camp(pg_location: str, make_campaign, logins) -> dict[str, str]:
    """alice judges q1's items, bob 401's; cy adjudicates; eve has a login and nothing else. The organiser
    maps the logins with ``campaign member`` (the console script), and makes (q1, d2) a gold item."""
    make_campaign(pg_location, assign_all=False)
    with CampaignStore.open(pg_location) as store:
        items = [
            Item("alice", "q1", "d1", 0),
            Item("alice", "q1", "d2", 1),
            Item("bob", "401", "d3", 0),
            Item("bob", "401", "d1", 1),
        ]
        store.add_assignments(items, gold={("q1", "d2"): 3})
    names = {short: logins(short) for short in ("alice", "bob", "cy", "eve")}
    for short, flags in (("alice", []), ("bob", []), ("cy", ["--adjudicator"])):
        result = _cli("campaign", "member", pg_location, names[short], "--as", short, *flags)
        assert result.returncode == 0, result.stderr
        assert result.stdout == (
            f"{names[short]} judges as {short}{' and may adjudicate' if flags else ''} in {pg_location}\n"
        )
    return {short: _as(pg_location, role) for short, role in names.items()} | {"organiser": pg_location}


def _log(url: str) -> list[tuple[str, str, str, str, int | None]]:
    with CampaignStore.open(url) as store:
        return [(e.assessor, e.query_id, e.doc_id, e.action, e.grade) for e in store.log()]


# ---------------------------------------------------------------------------------------------- through the toolkit


def test_an_assessor_records_only_as_itself_only_its_items(camp: dict[str, str]) -> None:
    with CampaignStore.open(camp["bob"]) as bob:
        bob.record("bob", "401", "d3", grade=1)
    with CampaignStore.open(camp["alice"]) as alice:
        assert alice.record("alice", "q1", "d1", grade=2) > 0  # its own item: fine
        assert alice.undo("alice") is not None  # its own decision: fine
        for attempt in (
            lambda: alice.record("bob", "401", "d3", grade=0),  # as another assessor
            lambda: alice.record("alice", "401", "d3", grade=3),  # an item assigned to someone else
            lambda: alice.add_note("bob", "401", "d3", "forged"),
            lambda: alice.adjudicate("alice", "q1", "d1", 3),  # not an adjudicator
            lambda: alice.adjudicate("bob", "401", "d3", 3),
        ):
            with pytest.raises(StoreError, match=REFUSED):
                attempt()
        assert alice.undo("bob") is None  # bob's decisions are not even visible to alice
        assert [(e.assessor, e.action) for e in alice.log()] == [("alice", "judge"), ("alice", "undo")]
        assert alice.gold() == {}  # gold grades are the adjudicators'
        with pytest.raises(StoreError, match="permission denied for table provenance"):
            alice.provenance()
        assert [(r.number, r.runs) for r in alice.rounds()] == [(1, ())]  # rounds, without their runs
        assert pool_status(alice).unassigned == 0  # what the judging screen polls for
        session = JudgingSession(alice, "alice")
        assert [i.doc_id for i in session.queue] == ["d1", "d2"]
        with pytest.raises(StoreError) as err:
            alice.set_meta({"topic_set": "forged"})  # an organiser's write
        assert str(err.value) == (
            f"{camp['alice']}: permission denied (permission denied for table meta); organisers need "
            "`trec-toolkit campaign setup ADMIN_URL --organiser USER`, assessors `--assessor USER` "
            "(ask the database administrator)"
        )
        with pytest.raises(StoreError, match="permission denied for table "):
            alice.add_assignments([Item("alice", "401", "d3", 9)])
    assert _log(camp["organiser"]) == [
        ("bob", "401", "d3", "judge", 1),
        ("alice", "q1", "d1", "judge", 2),
        ("alice", "q1", "d1", "undo", None),
    ]


def test_only_an_adjudicator_adjudicates_and_reads_every_decision(camp: dict[str, str]) -> None:
    with CampaignStore.open(camp["alice"]) as alice:
        alice.record("alice", "q1", "d1", grade=2)
    with CampaignStore.open(camp["cy"]) as cy:
        assert [e.assessor for e in cy.log()] == ["alice"]
        cy.adjudicate("cy", "q1", "d1", 3)
        with pytest.raises(StoreError, match="grade 7 is not on this campaign's scale"):
            cy.adjudicate("cy", "q1", "d1", 7)  # the toolkit says it first (the server would refuse it too)
        assert cy.gold() == {("q1", "d2"): 3}
    assert _log(camp["organiser"])[-1] == ("cy", "q1", "d1", "adjudicate", 3)


def test_a_login_without_items_or_mapping_cannot_open_the_campaign(camp: dict[str, str]) -> None:
    login = parse_campaign_url(camp["eve"]).user
    with pytest.raises(StoreError) as err:
        CampaignStore.open(camp["eve"])
    assert str(err.value).startswith(f"{camp['eve']}: login {login!r} does not belong to campaign ")
    result = _cli("judge", camp["eve"], "--assessor", "eve")
    assert result.returncode == 1 and result.stderr.count("\n") == 1
    assert "does not belong to campaign" in result.stderr


# ---------------------------------------------------------------------------------------------- in plain SQL


def _sql(url: str):
    import psycopg

    conn = psycopg.connect(parse_campaign_url(url).conninfo, autocommit=True)
    conn.execute("SELECT set_config('search_path', %s, false)", (parse_campaign_url(url).campaign,))
    return conn


_INSERT = (
    "INSERT INTO judgment_log (time, assessor, query_id, doc_id, action, grade, undoes) "
    "VALUES ('t', %s, %s, %s, %s, %s, %s)"
)


def test_plain_sql_attacks_of_an_assessor_login_fail(
    camp: dict[str, str], pg_server: str, other_pg_location: str
) -> None:
    import psycopg

    with CampaignStore.open(camp["bob"]) as bob:
        bob_event = bob.record("bob", "401", "d3", grade=1)
    with _sql(camp["alice"]) as conn:
        conn.execute(_INSERT, ("alice", "q1", "d1", "judge", 2, None))  # the legitimate insert works
        own = conn.execute("SELECT max(id) FROM judgment_log").fetchone()[0]
        conn.execute(_INSERT, ("alice", "q1", "d1", "undo", None, own))
        for row in (
            (
                "alice",
                "nosuchtopic",
                "nosuchdoc",
                "judge",
                99,
                None,
            ),  # grade 99 on a topic that does not exist
            ("alice", "q1", "d1", "judge", 99, None),  # grade 99 on its own item
            ("alice", "q1", "d1", "adjudicate", -5, None),  # an adjudication of -5
            ("alice", "q1", "d1", "adjudicate", 3, None),  # any adjudication
            ("alice\u202e", "q1", "d1", "judge", 1, None),  # a name with a bidi override
            ("bob", "401", "d3", "judge", 0, None),  # as another assessor
            ("bob", "401", "d3", "undo", None, bob_event),  # undoing another assessor's decision
            ("alice", "401", "d3", "undo", None, bob_event),
            ("alice", "401", "d3", "judge", 1, None),  # an item not assigned to it
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
                conn.execute(_INSERT, row)
        for statement in (
            "UPDATE judgment_log SET grade = 0",
            "DELETE FROM judgment_log",
            "TRUNCATE judgment_log",
            "UPDATE assignments SET assessor = 'alice'",
            "INSERT INTO assignments VALUES ('alice', '401', 'd3', 9, false, false, 1)",
            "INSERT INTO logins VALUES (session_user, 'bob', true)",
            "SELECT * FROM provenance",
            "SELECT runs FROM rounds",
            "SET ROLE trec_owner",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # reads: its own log rows only, no gold grades
        assert conn.execute("SELECT DISTINCT assessor FROM judgment_log").fetchall() == [("alice",)]
        assert conn.execute("SELECT count(*) FROM gold").fetchone()[0] == 0
        # a temporary table cannot stand in for the mapping the checks read
        conn.execute("CREATE TEMP TABLE logins (login text, assessor text, adjudicator boolean)")
        conn.execute("INSERT INTO pg_temp.logins VALUES (session_user, 'bob', true)")
        conn.execute(f"SET search_path = pg_temp, {parse_campaign_url(camp['alice']).campaign}")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(_INSERT, ("bob", "401", "d3", "adjudicate", 3, None))
    # another campaign, where alice's login has no items: nothing to read, nothing to write
    with CampaignStore.open(other_pg_location, create=True) as other:
        from toolkit.judging.records import CampaignTopic
        from toolkit.model import DEFAULT_GRADES

        other.set_topics([CampaignTopic("s1", "secret topic")], DEFAULT_GRADES)
    with _sql(_as(other_pg_location, parse_campaign_url(camp["alice"]).user or "")) as conn:
        assert conn.execute("SELECT count(*) FROM topics").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM grades").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(_INSERT, ("alice", "s1", "x", "skip", None, None))
    assert _log(camp["organiser"]) == [
        ("bob", "401", "d3", "judge", 1),
        ("alice", "q1", "d1", "judge", 2),
        ("alice", "q1", "d1", "undo", None),
    ]


def test_the_decisions_in_force_follow_the_log_under_an_assessor_role_and_stay_its_own(
    camp: dict[str, str],
) -> None:
    """The table the database keeps beside the log (``toolkit.judging.sql.decisions``): an assessor's own
    append updates its own row (the trigger runs as the owner, for that event's key alone); the login can
    neither write the table nor read another assessor's rows; an adjudicator reads them all."""

    with CampaignStore.open(camp["bob"]) as bob:
        bob.record("bob", "401", "d3", grade=1)
    rows = "SELECT assessor, query_id, doc_id, decision, grade FROM decisions_in_force ORDER BY 1, 2, 3"
    with _sql(camp["alice"]) as conn:
        conn.execute(_INSERT, ("alice", "q1", "d1", "judge", 2, None))
        assert conn.execute(rows).fetchall() == [("alice", "q1", "d1", "judge", 2)]  # bob's row unseen
        own = conn.execute("SELECT max(id) FROM judgment_log").fetchone()[0]
        conn.execute(_INSERT, ("alice", "q1", "d1", "judge", 0, None))
        conn.execute(_INSERT, ("alice", "q1", "d1", "undo", None, own + 1))
        assert conn.execute(rows).fetchall() == [("alice", "q1", "d1", "judge", 2)]  # the undo brought 2 back
        _derived_writes_refused(conn)
    with _sql(camp["cy"]) as conn:  # the adjudicator reads every row
        assert conn.execute(rows).fetchall() == [
            ("alice", "q1", "d1", "judge", 2),
            ("bob", "401", "d3", "judge", 1),
        ]
    with CampaignStore.open(camp["organiser"]) as store:
        assert [(g[2], g[0], g[1], g[3]) for g in store.current_grades(include_gold=True)] == [
            ("alice", "q1", "d1", 2),
            ("bob", "401", "d3", 1),
        ]


def _derived_writes_refused(conn) -> None:
    """No login writes what the database derives: every ``derived`` table of the schema's declaration
    (``toolkit.judging.sql.tables``) refuses an INSERT, UPDATE, DELETE and TRUNCATE, and every trigger
    function that keeps one refuses a call — listed from the declarations, so a new derived table is tested
    without anyone adding it here."""
    import psycopg

    from toolkit.judging.sql import counts, decisions, tables

    derived = [table for table in tables.TABLES if table.derived]
    assert derived, "the schema declares no derived table"
    statements = [
        statement
        for table in derived
        for statement in (
            # the row is the login's own where the table names an assessor: refused for the grant, not the row
            f"INSERT INTO {table.name} ({table.columns[0].name}) VALUES ('alice')",
            f"UPDATE {table.name} SET {table.columns[-1].name} = {table.columns[-1].name}",
            f"DELETE FROM {table.name}",
            f"TRUNCATE {table.name}",
        )
    ] + [f"SELECT {name}()" for name in (decisions.TRIGGER, counts.STACKS, counts.ASSIGNED, counts.WINDOWED)]
    for statement in statements:
        with pytest.raises((psycopg.errors.InsufficientPrivilege, psycopg.errors.FeatureNotSupported)):
            conn.execute(statement)


def test_the_report_counts_follow_an_assessor_role_and_stay_its_own(camp: dict[str, str]) -> None:
    """The counts the database keeps for the report (``toolkit.judging.sql.counts``): an assessor's append
    (even with a time the server cannot read) moves its own rows, through triggers that run as the owner; the
    login can neither write the tables nor call the trigger functions, nor read another assessor's rows; an
    adjudicator reads them all."""

    with CampaignStore.open(camp["bob"]) as bob:
        bob.record("bob", "401", "d3", grade=1)
    queue = "SELECT assessor, query_id, assigned, judged, skipped FROM queue_counts ORDER BY 1, 2"
    windows = "SELECT assessor, decisions FROM session_windows ORDER BY 1, 2"
    with _sql(camp["alice"]) as conn:
        assert conn.execute(queue).fetchall() == [("alice", "q1", 2, 0, 0)]  # bob's row unseen
        conn.execute(_INSERT, ("alice", "q1", "d1", "judge", 2, None))  # time 't': a window of its own
        conn.execute(_INSERT, ("alice", "q1", "d2", "skip", None, None))
        assert conn.execute(queue).fetchall() == [("alice", "q1", 2, 1, 1)]
        assert conn.execute(windows).fetchall() == [("alice", 1), ("alice", 1)]
        _derived_writes_refused(conn)
    with _sql(camp["cy"]) as conn:  # the adjudicator reads every row
        assert conn.execute(queue).fetchall() == [("alice", "q1", 2, 1, 1), ("bob", "401", 2, 1, 0)]
    with CampaignStore.open(camp["organiser"]) as store:
        rows = [(r.assessor, r.query_id, r.judged, r.skipped, r.remaining) for r in progress(store)]
        assert rows == [("alice", "q1", 1, 1, 1), ("bob", "401", 1, 0, 1)]


#: ``campaign_member()`` as campaigns of schemas 4 to 7 have it: ``session_user`` compared under its own
#: collation ("C"), which no index of the assignments or logins serves.
_MEMBER_BEFORE_8 = """
CREATE OR REPLACE FUNCTION campaign_member() RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER AS $$
BEGIN
    RETURN EXISTS (SELECT 1 FROM logins WHERE login = session_user::text)
        OR (EXISTS (SELECT 1 FROM assignments WHERE assessor = session_user::text)
            AND NOT EXISTS (SELECT 1 FROM logins WHERE assessor = session_user::text));
END $$
"""


def _member_lookup(url: str) -> tuple[bool, int, int]:
    """``campaign_member()`` for this login; the index scans it made of the assignments and the rows it read
    there to answer (``pg_stat_xact_*``: this transaction's; a sequential scan's rows plus every index's entries
    returned). Sequential scans are priced out (``enable_seqscan = off``), so the planner uses an index that can
    serve the comparison; one that cannot it scans whole, as it would the table."""
    import psycopg

    parsed = parse_campaign_url(url)
    with psycopg.connect(parsed.conninfo) as conn:  # one transaction: the counts are this call's
        conn.execute("SELECT set_config('search_path', %s, true)", (parsed.campaign,))
        conn.execute("SET LOCAL enable_seqscan = off")
        row = conn.execute("SELECT campaign_member()").fetchone()
        counted = conn.execute(
            "SELECT t.idx_scan, t.seq_tup_read + (SELECT COALESCE(SUM(pg_stat_get_xact_tuples_returned(i.indexrelid)), 0)"
            " FROM pg_index i WHERE i.indrelid = t.relid) FROM pg_stat_xact_user_tables t "
            "WHERE t.schemaname = %s AND t.relname = 'assignments'",
            (parsed.campaign,),
        ).fetchone()
        conn.rollback()
    assert counted is not None
    return bool(row and row[0]), int(counted[0] or 0), int(counted[1])


@pytest.mark.parametrize("made", ["new", "schema 7"])
def test_membership_is_found_by_index_not_by_reading_every_assignment(
    pg_location: str, make_campaign, made: str
) -> None:
    """Row-level security asks ``campaign_member()`` once per statement an assessor runs, so at a campaign's real
    size a lookup that reads the assignments (342,302 of them: 12 ms for the second of two assessors, every
    statement) is what the judging screen waits for. A campaign made at schema 7 gets the indexed lookup when an
    organiser first opens it (migration 8)."""
    import psycopg

    from toolkit.judging.postgres.schema import SCHEMA_VERSION

    make_campaign(pg_location)
    if made == "schema 7":
        parsed = parse_campaign_url(pg_location)
        with psycopg.connect(parsed.conninfo, autocommit=True) as conn:
            conn.execute("SELECT set_config('search_path', %s, false)", (parsed.campaign,))
            conn.execute("SET ROLE trec_owner")
            conn.execute(_MEMBER_BEFORE_8)
            conn.execute("UPDATE schema_info SET version = 7")
        _, _, read = _member_lookup(pg_location)
        assert read == 8, "the function of schema 7 reads every assignment (2 assessors × 4 items)"
        with CampaignStore.open(pg_location) as store:  # the organiser's open migrates 7 → latest
            conn = store._link.conn  # type: ignore[attr-defined]
            assert conn.execute("SELECT version FROM schema_info").fetchone()[0] == SCHEMA_VERSION
    member, lookups, read = _member_lookup(pg_location)
    assert not member  # the test's login is an organiser, with no assignments and no mapping
    assert (lookups, read) == (1, 0)  # one index lookup, which found no entry
