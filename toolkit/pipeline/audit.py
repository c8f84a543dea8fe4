"""The whole pipeline from ``toolkit.toml``: run every system, regex truth, score, compare, write the audit.

Steps, each reusing what is already there when it is provably the same:

0. **Checks.** A system marked ``pilot = true`` stops the audit unless ``allow_pilot`` (``toolkit.pipeline
   .pilot``); then every system's pre-flight check runs once, before any run, and a failing one stops the
   audit with its output (``toolkit.pipeline.runs.check_system``).
1. **Runs.** Every ``[systems.NAME]`` is run over the ``[workspace] topics`` into ``runs/NAME.run`` — unless
   that run exists and its manifest matches: same system description (command, parser …), same topic-set
   hash, same depth, the run file still has the hash recorded in the manifest, no topic failed (the
   failure policy, ``toolkit.pipeline.failures``), the same pre-flight output, and not a pilot run (unless
   ``allow_pilot``) — ``toolkit.pipeline.runs.reuse_refusal``. ``rerun=True`` forces a fresh run.
2. **Qrels.** ``[audit] qrels`` when declared (e.g. exported human judgments); otherwise the regex truth of
   the topic set over the runs' docs plus the ``[docs] ids`` corpus list, written to ``qrels/TOPICS.qrels``
   (left untouched, manifest included, when the file already holds exactly these qrels).
3. **Compare** every system against ``[workspace] baseline`` (default: the first system) on the
   workspace's evaluation settings, the same ``score``, ``compare`` and ``gate`` read (``[workspace]
   measures`` and ``primary`` — the confirmatory measure, default nDCG@10: ``Workspace.evaluation``), with
   the options of the optional ``[audit]`` table (``test``, ``order``, ``alpha``, ``seed``, ``correction``,
   ``margins = { "nDCG@10" = 0.02 }``, ``output``). Failed topics follow the run-failure policy
   (``toolkit.pipeline.failures``): listed in every report, and a candidate is "not comparable" unless ``allow_failed``.
4. **Write** ``audit.md``, ``audit.json``, ``audit.html`` and ``audit-*.png`` into the output folder
   (``toolkit.reports`` renders them). The HTML page holds the per-topic view: each run's top k per topic
   (``toolkit.stats.rankings``) with the titles and snippets of the ``[docs]`` source
   (``toolkit.pipeline.topic_docs``), for the ``[audit] topics_shown`` most changed topics per candidate.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import ConfigError
from toolkit.model import Qrels, Run, TopicSet
from toolkit.workspace import Workspace

if TYPE_CHECKING:
    from toolkit.reports.topic_view import TopicPage
    from toolkit.stats.comparison import ComparisonResult
    from toolkit.systems.base import System
    from toolkit.systems.preflight import PreflightResult

#: The ``[audit]`` table's keys and their defaults. ``measures`` and ``primary`` moved to ``[workspace]``
#: (``toolkit.workspace.MOVED_TO_WORKSPACE``: still read here, with a deprecation warning).
AUDIT_DEFAULTS: dict[str, Any] = {
    "alpha": 0.05,
    "seed": 42,
    "correction": "holm",
    "test": "randomization",
    "order": None,
    "margins": {},
    "output": "audits",
    "name": "audit",
    "qrels": None,
    "topics_shown": None,  # the per-topic view's bound (toolkit.reports.view_limits)
}


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
    failed_topics: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    preflight: Mapping[str, PreflightResult | None] = dataclasses.field(default_factory=dict)
    pilot: tuple[str, ...] = ()


def audit_settings(config: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The ``[audit]`` table over ``AUDIT_DEFAULTS``; unknown keys and malformed margins are errors."""
    from toolkit.workspace import MOVED_TO_WORKSPACE

    unknown = sorted(set(config) - set(AUDIT_DEFAULTS) - set(MOVED_TO_WORKSPACE))
    if unknown:
        raise ConfigError(
            f"{where}: [audit] has unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(AUDIT_DEFAULTS))}"
        )
    margins = config.get("margins", {})
    if not isinstance(margins, dict) or not all(isinstance(v, int | float) for v in margins.values()):
        raise ConfigError(f'{where}: [audit] margins must be a table of numbers, e.g. {{ "nDCG@10" = 0.02 }}')
    order = config.get("order")
    if order is not None and not (isinstance(order, list) and all(isinstance(o, str) for o in order)):
        raise ConfigError(f'{where}: [audit] order must be a list of system names, e.g. ["bm25f", "dense"]')
    shown = config.get("topics_shown")
    if shown is not None and (isinstance(shown, bool) or not isinstance(shown, int) or shown < 0):
        raise ConfigError(
            f"{where}: [audit] topics_shown must be a whole number ≥ 0 (0 = every topic), e.g. 1000"
        )
    return {**AUDIT_DEFAULTS, **{k: v for k, v in config.items() if k not in MOVED_TO_WORKSPACE}}


