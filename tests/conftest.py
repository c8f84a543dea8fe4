"""Fixtures shared by every test folder: the trec_eval 10 binary, built from NIST's source, as the oracle.

The source tarball is not part of this repository. It is found through ``$TREC_EVAL_SRC`` (the tarball or the
folder holding it), else ``<repo>/../shared/conformance/trec_eval/src/``, else by walking up from the repository
for ``shared/conformance/trec_eval/src``. It is built once into ``~/.cache/trec-toolkit/`` (keyed by the
tarball's hash, built in a temporary folder and renamed into place so that concurrent sessions never see half
a build) and reused. Without the source, or without a C compiler, the tests that need the oracle are skipped
with a one-line reason and the rest of the suite still runs.

Every test starts in an empty folder of its own (``outside_the_repository``): the repository is a workspace,
and a command run from it reads its ``toolkit.toml`` (topic set, measures, primary), so a test that wants the
example workspace says so by copying it or by ``cwd=``; and tests run side by side (pytest-xdist) never write
into one shared folder.
"""

from __future__ import annotations

import compileall
import functools
import gc
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest

# The run fails loudly when /dev/null stops being the null device (helpers/devnull_guard.py says why).
from helpers.devnull_guard import (  # noqa: F401 (hooks: pytest finds them by name)
    pytest_runtest_teardown,
    pytest_sessionfinish,
    pytest_sessionstart,
)

# The test modules' asserts rewritten once, before the xdist workers start (helpers/rewrite.py says why).
from helpers.rewrite import rewrite_before_the_workers

# The stress tier's switch, read once (helpers/sizes.py: property tests draw their full count under it).
from helpers.sizes import SLOW

# Per-test wall and CPU seconds when $TOOLKIT_TEST_TIMINGS names a file (helpers/timings.py says why).
from helpers.timings import pytest_runtest_protocol  # noqa: F401 (a hook: pytest finds it by name)

# ranx (an independent implementation of the measures the interop tests hold ours to) compiles its numba
# functions on first use: about two CPU minutes in a fresh virtual environment, for inputs of a few documents.
# Its code run as plain Python gives the same values (the same source, without the compiler) in seconds.
# Nothing in toolkit/ uses numba. Set before any test module imports ranx.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

REPO = Path(__file__).resolve().parents[1]

# The suite starts the installed console script hundreds of times. An editable install leaves toolkit/ without
# byte code, and where PYTHONDONTWRITEBYTECODE is set (CI machines often set it) every one of those processes
# compiled every toolkit module it imported from source again: a fifth of a small `score`'s start-up, more for
# `compare` and `audit`. A pip install from a wheel compiles on install; this does the same once per session
# (compileall skips what is current, and writes each file atomically, so the xdist workers may run it too).
compileall.compile_dir(REPO / "toolkit", quiet=1)

TARBALL = "trec_eval-10-src.tar.gz"
RELATIVE_SOURCE = Path("shared") / "conformance" / "trec_eval" / "src"


def find_trec_eval_source() -> Path | None:
    """The trec_eval 10 source tarball, or None when this machine has none."""
    candidates: list[Path] = []
    configured = os.environ.get("TREC_EVAL_SRC")
    if configured:
        path = Path(configured).expanduser()
        candidates.append(path if path.suffix == ".gz" else path / TARBALL)
    candidates.append(REPO.parent / RELATIVE_SOURCE / TARBALL)
    candidates.extend(parent / RELATIVE_SOURCE / TARBALL for parent in REPO.parents)
    return next((c for c in candidates if c.is_file()), None)


