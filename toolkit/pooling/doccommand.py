"""Doc sources that run a command: one process per document, or the batch protocol (many ids per process).

**Per document** — ``[docs] command`` with ``{doc_id}`` in one of its elements: the command runs once per
document (``workers`` at a time) and its stdout is the document, a JSON object (``toolkit.formats.corpus``)
or plain text whose first non-blank line is the title. Simple to write; slow when a process takes 50 ms
to start and the pool holds thousands of documents.

**Batch protocol** — ``[docs] command`` *without* ``{doc_id}``: the command is started once per batch of up
to ``BATCH_MAX`` ids (``workers`` batches at a time), reads the ids on stdin, one per line (UTF-8, ``\\n``),
and answers on stdout with one JSON object per line, in any order: ``{"doc_id", "title", "text", "format",
"version"}`` for a document it has, ``{"doc_id", "error"}`` for one it cannot give. An id it does not
answer is a fetch failure (with its exit status and last stderr line when it failed). A line that is not
a JSON object with a ``doc_id`` is a broken command, not a missing document: the round stops with an
error and writes nothing. The command may take ``timeout`` seconds between two answer lines (a slow
batch is fine as long as it keeps answering).

**Versions** — ``[docs] versions``, optional, any source: a batch-protocol command answering
``{"doc_id", "version"}`` per id it knows (no text). A later round asks it first and takes every document
whose version equals the one stored with its latest snapshot as unchanged, without fetching it.

In every argv template a first element ``python`` or ``{python}`` is the running interpreter
(``sys.executable``), so a workspace works inside any venv; there is never a shell.
"""

from __future__ import annotations

import contextlib
import json
import math
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from toolkit.errors import UsageError
from toolkit.formats.corpus import MAX_LINE_BYTES, DocRecord, doc_id_of, doc_record
from toolkit.formats.structured import loads_json
from toolkit.judging.records import Document
from toolkit.pooling.docsource import failed, make_document, split_title
from toolkit.systems.process import OutputTooLarge, drain, too_large_message
from toolkit.systems.process import run_capped as capped

#: Seconds a per-document command may take, and a batch command between two answer lines.
COMMAND_TIMEOUT_S = 60.0
#: Most ids given to one batch process: a failing process costs at most this many documents.
BATCH_MAX = 2000


def interpreter(head: str) -> str:
    return sys.executable if head in ("python", "{python}") else head


def documents_from(records: Iterable[DocRecord]) -> Iterator[Document]:
    for r in records:
        if r.error is not None:
            yield failed(r.doc_id, r.error)
        else:
            yield make_document(r.doc_id, r.title, r.text, format=r.format, version=r.version)


@dataclass(frozen=True)
class CommandDocSource:
    """``[docs] command`` with ``{doc_id}``: one process per document, ``workers`` at a time."""

    template: tuple[str, ...]
    cwd: Path | None = None
    workers: int = 4
    timeout: float = COMMAND_TIMEOUT_S
    versions_template: tuple[str, ...] | None = None

    def argv(self, doc_id: str) -> list[str]:
        head, *rest = self.template
        return [interpreter(head).replace("{doc_id}", doc_id), *(p.replace("{doc_id}", doc_id) for p in rest)]

    def fetch(self, doc_id: str) -> Document:
        argv = self.argv(doc_id)
        try:
            code, stdout, stderr = run_capped(argv, cwd=self.cwd, timeout=self.timeout)
        except FileNotFoundError:
            return failed(doc_id, f"command not found: {argv[0]}")
        except subprocess.TimeoutExpired:
            return failed(doc_id, f"timed out after {self.timeout:g} s")
        except OutputTooLarge as exc:
            return failed(doc_id, too_large_message(exc.limit, "the doc command"))
        except OSError as exc:
            return failed(doc_id, f"cannot run {argv[0]}: {exc.strerror}")
        if code != 0:
            return failed(doc_id, exit_reason(code, stderr))
        return parse_command_output(doc_id, stdout)

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        if len(doc_ids) <= 1 or self.workers <= 1:
            yield from map(self.fetch, doc_ids)
            return
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(self.fetch, doc_ids)

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return ask_versions(self.versions_template, doc_ids, cwd=self.cwd, timeout=self.timeout)

    def describe(self) -> str:
        return "command " + " ".join(self.template)


