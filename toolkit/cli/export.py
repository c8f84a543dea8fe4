"""``trec-toolkit export``: campaign judgments → TREC qrels under a declared policy (``toolkit.judging.export``)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN, output_option


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option(
    "--policy",
    "policy_text",
    required=True,
    metavar="POLICY",
    help="adjudicated | majority | mean | max | min | assessor=NAME.",
)
@click.option(
    "--fallback",
    type=click.Choice(["majority", "mean", "max", "min"]),
    default="majority",
    help="adjudicated: the policy for items without an adjudication.",
)
@click.option(
    "--unjudged",
    type=click.Choice(["-1", "skip"]),
    default="skip",
    help="Pool items without a grade: write them as -1, or leave them out.",
)
@output_option
def command(
    campaign: str | Path, policy_text: str, fallback: str, unjudged: str, output: Path | None
) -> None:
    """Export CAMPAIGN's judgments as TREC qrels (+ a manifest NAME.qrels.json when -o is given).

    \b
    Policies (per topic and doc, over the assessors' current grades):
      majority     the most frequent grade; a tie goes to the lowest tied grade
      mean         the mean, rounded half up (1.5 -> 2)
      max, min     the highest / lowest grade
      assessor=N   assessor N's grades only
      adjudicated  the adjudicator's grade, else --fallback
    Skips and unrateables are never grades; gold items are never exported. A campaign pooled with --sample
    is exported with a fifth column, each document's inclusion probability (TREC Legal's .probs layout),
    and every document of the sampled pool listed (-1 when not judged).

    \b
    Examples:
      trec-toolkit export judging/example.sqlite --policy majority -o qrels/example.qrels
      trec-toolkit export judging/example.sqlite --policy adjudicated --fallback max -o qrels/adj.qrels
      trec-toolkit export judging/example.sqlite --policy assessor=alice --unjudged -1
    """
    from toolkit.cli.options import emit
    from toolkit.formats.qrels import qrels_name
    from toolkit.pipeline.export import export_campaign, export_text, write_export

    target = output if output is not None and str(output) != "-" else None
    export = export_campaign(
        campaign,
        policy_text,
        fallback=fallback,
        unjudged=-1 if unjudged == "-1" else "skip",
        name=qrels_name(target) if target is not None else "qrels",
    )
    if target is None:
        emit(export_text(export), output)
    else:
        write_export(export, target, campaign=campaign)
        click.echo(f"Wrote {target}", err=True)