def build_trec_eval(tarball: Path) -> Path:
    """Build (or reuse) the binary for this tarball; raises ``RuntimeError`` saying why it cannot."""
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "trec-toolkit"
    target = cache / f"trec_eval-10-{digest}"
    binary = target / "trec_eval"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    if shutil.which("make") is None or shutil.which(os.environ.get("CC", "gcc")) is None:
        raise RuntimeError("no C compiler/make on this machine")
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="build-", dir=cache))
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(work, filter="data")
        makefiles = sorted(work.rglob("Makefile"), key=lambda p: len(p.parts))
        if not makefiles:
            raise RuntimeError(f"{tarball} holds no Makefile")
        source = makefiles[0].parent
        done = subprocess.run(["make", "-C", str(source), "trec_eval"], capture_output=True, text=True)
        if done.returncode != 0 or not (source / "trec_eval").is_file():
            raise RuntimeError(f"make failed: {done.stderr.strip().splitlines()[-1:]}")
        staged = work / "out"
        staged.mkdir()
        shutil.copy2(source / "trec_eval", staged / "trec_eval")
        try:
            os.rename(staged, target)  # atomic; another session may have won the race, which is fine
        except OSError:
            if not binary.is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return binary


#: Tests that run one after another on one pytest-xdist worker, by the resource they drive: each starts
#: processes that want a CPU of their own and waits on them with deadlines (a terminal under tmux, chromium),
#: so two of a kind at once only test the machine's load; and ranx, whose import takes seconds of CPU: once
#: per run, not once per worker (helpers/lazy.py keeps the other workers from importing it at collection).
#: (The PostgreSQL tests need no group: each uses a campaign of its own, as sessions sharing the server do.)
SERIAL_GROUPS = {
    "ranx": lambda item: _imports_ranx(item.path),
    "terminal": lambda item: item.path.name == "test_tmux.py",
    "browser": lambda item: item.path.parent.name == "browser",
    # the tests reading one result built per process, so it is built once: the audit of the example
    # workspace (``example_audit``) and the example corpus (tests/example/conftest.py's ``cache``)
    "example_audit": lambda item: "example_audit" in item.fixturenames,
    "example_corpus": lambda item: item.path.parent.name == "example" and "cache" in item.fixturenames,
}


@functools.cache
def _imports_ranx(path: Path) -> bool:
    return "import ranx" in path.read_text(encoding="utf-8")


@functools.cache
def _shares_a_module_fixture(path: Path) -> bool:
    """A module whose tests share a module-scoped fixture (an audit, a comparison run once for the tests that
    read it) runs on one worker: pytest builds such a fixture once per process, so split across the two
    workers it was built twice."""
    return 'scope="module"' in path.read_text(encoding="utf-8")


#: The stress tier: tests marked ``@pytest.mark.slow`` run the code paths of quicker tests again at a size or a
#: count chosen to catch what a small case cannot (a race repeated two hundred times, bombs of hundreds of MiB,
#: thousands of topics, twenty assessors at once, a fresh install of every dependency). The README's test
#: command skips them, saying so; ``.ci/run`` runs them right after it, and ``TREC_TOOLKIT_SLOW=1`` runs them
#: here (``TREC_TOOLKIT_SLOW=1 pytest -m slow``: only them).
#: A ``sized`` test (tests/helpers/sizes.py) draws a fifth of its random cases in the README's command and all of
#: them in the stress tier, where it counts as ``slow`` too (so ``-m slow`` selects it).
SLOW_SKIP = "the stress tier: .ci/run runs it after the README's command; TREC_TOOLKIT_SLOW=1 runs it here"


