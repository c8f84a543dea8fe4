"""A pytest plugin: the run fails, loudly, when ``/dev/null`` stops being the null device.

Why it exists: a writer that renamed its temporary file over ``-o /dev/null`` replaced the machine's
``/dev/null`` with a regular file when run as root (``toolkit.formats.output`` now writes a device in place,
never replaces it: tests/formats/test_output_paths.py). Nothing failed where it happened; every later process
that wrote to ``/dev/null`` filled that file instead, and tmux — whose server opens ``/dev/null`` — failed in
every later test, far from the cause. So: the test after which it broke gets a teardown error naming it, and
the session ends with a failing exit status and a banner, whatever else passed.

``TOOLKIT_TEST_DEV_NULL`` watches another path instead (its own test does, never breaking the real one).
tests/conftest.py registers the hooks; ``pytest -p helpers.devnull_guard`` loads them anywhere else.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Generator
from pathlib import Path

import pytest

_AT_START = pytest.StashKey[str | None]()
_REPORTED = pytest.StashKey[bool]()


def watched() -> Path:
    return Path(os.environ.get("TOOLKIT_TEST_DEV_NULL") or os.devnull)


def device_problem(path: Path) -> str | None:
    """What is wrong with ``path`` as the null device (a character device, 1:3 on Linux), or None."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"{path} is gone ({exc.strerror})"
    if not stat.S_ISCHR(st.st_mode):
        kind = "a regular file" if stat.S_ISREG(st.st_mode) else stat.filemode(st.st_mode)
        return f"{path} is no longer a character device: it is {kind} of {st.st_size} bytes"
    return None


def _shout(config: pytest.Config, text: str) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_sep("!", text, red=True, bold=True)
    else:  # an xdist worker: its controller reports the session; stderr still shows in its log
        print(f"!!! {text}", file=sys.stderr)


def pytest_sessionstart(session: pytest.Session) -> None:
    problem = device_problem(watched())
    session.config.stash[_AT_START] = problem
    session.config.stash[_REPORTED] = problem is not None
    if problem is not None:
        _shout(
            session.config,
            f"before any test ran, {problem}; tests that use it will fail (restore it: "
            "rm -f /dev/null && mknod -m 666 /dev/null c 1 3)",
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """The first test after which the device is broken gets a teardown error naming what happened."""
    result = yield
    if not item.config.stash.get(_REPORTED, False):
        problem = device_problem(watched())
        if problem is not None:
            item.config.stash[_REPORTED] = True
            pytest.fail(
                f"{problem} after this test (it, or a process it started, replaced it)", pytrace=False
            )
    return result


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    problem = device_problem(watched())
    if problem is None:
        return
    before = " (already so when the session started)" if session.config.stash.get(_AT_START, None) else ""
    _shout(
        session.config,
        f"{problem}{before}: the run fails; restore it: rm -f /dev/null && mknod -m 666 /dev/null c 1 3",
    )
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
