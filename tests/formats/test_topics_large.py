"""Topic files read in one pass: errors far into a file keep their exact line, a format error
later in the file still wins over a topic error before it, and reading leaves the garbage collector as it
found it. Expected line numbers are counted by construction of the files."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats import read_topics

N = 3000


def _sgml(i: int) -> str:
    return f"<top>\n<num> Number: {i}\n<title> topic {i}\n</top>\n\n"  # 5 lines a topic


@pytest.mark.parametrize("where", [0, 1, 1234, N - 1])
def test_sgml_error_far_in_the_file_names_its_line(tmp_path: Path, where: int) -> None:
    blocks = [_sgml(i) for i in range(N)]
    blocks[where] = "<top>\n<title> no number here\n</top>\n\n\n"
    path = tmp_path / "t.txt"
    path.write_text("".join(blocks))
    with pytest.raises(FormatError, match="topic without <num>") as caught:
        read_topics(path)
    assert caught.value.line == 5 * where + 1


@pytest.mark.parametrize("where", [10, 2500])
def test_sgml_second_num_and_unclosed_top_name_their_lines(tmp_path: Path, where: int) -> None:
    blocks = [_sgml(i) for i in range(N)]
    blocks[where] = "<top>\n<num> Number: x\n<num> Number: y\n</top>\n\n"
    path = tmp_path / "t.txt"
    path.write_text("".join(blocks))
    with pytest.raises(FormatError, match="second <num>") as caught:
        read_topics(path)
    assert caught.value.line == 5 * where + 3
    blocks[where] = "<top>\n<num> Number: x\n<title> left open\n\n\n"
    path.write_text("".join(blocks))
    with pytest.raises(FormatError, match=r"<top> inside another <top>") as caught:
        read_topics(path)
    assert caught.value.line == 5 * (where + 1) + 1  # the next <top>, inside the open one
    path.write_text("".join(blocks[: where + 1]))
    with pytest.raises(FormatError, match=r"<top> without its </top>") as caught:
        read_topics(path)
    assert caught.value.line == 5 * where + 1


def test_a_duplicate_id_is_found_however_far_apart(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("".join(f"q{i}\ttext {i}\n" for i in range(N)) + "q17\tagain\n")
    with pytest.raises(FormatError, match="duplicate topic id 'q17'") as caught:
        read_topics(path)
    assert caught.value.line == N + 1


def test_a_broken_line_later_in_the_file_is_reported_before_a_topic_error(tmp_path: Path) -> None:
    """As when the whole file was read before any topic was checked: a line that is not JSON at all is the
    first thing to fix."""
    lines = [f'{{"id": "q{i}", "query": "text {i}"}}' for i in range(N)]
    lines[5] = '{"id": "q5", "query": ""}'  # a topic error
    lines[2900] = '{"id": "q2900", "query": '  # the file's own error, later
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="invalid JSON") as caught:
        read_topics(path)
    assert caught.value.line == 2901
    lines[2900] = '{"id": "q2900", "query": "fixed"}'
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError, match="missing query text") as caught:
        read_topics(path)
    assert caught.value.line == 6


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("good", [True, False])
def test_reading_leaves_the_garbage_collector_as_it_was(tmp_path: Path, enabled: bool, good: bool) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("q1\tone\nq2\ttwo\n" + ("" if good else "q1\tagain\n"))
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        if good:
            assert len(read_topics(path)) == 2
        else:
            with pytest.raises(FormatError):
                read_topics(path)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_xml_topics_keep_their_fields_when_the_tree_is_freed_as_read(tmp_path: Path) -> None:
    """Each element is cleared once its topic is made; a topic nested in another keeps its own fields."""
    path = tmp_path / "t.xml"
    path.write_text(
        "<topics>\n"
        '<topic number="1" type="faceted"><query>one</query><description>first</description>'
        '<subtopic number="1" type="inf">sub one</subtopic></topic>\n'
        '<topic number="2"><query>two</query>'
        '<topic number="3"><query>three</query><narrative>inner</narrative></topic></topic>\n'
        "</topics>\n"
    )
    topics = read_topics(path)
    assert [(t.query_id, t.query, t.description, t.narrative) for t in topics] == [
        ("1", "one", "first", ""),
        ("2", "two", "", ""),
        ("3", "three", "", "inner"),
    ]
    assert topics.topics[0].metadata == {
        "type": "faceted",
        "subtopics": [{"number": "1", "type": "inf", "text": "sub one"}],
    }
