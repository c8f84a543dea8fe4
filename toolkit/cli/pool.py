"""``trec-toolkit pool``: build a judging campaign from runs, or add a round to one (``toolkit.pooling``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import CAMPAIGN, say

if TYPE_CHECKING:
    from toolkit.pooling.rounds import RoundResult


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--topics",
    "topics_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Topic set (default: [workspace] topics in toolkit.toml).",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    default=None,
    help="Pool depth per run [default: 10 for depth; no cap for mtf].",
)
@click.option(
    "--strategy",
    type=click.Choice(["depth", "mtf"]),
    default="depth",
    show_default=True,
    help="depth-k union, or move-to-front (Cormack, Palmer & Clarke 1998) under --budget.",
)
@click.option(
    "--budget", type=click.IntRange(min=1), default=None, help="mtf: new documents to select per topic."
)
@click.option(
    "--exclude",
    "exclude_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Qrels whose (topic, doc) pairs are already judged: not queued again (repeatable).",
)
@click.option(
    "--docs",
    "docs_spec",
    default=None,
    metavar="SOURCE",
    help="Doc source: FILE.jsonl, FILE.tsv or a folder [default: [docs] in toolkit.toml].",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help=(
        "Documents (or batches) fetched at once "
        "[default: [workspace] workers, else 4, or the number of CPUs when fewer]."
    ),
)
@click.option(
    "-o",
    "--output",
    "campaign",
    required=True,
    type=CAMPAIGN,
    help="Campaign: judging/NAME.sqlite, or postgresql://user@host:port/db?campaign=NAME; created, or given a new round.",
)
def command(
    runs: tuple[Path, ...],
    topics_path: Path | None,
    depth: int | None,
    strategy: str,
    budget: int | None,
    exclude_paths: tuple[Path, ...],
    docs_spec: str | None,
    workers: int | None,
    campaign: str | Path,
) -> None:
    """Pool RUNS into a campaign: topics, grade definitions, the pool with provenance, doc snapshots.

    Running it again on an existing campaign adds a round: documents already judged (in the campaign or in
    --exclude qrels) are skipped unless their text changed, in which case they are queued again and
    flagged stale. A document that cannot be fetched is recorded as a fetch failure. A topic already graded
    keeps its text: a topic set that rewords it is refused. A new campaign appears only once its first round
    is complete. On a campaign that `assign` has shared out, the new items are assigned by the policy it
    recorded.

    \b
    Examples:
      trec-toolkit pool runs/bm25.run runs/bm25f.run --depth 10 -o judging/example.sqlite
      trec-toolkit pool runs/*.run --strategy mtf --budget 20 -o judging/example.sqlite
      trec-toolkit pool runs/new.run --exclude qrels/stdlib.qrels --docs corpus.jsonl -o judging/r2.sqlite
    """
    from toolkit.cli.options import progress_bar
    from toolkit.pipeline.pool import pool_runs
    from toolkit.workspace import load_workspace

    with progress_bar("docs") as update:
        result = pool_runs(
            load_workspace(),
            runs,
            campaign,
            topics=topics_path,
            strategy=strategy,
            depth=depth,
            budget=budget,
            exclude=exclude_paths,
            docs=docs_spec,
            workers=workers,
            progress=update,
        )
    say_round(result, str(campaign))


def say_round(result: RoundResult, campaign: str) -> None:
    """What a round did (stdout), then what is left to do (stderr)."""
    say(
        f"Round {result.round}: {result.topics} topics, {result.pooled} pooled, {result.queued} queued "
        f"({result.stale} stale), {result.skipped} already judged, {result.pending} already queued, "
        f"{len(result.fetch_failures)} fetch failures -> {campaign}"
    )
    if result.unchanged:
        say(f"{result.unchanged} documents unchanged by version: not fetched again")
    if result.assigned is not None and result.assigned.items:
        shares = ", ".join(f"{a} {n}" for a, n in result.assigned.per_assessor.items() if n)
        say(f"Assigned {result.assigned.items} items by the campaign's policy: {shares}")
    if result.fetch_failures:
        shown = ", ".join(result.fetch_failures[:5]) + (" …" if len(result.fetch_failures) > 5 else "")
        say(f"Warning: could not fetch {len(result.fetch_failures)} document(s): {shown}", err=True)
    if result.unassigned:
        say(
            f"Next: {result.unassigned} items are not assigned to anyone; share them out with\n"
            f"  {result.assign_command(campaign)}",
            err=True,
        )
