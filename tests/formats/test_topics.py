"""Topic sets in TOML, TSV, TREC SGML and JSONL, and their validation messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats import read_topics

TOML = r"""
[topicset]
name = "stdlib"
description = "Python docs"

[grades]
0 = "Not relevant"
2 = "Relevant"

[classes.fragment]
measures = ["P@5", "Rprec"]

[[topic]]
id = "q001"
query = "OrderedDict"
class = "canonical"
truth = ['^pydoc://collections\.OrderedDict$']

[[topic]]
id = 7
query = "Grid"
class = "fragment"
truth = [{ pattern = 'Grid$', grade = 2 }, { pattern = 'Grid', grade = 1 }]

[[topic]]
id = "dep"
query = "run a command"
class = "deprecation"
prefer = [{ modern = '^pydoc://subprocess$', legacy = '^pydoc://os\.system$' }]
measures = ["RR@10"]
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(FormatError) as info:
        read_topics(path)
    return str(info.value)


def test_toml_full_schema(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "stdlib.toml", TOML))
    assert topics.name == "stdlib" and topics.description == "Python docs"
    assert topics.ids == ("q001", "7", "dep")  # numeric ids kept as text
    assert dict(topics.grades) == {0: "Not relevant", 2: "Relevant"}
    grid = topics.get("7")
    assert grid is not None
    assert grid.grade("apple://LazyVGrid") == 2  # highest matching pattern
    assert grid.grade("apple://GridItem") == 1
    assert grid.grade("apple://Stack") is None
    assert topics.measures_for(grid) == ("P@5", "Rprec")
    dep = topics.get("dep")
    assert dep is not None and dep.measures == ("RR@10",)
    assert dep.preferences[0].modern_regex.search("pydoc://subprocess")
    assert topics.classes() == ["canonical", "fragment", "deprecation"]
    assert topics.sha256 is not None and len(topics.sha256) == 64


def test_tsv_jsonl_sgml(tmp_path: Path) -> None:
    tsv = read_topics(write(tmp_path, "t.tsv", "# id\ttext\n1\tsort a list\nq-2\tparse json\n"))
    assert [(t.query_id, t.query) for t in tsv] == [("1", "sort a list"), ("q-2", "parse json")]
    jsonl = read_topics(
        write(
            tmp_path, "t.jsonl", '{"qid": "a", "text": "x", "class": "prose"}\n\n{"id": "b", "query": "y"}\n'
        )
    )
    assert [(t.query_id, t.query, t.query_class) for t in jsonl] == [("a", "x", "prose"), ("b", "y", None)]
    sgml = read_topics(
        write(
            tmp_path,
            "t.txt",
            "<top>\n<num> Number: 301\n<title> International Organized Crime\n"
            "<desc> Description:\nIdentify organizations\n<narr> Narrative:\nA relevant document\n</top>\n"
            "<top><num> Number: 302 <title> Poliomyelitis</top>\n",
        )
    )
    assert [(t.query_id, t.query) for t in sgml] == [
        ("301", "International Organized Crime"),
        ("302", "Poliomyelitis"),
    ]
    assert sgml.topics[0].description == "Identify organizations"
    assert sgml.topics[0].narrative == "A relevant document"


def test_duplicate_ids_are_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "d.tsv", "q1\tone\nq2\ttwo\nq1\tagain\n")
    assert error_of(path) == f"{path}:3: duplicate topic id 'q1'; topic ids must be unique"
    toml = write(tmp_path, "d.toml", '[[topic]]\nid = "a"\nquery = "x"\n[[topic]]\nid = "a"\nquery = "y"\n')
    assert (
        error_of(toml) == f"{toml}:4: duplicate topic id 'a'; topic ids must be unique"
    )  # its [[topic]] line


def test_all_bad_regexes_reported_at_once(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "bad.toml",
        '[[topic]]\nid = "a"\nquery = "x"\ntruth = ["(unclosed"]\n'
        '[[topic]]\nid = "b"\nquery = "y"\ntruth = ["fine", "[z-a]"]\n',
    )
    message = error_of(path)
    assert message.startswith(f"{path}: 2 invalid regex pattern(s): topic a: '(unclosed' (")
    assert "; topic b: '[z-a]' (bad character range z-a" in message


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("x.tsv", "q1 no tab here\n", ":1: expected query_id<TAB>text"),
        ("x.jsonl", '{"id": "a", "query": "x"}\n{broken\n', ":2: invalid JSON ("),
        (
            "x.jsonl",
            '["a"]\n',
            ':1: expected one topic object per line, like {"id": "q1", "query": "…"}, found ["a"]',
        ),
        ("x.txt", "no topics at all\n", ": no <top> … </top> blocks found"),
        ("x.toml", "[[topic]\n", ":1: invalid TOML"),
        ("x.toml", '[[topic]]\nid = "a"\n', ":1: topic 'a': missing query text"),
        (
            "x.toml",
            '[[topic]]\nid = "a"\nquery = "x"\nclass = "nope"\n',
            ":1: topic 'a': unknown class 'nope'",
        ),
        ("x.toml", '[[topic]]\nid = "a b"\nquery = "x"\n', ":1: topic 'a b': id must not contain whitespace"),
        (
            "x.toml",
            '[[topic]]\nid = "a"\nquery = "x"\ncolour = 1\n',
            ":1: topic #1: unknown key(s) ['colour']",
        ),
        (
            "x.toml",
            '[[topic]]\nid = "a"\nquery = "x"\nclass = "deprecation"\n',
            ":1: topic 'a': class deprecation needs prefer",
        ),
        ("x.toml", 'name = "x"\n', ": unknown top-level key(s) ['name']"),
    ],
)
def test_topic_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = write(tmp_path, name, text)
    assert error_of(path).startswith(f"{path}{message}")
