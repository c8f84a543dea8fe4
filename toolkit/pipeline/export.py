"""Exporting a campaign: its judgments as qrels under a policy, and a manifest that pins them down.

The export itself is ``toolkit.judging.export``; this joins it with what the manifest records beside it —
the campaign's log position (which judgments were exported) and the assessors' agreement
(``toolkit.agreement``, which sits above ``judging`` and so cannot be called from there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import ToolkitError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from toolkit.judging.export import ExportResult
    from toolkit.judging.itemgrades import ItemGrades
    from toolkit.judging.queries import Grade
    from toolkit.judging.store import CampaignStore
    from toolkit.workspace import Workspace


@dataclass(frozen=True)
class CampaignExport:
    """The exported qrels and the extra fields of their manifest; ``campaign_sha256``: the campaign file's
    hash for the manifest's inputs, computed beside the export (a function that waits for it; None for a
    campaign that is no file)."""

    result: ExportResult
    manifest: dict[str, Any]
    campaign_sha256: Callable[[], str | None] | None = field(default=None, compare=False, repr=False)


def export_campaign(
    campaign: str | Path,
    policy: str,
    *,
    fallback: str = "majority",
    unjudged: str | int = "skip",
    name: str = "qrels",
) -> CampaignExport:
    """Apply ``policy`` (``adjudicated``, ``majority`` … see ``toolkit.judging.export``) to the campaign; an
    export without a single graded judgment is an error rather than an empty qrels file."""
    from toolkit.judging.beside import beside
    from toolkit.judging.export import check_log_beside, export_qrels, parse_policy
    from toolkit.judging.itemgrades import read_item_grades
    from toolkit.judging.store import CampaignStore

    parsed = parse_policy(policy, fallback=fallback)
    digest = _hash_beside(campaign)
    with CampaignStore.open(campaign) as store:
        # what the grades are numbered and summarised with, imported while the first reads are under way
        _import_beside("numpy", "krippendorff", "toolkit.agreement")
        # two more connections read the pool and check the log beside the grades read here; the check is
        # awaited by export_qrels
        pool = beside(store, lambda other: other.pool_columns())
        checked = check_log_beside(store)
        # read once: the qrels and the agreement summary both need them — numbered against the pool where
        # the store can (``toolkit.judging.itemgrades``), else as rows
        grades: Sequence[Grade] | ItemGrades | None = read_item_grades(store, pool)
        if grades is None:
            grades = store.current_grades()
        # the summary first: it writes nothing, and computing it while the log check finishes beside
        # (PostgreSQL's server took longer over the check than this process over the reads) hides the wait;
        # should a log the rules refuse break it, the check's error is the one to report
        try:
            agreement = _agreement(store, grades)
        except Exception:
            checked()
            raise
        result = export_qrels(store, parsed, unjudged=unjudged, name=name, grades=grades, checked=checked)
        events, last = store.log_position()
        state = {
            "path": str(campaign),
            "rounds": len(store.rounds()),
            "log_events": events,
            "last_event_id": last,
        }
    if not result.qrels.judgments:
        raise ToolkitError(f"{campaign}: no graded judgments under policy {result.policy}; nothing to export")
    extra = result.manifest()
    extra["campaign"] = state  # the log position pins down which judgments were exported
    if agreement is not None:
        extra["agreement"] = agreement
    return CampaignExport(result, extra, digest)


def export_text(export: CampaignExport) -> str:
    """The exported qrels as text: TREC's four columns, or TREC Legal's five-column ``.probs`` layout for a
    sampled campaign (every population document with its inclusion probability), which the inferred measures
    need and plain qrels would silently drop."""
    from toolkit.formats.qrels import format_qrels

    if export.result.probabilities is not None:
        from toolkit.formats.sampled import format_sampled_qrels
        from toolkit.model import SampledQrels

        return format_sampled_qrels(SampledQrels(export.result.qrels, export.result.probabilities))
    return format_qrels(export.result.qrels)


def write_export(
    export: CampaignExport, path: str | Path, *, campaign: str | Path, workspace: Workspace | None = None
) -> Path | None:
    """Write the exported qrels at ``path`` and the manifest beside them (first: ``write_with_manifest``);
    the campaign is recorded relative to the workspace (the nearest ``toolkit.toml``), so the manifest reads
    the same on every checkout. Returns the manifest (None when ``path`` is not a regular file)."""
    from toolkit.formats.manifest import write_with_manifest
    from toolkit.judging.postgres.url import is_campaign_url
    from toolkit.workspace import load_workspace

    ws = workspace or load_workspace()
    where = str(campaign) if is_campaign_url(campaign) else ws.relative(campaign)  # a URL is no path
    extra = {**export.manifest, "campaign": {**export.manifest.get("campaign", {}), "path": where}}
    text = export_text(export)
    digest = export.campaign_sha256() if export.campaign_sha256 is not None else None
    hashed = digest is not None and Path(campaign).resolve() == (ws.root / where).resolve()  # the same file
    return write_with_manifest(
        path,
        text,
        kind="qrels",
        inputs={"campaign": where},
        extra=extra,
        root=ws.root,
        digests={"campaign": digest} if hashed and digest is not None else None,
    )


def _import_beside(*modules: str) -> None:
    """Import ``modules`` in a thread while this one opens the campaign and waits on its first reads.

    Why: importing numpy and the agreement package is interpreter work (0.2-0.4 s of an export at 171,151
    items, longer when the log check's thread competes for the interpreter) that the export needs only once
    the grades are read; the waits before that (PostgreSQL's connection and the server's statements, SQLite's
    statements, during which either driver lets go of the interpreter) are time it can use. The thread only
    warms ``sys.modules``: the code that needs a module imports it as before (waiting for the thread's import of
    it, if still under way), and meets any error itself. Not a daemon: an export that fails at once still
    lets the import finish before the interpreter exits, rather than abandoning a thread inside an extension
    module's initialisation at shutdown."""
    import importlib
    import threading

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # whoever needs it imports it again, and reports the error
                return

    threading.Thread(target=load, name="import_beside", daemon=False).start()


def _hash_beside(campaign: str | Path) -> Callable[[], str | None] | None:
    """Hash the campaign file for the manifest's inputs in a thread, while the export reads it (hashlib lets
    go of the interpreter on large blocks: 0.2-0.4 s of an export at 171,151 items, overlapped); the function
    returned waits for the hash (None: the file could not be read — the manifest then hashes it itself). A
    campaign URL is no file: None."""
    from concurrent.futures import ThreadPoolExecutor

    from toolkit.formats.manifest import file_sha256
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(campaign) or not Path(campaign).is_file():
        return None
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="campaign_sha256")
    future = pool.submit(file_sha256, campaign)
    pool.shutdown(wait=False)  # not waited for here: ``hashed`` waits for the one task

    def hashed() -> str | None:
        try:
            return future.result()
        except OSError:
            return None

    return hashed


def _agreement(store: CampaignStore, grades: Sequence[Grade] | ItemGrades) -> dict[str, Any] | None:
    """The agreement summary for the manifest; None when there is nothing (or too little) to agree on."""
    from toolkit.agreement import agreement_summary
    from toolkit.agreement.ratings import RatingTable
    from toolkit.judging.itemgrades import ItemGrades

    if not len(grades):
        return None
    # column-wise: one grade per assessor and item, integers (the store's decisions in force)
    if isinstance(grades, ItemGrades):
        table = RatingTable.from_items(
            grades.item, grades.assessor, grades.assessors, grades.grade, grades.query_ids, grades.doc_ids
        )
    else:
        query_ids, doc_ids, assessors, values, _ = zip(*grades, strict=True)
        table = RatingTable.from_columns(assessors, query_ids, doc_ids, values)
    try:
        return agreement_summary(table, labels=sorted(store.grades()))
    except ToolkitError:
        return None
