"""Numbers in runs and qrels are read like C reads them (docs/design.md §5, Reading like trec_eval).

Two oracles: glibc's own ``atof``/``atol`` called through ctypes (for the lenient reading the ``trec_eval``
drop-in uses), and the rule that a token the strict readers accept must mean to C exactly what it means here.
"""

from __future__ import annotations

import ctypes
import math
import random
import struct
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats import read_qrels, read_run
from toolkit.formats.numbers import NumberError, c_atof, c_atol, parse_grade, parse_score
from toolkit.formats.run import read_run_lines

LIBC = ctypes.CDLL(None)
LIBC.atof.restype = ctypes.c_double
LIBC.atof.argtypes = [ctypes.c_char_p]
LIBC.atol.restype = ctypes.c_long
LIBC.atol.argtypes = [ctypes.c_char_p]


def bits(value: float) -> bytes:
    """Compare doubles bit for bit (NaN payloads aside: every NaN is one class here)."""
    return b"nan" if math.isnan(value) else struct.pack("<d", value)


# --------------------------------------------------------------------------- the strict reading


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("1", 1.0),
        ("-2.5", -2.5),
        ("+3", 3.0),
        ("1.", 1.0),
        (".5", 0.5),
        ("1e3", 1000.0),
        ("1E-3", 0.001),
        ("-0", -0.0),
        ("12.3456789012345678901", 12.345678901234567),
        ("1e-400", 0.0),
    ],
)
def test_strict_scores_are_c_decimals(token: str, value: float) -> None:
    assert parse_score(token) == value
    assert bits(parse_score(token)) == bits(LIBC.atof(token.encode()))  # C reads the same double


@pytest.mark.parametrize(
    "token", ["1_0", "１０", "٣", "0x10", "inf", "nan", "1e", "1e+", "--1", "1.2.3", "", "1e999", " 1", "1,5"]
)
def test_strict_scores_refuse_what_c_reads_differently(token: str) -> None:
    with pytest.raises(NumberError):
        parse_score(token)


@pytest.mark.parametrize(("token", "value"), [("0", 0), ("-1", -1), ("+2", 2), ("007", 7)])
def test_strict_grades(token: str, value: int) -> None:
    assert parse_grade(token) == value == LIBC.atol(token.encode())


@pytest.mark.parametrize("token", ["1_0", "１", "1.0", "1e2", "2 ", "", "-"])
def test_strict_grades_refuse(token: str) -> None:
    with pytest.raises(NumberError):
        parse_grade(token)


def test_grade_range_is_64_bits() -> None:
    assert parse_grade("9223372036854775807") == 2**63 - 1
    assert parse_grade("-9223372036854775808") == -(2**63)
    with pytest.raises(NumberError, match="out of range"):
        parse_grade("123456789012345678901")


# --------------------------------------------------------------------------- the lenient (C) reading

C_CASES = [
    "1_0", "１０", "12abc", "abc", "", "-", "+.5e-3x", ".e1", "1e", "1e+", "1e+5", "0x1p3", "0x1.8P-1", "-0x",
    "0xg", "inf", "-Infinity", "infinit", "nan", "-nan(123)", "NaN(", "1e999", "-1e999", "4.9e-324",
    "2.4703282292062327e-324", "0.1", "123456789012345678901234567890", " \t7", "\x0b8",
]  # fmt: skip


@pytest.mark.parametrize("token", C_CASES)
def test_c_atof_is_glibc_atof(token: str) -> None:
    raw = token.encode()
    assert bits(c_atof(raw)) == bits(LIBC.atof(raw))


@pytest.mark.parametrize(
    "token",
    ["1_0", "１０", "-12x", "+7", "", "abc", " 42", "9223372036854775807", "9223372036854775808",
     "-9223372036854775809", "123456789012345678901", "0x10", "3.9"],
)  # fmt: skip
def test_c_atol_is_glibc_atol(token: str) -> None:
    raw = token.encode()
    assert c_atol(raw) == LIBC.atol(raw)


def test_c_atof_on_random_tokens() -> None:
    rng = random.Random(10)
    alphabet = "0123456789+-.eEpPxXabcfinNAIty_ ()"
    for _ in range(5000):
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))).encode()
        assert bits(c_atof(token)) == bits(LIBC.atof(token)), token
        assert c_atol(token) == LIBC.atol(token), token


# --------------------------------------------------------------------------- in the readers


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("token", ["1_0", "１０", "0x10", "1e999"])
def test_run_scores_python_reads_but_c_does_not_are_refused(tmp_path: Path, sep: str, token: str) -> None:
    path = write(tmp_path, "r.run", f"q Q0 a 1 2 t\nq Q0 b 2 {token} t\n".replace(" ", sep))
    for reader in (read_run, read_run_lines):
        with pytest.raises(FormatError) as info:
            reader(path)
        message = str(info.value)
        if token == "1e999":
            assert message == f"{path}:2: score '1e999' in column 5 is out of range for a double"
        else:
            assert message.startswith(f"{path}:2: expected a numeric score in column 5, found {token!r}")
            if token != "0x10":  # Python's float() reads the others, so the message says why they are refused
                assert message.endswith(
                    "(scores are ASCII decimal numbers — digits with an optional sign, point and exponent — as trec_eval reads them)"
                )


@pytest.mark.parametrize("token", ["1_0", "１", "1.0"])
def test_qrels_grades_python_reads_but_c_does_not_are_refused(tmp_path: Path, token: str) -> None:
    path = write(tmp_path, "x.qrels", f"q 0 a 1\nq 0 b {token}\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    message = str(info.value)
    assert message.startswith(f"{path}:2: expected an integer relevance in column 4, found {token!r}")
    if token != "1.0":  # int() reads 1_0 and full-width digits
        assert message.endswith(
            "(grades are ASCII integers — digits with an optional sign — as trec_eval reads them)"
        )


def test_a_21_digit_grade_is_a_clear_range_error(tmp_path: Path) -> None:
    path = write(tmp_path, "x.qrels", "q 0 a 1\nq 0 b 123456789012345678901\n")
    with pytest.raises(FormatError) as info:
        read_qrels(path)
    assert str(info.value) == (
        f"{path}:2: relevance '123456789012345678901' is out of range: grades must lie within "
        "-9223372036854775808 … 9223372036854775807 (64 bits)"
    )
