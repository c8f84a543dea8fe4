"""Writing an output file (``-o PATH``, runs, qrels, manifests, reports): whole or not at all, never replacing
what is not a file.

A regular file (or a new one) is written to a temporary file in its folder and renamed over it, so a reader
never sees half a file. The temporary is made by ``tempfile.mkstemp``: a random name, created with
``O_CREAT|O_EXCL`` (which never follows a symlink), so another user who can write the folder can neither
predict it nor point it elsewhere; it gets the mode a plain ``open`` would give (the existing file's, else
``0o666`` less the umask) and is synced before the rename.

What is not a regular file is never replaced: a FIFO, a character device (``/dev/null``, a terminal) or a
socket is opened and written as it is, as the shell's ``>`` would; a symlink is followed and what it points
to is written by the same rules (the link stays); a folder is an error. Nothing is written beside such a
target (``is_regular_target``: callers leave out its manifest).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import stat
import tempfile
from pathlib import Path

from toolkit.errors import UsageError


def encode_output(path: str | Path, text: str) -> bytes:
    """The bytes of ``text`` written at ``path``: UTF-8, gzipped (deterministically) when it ends in ``.gz``."""
    data = text.encode("utf-8")
    return gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data


def resolved(path: str | Path) -> Path:
    """``path`` with its symlinks followed (a missing target stays where the link points)."""
    return Path(os.path.realpath(path))


def is_regular_target(path: str | Path) -> bool:
    """``path`` is, or will be, a regular file (missing, or a regular file through any symlinks)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True


def write_output(path: str | Path, data: bytes) -> None:
    """Write ``data`` at ``path``: atomically to a regular file, directly to anything else (module docstring)."""
    target = resolved(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError(f"{path}: is a folder; give a file name to write")
    if mode is not None and not stat.S_ISREG(mode):
        _write_in_place(target, data)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), stat.S_IMODE(mode) if mode is not None else 0o666 & ~_umask())
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text_output(path: str | Path, text: str) -> None:
    """``write_output`` of ``text`` (gzipped when the name ends in ``.gz``)."""
    write_output(path, encode_output(path, text))


def _write_in_place(target: Path, data: bytes) -> None:
    """A FIFO, a device or a socket: opened as it is (never created, never truncated as a file) and written."""
    fd = os.open(target, os.O_WRONLY | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask: from ``/proc`` (Linux), else by setting it and setting it back at once."""
    with (
        contextlib.suppress(OSError, StopIteration, ValueError),
        open("/proc/self/status", encoding="ascii") as f,
    ):
        return int(next(line for line in f if line.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
