"""Making a run in a workspace: which system, which topic set, which settings, where the run goes.

``run`` and ``audit`` both come through here, so a named system, the run settings (``Workspace.run_settings``)
and the failure policy (``toolkit.pipeline.failures``) are the same for both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from toolkit.errors import UsageError
from toolkit.model import TopicSet
from toolkit.systems.base import System
from toolkit.systems.runner import RunResult
from toolkit.workspace import Workspace


def resolve_system(
    ws: Workspace,
    name: str | None = None,
    *,
    command: str | None = None,
    parser: str | None = None,
    ids: str | None = None,
    scores: str | None = None,
    pattern: str | None = None,
    output: Path | None = None,
) -> System:
    """A ``[systems.NAME]`` of the workspace, or an inline ``command`` named ``name`` (else after ``output``)."""
    from toolkit.systems import system_from_command

    if command is not None:
        if not name and output is None:
            raise UsageError("with --command, name the system (trec-toolkit run NAME --command …) or give -o")
        return system_from_command(
            command,
            name=name or output.name.split(".")[0],  # type: ignore[union-attr]
            parser=parser or "lines",
            ids=ids,
            scores=scores,
            pattern=pattern,
            root=ws.root,
        )
    if any(v is not None for v in (parser, ids, scores, pattern)):
        raise UsageError(
            "--parser/--ids/--scores/--pattern apply to --command; a named system's come from toolkit.toml"
        )
    systems = ws.systems()
    if not name:
        raise UsageError(
            f"name a system ({', '.join(systems) or 'none declared'}) or give --command TEMPLATE"
        )
    if name not in systems:
        where = ws.config_path or "no toolkit.toml found"
        raise UsageError(
            f"unknown system {name!r} ({where}); declared: {', '.join(systems) or 'none'}; or give --command"
        )
    return systems[name]


def run_path(ws: Workspace, name: str) -> Path:
    """Where a system's run goes by default: ``runs/NAME.run``, relative to the current folder when under it
    (that is how it is shown and recorded)."""
    path = ws.runs_dir / f"{name}.run"
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def make_run(
    ws: Workspace,
    system: System,
    topics: TopicSet,
    *,
    output: Path | None = None,
    depth: int | None = None,
    workers: int | None = None,
    timeout: float | None = None,
    retries: int | None = None,
    resume: bool = False,
    run_tag: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    command: list[str] | None = None,
    label: str = "",
) -> RunResult:
    """Run ``system`` over ``topics`` with the workspace's settings (arguments that are not None win) and
    apply the failure policy (``label`` prefixes its messages)."""
    from toolkit.pipeline.failures import check_failures
    from toolkit.systems import run_options, run_system

    settings = ws.run_settings(
        run_options(system), depth=depth, workers=workers, timeout=timeout, retries=retries
    )
    result = run_system(
        system,
        topics,
        output=output or run_path(ws, system.name),
        depth=settings.depth,
        workers=settings.workers,
        timeout=settings.timeout,
        retries=settings.retries,
        resume=resume,
        progress=progress,
        run_tag=run_tag,
        command=command,
        root=ws.root,
    )
    check_failures(result.failures, topics=result.topics, manifest=result.manifest, label=label)
    return result
