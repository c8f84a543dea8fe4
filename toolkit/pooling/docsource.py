"""Doc sources: where ``pool`` gets the text of each pooled document to snapshot it into the campaign.

Three kinds, chosen by ``--docs`` or by ``toolkit.toml``:

- a **command template** (``[docs] command = ["python", "-m", "toolkit.example", "show", "{doc_id}"]``): an argv
  list, never a shell; ``{doc_id}`` is replaced inside each element; a first element ``python`` or
  ``{python}`` means the running interpreter (``sys.executable``), so the workspace works inside any venv.
  Its stdout is the document: a JSON object with ``text`` (and optional ``title``), or plain text whose
  first non-blank line is the title. A non-zero exit, a timeout or empty output is a fetch failure;
- a **JSONL corpus** (``.jsonl``/``.ndjson``): one object per line with an id (``doc_id``, ``docno``, ``id``
  or ``_id``), ``text`` (or ``body``/``contents``) and an optional ``title``;
- a **TSV corpus** (``.tsv``): ``doc_id<TAB>text`` or ``doc_id<TAB>title<TAB>text``;
- a **folder** of files named after the doc id (``DIR/ID``, ``DIR/ID.txt``, ``.md``, ``.html``), where the id
  may be percent-encoded (``urllib.parse.quote(id, safe='')``) because ids like ``pydoc://os.path`` are not
  file names. The first line of a file is its title. A symlink is followed only when it ends inside the
  folder: one out of it (to a file elsewhere, or through a symlinked directory) is refused, so a folder
  unpacked from elsewhere cannot make ``pool`` snapshot ``~/.ssh/id_rsa`` into a campaign that assessors read.

A document that cannot be fetched becomes a ``Document`` with ``fetch_error`` set: pooling records it and
goes on, so a missing page is visible to the organiser instead of silently leaving the pool.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from toolkit.errors import ConfigError, FormatError, UsageError
from toolkit.formats.textfile import iter_data_lines, read_text
from toolkit.judging.records import Document

_ID_KEYS = ("doc_id", "docno", "id", "_id")
_TEXT_KEYS = ("text", "body", "contents")
_FILE_SUFFIXES = ("", ".txt", ".md", ".html", ".json")

#: Seconds a command doc source may take per document before the fetch counts as failed.
COMMAND_TIMEOUT_S = 60.0


def content_hash(title: str, text: str) -> str:
    """The hash that decides whether a judged document changed: sha256 over title and text."""
    return hashlib.sha256(f"{title}\0{text}".encode()).hexdigest()


def make_document(doc_id: str, title: str, text: str) -> Document:
    return Document(doc_id=doc_id, title=title, text=text, content_hash=content_hash(title, text))


def failed(doc_id: str, reason: str) -> Document:
    return Document(doc_id=doc_id, title="", text="", content_hash=None, fetch_error=reason)


def split_title(text: str) -> tuple[str, str]:
    """Plain text: the first non-blank line is the title (a Markdown ``#`` marker dropped; ≤ 200 characters)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip().lstrip("#").strip()[:200], text
    return "", text


class DocSource(Protocol):
    """Anything that can fetch documents by id; ``describe`` goes into the round's parameters."""

    def fetch_many(self, doc_ids: Sequence[str]) -> dict[str, Document]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class CorpusDocSource:
    """Documents held in memory, read from a JSONL or TSV corpus (or given directly, as in tests)."""

    documents: Mapping[str, tuple[str, str]]  # doc_id → (title, text)
    origin: str = "memory"

    def fetch_many(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        out: dict[str, Document] = {}
        for doc_id in doc_ids:
            entry = self.documents.get(doc_id)
            if entry is None:
                out[doc_id] = failed(doc_id, f"not in {self.origin}")
            else:
                out[doc_id] = make_document(doc_id, *entry)
        return out

    def describe(self) -> str:
        return self.origin


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
                text = read_text(real)
            except FormatError as exc:
                out[doc_id] = failed(doc_id, str(exc))
                continue
            out[doc_id] = make_document(doc_id, *split_title(text))
        return out

    def describe(self) -> str:
        return f"folder {self.root}"


@dataclass(frozen=True)
class CommandDocSource:
    """Run a command per document (argv template with ``{doc_id}``), a few in parallel."""

    template: tuple[str, ...]
    cwd: Path | None = None
    workers: int = 4
    timeout: float = COMMAND_TIMEOUT_S
    runner: Callable[..., Any] = field(default=subprocess.run, compare=False, repr=False)

    def argv(self, doc_id: str) -> list[str]:
        head, *rest = self.template
        if head in ("python", "{python}"):
            head = sys.executable
        return [head.replace("{doc_id}", doc_id), *(part.replace("{doc_id}", doc_id) for part in rest)]

    def fetch(self, doc_id: str) -> Document:
        argv = self.argv(doc_id)
        try:
            proc = self.runner(
                argv, capture_output=True, text=True, timeout=self.timeout, cwd=self.cwd, check=False
            )
        except FileNotFoundError:
            return failed(doc_id, f"command not found: {argv[0]}")
        except subprocess.TimeoutExpired:
            return failed(doc_id, f"timed out after {self.timeout:g} s")
        except OSError as exc:
            return failed(doc_id, f"cannot run {argv[0]}: {exc.strerror}")
        if proc.returncode != 0:
            last = (proc.stderr or "").strip().splitlines()[-1:] or [""]
            return failed(doc_id, f"exit status {proc.returncode}: {last[0]}".rstrip(": "))
        return parse_command_output(doc_id, proc.stdout)

    def fetch_many(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        if len(doc_ids) <= 1 or self.workers <= 1:
            return {d: self.fetch(d) for d in doc_ids}
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return dict(zip(doc_ids, pool.map(self.fetch, doc_ids), strict=True))

    def describe(self) -> str:
        return "command " + " ".join(self.template)


def parse_command_output(doc_id: str, stdout: str) -> Document:
    """A JSON object with ``text`` (and ``title``), else plain text; empty output is a failure."""
    if not stdout.strip():
        return failed(doc_id, "the doc command printed nothing")
    stripped = stdout.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            text = next((data[k] for k in _TEXT_KEYS if isinstance(data.get(k), str)), None)
            if text is not None:
                title = data.get("title")
                return make_document(doc_id, title if isinstance(title, str) else "", text)
    return make_document(doc_id, *split_title(stdout))


def read_corpus(path: Path) -> CorpusDocSource:
    """Read a JSONL or TSV corpus into memory; every defect names ``path:line``."""
    docs: dict[str, tuple[str, str]] = {}
    jsonl = path.suffix.lower() in (".jsonl", ".ndjson") or path.name.endswith((".jsonl.gz", ".ndjson.gz"))
    for number, line in iter_data_lines(path):
        if jsonl:
            doc_id, title, text = _jsonl_doc(path, number, line)
        else:
            doc_id, title, text = _tsv_doc(path, number, line)
        if doc_id in docs:
            raise FormatError(path, number, f"duplicate document {doc_id!r}; keep one line per doc_id")
        docs[doc_id] = (title, text)
    return CorpusDocSource(docs, origin=str(path))


def _jsonl_doc(path: Path, number: int, line: str) -> tuple[str, str, str]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise FormatError(path, number, f"invalid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise FormatError(path, number, "expected a JSON object per line")
    doc_id = next((data[k] for k in _ID_KEYS if k in data), None)
    if doc_id is None or isinstance(doc_id, bool | dict | list):
        raise FormatError(path, number, f"missing document id (one of {', '.join(_ID_KEYS)})")
    text = next((data[k] for k in _TEXT_KEYS if isinstance(data.get(k), str)), None)
    if text is None:
        raise FormatError(path, number, f"missing document text (one of {', '.join(_TEXT_KEYS)})")
    title = data.get("title", "")
    return str(doc_id), title if isinstance(title, str) else str(title), text


def _tsv_doc(path: Path, number: int, line: str) -> tuple[str, str, str]:
    parts = line.split("\t")
    if len(parts) == 2:
        return parts[0], "", parts[1].replace("\\n", "\n")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2].replace("\\n", "\n")
    raise FormatError(
        path, number, f"expected doc_id<TAB>text or doc_id<TAB>title<TAB>text, found {len(parts)} columns"
    )


def doc_source_from_option(spec: str | Path) -> DocSource:
    """``--docs FILE.jsonl|FILE.tsv|DIR``."""
    path = Path(spec)
    if path.is_dir():
        return FolderDocSource(path)
    if not path.exists():
        raise UsageError(
            f"--docs {spec}: no such file or folder; pass a .jsonl/.tsv corpus or a folder of files"
        )
    return read_corpus(path)


def doc_source_from_config(
    section: Mapping[str, Any], root: Path, *, where: str = "toolkit.toml"
) -> DocSource | None:
    """The ``[docs]`` table: ``command = [...]`` (argv template) or ``path = "corpus.jsonl"``; None if absent."""
    command = section.get("command")
    if command is not None:
        if isinstance(command, str) or not isinstance(command, list) or not command:
            raise ConfigError(
                f"{where}: [docs] command must be a non-empty argv list like "
                '["python", "-m", "mydocs", "show", "{doc_id}"] (no shell strings)'
            )
        if not all(isinstance(part, str) for part in command):
            raise ConfigError(f"{where}: [docs] command elements must all be strings")
        if not any("{doc_id}" in part for part in command):
            raise ConfigError(f"{where}: [docs] command must contain {{doc_id}} in one of its elements")
        return CommandDocSource(tuple(command), cwd=root)
    path = section.get("path")
    if path is not None:
        return doc_source_from_option(root / str(path))
    return None


def fetch_documents(
    source: DocSource,
    doc_ids: Iterable[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = 32,
) -> dict[str, Document]:
    """Fetch each distinct id once, preserving first-seen order; ``progress(done, total)`` before the first
    chunk (so a bar shows the count from the start) and after each chunk."""
    unique = list(dict.fromkeys(doc_ids))
    if progress is None:
        return source.fetch_many(unique) if unique else {}
    out: dict[str, Document] = {}
    progress(0, len(unique))
    for start in range(0, len(unique), chunk):
        out.update(source.fetch_many(unique[start : start + chunk]))
        progress(len(out), len(unique))
    return out
