"""The whole pipeline from ``toolkit.toml``: run every system, regex truth, score, compare, write the audit.

Steps, each reusing what is already there when it is provably the same:

1. **Runs.** Every ``[systems.NAME]`` is run over the ``[workspace] topics`` into ``runs/NAME.run`` — unless
   that run exists and its manifest matches: same system description (command, parser …), same topic-set
   hash, same depth, and the run file still has the hash recorded in the manifest. ``rerun=True`` forces a
   fresh run.
2. **Qrels.** ``[audit] qrels`` when declared (e.g. exported human judgments); otherwise the regex truth of
   the topic set over the runs' docs plus the ``[docs] ids`` corpus list, written to ``qrels/TOPICS.qrels``
   (left untouched, manifest included, when the file already holds exactly these qrels).
3. **Compare** every system against ``[workspace] baseline`` (default: the first system) with the options
   of the optional ``[audit]`` table (``measures``, ``primary``, ``alpha``, ``seed``, ``correction``,
   ``margins = { "nDCG@10" = 0.02 }``, ``output``).
4. **Write** ``audit.md``, ``audit.json``, ``audit.html`` and ``audit-*.png`` into the output folder.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError
from toolkit.model import Qrels, Run, TopicSet
from toolkit.stats.comparison import ComparisonResult

AUDIT_KEYS = {"measures", "primary", "alpha", "seed", "correction", "margins", "output", "name", "qrels"}


@dataclass(frozen=True)
class AuditResult:
    comparison: ComparisonResult
    topics: TopicSet
    qrels: Qrels
    runs: tuple[Run, ...]
    reused: tuple[str, ...]
    ran: tuple[str, ...]
    qrels_built: bool
    written: tuple[Path, ...]


def run_matches(path: Path, system: Any, topics: TopicSet, depth: int) -> bool:
    """True when ``path`` is a run of exactly this system config on exactly this topic set and depth.

    The Python version must match too: a system may depend on it (the example corpus is built from the
    running Python's standard library), so a run made under another Python is made again.
    """
    import platform

    from toolkit.formats.manifest import file_sha256, read_manifest

    if not path.is_file():
        return False
    try:
        manifest = read_manifest(path)
    except Exception:  # noqa: BLE001 - an unreadable manifest means "run again", not an error
        return False
    if not manifest:
        return False
    described = json.loads(json.dumps({"name": system.name, **system.describe()}))
    return (
        manifest.get("system") == described
        and (manifest.get("topic_set") or {}).get("sha256") == topics.sha256
        and manifest.get("depth") == depth
        and manifest.get("sha256") == file_sha256(path)
        and (manifest.get("versions") or {}).get("python") == platform.python_version()
    )


def audit_settings(config: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(config) - AUDIT_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: [audit] has unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(AUDIT_KEYS))}"
        )
    margins = config.get("margins", {})
    if not isinstance(margins, dict) or not all(isinstance(v, int | float) for v in margins.values()):
        raise ConfigError(f'{where}: [audit] margins must be a table of numbers, e.g. {{ "nDCG@10" = 0.02 }}')
    return dict(config)


def run_audit(
    config: str | Path | None = None,
    *,
    output: str | Path | None = None,
    rerun: bool = False,
    seed: int | None = None,
    progress: bool = False,
    log: Callable[[str], None] = lambda _msg: None,
) -> AuditResult:
    """Run the audit described by ``toolkit.toml`` (see the module docstring); ``log`` gets one line per step."""
    from toolkit.formats import read_run, read_topics
    from toolkit.reports import write_audit
    from toolkit.stats.comparison import compare_runs
    from toolkit.systems import load_systems, run_options, run_system
    from toolkit.workspace import load_workspace

    ws = load_workspace(config)
    where = str(ws.config_path or "toolkit.toml")
    if ws.config_path is None:
        raise ConfigError("no toolkit.toml here or above; run audit from a workspace or pass --config PATH")
    settings = ws.settings
    options = audit_settings(ws.section("audit"), where)
    topics_path = ws.default_topics
    if topics_path is None:
        raise ConfigError(f"{where}: [workspace] topics is not set; name the topic set to audit")
    topics = dataclasses.replace(read_topics(topics_path), path=_relative(topics_path, ws.root))
    systems = load_systems(ws)
    if len(systems) < 2:
        raise ConfigError(f"{where}: an audit compares systems; declare at least two [systems.NAME] tables")
    baseline = settings.get("baseline", next(iter(systems)))
    if baseline not in systems:
        raise ConfigError(
            f"{where}: [workspace] baseline = {baseline!r} is not a system; known: {', '.join(systems)}"
        )
    order = [baseline, *(n for n in systems if n != baseline)]

    runs: list[Run] = []
    reused: list[str] = []
    ran: list[str] = []
    ws.runs_dir.mkdir(parents=True, exist_ok=True)
    for name in order:
        system = systems[name]
        opts = run_options(system)

        def pick(key: str, default: Any, opts: Mapping[str, Any] = opts) -> Any:
            return opts.get(key, settings.get(key, default))

        depth = int(pick("depth", 10))
        path = ws.runs_dir / f"{name}.run"
        if not rerun and run_matches(path, system, topics, depth):
            log(f"run {name}: reusing {path} (manifest matches the system config and topic set)")
            reused.append(name)
        else:
            log(f"run {name}: running over {len(topics)} topics → {path}")
            run_system(
                system,
                topics,
                output=path,
                depth=depth,
                workers=int(pick("workers", min(4, os.cpu_count() or 1))),
                timeout=float(pick("timeout", 30.0)),
                retries=int(pick("retries", 0)),
                progress=progress,
                command=["trec-toolkit", "audit"],
            )
            ran.append(name)
        runs.append(dataclasses.replace(read_run(path, name=name), path=_relative(path, ws.root)))

    qrels, built = _qrels(ws, topics, runs, where, log, options.get("qrels"))
    margins = {str(k): float(v) for k, v in options.get("margins", {}).items()}
    result = compare_runs(
        runs,
        qrels,
        topics=topics,
        measures=options.get("measures") or settings.get("measures"),
        primary=options.get("primary"),
        alpha=float(options.get("alpha", 0.05)),
        seed=int(seed if seed is not None else options.get("seed", 42)),
        margins=margins,
        correction=str(options.get("correction", "holm")),
    )
    out_dir = Path(output) if output is not None else ws.path(options.get("output", "audits"))
    written = write_audit(
        result,
        out_dir,
        name=str(options.get("name", "audit")),
        topics=topics,
        title=f"Audit: {', '.join(order[1:])} vs {baseline} on {topics.name}",
    )
    return AuditResult(result, topics, qrels, tuple(runs), tuple(reused), tuple(ran), built, tuple(written))


def _qrels(
    ws: Any, topics: TopicSet, runs: list[Run], where: str, log: Callable[[str], None], declared: str | None
) -> tuple[Qrels, bool]:
    from toolkit.formats import read_manifest, read_qrels
    from toolkit.formats.qrels import format_qrels
    from toolkit.truth import build_qrels, corpus_ids, write_truth

    if declared:
        path = ws.path(declared)
        log(f"qrels: {path} ([audit] qrels)")
        return dataclasses.replace(read_qrels(path), path=_relative(path, ws.root)), False
    doc_ids: set[str] = set()
    for run in runs:
        for docs in run.results.values():
            doc_ids.update(docs)
    corpus = corpus_ids(ws.section("docs"), ws.root, where=where)
    details: dict[str, str] = {}
    if corpus is not None:
        doc_ids.update(corpus[0])
        details["doc_ids_from"] = f"[docs] ids: {corpus[1]}"
    path = ws.qrels_dir / f"{topics.name}.qrels"
    ws.qrels_dir.mkdir(parents=True, exist_ok=True)
    truth = build_qrels(topics, doc_ids, name=topics.name)
    if (
        path.is_file()
        and read_manifest(path)
        and path.read_text(encoding="utf-8") == format_qrels(truth.qrels)
    ):
        log(f"qrels: {path} is up to date (regex truth over {len(doc_ids)} docs)")
        return dataclasses.replace(read_qrels(path), path=_relative(path, ws.root)), False
    write_truth(
        truth,
        path,
        topics=topics,
        sources={r.name: r.path for r in runs if r.path},
        command=["trec-toolkit", "audit"],
        details=details,
    )
    log(f"qrels: regex truth over {len(doc_ids)} docs → {path} ({truth.judged_topics} topics with a match)")
    return dataclasses.replace(read_qrels(path), path=_relative(path, ws.root)), True


def _relative(path: Path, root: Path) -> str:
    """Paths inside the workspace are reported relative to it, so the audit reads the same on every checkout."""
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)
