"""ranx, imported on first use rather than when a test module is collected.

Why: importing ranx costs seconds of CPU (and building its first objects compiled numba functions, before
tests/conftest.py turned the compiler off). Every pytest-xdist worker collects (imports) every test module, so
a module-level ``import ranx`` cost each worker that time before its first test, although one worker runs the
tests that use it (the ``ranx`` group of tests/conftest.py). ``ranx`` here is a stand-in that imports the module
when a test first reads one of its names. Not ``importlib.util.LazyLoader``: pytest's collection looks at each
name of a test module (``issubclass(obj, TestCase)``), which loads a lazy module at once; the stand-in answers
dunder look-ups itself, without importing.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Reads names from the module ``name``, imported on the first such read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


ranx: Any = LazyModule("ranx")
