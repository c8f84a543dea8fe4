"""What a system is to the runner: something that answers one topic with a ranked list of doc ids.

A system raises ``CallFailed`` when one call fails (non-zero exit, timeout, HTTP error, unparseable output);
the runner records it and goes on. Anything that makes the system unusable for every topic (a missing
program, a bad config) is a ``ConfigError``/``SystemCallError`` raised before the run starts.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Protocol, runtime_checkable

#: How much of a failing call's stderr (or HTTP body) the manifest keeps.
STDERR_TAIL = 2000


class Hit(NamedTuple):
    """One returned doc id, with the system's own score when it gave one (kept only for the manifest)."""

    doc_id: str
    score: float | None = None


class CallFailed(Exception):
    """One call of a system failed; the topic gets an empty result and the failure goes to the manifest."""

    def __init__(self, reason: str, *, exit_code: int | None = None, stderr: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.exit_code = exit_code
        self.stderr_tail = stderr[-STDERR_TAIL:]


@runtime_checkable
class System(Protocol):
    """A search system. ``describe()`` is what the manifest records about it (no secrets: headers are listed
    by name only)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    def search(self, query: str, *, query_id: str, depth: int, timeout: float | None) -> list[Hit]:
        """The ranked hits for one query, best first; raise ``CallFailed`` when the call fails."""
        ...

    def describe(self) -> dict[str, Any]: ...


def fill(template: str, values: dict[str, str]) -> str:
    """Replace ``{name}`` placeholders of known names only, in one pass: other braces (JSON, regexes) stay as
    written, and a value is never scanned again (a query holding ``{depth}`` stays verbatim)."""
    if "{" not in template or not values:
        return template
    pattern = re.compile("{(" + "|".join(re.escape(k) for k in values) + ")}")
    return pattern.sub(lambda m: values[m.group(1)], template)
