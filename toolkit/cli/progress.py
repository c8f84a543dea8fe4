"""``trec-toolkit progress CAMPAIGN``: the organiser's live screen (same as ``judge CAMPAIGN --progress``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from toolkit.cli.options import CAMPAIGN
from toolkit.cli.serving import serve, serve_options


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option(
    "--interval",
    type=click.FloatRange(min=0),
    default=2.0,
    help="Seconds between refreshes (0 = only on r).",
)
@click.option(
    "--fast-below",
    type=click.FloatRange(min=0),
    default=1.0,
    help="Flag grades given in less than this many seconds (too fast to have read the document).",
)
@serve_options
def command(campaign: str | Path, interval: float = 2.0, fast_below: float = 1.0, **serving: Any) -> None:
    """Watch CAMPAIGN being judged: counts, time per topic and session, time left, gold accuracy, fast
    grades, live kappa, stale items.

    With --serve the screen is served to a web browser (http://127.0.0.1:8000 by default). There is no
    login: whoever reaches the port sees who judged what, so it listens on this machine only unless --host
    and --allow-remote say otherwise.

    \b
    Examples:
      trec-toolkit progress judging/example.sqlite
      trec-toolkit progress judging/example.sqlite --serve --port 8002
    """
    from toolkit.judging.store import CampaignStore, campaign_label
    from toolkit.tui.serve import absolute

    CampaignStore.open(campaign).close()  # a clean one-line error for a bad path, before the screen opens
    if serving.pop("serve", False):
        args = [
            "progress",
            f"--interval={interval!r}",
            f"--fast-below={fast_below!r}",
            "--",
            absolute(campaign),
        ]
        who = "can see this campaign's progress: who judged what, and how fast"
        return serve(args, title=f"trec-toolkit progress · {campaign_label(campaign)}", who=who, **serving)
    from toolkit.cli.serving import need_terminal
    from toolkit.tui.progress import ProgressApp

    need_terminal("progress")
    ProgressApp(campaign, interval=interval, fast_below_ms=round(fast_below * 1000)).run()
