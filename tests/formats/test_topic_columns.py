"""The fast readers of plain topic files (``toolkit.formats.topic_columns``) against what the files hold.

Each file is written from a list of ``(id, query)`` pairs, so the expected topics are known by construction:
the fast reader must take the file (it answers, not None) and ``read_topics`` must give exactly those
topics. Files the fast reader must not take — a comment, a header it does not know, a query with a tab, JSON
lines that are valid only when joined, XML it cannot vouch for — must make it answer None, and
``read_topics`` must still give the topics (or the one ``path:line`` error, at the line the file was built
with).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats import read_topics
from toolkit.formats import topic_columns as tc
from toolkit.formats.textfile import read_text
from toolkit.model import Topic, TopicColumns

WORDS = ["alpha", "beta", "gamma", "Déjà", "vu", "naïve", "日本", "x>y", "a/b", "#tag", "Number:", "50%"]


def _pairs(n: int, seed: int = 5) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    ids = rng.sample(range(10**7), n)
    return [(f"{i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))) for i in ids]


def _tsv(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"{q}\t{t}\n" for q, t in pairs)


def _jsonl(pairs: list[tuple[str, str]]) -> str:
    import json

    return "".join(json.dumps({"id": q, "query": t}, ensure_ascii=False) + "\n" for q, t in pairs)


def _sgml(pairs: list[tuple[str, str]]) -> str:
    return "".join(f"<top>\n<num> Number: {q}\n<title> {t}\n</top>\n\n" for q, t in pairs)


def _xml(pairs: list[tuple[str, str]]) -> str:
    body = "".join(
        f'<topic number="{q}"><query>{t}</query></topic>\n' for q, t in pairs
    )  # no & or < in WORDS
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<topics>\n{body}</topics>\n'


def _fast(path: Path) -> tc.Columns | None:
    name = path.name
    if name.endswith((".tsv", ".jsonl")):
        reader = tc.tsv_columns if name.endswith(".tsv") else tc.jsonl_columns
        return reader(path, hashlib.sha256())
    text = read_text(path)
    return tc.xml_columns(text) if name.endswith(".xml") else tc.sgml_columns(text)


FORMATS: dict[str, tuple[str, Callable[[list[tuple[str, str]]], str]]] = {
    "tsv": ("t.tsv", _tsv),
    "jsonl": ("t.jsonl", _jsonl),
    "sgml": ("t.txt", _sgml),
    "xml": ("t.xml", _xml),
}


def _topics(path: Path) -> list[tuple[str, str]]:
    return [(t.query_id, t.query) for t in read_topics(path)]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_a_plain_file_is_read_the_fast_way_and_gives_its_topics(tmp_path: Path, fmt: str) -> None:
    name, write = FORMATS[fmt]
    pairs = _pairs(60_000)  # several blocks and chunks of the fast readers
    path = tmp_path / name
    path.write_text(write(pairs), encoding="utf-8")
    fast = _fast(path)
    assert fast is not None and fast.ids == [q for q, _ in pairs]
    topics = read_topics(path)
    assert isinstance(topics.topics, TopicColumns)
    assert _topics(path) == pairs
    assert topics.ids == tuple(q for q, _ in pairs) and topics.relevance_ids is topics.ids
    assert topics.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    q, t = pairs[1234]
    assert topics.get(q) == Topic(q, t) and topics.topics[1234] == Topic(q, t)
    assert topics.uniform and topics.classes() == [] and topics.empty_ids == ()


def test_tsv_header_crlf_padding_and_messy_whitespace(tmp_path: Path) -> None:
    pairs = _pairs(50)
    path = tmp_path / "t.tsv"
    path.write_text("QID\tText\r\n" + "".join(f" {q} \t  {t}  \r\n" for q, t in pairs))
    assert _fast(path) is not None
    assert _topics(path) == pairs
    sgml = tmp_path / "t.txt"
    sgml.write_text(
        "".join(
            f"<top><num>{q}</num>\n<title>topic:  {t.replace(' ', '   ')} \t</title></top>\n"
            for q, t in pairs
        )
    )
    assert _fast(sgml) is not None
    assert _topics(sgml) == pairs


@pytest.mark.parametrize(
    ("fmt", "text", "expected"),
    [
        ("tsv", "# a comment\nq1\tone\nq2\ttwo\n", [("q1", "one"), ("q2", "two")]),
        ("tsv", "q1\tone\n\nq2\ttwo\n", [("q1", "one"), ("q2", "two")]),
        ("tsv", "q1\tone\tmore\nq2\ttwo\n", [("q1", "one\tmore"), ("q2", "two")]),
        ("tsv", "q1\tone\n \t \nq2\ttwo\n", [("q1", "one"), ("q2", "two")]),
        ("jsonl", '{"id": 7, "query": "seven"}\n', [("7", "seven")]),
        ("jsonl", '{"id": "a", "query": "x", "lang": "en"}\n', [("a", "x")]),
        ("jsonl", '# c\n{"id": "a", "query": "x"}\n', [("a", "x")]),
        ("xml", '<topics><topic number="1"><query>a &amp; b</query></topic></topics>', [("1", "a & b")]),
        ("xml", '<topics><!-- c --><topic number="1"><query>q</query></topic></topics>', [("1", "q")]),
        ("xml", '<topics><topic number="1" type="f"><query>q</query></topic></topics>', [("1", "q")]),
        ("sgml", "<top>\n<num> Number: 5\n<title> t\n<desc> d\n</top>\n", [("5", "t")]),
        ("sgml", "header text\n<top>\n<num> 5\n<title> t\n</top>\n", [("5", "t")]),
    ],
)
def test_what_the_fast_way_does_not_take_is_read_the_careful_way(
    tmp_path: Path, fmt: str, text: str, expected: list[tuple[str, str]]
) -> None:
    path = tmp_path / FORMATS[fmt][0]
    path.write_text(text, encoding="utf-8")
    assert _fast(path) is None
    assert _topics(path) == expected


@pytest.mark.parametrize(
    ("fmt", "text", "line", "message"),
    [
        ("tsv", "q1\tone\nq2\ttwo\nq1\tagain\n", 3, "duplicate topic id 'q1'"),
        ("tsv", "q1\tone\nq 2\ttwo\n", 2, "id must not contain whitespace"),
        ("tsv", "q1\tone\nq2\t  \n", 2, "expected query_id<TAB>text"),
        ("tsv", "q1\tone\nq2\n", 2, "expected query_id<TAB>text"),
        ("tsv", "qid\tsomething\nq1\tone\n", 1, "looks like a header row"),
        ("tsv", "q1\tquery\nq2\tone\n", 1, "looks like a header row"),
        ("jsonl", '{"id": "a", "query": "x"}\n{"id": "a", "query": "y"}\n', 2, "duplicate topic id 'a'"),
        ("jsonl", '{"id": "a", "query": "x"}\n{"id": "b", "query": ""}\n', 2, "missing query text"),
        # valid JSON only when the lines are joined into one array: each line alone is not
        (
            "jsonl",
            '{"id": "a", "query": "x}\n{y"}\n{"id": "b", "query": "1"},{"id": "c", "query": "2"}\n',
            1,
            "invalid JSON",
        ),
        (
            "sgml",
            "<top>\n<num> Number: 1\n<title> a\n</top>\n<top>\n<num> Number: 1\n<title> b\n</top>\n",
            5,
            "duplicate topic id '1'",
        ),
        ("sgml", "<top>\n<num> Number: 1\n<title>\n</top>\n", 1, "missing query text"),
        ("xml", '<topics><topic number="1"><query>a\x01b</query></topic></topics>', 1, "invalid XML"),
        ("xml", '<topics><topic number="1"><query>a ]]> b</query></topic></topics>', 1, "invalid XML"),
        (
            "xml",
            '<topics><topic number="1"><query>a</query></topic>\n<topic number="1"><query>b</query></topic></topics>',
            2,
            "duplicate topic id '1'",
        ),
        ("xml", '<topics><topic number="1"><query>a</query></topic></topic>', 1, "invalid XML"),
    ],
)
def test_errors_keep_their_line_and_message(
    tmp_path: Path, fmt: str, text: str, line: int, message: str
) -> None:
    path = tmp_path / FORMATS[fmt][0]
    path.write_text(text, encoding="utf-8")
    assert _fast(path) is None
    with pytest.raises(FormatError, match=message) as caught:
        read_topics(path)
    assert caught.value.line == line


def test_a_duplicate_across_blocks_names_the_later_line(tmp_path: Path) -> None:
    pairs = _pairs(80_000)
    pairs.append((pairs[3][0], "again"))
    path = tmp_path / "t.tsv"
    path.write_text(_tsv(pairs))
    with pytest.raises(FormatError, match=f"duplicate topic id '{pairs[3][0]}'") as caught:
        read_topics(path)
    assert caught.value.line == len(pairs)


def test_a_gzipped_file_is_read_the_fast_way(tmp_path: Path) -> None:
    import gzip

    pairs = _pairs(2000)
    path = tmp_path / "t.tsv.gz"
    path.write_bytes(gzip.compress(_tsv(pairs).encode()))
    assert tc.tsv_columns(path, hashlib.sha256()) is not None
    assert _topics(path) == pairs


def test_columns_with_rich_topics_keep_order_measures_and_classes(tmp_path: Path) -> None:
    """A JSONL file of plain topics with a few that carry a class: the rich ones are whole topics, the rest
    made on access; the topic-order union of measures places the defaults where the first plain topic is."""
    from toolkit.model import CLASS_MEASURES, DEFAULT_MEASURES

    path = tmp_path / "t.jsonl"
    lines = ['{"id": "c1", "query": "one", "class": "fragment"}', '{"id": "p1", "query": "two"}']
    lines += [
        '{"id": "c2", "query": "three", "class": "prose"}',
        '{"id": "e1", "query": "none", "expect": "empty"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    topics = read_topics(path)
    assert [t.query_id for t in topics] == ["c1", "p1", "c2", "e1"]
    assert topics.classes() == ["fragment", "prose"] and not topics.uniform
    assert topics.measure_lists() == [CLASS_MEASURES["fragment"], DEFAULT_MEASURES, CLASS_MEASURES["prose"]]
    assert topics.relevance_ids == ("c1", "p1", "c2") and topics.empty_ids == ("e1",)
    assert topics.get("p1") == Topic("p1", "two") and topics.get("c2").query_class == "prose"  # type: ignore[union-attr]
    assert "e1" in topics.by_id and "zz" not in topics.by_id and topics.get("zz") is None
    assert topics.topics[-1].expects_empty and topics.topics[0:2] == (topics.topics[0], Topic("p1", "two"))
