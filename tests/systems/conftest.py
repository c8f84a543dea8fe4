from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def fake_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    monkeypatch.setenv("FAKE_STATE", str(tmp_path))
    monkeypatch.setenv("FAKE_DELAY", "0.05")
    return tmp_path
