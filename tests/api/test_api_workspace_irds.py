"""``[workspace] topics = "ir_datasets:…"`` is a source, not a file under the workspace root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.formats import read_topics
from toolkit.workspace import load_workspace


def workspace(root: Path, topics: str) -> None:
    (root / "toolkit.toml").write_text(f'[workspace]\ntopics = "{topics}"\n')


def test_workspace_topics_from_ir_datasets_are_recorded_as_written(
    tmp_path: Path, irds_dataset: tuple[str, Path]
) -> None:
    name, files = irds_dataset
    source = f"ir_datasets:{name}"
    workspace(tmp_path, source)
    ws = load_workspace(start=tmp_path)
    assert ws.default_topics == source
    topics = ws.topics()
    assert topics.ids == read_topics(files / "topics.txt").ids == ("301", "302")
    assert topics.path == source
    # the same source given as --topics (click hands it over as a Path), from outside the workspace
    assert ws.topics(Path(source)).path == source


def test_a_file_default_is_still_relative_to_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "t.tsv").write_text("q1\tapple\n")
    workspace(tmp_path, "topics/t.tsv")
    monkeypatch.chdir("/")
    ws = load_workspace(start=tmp_path)
    assert ws.default_topics == tmp_path / "topics" / "t.tsv"
    assert ws.topics().path == "topics/t.tsv"


def test_pool_takes_the_workspace_ir_datasets_topics(
    tmp_path: Path, irds_dataset: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, _ = irds_dataset
    monkeypatch.chdir(tmp_path)
    workspace(tmp_path, f"ir_datasets:{name}")
    Path("a.run").write_text("301 Q0 d1 1 3.0 a\n302 Q0 d5 1 2.0 a\n")
    Path("docs.jsonl").write_text(
        "".join(json.dumps({"doc_id": d, "title": d, "text": f"text of {d}"}) + "\n" for d in ("d1", "d5"))
    )
    result = CliRunner().invoke(main, ["pool", "a.run", "--docs", "docs.jsonl", "-o", "c.sqlite"])
    assert result.exit_code == 0, result.output
    from toolkit.judging.store import CampaignStore

    with CampaignStore.open("c.sqlite") as store:
        assert [(t.query_id, t.query) for t in store.topics()] == [
            ("301", "International Organized Crime"),
            ("302", "Poliomyelitis and Post-Polio"),
        ]
