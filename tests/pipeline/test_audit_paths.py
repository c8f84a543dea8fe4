"""``audit`` records paths relative to the workspace and hashes them there, from whatever folder it runs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_failures import build

from toolkit.cli import main


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_audit_from_another_folder_hashes_the_workspace_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    build(ws)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = CliRunner().invoke(main, ["audit", "--config", "../ws/toolkit.toml"])
    assert result.exit_code == 0, result.stderr
    topics = {"path": "topics/t.toml", "sha256": sha256(ws / "topics" / "t.toml")}
    run = json.loads((ws / "runs" / "steady.run.json").read_text())
    assert run["inputs"] == {"topics": topics}
    qrels = json.loads((ws / "qrels" / "t.qrels.json").read_text())
    assert qrels["inputs"] == {
        "topics": topics,
        "steady": {"path": "runs/steady.run", "sha256": sha256(ws / "runs" / "steady.run")},
        "flaky": {"path": "runs/flaky.run", "sha256": sha256(ws / "runs" / "flaky.run")},
    }
