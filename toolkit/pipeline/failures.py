"""The run-failure policy: which topics of a run failed, and what a command does about it.

A topic whose system call failed after every retry is left empty in the run and recorded in its manifest
(``toolkit.systems.runner``). Scored, it counts 0 like a topic the system found nothing for — a silent wrong
number if nobody says so. So every command that makes or uses a run asks this module, and they all say the
same thing:

* some topics failed → one warning naming them (the run goes on; the numbers carry the failures);
* every topic failed → an error: the system is down or misconfigured, and its run would compare nothing;
* a run with failed topics is never reused by ``audit``: it is asked again, as ``run --resume`` asks the
  failed topics again;
* a comparison (``compare``, ``audit``, ``gate``) lists the failed topics of every run, and a candidate
  compared with a run that has failed topics is **not comparable** — its verdict reads "not comparable: N
  topics failed in RUN" — unless the user opts in (``--allow-failed``), when the verdict is given and the
  failures are still listed (``comparison_failures``);
* a failed topic is never a refusal: the refusal outcome (``toolkit.scoring.refusal``) counts an empty result
  as "returned nothing" only when the manifest does not record it as failed. A run without a manifest cannot
  say, so ``recorded_failures`` gives None for it and its empty results count as refusals, with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import FormatError, SystemCallError, ToolkitWarning
from toolkit.model import Run

if TYPE_CHECKING:  # imported where used: ``score`` asks about a bare run file, and needs neither
    from toolkit.stats.result import Failures
    from toolkit.systems.runner import Failure


def manifest_failures(
    manifest: Mapping[str, Any] | None, *, where: str | Path = "manifest"
) -> tuple[Failure, ...]:
    """The failures a run manifest records (none for a run without a manifest, e.g. one made elsewhere)."""
    from toolkit.formats.manifest import failure_entries
    from toolkit.systems.runner import Failure

    if not manifest:
        return ()
    entries = failure_entries(manifest, where=where)
    try:
        return tuple(Failure(**entry) for entry in entries)
    except TypeError:
        raise FormatError(
            where, None, "failures must be a list of failure records; delete the manifest and run again"
        ) from None


def recorded_failures(
    runs: Sequence[Run], manifests: Mapping[str, Mapping[str, Any] | None] | None = None
) -> dict[str, tuple[str, ...] | None]:
    """Per run name, the topics whose system call failed, from each run's manifest (``manifests`` by run
    name; a run not in it has its manifest read beside ``run.path``) — None for a run without a manifest:
    its failures are unknown, not absent."""
    from toolkit.formats.manifest import read_manifest

    out: dict[str, tuple[str, ...] | None] = {}
    for run in runs:
        if manifests is not None and run.name in manifests:
            manifest = manifests[run.name]
        else:
            manifest = read_manifest(run.path) if run.path else None
        where = run.path or run.name
        out[run.name] = (
            None if manifest is None else tuple(f.query_id for f in manifest_failures(manifest, where=where))
        )
    return out


def recorded_failures_at(paths: Sequence[str | Path]) -> dict[str, tuple[str, ...] | None]:
    """``recorded_failures`` for run files not read yet, by run name."""
    from toolkit.formats.manifest import recorded_failed_topics
    from toolkit.formats.run import run_name

    return {run_name(path): recorded_failed_topics(path) for path in paths}


def check_failures(
    failures: Sequence[Failure], *, topics: int, manifest: str | Path | None, label: str = ""
) -> None:
    """Warn about failed topics; raise when every one of ``topics`` failed. ``label`` prefixes the message
    (``"run bm25: "`` in an audit, where several runs are made). ``manifest`` is None when the run went to
    something other than a file (no manifest)."""
    if not failures:
        return
    where = f"details in {manifest}" if manifest is not None else "no manifest beside a non-file output"
    if len(failures) == topics:
        first = failures[0]
        detail = first.stderr_tail.strip().splitlines()[-1:] if first.stderr_tail.strip() else []
        raise SystemCallError(
            f"{label}every topic failed ({topics}); first: {first.query_id}: {first.reason}"
            + (f": {detail[0]}" if detail else "")
            + f" ({where})"
        )
    shown = "; ".join(f"{f.query_id}: {f.reason}" for f in failures[:3])
    more = f" and {len(failures) - 3} more" if len(failures) > 3 else ""
    warnings.warn(
        f"{label}{len(failures)} of {topics} topics failed and have no results ({shown}{more}); "
        + (f"see {manifest}" if manifest is not None else "no manifest beside a non-file output"),
        ToolkitWarning,
        stacklevel=2,
    )


def comparison_failures(
    failed: Mapping[str, Sequence[str] | None],
    baseline: str,
    candidates: Sequence[str],
    *,
    allow_failed: bool = False,
) -> Failures:
    """The policy for comparisons: every run's failed topics, and for each candidate compared with a run that
    has some, the verdict "not comparable: N topics failed in RUN" — unless ``allow_failed``. A run whose
    failures are None (no manifest, ``recorded_failures``) is listed as ``unrecorded``."""
    from toolkit.stats.result import Failures

    listed = {run: tuple(ids or ()) for run, ids in failed.items()}
    unrecorded = tuple(run for run, ids in failed.items() if ids is None)
    blocked: dict[str, str] = {}
    for cand in candidates:
        parts = [_failed_in(len(listed[r]), r) for r in (baseline, cand) if listed.get(r)]
        if parts and not allow_failed:
            blocked[cand] = "not comparable: " + ", ".join(parts)
    return Failures(listed, blocked, allow_failed and any(listed.values()), unrecorded)


def _failed_in(count: int, run: str) -> str:
    return f"{count} topic{'' if count == 1 else 's'} failed in {run}"
