"""``trec-toolkit judgments export|import``: a campaign's judgments as TSV/CSV/JSONL, and back in."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN, emit, report_options


@click.group()
def group() -> None:
    """Move judgments in and out of a campaign (current judgments, the full log, spreadsheet imports).

    \b
    Examples:
      trec-toolkit judgments export judging/example.sqlite -o judgments.tsv
      trec-toolkit judgments export judging/example.sqlite --log --format jsonl
      trec-toolkit judgments import judging/example.sqlite judgments.tsv
    """


@group.command("export")
@click.argument("campaign", type=CAMPAIGN)
@click.option(
    "--log", "full_log", is_flag=True, help="The full append-only log instead of current judgments."
)
@click.option("--include-gold", is_flag=True, help="Also the judgments of gold (quality-control) items.")
@report_options("tsv", "csv", "jsonl", default="tsv")
def export_command(
    campaign: str | Path, full_log: bool, include_gold: bool, fmt: str, output: Path | None
) -> None:
    """Write CAMPAIGN's current judgments (or, with --log, every event) as TSV, CSV or JSONL.

    TSV and CSV have a header and the columns assessor, query_id, doc_id, grade (a number, skip or
    unrateable), note and duration_ms; JSONL carries every field, the time of each judgment too. Every
    layout is what `judgments import` and `agree` read back.

    \b
    Examples:
      trec-toolkit judgments export judging/example.sqlite -o judgments.tsv
      trec-toolkit judgments export judging/example.sqlite --format csv -o judgments.csv
      trec-toolkit judgments export judging/example.sqlite --log --format jsonl -o log.jsonl
    """
    from toolkit.formats.judgments import format_judgments, format_log
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(campaign) as store:
        if full_log:
            text = format_log(store.log(), fmt)
        else:
            text = format_judgments(store.current_judgments(include_gold=include_gold), fmt)
    emit(text, output)


@group.command("import")
@click.argument("campaign", type=CAMPAIGN)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--allow-unpooled",
    is_flag=True,
    help="Also import grades of documents the campaign pooled for another topic only.",
)
def import_command(campaign: str | Path, file: Path, allow_unpooled: bool) -> None:
    """Append judgments from FILE (TSV assessor, query_id, doc_id, grade[, note]; CSV; JSONL) to CAMPAIGN.

    FILE is what `judgments export` writes, in any of its formats. Every line is checked first — unknown
    topics, unknown documents, documents pooled for another topic only (unless --allow-unpooled) and
    grades off the campaign's scale are reported as FILE:LINE errors — and nothing is imported unless
    the whole file is clean.

    \b
    Example:
      trec-toolkit judgments import judging/example.sqlite spreadsheet.tsv
    """
    from toolkit.judging.exchange import import_judgments
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(campaign) as store:
        count = import_judgments(store, file, allow_unpooled=allow_unpooled)
    click.echo(f"Imported {count} judgments into {campaign}")
