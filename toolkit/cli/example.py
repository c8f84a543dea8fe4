"""``trec-toolkit example campaign``: the example's judging campaign, ready to judge after the Quickstart."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import output_to, overlap_option, seed_option


@click.group()
def group() -> None:
    """The shipped example workspace (the Python standard library's docstrings)."""


@group.command()
@click.option(
    "--assessors",
    default="alice,bob",
    metavar="A,B,…",
    help="Who judges: the campaign is shared out among them.",
)
@overlap_option("0.2", "Fraction of each topic's items also given to a second assessor (for agreement).")
@seed_option(0, "Seed of the presentation order.")
@output_to("Campaign database [default: judging/stdlib.sqlite in the workspace].")
def campaign(assessors: str, overlap_text: str, seed: int, output: Path | None) -> None:
    """Pool the workspace's committed runs into judging/stdlib.sqlite and share it out, in seconds.

    The same as `pool runs/*.run -o judging/stdlib.sqlite` then `assign … --assessors alice,bob
    --overlap 0.2`, with the workspace's depth, doc source and guidelines. An existing campaign is never
    touched: delete it to build it again.

    \b
    Example (after the Quickstart's `trec-toolkit audit`):
      trec-toolkit example campaign
      trec-toolkit judge judging/stdlib.sqlite --assessor alice
    """
    from toolkit.cli.assign import say_assigned
    from toolkit.cli.options import invoked_as, progress_bar
    from toolkit.cli.pool import say_round
    from toolkit.judging.assign import parse_assessors, parse_overlap
    from toolkit.pipeline.pool import example_campaign
    from toolkit.workspace import load_workspace

    ws = load_workspace()
    names = parse_assessors(assessors)
    with progress_bar("docs") as update:
        made = example_campaign(
            ws,
            output=output,
            assessors=names,
            overlap=parse_overlap(overlap_text),
            seed=seed,
            progress=update,
        )
    where = ws.relative(made.path)
    say_round(made.round, where)
    say_assigned(made.assigned)
    click.echo(f"Judge it:  {invoked_as()} judge {where} --assessor {names[0]}")
