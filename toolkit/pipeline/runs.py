"""Making a run in a workspace: which system, which topic set, which settings, where the run goes.

``run`` and ``audit`` both come through here, so a named system, the run settings (``Workspace.run_settings``),
the failure policy (``toolkit.pipeline.failures``), the pre-flight check and the pilot flag are the same for
both:

* **Pre-flight.** A system that declares ``preflight`` has it run once before its run (``check_system``);
  a failing check stops the command with its output, and what it printed goes to the run's manifest.
* **Pilot.** ``run --pilot`` or ``[systems.NAME] pilot = true`` makes a pilot run, marked in its manifest as
  not for the record (``toolkit.pipeline.pilot`` says what the other commands do with one).
* **Reuse** (``reuse_refusal``): ``audit`` reuses a run only when it is provably what a new run would be.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

from toolkit.errors import UsageError
from toolkit.model import TopicSet
from toolkit.systems.base import System
from toolkit.systems.preflight import PreflightResult
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


def is_pilot(system: System, pilot: bool | None = None) -> bool:
    """Whether a run of ``system`` is a pilot: ``run --pilot`` (``pilot``), else ``[systems.NAME] pilot``."""
    from toolkit.systems import run_options

    return bool(pilot) or bool(run_options(system).get("pilot", False))


def check_system(
    ws: Workspace,
    system: System,
    *,
    timeout: float | None = None,
    log: Callable[[str], None] | None = None,
) -> PreflightResult | None:
    """Make sure ``system`` can be called (its program exists, its environment is set) and run its pre-flight
    check, if it declares one, with the run's timeout; None when it declares none."""
    from toolkit.systems import run_options
    from toolkit.systems.preflight import run_preflight

    check = getattr(system, "check", None)
    if callable(check):
        check()
    preflight = getattr(system, "preflight", None)
    if preflight is None:
        return None
    limit = ws.run_settings(run_options(system), timeout=timeout).timeout
    result = run_preflight(system.name, preflight, timeout=limit)
    if log is not None:
        log(f"Pre-flight {system.name}: {result.summary()}")
    return result


def reuse_refusal(
    path: Path,
    system: System,
    topics: TopicSet,
    depth: int,
    *,
    preflight: PreflightResult | None = None,
    pilot: bool = False,
    allow_pilot: bool = False,
) -> str | None:
    """Why the run at ``path`` cannot stand for a new run of ``system`` (None: it can be reused).

    It must be of exactly this system config, topic set and depth, with no failed topic, its file unchanged
    since its manifest was written, made under the same Python version (a system may depend on it: the
    example corpus is built from the running Python's standard library) and the same pre-flight output; and it
    must be a pilot exactly when this run would be one — with ``allow_pilot``, a pilot run is reused too.
    """
    import platform

    from toolkit.formats.manifest import file_sha256, read_manifest
    from toolkit.pipeline.failures import manifest_failures

    if not path.is_file():
        return "no run yet"
    try:
        manifest = read_manifest(path)
        failed = manifest_failures(manifest, where=path)
    except Exception:  # noqa: BLE001 - an unreadable manifest means "run again", not an error
        return "its manifest cannot be read"
    if not manifest:
        return "it has no manifest"
    described = json.loads(json.dumps({"name": system.name, **system.describe()}))
    recorded = manifest.get("preflight") or {}
    was_pilot = bool(manifest.get("pilot", False))
    checks = [
        (bool(failed), "some of its topics failed"),
        (manifest.get("system") != described, "the system's config changed"),
        ((manifest.get("topic_set") or {}).get("sha256") != topics.sha256, "the topic set changed"),
        (manifest.get("depth") != depth, "the depth changed"),
        (manifest.get("sha256") != file_sha256(path), "the run file changed since its manifest was written"),
        (
            (manifest.get("versions") or {}).get("python") != platform.python_version(),
            "it was made under another Python version",
        ),
        (
            recorded.get("sha256") != (preflight.sha256 if preflight is not None else None),
            "the pre-flight output changed",
        ),
        (was_pilot and not pilot and not allow_pilot, "it is a pilot run, not for the record"),
        (pilot and not was_pilot, "it is not a pilot run"),
    ]
    return next((reason for failed_check, reason in checks if failed_check), None)


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
    pilot: bool | None = None,
    preflight: PreflightResult | None = None,
    log: Callable[[str], None] | None = None,
) -> RunResult:
    """Run ``system`` over ``topics`` with the workspace's settings (arguments that are not None win) and
    apply the failure policy (``label`` prefixes its messages).

    The system's pre-flight check runs first (``check_system``; ``log`` gets its summary) unless the caller
    ran it already and passes its ``preflight`` result; ``pilot`` (else the system's ``pilot``) marks the run.
    """
    from toolkit.pipeline.failures import check_failures
    from toolkit.systems import run_options, run_system

    settings = ws.run_settings(
        run_options(system), depth=depth, workers=workers, timeout=timeout, retries=retries
    )
    if preflight is None:
        preflight = check_system(ws, system, timeout=timeout, log=log)
    result = run_system(
        system,
        topics,
        output=output or run_path(ws, system.name),
        # depth, workers, timeout, retries: the resolved settings are run_system's keywords of those names
        **dataclasses.asdict(settings),
        resume=resume,
        progress=progress,
        run_tag=run_tag,
        command=command,
        root=ws.root,
        preflight=preflight,
        pilot=is_pilot(system, pilot),
    )
    check_failures(result.failures, topics=result.topics, manifest=result.manifest, label=label)
    return result
