"""toolkit.toml discovery and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import ConfigError
from toolkit.workspace import load_workspace


def test_no_config_is_an_empty_workspace(tmp_path: Path) -> None:
    ws = load_workspace(start=tmp_path)
    assert ws.config == {}
    assert ws.config_path is None
    assert ws.runs_dir == tmp_path.resolve() / "runs"


def test_config_found_in_a_parent_folder(tmp_path: Path) -> None:
    (tmp_path / "toolkit.toml").write_text('[workspace]\ntopics = "topics/t.toml"\n')
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    ws = load_workspace(start=sub)
    assert ws.root == tmp_path.resolve()
    assert ws.default_topics == tmp_path.resolve() / "topics" / "t.toml"


def test_invalid_toml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "toolkit.toml"
    path.write_text('[workspace]\ntopics = "x"\nbroken = \n')
    with pytest.raises(ConfigError, match=r"toolkit\.toml:3: invalid TOML"):
        load_workspace(path)


def test_missing_explicit_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_workspace(tmp_path / "nope.toml")
