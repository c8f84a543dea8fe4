"""``trec-toolkit export``: campaign judgments → TREC qrels under a declared policy (``toolkit.judging.export``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import output_option

if TYPE_CHECKING:
    from toolkit.judging.store import CampaignStore


@click.command()
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
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
    show_default=True,
    help="adjudicated: the policy for items without an adjudication.",
)
@click.option(
    "--unjudged",
    type=click.Choice(["-1", "skip"]),
    default="skip",
    show_default=True,
    help="Pool items without a grade: write them as -1, or leave them out.",
)
@output_option
def command(campaign: Path, policy_text: str, fallback: str, unjudged: str, output: Path | None) -> None:
    """Export CAMPAIGN's judgments as TREC qrels (+ a manifest NAME.qrels.json when -o is given).

    \b
    Policies (per topic and doc, over the assessors' current grades):
      majority     the most frequent grade; a tie goes to the lowest tied grade
      mean         the mean, rounded half up (1.5 -> 2)
      max, min     the highest / lowest grade
      assessor=N   assessor N's grades only
      adjudicated  the adjudicator's grade, else --fallback
    Skips and unrateables are never grades; gold items are never exported.

    \b
    Examples:
      trec-toolkit export judging/example.sqlite --policy majority -o qrels/example.qrels
      trec-toolkit export judging/example.sqlite --policy adjudicated --fallback max -o qrels/adj.qrels
      trec-toolkit export judging/example.sqlite --policy assessor=alice --unjudged -1
    """
    from toolkit.cli.options import emit
    from toolkit.formats.manifest import write_manifest
    from toolkit.formats.qrels import format_qrels, qrels_name
    from toolkit.judging.export import export_qrels, parse_policy
    from toolkit.judging.store import CampaignStore

    policy = parse_policy(policy_text, fallback=fallback)
    name = qrels_name(output) if output is not None and str(output) != "-" else "qrels"
    with CampaignStore.open(campaign) as store:
        result = export_qrels(store, policy, unjudged=-1 if unjudged == "-1" else "skip", name=name)
        agreement = _agreement(store)
        log = store.log()
        state = {
            "path": str(campaign),
            "rounds": len(store.rounds()),
            "log_events": len(log),
            "last_event_id": log[-1].event_id if log else None,
        }
    if not result.qrels.judgments:
        from toolkit.errors import ToolkitError

        raise ToolkitError(f"{campaign}: no graded judgments under policy {result.policy}; nothing to export")
    emit(format_qrels(result.qrels), output)
    if output is not None and str(output) != "-":
        extra = result.manifest()
        extra["campaign"] = state  # the log position pins down which judgments were exported
        if agreement is not None:
            extra["agreement"] = agreement
        write_manifest(output, kind="qrels", inputs={"campaign": campaign}, extra=extra)


def _agreement(store: CampaignStore) -> dict[str, object] | None:
    """The agreement summary for the manifest, when ``toolkit.agreement`` can compute one."""
    try:
        from toolkit.agreement import agreement_summary
    except ImportError:
        return None
    from toolkit.errors import ToolkitError

    judgments = [j for j in store.current_judgments() if j.action == "judge"]
    if not judgments:
        return None
    try:
        return agreement_summary(judgments, labels=sorted(store.grades()))
    except ToolkitError:
        return None
