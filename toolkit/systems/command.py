"""Command systems: a program run once per topic, as an argv list, never through a shell.

Placeholders, replaced inside each argv element (so the query is always exactly one element, whatever it
holds — quotes, ``;``, ``$(…)``, backticks, newlines, unicode): ``{query}``, ``{query_id}``, ``{depth}``,
and ``{python}`` for the interpreter running the toolkit (so a workspace's Python commands use its venv
without relying on ``PATH``). Other braces are left alone.

A call that exits non-zero, times out, prints more than one document may hold (``TREC_TOOLKIT_MAX_DOCUMENT``)
or prints what the parser cannot read raises ``CallFailed``; on timeout or overflow the whole process group
is killed, so a system that forks cannot outlive its call (``toolkit.systems.process``).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkit.errors import ConfigError, SystemCallError
from toolkit.systems.base import CallFailed, Hit, fill
from toolkit.systems.parsers import Parser

if TYPE_CHECKING:
    from toolkit.systems.preflight import Preflight


def fill_argv(template: Sequence[str], **values: str) -> list[str]:
    """An argv with its placeholders filled; ``{python}`` is always ``sys.executable``."""
    values = {"python": sys.executable, **values}
    return [fill(arg, values) for arg in template]


def split_command(text: str) -> list[str]:
    """``--command 'prog search {query}'`` → argv, split like a POSIX shell would (but never run by one)."""
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise ConfigError(f"cannot split command {text!r}: {exc}") from None
    if not argv:
        raise ConfigError("empty command; give the program and its arguments")
    return argv


@dataclass(frozen=True)
class CommandSystem:
    """A program called as ``argv`` (a list) with the placeholders filled per topic."""

    name: str
    argv: tuple[str, ...]
    parser: Parser = field(default_factory=Parser)
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)  # run defaults: timeout, retries, workers, depth
    preflight: Preflight | None = None
    kind: str = "command"

    def __post_init__(self) -> None:
        if not self.argv:
            raise ConfigError(f"system {self.name!r}: empty command")
        if not any("{query}" in arg for arg in self.argv):
            raise ConfigError(
                f"system {self.name!r}: the command must contain {{query}} somewhere in its arguments"
            )

    def check(self) -> None:
        """Fail before the run when the program does not exist (not once per topic)."""
        program = fill_argv(self.argv[:1])[0]
        if "/" in program:
            found = (self.cwd or Path.cwd()) / program if not Path(program).is_absolute() else Path(program)
            ok = found.is_file() and os.access(found, os.X_OK)
        else:
            ok = shutil.which(program) is not None
        if not ok:
            raise SystemCallError(
                f"system {self.name!r}: program {program!r} not found; check the command or PATH"
            )

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "command": list(self.argv), **self.parser.describe()}
        if self.env:
            out["env"] = sorted(self.env)
        if self.preflight is not None:
            out["preflight"] = self.preflight.check
        return out

    def search(self, query: str, *, query_id: str, depth: int, timeout: float | None) -> list[Hit]:
        argv = fill_argv(self.argv, query=query, query_id=query_id, depth=str(depth))
        proc = call(argv, cwd=self.cwd, env=self.env, timeout=timeout)
        if proc.returncode != 0:
            reason = f"exit code {proc.returncode}"
            if proc.returncode < 0:
                reason = f"killed by signal {-proc.returncode}"
            raise CallFailed(reason, exit_code=proc.returncode, stderr=_text(proc.stderr))
        try:
            return self.parser.parse(proc.stdout.decode("utf-8"))
        except UnicodeDecodeError:
            raise CallFailed("output is not UTF-8 text", exit_code=0, stderr=_text(proc.stderr)) from None
        except CallFailed as exc:
            raise CallFailed(
                exc.reason, exit_code=0, stderr=_text(proc.stderr) or _text(proc.stdout)
            ) from None


def call(
    argv: Sequence[str], *, cwd: Path | None, env: Mapping[str, str], timeout: float | None
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` (no shell, no stdin) in its own process group and collect its output, at most the
    document limit (``toolkit.systems.process``); ``CallFailed`` when it cannot start, outlives
    ``timeout`` or prints too much (then the whole group is killed, so a forked child cannot outlive the
    call either)."""
    from toolkit.systems.process import OutputTooLarge, run_capped

    started = time.monotonic()
    try:
        done = run_capped(argv, cwd=cwd, env=env, timeout=timeout)
    except OSError as exc:
        raise CallFailed(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired as exc:
        raise CallFailed(
            f"timed out after {time.monotonic() - started:.1f}s", exit_code=None, stderr=_text(exc.stderr)
        ) from None
    except OutputTooLarge as exc:
        raise CallFailed(str(exc), exit_code=None) from None
    return subprocess.CompletedProcess(list(argv), done.returncode, done.stdout, done.stderr)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")