@dataclass(frozen=True)
class BatchCommandDocSource:
    """``[docs] command`` without ``{doc_id}``: the batch protocol (see the module docstring)."""

    template: tuple[str, ...]
    cwd: Path | None = None
    workers: int = 4
    timeout: float = COMMAND_TIMEOUT_S
    versions_template: tuple[str, ...] | None = None
    batch_max: int = BATCH_MAX

    def iter_documents(self, doc_ids: Sequence[str]) -> Iterator[Document]:
        def one_batch(ids: list[str], cancel: threading.Event) -> Iterator[DocRecord]:
            return run_batch(self.template, ids, cwd=self.cwd, timeout=self.timeout, cancel=cancel)

        records = parallel_batches(doc_ids, one_batch, workers=self.workers, batch_max=self.batch_max)
        yield from documents_from(records)

    def versions(self, doc_ids: Sequence[str]) -> dict[str, str]:
        return ask_versions(self.versions_template, doc_ids, cwd=self.cwd, timeout=self.timeout)

    def describe(self) -> str:
        return "command " + " ".join(self.template) + " (batch)"


def ask_versions(
    template: tuple[str, ...] | None, doc_ids: Sequence[str], *, cwd: Path | None, timeout: float
) -> dict[str, str]:
    """doc_id → version from a ``[docs] versions`` command; empty when there is none. An id the command
    does not answer (or answers with an error) has no known version: it is fetched."""
    if template is None or not doc_ids:
        return {}

    def one_batch(ids: list[str], cancel: threading.Event) -> Iterator[DocRecord]:
        return run_batch(template, ids, cwd=cwd, timeout=timeout, cancel=cancel, versions_only=True)

    # Telling a version is cheap next to starting a process: a few big batches, not one per worker.
    return {
        r.doc_id: r.version
        for r in parallel_batches(doc_ids, one_batch, workers=1, batch_max=BATCH_MAX * 10)
        if r.error is None and r.version is not None
    }


def parallel_batches(
    doc_ids: Sequence[str],
    one_batch: Callable[[list[str], threading.Event], Iterator[DocRecord]],
    *,
    workers: int,
    batch_max: int,
) -> Iterator[DocRecord]:
    """Split ``doc_ids`` into at least ``workers`` batches of at most ``batch_max`` ids, run ``workers`` at a
    time, and yield every record as soon as it arrives (so progress moves per document). The first error
    stops the other batches (their processes are killed) and is raised here."""
    ids = list(dict.fromkeys(doc_ids))
    if not ids:
        return
    count = max(min(workers, len(ids)), math.ceil(len(ids) / batch_max))
    size = math.ceil(len(ids) / count)
    batches = [ids[i : i + size] for i in range(0, len(ids), size)]
    out: queue.Queue[DocRecord | BaseException | None] = queue.Queue(maxsize=10_000)
    cancel = threading.Event()
    remaining = len(batches)

    def task(batch: list[str]) -> None:
        try:
            if cancel.is_set():
                return
            for record in one_batch(batch, cancel):
                out.put(record)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which re-raises it
            cancel.set()
            out.put(exc)
        finally:
            out.put(None)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for batch in batches:
            pool.submit(task, batch)
        try:
            while remaining:
                item = out.get()
                if item is None:
                    remaining -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            cancel.set()
            while remaining:  # let blocked producers finish so the pool can shut down
                if out.get() is None:
                    remaining -= 1


def run_batch(
    template: Sequence[str],
    doc_ids: Sequence[str],
    *,
    cwd: Path | None,
    timeout: float,
    cancel: threading.Event | None = None,
    versions_only: bool = False,
) -> Iterator[DocRecord]:
    """Run one batch-protocol process over ``doc_ids``; yield one record per id (answers first, then a
    failure for every id it left unanswered). A malformed answer line raises ``UsageError``."""
    argv = [interpreter(template[0]), *template[1:]]
    wanted = set(doc_ids)
    what = "[docs] versions" if versions_only else "[docs] command"
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd
        )
    except FileNotFoundError:
        yield from _all_failed(doc_ids, f"command not found: {argv[0]}")
        return
    except OSError as exc:
        yield from _all_failed(doc_ids, f"cannot run {argv[0]}: {exc.strerror}")
        return
    stdin, stdout, stderr_stream = cast(
        "tuple[IO[bytes], IO[bytes], IO[bytes]]", (proc.stdin, proc.stdout, proc.stderr)
    )
    stderr: list[bytes] = []
    lines: queue.Queue[bytes | None] = queue.Queue(maxsize=1000)
    threads = [
        threading.Thread(target=_feed, args=(stdin, doc_ids), daemon=True),
        threading.Thread(target=drain, args=(stderr_stream, stderr), daemon=True),
        threading.Thread(target=_read_lines, args=(stdout, lines), daemon=True),
    ]
    for t in threads:
        t.start()
    answered: set[str] = set()
    reason: str | None = None
    finished = False  # read to the end: the command exits by itself
    try:
        number = 0
        while True:
            try:
                line = _next_line(lines, timeout, cancel)
            except TimeoutError:
                reason = f"timed out: no answer for {timeout:g} s"
                break
            if line is None:
                break
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise UsageError(f"{what} answer line {number}: longer than {MAX_LINE_BYTES} bytes")
            record = _answer(line, number, what, versions_only)
            if record is None or record.doc_id not in wanted or record.doc_id in answered:
                continue
            answered.add(record.doc_id)
            yield record
        finished = reason is None and not (cancel is not None and cancel.is_set())
    finally:
        if not finished and proc.poll() is None:  # timed out, cancelled, a broken answer, or abandoned
            proc.kill()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        while threads[2].is_alive():  # unblock the reader if it waits on a full queue
            with contextlib.suppress(queue.Empty):
                lines.get(timeout=0.1)
        for t in threads:
            t.join(timeout=1.0)
        for stream in (stdout, stderr_stream):
            stream.close()
    if reason is None and proc.returncode != 0:
        reason = exit_reason(proc.returncode, b"".join(stderr).decode("utf-8", "replace"))
    missing = [d for d in doc_ids if d not in answered]
    if missing and not versions_only:
        yield from _all_failed(missing, reason or "the doc command gave no answer for it")


