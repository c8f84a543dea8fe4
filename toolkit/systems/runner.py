"""Run a system over a topic set: parallel calls, timeouts, retries, a resumable journal, the run + manifest.

**Order.** The run file gets scores ``n, n-1, …, 1`` for a topic's ``n`` hits, strictly decreasing, so
trec_eval's order (score desc, doc_id desc) is exactly the system's order whatever scores the system gave
(equal, increasing, none); the system's own scores go to the manifest.

**Nothing is lost.** Each finished topic is appended to ``NAME.run.partial`` (one JSON line, flushed and
fsync'ed) as soon as its call returns. A run killed at any point leaves a journal whose complete lines are
the finished topics; a torn last line is cut off on ``resume``. The run file itself is only ever written
whole (atomic rename) from the journal, in topic-set order, so it can never hold duplicate lines.
``resume`` re-asks only topics without a successful line (failed topics are asked again), and only when the
journal was begun for the same system, topic set, depth, pre-flight output and pilot flag.

**Pre-flight and pilot.** The caller runs the system's pre-flight check (``toolkit.systems.preflight``) and
hands its result in; the manifest records it (``preflight``), and whether the run is a pilot, not for the
record (``pilot``) — what that means for the commands is the pipeline's policy.

**Failures** (non-zero exit, timeout, HTTP error, unparseable output) after all retries give the topic an
empty result and an entry in the manifest (reason, exit code, stderr tail, duration); the run goes on.
What a failed topic means for the commands (a warning, an error when every topic failed) is the pipeline's
policy (``toolkit.pipeline.failures``), not the runner's.

**Progress** goes to a callback ``progress(done, total)``, called once before the first call (``done`` counts
the topics a resumed run already has) and after every topic, so the caller can draw a bar with the count from
the start; drawing it is the CLI's business (core modules never import rich).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import UsageError
from toolkit.formats.manifest import write_with_manifest
from toolkit.formats.run import format_run
from toolkit.model import Run, Topic, TopicSet
from toolkit.systems.base import CallFailed, Hit, System
from toolkit.systems.preflight import PreflightResult

JOURNAL_VERSION = 1
SCORE_RULE = "score = n - rank + 1 for a topic's n hits: strictly decreasing, so trec_eval's order is the system's order"


@dataclass(frozen=True)
class Failure:
    """A topic whose every attempt failed."""

    query_id: str
    reason: str
    exit_code: int | None
    stderr_tail: str
    duration_ms: float
    attempts: int


@dataclass(frozen=True)
class TopicOutcome:
    """What one topic got: hits in the system's order, the last attempt's latency, or a failure."""

    query_id: str
    hits: tuple[Hit, ...]
    latency_ms: float
    attempts: int
    failure: Failure | None = None

    def to_json(self) -> str:
        data = {
            "query_id": self.query_id,
            "hits": [[h.doc_id, h.score] for h in self.hits],
            "latency_ms": self.latency_ms,
            "attempts": self.attempts,
            "failure": asdict(self.failure) if self.failure else None,
        }
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TopicOutcome:
        failure = Failure(**data["failure"]) if data.get("failure") else None
        hits = tuple(Hit(str(d), s) for d, s in data["hits"])
        return cls(str(data["query_id"]), hits, float(data["latency_ms"]), int(data["attempts"]), failure)


@dataclass(frozen=True)
class RunResult:
    """A finished run: the Run as written, where it went, and how the calls went."""

    run: Run
    path: Path
    manifest: Path | None  # None: the output is not a regular file (/dev/null, a FIFO), so no manifest
    failures: tuple[Failure, ...]
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    topics: int
    asked: int
    resumed: int
    empty_topics: tuple[str, ...] = ()
    preflight: PreflightResult | None = None
    pilot: bool = False


def journal_path(output: Path) -> Path:
    return Path(f"{output}.partial")


def run_system(
    system: System,
    topics: TopicSet,
    *,
    output: str | Path,
    depth: int = 10,
    workers: int = 4,
    timeout: float | None = 30.0,
    retries: int = 0,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    run_tag: str | None = None,
    command: list[str] | None = None,
    root: str | Path | None = None,
    preflight: PreflightResult | None = None,
    pilot: bool = False,
) -> RunResult:
    """Ask ``system`` every topic (``workers`` at a time) and write ``output`` and its manifest.

    ``root`` is the folder a relative topic-set path is under (the workspace), for the manifest's input hash.
    ``preflight`` is what the system's pre-flight check printed before this run, ``pilot`` marks the run as
    not for the record; both go to the manifest.
    """
    if depth < 1:
        raise UsageError(f"--depth must be at least 1, not {depth}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    if retries < 0:
        raise UsageError(f"--retries must be 0 or more, not {retries}")
    output = Path(output)
    check = getattr(system, "check", None)
    if callable(check):
        check()
    header = {
        "journal": JOURNAL_VERSION,
        "system": {"name": system.name, **system.describe()},
        "topics_sha256": topics.sha256,
        "depth": depth,
    }
    if preflight is not None:  # only when there is one, so journals begun without stay resumable
        header["preflight"] = preflight.sha256
    if pilot:
        header["pilot"] = True
    journal = journal_path(output)
    done = _open_journal(journal, header, resume=resume, preflight=preflight)
    pending = [t for t in topics if t.query_id not in done or done[t.query_id].failure is not None]
    resumed = len(topics) - len(pending)
    outcomes = dict(done)
    report = progress or (lambda _done, _total: None)
    report(resumed, len(topics))
    with open(journal, "a", encoding="utf-8") as handle:
        for finished, outcome in enumerate(
            _ask_all(system, pending, depth=depth, workers=workers, timeout=timeout, retries=retries),
            start=resumed + 1,
        ):
            handle.write(outcome.to_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
            outcomes[outcome.query_id] = outcome
            report(finished, len(topics))
    ordered = [outcomes[t.query_id] for t in topics]
    result = _finish(
        system,
        topics,
        ordered,
        output=output,
        depth=depth,
        run_tag=run_tag,
        command=command,
        settings={"workers": workers, "timeout": timeout, "retries": retries},
        resumed=resumed,
        asked=len(pending),
        root=root,
        preflight=preflight,
        pilot=pilot,
    )
    journal.unlink(missing_ok=True)
    return result


def _open_journal(
    journal: Path, header: dict[str, Any], *, resume: bool, preflight: PreflightResult | None = None
) -> dict[str, TopicOutcome]:
    """Start a journal, or (resume) read the finished topics of one and cut off a torn last line."""
    if not resume or not journal.exists():
        if resume:
            import warnings

            from toolkit.errors import ToolkitWarning

            warnings.warn(
                f"nothing to resume: no {journal}; asking every topic", ToolkitWarning, stacklevel=3
            )
        journal.parent.mkdir(parents=True, exist_ok=True)
        with open(journal, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(header, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        return {}
    raw = journal.read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1]  # a line without its newline was torn by the kill
    lines = complete.decode("utf-8", errors="replace").splitlines()
    try:
        found = json.loads(lines[0]) if lines else None
    except json.JSONDecodeError:
        found = None
    expected = json.loads(json.dumps(header))
    if found != expected:
        if (
            preflight is not None
            and isinstance(found, dict)
            and {**found, "preflight": preflight.sha256} == expected
        ):
            raise UsageError(
                f"{journal} was begun under another pre-flight output than {preflight.shown()} prints now; "
                "rerun without --resume to start over"
            )
        if isinstance(found, dict) and {k: v for k, v in found.items() if k != "pilot"} == {
            k: v for k, v in expected.items() if k != "pilot"
        }:
            was = "a pilot run" if found.get("pilot") else "not a pilot run"
            raise UsageError(
                f"{journal} was begun as {was}; resume it with the same --pilot setting, or rerun without "
                "--resume to start over"
            )
        raise UsageError(
            f"{journal} was written for another system, topic set or depth; rerun without --resume to start over"
        )
    done: dict[str, TopicOutcome] = {}
    for line in lines[1:]:
        try:
            outcome = TopicOutcome.from_json(json.loads(line))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # a damaged line is as good as a topic not yet asked
        done[outcome.query_id] = outcome
    if len(complete) != len(raw):
        with open(journal, "r+b") as handle:
            handle.truncate(len(complete))
    return done


def _ask_all(
    system: System, topics: list[Topic], *, depth: int, workers: int, timeout: float | None, retries: int
) -> Iterator[TopicOutcome]:
    """Outcomes as calls finish (any order). On interrupt, queued calls are cancelled, running ones finish."""
    if not topics:
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(topics)), thread_name_prefix=f"run-{system.name}")
    try:
        futures: set[Future[TopicOutcome]] = {
            pool.submit(_ask, system, t, depth=depth, timeout=timeout, retries=retries) for t in topics
        }
        while futures:
            finished, futures = wait(futures, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ask(system: System, topic: Topic, *, depth: int, timeout: float | None, retries: int) -> TopicOutcome:
    total = 0.0
    for attempt in range(1, retries + 2):
        started = time.monotonic()
        try:
            hits = system.search(topic.query, query_id=topic.query_id, depth=depth, timeout=timeout)
        except CallFailed as exc:
            elapsed = (time.monotonic() - started) * 1000
            total += elapsed
            failure = Failure(
                topic.query_id, exc.reason, exc.exit_code, exc.stderr_tail, round(elapsed, 3), attempt
            )
            if attempt <= retries:
                time.sleep(min(0.05 * 2 ** (attempt - 1), 2.0))
                continue
            return TopicOutcome(topic.query_id, (), round(elapsed, 3), attempt, failure)
        elapsed = (time.monotonic() - started) * 1000
        return TopicOutcome(topic.query_id, tuple(hits[:depth]), round(elapsed, 3), attempt)
    raise AssertionError("unreachable")  # pragma: no cover


def _percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default), without importing numpy."""
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    return round(statistics.quantiles(ordered, n=100, method="inclusive")[int(q) - 1], 3)


