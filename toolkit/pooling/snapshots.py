"""A campaign's document snapshots as a doc source, and ``--docs SOURCE`` read as any of the sources.

A campaign keeps the text of every pooled document as it was when assessors judged it (docs/design.md §8).
That is the text a reviewer of the comparison should see beside a grade — the live corpus may have changed
since — so the per-topic view (``compare --docs CAMPAIGN``, ``toolkit.compare(docs=…)``) can read titles and
snippets from a campaign as from any other doc source. A document the campaign has no snapshot of is a
failed fetch with the reason, as for the other sources.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolkit.judging.records import Document
from toolkit.pooling.docsource import DocSource, doc_source_from_option, failed

#: The first bytes of every SQLite database file (a campaign that is a file).
SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass(frozen=True)
class CampaignDocSource:
    """The latest snapshot of each document in a campaign (an SQLite file or a ``postgresql://`` URL)."""

    location: str | Path

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        from toolkit.judging.store import CampaignStore, campaign_label

        missing = f"no snapshot in the campaign {campaign_label(self.location)}"
        with CampaignStore.open(self.location) as store:
            snapshots = [
                store.document(d) if store.has_document(d) else failed(d, missing)
                for d in dict.fromkeys(doc_ids)
            ]
        yield from snapshots

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {}

    def describe(self) -> str:
        from toolkit.judging.store import campaign_label

        return f"campaign {campaign_label(self.location)}"


def is_campaign_location(spec: str | Path) -> bool:
    """A ``postgresql://`` campaign URL or an SQLite file."""
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(spec):
        return True
    try:
        with open(spec, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def doc_source_for(spec: str | Path) -> DocSource:
    """``--docs SOURCE``: a campaign (its snapshots), a ``.jsonl``/``.tsv`` corpus or a folder of files."""
    if is_campaign_location(spec):
        return CampaignDocSource(spec)
    return doc_source_from_option(spec)
