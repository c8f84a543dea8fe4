"""``trec-toolkit progress CAMPAIGN``: the organiser's live screen (same as ``judge CAMPAIGN --progress``)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("campaign", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--interval",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Seconds between refreshes (0 = only on r).",
)
def command(campaign: Path, interval: float) -> None:
    """Watch CAMPAIGN being judged: counts per assessor and topic, time per judgment, live kappa, stale items.

    \b
    Example:
      trec-toolkit progress judging/example.sqlite
    """
    from toolkit.judging.store import CampaignStore
    from toolkit.tui.progress import ProgressApp

    CampaignStore.open(campaign).close()  # a clean one-line error for a bad path, before the screen opens
    ProgressApp(campaign, interval=interval).run()
