"""Fixtures of the TUI tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tui_helpers import build_campaign


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    return build_campaign(tmp_path / "camp.sqlite")
