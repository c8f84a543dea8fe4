"""What only the PostgreSQL store has: URLs, roles, the log's guards on the server, schema checks, setup.

The interface's behaviour is tested on both backends by the parametrised store tests; these are the
PostgreSQL-specific promises, against the real server named by ``TOOLKIT_TEST_PG``.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from pathlib import Path

import pytest

from toolkit.errors import StoreError
from toolkit.judging.postgres.url import campaign_label, parse_campaign_url
from toolkit.judging.store import CampaignStore

# ---------------------------------------------------------------------------------------------- URLs (no server)


SECRET = "S3cr3t-Value"

#: Every way a secret has been seen to ride in a campaign URL: user-info, any case of password=, sslpassword=,
#: percent-encoded key names, a percent-encoded ``:`` in the user, OAuth client secrets.
SECRET_URLS = [
    f"postgresql://ana:{SECRET}@db.example.org:5432/trec?campaign=c1",
    f"postgresql://ana@db.example.org/trec?campaign=c1&password={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&PASSWORD={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&Password={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&sslpassword={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&SSLPassword={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&pass%77ord={SECRET}",
    f"postgresql://ana@db.example.org/trec?campaign=c1&password%3D{SECRET}",
    f"postgresql://ana@db.example.org/trec?password%3D{SECRET}&campaign=c1",
    f"postgresql://ana%3A{SECRET}@db.example.org/trec?campaign=c1",
    f"postgresql://ana@db.example.org/trec?campaign=c1&oauth_client_secret={SECRET}",
    f"mysql://ana:{SECRET}@db.example.org/trec?campaign=c1",
]


@pytest.mark.parametrize("url", SECRET_URLS)
def test_a_secret_in_the_url_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(StoreError) as err:
        CampaignStore.open(url)
    message = str(err.value)
    assert SECRET not in message and SECRET.lower() not in message.lower() and "\n" not in message
    assert message.startswith(("postgresql://ana", "mysql://ana:***@"))


def test_a_password_refusal_says_what_to_do() -> None:
    with pytest.raises(StoreError) as err:
        CampaignStore.open(f"postgresql://ana@db.example.org/trec?campaign=c1&sslpassword={SECRET}")
    assert str(err.value) == (
        "postgresql://ana@db.example.org/trec?campaign=c1&sslpassword=***: the URL contains a password or "
        "other secret; remove it and put the password in PGPASSWORD or a ~/.pgpass line (a password in a URL "
        "lands in shell history, manifests and logs)"
    )


@pytest.mark.parametrize("url", SECRET_URLS[:9])
def test_no_command_echoes_or_records_a_secret_url(url: str, tmp_path: Path) -> None:
    """The console script, as a user runs it: exit 1, one line, no secret on any stream, nothing written."""
    import subprocess

    script = Path(sys.executable).parent / "trec-toolkit"
    for args in (
        ["export", url, "--policy", "max", "-o", "q.qrels"],
        ["judgments", "export", url, "-o", "j.tsv"],
        ["campaign", "hash", url],
        ["campaign", "copy", url, "copy.sqlite"],
        ["progress", url],
    ):
        result = subprocess.run(
            [str(script), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        shown = result.stdout + result.stderr
        assert result.returncode == 1, (args, shown)
        assert SECRET not in shown and shown.count("\n") == 1, (args, shown)
        assert shown.startswith("Error: ") and "contains a password or other secret" in shown
    assert list(tmp_path.iterdir()) == []  # no qrels, no manifest, no copy


def test_an_unknown_url_parameter_is_one_line(pg_server: str) -> None:
    with pytest.raises(StoreError) as err:
        CampaignStore.open(f"{pg_server}?campaign=c1&bogus=1")
    assert 'invalid URI query parameter: "bogus"' in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://ana@db/trec", "no campaign named; add ?campaign=NAME"),
        (
            "postgresql://ana@db/trec?campaign=Bad-Name",
            "campaign name 'Bad-Name': use 1–63 lower-case letters",
        ),
        ("postgresql://ana@db/trec?campaign=pg_x", "campaign name 'pg_x'"),
        ("postgresql://ana@db/trec?campaign=public", "campaign name 'public'"),
        ("postgresql://ana@db/trec?campaign=a&campaign=b", "campaign= is given 2 times"),
        ("mysql://ana@db/trec?campaign=c1", "unsupported campaign URL scheme 'mysql'"),
    ],
)
def test_bad_urls_are_one_line_errors(url: str, message: str) -> None:
    with pytest.raises(StoreError) as err:
        CampaignStore.open(url)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_url_parts_and_labels() -> None:
    parsed = parse_campaign_url("postgres://ana@db:6543/trec?sslmode=require&campaign=c1")
    assert (parsed.user, parsed.host, parsed.database, parsed.campaign) == ("ana", "db", "trec", "c1")
    assert parsed.conninfo == "postgres://ana@db:6543/trec?sslmode=require"  # libpq never sees campaign=
    assert campaign_label("postgresql://ana@db/trec?campaign=c1") == "c1"
    assert campaign_label(Path("judging/example.sqlite")) == "example"


def test_without_the_driver_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now raises ImportError
    with pytest.raises(StoreError) as err:
        CampaignStore.open("postgresql://ana@db/trec?campaign=c1")
    assert str(err.value) == (
        "postgresql:// campaigns need psycopg 3; install the driver with: pip install 'trec-toolkit[postgresql]'"
    )


# ---------------------------------------------------------------------------------------------- on the server


def _raw(url: str):
    """A plain psycopg connection for looking behind the store's back."""
    import psycopg

    return psycopg.connect(parse_campaign_url(url, campaign_required=False).conninfo, autocommit=True)


