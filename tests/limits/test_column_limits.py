"""The column readers (pyarrow, ``toolkit.formats.tables``) read through the input limits too (docs/reliability.md, Input limits).

A limit passed is the user's answer, not a reason to fall back to the line reader (which would read the same
bytes again to the same error): ``read_ranked`` and ``read_judgment_columns`` raise the limits' one-line
``FormatError`` themselves. The expected messages are written out from the limits' documented wording
(docs/reliability.md, "Input limits") and the line numbers counted by hand from fixed-length lines.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import FormatError
from toolkit.formats import tables
from toolkit.formats.qrels import read_judgment_columns, read_qrels, read_qrels_lines
from toolkit.formats.ranked import read_ranked
from toolkit.formats.run import read_run, read_run_lines

MIB = 1 << 20
#: Bytes handed to Arrow at once: the reader's own, and blocks small enough that the limit falls many blocks in.
BLOCKS = [tables.BLOCK_BYTES, 4096]


def decompression_error(limit: str, suggested: str) -> str:
    return (
        f"decompresses to more than {limit}, the limit for one input (TREC_TOOLKIT_MAX_DECOMPRESSED); check "
        "that this is the right file (a small .gz that expands this far is a decompression bomb), or raise "
        f"the limit (e.g. TREC_TOOLKIT_MAX_DECOMPRESSED={suggested})"
    )


def run_lines(n: int) -> bytes:
    """``n`` run lines of 32 bytes each (topic changes every 1,000 lines, ranks and scores descending)."""
    lines = [f"q{i // 1000:03d} Q0 d{i:08d} {i % 1000 + 1:04d} {999 - i % 1000:03d} tag1\n" for i in range(n)]
    assert {len(line) for line in lines} == {32}
    return "".join(lines).encode()


@pytest.mark.parametrize("block", BLOCKS)
def test_a_gzip_run_past_the_decompression_limit_stops_the_column_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    path = tmp_path / "big.run.gz"
    path.write_bytes(gzip.compress(run_lines(3 * MIB // 32)))  # 3 MiB of run lines
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DECOMPRESSED", "1MiB")
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    expected = f"{path}:{MIB // 32 + 1}: {decompression_error('1 MiB', '4MiB')}"  # the line of byte 1 MiB
    with pytest.raises(FormatError) as raised:
        read_ranked(path)
    assert str(raised.value) == expected
    with pytest.raises(FormatError) as raised:
        read_run(path)
    assert str(raised.value) == expected


@pytest.mark.parametrize("block", BLOCKS)
def test_gzip_qrels_past_the_decompression_limit_stop_the_column_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    path = tmp_path / "big.qrels.gz"
    lines = [f"q{i // 1000:03d} 0 d{i:09d} {i % 3}\n" for i in range(2 * MIB // 20)]
    assert {len(line) for line in lines} == {20}
    path.write_bytes(gzip.compress("".join(lines).encode()))
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DECOMPRESSED", "1MiB")
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    expected = f"{path}:{MIB // 20 + 1}: {decompression_error('1 MiB', '4MiB')}"
    for reader in (read_judgment_columns, read_qrels):
        with pytest.raises(FormatError) as raised:
            reader(path)
        assert str(raised.value) == expected


@pytest.mark.parametrize("block", [*BLOCKS, 300])
def test_a_line_past_the_line_limit_stops_the_column_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    path = tmp_path / "long.run"
    long_line = b"q001 Q0 " + b"d" * 2000 + b" 1 5 t\n"
    path.write_bytes(run_lines(40) + long_line + run_lines(10))
    monkeypatch.setenv("TREC_TOOLKIT_MAX_LINE", "1KiB")
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    expected = (
        f"{path}:41: line longer than 1 KiB, the limit for one line (TREC_TOOLKIT_MAX_LINE); check that this is "
        "the right file, or raise the limit (e.g. TREC_TOOLKIT_MAX_LINE=4KiB)"
    )
    with pytest.raises(FormatError) as raised:
        read_ranked(path)
    assert str(raised.value) == expected


@pytest.mark.parametrize("name", ["corrupt.run.gz", "missing.run", "."])
def test_unreadable_runs_and_qrels_give_the_line_readers_error(tmp_path: Path, name: str) -> None:
    """Corrupt gzip data, a missing file, a directory: the column reader says what the line reader says."""
    path = tmp_path / name
    if name.startswith("corrupt"):
        path.write_bytes(gzip.compress(run_lines(2000))[:-500] + b"\x00" * 500)
    with pytest.raises(FormatError) as line_reader:
        read_run_lines(path)
    with pytest.raises(FormatError) as column_reader:
        read_ranked(path)
    assert str(column_reader.value) == str(line_reader.value)
    with pytest.raises(FormatError) as line_reader:
        read_qrels_lines(path)
    with pytest.raises(FormatError) as column_reader:
        read_judgment_columns(path)
    assert str(column_reader.value) == str(line_reader.value)


def drop_in(args: list[str], stdin: bytes | None = None, **env: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["trec_eval", *args], input=stdin, env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def qrels(tmp_path: Path) -> Path:
    path = tmp_path / "ok.qrels"
    path.write_text("".join(f"q{t:03d} 0 d{t * 1000 + 3:08d} 1\n" for t in range(3)))
    return path


def test_the_drop_in_reads_a_run_within_the_limits_on_either_path(tmp_path: Path, qrels: Path) -> None:
    """The run file and standard input: the same limit, the same line, trec_eval's exit code 2 for a file."""
    bomb = gzip.compress(run_lines(3 * MIB // 32))
    path = tmp_path / "big.run.gz"
    path.write_bytes(bomb)
    message = f"{MIB // 32 + 1}: {decompression_error('1 MiB', '4MiB')}\n"
    for measures in ([], ["-m", "all_trec"]):  # the column path, and the reference loop
        got = drop_in([*measures, str(qrels), str(path)], TREC_TOOLKIT_MAX_DECOMPRESSED="1MiB")
        assert got == (2, "", f"Error: {path}:{message}")
        got = drop_in([*measures, str(qrels), "-"], stdin=bomb, TREC_TOOLKIT_MAX_DECOMPRESSED="1MiB")
        assert got == (2, "", f"Error: <stdin>:{message}")


def test_the_drop_in_names_a_file_as_given_and_reads_the_qrels_first(tmp_path: Path, qrels: Path) -> None:
    """A non-ASCII file name is the file's (the options keep it byte per character); an unreadable qrels file
    is reported before an unreadable standard input, as trec_eval reads the qrels first (``trec_eval.c``)."""
    bomb = gzip.compress(run_lines(3 * MIB // 32))
    path = tmp_path / "grö\u00dfer.run.gz"
    path.write_bytes(bomb)
    got = drop_in([str(qrels), str(path)], TREC_TOOLKIT_MAX_DECOMPRESSED="1MiB")
    assert got == (2, "", f"Error: {path}:{MIB // 32 + 1}: {decompression_error('1 MiB', '4MiB')}\n")
    path.write_bytes(run_lines(3000))
    assert drop_in([str(qrels), str(path)]) == drop_in([str(qrels), "-"], stdin=run_lines(3000))
    missing = tmp_path / "missing.qrels"
    got = drop_in([str(missing), "-"], stdin=bomb, TREC_TOOLKIT_MAX_DECOMPRESSED="1MiB")
    assert got == (2, "", f"Error: {missing}: file not found; check the path\n")


def test_the_drop_in_gunzips_standard_input_once_as_it_does_a_file(tmp_path: Path, qrels: Path) -> None:
    """A run gzipped twice is gzip data after one gunzip, for a file and for standard input alike."""
    twice = gzip.compress(gzip.compress(run_lines(3000)), mtime=0)
    path = tmp_path / "twice.run.gz"
    path.write_bytes(twice)
    from_file = drop_in([str(qrels), str(path)])
    from_stdin = drop_in([str(qrels), "-"], stdin=twice)
    assert from_file[0] == 2 and from_file[2].startswith(f"Error: {path}:") and "NUL byte" in from_file[2]
    assert from_stdin == (2, "", from_file[2].replace(str(path), "<stdin>"))
    once = drop_in([str(qrels), "-"], stdin=gzip.compress(run_lines(3000)))
    assert once == drop_in([str(qrels), "-"], stdin=run_lines(3000))
    assert once[0] == 0 and "map" in once[1]