def run_audit(
    config: str | Path | None = None,
    *,
    output: str | Path | None = None,
    rerun: bool = False,
    seed: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
    allow_pilot: bool = False,
    allow_failed: bool = False,
    topics_shown: int | None = None,
) -> AuditResult:
    """Run the audit described by ``toolkit.toml`` (see the module docstring); ``log`` gets one line per step,
    ``progress(step, done, total)`` follows each system's run (``step`` is ``"run NAME"``); ``allow_pilot``
    lets pilot systems and runs in (the audit is then marked PILOT); ``allow_failed`` gives verdicts even
    for runs with failed topics; ``topics_shown`` bounds the HTML's per-topic view (else ``[audit]
    topics_shown``)."""
    from toolkit.pipeline.failures import comparison_failures
    from toolkit.reports import write_audit
    from toolkit.stats.comparison import compare_runs
    from toolkit.workspace import load_workspace

    ws = load_workspace(config)
    if ws.config_path is None:
        raise ConfigError("no toolkit.toml here or above; run audit from a workspace or pass --config PATH")
    options = audit_settings(ws.section("audit"), ws.where)
    settings = ws.evaluation()
    if settings.topics is None:
        raise ConfigError(f"{ws.where}: [workspace] topics is not set; name the topic set to audit")
    topics = settings.topics
    systems = ws.systems()
    if len(systems) < 2:
        raise ConfigError(
            f"{ws.where}: an audit compares systems; declare at least two [systems.NAME] tables"
        )
    baseline = ws.settings.get("baseline", next(iter(systems)))
    if baseline not in systems:
        raise ConfigError(
            f"{ws.where}: [workspace] baseline = {baseline!r} is not a system; known: {', '.join(systems)}"
        )
    order = [baseline, *(n for n in systems if n != baseline)]
    from toolkit.pipeline.pilot import pilot_runs, refuse_pilot_systems
    from toolkit.pipeline.runs import check_system

    refuse_pilot_systems([systems[n] for n in order], allow=allow_pilot, where=ws.where)
    preflights = {n: check_system(ws, systems[n], log=log) for n in order}
    runs, reused, ran = _runs(
        ws, [systems[n] for n in order], topics, rerun, progress, log, preflights, allow_pilot
    )
    qrels, built = _qrels(ws, topics, runs, log, options["qrels"])
    failed = _failed(ws, runs)
    result = compare_runs(
        runs,
        qrels,
        topics=topics,
        measures=settings.measures,
        primary=settings.primary,
        alpha=float(options["alpha"]),
        seed=int(seed if seed is not None else options["seed"]),
        margins={str(k): float(v) for k, v in options["margins"].items()},
        correction=str(options["correction"]),
        test=str(options["test"]),
        order=options["order"],
        failures=comparison_failures(failed, order[0], order[1:], allow_failed=allow_failed),
    )
    manifests = {run.name: _manifest(ws, run.name) for run in runs}
    pilots = pilot_runs(runs, manifests)
    view = _topic_page(
        ws,
        result,
        runs,
        qrels,
        topics,
        options["topics_shown"] if topics_shown is None else topics_shown,
        log,
    )
    written = write_audit(
        result,
        Path(output) if output is not None else ws.path(options["output"]),
        name=str(options["name"]),
        topics=topics,
        title=f"Audit: {', '.join(order[1:])} vs {baseline} on {topics.name}",
        pilot=pilots,
        preflight={n: _preflight_shown(m) for n, m in manifests.items() if m and m.get("preflight")},
        view=view,
    )
    return AuditResult(
        result,
        topics,
        qrels,
        runs,
        reused,
        ran,
        built,
        tuple(written),
        {run: ids or () for run, ids in failed.items()},
        preflights,
        pilots,
    )


