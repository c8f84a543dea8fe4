"""Regex truth in a workspace: the covered doc ids, the qrels, the manifest, and the checks said aloud.

``truth`` and ``audit`` both come through here, so the covered docs (``Workspace.covered_doc_ids``: runs, an
id list, ``[docs] ids``) and the manifest's record of them are the same for both.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import CheckFailed, ToolkitWarning
from toolkit.model import Run, TopicSet
from toolkit.truth import DEFAULT_MAX_MATCHES, TruthResult, build_qrels, write_truth
from toolkit.workspace import Workspace


@dataclass(frozen=True)
class TruthOutcome:
    """The regex truth and whether it was written (not when no ``output``, nor when ``keep_identical`` found
    the file already holding exactly these qrels)."""

    result: TruthResult
    written: bool


def regex_truth(
    ws: Workspace,
    topics: TopicSet,
    *,
    runs: Sequence[Run] = (),
    doc_ids: Iterable[str] = (),
    corpus: tuple[list[str], str] | None = None,
    output: str | Path | None = None,
    keep_identical: bool = False,
    sources: Mapping[str, str | Path] | None = None,
    max_matches: int = DEFAULT_MAX_MATCHES,
    zeros: bool = False,
    name: str | None = None,
    command: list[str] | None = None,
) -> TruthOutcome:
    """The regex truth of ``topics`` over the covered docs, written with its manifest to ``output`` when given
    (``sources`` are recorded as inputs, relative to the workspace). With ``keep_identical``, a file that has a
    manifest made from this topic set and already holds exactly these qrels is left untouched, manifest
    included."""
    coverage = ws.covered_doc_ids(runs, doc_ids, corpus=corpus)
    result = build_qrels(topics, coverage.doc_ids, max_matches=max_matches, zeros=zeros, name=name)
    if output is None or (keep_identical and _holds(Path(output), result, topics)):
        return TruthOutcome(result, written=False)
    write_truth(
        result,
        output,
        topics=topics,
        sources={role: ws.relative(path) for role, path in (sources or {}).items()},
        command=command,
        details=coverage.details,
        root=ws.root,
    )
    return TruthOutcome(result, written=True)


def _holds(path: Path, result: TruthResult, topics: TopicSet) -> bool:
    """The file holds these qrels and its manifest names this topic set: an edited topic set (new topics that
    should find nothing, say) can leave the judgments unchanged, but not the record of what they stand for."""
    from toolkit.formats.manifest import read_manifest
    from toolkit.formats.qrels import format_qrels

    if not path.is_file():
        return False
    manifest = read_manifest(path)
    recorded = (manifest or {}).get("topic_set") or {}
    return (
        bool(manifest)
        and recorded.get("sha256") == topics.sha256
        and path.read_text(encoding="utf-8") == format_qrels(result.qrels)
    )


def warn_truth(result: TruthResult) -> None:
    """Warn about what the checks found (see ``toolkit.truth``)."""
    partial = [(q, p) for q, p in result.unmatched_patterns if q not in result.unmatched_topics]
    if partial:
        listed = ", ".join(f"{q} {p!r}" for q, p in partial)
        _warn(f"{len(partial)} pattern(s) of topics that did match found no covered doc: {listed}")
    if result.unmatched_topics:
        _warn(
            f"{len(result.unmatched_topics)} topic(s) matched no covered doc (a typo in the regex, or the doc "
            f"is not in the runs/ids): {', '.join(result.unmatched_topics)}"
        )
    for s in result.suspicious:
        _warn(
            f"topic {s.query_id}: pattern {s.pattern!r} matched {s.matches} docs (more than "
            f"{result.max_matches}); is it missing an anchor (^…$) or an escaped dot (\\.)?"
        )
    if result.no_truth:
        _warn(f"{len(result.no_truth)} topic(s) have no truth: {', '.join(result.no_truth)}")


def enforce_truth(result: TruthResult) -> None:
    """``truth --strict``: a topic matching nothing (a typo) or a suspicious pattern is a failed check."""
    if result.unmatched_topics or result.suspicious:
        raise CheckFailed("truth check failed (--strict): see the warnings above")


def _warn(message: str) -> None:
    warnings.warn(message, ToolkitWarning, stacklevel=3)
