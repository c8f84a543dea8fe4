"""Doc sources: where ``pool`` gets the text of each pooled document to snapshot it into the campaign.

Chosen by ``--docs`` or by the ``[docs]`` table of ``toolkit.toml``:

- a **command** (``[docs] command = [...]``, an argv list, never a shell): with ``{doc_id}`` in an element it
  runs once per document; without, it speaks the **batch protocol** — ids on stdin, JSONL answers on
  stdout, one process per batch (``toolkit.pooling.doccommand``; docs/pooling.md "Doc sources");
- a **JSONL corpus** (``.jsonl``/``.ndjson``, ``.gz`` ok): one document object per line (an id, ``text``,
  optional ``title``, ``format``, ``version``; ``toolkit.formats.corpus``);
- a **TSV corpus** (``.tsv``): ``doc_id<TAB>text`` or ``doc_id<TAB>title<TAB>text``;
- a **folder** of files named after the doc id (``DIR/ID``, ``DIR/ID.txt``, ``.md``, ``.html``), where the id
  may be percent-encoded (``urllib.parse.quote(id, safe='')``) because ids like ``pydoc://os.path`` are not
  file names. The first line of a file is its title. A symlink is followed only when it ends inside the
  folder: one out of it (to a file elsewhere, or through a symlinked directory) is refused, so a folder
  unpacked from elsewhere cannot make ``pool`` snapshot ``~/.ssh/id_rsa`` into a campaign that assessors read.

Corpora are streamed, never held whole: a fetch scans the file once and keeps only the documents asked
for, so a pool of 170,000 documents from a corpus of millions fits in memory. ``pool --workers`` (else
``[workspace] workers``) is how many fetches run at once. ``[docs] versions`` names an optional command that
tells a document's version without its text, so a later round skips unchanged documents.

A document that cannot be fetched becomes a ``Document`` with ``fetch_error`` set: pooling records it and
goes on, so a missing page is visible to the organiser instead of silently leaving the pool.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from toolkit.errors import ConfigError, FormatError, UsageError
from toolkit.formats.corpus import iter_corpus
from toolkit.formats.textfile import read_text
from toolkit.judging.records import Document

_FILE_SUFFIXES = ("", ".txt", ".md", ".html", ".json")

#: Fetches at once when the caller does not say.
DEFAULT_WORKERS = 4
#: Least seconds between two progress reports of a fetch (a bar redrawn per document would cost more
#: than the fetch of a corpus document).
PROGRESS_EVERY_S = 0.05


def content_hash(title: str, text: str) -> str:
    """The hash that decides whether a judged document changed: sha256 over title and text."""
    return hashlib.sha256(f"{title}\0{text}".encode()).hexdigest()


def make_document(
    doc_id: str, title: str, text: str, *, format: str | None = None, version: str | None = None
) -> Document:
    return Document(
        doc_id=doc_id,
        title=title,
        text=text,
        content_hash=content_hash(title, text),
        format=format,
        version=version,
    )


def failed(doc_id: str, reason: str) -> Document:
    return Document(doc_id=doc_id, title="", text="", content_hash=None, fetch_error=reason)


def split_title(text: str) -> tuple[str, str]:
    """Plain text: the first non-blank line is the title (a Markdown ``#`` marker dropped; ≤ 200 characters)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()[:200], text
    return "", text


class DocSource(Protocol):
    """Anything that can fetch documents by id.

    ``iter_documents`` yields exactly one ``Document`` per distinct id asked for, in any order (a failure
    is a ``Document`` with ``fetch_error``), as soon as each is ready — that is what moves the progress bar.
    ``versions`` tells the current version of the ids it can without fetching them (empty when it cannot);
    ``describe`` goes into the round's parameters and the progress bar.
    """

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]: ...

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class CorpusDocSource:
    """Documents held in memory (tests, or a caller that has them already)."""

    documents: Mapping[str, tuple[str, str]]  # doc_id → (title, text)
    origin: str = "memory"

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        for doc_id in dict.fromkeys(doc_ids):
            entry = self.documents.get(doc_id)
            yield failed(doc_id, f"not in {self.origin}") if entry is None else make_document(doc_id, *entry)

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {}

    def describe(self) -> str:
        return self.origin