def _runs(
    ws: Workspace,
    systems: list[System],
    topics: TopicSet,
    rerun: bool,
    progress: Callable[[str, int, int], None] | None,
    log: Callable[[str], None],
    preflights: Mapping[str, PreflightResult | None],
    allow_pilot: bool,
) -> tuple[tuple[Run, ...], tuple[str, ...], tuple[str, ...]]:
    """Reuse or make every system's run; the runs are named after their systems."""
    from toolkit.formats import read_run
    from toolkit.pipeline.runs import is_pilot, make_run, reuse_refusal
    from toolkit.systems import run_options

    runs: list[Run] = []
    reused: list[str] = []
    ran: list[str] = []
    ws.runs_dir.mkdir(parents=True, exist_ok=True)
    for system in systems:
        name = system.name
        path = ws.runs_dir / f"{name}.run"
        depth = ws.run_settings(run_options(system)).depth
        refusal = reuse_refusal(
            path,
            system,
            topics,
            depth,
            preflight=preflights.get(name),
            pilot=is_pilot(system),
            allow_pilot=allow_pilot,
        )
        if not rerun and refusal is None:
            log(f"run {name}: reusing {path} (manifest matches the system config and topic set)")
            reused.append(name)
        else:
            why = f" ({path.name} was not reused: {refusal})" if not rerun and path.is_file() else ""
            log(f"run {name}: running over {len(topics)} topics → {path}{why}")
            make_run(
                ws,
                system,
                topics,
                output=path,
                progress=functools.partial(progress, f"run {name}") if progress else None,
                command=["trec-toolkit", "audit"],
                label=f"run {name}: ",
                preflight=preflights.get(name),
            )
            ran.append(name)
        runs.append(dataclasses.replace(read_run(path, name=name), path=ws.relative(path)))
    return tuple(runs), tuple(reused), tuple(ran)


def _qrels(
    ws: Workspace, topics: TopicSet, runs: tuple[Run, ...], log: Callable[[str], None], declared: str | None
) -> tuple[Qrels, bool]:
    from toolkit.formats import read_qrels
    from toolkit.pipeline.truth import regex_truth

    if declared:
        path = ws.path(declared)
        log(f"qrels: {path} ([audit] qrels)")
        return dataclasses.replace(read_qrels(path), path=ws.relative(path)), False
    path = ws.qrels_dir / f"{topics.name}.qrels"
    ws.qrels_dir.mkdir(parents=True, exist_ok=True)
    truth = regex_truth(
        ws,
        topics,
        runs=runs,
        corpus=ws.corpus_ids(),
        output=path,
        keep_identical=True,
        sources={run.name: ws.runs_dir / f"{run.name}.run" for run in runs},
        name=topics.name,
        command=["trec-toolkit", "audit"],
    )
    covered = len(truth.result.covered)
    if truth.written:
        log(
            f"qrels: regex truth over {covered} docs → {path} ({truth.result.judged_topics} topics with a match)"
        )
    else:
        log(f"qrels: {path} is up to date (regex truth over {covered} docs)")
    return dataclasses.replace(read_qrels(path), path=ws.relative(path)), truth.written


def _topic_page(
    ws: Workspace,
    result: ComparisonResult,
    runs: tuple[Run, ...],
    qrels: Qrels,
    topics: TopicSet,
    shown: int | None,
    log: Callable[[str], None],
) -> TopicPage:
    """The per-topic view of the HTML page: the runs' top k with the titles of the workspace's ``[docs]``."""
    from toolkit.pipeline.topic_docs import view_rankings
    from toolkit.reports.topic_view import TopicPage
    from toolkit.reports.view_limits import DEFAULT_TOPICS_SHOWN
    from toolkit.stats.rankings import collect_rankings

    limit = DEFAULT_TOPICS_SHOWN if shown is None else int(shown)
    rankings = collect_rankings(runs, qrels, depth=result.rank1[0].cutoff)
    rankings = view_rankings(rankings, result, topics, shown=limit, workspace=ws, log=log)
    return TopicPage(result, rankings, topics, limit)


def _preflight_shown(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """What the audit shows of a run's pre-flight: the check, its output and hash (not its duration, which
    would make two audits of the same runs differ)."""
    record = manifest["preflight"]
    return {key: record[key] for key in ("check", "output", "sha256", "output_truncated") if key in record}


def _manifest(ws: Workspace, name: str) -> dict[str, Any] | None:
    from toolkit.formats.manifest import read_manifest

    return read_manifest(ws.runs_dir / f"{name}.run")


def _failed(ws: Workspace, runs: tuple[Run, ...]) -> dict[str, tuple[str, ...] | None]:
    from toolkit.pipeline.failures import recorded_failures

    return recorded_failures(runs, {run.name: _manifest(ws, run.name) for run in runs})
