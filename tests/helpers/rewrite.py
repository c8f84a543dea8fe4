"""The test modules' asserts rewritten once per run, in the pytest-xdist controller, instead of once per worker.

Why: pytest rewrites every test module's ``assert`` statements (to show the values when one fails) as it imports
it, and caches the result in ``__pycache__`` only where byte code may be written. This environment sets
``PYTHONDONTWRITEBYTECODE`` and CI starts from a clean checkout, so each worker rewrote all ~200 modules
itself: about 5 CPU s of its 10 s start-up, the same work twice. Before the workers start, the controller now
rewrites the modules whose cache is missing or stale (in as many processes as there will be workers) and writes
pytest's own cache files, which every worker's import then reads (pytest checks each against its source's
mtime and size, as it does its own). As for toolkit/ (tests/conftest.py's ``compileall``), byte code is written
although ``PYTHONDONTWRITEBYTECODE`` asks not to: the folders are git-ignored and only the test run reads them.

It uses two private functions of pytest's rewriting (``_rewrite_test``, ``_write_pyc_fp``); should they change,
this does nothing (each worker rewrites for itself, as before), and the tests are unchanged either way.
"""

from __future__ import annotations

import contextlib
import fnmatch
import importlib.util
import multiprocessing
import os
import struct
from pathlib import Path

import pytest

_CONFIG: pytest.Config | None = None


def _stale(source: Path) -> bool:
    """Whether pytest would rewrite ``source`` again: no cache file, or one made from another version of it."""
    from _pytest.assertion.rewrite import PYC_TAIL, get_cache_dir

    pyc = get_cache_dir(source) / (source.name[:-3] + PYC_TAIL)
    try:
        with open(pyc, "rb") as cached:
            header = cached.read(16)
        stat = source.stat()
    except OSError:
        return True
    expected = importlib.util.MAGIC_NUMBER + b"\x00\x00\x00\x00"
    expected += struct.pack("<LL", int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)
    return header != expected


def _rewrite(source: Path) -> None:
    """Rewrite one module and write pytest's cache file for it (atomically: a worker never reads half a file)."""
    from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc_fp, get_cache_dir

    assert _CONFIG is not None
    stat, code = _rewrite_test(source, _CONFIG)
    folder = get_cache_dir(source)
    with contextlib.suppress(OSError):
        folder.mkdir(exist_ok=True)
        pyc = folder / (source.name[:-3] + PYC_TAIL)
        partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(partial, "wb") as out:
            _write_pyc_fp(out, stat, code)
        os.replace(partial, pyc)


def test_modules(config: pytest.Config) -> list[Path]:
    """The files the workers will rewrite: test modules (``python_files``) and conftest files under the paths
    the run was given."""
    patterns = config.getini("python_files")
    found: set[Path] = set()
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = config.invocation_params.dir / path
        files = path.rglob("*.py") if path.is_dir() else [path]
        for file in files:
            if file.name == "conftest.py" or any(fnmatch.fnmatch(file.name, p) for p in patterns):
                found.add(file.resolve())
    return sorted(found)


def rewrite_before_the_workers(config: pytest.Config) -> None:
    """In the xdist controller of a parallel run, rewrite the stale test modules once (see the docstring)."""
    global _CONFIG
    workers = config.getoption("numprocesses", None)
    if hasattr(config, "workerinput") or not workers or config.getoption("assertmode") != "rewrite":
        return
    try:
        stale = [f for f in test_modules(config) if _stale(f)]
    except (ImportError, AttributeError, OSError):
        return
    if not stale:
        return
    _CONFIG = config
    processes = max(1, min(os.cpu_count() or 1, int(workers) if str(workers).isdigit() else 2))
    try:
        # fork: the children have pytest's configuration already, and no thread has started yet
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            pool.map(_rewrite, stale, chunksize=4)
    except Exception:  # a private API changed, a folder is read-only …: each worker rewrites, as before
        return
    finally:
        _CONFIG = None
