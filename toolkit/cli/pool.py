"""``trec-toolkit pool``: build a judging campaign from runs, or add a round to one (``toolkit.pooling``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import CAMPAIGN, docs_source_option, pool_depth_option, say, seed_option

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
@pool_depth_option("--depth", None, "Pool depth per run [default: 10 for depth; no cap for mtf].")
@click.option(
    "--strategy",
    type=click.Choice(["depth", "mtf", "maxmean", "sample"]),
    default=None,
    help="depth-k union [default]; move-to-front (Cormack et al. 1998) or the MaxMean bandit (Losada et al. "
    "2017) under --budget; a stratified sample (--sample, or strata derived from --budget).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="mtf, maxmean, sample: new documents to select per topic (over all topics with --total).",
)
@click.option(
    "--total",
    is_flag=True,
    help="--budget is over all topics together, shared as evenly as their pools allow.",
)
@click.option(
    "--sample",
    "sample_spec",
    default=None,
    metavar="STRATA",
    help="Sample the pool by best rank, e.g. 1-10:1,11-50:0.2 (rank range: rate); implies --strategy sample.",
)
@seed_option(42, "Seed of the sample's draw (per topic and stratum).")
@click.option(
    "--exclude",
    "exclude_paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Qrels whose (topic, doc) pairs are already judged: not queued again (repeatable).",
)
@docs_source_option(
    "docs_spec", "Doc source: FILE.jsonl, FILE.tsv or a folder [default: [docs] in toolkit.toml]."
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
    strategy: str | None,
    budget: int | None,
    total: bool,
    sample_spec: str | None,
    seed: int,
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

    A budget order (mtf, maxmean) is adaptive: each round selects --budget new documents per topic and
    re-ranks what is left with the judgments made since, so run it again after each batch is judged; every
    step of a MaxMean walk is stored. A sample stores the inclusion probability of every document of the
    pool (drawn or not); `export` writes it as the qrels' fifth column. See docs/judging-less.md.

    \b
    Examples:
      trec-toolkit pool runs/bm25.run runs/bm25f.run --depth 10 -o judging/example.sqlite
      trec-toolkit pool runs/*.run --strategy mtf --budget 20 -o judging/example.sqlite
      trec-toolkit pool runs/*.run --strategy maxmean --budget 2000 --total --depth 20 -o judging/mm.sqlite
      trec-toolkit pool runs/*.run --sample 1-5:1,6-20:0.2 -o judging/sampled.sqlite
      trec-toolkit pool runs/new.run --exclude qrels/stdlib.qrels --docs corpus.jsonl -o judging/r2.sqlite
    """
    from toolkit.cli.options import progress_bar
    from toolkit.errors import UsageError
    from toolkit.pipeline.pool import pool_runs
    from toolkit.pooling.rounds import Design
    from toolkit.pooling.sampling import parse_strata
    from toolkit.workspace import load_workspace

    if sample_spec is not None and strategy not in (None, "sample"):
        raise UsageError(f"--sample draws a sample: it does not go with --strategy {strategy}")
    strategy = strategy or ("sample" if sample_spec is not None else "depth")
    if total and budget is None:
        raise UsageError("--total says how to read --budget N; give --budget too")
    strata = parse_strata(sample_spec) if sample_spec is not None else ()
    if strata and depth is not None and depth != strata[-1].last:
        raise UsageError(
            f"--depth {depth} disagrees with --sample, whose strata end at rank {strata[-1].last}"
        )
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
            design=Design(total=total, strata=strata, seed=seed),
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
    if result.steps:
        say(
            f"Budget order: {result.selected} documents selected in {result.steps} recorded steps; judge them, "
            "then pool again to spend the next round"
        )
    if result.strata:
        say(
            f"Sample: {result.pooled} of {result.population} documents drawn (strata {', '.join(result.strata)}); "
            "inclusion probabilities stored"
        )
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
