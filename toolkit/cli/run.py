"""``trec-toolkit run``: run a system over a topic set and write a TREC run with its manifest."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import click

from toolkit.cli.options import config_option, output_to, say, topics_option

PARSER_CHOICES = ("json", "regex", "lines", "tsv", "trec")


@click.command("run")
@click.argument("system_name", metavar="[SYSTEM]", required=False)
@click.option(
    "--command",
    "command_text",
    metavar="TEMPLATE",
    help="An inline command system, split like a shell line but never run by one: "
    "'prog search {query} --limit {depth}'.",
)
@click.option(
    "--parser",
    type=click.Choice(PARSER_CHOICES),
    default=None,
    help="How to read an inline command's output (default lines).",
)
@click.option("--ids", "ids_expr", metavar="JMESPATH", help="json parser: where the doc ids are.")
@click.option(
    "--scores", "scores_expr", metavar="JMESPATH", help="json parser: where the system's scores are."
)
@click.option("--pattern", metavar="REGEX", help="regex parser: the doc id pattern.")
@topics_option("Topic set (default: [workspace] topics in toolkit.toml).")
@output_to("Run file to write (default runs/SYSTEM.run).")
@click.option("--depth", type=int, default=None, help="Results per topic (default: toolkit.toml, else 10).")
@click.option(
    "--workers",
    type=int,
    default=None,
    help="Parallel calls (default: toolkit.toml, else 4, or the number of CPUs when fewer).",
)
@click.option(
    "--timeout", type=float, default=None, help="Seconds per call (default: toolkit.toml, else 30)."
)
@click.option(
    "--retries",
    type=int,
    default=None,
    help="Extra tries after a failed call (default: toolkit.toml, else 0).",
)
@click.option("--resume", is_flag=True, help="Finish an interrupted run without re-asking finished topics.")
@click.option("--tag", "run_tag", help="The run_tag column (default: the system name).")
@click.option(
    "--pilot",
    is_flag=True,
    default=None,
    help="A pilot run, not for the record: the manifest says so, reports say so, audit and gate refuse it.",
)
@config_option
def command(
    system_name: str | None,
    command_text: str | None,
    parser: str | None,
    ids_expr: str | None,
    scores_expr: str | None,
    pattern: str | None,
    topics_path: Path | None,
    output: Path | None,
    depth: int | None,
    workers: int | None,
    timeout: float | None,
    retries: int | None,
    resume: bool,
    run_tag: str | None,
    pilot: bool | None,
    config_path: Path | None,
) -> None:
    """Run SYSTEM (a [systems.NAME] of toolkit.toml, or --command) over a topic set.

    \b
    Writes runs/SYSTEM.run (TREC) and runs/SYSTEM.run.json (manifest: command, topic-set hash,
    system config, pre-flight output, per-topic latency, failures). A system's pre-flight check runs
    first and stops the run when it fails. A failed or timed-out call leaves its topic empty and is
    recorded; an interrupted run continues with --resume.

    \b
    Examples:
      trec-toolkit run bm25
      trec-toolkit run bm25f --topics topics/stdlib.toml --depth 20 --workers 4
      trec-toolkit run mine --command 'mysearch {query} --limit {depth}' --parser lines
    """
    from toolkit.cli.options import progress_bar
    from toolkit.pipeline.runs import make_run, resolve_system, run_path
    from toolkit.systems import journal_path
    from toolkit.workspace import load_workspace

    ws = load_workspace(config_path)
    system = resolve_system(
        ws,
        system_name,
        command=command_text,
        parser=parser,
        ids=ids_expr,
        scores=scores_expr,
        pattern=pattern,
        output=output,
    )
    topics = ws.topics(topics_path)
    out = output or run_path(ws, system.name)
    try:
        with progress_bar("topics") as update:
            result = make_run(
                ws,
                system,
                topics,
                output=out,
                depth=depth,
                workers=workers,
                timeout=timeout,
                retries=retries,
                resume=resume,
                run_tag=run_tag,
                progress=partial(update, f"run {system.name}") if update else None,
                pilot=pilot,
                log=partial(say, err=True),
            )
    except KeyboardInterrupt:
        click.echo(f"Finished topics are kept in {journal_path(out)}; add --resume to continue.", err=True)
        raise
    p50 = f"{result.latency_p50_ms:.0f}" if result.latency_p50_ms is not None else "-"
    p95 = f"{result.latency_p95_ms:.0f}" if result.latency_p95_ms is not None else "-"
    resumed = f", {result.resumed} resumed" if result.resumed else ""
    pilot_note = " as a PILOT run, not for the record" if result.pilot else ""
    click.echo(
        f"Wrote {result.path}{pilot_note} ({result.topics} topics{resumed}, {len(result.failures)} failed; "
        f"latency p50 {p50} ms, p95 {p95} ms)",
        err=True,
    )
