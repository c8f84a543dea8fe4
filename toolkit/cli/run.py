"""``trec-toolkit run``: run a system over a topic set and write a TREC run with its manifest."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import click

from toolkit.errors import SystemCallError, ToolkitWarning, UsageError

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
@click.option(
    "--topics",
    "topics_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Topic set (default: [workspace] topics in toolkit.toml).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Run file to write (default runs/SYSTEM.run).",
)
@click.option("--depth", type=int, default=None, help="Results per topic (default: toolkit.toml, else 10).")
@click.option("--workers", type=int, default=None, help="Parallel calls (default: toolkit.toml, else 4).")
@click.option(
    "--timeout", type=float, default=None, help="Seconds per call (default: toolkit.toml, else 30)."
)
@click.option("--retries", type=int, default=None, help="Extra attempts after a failed call (default 0).")
@click.option("--resume", is_flag=True, help="Finish an interrupted run without re-asking finished topics.")
@click.option("--tag", "run_tag", help="The run_tag column (default: the system name).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="toolkit.toml to use (default: found from the current folder up).",
)
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
    config_path: Path | None,
) -> None:
    """Run SYSTEM (a [systems.NAME] of toolkit.toml, or --command) over a topic set.

    \b
    Writes runs/SYSTEM.run (TREC) and runs/SYSTEM.run.json (manifest: command, topic-set hash,
    system config, per-topic latency, failures). A failed or timed-out call leaves its topic empty
    and is recorded; an interrupted run continues with --resume.

    \b
    Examples:
      trec-toolkit run bm25
      trec-toolkit run bm25f --topics topics/stdlib.toml --depth 20 --workers 4
      trec-toolkit run mine --command 'mysearch {query} --limit {depth}' --parser lines
    """
    from toolkit.formats.topics import read_topics
    from toolkit.systems import journal_path, load_systems, run_options, run_system, system_from_command
    from toolkit.workspace import load_workspace

    workspace = load_workspace(config_path)
    settings = workspace.settings
    if command_text is not None:
        if not system_name and output is None:
            raise UsageError("with --command, name the system (trec-toolkit run NAME --command …) or give -o")
        name = system_name or output.name.split(".")[0]  # type: ignore[union-attr]
        system = system_from_command(
            command_text,
            name=name,
            parser=parser or "lines",
            ids=ids_expr,
            scores=scores_expr,
            pattern=pattern,
            workspace=workspace,
        )
    else:
        if any(v is not None for v in (parser, ids_expr, scores_expr, pattern)):
            raise UsageError(
                "--parser/--ids/--scores/--pattern apply to --command; a named system's come from toolkit.toml"
            )
        systems = load_systems(workspace)
        if not system_name:
            names = ", ".join(systems) or "none declared"
            raise UsageError(f"name a system ({names}) or give --command TEMPLATE")
        if system_name not in systems:
            where = workspace.config_path or "no toolkit.toml found"
            names = ", ".join(systems) or "none"
            raise UsageError(
                f"unknown system {system_name!r} ({where}); declared: {names}; or give --command"
            )
        system = systems[system_name]
    options = run_options(system)

    topic_file = topics_path or workspace.default_topics
    if topic_file is None:
        raise UsageError("no topic set: pass --topics PATH or set [workspace] topics in toolkit.toml")
    topics = read_topics(topic_file)
    out = output or _relative(workspace.runs_dir / f"{system.name}.run")

    def pick(cli: object, key: str, default: object) -> object:
        return cli if cli is not None else options.get(key, settings.get(key, default))

    try:
        result = run_system(
            system,
            topics,
            output=out,
            depth=int(pick(depth, "depth", 10)),  # type: ignore[call-overload]
            workers=int(pick(workers, "workers", min(4, os.cpu_count() or 1))),  # type: ignore[call-overload]
            timeout=float(pick(timeout, "timeout", 30.0)),  # type: ignore[arg-type]
            retries=int(pick(retries, "retries", 0)),  # type: ignore[call-overload]
            resume=resume,
            progress=True,
            run_tag=run_tag,
            command=[Path(sys.argv[0]).name, *sys.argv[1:]],
        )
    except KeyboardInterrupt:
        click.echo(f"Finished topics are kept in {journal_path(out)}; add --resume to continue.", err=True)
        raise
    failures = result.failures
    if failures and len(failures) == result.topics:
        first = failures[0]
        detail = first.stderr_tail.strip().splitlines()[-1:] if first.stderr_tail.strip() else []
        raise SystemCallError(
            f"every topic failed ({result.topics}); first: {first.query_id}: {first.reason}"
            + (f": {detail[0]}" if detail else "")
            + f" (details in {result.manifest})"
        )
    if failures:
        shown = "; ".join(f"{f.query_id}: {f.reason}" for f in failures[:3])
        more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
        warnings.warn(
            f"{len(failures)} of {result.topics} topics failed and have no results ({shown}{more}); "
            f"see {result.manifest}",
            ToolkitWarning,
            stacklevel=1,
        )
    p50 = f"{result.latency_p50_ms:.0f}" if result.latency_p50_ms is not None else "-"
    p95 = f"{result.latency_p95_ms:.0f}" if result.latency_p95_ms is not None else "-"
    resumed = f", {result.resumed} resumed" if result.resumed else ""
    click.echo(
        f"Wrote {result.path} ({result.topics} topics{resumed}, {len(failures)} failed; "
        f"latency p50 {p50} ms, p95 {p95} ms)",
        err=True,
    )


def _relative(path: Path) -> Path:
    """A path under the current folder is shown (and recorded) relative to it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path
