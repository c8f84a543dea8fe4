"""ranx, imported on first use rather than when a test module is collected.

Why: importing ranx and building its first ``Run`` compile numba functions — tens of CPU seconds. Every
pytest-xdist worker collects (imports) every test module, so a module-level ``import ranx`` cost each worker
that time before its first test, although only one worker runs the tests that use ranx (the ``ranx`` group of
tests/conftest.py). Imported here through ``importlib.util.LazyLoader``, the module is loaded, once per
process, by the first attribute a test reads: the worker of the ``ranx`` group.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, to be executed on its first attribute access (the real module if already loaded)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


ranx = lazy_module("ranx")
