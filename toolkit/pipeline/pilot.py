"""Pilot runs: runs made to try something out, marked so that they never pass for the record.

``run --pilot`` or ``[systems.NAME] pilot = true`` writes ``"pilot": true`` in the run's manifest
(``toolkit.pipeline.runs``). Every command that reads runs asks this module, and they all do the same:

* ``audit`` and ``gate`` — whose output is a verdict of record — refuse a pilot run unless ``--allow-pilot``
  is given; ``audit`` refuses a system marked ``pilot = true`` before running anything, and makes a fresh run
  for the record instead of reusing a pilot run;
* every report made from a pilot run (``score``, ``compare``, ``gate``, ``audit``) says so at its top.

A run without a manifest (made elsewhere) is not a pilot: nothing says it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.errors import UsageError
from toolkit.model import Run

if (
    TYPE_CHECKING
):  # ``score`` asks whether a run file is a pilot's; systems are for the commands that run them
    from toolkit.systems.base import System


def is_pilot_manifest(manifest: Mapping[str, Any] | None) -> bool:
    return bool(manifest) and manifest.get("pilot") is True  # type: ignore[union-attr]


def pilot_runs(
    runs: Sequence[Run], manifests: Mapping[str, Mapping[str, Any] | None] | None = None
) -> tuple[str, ...]:
    """The names of the ``runs`` whose manifest (from ``manifests`` by run name, else read beside
    ``run.path``) marks them as pilot runs."""
    return tuple(dict.fromkeys(run.name for run in _pilots(runs, manifests)))


def refuse_pilot_runs(
    runs: Sequence[Run],
    *,
    allow: bool,
    command: str,
    manifests: Mapping[str, Mapping[str, Any] | None] | None = None,
) -> tuple[str, ...]:
    """The names of the pilot runs among ``runs`` (for the report's banner); ``UsageError`` when there are
    some and ``allow`` (``--allow-pilot``) is not given."""
    pilots = _pilots(runs, manifests)
    if pilots and not allow:
        paths = list(dict.fromkeys(run.path or run.name for run in pilots))
        one = len(paths) == 1
        raise UsageError(
            f"{', '.join(paths)} {'is a pilot run' if one else 'are pilot runs'} (not for the record), so "
            f"{command} refuses {'it' if one else 'them'}; make the run without --pilot, or pass --allow-pilot"
        )
    return tuple(dict.fromkeys(run.name for run in pilots))


def _pilots(runs: Sequence[Run], manifests: Mapping[str, Mapping[str, Any] | None] | None) -> list[Run]:
    from toolkit.formats.manifest import read_manifest

    out = []
    for run in runs:
        if manifests is not None and run.name in manifests:
            manifest = manifests[run.name]
        else:
            manifest = read_manifest(run.path) if run.path else None
        if is_pilot_manifest(manifest):
            out.append(run)
    return out


def refuse_pilot_systems(systems: Sequence[System], *, allow: bool, where: str) -> tuple[str, ...]:
    """The systems marked ``pilot = true``; ``UsageError`` when there are some and ``allow`` is not given."""
    from toolkit.pipeline.runs import is_pilot

    pilots = tuple(system.name for system in systems if is_pilot(system))
    if pilots and not allow:
        listed = ", ".join(repr(name) for name in pilots)
        which = f"system {listed} is" if len(pilots) == 1 else f"systems {listed} are"
        raise UsageError(
            f"{where}: {which} marked pilot = true: pilot runs are not for the record, so audit refuses them; "
            "remove pilot = true, or pass --allow-pilot for an audit marked PILOT"
        )
    return pilots