def test_missing_campaign_names_the_command_that_makes_one(pg_location: str) -> None:
    with pytest.raises(StoreError) as err:
        CampaignStore.open(pg_location)
    name = parse_campaign_url(pg_location).campaign
    assert str(err.value).startswith(f"{pg_location}: no such campaign {name!r} in database ")
    assert str(err.value).endswith(f"create one with `trec-toolkit pool RUN… -o {pg_location}`")


def test_a_schema_that_is_not_a_campaign_is_refused(pg_location: str) -> None:
    name = parse_campaign_url(pg_location).campaign
    with _raw(pg_location) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    with pytest.raises(StoreError, match="exists but is not a campaign; choose another"):
        CampaignStore.open(pg_location, create=True)


def test_newer_schema_is_refused(pg_location: str, make_campaign) -> None:
    from toolkit.judging.postgres.schema import SCHEMA_VERSION

    make_campaign(pg_location)
    name = parse_campaign_url(pg_location).campaign
    with _raw(pg_location) as conn:
        conn.execute(f"UPDATE {name}.schema_info SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="is newer than this trec-toolkit supports"):
        CampaignStore.open(pg_location)


def test_session_settings(pg_location: str, make_campaign) -> None:
    with CampaignStore.open(make_campaign(pg_location)) as store:
        conn = store._link.conn  # type: ignore[attr-defined]
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
        assert conn.execute("SHOW search_path").fetchone()[0] == parse_campaign_url(pg_location).campaign
        owner = conn.execute(
            "SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = current_schema()"
        ).fetchone()[0]
        assert owner == "trec_owner"  # organisers share campaigns through the owner role


def test_the_log_is_append_only_on_the_server(pg_location: str, make_campaign) -> None:
    import psycopg

    with CampaignStore.open(make_campaign(pg_location)) as store:
        store.record("alice", "q1", "d1", grade=1)
        conn = store._link.conn  # type: ignore[attr-defined]
        for statement in (
            "UPDATE judgment_log SET grade = 3",
            "DELETE FROM judgment_log",
            "TRUNCATE judgment_log",
            # an upsert is an update in disguise
            "INSERT INTO judgment_log (event_key, time, assessor, query_id, doc_id, action, grade) "
            "SELECT event_key, time, assessor, query_id, doc_id, action, 0 FROM judgment_log "
            "ON CONFLICT (event_key) DO UPDATE SET grade = excluded.grade",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="the judgment log is append-only"):
                conn.execute(statement)
        assert [(e.grade, e.action) for e in store.log()] == [(1, "judge")]


def test_an_event_key_is_logged_once(pg_location: str, make_campaign) -> None:
    import psycopg

    with CampaignStore.open(make_campaign(pg_location)) as store:
        store.record("alice", "q1", "d1", grade=1)
        conn = store._link.conn  # type: ignore[attr-defined]
        with pytest.raises(psycopg.errors.UniqueViolation, match="judgment_log_event_key_key"):
            conn.execute(
                "INSERT INTO judgment_log (event_key, time, assessor, query_id, doc_id, action, grade) "
                "SELECT event_key, time, assessor, query_id, doc_id, action, grade FROM judgment_log"
            )


def _creator(url: str, barrier, out) -> None:  # runs in a child process
    barrier.wait()
    try:
        with CampaignStore.open(url, create=True) as store:
            out.put(("ok", store.grades()))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        out.put(("error", repr(exc)))


def test_processes_creating_one_campaign_at_once(pg_location: str) -> None:
    ctx = mp.get_context("fork")
    barrier = ctx.Barrier(3)
    out = ctx.Queue()
    procs = [ctx.Process(target=_creator, args=(pg_location, barrier, out)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert results == [("ok", {})] * 3


def _setup(url: str, user: str, barrier, out) -> None:  # runs in a child process
    from toolkit.judging.postgres import setup_campaigns

    barrier.wait()
    try:
        setup_campaigns(url, organisers=[user], assessors=[user])
        out.put("ok")
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        out.put(repr(exc))


def test_campaign_setup_run_by_several_organisers_at_once_succeeds_for_each(pg_server: str) -> None:
    """Two organisers (or two test sessions) running ``campaign setup`` at the same moment: each grant on the
    database rewrites one catalog row, and the server refuses a second concurrent rewrite ("tuple concurrently
    updated") — setup must wait its turn, not fail."""
    user = parse_campaign_url(pg_server, campaign_required=False).user or ""
    ctx = mp.get_context("fork")
    for _ in range(5):
        barrier = ctx.Barrier(4)
        out = ctx.Queue()
        procs = [ctx.Process(target=_setup, args=(pg_server, user, barrier, out)) for _ in range(4)]
        for p in procs:
            p.start()
        results = [out.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        assert results == ["ok"] * 4


def test_campaign_setup_is_idempotent_and_can_create_a_campaign(pg_location: str) -> None:
    from click.testing import CliRunner

    from toolkit.cli import main

    url = pg_location
    parsed = parse_campaign_url(url)
    user, name, database = parsed.user or "", parsed.campaign, parsed.database
    result = CliRunner().invoke(main, ["campaign", "setup", url, "--organiser", user, "--assessor", user])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"trec_owner may create campaigns in database {database}",
        f"{user} is a member of trec_owner",
        f"{user} is a member of trec_assessor",
        f"campaign {name} created in {database}",
    ]
    with CampaignStore.open(url) as store:
        assert store.grades() == {} and store.log() == []
    again = CliRunner().invoke(main, ["campaign", "setup", url])
    assert again.exit_code == 0 and again.output.splitlines()[-1] == f"campaign {name} is ready in {database}"
    server = url.split("?")[0]
    unknown = CliRunner().invoke(main, ["campaign", "setup", server, "--assessor", "no_such_login_role"])
    assert unknown.exit_code == 1
    assert unknown.output == (
        "Error: no login role 'no_such_login_role' on this server; create it first "
        "(CREATE ROLE no_such_login_role LOGIN PASSWORD '…')\n"
    )
