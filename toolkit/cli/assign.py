"""``trec-toolkit assign``: give assessors their share of a campaign's pool (``toolkit.judging.assign``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkit.cli.options import CAMPAIGN, docs_source_option, overlap_option, say, seed_option

if TYPE_CHECKING:
    from toolkit.judging.assign import AssignResult


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--assessors", required=True, metavar="A,B,…", help="Comma-separated assessor names.")
@overlap_option(
    "0",
    "Fraction of each topic's items also given to a second assessor; 'all' = every assessor "
    "judges every item.",
)
@click.option(
    "--gold",
    "gold_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Gold items with known grades, TSV query_id doc_id grade (given to every assessor).",
)
@docs_source_option(
    "docs_spec", "Doc source for gold documents not in the pool [default: [docs] in toolkit.toml]."
)
@seed_option(0, "Seed of the presentation order and overlap draw.")
def command(
    campaign: str | Path,
    assessors: str,
    overlap_text: str,
    gold_path: Path | None,
    docs_spec: str | None,
    seed: int,
) -> None:
    """Assign CAMPAIGN's unassigned pool items: whole topics per assessor, overlap by item within each topic.

    Each assessor sees their items topic by topic in a seeded order, with no run names, ranks or other
    assessors' grades. Running it again assigns only items nobody has (the same command twice changes
    nothing; a topic stays with its owner). Names are trimmed and matched exactly; one that differs from
    an existing assessor only by case or blanks is warned about. The policy (assessors, overlap, seed) is
    recorded: a later `pool` round assigns its new items the same way.

    \b
    Examples:
      trec-toolkit assign judging/example.sqlite --assessors alice,bob --overlap 0.2
      trec-toolkit assign judging/example.sqlite --assessors alice,bob,carol --overlap all --seed 7
      trec-toolkit assign judging/example.sqlite --assessors alice,bob --gold judging/gold.tsv
    """
    from toolkit.judging.assign import assign, parse_assessors, parse_overlap, read_gold
    from toolkit.judging.store import CampaignStore
    from toolkit.pooling.rounds import fetch_missing
    from toolkit.workspace import load_workspace

    overlap = parse_overlap(overlap_text)
    with CampaignStore.open(campaign) as store:
        gold = read_gold(gold_path, store) if gold_path is not None else {}
        gold_docs = fetch_missing(store, [d for _, d in gold], lambda: load_workspace().doc_source(docs_spec))
        result = assign(
            store, parse_assessors(assessors), overlap=overlap, seed=seed, gold=gold, gold_documents=gold_docs
        )
    say_assigned(result)


def say_assigned(result: AssignResult) -> None:
    """Per assessor: new items, the topics they are in and the topics owned; then the totals."""
    for name, count in result.per_assessor.items():
        topics, owned = result.topics_per_assessor[name], result.primary_topics[name]
        say(f"{name}: {count} new items in {len(topics)} topics ({len(owned)} owned)")
    if result.items:
        click.echo(
            f"Assigned {result.items} items ({result.overlap_items} overlap, {result.gold_items} gold per "
            f"assessor), seed {result.seed}"
        )
    else:
        click.echo("Nothing new to assign: every pool item already has its assessors")
