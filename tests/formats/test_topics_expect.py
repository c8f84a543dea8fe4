"""``expect = "empty"`` in every topic format that carries it: TOML, JSONL, TSV (a header column), and the
model's own check for topics built in code."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats.topics import read_topics
from toolkit.model import Topic, TruthPattern


def read(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return read_topics(path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "t.toml",
            '[[topic]]\nid = "q1"\nquery = "x"\ntruth = ["^a$"]\n'
            '[[topic]]\nid = "q2"\nquery = "y"\nclass = "deprecation"\nexpect = "empty"\n',
        ),
        (
            "t.jsonl",
            '{"id": "q1", "query": "x", "expect": null}\n{"id": "q2", "query": "y", "expect": "empty"}\n',
        ),
        ("t.tsv", "query_id\tquery\texpect\nq1\tx\t\nq2\ty\tempty\n"),
    ],
)
def test_expect_empty_is_read_from_every_format(tmp_path: Path, name: str, text: str) -> None:
    topics = read(tmp_path, name, text)
    assert [t.expects_empty for t in topics] == [False, True]
    assert topics.relevance_ids == ("q1",) and topics.empty_ids == ("q2",)
    assert all("expect" not in t.metadata for t in topics)  # a topic key, not metadata


def test_tsv_and_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    with pytest.raises(FormatError) as tsv:
        read(tmp_path, "t.tsv", "query_id\tquery\texpect\ttruth\nq1\tx\tempty\t^a$\n")
    assert str(tsv.value).startswith(f"{tmp_path / 't.tsv'}:2: topic 'q1': expect = \"empty\" says nothing")
    with pytest.raises(FormatError) as jsonl:
        read(tmp_path, "t.jsonl", '{"id": "q1", "query": "x", "expect": true}\n')
    assert str(jsonl.value) == (
        f"{tmp_path / 't.jsonl'}:1: topic 'q1': expect = True is not known; the one value is \"empty\" (a topic "
        "that should find nothing), or leave the key out"
    )


def test_a_topic_built_in_code_keeps_the_rule() -> None:
    with pytest.raises(ValueError, match="cannot have truth"):
        Topic("q1", "x", expect="empty", truth=(TruthPattern("^a$"),))
    with pytest.raises(ValueError, match="expect must be 'empty' or None"):
        Topic("q1", "x", expect="none")
    assert Topic("q1", "x", expect="empty").expects_empty