def pytest_configure(config: pytest.Config) -> None:
    rewrite_before_the_workers(config)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's ``addopts``): one worker more than the CPUs this process may run on.

    Why: a quarter of the workers' time is spent waiting — on chromium, tmux, PostgreSQL's server, a system's
    deadline — with the CPU idle (two workers on two idle cores: 72 of 600 core-seconds idle). A third worker
    fills those waits: the README's command went from 4 min 54 s–5 min 2 s to 4 min 27 s–4 min 42 s for at most
    about 10 CPU s more (docs/benchmarks.md, "The test suite"). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when
    set (xdist's own reading of it)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return usable + 1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test of a ``SERIAL_GROUPS`` kind with its ``xdist_group`` (``--dist loadgroup``), and each test
    of a module sharing a module-scoped fixture with the module's, skip the
    stress tier unless ``TREC_TOOLKIT_SLOW`` is set, and put the ``sized`` tests in it when it is."""
    for item in items:
        if SLOW and item.get_closest_marker("sized"):
            item.add_marker(pytest.mark.slow)
        if not SLOW and item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.skip(reason=SLOW_SKIP))
        for group, member in SERIAL_GROUPS.items():
            if member(item):
                item.add_marker(pytest.mark.xdist_group(group))
                break
        else:
            if _shares_a_module_fixture(item.path):
                item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, None, None]:
    """Collect without the garbage collector, then freeze what collection left alive out of its full passes.

    Collection imports every test module (and through them numpy, pandas, textual …) and rewrites each one's
    asserts: millions of objects allocated and kept, on which the collector's passes found nothing to free
    but cost each worker a quarter of its start-up. One pass at the end frees what cycles collection did leave,
    and ``gc.freeze`` keeps every object still alive (the modules, the collected items) out of the full passes
    during the tests: each such pass, in a worker that has imported scipy, pandas, textual and the rest,
    otherwise walks those objects again (about a twentieth of the in-process tests' CPU)."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="session")
def example_audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's main command, ``audit`` through the installed console script, on a copy of the example
    workspace (bm25f against bm25): its folder, with what it printed in ``summary.txt`` and ``stderr.txt``. Run once, for every test
    that reads what it wrote (the ``example_audit`` group of ``SERIAL_GROUPS`` keeps them on one worker)."""
    root = tmp_path_factory.mktemp("example-audit")
    for name in ("toolkit.toml", "topics", "runs", "qrels"):
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, root / name)
        else:
            shutil.copy(src, root / name)
    script = Path(sys.executable).parent / "trec-toolkit"
    done = subprocess.run([str(script), "audit"], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (root / "summary.txt").write_text(done.stdout)
    (root / "stderr.txt").write_text(done.stderr)
    return root


#: Each test's folders (its working folder and its ``tmp_path``) are made by ``tempfile.mkdtemp`` in one folder
#: of the session's temporary folder. pytest's ``tmp_path_factory.mktemp`` numbers each new folder by listing
#: every folder made before it: two a test, that was a few milliseconds a test once a worker had run a
#: thousand, and about 40 % of the CPU of three thousand trivial tests in one process.


@pytest.fixture(scope="session")
def test_folders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding every test's folders (see above)."""
    return tmp_path_factory.mktemp("tests")


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, test_folders: Path) -> Path:
    """pytest's ``tmp_path`` (an empty folder unique to the test, kept with the session's temporary folder),
    made without listing the folders made before it."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=test_folders))


@pytest.fixture(autouse=True)
def outside_the_repository(test_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run every test from an empty folder of its own (see the module docstring)."""
    monkeypatch.chdir(tempfile.mkdtemp(prefix="cwd-", dir=test_folders))


@pytest.fixture(scope="session")
def trec_eval_bin() -> Path:
    """Path to the trec_eval 10 binary built from the shared source (skips when it cannot be had)."""
    tarball = find_trec_eval_source()
    if tarball is None:
        pytest.skip(f"trec_eval source not found ($TREC_EVAL_SRC or ../{RELATIVE_SOURCE}/{TARBALL})")
    try:
        return build_trec_eval(tarball)
    except (OSError, RuntimeError, tarfile.TarError) as exc:
        pytest.skip(f"cannot build trec_eval from {tarball}: {exc}")


class TrecEval:
    """Calls the oracle: ``trec_eval(*args, stdin=b"…")`` → stdout/stderr bytes and the exit code."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def __call__(self, *args: str | Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [str(self.binary), *map(str, args)], input=stdin, capture_output=True, timeout=600
        )


@pytest.fixture(scope="session")
def trec_eval(trec_eval_bin: Path) -> TrecEval:
    """The trec_eval 10 oracle as a callable (exit code < 0 means it was killed by a signal)."""
    return TrecEval(trec_eval_bin)


@pytest.fixture(autouse=True)
def _column_readers_on_small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process tests read even tiny runs and qrels with the column readers, as large files are read, so that
    the suite's thousands of small cases keep holding the column readers to the line readers and to trec_eval.
    The installed console script, run as a subprocess, keeps its small-file path (the line readers, without
    pyarrow's import): tests/cli/test_score.py checks it, and every subprocess test goes through it."""
    from toolkit.formats import limits

    monkeypatch.setattr(limits, "SMALL_FILE", 0)
