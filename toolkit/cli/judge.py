"""``trec-toolkit judge CAMPAIGN --assessor NAME``: grade your queue in the terminal (or ``--progress``)."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN
from toolkit.errors import UsageError


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--assessor", "-a", help="Your assessor name, as given to `assign`.")
@click.option(
    "--progress", "show_progress", is_flag=True, help="Open the organiser's progress screen instead."
)
@click.option(
    "--keys",
    "keys_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help='TOML file remapping keys, e.g. `skip = "k"` (binding ids: grade-0 … grade-N, skip, unrateable, '
    "undo, next, previous, note, guidelines, find, help, quit).",
)
@click.option(
    "--guidelines",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Markdown file shown by `g` (default: the campaign's, or [judge] guidelines in toolkit.toml).",
)
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), help="toolkit.toml to use.")
@click.option("--hide-times", is_flag=True, hidden=True, help="Hide timings (for screenshots).")
def command(
    campaign: str | Path,
    assessor: str | None,
    show_progress: bool,
    keys_file: Path | None,
    guidelines: Path | None,
    config: Path | None,
    hide_times: bool,
) -> None:
    """Judge the documents of CAMPAIGN assigned to --assessor, one key per grade.

    \b
    Every judgment is saved before the next document appears (when the campaign is busy, the screen
    says "saving…" and goes on, and q waits until everything is saved); quit any time (q) and run the
    same command to resume where you stopped. Quitting prints what you did. Keys: 0–3 grade (the campaign's scale), s skip, x unrateable,
    u undo, n/p next/previous, c note, g guidelines, / find, ? help, q quit.
    \b
    Examples:
      trec-toolkit judge judging/example.sqlite --assessor alice
      trec-toolkit judge judging/example.sqlite --progress        # the organiser's view
    """
    from toolkit.judging.guidelines import default_document_format, read_guidelines
    from toolkit.judging.store import CampaignStore
    from toolkit.tui.keymap import load_keymap
    from toolkit.workspace import load_workspace

    workspace = load_workspace(config)
    if show_progress:
        from toolkit.tui.progress import ProgressApp

        CampaignStore.open(campaign).close()  # a clean error for a bad path, before the screen opens
        ProgressApp(campaign).run()
        return
    if not assessor:
        raise UsageError("judge: pass --assessor NAME (or --progress for the organiser's screen)")
    with CampaignStore.open(campaign) as store:
        keymap = load_keymap(sorted(store.grades()), config=workspace.config, keys_file=keys_file)
        meta = store.meta()
        text = read_guidelines(guidelines, meta, workspace.config, workspace.root)
        doc_format = default_document_format(workspace.config)
    from toolkit.tui.judge import judge_app

    app = judge_app(
        campaign, assessor, keymap=keymap, guidelines=text, show_times=not hide_times, doc_format=doc_format
    )
    summary = app.run()
    if summary:
        click.echo(summary, nl=False)
