"""Python systems: ``module:function`` called in-process as ``function(query, depth)``.

The function returns doc ids, or ``(doc_id, score)`` pairs, best first. It runs in a worker thread; a
timed-out call is recorded as failed but cannot be stopped (Python threads cannot be killed), so prefer
a command system for code that may hang.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkit.errors import ConfigError
from toolkit.systems.base import CallFailed, Hit
from toolkit.systems.parsers import dedupe

if TYPE_CHECKING:
    from toolkit.systems.preflight import Preflight


def load_callable(spec: str) -> Callable[..., Any]:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"callable {spec!r} must look like 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import {module_name!r} for callable {spec!r}: {exc}") from None
    func = module
    for part in attr.split("."):
        func = getattr(func, part, None)  # type: ignore[assignment]
        if func is None:
            raise ConfigError(f"{module_name!r} has no attribute {attr!r} (callable {spec!r})")
    if not callable(func):
        raise ConfigError(f"{spec!r} is not callable")
    return func  # type: ignore[return-value]


@dataclass(frozen=True)
class PythonSystem:
    name: str
    spec: str
    function: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    options: Mapping[str, Any] = field(default_factory=dict)  # run defaults: timeout, retries, workers, depth
    preflight: Preflight | None = None
    kind: str = "python"

    def check(self) -> None:
        if self.function is None:
            object.__setattr__(self, "function", load_callable(self.spec))

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "callable": self.spec}
        if self.preflight is not None:
            out["preflight"] = self.preflight.check
        return out

    def search(self, query: str, *, query_id: str, depth: int, timeout: float | None) -> list[Hit]:
        self.check()
        function = self.function
        assert function is not None
        box: dict[str, Any] = {}

        def call() -> None:
            try:
                box["hits"] = [_hit(item) for item in (function(query, depth) or [])]
            except BaseException as exc:  # noqa: BLE001 - a failing system call is recorded, not fatal
                box["error"] = exc

        worker = threading.Thread(target=call, name=f"{self.name}:{query_id}", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            raise CallFailed(f"timed out after {timeout}s (the call keeps running in its thread)")
        error = box.get("error")
        if isinstance(error, CallFailed):
            raise error
        if error is not None:
            raise CallFailed(f"{type(error).__name__}: {error}")
        return dedupe(box["hits"])


def _hit(item: Any) -> Hit:
    if isinstance(item, str):
        return Hit(item)
    if isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], str):
        score = item[1]
        return Hit(
            item[0], float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else None
        )
    raise CallFailed(f"expected a doc id or a (doc_id, score) pair, got {item!r:.60}")