def _answer(line: bytes, number: int, what: str, versions_only: bool) -> DocRecord | None:
    text = line.decode("utf-8", "replace").strip()
    if not text:
        return None
    hint = (
        f"{what} answer line {number}: expected one JSON object per line with a doc_id "
        "(a command without {doc_id} gets the ids on stdin and answers JSONL; see docs/pooling.md)"
    )
    try:
        data = loads_json(text)
    except json.JSONDecodeError:
        raise UsageError(f"{hint}, got {text[:60]!r}") from None
    if not isinstance(data, dict) or doc_id_of(data) is None:
        raise UsageError(f"{hint}, got {text[:60]!r}")
    if versions_only:
        version = data.get("version")
        doc_id = str(doc_id_of(data))
        if version is None or isinstance(version, bool | dict | list):
            return DocRecord(doc_id, "", "", error="no version")
        return DocRecord(doc_id, "", "", version=str(version))
    record = doc_record(data, allow_error=True)
    if isinstance(record, str):
        raise UsageError(f"{what} answer line {number}: {record}")
    return record


def _next_line(
    lines: queue.Queue[bytes | None], timeout: float, cancel: threading.Event | None
) -> bytes | None:
    """The next stdout line (None at the end); ``TimeoutError`` after ``timeout`` s of silence."""
    waited = 0.0
    while True:
        if cancel is not None and cancel.is_set():
            return None
        try:
            return lines.get(timeout=0.2)
        except queue.Empty:
            waited += 0.2
            if waited >= timeout:
                raise TimeoutError from None


def _feed(stdin: IO[bytes], doc_ids: Sequence[str]) -> None:
    try:
        stdin.write("".join(f"{d}\n" for d in doc_ids).encode("utf-8"))
        stdin.close()
    except (BrokenPipeError, OSError):
        pass  # the command stopped reading; its answers (or exit status) say why


def _read_lines(stream: IO[bytes], lines: queue.Queue[bytes | None]) -> None:
    try:
        while True:
            line = stream.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            lines.put(line)
    finally:
        lines.put(None)


def _all_failed(doc_ids: Iterable[str], reason: str) -> Iterator[DocRecord]:
    for d in doc_ids:
        yield DocRecord(d, "", "", error=reason)


def run_capped(argv: list[str], *, cwd: Path | None, timeout: float) -> tuple[int, str, str]:
    """Exit status, stdout and stderr (UTF-8, undecodable bytes replaced) of one per-document command, its
    stdout read up to the document limit (``toolkit.systems.process.run_capped``: past it the command is
    killed and ``OutputTooLarge`` raised)."""
    done = capped(argv, cwd=cwd, timeout=timeout)
    # Universal newlines, as ``text=True`` gave before: a document's content hash does not depend on this.
    text = done.stdout.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    return done.returncode, text, done.stderr.decode("utf-8", errors="replace")


def exit_reason(code: int, stderr: str) -> str:
    last = stderr.strip().splitlines()[-1:] or [""]
    return f"exit status {code}: {last[0]}".rstrip(": ")


def parse_command_output(doc_id: str, stdout: str) -> Document:
    """A per-document command's stdout: a JSON document object, else plain text; empty output fails."""
    if not stdout.strip():
        return failed(doc_id, "the doc command printed nothing")
    stripped = stdout.strip()
    if stripped.startswith("{"):
        try:
            data = loads_json(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            record = doc_record({**data, "doc_id": doc_id})
            if isinstance(record, DocRecord):
                return make_document(
                    doc_id, record.title, record.text, format=record.format, version=record.version
                )
    return make_document(doc_id, *split_title(stdout))
