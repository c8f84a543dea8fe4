"""``toolkit.formats.limits``: the one opening layer every reader goes through, held to a plain oracle.

The oracle is the definition written out the slow way: split the decompressed bytes at ``\\n`` and measure
each line; count the bytes. ``LimitedInput`` must agree with it for any data, any limits and any sizes of
``read()`` — its line check jumps across lines and chunks, the oracle looks at every line.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import threading
import tracemalloc
from pathlib import Path

import pytest
from helpers.sizes import scaled_settings
from hypothesis import given
from hypothesis import strategies as st

from toolkit.errors import ConfigError, FormatError
from toolkit.formats.limits import InputLimits, LimitedInput, format_size, open_input, parse_size
from toolkit.formats.textfile import iter_data_lines, iter_trec_fields, read_bytes

LINE_RULE = (
    "the limit for one line (TREC_TOOLKIT_MAX_LINE); check that this is the right file, or raise the limit"
)


def oracle(data: bytes, max_line: int, max_total: int) -> tuple[str, int] | None:
    """The first limit ``data`` breaks, with the 1-based line where: ("line", n) or ("total", n); else None.

    A line is too long when its (max_line + 1)-th byte comes within the first ``max_total`` bytes (what
    lies beyond the total limit is never looked at); the total is broken at the line holding byte
    ``max_total`` (0-based), the first byte past it.
    """
    offset = 0
    for number, line in enumerate(data.split(b"\n"), start=1):
        if len(line) > max_line and offset + max_line < max_total:
            return "line", number
        offset += len(line) + 1
    if len(data) > max_total:
        return "total", data.count(b"\n", 0, max_total) + 1
    return None


def read_all(data: bytes, *, max_line: int, max_total: int, sizes: list[int], gz: bool, into: bool) -> bytes:
    """Read ``data`` (gzipped or not) through ``open_input`` in reads of ``sizes`` bytes, by ``read`` or by
    ``readinto`` a reused buffer at an offset — how a column reader fills its blocks; returns what came out."""
    raw = gzip.compress(data) if gz else data
    stream = open_input(
        "<test>", stream=io.BufferedReader(io.BytesIO(raw)), limits=InputLimits(max_total, max_line)
    )
    out = bytearray()
    buffer = bytearray(100)
    i = 0
    while True:
        size = sizes[i % len(sizes)]
        i += 1
        if into:
            got = stream.readinto(memoryview(buffer)[3 : 3 + size])
            chunk = bytes(buffer[3 : 3 + got])
        else:
            chunk = stream.read(size)
        if not chunk:
            return bytes(out)
        out += chunk


@scaled_settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.integers(0, 40), min_size=0, max_size=30),
    final_newline=st.booleans(),
    max_line=st.integers(1, 30),
    max_total=st.integers(1, 600),
    sizes=st.lists(st.integers(1, 70), min_size=1, max_size=5),
    gz=st.booleans(),
    into=st.booleans(),
)
def test_limits_agree_with_the_oracle(
    lines: list[int],
    final_newline: bool,
    max_line: int,
    max_total: int,
    sizes: list[int],
    gz: bool,
    into: bool,
) -> None:
    data = b"\n".join(b"x" * n for n in lines) + (b"\n" if final_newline and lines else b"")
    expected = oracle(data, max_line, max_total)
    try:
        got = read_all(data, max_line=max_line, max_total=max_total, sizes=sizes, gz=gz, into=into)
    except FormatError as exc:
        kind = "line" if "the limit for one line" in exc.detail else "total"
        assert (kind, exc.line) == expected
    else:
        assert expected is None
        assert got == data


def test_readinto_finds_far_newlines_in_a_memoryview() -> None:
    """A memoryview is searched in its last 4 KiB first, then whole: a newline 10 KB before the end counts."""
    data = b"x\n" + b"a" * 10_000  # the only newline is far from the end of the window
    for limit, ok in [(12_000, True), (10_000, True), (9_999, False)]:
        stream = LimitedInput(io.BytesIO(data), "<x>", max_total=1 << 20, max_line=limit)
        buffer = bytearray(len(data))
        if ok:
            assert stream.readinto(memoryview(buffer)) == len(data) and bytes(buffer) == data
        else:
            with pytest.raises(FormatError, match=r"<x>:2: line longer than 9999 bytes"):
                stream.readinto(memoryview(buffer))


def test_a_line_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"a" * 10 + b"\n" + b"b" * 10)
    assert read_bytes(path) == path.read_bytes()
    with open_input(path, limits=InputLimits(max_line=10)) as stream:
        assert stream.read() == path.read_bytes()
    path.write_bytes(b"a" * 10 + b"\n" + b"b" * 11 + b"\n")
    with pytest.raises(FormatError) as err, open_input(path, limits=InputLimits(max_line=10)) as stream:
        stream.read()
    assert (
        str(err.value) == f"{path}:2: line longer than 10 bytes, {LINE_RULE} (e.g. TREC_TOOLKIT_MAX_LINE=40)"
    )


def test_exactly_the_decompressed_limit_is_read(tmp_path: Path) -> None:
    data = b"abc\n" * 256  # 1 KiB
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(data))
    with open_input(path, limits=InputLimits(max_decompressed=1024)) as stream:
        assert stream.read() == data
    with (
        pytest.raises(FormatError) as err,
        open_input(path, limits=InputLimits(max_decompressed=1023)) as stream,
    ):
        stream.read()
    assert str(err.value) == (
        f"{path}:256: decompresses to more than 1023 bytes, the limit for one input "
        "(TREC_TOOLKIT_MAX_DECOMPRESSED); check that this is the right file (a small .gz that expands this far "
        "is a decompression bomb), or raise the limit (e.g. TREC_TOOLKIT_MAX_DECOMPRESSED=4092)"
    )


def test_a_plain_file_counts_its_own_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"12345\n" * 10)
    with pytest.raises(FormatError, match=r"x.txt:9: holds more than 50 bytes, the limit for one input"):
        read_bytes_limited(path, InputLimits(max_decompressed=50))


def read_bytes_limited(path: Path, limits: InputLimits) -> bytes:
    with open_input(path, limits=limits) as stream:
        return stream.read()


def test_line_numbers_of_a_pipe_are_counted_as_they_pass() -> None:
    """A pipe cannot be read again to count lines: they are counted on the way."""
    read_end, write_end = os.pipe()
    data = b"short\n" * 1000 + b"x" * 100 + b"\n"

    def write() -> None:
        with os.fdopen(write_end, "wb") as w:
            w.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    with os.fdopen(read_end, "rb") as r:
        stream = open_input("<pipe>", stream=r, limits=InputLimits(max_line=50))
        with pytest.raises(FormatError) as err:
            while stream.read(333):
                pass
    writer.join()
    assert (err.value.path, err.value.line) == ("<pipe>", 1001)


def test_dev_zero_stops_at_the_line_limit() -> None:
    with (
        pytest.raises(FormatError) as err,
        open_input("/dev/zero", limits=InputLimits(max_line=4096)) as stream,
    ):
        while stream.read(1 << 16):
            pass
    assert str(err.value).startswith("/dev/zero:1: line longer than 4 KiB, the limit for one line")


def test_documents_have_their_own_limit(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b"<p>" + b"x" * 3000 + b"</p>")  # one long line, as minified HTML is
    limits = InputLimits(max_line=1024, max_document=4096)
    with open_input(path, kind="document", limits=limits) as stream:
        assert len(stream.read()) == 3007
    with pytest.raises(FormatError) as err, open_input(path, kind="data", limits=limits) as stream:
        stream.read()
    assert str(err.value).startswith(f"{path}:1: line longer than 1 KiB")
    limits = InputLimits(max_document=2048)
    with pytest.raises(FormatError) as err, open_input(path, kind="document", limits=limits) as stream:
        stream.read()
    assert str(err.value) == (
        f"{path}:1: document larger than 2 KiB, the limit for one document (TREC_TOOLKIT_MAX_DOCUMENT); check "
        "that this is the right file, or raise the limit (e.g. TREC_TOOLKIT_MAX_DOCUMENT=8KiB)"
    )
    path.write_bytes(b"short line\n" * 300)  # a document of many short lines: the whole is what counts
    with pytest.raises(FormatError) as err, open_input(path, kind="document", limits=limits) as stream:
        stream.read()
    assert str(err.value).startswith(f"{path}:187: document larger than 2 KiB, the limit for one document")


def test_corrupt_and_truncated_gzip(tmp_path: Path) -> None:
    whole = gzip.compress(b"q1 0 d1 1\n" * 1000)
    for name, data in [
        ("cut.gz", whole[: len(whole) // 2]),
        ("bad.gz", whole[:20] + b"\xff" * 40 + whole[60:]),
    ]:
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(FormatError) as err:
            read_bytes(path)
        assert str(err.value).startswith(f"{path}: corrupt gzip data (")
        assert str(err.value).endswith("); re-create the file")


def test_digest_sees_every_decompressed_byte(tmp_path: Path) -> None:
    data = b"line\n" * 50_000
    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(data))
    digest = hashlib.sha256()
    with open_input(path, digest=digest) as stream:
        while stream.read(4096):
            pass
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_callers_stream_is_left_open() -> None:
    source = io.BufferedReader(io.BytesIO(b"a\n"))
    with open_input("<stdin>", stream=source) as stream:
        assert stream.read() == b"a\n"
    assert not source.closed


# --------------------------------------------------------------------------- memory: line readers stream


def bomb(path: Path, *, line: bytes, total: int) -> Path:
    """A gzip of ``total`` bytes of ``line`` repeated, made of one member repeated (so made in milliseconds)."""
    member = gzip.compress(line * ((4 << 20) // len(line)), mtime=0)
    path.write_bytes(member * (total // (4 << 20)))
    return path


@pytest.mark.slow
@pytest.mark.parametrize("reader", [iter_trec_fields, iter_data_lines])
def test_line_readers_hold_a_block_not_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reader
) -> None:
    """256 MiB of blank lines (1 MiB of gzip) read to the end: the reader's peak is a few blocks."""
    path = bomb(tmp_path / "blank.gz", line=b" " * 4095 + b"\n", total=256 << 20)
    assert path.stat().st_size < 2 << 20
    tracemalloc.start()
    try:
        assert list(reader(path)) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # a block of 1 MiB, its text and its lines — not 256 MiB


