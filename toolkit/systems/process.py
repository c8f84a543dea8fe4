"""Running a program the workspace configures, with its output read under a cap and its time under a deadline.

Search systems (``[systems.NAME] command``), their pre-flight checks and per-document ``[docs] command``s
are programs from the workspace, and a broken one can print without end: ``yes`` as a system once filled
17.9 GB before its 8 s timeout could act, because ``subprocess.communicate`` keeps everything. So their
stdout is read here, in chunks, up to ``TREC_TOOLKIT_MAX_DOCUMENT`` (the limit of one document anywhere,
``toolkit.formats.limits``: a system's answer or a check's output is no bigger than a document); past it the
program is killed and ``OutputTooLarge`` raised. Stderr keeps its last ``STDERR_KEEP`` bytes. The program
runs in its own session, so a timeout or an overflow kills it and everything it started; the deadline
covers the whole call.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

#: How much of a program's stderr is kept (for the failure reason).
STDERR_KEEP = 8192
_CHUNK = 1 << 16


class OutputTooLarge(Exception):
    """A program printed more than ``limit`` bytes, what one document may hold; it was killed."""

    def __init__(self, limit: int) -> None:
        super().__init__(too_large_message(limit))
        self.limit = limit


@dataclass(frozen=True)
class Finished:
    """A program that ended by itself: its exit status, all of its stdout, the tail of its stderr."""

    returncode: int
    stdout: bytes
    stderr: bytes


def output_limit() -> int:
    """The most a program may print: ``TREC_TOOLKIT_MAX_DOCUMENT``, read now."""
    from toolkit.formats.limits import InputLimits

    return InputLimits.from_environment().max_document


def too_large_message(limit: int, what: str = "the command") -> str:
    from toolkit.formats.limits import MAX_DOCUMENT_ENV, format_size

    return (
        f"printed more than {format_size(limit)}, the limit for one document ({MAX_DOCUMENT_ENV}); "
        f"check {what} or raise the limit"
    )


def run_capped(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None,
    limit: int | None = None,
) -> Finished:
    """Run ``argv`` (no shell, no stdin) and collect its output under ``limit`` bytes (default: the
    document limit) within ``timeout`` seconds.

    Raises ``OSError`` when it cannot start, ``subprocess.TimeoutExpired`` past the deadline and
    ``OutputTooLarge`` past the limit — in both cases after killing its whole process group.
    """
    cap = output_limit() if limit is None else limit
    proc = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, **env} if env else None,
        start_new_session=True,
    )
    stdout_stream, stderr_stream = cast("tuple[IO[bytes], IO[bytes]]", (proc.stdout, proc.stderr))
    out = bytearray()
    err: list[bytes] = []
    over = threading.Event()

    def read_stdout() -> None:
        while chunk := stdout_stream.read1(_CHUNK):  # type: ignore[attr-defined]
            out.extend(chunk)
            if len(out) > cap:
                over.set()
                kill_group(proc)
                return

    readers = [
        threading.Thread(target=read_stdout, daemon=True),
        threading.Thread(target=drain, args=(stderr_stream, err), daemon=True),
    ]
    for reader in readers:
        reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        proc.wait()
        raise
    finally:
        for reader in readers:
            reader.join(timeout=5)  # a grandchild may still hold the pipes: do not wait for it
        stdout_stream.close()
        stderr_stream.close()
    if over.is_set():
        raise OutputTooLarge(cap)
    return Finished(code, bytes(out), b"".join(err))


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``proc``'s process group (its own session), else ``proc`` alone."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(OSError):
            proc.kill()


def drain(stream: IO[bytes], keep: list[bytes]) -> None:
    """Read ``stream`` to its end, keeping its last ``STDERR_KEEP`` bytes (at least the last chunk)."""
    size = 0
    for chunk in iter(lambda: stream.read(4096), b""):
        keep.append(chunk)
        size += len(chunk)
        while size > STDERR_KEEP and len(keep) > 1:
            size -= len(keep.pop(0))
