"""Every declared dependency is used and every imported one is declared (deptry, configured in pyproject.toml).

The second test plants an undeclared import in a copy of the tree, so the first cannot pass by scanning nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEPTRY = Path(sys.executable).with_name("deptry")

pytestmark = pytest.mark.skipif(not DEPTRY.exists(), reason="deptry is in the test extras")


def deptry(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(DEPTRY), ".", "--no-ansi"], cwd=root, capture_output=True, text=True, check=False, timeout=300
    )


def test_declared_dependencies_are_exactly_the_imported_ones() -> None:
    done = deptry(REPO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_undeclared_or_test_only_import_is_caught(tmp_path: Path) -> None:
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    shutil.copytree(REPO / "toolkit", tmp_path / "toolkit", ignore=shutil.ignore_patterns("__pycache__"))
    with open(tmp_path / "toolkit" / "model.py", "a", encoding="utf-8") as handle:
        handle.write("import sklearn  # a test-only dependency in the library\n")
    done = deptry(tmp_path)
    assert done.returncode == 1
    assert "toolkit/model.py" in done.stdout + done.stderr
    assert "DEP004 'sklearn' imported but declared as a dev dependency" in done.stdout + done.stderr