# --------------------------------------------------------------------------- configuration


def test_sizes() -> None:
    assert [parse_size(t) for t in ("4MiB", "4 MiB", "4194304", "1GiB", "2KiB", "1TiB", "7B")] == [
        4 << 20, 4 << 20, 4 << 20, 1 << 30, 2048, 1 << 40, 7,
    ]  # fmt: skip
    assert [parse_size(t) for t in ("4MB", "4 mb", "-1", "0", "", "1.5GiB", "٣")] == [None] * 7
    assert [format_size(n) for n in (16 << 30, 1 << 20, 1000, 3 << 10)] == [
        "16 GiB",
        "1 MiB",
        "1000 bytes",
        "3 KiB",
    ]


def test_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TREC_TOOLKIT_MAX_DECOMPRESSED", "TREC_TOOLKIT_MAX_LINE", "TREC_TOOLKIT_MAX_DOCUMENT"):
        monkeypatch.delenv(name, raising=False)
    assert InputLimits.from_environment() == InputLimits(4 << 30, 1 << 20, 64 << 20)
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DECOMPRESSED", "1 TiB")
    monkeypatch.setenv("TREC_TOOLKIT_MAX_LINE", "4MiB")
    monkeypatch.setenv("TREC_TOOLKIT_MAX_DOCUMENT", "1073741824")
    assert InputLimits.from_environment() == InputLimits(1 << 40, 4 << 20, 1 << 30)
    monkeypatch.setenv("TREC_TOOLKIT_MAX_LINE", "4MB")
    with pytest.raises(ConfigError) as err:
        InputLimits.from_environment()
    assert str(err.value) == (
        "TREC_TOOLKIT_MAX_LINE='4MB': expected a positive number of bytes, optionally with a binary unit "
        "(KiB, MiB, GiB, TiB), e.g. TREC_TOOLKIT_MAX_LINE=4MiB"
    )


def test_limited_input_is_a_binary_stream() -> None:
    """What a column reader (pyarrow, io.BufferedReader) needs: readinto, readable, a name, close."""
    stream = LimitedInput(io.BytesIO(b"a b\nc d\n"), "<x>", max_total=100, max_line=10)
    buffered = io.BufferedReader(stream)
    assert buffered.read() == b"a b\nc d\n"
    assert stream.readable() and stream.name == "<x>"
