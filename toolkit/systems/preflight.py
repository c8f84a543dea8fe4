"""Pre-flight checks: what a system says about itself before it is asked anything.

A run is only as good as what the system pointed at when it was made — which index, which database build,
which binary version. ``[systems.NAME] preflight`` names a check that says so: an argv list (any kind of
system; run like a command system's call, in the workspace, never through a shell) or, for an http system, a
URL fetched with the system's own headers under the same limits as its calls. The check runs once before
a run; its stdout (an http reply's body) is the system's self-description:

* a non-zero exit, an HTTP error, a timeout or a check that cannot start stops the run with the check's
  output — nothing is asked of a system that says it is not ready;
* the output is recorded in the run's manifest (``preflight``: the check, the output, its sha256), and the
  pipeline refuses to resume or reuse a run made under another output (``toolkit.pipeline.runs``).

So a check should print what identifies the index (a version, a build id, a document count) and nothing
that changes from call to call, such as the time.
"""

from __future__ import annotations

import hashlib
import time
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit.errors import ConfigError, SystemCallError
from toolkit.systems.base import CallFailed
from toolkit.systems.http import DEFAULT_MAX_RESPONSE

#: How much of a check's output the manifest keeps (the sha256 covers all of it).
OUTPUT_LIMIT = 64 * 1024
#: How much of a failing check's output its error shows.
ERROR_TAIL = 1000


@dataclass(frozen=True)
class Preflight:
    """A system's pre-flight check: ``argv`` (``{python}`` is the running interpreter) or ``url``."""

    argv: tuple[str, ...] = ()
    url: str | None = None
    cwd: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)
    max_response: int = DEFAULT_MAX_RESPONSE

    @property
    def check(self) -> list[str] | str:
        """The check as declared (what the manifest and the system's description record)."""
        return self.url if self.url is not None else list(self.argv)

    def shown(self) -> str:
        return f"GET {self.url}" if self.url is not None else f"`{' '.join(self.argv)}`"


@dataclass(frozen=True)
class PreflightResult:
    """What a check printed: ``output`` (up to ``OUTPUT_LIMIT`` characters) and the sha256 of all of it."""

    check: list[str] | str
    output: str
    sha256: str
    duration_ms: float
    truncated: bool = False

    def record(self) -> dict[str, Any]:
        """The manifest's ``preflight`` entry."""
        out: dict[str, Any] = {
            "check": self.check,
            "output": self.output,
            "sha256": self.sha256,
            "duration_ms": self.duration_ms,
        }
        if self.truncated:
            out["output_truncated"] = True
        return out

    def shown(self) -> str:
        return f"GET {self.check}" if isinstance(self.check, str) else f"`{' '.join(self.check)}`"

    def summary(self) -> str:
        """The first non-blank line of the output, and how many more there are."""
        lines = [line.strip() for line in self.output.splitlines() if line.strip()]
        if not lines:
            return "(no output)"
        more = len(lines) - 1
        return lines[0] + (f" (+{more} line{'s' if more > 1 else ''})" if more else "")


def parse_preflight(
    value: Any,
    *,
    kind: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    max_response: int = DEFAULT_MAX_RESPONSE,
) -> Preflight:
    """``preflight = [argv…]``, or for an http system ``preflight = "https://…"``."""
    if isinstance(value, str) and value.startswith(("http://", "https://")):
        if kind != "http":
            raise ConfigError(
                "a URL pre-flight is for http systems; give this system an argv list, e.g. "
                'preflight = ["{python}", "-m", "mysearch", "info"]'
            )
        return Preflight(url=value, headers=dict(headers or {}), max_response=max_response)
    if not (isinstance(value, list) and value and all(isinstance(a, str) and a for a in value)):
        raise ConfigError(
            'preflight must be an argv list such as ["{python}", "-m", "mysearch", "info"] (no shell)'
            + (', or a URL such as "http://localhost:9200/_cluster/health"' if kind == "http" else "")
        )
    return Preflight(argv=tuple(value), cwd=cwd, env=dict(env or {}))


def run_preflight(system: str, preflight: Preflight, *, timeout: float | None) -> PreflightResult:
    """Run the check; ``SystemCallError`` with its output when it fails (see the module docstring)."""
    started = time.monotonic()
    try:
        if preflight.url is not None:
            raw = _fetch(preflight.url, preflight, timeout)
        else:
            raw = _call(system, preflight, timeout)
    except CallFailed as exc:
        detail = _tail(exc.stderr_tail)
        if exc.reason.startswith("HTTP "):
            raise SystemCallError(
                f"system {system!r}: pre-flight {preflight.shown()} failed ({exc.reason})"
                + (f": {detail}" if detail else "")
                + "; fix what it reports, then run again"
            ) from None
        raise SystemCallError(
            f"system {system!r}: pre-flight {preflight.shown()} failed: {exc.reason}"
        ) from None
    output = raw.decode("utf-8", errors="replace")
    return PreflightResult(
        check=preflight.check,
        output=output[:OUTPUT_LIMIT],
        sha256=hashlib.sha256(raw).hexdigest(),
        duration_ms=round((time.monotonic() - started) * 1000, 3),
        truncated=len(output) > OUTPUT_LIMIT,
    )


def _call(system: str, preflight: Preflight, timeout: float | None) -> bytes:
    from toolkit.systems.command import call, fill_argv

    proc = call(fill_argv(preflight.argv), cwd=preflight.cwd, env=preflight.env, timeout=timeout)
    if proc.returncode != 0:
        status = (
            f"exit code {proc.returncode}" if proc.returncode > 0 else f"killed by signal {-proc.returncode}"
        )
        text = "\n".join(_decode(part) for part in (proc.stdout, proc.stderr))
        detail = _tail(text)
        raise SystemCallError(
            f"system {system!r}: pre-flight {preflight.shown()} failed ({status})"
            + (f": {detail}" if detail else "")
            + "; fix what it reports, then run again"
        )
    return proc.stdout  # type: ignore[no-any-return]


def _fetch(url: str, preflight: Preflight, timeout: float | None) -> bytes:
    from toolkit.systems.http import expand_headers
    from toolkit.systems.transport import fetch

    headers = {"Accept": "application/json", **expand_headers(preflight.headers)}
    request = urllib.request.Request(url, headers=headers, method="GET")
    return fetch(
        request, timeout=timeout, max_response=preflight.max_response, private_headers=preflight.headers
    )


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def _tail(text: str) -> str:
    """A check's output on one line: its non-blank lines joined by `` | ``, the last ``ERROR_TAIL`` characters."""
    joined = " | ".join(line.strip() for line in text.splitlines() if line.strip())
    return joined if len(joined) <= ERROR_TAIL else "…" + joined[-ERROR_TAIL:]
