"""``trec-toolkit campaign setup|copy|hash``: campaigns on a PostgreSQL server, and moving them between backends."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN


@click.group()
def group() -> None:
    """Campaigns beyond one machine: prepare a PostgreSQL database, copy a campaign between backends.

    CAMPAIGN is a path (an SQLite file) or postgresql://user@host:port/db?campaign=NAME. The password comes
    from PGPASSWORD or ~/.pgpass, never from the URL.

    \b
    Examples:
      trec-toolkit campaign setup postgresql://admin@db.example.org/trec --organiser ana --assessor bo
      trec-toolkit campaign copy judging/example.sqlite 'postgresql://ana@db.example.org/trec?campaign=example'
      trec-toolkit campaign hash judging/example.sqlite
    """


def _names(values: tuple[str, ...]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


@group.command("setup")
@click.argument("admin_url")
@click.option(
    "--organiser",
    "organisers",
    multiple=True,
    metavar="USER[,USER…]",
    help="Login roles that may create, pool, assign and export campaigns (members of trec_owner).",
)
@click.option(
    "--assessor",
    "assessors",
    multiple=True,
    metavar="USER[,USER…]",
    help="Login roles that may judge: read campaigns, INSERT into the log only (members of trec_assessor).",
)
def setup_command(admin_url: str, organisers: tuple[str, ...], assessors: tuple[str, ...]) -> None:
    """Prepare the database of ADMIN_URL for campaigns, once: roles, grants, memberships.

    Creates the roles trec_owner (organisers) and trec_assessor (may only INSERT into a campaign's judgment
    log, and never sees provenance), lets trec_owner create campaigns in the database, and makes the given
    login roles members. With ?campaign=NAME it also creates that campaign, empty. Connect as the database's
    owner with CREATEROLE, or as a superuser; running it again only adds what is missing.

    \b
    Example:
      trec-toolkit campaign setup postgresql://postgres@localhost:5432/trec --organiser ana --assessor bo,cy
    """
    from toolkit.judging.postgres import setup_campaigns

    for line in setup_campaigns(admin_url, organisers=_names(organisers), assessors=_names(assessors)):
        click.echo(line)


@group.command("member")
@click.argument("campaign", type=CAMPAIGN)
@click.argument("login")
@click.option(
    "--as",
    "assessor",
    metavar="NAME",
    help="The assessor name LOGIN judges as (default: the login's own name).",
)
@click.option("--adjudicator", is_flag=True, help="LOGIN may also adjudicate (record final grades).")
def member_command(campaign: str | Path, login: str, assessor: str | None, adjudicator: bool) -> None:
    """Let the database login LOGIN judge in CAMPAIGN as the assessor NAME (and adjudicate).

    On a PostgreSQL server the database enforces it: a login records only as its assessor, only on items
    assigned to that assessor, and adjudicates only when made an adjudicator here. Without a mapping a login
    judges under its own name. Run it again to change a mapping. An SQLite campaign keeps mappings for its
    copies (a file has no logins).

    \b
    Examples:
      trec-toolkit campaign member 'postgresql://ana@db/trec?campaign=web25' bo_smith --as bo
      trec-toolkit campaign member 'postgresql://ana@db/trec?campaign=web25' cy --adjudicator
    """
    from toolkit.errors import UsageError
    from toolkit.formats.names import assessor_problem
    from toolkit.judging.store import CampaignStore

    name = login if assessor is None else assessor
    problem = assessor_problem(name)
    if problem:
        raise UsageError(f"--as: {problem}")
    with CampaignStore.open(campaign) as store:
        store.set_login(login, name, adjudicator=adjudicator)
    role = " and may adjudicate" if adjudicator else ""
    click.echo(f"{login} judges as {name}{role} in {campaign}")


@group.command("copy")
@click.argument("source", type=CAMPAIGN)
@click.argument("target", type=CAMPAIGN)
def copy_command(source: str | Path, target: str | Path) -> None:
    """Copy the campaign SOURCE into a new campaign TARGET, on the same or another backend.

    Everything moves: topics, grade scale, rounds, pool and provenance, document snapshots, assignments,
    gold items and the whole judgment log with its event ids and times, so `judgments export --log` prints
    the same from both. The copy is verified by the content hash (`campaign hash`) before it is kept; TARGET
    must not exist yet.

    \b
    Examples:
      trec-toolkit campaign copy judging/example.sqlite 'postgresql://ana@db:5432/trec?campaign=example'
      trec-toolkit campaign copy 'postgresql://ana@db:5432/trec?campaign=example' judging/archive.sqlite
    """
    from toolkit.judging.dump import copy_campaign

    result = copy_campaign(source, target)
    n = result.counts
    click.echo(
        f"Copied {n['topics']} topics, {n['pool_items']} pooled items, {n['snapshots']} snapshots, "
        f"{n['assignments']} assignments and {n['judgment_log']} log events -> {target}"
    )
    click.echo(f"content sha256 {result.content_hash} (verified on both)")


@group.command("hash")
@click.argument("campaign", type=CAMPAIGN)
def hash_command(campaign: str | Path) -> None:
    """Print the content hash of CAMPAIGN: SHA-256 of its canonical export, the same on every backend.

    It covers topics, grades, rounds, pool, provenance, snapshots, assignments, gold, metadata and the log
    (docs/postgresql.md says exactly how it is computed).

    \b
    Example:
      trec-toolkit campaign hash judging/example.sqlite
    """
    from toolkit.judging.dump import campaign_hash

    digest, _ = campaign_hash(campaign)
    click.echo(f"{digest}  {campaign}")
