"""Judgments files parse like trec_eval and refuse what would not survive a round trip (docs/formats.md).

- Grades are ``[+-]?[0-9]+`` in ASCII within 64 bits, as trec_eval's ``atol`` reads them whole: not ``1_0``,
  not Arabic-Indic ``١`` or full-width ``１`` digits (Python's ``int()`` takes all three), not 2⁶³ — in every
  layout (TSV, CSV, JSONL), gold lists and the ``[grades]`` of a topic set.
- Assessor names hold no control, format or separator character (Unicode categories Cc, Cf, Zl, Zp: NUL,
  ESC, DEL, C1 controls such as NEL and CSI, U+2028, U+2029, zero-width and bidi characters, the BOM).

The boundaries come from the C standard (``LONG_MAX`` of a 64-bit ``long``) and the Unicode character
database (``unicodedata.category``), not from the reader.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from toolkit.errors import FormatError
from toolkit.formats.judgments import iter_gold_rows, read_judgment_rows
from toolkit.formats.names import assessor_problem
from toolkit.formats.topics import read_topics

INT64_MAX = 2**63 - 1  # LONG_MAX on LP64 (C11 §5.2.4.2.1 minimum is 2**31 - 1; glibc x86-64 uses 2**63 - 1)
INT64_MIN = -(2**63)
RANGE = f"grades must lie within {INT64_MIN} … {INT64_MAX} (64 bits)"
ASCII = "(grades are ASCII integers — digits with an optional sign — as trec_eval reads them)"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(layout: str, grade: str) -> tuple[str, str]:
    """A one-judgment file of ``layout`` with ``grade`` written as the token ``grade``."""
    if layout == "tsv":
        return "j.tsv", f"alice\tq1\td1\t{grade}\n"
    if layout == "csv":
        return "j.csv", f"alice,q1,d1,{grade}\n"
    return "j.jsonl", f'{{"assessor": "alice", "query_id": "q1", "doc_id": "d1", "grade": {grade}}}\n'


@pytest.mark.parametrize("layout", ["tsv", "csv", "jsonl"])
@pytest.mark.parametrize("grade", [str(INT64_MAX), str(INT64_MIN), "+3", "-1", "007"])
def test_grades_within_64_bits_are_read(tmp_path: Path, layout: str, grade: str) -> None:
    if layout == "jsonl" and grade in ("+3", "007"):
        pytest.skip("JSON has no leading + or 0")
    path = write(tmp_path, *line_of(layout, grade))
    assert [r.grade for r in read_judgment_rows(path)] == [int(grade)]


@pytest.mark.parametrize("layout", ["tsv", "csv", "jsonl"])
@pytest.mark.parametrize("grade", [str(INT64_MAX + 1), str(INT64_MIN - 1), "1" + "0" * 40])
def test_grades_beyond_64_bits_are_refused(tmp_path: Path, layout: str, grade: str) -> None:
    path = write(tmp_path, *line_of(layout, grade))
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:1: grade {grade} is out of range: {RANGE}"


@pytest.mark.parametrize("layout", ["tsv", "csv"])
@pytest.mark.parametrize("grade", ["1_0", "١", "１", "٣", "²"])
def test_grades_python_would_read_are_refused_with_why(tmp_path: Path, layout: str, grade: str) -> None:
    path = write(tmp_path, *line_of(layout, grade))
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    hint = f" {ASCII}" if grade != "²" else ""
    assert str(err.value) == (
        f"{path}:1: expected an integer grade, 'skip' or 'unrateable', found {grade!r}{hint}"
    )


def test_python_reads_those_grades() -> None:
    """The reason for the rule: each of these is an integer to Python, and not one trec_eval reads."""
    assert [int(g) for g in ("1_0", "١", "１", "٣")] == [10, 1, 1, 3]


@pytest.mark.parametrize("grade", ['"١"', '"2"', "2.0", "true", "1e2"])
def test_jsonl_grades_are_json_integers(tmp_path: Path, grade: str) -> None:
    path = write(tmp_path, *line_of("jsonl", grade))
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    shown = json.dumps(json.loads(grade))  # the value as JSON writes it back, escapes and all
    assert str(err.value) == f"{path}:1: expected an integer grade, 'skip' or 'unrateable', found {shown}"


@pytest.mark.parametrize(
    ("grade", "message"),
    [
        ("١", f"expected an integer grade, found '١' {ASCII}"),
        ("1_0", f"expected an integer grade, found '1_0' {ASCII}"),
        (str(INT64_MAX + 1), f"grade {INT64_MAX + 1} is out of range: {RANGE}"),
    ],
)
def test_gold_grades(tmp_path: Path, grade: str, message: str) -> None:
    path = write(tmp_path, "gold.tsv", f"q1\td1\t{grade}\n")
    with pytest.raises(FormatError) as err:
        list(iter_gold_rows(path))
    assert str(err.value) == f"{path}:1: {message}"


@pytest.mark.parametrize("key", ['"1_0"', '"١"', f'"{INT64_MAX + 1}"'])
def test_topic_set_grade_definitions(tmp_path: Path, key: str) -> None:
    path = write(
        tmp_path, "t.toml", f'[grades]\n0 = "no"\n{key} = "yes"\n[[topic]]\nid = "q1"\nquery = "x"\n'
    )
    with pytest.raises(FormatError) as err:
        read_topics(path)
    assert str(err.value).startswith(f"{path}: [grades] key {key.strip(chr(34))!r} is not an integer grade")


# --------------------------------------------------------------------------- assessor names

#: One character of each kind that must never be in a name, with why.
REFUSED = {
    "\x00": "NUL (Cc)",
    "\x1b": "ESC (Cc): starts terminal escape sequences",
    "\x7f": "DEL (Cc)",
    "\x85": "NEL (Cc): a line break to str.splitlines",
    "\x9b": "CSI (Cc): a one-byte escape sequence start",
    "\x1c": "FS (Cc): a line break to str.splitlines",
    "\x0b": "VT (Cc)",
    "\u2028": "LINE SEPARATOR (Zl)",
    "\u2029": "PARAGRAPH SEPARATOR (Zp)",
    "\u200b": "ZERO WIDTH SPACE (Cf): two names that look the same",
    "\u202e": "RIGHT-TO-LEFT OVERRIDE (Cf): a name that reads backwards",
    "\ufeff": "BYTE ORDER MARK (Cf)",
    "\u00ad": "SOFT HYPHEN (Cf)",
    "\t": "TAB: the TSV separator",
    ",": "COMMA: the CSV and --assessors separator",
    "\n": "LF",
    "\r": "CR",
}
NAME_RULE = "use a non-empty name without tabs, commas, line breaks or other control characters"


def test_the_refused_characters_are_the_unicode_categories() -> None:
    for char in REFUSED:
        assert unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"} or char == ","


@pytest.mark.parametrize("char", list(REFUSED), ids=[REFUSED[c].split(" (")[0] for c in REFUSED])
def test_names_with_control_and_separator_characters_are_refused(char: str) -> None:
    name = f"ali{char}ce"
    assert assessor_problem(name) == f"invalid assessor name {name!r}: {NAME_RULE}"


def test_every_cc_cf_zl_zp_character_is_refused() -> None:
    """All of them, straight from the Unicode database Python ships."""
    bad = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in {"Cc", "Cf", "Zl", "Zp"}]
    assert len(bad) > 200
    assert [c for c in bad if assessor_problem(f"a{c}b") is None] == []


@pytest.mark.parametrize("name", ["alice", "Mary Ann", "José", "李", "o'brien", "a-b.c_d", "ñ\u0303"])
def test_ordinary_names_are_kept(name: str) -> None:
    assert assessor_problem(name) is None


@pytest.mark.parametrize("layout", ["tsv", "jsonl"])
@pytest.mark.parametrize("char", ["\u2028", "\x85", "\x1b", "\x00", "\u202e"])
def test_files_refuse_such_names_at_their_line(tmp_path: Path, layout: str, char: str) -> None:
    name = f"bo{char}b"
    if layout == "tsv":
        text = f"alice\tq1\td1\t1\n{name}\tq1\td1\t2\n"
        path = tmp_path / "j.tsv"
    else:
        rows = [{"assessor": a, "query_id": "q1", "doc_id": "d1", "grade": 1} for a in ("alice", name)]
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        path = tmp_path / "j.jsonl"
    path.write_text(text, encoding="utf-8")  # json.dumps writes U+2028 and NEL raw, and NUL and ESC escaped
    if layout == "tsv" and char == "\x00":
        message = "binary data (NUL byte); expected a text file"  # a NUL never gets as far as a name
    else:
        message = f"invalid assessor name {name!r}: {NAME_RULE}"
    with pytest.raises(FormatError) as err:
        read_judgment_rows(path)
    assert str(err.value) == f"{path}:2: {message}"


# --------------------------------------------------------------------------- qrels, the same rule


@pytest.mark.parametrize(
    ("token", "message"),
    [
        ("١", f"expected an integer relevance in column 4, found '١' {ASCII}"),
        ("1_0", f"expected an integer relevance in column 4, found '1_0' {ASCII}"),
        (str(INT64_MAX + 1), f"relevance '{INT64_MAX + 1}' is out of range: {RANGE}"),
    ],
)
def test_qrels_grades_follow_the_same_rule(tmp_path: Path, token: str, message: str) -> None:
    from toolkit.formats.qrels import read_qrels

    path = write(tmp_path, "x.qrels", f"q1 0 d1 1\nq1 0 d2 {token}\n")
    with pytest.raises(FormatError) as err:
        read_qrels(path)
    assert str(err.value) == f"{path}:2: {message}"
