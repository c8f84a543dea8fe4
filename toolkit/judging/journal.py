"""The outbox's journal: a judging window's queued writes on disk, so that a killed window loses none.

Why: the outbox (``toolkit.judging.outbox``) keeps the writes the store has not taken yet in memory, and the
store can be busy for minutes (a pool round, an import). A window killed then — a closed browser tab kills
its process, and so does a dropped SSH session — would lose every decision still queued. So each queued
write is appended to this journal and ``fsync``'ed *before* the screen moves on, and marked done once the
store has committed it; the next window of the same assessor on the same campaign replays what a dead
window left.

One file per window, ``CAMPAIGN.outbox/ROLE-NAME~HASH.TIME-PID-RANDOM.jsonl`` beside the campaign (``ROLE``:
``judge`` or ``adjudicate``, so that the two screens of one person never replay each other's), held under
an exclusive ``flock`` while its window lives. The kernel drops the lock when the process dies, however it
dies, so a journal whose lock can be taken belongs to a dead window: that is the only one ``adopt`` takes.
A live window's journal (the same assessor in another tab) is never touched.

Lines, each one JSON object:

- ``{"put": EVENT, "expect": ID}`` — a write queued (its provisional event id, and the decision in force
  it was based on, resolved to the committed id when that was known);
- ``{"done": PROVISIONAL, "event_id": ID}`` — committed (``event_id`` None for an undo);
- ``{"dropped": [PROVISIONAL, …]}`` — refused for a conflict (the screen asked the assessor);

and the file is emptied whenever the queue is. A torn last line (killed mid-write) was never acknowledged to
the screen and is ignored.

Exactly once: replayed writes keep their expectations, so a write that did land before the kill finds its
own decision in force (or, for an undo, its undo in the log; for a note, the same note) and counts as saved
(``toolkit.judging.outbox.Outbox.flush_one``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote

from toolkit.judging.records import LogEvent

#: How the folder beside a campaign is named: ``judging/x.sqlite`` → ``judging/x.sqlite.outbox``.
SUFFIX = ".outbox"


def journal_folder(campaign: str | Path) -> Path:
    """Where the journals of a campaign's windows live: beside the campaign file; for a server campaign
    (a ``postgresql://`` URL: no folder of its own), in this user's state folder
    (``$XDG_STATE_HOME/trec-toolkit/outbox/``, else ``~/.local/state/…``), one folder per URL."""
    from toolkit.judging.postgres.url import campaign_label, is_campaign_url

    if is_campaign_url(campaign):
        state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
        digest = hashlib.sha256(str(campaign).encode()).hexdigest()[:12]
        name = quote(campaign_label(campaign), safe="")[:60]
        return Path(state) / "trec-toolkit" / "outbox" / f"{name}~{digest}{SUFFIX}"
    path = Path(campaign)
    return path.parent / f"{path.name}{SUFFIX}"


def _prefix(role: str, assessor: str) -> str:
    """A file-name prefix for one screen of one person: readable, safe in any file system, unique by its
    hash."""
    digest = hashlib.sha256(assessor.encode()).hexdigest()[:10]
    return f"{role}-{quote(assessor, safe='')[:60]}~{digest}."


@dataclass(frozen=True)
class Entry:
    """A write a dead window queued and the store may not have: its event (with the dead window's
    provisional ids) and the id of the decision in force it was based on."""

    event: LogEvent
    expect: int | None


def _sync(fd: int) -> None:
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def _sync_folder(folder: Path) -> None:
    """Make a file's creation or removal durable (POSIX: fsync the directory)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _lock(handle: BinaryIO) -> bool:
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class Journal:
    """One window's journal; created on the first write, removed when the window closes with nothing queued.

    Not thread-safe by itself: the outbox calls it under its own lock.
    """

    def __init__(self, folder: Path, assessor: str, *, role: str = "judge") -> None:
        self.folder = folder
        self.assessor = assessor
        self.role = role
        self.path: Path | None = None
        self._handle: BinaryIO | None = None
        self._size = 0
        self._closed = False

    def _open(self) -> BinaryIO:
        if self._handle is None:
            if self._closed:
                raise OSError("the journal is closed")
            self.folder.mkdir(parents=True, exist_ok=True)
            stamp = time.strftime("%Y%m%dT%H%M%S")
            name = f"{_prefix(self.role, self.assessor)}{stamp}-{os.getpid()}-{secrets.token_hex(4)}.jsonl"
            path = self.folder / name
            handle = open(path, "xb")  # noqa: SIM115 (held open, and locked, for the window's life)
            if not _lock(handle):  # nobody else knows the name yet: this cannot happen, but never share
                handle.close()
                raise OSError(f"{path}: locked by another process")
            _sync_folder(self.folder)
            self.path, self._handle = path, handle
        return self._handle

    def _write(self, record: dict[str, Any], *, sync: bool) -> None:
        handle = self._open()
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        handle.write(line)
        handle.flush()
        if sync:
            _sync(handle.fileno())
        self._size += len(line)

    # Only ``put`` syncs. What says a write is done (``done``, ``dropped``, ``clear``) reaches the file at
    # once (a killed process's writes are in the kernel already) and the disk soon after; lost to a power
    # cut, it only means a replay that finds the write in the store and adds nothing. So the store's commit
    # is the one sync a key press waits for, as before, plus this one for the queued write.

    def put(self, event: LogEvent, expect: int | None) -> None:
        """A write was queued: durable when this returns (raises ``OSError`` when it cannot be)."""
        self._write({"put": dataclasses.asdict(event), "expect": expect}, sync=True)

    def done(self, provisional: int, event_id: int | None) -> None:
        """The store committed the write ``provisional`` (as ``event_id``)."""
        if self._handle is not None:
            self._write({"done": provisional, "event_id": event_id}, sync=False)

    def dropped(self, provisional: list[int]) -> None:
        """The store refused these writes for a conflict: the screen asks the assessor, nothing replays them."""
        if self._handle is not None:
            self._write({"dropped": provisional}, sync=False)

    def clear(self) -> None:
        """Nothing is queued any more: empty the file (instead of letting it grow)."""
        if self._handle is not None and self._size:
            self._handle.truncate(0)
            self._handle.seek(0)
            self._size = 0

    def close(self) -> None:
        """The window closes: remove the journal when it holds nothing, else leave it for the next window."""
        self._closed = True
        handle, self._handle = self._handle, None
        if handle is None or self.path is None:
            return
        try:
            if not self._size:
                self.path.unlink(missing_ok=True)
                _remove_empty(self.folder)
        finally:
            handle.close()  # releases the lock: from now on the next window may adopt what is left


def _remove_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty; another window's journal keeps it
        _sync_folder(folder.parent)


def read_entries(lines: Iterator[bytes]) -> list[Entry]:
    """The writes a journal holds that the store may not have, in order, expectations resolved through
    its ``done`` records."""
    pending: dict[int, Entry] = {}
    committed: dict[int, int] = {}
    for raw in lines:
        try:
            record = json.loads(raw)
        except ValueError:
            break  # a torn last line: never acknowledged, and nothing after it was written
        if not isinstance(record, dict):
            break
        if "put" in record:
            event = LogEvent(**record["put"])
            expect = record.get("expect")
            pending[event.event_id] = Entry(event, expect)
        elif "done" in record:
            pending.pop(record["done"], None)
            if record.get("event_id") is not None:
                committed[record["done"]] = record["event_id"]
        elif "dropped" in record:
            for provisional in record["dropped"]:
                pending.pop(provisional, None)
    # A write queued before the one it builds on was committed names it by its provisional id.
    return [
        dataclasses.replace(e, expect=committed.get(e.expect, e.expect)) if e.expect is not None else e
        for e in pending.values()
    ]


def adopt(folder: Path, assessor: str, keep: Callable[[list[Entry]], None], *, role: str = "judge") -> int:
    """Take over the journals dead windows of ``assessor`` left in ``folder``, oldest first.

    ``keep(entries)`` must make the entries durable elsewhere (the new window's own journal) before it
    returns; only then is the dead window's file removed. A file whose lock is held belongs to a live window
    and is left alone. Returns how many entries were handed over.
    """
    if not folder.is_dir():
        return 0
    prefix = _prefix(role, assessor)
    count = 0
    for path in sorted(p for p in folder.iterdir() if p.name.startswith(prefix) and p.suffix == ".jsonl"):
        try:
            handle = open(path, "rb")  # noqa: SIM115
        except OSError:
            continue
        with handle:
            if not _lock(handle):
                continue  # a live window's
            try:
                if os.fstat(handle.fileno()).st_ino != path.stat().st_ino:
                    continue  # adopted and removed by another window between our open and our lock
            except FileNotFoundError:
                continue
            entries = [e for e in read_entries(iter(handle)) if e.event.assessor == assessor]
            if entries:
                keep(entries)
                count += len(entries)
            path.unlink(missing_ok=True)
            _sync_folder(folder)
    _remove_empty(folder)
    return count
