"""The drop-in's one error type: a clear message and the exit code trec_eval 10 ends with in that case."""

from __future__ import annotations

from toolkit.errors import ToolkitError


class TrecEvalError(ToolkitError):
    """trec_eval would stop here; ``exit_code`` is its code (1 usage, 2 files or measure setup, 4 a topic)."""

    def __init__(self, message: str, *, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code
