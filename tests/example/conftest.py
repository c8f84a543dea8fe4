"""The example corpus, built once per test session in a private cache folder (the tests never touch the
user's own cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The environment of a process that uses the private corpus."""
    env = {**os.environ, "TREC_TOOLKIT_CACHE": str(tmp_path_factory.mktemp("cache"))}
    subprocess.run(
        [sys.executable, "-m", "toolkit.example", "build"], env=env, check=True, capture_output=True
    )
    yield env


@pytest.fixture
def workspace_copy(tmp_path: Path) -> Path:
    """The committed example workspace (config, topics, runs, qrels, judging/), copied into a temporary
    folder; campaign databases are left behind."""
    for name in ("toolkit.toml", "topics", "runs", "qrels", "judging"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("*.sqlite*"))
        else:
            shutil.copy(source, tmp_path / name)
    return tmp_path
