"""Errors the library raises, and the exit codes the CLI maps them to (docs/design.md §5).

Every error message says what is wrong, where (``path:line`` when there is a file), and how to fix it, so
that the CLI can print it as a single ``Error: …`` line without a traceback.

An error that is a bad value — a malformed file, a wrong argument, an invalid setting — is also a
``ValueError``, so that Python code calling the library catches it as it would catch any bad value
(``except ValueError``) without knowing the toolkit's tree.
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK = 0
EXIT_DATA = 1
EXIT_USAGE = 2
EXIT_CHECK_FAILED = 3
EXIT_INTERRUPTED = 130


class ToolkitError(Exception):
    """Base class of every error the toolkit reports to a user."""

    exit_code = EXIT_DATA


class FormatError(ToolkitError, ValueError):
    """A file does not follow its format; names ``path:line`` (line 0 = the file as a whole)."""

    def __init__(self, path: str | Path, line: int | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.detail = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class UsageError(ToolkitError, ValueError):
    """The command was called wrongly (bad option value, missing input)."""

    exit_code = EXIT_USAGE


class ConfigError(ToolkitError, ValueError):
    """``toolkit.toml`` or another configuration is invalid."""


class SystemCallError(ToolkitError):
    """A search system could not be called at all (not a single failed topic: those are recorded)."""


class StoreError(ToolkitError):
    """The campaign store is missing, corrupt, or was used wrongly."""


class CheckFailed(ToolkitError):
    """A declared check (``gate`` rule, ``compare --fail-on``) failed."""

    exit_code = EXIT_CHECK_FAILED


class ToolkitWarning(UserWarning):
    """A warning the CLI prints as one ``Warning: …`` line on stderr."""
