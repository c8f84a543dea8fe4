"""The session guard of tests/helpers/devnull_guard.py, run as pytest runs it: in a session of its own whose
"/dev/null" is a device node made in the test's folder (1:3, what /dev/null is), never the machine's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

SESSION = """
import os, tempfile
from pathlib import Path

def test_before():
    pass

def test_the_culprit():
    if os.environ.get("BREAK") == "1":  # what a writer renaming its temporary over `-o /dev/null` did
        target = Path(os.environ["TOOLKIT_TEST_DEV_NULL"])
        fd, temporary = tempfile.mkstemp(dir=target.parent)
        os.write(fd, b"qrels")
        os.close(fd)
        os.replace(temporary, target)

def test_after():
    pass
"""


def session(tmp_path: Path, *, broken: bool) -> subprocess.CompletedProcess[str]:
    null = tmp_path / "null"
    os.mknod(null, 0o666 | 0o020000, os.makedev(1, 3))  # S_IFCHR
    (tmp_path / "pytest.ini").write_text("[pytest]\n")  # not the repository's options (-n auto)
    (tmp_path / "test_session.py").write_text(SESSION)
    env = {
        **os.environ,
        "PYTHONPATH": str(TESTS),
        "TOOLKIT_TEST_DEV_NULL": str(null),
        "BREAK": "1" if broken else "0",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the guard alone: the installed plugins' start-up is only CPU
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "helpers.devnull_guard", "-p", "no:cacheprovider", "-rA"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")


def test_a_replaced_null_device_fails_the_run_and_names_the_test(tmp_path: Path) -> None:
    done = session(tmp_path, broken=True)
    out = done.stdout
    assert done.returncode == 1, out
    assert "PASSED test_session.py::test_before" in out
    assert "PASSED test_session.py::test_the_culprit" in out  # the test itself…
    assert "ERROR test_session.py::test_the_culprit" in out  # …and its teardown, which names it
    assert (
        f"{tmp_path / 'null'} is no longer a character device: it is a regular file of 5 bytes after this test"
        in out
    )
    assert "PASSED test_session.py::test_after" in out
    assert "ERROR test_session.py::test_after" not in out  # only the first test after which it broke
    assert "the run fails; restore it: rm -f /dev/null && mknod -m 666 /dev/null c 1 3" in out


def test_an_intact_null_device_leaves_the_run_alone(tmp_path: Path) -> None:
    done = session(tmp_path, broken=False)
    assert done.returncode == 0, done.stdout
    assert "character device" not in done.stdout
