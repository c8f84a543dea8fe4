"""The campaign file on disk: what it is before SQLite writes to it, who may write it, how it comes to exist.

Three things a database library does not do for us (docs/design.md §5 "Nothing is lost", §8):

- **Look before touching.** ``check_header`` reads the first 100 bytes with a plain ``open(…, "rb")``:
  a file that is not SQLite, or an SQLite file of another program (its ``application_id`` is not ours), is
  refused before a connection could switch it to WAL or write a schema into it. Only the first connection
  of a process looks (``opening``): closing that plain descriptor would drop every POSIX lock the process
  holds on the file, and a WAL connection that lost its shared lock lets another process, closing what it
  takes for the last connection, checkpoint and delete the ``-wal`` and ``-shm`` still in use — and the
  commits made through them afterwards are lost (sqlite.org "How To Corrupt An SQLite Database File", 2.2).
- **Say read-only, not "corrupt".** ``read_only_reason`` tells a campaign we may only read (no write
  permission on the file or its folder, a read-only file system) so that reads work and writes fail with
  one honest sentence; ``connect_read_only`` opens it without creating a file beside it — in a folder others
  may write (1777), a reader's ``-wal`` and ``-shm`` would stay behind, owned by the reader, and every later
  write of the campaign's owner would fail "read-only". A full disk is said as such, and the campaign is then
  read the same way.
- **Appear whole or not at all.** ``building`` makes a new campaign in a temporary file beside the final
  one; ``publish`` hard-links it into place, which fails — instead of replacing — when another process got
  there first. Nothing here ever deletes a file other than its own temporary one, so a failed or interrupted
  first round cannot take a campaign someone else filled with it.

``sqlite_error`` turns an ``sqlite3`` exception into the store error that says what happened: busy is busy,
read-only is read-only, a full disk is full, a campaign with a bad page is damaged (with the command that
checks it), and only a file that is not SQLite at all is "not a campaign database".
"""

from __future__ import annotations

import errno
import os
import shlex
import sqlite3
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from toolkit.errors import StoreError
from toolkit.judging.store import BusyError, CampaignExistsError, ReadOnlyError

#: Marks a campaign database (``PRAGMA application_id``), so a stray SQLite file is not mistaken for one.
APPLICATION_ID = 0x54524543  # "TREC"

#: Seconds a writer waits for another process's transaction before reporting the campaign busy.
BUSY_TIMEOUT_S = 30.0

_MAGIC = b"SQLite format 3\x00"
_WAL_HEADER_BYTES = 32
_FIX = "pass the .sqlite file `pool` created"


def not_a_campaign(path: Path, why: str = "") -> StoreError:
    return StoreError(f"{path}: not a campaign database{f' ({why})' if why else ''}; {_FIX}")


def foreign(path: Path) -> StoreError:
    return StoreError(f"{path}: an SQLite file but not a campaign database; {_FIX}")


#: The read-only reason of a campaign on a full disk (``SQLiteStore._open_file``).
DISK_FULL = "the disk is full"


class DiskFullError(StoreError):
    """No space left where the campaign lives: writes cannot happen, reads may still (read-only)."""


def read_only_error(path: Path, reason: str) -> ReadOnlyError:
    if reason == DISK_FULL:
        return ReadOnlyError(
            f"{path}: cannot write: {DISK_FULL}; reading works; free some space and try again"
        )
    return ReadOnlyError(
        f"{path}: the campaign is read-only ({reason}); reading works, writing needs write access to the "
        "file and its folder"
    )


def disk_full(path: Path) -> bool:
    """No space left for this process on the file system of ``path`` (what an I/O error there most likely
    was: creating the ``-shm`` file a WAL reader needs is the first write to fail)."""
    try:
        return os.statvfs(path.parent).f_bavail == 0
    except OSError:
        return False


def damaged(path: Path, exc: sqlite3.Error) -> StoreError:
    return StoreError(
        f"{path}: the campaign is damaged ({exc}); check it with "
        f"`sqlite3 {shlex.quote(str(path))} 'PRAGMA integrity_check'` "
        "and restore it from a copy (a backup, or one made earlier with `trec-toolkit campaign copy`)"
    )


def _looks_like_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as file:
            return file.read(len(_MAGIC)) == _MAGIC
    except OSError:
        return False


def busy_error(path: Path) -> BusyError:
    return BusyError(
        f"{path}: the campaign is busy: another process has held its lock for over "
        f"{BUSY_TIMEOUT_S:g} s (a long import or pool round?); try again when it has finished"
    )


