"""``trec-toolkit adjudicate CAMPAIGN --adjudicator NAME``: settle disagreements, widest first."""

from __future__ import annotations

from pathlib import Path

import click

from toolkit.cli.options import CAMPAIGN, file_option


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--adjudicator", "-a", required=True, help="Your name, recorded with every adjudicated grade.")
@click.option("--all", "include_done", is_flag=True, help="Also revisit disagreements already adjudicated.")
@file_option(
    "--keys",
    "keys_file",
    help="TOML file remapping keys (same binding ids as `judge --keys`).",
)
@file_option("--guidelines", help="Markdown file shown by `g`.")
@file_option("--config", help="toolkit.toml to use.")
def command(
    campaign: str | Path,
    adjudicator: str,
    include_done: bool,
    keys_file: Path | None,
    guidelines: Path | None,
    config: Path | None,
) -> None:
    """Walk the items of CAMPAIGN where assessors disagree, widest disagreement first.

    \b
    Each screen shows the topic, the document and every assessor's grade and note; a grade key records
    your adjudicated grade in the campaign log (c first adds a note to it). s leaves an item for later,
    u undoes your last adjudication, q quits; run it again to continue.
    \b
    Example:
      trec-toolkit adjudicate judging/example.sqlite --adjudicator carol
    """
    from toolkit.judging.guidelines import default_document_format, read_guidelines
    from toolkit.judging.store import CampaignStore
    from toolkit.tui.keymap import load_keymap
    from toolkit.workspace import load_workspace

    workspace = load_workspace(config)
    with CampaignStore.open(campaign) as store:
        keymap = load_keymap(sorted(store.grades()), config=workspace.config, keys_file=keys_file)
        meta = store.meta()
        text = read_guidelines(guidelines, meta, workspace.config, workspace.root)
        doc_format = default_document_format(workspace.config)
    from toolkit.cli.serving import need_terminal
    from toolkit.tui.adjudicate import adjudicate_app

    need_terminal("adjudicate", serves=False)
    app = adjudicate_app(
        campaign,
        adjudicator,
        keymap=keymap,
        guidelines=text,
        include_done=include_done,
        doc_format=doc_format,
    )
    summary = app.run()
    if summary:
        click.echo(summary, nl=False)
