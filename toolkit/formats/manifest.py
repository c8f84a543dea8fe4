"""Sidecar manifests (``NAME.run.json``, ``NAME.qrels.json``): what made a file, when, from what.

A manifest makes a run or qrels file auditable: the command, the inputs with content hashes, and the
versions of the libraries that affect numbers. ``SOURCE_DATE_EPOCH`` fixes the timestamp for reproducible
builds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import platform
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from toolkit.errors import FormatError
from toolkit.formats.structured import loads_json
from toolkit.formats.textfile import atomic_write_text, read_text

MANIFEST_SCHEMA_VERSION = 1

_VERSIONED = ("trec-toolkit", "pytrec-eval-terrier", "ir-measures", "numpy", "scipy", "statsmodels", "pandas")


def versions(extra: Iterable[str] = ()) -> dict[str, str]:
    """Versions of Python and of the libraries that affect numbers (read from metadata: no imports).

    Why not ``importlib.metadata`` first: importing it (with email, zipfile, csv) and parsing seven METADATA
    files costs more than all of ``score`` on a small run, which records versions in ``--format json``. An
    installed distribution's ``.dist-info`` folder is named ``{name}-{version}.dist-info`` (the packaging
    specification "Recording installed projects"), so the names on ``sys.path`` give the versions, in
    ``sys.path`` order as ``importlib.metadata`` searches; only a distribution not found that way (an egg, a zip
    import) is looked up with ``importlib.metadata``.
    """
    wanted = (*_VERSIONED, *extra)
    found = _dist_info_versions({_normalized(d) for d in wanted})
    out = {"python": platform.python_version()}
    missing = [d for d in wanted if _normalized(d) not in found]
    looked_up: dict[str, str] = {}
    if missing:
        from importlib import metadata  # with its email and zipfile: only for what the folder names lack

        for dist in missing:
            try:
                looked_up[dist] = metadata.version(dist)
            except metadata.PackageNotFoundError:
                continue
    for dist in wanted:
        version = found.get(_normalized(dist), looked_up.get(dist))
        if version is not None:
            out[dist] = version
    return out


def _normalized(name: str) -> str:
    """A distribution name as its ``.dist-info`` folder spells it (PEP 503 normalisation, ``_`` for runs)."""
    import re

    return re.sub(r"[-_.]+", "_", name).lower()


def _dist_info_versions(names: set[str]) -> dict[str, str]:
    """normalized name → version of the first ``{name}-{version}.dist-info`` folder on ``sys.path`` per name."""
    out: dict[str, str] = {}
    for entry in sys.path:
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            continue
        for item in listing:
            if not item.endswith(".dist-info"):
                continue
            name, dash, version = item[: -len(".dist-info")].partition("-")
            key = _normalized(name)
            if dash and version and key in names and key not in out:
                out[key] = version
    return out


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_path(path: str | Path) -> Path:
    """``runs/bm25.run`` → ``runs/bm25.run.json``."""
    return Path(f"{path}.json")


def now_iso() -> str:
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), tz=dt.UTC) if epoch else dt.datetime.now(tz=dt.UTC)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def write_manifest(
    path: str | Path,
    *,
    kind: str,
    inputs: Mapping[str, str | Path] | None = None,
    command: list[str] | None = None,
    extra: Mapping[str, Any] | None = None,
    root: str | Path | None = None,
    content: bytes | None = None,
    digests: Mapping[str, str] | None = None,
) -> Path | None:
    """Write the sidecar of ``path``: its hash, inputs' hashes, command, versions; None (nothing written)
    when ``path`` is not a regular file (``/dev/null``, a FIFO: nothing is written beside it).

    The hash is of ``content`` — the bytes about to be written at ``path`` (``write_with_manifest``) — else
    of the file ``path``, which must exist. Input paths are recorded as given; a relative one is hashed under
    ``root`` (default: the current folder), so inputs recorded relative to the workspace are hashed wherever
    the command runs. ``digests``: an input's SHA-256 the caller computed already, by role (``export`` hashes
    its campaign file beside its reads: 325 MB at 171,151 items).
    """
    from toolkit.formats.output import is_regular_target

    if not is_regular_target(path):
        return None
    target = Path(path)
    base = Path(root) if root is not None else Path()
    doc: dict[str, Any] = {
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "kind": kind,
        "file": target.name,
        "sha256": hashlib.sha256(content).hexdigest() if content is not None else file_sha256(target),
        "created": now_iso(),
        "command": command if command is not None else [Path(sys.argv[0]).name, *sys.argv[1:]],
        "inputs": {
            role: {
                "path": str(p),
                "sha256": (digests or {}).get(role)
                or (file_sha256(base / p) if (base / p).is_file() else None),
            }
            for role, p in (inputs or {}).items()
        },
        "versions": versions(),
    }
    if extra:
        doc.update(extra)
    out = manifest_path(target)
    atomic_write_text(out, json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n")
    return out


def write_with_manifest(path: str | Path, text: str, **manifest: Any) -> Path | None:
    """Write ``text`` at ``path`` and its manifest, the manifest first (carrying the hash of the bytes about
    to be written): a process killed between the two leaves a manifest that does not match its file, which
    ``read_manifest`` refuses — never a new file under an old manifest that looks right. Returns the
    manifest's path (None for a target that is not a regular file: no manifest)."""
    from toolkit.formats.output import encode_output, write_output

    data = encode_output(path, text)
    written = write_manifest(path, content=data, **manifest)
    write_output(path, data)
    return written


def failure_entries(
    manifest: Mapping[str, Any] | None, *, where: str | Path = "manifest"
) -> list[dict[str, Any]]:
    """The failure records a run manifest lists (``failures``: topics whose call failed after every retry, or
    timed out); none for a manifest without any. The one reader of that key: the run-failure policy
    (``toolkit.pipeline.failures``) and the refusal outcome (``toolkit.scoring.refusal``) both come here."""
    entries = (manifest or {}).get("failures") or []
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("query_id"), str) for e in entries
    ):
        raise FormatError(
            where, None, "failures must be a list of failure records; delete the manifest and run again"
        )
    return entries


def recorded_failed_topics(path: str | Path) -> tuple[str, ...] | None:
    """The topics the manifest beside the run file ``path`` records as failed; None when the run has no
    manifest (a bare run file: its failures are unknown, not absent)."""
    manifest = read_manifest(path)
    if manifest is None:
        return None
    return tuple(e["query_id"] for e in failure_entries(manifest, where=manifest_path(path)))


def read_manifest(path: str | Path) -> dict[str, Any] | None:
    """The manifest beside ``path`` (or at ``path`` if it is one); None when there is none."""
    p = Path(path)
    target = p if p.name.endswith(".json") else manifest_path(p)
    if not target.exists():
        return None
    try:
        data = loads_json(read_text(target))
    except json.JSONDecodeError as exc:
        raise FormatError(
            target, exc.lineno, f"invalid manifest JSON ({exc.msg}); delete it to regenerate"
        ) from None
    if not isinstance(data, dict):
        raise FormatError(target, None, "manifest must be a JSON object")
    described = target.with_name(target.name.removesuffix(".json"))
    recorded = data.get("sha256")
    if isinstance(recorded, str) and described.is_file() and recorded != file_sha256(described):
        raise FormatError(
            target,
            None,
            f"manifest does not match {described.name}: the file's sha256 is not the one recorded (the file "
            "changed after the manifest was written, or writing them was interrupted); write both again with "
            "the command that made them, or delete the manifest",
        )
    return data
