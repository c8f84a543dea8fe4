"""``trec-toolkit progress CAMPAIGN``: the organiser's live screen (same as ``judge CAMPAIGN --progress``)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option(
    "--interval",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Seconds between refreshes (0 = only on r).",
)
@click.option(
    "--fast-below",
    type=click.FloatRange(min=0),
    default=1.0,
    show_default=True,
    help="Flag grades given in less than this many seconds (too fast to have read the document).",
)
def command(campaign: str | Path, interval: float, fast_below: float) -> None:
    """Watch CAMPAIGN being judged: counts, time per topic and session, time left, gold accuracy, fast
    grades, live kappa, stale items.

    \b
    Example:
      trec-toolkit progress judging/example.sqlite
    """
    from toolkit.judging.store import CampaignStore
    from toolkit.tui.progress import ProgressApp

    CampaignStore.open(campaign).close()  # a clean one-line error for a bad path, before the screen opens
    ProgressApp(campaign, interval=interval, fast_below_ms=round(fast_below * 1000)).run()
