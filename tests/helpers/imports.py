"""What the installed console script imports, as a user runs it: ``python -X importtime`` names every module.

The tests that keep a command lean (``score``, ``compare``, ``export``) share this probe; each asserts that a
module of the command's own work was loaded, so an early exit cannot pass for a lean import.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def console_script_imports(*args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``trec-toolkit ARGS`` in ``cwd`` under ``-X importtime``: its result and every module it loaded."""
    script = Path(sys.executable).with_name("trec-toolkit")
    assert script.is_file(), f"the console script is not installed beside {sys.executable}"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(script), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=cwd,
    )
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "imported package" not in line
    }
    return proc, modules
