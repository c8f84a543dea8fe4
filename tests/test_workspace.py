"""toolkit.toml discovery and its errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import make_workspace

from toolkit.errors import ConfigError, UsageError
from toolkit.model import Run
from toolkit.workspace import RunSettings, Workspace, load_workspace


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


def workspace(tmp_path: Path, text: str) -> Workspace:
    return load_workspace(make_workspace(tmp_path, config=text))


def test_run_settings_precedence_command_line_system_workspace_default(tmp_path: Path) -> None:
    ws = workspace(tmp_path, "[workspace]\ndepth = 20\ntimeout = 5\n")
    system = {"timeout": 2.5, "retries": 1}
    # depth: [workspace]; timeout: the system beats [workspace]; retries: the system; workers: the default
    settings = ws.run_settings(system)
    assert (settings.depth, settings.timeout, settings.retries) == (20, 2.5, 1)
    assert settings.workers == min(4, os.cpu_count() or 1)
    # the command line beats all three
    given = ws.run_settings(system, depth=3, timeout=9.0, retries=0, workers=2)
    assert (given.depth, given.timeout, given.retries, given.workers) == (3, 9.0, 0, 2)
    # nothing declared anywhere: the defaults table
    assert Workspace(tmp_path).run_settings() == RunSettings(
        depth=10, workers=min(4, os.cpu_count() or 1), timeout=30.0, retries=0
    )


def test_a_setting_that_is_not_a_number_names_the_config(tmp_path: Path) -> None:
    ws = workspace(tmp_path, '[workspace]\ndepth = "ten"\n')
    with pytest.raises(ConfigError, match=r"toolkit\.toml: \[workspace\] depth must be a number, not 'ten'"):
        ws.run_settings()


def test_topics_are_recorded_relative_to_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "t.tsv").write_text("q1\tfirst\n", encoding="utf-8")
    ws = workspace(tmp_path, '[workspace]\ntopics = "topics/t.tsv"\n')
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert ws.topics().path == "topics/t.tsv"
    assert ws.topics(Path("../topics/t.tsv")).path == "topics/t.tsv"
    outside = tmp_path.parent / f"{tmp_path.name}-outside.tsv"
    outside.write_text("q1\tx\n", encoding="utf-8")
    try:
        assert ws.topics(outside).path == str(outside)
    finally:
        outside.unlink()


def test_no_topic_set_is_one_message_for_every_command(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^no topic set: pass --topics PATH or set \[workspace\] topics"):
        Workspace(tmp_path).topics()


def test_covered_doc_ids_are_runs_ids_and_corpus(tmp_path: Path) -> None:
    ws = workspace(tmp_path, '[docs]\nids = "ids.txt"\n')
    (tmp_path / "ids.txt").write_text("d3\nd4\n", encoding="utf-8")
    runs = [Run(results={"q1": {"d1": 2.0, "d2": 1.0}}), Run(results={"q2": {"d2": 1.0}})]
    corpus = ws.corpus_ids()
    assert corpus == (["d3", "d4"], str(tmp_path.resolve() / "ids.txt"))
    coverage = ws.covered_doc_ids(runs, ["d5"], corpus=corpus)
    assert coverage.doc_ids == {"d1", "d2", "d3", "d4", "d5"}
    assert coverage.details == {"doc_ids_from": f"[docs] ids: {tmp_path.resolve() / 'ids.txt'}"}
    assert ws.covered_doc_ids(runs).details == {}


def test_a_required_doc_source_says_how_to_declare_one(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert ws.doc_source() is None
    with pytest.raises(UsageError, match=r"no doc source: pass --docs"):
        ws.doc_source(required=True)