def sqlite_error(path: Path, exc: sqlite3.Error, doing: str) -> StoreError:
    """The store error for an ``sqlite3`` failure while ``doing`` (``"read the campaign"`` …)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "database is locked" in str(exc):
        return busy_error(path)
    if name.startswith("SQLITE_READONLY"):
        return read_only_error(path, read_only_reason(path) or str(exc))
    if name.startswith("SQLITE_CORRUPT") or (name == "SQLITE_NOTADB" and _looks_like_sqlite(path)):
        return damaged(path, exc)  # its header said SQLite (``check_header``): a bad page, not another file
    if name == "SQLITE_NOTADB":
        return not_a_campaign(path, str(exc))
    if name.startswith("SQLITE_FULL") or (name.startswith("SQLITE_IOERR") and disk_full(path)):
        return DiskFullError(f"{path}: cannot {doing}: {DISK_FULL}; free some space and try again")
    return StoreError(f"{path}: cannot {doing} ({exc})")


def wal_has_frames(path: Path) -> bool:
    """Commits may wait in the ``-wal`` file, not yet copied into the main file."""
    try:
        return Path(f"{path}-wal").stat().st_size > _WAL_HEADER_BYTES
    except OSError:
        return False


def check_header(path: Path) -> None:
    """Refuse a file that is not a campaign by reading its header only (nothing is opened for writing).

    The application id sits at bytes 68–71 of the header. A campaign whose header has not yet been copied
    from its ``-wal`` file (a writer died before its first checkpoint) is left to the SQL check instead.
    """
    if not path.is_file():  # a FIFO or a device would block the read, or never end
        raise not_a_campaign(path, "not a regular file")
    try:
        with open(path, "rb") as file:
            head = file.read(100)
    except PermissionError:
        raise StoreError(
            f"{path}: cannot read the campaign (permission denied); ask its owner for read access"
        ) from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the campaign ({exc.strerror})") from None
    if not head:
        raise StoreError(f"{path}: an empty file, not a campaign database; delete it, or {_FIX}")
    if len(head) < 100 or not head.startswith(_MAGIC):
        raise not_a_campaign(path, "not an SQLite file")
    if int.from_bytes(head[68:72], "big") != APPLICATION_ID and not wal_has_frames(path):
        raise foreign(path)


#: Campaign files this process has connections to, by (device, inode), and how many.
_CONNECTED: Counter[tuple[int, int]] = Counter()
_CONNECTING = threading.Lock()


@contextmanager
def opening(path: Path, *, check: bool = True) -> Iterator[Callable[[], Callable[[], None]]]:
    """Look at the header (``check``) unless this process is already connected to the file, then connect.

    Yields ``connected``: call it once the connection exists (before it reads anything, so before it holds
    a lock); it returns the function to call when that connection is closed. The header is read and the
    connection registered under one lock, so no plain descriptor is ever closed while a connection of this
    process holds locks on the file.
    """
    with _CONNECTING:
        try:
            st = path.stat()
            key: tuple[int, int] | None = (st.st_dev, st.st_ino)
        except OSError:
            key = None
        if check and (key is None or not _CONNECTED[key]):
            check_header(path)

        def connected() -> Callable[[], None]:
            if key is None:
                return lambda: None
            _CONNECTED[key] += 1
            done = False

            def closed() -> None:
                nonlocal done
                with _CONNECTING:
                    if not done:
                        done = True
                        _CONNECTED[key] -= 1
                        if not _CONNECTED[key]:
                            del _CONNECTED[key]

            return closed

        yield connected


def _read_only_fs(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def read_only_reason(path: Path) -> str | None:
    """Why this process may only read the campaign, or None when it may write it.

    SQLite writes through the ``-wal`` and ``-shm`` files beside the campaign, so the folder must be
    writable too. (Root passes both checks, except on a read-only file system.)
    """
    folder = path.parent
    if _read_only_fs(folder):
        return "a read-only file system"
    if not os.access(path, os.W_OK):
        return "no write permission on the file"
    if not os.access(folder, os.W_OK | os.X_OK):
        return "no write permission on its folder"
    return None


def connect(path: Path, *, uri: str | None = None) -> sqlite3.Connection:
    """A connection with transactions under our control (``BEGIN IMMEDIATE`` … ``COMMIT``) and the busy timeout.

    ``isolation_level=None``: a write takes the lock up front instead of failing half-way with SQLITE_BUSY.
    """
    try:
        conn = sqlite3.connect(
            uri or str(path),
            uri=uri is not None,
            timeout=BUSY_TIMEOUT_S,
            isolation_level=None,
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        # The read models (``toolkit.judging.sql.readmodels``) sort and group the whole log in one statement:
        # their temporary b-trees stay in memory instead of a temporary file (342,302 events: about 10 % less
        # CPU, and no waiting on the file). Not ``cache_size``: that pragma reads the file, which on a full disk
        # fails before the read-only fallback can open it.
        conn.execute("PRAGMA temp_store = MEMORY")
    except sqlite3.Error as exc:
        raise sqlite_error(path, exc, "open the campaign") from None
    return conn


def connect_read_only(path: Path, reason: str) -> tuple[sqlite3.Connection, bool]:
    """Open a campaign this process may not write, creating no file beside it; True when ``immutable``.

    - The ``-wal`` holds no commit (nobody has the campaign open, or nobody wrote since the last
      checkpoint): the file alone holds every commit, so it is read ``immutable`` — SQLite then opens no
      ``-wal`` or ``-shm``. Should a writer checkpoint into the file meanwhile, the store notices
      (``file_state``) and reads again.
    - The ``-wal`` holds commits and the ``-shm`` exists (its owner has it open): ``mode=ro`` reads through
      both, read-only, creating nothing.
    - Commits wait in a ``-wal`` without its ``-shm``: this process could only read them by creating the
      ``-shm``, which it must not; refused with what to do.
    """
    base = f"file:{quote(str(path.resolve()))}?mode=ro"
    if not wal_has_frames(path):
        return connect(path, uri=f"{base}&immutable=1"), True
    if not Path(f"{path}-shm").exists():
        raise StoreError(
            f"{path}: the campaign is read-only ({reason}) and its -wal file holds commits this process "
            "cannot read without the -shm file; open it once with write access, then read it again"
        )
    conn = connect(path, uri=base)
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise sqlite_error(path, exc, "read the campaign") from None
    return conn, False


def file_state(path: Path) -> tuple[int, int, int] | None:
    """What changes when anyone writes the file (inode, size, modification time in ns)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _unlink_all(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


@contextmanager
def building(path: Path) -> Iterator[Path]:
    """A temporary file beside ``path`` to build a new campaign in; removed (with its -wal/-shm) on the way out.

    Same folder, so ``publish`` can hard-link it into place on the same file system. The name starts with a
    dot and names the campaign, so a leftover from a killed process is recognisable and safe to delete.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".building")
    os.close(fd)
    temp = Path(name)
    try:
        yield temp
    finally:
        _unlink_all(temp)


def publish(temp: Path, path: Path) -> None:
    """Give the finished (closed, checkpointed) ``temp`` its final name — never replacing an existing file.

    ``os.link`` fails with EEXIST when ``path`` exists, atomically: of two processes creating one campaign,
    exactly one wins and the other learns it (``CampaignExistsError``) instead of overwriting.
    """
    if wal_has_frames(temp):
        raise StoreError(f"{temp}: the new campaign was not checkpointed; nothing was published at {path}")
    try:
        os.link(temp, path)
    except FileExistsError:
        raise CampaignExistsError(f"{path}: already exists") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise StoreError(f"{path}: cannot create the campaign ({exc.strerror})") from None
        _rename_no_replace(temp, path)


def _rename_no_replace(temp: Path, path: Path) -> None:
    """For file systems without hard links: ``renameat2(RENAME_NOREPLACE)`` on Linux, else refuse."""
    import ctypes
    import ctypes.util

    libc_name = ctypes.util.find_library("c")
    renameat2 = getattr(ctypes.CDLL(libc_name, use_errno=True), "renameat2", None) if libc_name else None
    if renameat2 is None:
        raise StoreError(
            f"{path}: this file system cannot create a campaign atomically (no hard links, no renameat2); "
            "create it on a local disk and move it here"
        )
    at_fdcwd, rename_noreplace = -100, 1
    if renameat2(at_fdcwd, os.fsencode(temp), at_fdcwd, os.fsencode(path), rename_noreplace) != 0:
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise CampaignExistsError(f"{path}: already exists")
        raise StoreError(f"{path}: cannot create the campaign ({os.strerror(code)})")