def _finish(
    system: System,
    topics: TopicSet,
    outcomes: list[TopicOutcome],
    *,
    output: Path,
    depth: int,
    run_tag: str | None,
    command: list[str] | None,
    settings: dict[str, Any],
    resumed: int,
    asked: int,
    root: str | Path | None,
    preflight: PreflightResult | None,
    pilot: bool,
) -> RunResult:
    results: dict[str, dict[str, float]] = {}
    per_topic: dict[str, Any] = {}
    for outcome in outcomes:
        n = len(outcome.hits)
        if n:
            results[outcome.query_id] = {hit.doc_id: float(n - i) for i, hit in enumerate(outcome.hits)}
        entry: dict[str, Any] = {"latency_ms": outcome.latency_ms, "attempts": outcome.attempts, "hits": n}
        if any(h.score is not None for h in outcome.hits):
            entry["raw_scores"] = [h.score for h in outcome.hits]
        per_topic[outcome.query_id] = entry
    tag = run_tag or system.name
    run = Run(results=results, name=system.name, path=str(output), run_tag=tag)
    failures = tuple(o.failure for o in outcomes if o.failure is not None)
    latencies = [o.latency_ms for o in outcomes if o.failure is None]
    p50, p95 = _percentile(latencies, 50), _percentile(latencies, 95)
    extra = {
        "system": {"name": system.name, **system.describe()},
        "topic_set": {
            "name": topics.name,
            "path": topics.path,
            "sha256": topics.sha256,
            "topics": len(topics),
        },
        "pilot": pilot,
        **({"preflight": preflight.record()} if preflight is not None else {}),
        "depth": depth,
        **settings,
        "score_rule": SCORE_RULE,
        "asked": asked,
        "resumed": resumed,
        "empty_topics": [o.query_id for o in outcomes if not o.hits],  # failed, or nothing found
        "latency_ms": {"p50": p50, "p95": p95, "n": len(latencies)},
        "failures": [asdict(f) for f in failures],
        "per_topic": per_topic,
    }
    inputs = {"topics": topics.path} if topics.path else {}
    text = format_run(run, run_tag=tag)
    manifest = write_with_manifest(
        output, text, kind="run", inputs=inputs, command=command, extra=extra, root=root
    )
    empty = tuple(o.query_id for o in outcomes if not o.hits)
    return RunResult(
        run, output, manifest, failures, p50, p95, len(topics), asked, resumed, empty, preflight, pilot
    )
