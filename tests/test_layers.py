"""The import contract (``[tool.importlinter]`` in pyproject.toml, docs/architecture.md), run by import-linter.

The first test holds the tree to it; the second plants violations in a copy of the package and checks that the
contract reports each of them, so the first cannot pass by checking nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is in the test extras")


def lint(cwd: Path, pythonpath: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", str(REPO / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_the_tree_keeps_the_import_contract() -> None:
    done = lint(REPO, REPO)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_contract_catches_upward_and_ui_imports(tmp_path: Path) -> None:
    shutil.copytree(REPO / "toolkit", tmp_path / "toolkit", ignore=shutil.ignore_patterns("__pycache__"))
    planted = {
        "formats/run.py": "from toolkit.scoring import engine  # a format reading up into scoring\n",
        "model.py": "import toolkit.formats  # the model importing a room above it\n",
        "systems/runner.py": "import rich  # a progress bar in core\n",
        "reports/text.py": "from toolkit import workspace  # a renderer resolving settings\n",
        "cli/run.py": "import textual  # the CLI drawing Textual itself\n",
    }
    for path, line in planted.items():
        with open(tmp_path / "toolkit" / path, "a", encoding="utf-8") as handle:
            handle.write(line)
    done = lint(tmp_path, tmp_path)
    assert done.returncode == 1
    report = " ".join(done.stdout.split())
    for expected in (
        "toolkit.formats is not allowed to import toolkit.scoring",
        "toolkit.model is not allowed to import toolkit.formats",
        "toolkit.systems is not allowed to import rich",
        "toolkit.reports is not allowed to import toolkit.workspace",
        "toolkit.cli is not allowed to import textual",
    ):
        assert expected in report, done.stdout
