"""``trec-toolkit judge CAMPAIGN --assessor NAME``: grade your queue in the terminal (or ``--progress``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from toolkit.cli.options import CAMPAIGN, file_option
from toolkit.cli.serving import serve, serve_options
from toolkit.errors import UsageError


@click.command()
@click.argument("campaign", type=CAMPAIGN)
@click.option("--assessor", "-a", help="Your assessor name, as given to `assign`.")
@click.option(
    "--progress", "show_progress", is_flag=True, help="Open the organiser's progress screen instead."
)
@file_option(
    "--keys",
    "keys_file",
    help='TOML file remapping keys, e.g. `skip = "k"` (binding ids: grade-0 … grade-N, skip, unrateable, '
    "undo, next, previous, note, guidelines, find, help, quit).",
)
@file_option(
    "--guidelines",
    help="Markdown file shown by `g` (default: the campaign's, or [judge] guidelines in toolkit.toml).",
)
@file_option("--config", help="toolkit.toml to use.")
@click.option("--hide-times", is_flag=True, hidden=True, help="Hide timings (for screenshots).")
@serve_options
def command(
    campaign: str | Path,
    assessor: str | None,
    show_progress: bool,
    keys_file: Path | None,
    guidelines: Path | None,
    config: Path | None,
    hide_times: bool,
    **serving: Any,
) -> None:
    """Judge the documents of CAMPAIGN assigned to --assessor, one key per grade.

    \b
    Every judgment is saved before the next document appears (when the campaign is busy, the screen
    says "saving…" and goes on, and q waits until everything is saved); quit any time (q) and run the
    same command to resume where you stopped. Quitting prints what you did. Keys: 0–3 grade (the campaign's scale), s skip, x unrateable,
    u undo, n/p next/previous, c note, g guidelines, / find, ? help, q quit.
    \b
    With --serve the same screen is served to a web browser (http://127.0.0.1:8000 by default; one app
    per tab). There is no login: whoever reaches the port judges as --assessor, so it listens on this
    machine only unless --host and --allow-remote say otherwise.
    \b
    Examples:
      trec-toolkit judge judging/example.sqlite --assessor alice
      trec-toolkit judge judging/example.sqlite --assessor alice --serve --port 8001
      trec-toolkit judge judging/example.sqlite --progress        # the organiser's view
    """
    from toolkit.formats.names import assessor_problem
    from toolkit.judging.guidelines import default_document_format, read_guidelines
    from toolkit.judging.session import assessor_queue
    from toolkit.judging.store import CampaignStore, campaign_label
    from toolkit.tui.keymap import load_keymap
    from toolkit.tui.serve import absolute
    from toolkit.workspace import load_workspace

    workspace = load_workspace(config)
    if show_progress:
        from toolkit.cli.progress import command as progress

        return click.get_current_context().invoke(progress, campaign=campaign, **serving)
    if not assessor:
        raise UsageError("judge: pass --assessor NAME (or --progress for the organiser's screen)")
    problem = assessor_problem(assessor)
    if problem:
        raise UsageError(f"--assessor: {problem}")
    with CampaignStore.open(campaign) as store:
        assessor_queue(store, assessor)  # "no items" now, not in a browser tab later
        keymap = load_keymap(sorted(store.grades()), config=workspace.config, keys_file=keys_file)
        meta = store.meta()
        text = read_guidelines(guidelines, meta, workspace.config, workspace.root)
        doc_format = default_document_format(workspace.config)
    if serving.pop("serve"):
        paths = {"--keys": keys_file, "--guidelines": guidelines, "--config": config}
        args = ["judge", f"--assessor={assessor}", *(f"{k}={absolute(v)}" for k, v in paths.items() if v)]
        args += ["--hide-times"] * hide_times + ["--", absolute(campaign)]
        who = f"can judge as {assessor!r}"
        return serve(
            args, title=f"trec-toolkit judge · {campaign_label(campaign)} · {assessor}", who=who, **serving
        )
    from toolkit.cli.serving import need_terminal
    from toolkit.tui.judge import judge_app
    from toolkit.tui.serve import served

    need_terminal("judge")
    app = judge_app(
        campaign, assessor, keymap=keymap, guidelines=text, show_times=not hide_times, doc_format=doc_format
    )
    summary = app.run()
    if summary:  # served: stdout carries the screen to the browser; the server's console shows stderr
        click.echo(summary, nl=False, err=served())
