"""A whole campaign as plain rows, its content hash, and ``copy_campaign`` between backends.

``campaign copy`` moves a campaign from SQLite to PostgreSQL (to judge from several sites) and back (to archive
it with the audit) — the log and all: event ids, times, undo links, snapshot ids and round times are kept, so
``judgments export --log`` prints the same bytes from the copy as from the original.

The **content hash** pins that down. It is the SHA-256 of the canonical export: every table below, in this
order, each as a header line ``["table", [columns]]`` followed by its rows in key order, one compact JSON array
per line (UTF-8, ``\\n``-terminated). Values are only integers, strings, floats and null (flags are 0/1), and
text is ordered by code point, so both backends — and anyone with the SQLite shell and a JSON library — compute
the same hash. The tables and columns are the declaration's (``toolkit.judging.sql.tables``), every column both
backends have: a column added there is in the dump, the copy and the hash without a change here.

Each backend reads and writes these rows in its own package (``dump()`` / ``restore()`` on the store): no SQL
here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import StoreError
from toolkit.judging.sql.tables import DUMPED

#: The canonical export's version: part of the hash, so a future change of layout cannot collide. Version 2
#: follows the declaration (``toolkit.judging.sql.tables``): every column both backends have, floats allowed.
DUMP_FORMAT = "trec-toolkit campaign export 2"

Row = tuple[Any, ...]


@dataclass(frozen=True)
class CampaignDump:
    """Every row of a campaign, table by table, in canonical order (build it with ``canonical_dump``)."""

    tables: Mapping[str, tuple[Row, ...]]

    def content_hash(self) -> str:
        digest = hashlib.sha256()
        for line in self.lines():
            digest.update(line.encode("utf-8"))
        return digest.hexdigest()

    def lines(self) -> Iterable[str]:
        """The canonical export the hash is taken over, line by line."""
        yield _json([DUMP_FORMAT]) + "\n"
        for table in DUMPED:
            yield _json([table.name, list(table.names())]) + "\n"
            for row in self.tables[table.name]:
                yield _json(list(row)) + "\n"

    def counts(self) -> dict[str, int]:
        return {table: len(rows) for table, rows in self.tables.items()}

    @property
    def events(self) -> int:
        return len(self.tables["judgment_log"])


def canonical_dump(tables: Mapping[str, Iterable[Sequence[Any]]]) -> CampaignDump:
    """Rows as a backend read them (in any order; flags as bool or int) → the canonical dump."""
    out: dict[str, tuple[Row, ...]] = {}
    for table in DUMPED:
        columns = table.names()
        positions = [columns.index(k) for k in table.sort_key]
        rows = [tuple(_value(v) for v in row) for row in tables[table.name]]
        for row in rows:
            if len(row) != len(columns):
                raise StoreError(f"{table.name}: expected {len(columns)} columns, got {len(row)}")
        out[table.name] = tuple(sorted(rows, key=lambda r: tuple(r[p] for p in positions)))
    return CampaignDump(out)


@dataclass(frozen=True)
class CopyResult:
    """What ``copy_campaign`` moved, and the content hash both sides agree on."""

    source: str
    target: str
    counts: Mapping[str, int]
    content_hash: str


def copy_campaign(source: str | Path, target: str | Path) -> CopyResult:
    """Copy the campaign at ``source`` into a new campaign at ``target`` (any two backends).

    The target must not exist yet: a copy never merges into or overwrites a campaign. The rows are written
    in one transaction that is rolled back unless the target, read back inside it, has the source's content
    hash; the hash is then checked once more from a fresh connection. A copy that fails leaves no target.
    """
    from toolkit.judging.store import CampaignStore

    if _exists(target):
        raise StoreError(f"{target}: already exists; copy into a new campaign (a copy never overwrites one)")
    with CampaignStore.open(source) as src:
        dump = src.dump()
    expected = dump.content_hash()
    try:
        with CampaignStore.open(target, create=True) as dst:
            dst.restore(dump)
        with CampaignStore.open(target) as dst:
            found = dst.dump().content_hash()
        if found != expected:
            raise StoreError(
                f"{target}: content hash {found} differs from the source's {expected} after the copy; "
                "the copy was removed"
            )
    except BaseException:
        _discard(target)
        raise
    return CopyResult(str(source), str(target), dump.counts(), expected)


def campaign_hash(location: str | Path) -> tuple[str, CampaignDump]:
    """The content hash of the campaign at ``location`` (and the dump it was taken over)."""
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open(location) as store:
        dump = store.dump()
    return dump.content_hash(), dump


def _exists(location: str | Path) -> bool:
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(location):
        from toolkit.judging.postgres.store import PostgresStore

        return PostgresStore.exists(str(location))
    return Path(location).exists()


def _discard(location: str | Path) -> None:
    """Remove a target this copy created (it did not exist before ``copy_campaign`` started)."""
    from toolkit.judging.postgres.url import is_campaign_url

    if is_campaign_url(location):
        from toolkit.judging.postgres.store import PostgresStore

        PostgresStore.drop(str(location))
        return
    for suffix in ("", "-wal", "-shm"):
        Path(f"{location}{suffix}").unlink(missing_ok=True)


def _value(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    if v is None or isinstance(v, int | str | float):
        return v
    raise StoreError(f"unexpected value {v!r} of type {type(v).__name__} in a campaign table")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
