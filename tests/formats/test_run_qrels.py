"""TREC run and qrels files: trec_eval semantics, gz, comments, and every malformed-input message.

Each bad-input case is written twice where it matters: with single spaces (the layout the vectorised reader
takes) and with tabs (the line-by-line reader), because both must report the same ``path:line`` error.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats import read_qrels, read_run, write_qrels, write_run
from toolkit.formats.ranked import RankedResults
from toolkit.formats.run import read_run_lines
from toolkit.model import Qrels, Run

RUN_COLUMNS = "query_id Q0 doc_id rank score run_tag"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def error_of(func, path: Path) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(FormatError) as info:
        func(path)
    return str(info.value)


# --------------------------------------------------------------------------- runs


def test_run_ties_are_ordered_by_doc_id_descending(tmp_path: Path) -> None:
    text = "q1 Q0 a 1 1.5 t\nq1 Q0 c 2 1.5 t\nq1 Q0 b 3 1.5 t\nq1 Q0 z 4 0.5 t\nq1 Q0 y 5 2 t\n"
    for path in (write(tmp_path, "r.run", text), write(tmp_path, "t.run", text.replace(" ", "\t"))):
        run = read_run(path)
        assert isinstance(run.results, RankedResults)  # single spaces or single tabs: the fast reader
        # score desc: y (2); then the 1.5 ties by doc_id descending: c, b, a; then z
        assert run.ranking("q1") == ["y", "c", "b", "a", "z"]
        assert run.results["q1"]["b"] == 1.5
        assert run.name == path.stem and run.run_tag == "t"


def test_fast_and_line_readers_agree(tmp_path: Path) -> None:
    lines = [f"q{q} Q0 d{d:03d} {d} {(d * 7919) % 13 / 4} sys\n" for q in (2, 10, 1) for d in range(40)]
    lines += ["q2 Q0 extra 99 -3e2 sys\n"]  # topic q2 comes back later in the file
    path = write(tmp_path, "big.run", "".join(lines))
    fast = read_run(path)
    slow = read_run_lines(path)
    assert isinstance(fast.results, RankedResults)
    assert list(fast.results) == list(slow.results) == ["q2", "q10", "q1"]
    for q in slow.results:
        assert fast.ranking(q) == slow.ranking(q)
        assert dict(fast.results[q]) == dict(slow.results[q])
    assert len(fast) == len(slow) == 121


def test_string_topic_ids_gz_and_comments(tmp_path: Path) -> None:
    text = "# produced by a test\n\nalpha-1 Q0 doc#1 1 3.0 x\n  # indented comment\nbeta_2 Q0 d 1 1 x\n"
    path = tmp_path / "r.run.gz"
    path.write_bytes(gzip.compress(text.encode()))
    run = read_run(path)
    assert run.name == "r"
    assert list(run.results) == ["alpha-1", "beta_2"]
    assert run.results["alpha-1"]["doc#1"] == 3.0


def test_write_run_round_trips_in_trec_order(tmp_path: Path) -> None:
    run = Run({"q": {"a": 1.0, "b": 1.0, "c": 0.1 + 0.2}}, name="x")
    write_run(run, tmp_path / "x.run.gz")
    back = read_run(tmp_path / "x.run.gz")
    assert back.ranking("q") == ["b", "a", "c"]
    assert back.results["q"]["c"] == 0.1 + 0.2  # repr round-trips exactly


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5\n", f"r.run:2: expected 6 columns ({RUN_COLUMNS}), found 5"),
        (
            "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 high t\n",
            "r.run:2: expected a numeric score in column 5, found 'high'",
        ),
        (
            "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 nan t\n",
            "r.run:2: expected a numeric score in column 5, found 'nan' (scores are ASCII decimal numbers — "
            "digits with an optional sign, point and exponent — as trec_eval reads them)",
        ),
        (
            "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1e400 t\n",
            "r.run:2: score '1e400' in column 5 is out of range for a double",
        ),
        (
            "q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5 t\nq1 Q0 a 3 0.2 t\n",
            "r.run:3: duplicate doc 'a' for query 'q1'; each doc may appear once per query",
        ),
    ],
)
def test_run_errors_name_path_line_and_fix(tmp_path: Path, sep: str, body: str, message: str) -> None:
    path = write(tmp_path, "r.run", body.replace(" ", sep))
    assert error_of(read_run, path) == f"{tmp_path}/{message}"


@pytest.mark.parametrize("sep", [" ", "\t"])
def test_text_after_column_6_is_ignored_with_one_warning(tmp_path: Path, sep: str) -> None:
    body = "q1 Q0 a 1 1.0 t extra words\nq1 Q0 b 2 0.5 t\nq1 Q0 c 3 0.2 t more\n".replace(" ", sep)
    path = write(tmp_path, "r.run", body)
    with pytest.warns(ToolkitWarning) as caught:
        run = read_run(path)
    assert [str(w.message) for w in caught] == [
        f"{path}: 2 line(s) have text after column 6 (first: line 1); it is ignored, as trec_eval ignores "
        "it (--strict refuses such lines)"
    ]
    assert run.ranking("q1") == ["a", "b", "c"] and run.run_tag == "t"
    assert error_of(lambda p: read_run(p, strict=True), path) == (
        f"{path}:1: expected 6 columns ({RUN_COLUMNS}), found 8; text after column 6 is refused with "
        "--strict (trec_eval ignores it)"
    )


def test_columns_split_on_ascii_whitespace_only(tmp_path: Path) -> None:
    # trec_eval (C isspace) keeps U+00A0, U+2003 and \x1c inside a token; \r\n line ends are fine
    path = write(tmp_path, "r.run", "q1 Q0 a\u00a0b 1 2 t\r\nq1 Q0 c\x1cd 2 1 t\r\nq1 Q0 e\u2003f 3 0 t\n")
    run = read_run(path)
    assert run.ranking("q1") == ["a\u00a0b", "c\x1cd", "e\u2003f"]


def test_run_whole_file_errors(tmp_path: Path) -> None:
    empty = write(tmp_path, "empty.run", "# only a comment\n\n")
    assert error_of(read_run, empty) == f"{empty}: empty run: no result lines ({RUN_COLUMNS})"
    missing = tmp_path / "missing.run"
    assert error_of(read_run, missing) == f"{missing}: file not found; check the path"
    assert error_of(read_run, tmp_path) == f"{tmp_path}: is a directory, expected a file"
    garbage = write(tmp_path, "g.run", b"q1 Q0 a 1 1 t\n\xff\xfe\x00garbage")
    assert error_of(read_run, garbage) == f"{garbage}:2: binary or non-UTF-8 data; expected a UTF-8 text file"
    nul = write(tmp_path, "n.run", b"q1 Q0 a 1 1 t\nq1 Q0 b 2 1 \x00\n")
    assert error_of(read_run, nul) == f"{nul}:2: binary data (NUL byte); expected a text file"


def test_unreadable_path(tmp_path: Path) -> None:
    blocker = write(tmp_path, "plain.txt", "x")
    inside = blocker / "r.run"  # a path through a regular file cannot be opened
    assert (
        error_of(read_run, inside) == f"{inside}: cannot read file (Not a directory); check its permissions"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_run(tmp_path: Path) -> None:
    path = write(tmp_path, "locked.run", "q1 Q0 a 1 1 t\n")
    path.chmod(0)
    assert "cannot read file" in error_of(read_run, path)


# --------------------------------------------------------------------------- qrels


QRELS_COLUMNS = "query_id iteration doc_id relevance"


def test_qrels_graded_negative_comments_gz(tmp_path: Path) -> None:
    text = "# judged by two assessors\nq1 0 a 2\nq1 0 b -1\n\nq2 0 c 0\n"
    path = tmp_path / "x.qrels.gz"
    path.write_bytes(gzip.compress(text.encode()))
    qrels = read_qrels(path)
    assert qrels.name == "x"
    assert qrels.judgments == {"q1": {"a": 2, "b": -1}, "q2": {"c": 0}}
    assert qrels.relevant("q1") == {"a"}
    write_qrels(qrels, tmp_path / "y.qrels")
    assert (tmp_path / "y.qrels").read_text() == "q1 0 a 2\nq1 0 b -1\nq2 0 c 0\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("q1 0 a 1\nq1 0 b\n", f"x.qrels:2: expected 4 columns ({QRELS_COLUMNS}), found 3"),
        ("q1 0 a 1\nq1 0 b 1.5\n", "x.qrels:2: expected an integer relevance in column 4, found '1.5'"),
        ("q1 0 a 1\nq1 0 b yes\n", "x.qrels:2: expected an integer relevance in column 4, found 'yes'"),
        (
            "q1 0 a 1\nq2 0 a 1\nq1 0 a 0\n",
            "x.qrels:3: duplicate judgment of doc 'a' for query 'q1'; keep one line per (query, doc)",
        ),
    ],
)
def test_qrels_errors(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, "x.qrels", body)
    assert error_of(read_qrels, path) == f"{tmp_path}/{message}"


def test_qrels_whole_file_errors(tmp_path: Path) -> None:
    empty = write(tmp_path, "e.qrels", "")
    assert error_of(read_qrels, empty) == f"{empty}: empty qrels: no judgment lines ({QRELS_COLUMNS})"
    garbage = write(tmp_path, "g.qrels", b"q1 0 d1 1\n" + bytes(range(0x20, 256)))
    # line 1 is read (and would be refused) before line 2 is: the first defect of the file is the one named
    assert (
        error_of(read_qrels, garbage) == f"{garbage}:2: binary or non-UTF-8 data; expected a UTF-8 text file"
    )
    bad_gz = write(tmp_path, "b.qrels.gz", b"\x1f\x8b\x08\x00broken")
    assert "corrupt gzip data" in error_of(read_qrels, bad_gz)


def test_qrels_round_trip_model() -> None:
    qrels = Qrels({"q": {"d": 1}})
    assert len(qrels) == 1 and qrels.query_ids == ["q"]
