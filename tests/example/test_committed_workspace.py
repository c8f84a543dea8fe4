"""The committed runs and qrels: manifests hold workspace-relative paths, and the Quickstart changes nothing.

On the Python version that made the committed runs, `trec-toolkit audit` reuses them (their manifests match
the systems, the topic set and the Python version) and finds the qrels up to date, so a fresh checkout
stays clean after the Quickstart. On another Python the example corpus differs (it is that Python's
standard library), so the audit rightly makes new runs: the second test is skipped there.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import REPO as ROOT

COMMITTED = sorted([*ROOT.glob("runs/*.run*"), *ROOT.glob("qrels/*.qrels*")])


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def test_manifests_record_paths_relative_to_the_workspace() -> None:
    manifests = [p for p in COMMITTED if p.suffix == ".json"]
    assert len(manifests) >= 3
    for path in manifests:
        data = json.loads(path.read_text(encoding="utf-8"))
        paths = [data["topic_set"]["path"], *(i["path"] for i in data["inputs"].values())]
        assert paths and all(not Path(p).is_absolute() and (ROOT / p).is_file() for p in paths), path
        assert not [s for s in strings(data) if s.startswith(("/", str(Path.home())))], path


def committed_python() -> str:
    return json.loads((ROOT / "runs" / "bm25.run.json").read_text(encoding="utf-8"))["versions"]["python"]


@pytest.mark.skipif(
    committed_python() != platform.python_version(),
    reason=f"the committed runs were made on Python {committed_python()}; this is {platform.python_version()}, "
    "whose standard library (the example corpus) differs, so audit makes new runs",
)
def test_the_quickstart_audit_leaves_the_committed_files_unchanged(
    cache: dict[str, str], workspace_copy: Path
) -> None:
    before = {p.relative_to(ROOT): p.read_bytes() for p in COMMITTED}
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "audit"],
        cwd=workspace_copy,
        env=cache,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "reusing" in done.stderr and "up to date" in done.stderr
    after = {name: (workspace_copy / name).read_bytes() for name in before}
    assert [str(n) for n in before if before[n] != after[n]] == []
