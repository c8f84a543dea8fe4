"""Titles and snippets for the per-topic view, from where the workspace keeps its documents.

The view (``toolkit.reports.topic_view``) shows each ranked document's title and the start of its text. They
come from the same places ``pool`` reads documents from (``toolkit.pooling.docsource``): ``--docs`` — a
JSONL/TSV corpus, a folder, or a **campaign**, whose snapshots are the text assessors judged — else the
workspace's ``[docs]`` table (a command or a corpus). Only the documents of the topics the page holds are
fetched (``TopicViews.shown``), each once.

A document that cannot be fetched is shown with the reason (``DocText.error``), and the log says how many
failed: the audit's numbers do not depend on titles, so a missing page does not stop it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.model import TopicSet
from toolkit.stats.rankings import DocText, Rankings, doc_texts
from toolkit.stats.result import ComparisonResult
from toolkit.workspace import Workspace

if TYPE_CHECKING:
    from toolkit.pooling.docsource import DocSource


def fetch_doc_texts(
    source: DocSource, doc_ids: Iterable[str], *, progress: Callable[[int, int], None] | None = None
) -> dict[str, DocText]:
    """Each document's title and snippet, or its fetch error."""
    from toolkit.pooling.docsource import fetch_documents

    return doc_texts(fetch_documents(source, doc_ids, progress=progress))


def view_rankings(
    rankings: Rankings,
    result: ComparisonResult,
    topics: TopicSet | None,
    *,
    shown: int,
    docs: str | Path | None = None,
    workspace: Workspace | None = None,
    query_ids: Sequence[str] | None = None,
    log: Callable[[str], None] = lambda _msg: None,
    progress: Callable[[int, int], None] | None = None,
) -> Rankings:
    """``rankings`` with the titles and snippets of the documents of the topics the page holds (``shown``
    per candidate, or ``query_ids`` when given): from ``docs`` (a campaign, a corpus file or a folder), else
    ``workspace``'s ``[docs]``; unchanged when neither names a source."""
    from toolkit.stats.topic_view import TopicViews

    wanted = query_ids if query_ids is not None else TopicViews(result, rankings, topics).shown(shown)
    ids = rankings.doc_ids(wanted)
    if not ids:
        return rankings
    source = _source(docs, workspace)
    if source is None:
        log("docs: no doc source (--docs or [docs] in toolkit.toml); the per-topic view shows doc ids only")
        return rankings
    texts = fetch_doc_texts(source, ids, progress=progress)
    failed = [t.error for t in texts.values() if t.error]
    log(
        f"docs: {len(texts) - len(failed)} of {len(texts)} documents of the per-topic view from {source.describe()}"
        + (f"; {len(failed)} could not be fetched (first: {failed[0]})" if failed else "")
    )
    return rankings.with_docs(texts)


def _source(docs: str | Path | None, workspace: Workspace | None) -> DocSource | None:
    from toolkit.pooling.snapshots import doc_source_for

    if docs is not None:
        return doc_source_for(docs)
    return workspace.doc_source() if workspace is not None else None
