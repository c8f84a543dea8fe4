"""Regex truth in a workspace keeps a qrels file that already holds the same judgments — but only when its
manifest records the topic set it was made from: qrels made from another topic set must not keep a manifest
naming the old one (an edit that adds topics that should find nothing leaves the judgments as they were)."""

from __future__ import annotations

import json
from pathlib import Path

from toolkit.formats.topics import read_topics
from toolkit.pipeline.truth import regex_truth
from toolkit.workspace import load_workspace

TOPICS = '[[topic]]\nid = "t1"\nquery = "alpha"\ntruth = [\'^a1$\']\n'


def test_an_unchanged_qrels_file_gets_the_new_topic_set_in_its_manifest(tmp_path: Path) -> None:
    (tmp_path / "toolkit.toml").write_text('[workspace]\ntopics = "t.toml"\n')
    topics_path = tmp_path / "t.toml"
    topics_path.write_text(TOPICS)
    ws = load_workspace(tmp_path / "toolkit.toml")
    out = tmp_path / "t.qrels"

    first = regex_truth(ws, read_topics(topics_path), doc_ids=["a1", "x"], output=out, keep_identical=True)
    again = regex_truth(ws, read_topics(topics_path), doc_ids=["a1", "x"], output=out, keep_identical=True)
    assert first.written and not again.written  # same topics, same qrels: left untouched

    topics_path.write_text(TOPICS + '[[topic]]\nid = "e1"\nquery = "nothing"\nexpect = "empty"\n')
    edited = read_topics(topics_path)
    changed = regex_truth(ws, edited, doc_ids=["a1", "x"], output=out, keep_identical=True)
    assert out.read_text() == "t1 0 a1 1\n"  # the same judgments …
    assert changed.written  # … but a manifest for the topic set they now stand for
    manifest = json.loads((tmp_path / "t.qrels.json").read_text())
    assert manifest["topic_set"]["sha256"] == edited.sha256
    assert manifest["expect_empty_topics"] == ["e1"]