@dataclass(frozen=True)
class CorpusFileDocSource:
    """A JSONL or TSV corpus file, streamed: each fetch scans it once and keeps only the ids asked for."""

    path: Path

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        wanted = set(doc_ids)
        for _, record in iter_corpus(self.path, wanted):
            wanted.discard(record.doc_id)
            yield make_document(
                record.doc_id, record.title, record.text, format=record.format, version=record.version
            )
        for doc_id in dict.fromkeys(d for d in doc_ids if d in wanted):
            yield failed(doc_id, f"not in {self.path}")

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {}  # telling a version means reading the line: no cheaper than fetching

    def describe(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class FolderDocSource:
    """One file per document in a folder."""

    root: Path

    def _find(self, doc_id: str) -> Path | None:
        for name in dict.fromkeys((doc_id, quote(doc_id, safe=""))):
            if "/" in name or name in (".", ".."):
                continue
            for suffix in _FILE_SUFFIXES:
                candidate = self.root / f"{name}{suffix}"
                if candidate.is_file():
                    return candidate
        return None

    def fetch_many(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        out: dict[str, Document] = {}
        root = self.root.resolve()
        for doc_id in doc_ids:
            path = self._find(doc_id)
            if path is None:
                out[doc_id] = failed(doc_id, f"no file for it in {self.root}")
                continue
            real = path.resolve()
            if not real.is_relative_to(root):
                out[doc_id] = failed(
                    doc_id,
                    f"{path} is a symlink out of the doc folder {self.root}; refused (copy the file into the "
                    "folder if it belongs there)",
                )
                continue
            try:
                text = read_text(real, kind="document")
            except FormatError as exc:
                out[doc_id] = failed(doc_id, str(exc))
                continue
            out[doc_id] = make_document(doc_id, *split_title(text))
        return out

    def describe(self) -> str:
        return f"folder {self.root}"

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        yield from self.fetch_many(list(dict.fromkeys(doc_ids))).values()

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return {}


def doc_source_from_option(spec: str | Path) -> DocSource:
    """``--docs FILE.jsonl|FILE.tsv|DIR``."""
    path = Path(spec)
    if path.is_dir():
        return FolderDocSource(path)
    if not path.exists():
        raise UsageError(
            f"--docs {spec}: no such file or folder; pass a .jsonl/.tsv corpus or a folder of files"
        )
    return CorpusFileDocSource(path)


def _argv_list(section: Mapping[str, Any], key: str, where: str, example: str) -> tuple[str, ...] | None:
    value = section.get(key)
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, list) or not value:
        raise ConfigError(
            f"{where}: [docs] {key} must be a non-empty argv list like {example} (no shell strings)"
        )
    if not all(isinstance(part, str) for part in value):
        raise ConfigError(f"{where}: [docs] {key} elements must all be strings")
    return tuple(value)


def doc_source_from_config(
    section: Mapping[str, Any], root: Path, *, where: str = "toolkit.toml", workers: int | None = None
) -> DocSource | None:
    """The ``[docs]`` table: ``command = [...]`` (argv template; per document with ``{doc_id}``, else the
    batch protocol) with an optional ``versions = [...]``, or ``path = "corpus.jsonl"``; None if absent.
    ``workers`` (the caller resolves ``pool --workers`` / ``[workspace] workers``) is how many fetches run at
    once."""
    from toolkit.pooling.doccommand import BatchCommandDocSource, CommandDocSource

    command = _argv_list(section, "command", where, '["python", "-m", "mydocs", "show", "{doc_id}"]')
    versions = _argv_list(section, "versions", where, '["python", "-m", "mydocs", "versions"]')
    if versions is not None and any("{doc_id}" in part for part in versions):
        raise ConfigError(
            f"{where}: [docs] versions speaks the batch protocol (ids on stdin); remove {{doc_id}} from it"
        )
    count = max(1, int(workers)) if workers is not None else DEFAULT_WORKERS
    if command is not None:
        if any("{doc_id}" in part for part in command):
            return CommandDocSource(command, cwd=root, workers=count, versions_template=versions)
        return BatchCommandDocSource(command, cwd=root, workers=count, versions_template=versions)
    path = section.get("path")
    if path is not None:
        return doc_source_from_option(root / str(path))
    return None


def fetch_documents(
    source: DocSource,
    doc_ids: Iterable[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Document]:
    """Fetch each distinct id once, in first-seen order; ``progress(done, total)`` is called before the
    first document (so a bar shows the count from the start), at most every ``PROGRESS_EVERY_S`` seconds
    while documents arrive, and once at the end."""
    unique = list(dict.fromkeys(doc_ids))
    if not unique:
        return {}
    if progress is not None:
        progress(0, len(unique))
    got: dict[str, Document] = {}
    last = clock()
    for doc in source.iter_documents(unique):
        got.setdefault(doc.doc_id, doc)
        if progress is not None and clock() - last >= PROGRESS_EVERY_S:
            last = clock()
            progress(len(got), len(unique))
    if progress is not None:
        progress(len(got), len(unique))
    return {d: got.get(d) or failed(d, "the doc source gave no answer for it") for d in unique}
