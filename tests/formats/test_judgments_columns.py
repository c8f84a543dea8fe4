"""The column reader of judgments files is held to the line reader.

Random judgments files in every layout the reader takes — TSV with and without a header, extra named columns,
CSV, JSONL, CRLF, comments, blank lines, gzip, small blocks — and with hostile content (names with blanks and
Unicode spaces around them, tabs, commas and controls in them, the Kelvin sign in ``SKIP``, grades ``+2``,
``0x10``, ``2.0`` and past 64 bits, duplicates, quotes in CSV, escapes and ``null`` actions in JSON) must give
through ``read_judgment_table`` exactly what the line reader gives: the same rows, or the same ``path:line``
error. The column path may decline a file (the line reader then reads it), but never answer differently; and
on plain files of every layout it must answer, or it would be a fast path that is never taken.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from helpers.sizes import scaled_settings
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from toolkit.errors import FormatError
from toolkit.formats.judgment_table import fast_judgment_table, read_judgment_table
from toolkit.formats.judgments import JudgmentRow, read_judgment_rows

TROUBLES = [
    "name", "doc", "grade", "note", "duration", "columns", "quotes", "duplicate", "bytes",
    "json-action", "json-value", "json-escape", "json-line",
]  # fmt: skip
PLAIN_NAMES = ["alice", "bob", "carol", "d.ve", "émile", "李"]
HOSTILE_NAMES = [
    " alice",
    "bob ",
    "\u3000carol",
    "dave\xa0",
    "e\x1cve",
    "al,ice",
    "a\x85b",
    "zoë\u200b",
    "#x",
]
PLAIN_GRADES = ["0", "1", "2", "3", "-1", "007", "skip", "unrateable", "SKIP", "Unrateable"]
HOSTILE_GRADES = ["+2", "0x10", "2.0", "1_0", "１", " 2", "9223372036854775808", "S\u212aIP", "", "two", "-0"]
PLAIN_NOTES = ["", "clear", "a b c", "line\\nbreak", "back\\\\slash", "tab\\there", "ünïcode"]
HOSTILE_NOTES = [' "quoted" ', "comma, inside", "\u2028", "trailing\\", "\\x"]
PLAIN_DOCS = ["d1", "doc-2", "D3", "http://x/y?z=1", "д4"]
HOSTILE_DOCS = ["d 5", "\u00a0d6", "d7\t", "#d8"]


@st.composite
def judgments_files(draw: st.DrawFn) -> tuple[bytes, str, bool, int]:
    """A file's bytes, its name, whether it is plain (the column path must take it) and a block size."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    layout = draw(st.sampled_from(["tsv", "csv", "jsonl", "jsonl-named-tsv"]))
    hostile = draw(st.booleans())
    #: one kind of trouble per hostile file, in a few of its lines: a file with many kinds would be declined by
    #: the column path for the first one, and the others would never be tested
    trouble = draw(st.sampled_from(TROUBLES)) if hostile else ""
    n = draw(st.integers(1, 30))
    crlf = draw(st.booleans())
    comments = draw(st.booleans()) and layout in ("tsv", "csv")
    blanks = draw(st.booleans())
    header = (
        draw(st.sampled_from(["none", "four", "note", "export", "extra"])) if layout != "jsonl" else "none"
    )
    if layout == "jsonl-named-tsv":
        header = "none"

    variant = draw(st.integers(0, 3))  # which trouble of its kind
    at = set(rng.sample(range(n), max(1, n // 5)))  # the rows that have it

    def pick(plain: list[str], bad: list[str], kind: str) -> str:
        return rng.choice(bad) if trouble == kind and rng.random() < 0.2 else rng.choice(plain)

    def now(kind: str, which: int, row: int) -> bool:
        return trouble == kind and variant == which and row in at

    records = []
    for i in range(n):
        records.append(
            {
                "assessor": pick(PLAIN_NAMES, HOSTILE_NAMES, "name"),
                "query_id": rng.choice(["q1", "q2", "10", "T-3"]),
                "doc_id": pick(PLAIN_DOCS, HOSTILE_DOCS, "doc") + str(i),  # duplicates only when asked for
                "grade": pick(PLAIN_GRADES, HOSTILE_GRADES, "grade"),
                "note": pick(PLAIN_NOTES, HOSTILE_NOTES, "note"),
                "duration_ms": pick(["", "0", "1500", "12"], ["-1", "+5", "x", "1.5"], "duration"),
                "time": rng.choice(["", "2024-01-01T00:00:00Z"]),
            }
        )
    lines: list[str] = []
    if layout.startswith("jsonl"):
        for i, r in enumerate(records):
            obj: dict[str, object] = {
                "assessor": r["assessor"],
                "query_id": r["query_id"],
                "doc_id": r["doc_id"],
            }
            word = r["grade"].lower()
            if word in ("skip", "unrateable"):
                obj["action"], obj["grade"] = word, None
            else:
                try:
                    obj["grade"] = int(r["grade"], 10) if r["grade"].strip("-").isdigit() else r["grade"]
                except ValueError:
                    obj["grade"] = r["grade"]
            if r["note"]:
                obj["note"] = r["note"]
            if r["duration_ms"]:
                obj["duration_ms"] = (
                    int(r["duration_ms"]) if r["duration_ms"].lstrip("-+").isdigit() else r["duration_ms"]
                )
            if rng.random() < 0.3:
                obj["extra"] = {"nested": [1, 2, {"x": None}]}
            if now("json-action", 0, i) or now("json-action", 1, i):
                obj["action"] = rng.choice([None, "adjudicate", "Judge", 1])
            if now("json-action", 2, i):
                obj["action"], obj["grade"] = "skip", rng.choice([1, 0])  # a skip with a grade
            if now("json-action", 3, i):
                obj["action"] = rng.choice(["skip", "unrateable", "judge"])
            if now("json-value", 0, i) or now("json-value", 1, i):
                obj[rng.choice(["note", "time", "duration_ms", "assessor"])] = rng.choice(
                    [3, {"a": 1}, None, True, ""]
                )
            if now("json-value", 2, i) or now("json-value", 3, i):
                obj["grade"] = rng.choice([True, 2.0, "2", 2**63, -(2**63) - 1, None, 1e400])
            text = json.dumps(obj, ensure_ascii=now("json-escape", 0, i))
            if now("json-escape", 1, i):
                text = text.replace('"doc_id"', '"doc_\\u0069d"')  # a key spelled with an escape
            if now("json-escape", 2, i) and '"note": "' in text:
                text = text.replace('"note": "', '"note": "\\ud800')  # a lone surrogate
            if now("json-escape", 3, i):
                text = text.replace('"assessor": "', '"assessor": "\\ud83d\\ude00')  # a surrogate pair
            if now("json-line", 0, i):
                text = text.replace('{"assessor": ', '{"assessor": "zz", "assessor": ', 1)  # a key twice
            if now("json-line", 1, i):
                text = text + json.dumps({**obj, "doc_id": "other"})  # two objects on one line
            if now("json-line", 2, i):
                text = "[" * 70 + "]" * 70  # deeper than the column path reads
            if now("json-line", 3, i):
                text = rng.choice(["[1]", "null", "{}", '"x"', text[:-1], text + " x", "# " + text])
            lines.append(text)
    else:
        sep = "\t" if layout == "tsv" else ","
        names = {
            "none": [],
            "four": [],
            "note": ["note"],
            "export": ["note", "duration_ms"],
            "extra": ["time", "other", "note"],
        }[header]
        if header != "none":
            lines.append(sep.join(["assessor", "query_id", "doc_id", "grade", *names]))
        width = len(names) if header != "none" else rng.choice([0, 1])
        for i, r in enumerate(records):
            cells = [r["assessor"], r["query_id"], r["doc_id"], r["grade"]]
            extra = {"note": r["note"], "duration_ms": r["duration_ms"], "time": r["time"], "other": "x;y"}
            if header == "none":
                cells += [r["note"]] * width
            else:
                cells += [extra[name] for name in names]
            if now("columns", variant, i):
                cells = cells[: rng.choice([1, 3, 4, 5])] + (["x"] if rng.random() < 0.5 else [])
            if now("quotes", variant, i) and layout == "csv":
                cells[rng.randrange(len(cells))] = rng.choice(['"a,b"', '"a""b"', 'a"b', '"a"b', '"x\ny"'])
            lines.append(sep.join(cells))
    if comments:
        for _ in range(rng.randint(1, 3)):
            lines.insert(rng.randint(0, len(lines)), rng.choice(["# a comment", "#\tx\ty", "  # indented"]))
    if blanks:
        for _ in range(rng.randint(1, 3)):
            lines.insert(rng.randint(0, len(lines)), rng.choice(["", "   ", "\t"]))
    if trouble == "duplicate":
        dup = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[dup])
    end = "\r\n" if crlf else "\n"
    text = end.join(lines) + (end if draw(st.booleans()) else "")
    raw = text.encode("utf-8")
    if trouble == "bytes":
        raw = rng.choice(
            [
                b"\xef\xbb\xbf" + raw,
                raw.replace(b"\n", b"\r", 1),
                raw + b"x\xff\n",
                raw + b"\x00\n",
                raw + b"# \xff\n",
                raw + b"\t\x0b\n",
            ]
        )
    name = {"tsv": "j.tsv", "csv": "j.csv", "jsonl": "j.jsonl", "jsonl-named-tsv": "j.tsv"}[layout]
    plain = not hostile and not layout.startswith("jsonl")  # JSONL: the line reader (judgment_table says why)
    block = draw(st.sampled_from([None, 64, 200]))
    return raw, name, plain, block


def outcome(read: object) -> tuple[str, object]:
    try:
        return "rows", read()  # type: ignore[operator]
    except FormatError as exc:
        return "error", str(exc)


@scaled_settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(judgments_files(), st.booleans(), st.booleans())
def test_the_column_reader_answers_as_the_line_reader(
    tmp_path: Path, case: tuple[bytes, str, bool, int], gz: bool, checked: bool
) -> None:
    raw, name, plain, block = case
    path = tmp_path / (name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(raw) if gz else raw)
    topics = {"q1", "q2", "10"} if checked else None
    scale = {0, 1, 2, 3} if checked else None
    slow = outcome(lambda: read_judgment_rows(path, topics=topics, scale=scale))
    fast = outcome(lambda: fast_judgment_table(path, topics=topics, scale=scale, block=block))
    if fast == ("rows", None):
        assert not (plain and not checked and slow[0] == "rows"), "a plain file the column path declined"
    elif fast[0] == "rows":
        assert slow[0] == "rows", slow
        assert list(fast[1].rows()) == slow[1]  # type: ignore[union-attr]
    else:
        assert fast == slow  # only open_input's errors come from the column path
    both = outcome(lambda: read_judgment_table(path, topics=topics, scale=scale))
    if both[0] == "rows":
        assert ("rows", list(both[1].rows())) == slow  # type: ignore[union-attr]
    else:
        assert both == slow


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("j.tsv", "alice\tq1\td1\t2\nbob\tq1\td1\tskip\n"),
        (
            "j.tsv",
            "assessor\tquery_id\tdoc_id\tgrade\tnote\tduration_ms\r\n# c\r\n\r\nalice\tq1\td1\t2\ta\\tb\t15\r\n",
        ),
        ("j.csv", "assessor,query_id,doc_id,grade,note\nalice,q1,d1,2,\nbob,q1,d1,UNRATEABLE,fine\n"),
    ],
)
def test_plain_files_of_every_layout_take_the_column_path(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    fast = fast_judgment_table(path)
    assert fast is not None
    assert list(fast.rows()) == read_judgment_rows(path)


def test_rows_of_the_column_path_are_the_specified_ones(tmp_path: Path) -> None:
    """Expected rows written from the format's specification, not from either reader."""
    path = tmp_path / "j.tsv"
    path.write_text(
        "assessor\tquery_id\tdoc_id\tgrade\tnote\n# c\nalice\tq1\td1\t 2 \tclear\\nreally\nbob\tq1\td1\tSKIP\t\n"
    )
    fast = fast_judgment_table(path)
    assert fast is not None
    assert list(fast.rows()) == [
        JudgmentRow(3, "alice", "q1", "d1", 2, "judge", "clear\nreally"),
        JudgmentRow(4, "bob", "q1", "d1", None, "skip"),
    ]


J = '{"assessor": "a", "query_id": "q1", "doc_id": "%s", "grade": 1%s}\n'

#: Files the column path must decline — each is one of its guards — with the line reader's answer then given.
DECLINED = [
    ("bom.tsv", b"\xef\xbb\xbfa\tq1\td1\t1\n"),
    ("cr.tsv", b"a\tq1\td1\t1\rb\tq1\td1\t1\n"),
    ("quotes.csv", b'a,q1,d1,1,"x, y"\n'),
    ("long.csv", b"a,q1,d1,1," + b"x" * 140_000 + b"\n"),
    ("short.tsv", b"a\tq1\td1\t1\nb\tq1\td1\n"),
    ("mixed.tsv", b"a\tq1\td1\t1\nb\tq1\td2\t1\tnote\n"),
    ("dup.tsv", b"a\tq1\td1\t1\nb\tq1\td1\t1\na\tq1\td1\t2\n"),
    ("name.tsv", b"a,b\tq1\td1\t1\n"),
    ("grade.tsv", b"a\tq1\td1\t0x10\n"),
    ("empty.tsv", b"a\t\td1\t1\n"),
    ("blank.tsv", "a\tq1\td1\t1\n\u3000\n".encode()),
    ("comments.tsv", b"# only a comment\n\n"),
    ("duration.tsv", b"assessor\tquery_id\tdoc_id\tgrade\tduration_ms\na\tq1\td1\t1\t-5\n"),
    ("escape.jsonl", (J % ("d\\u0031", "")).encode()),
    ("null-action.jsonl", (J % ("d1", "") + J % ("d2", ', "action": null')).encode()),
    ("skip-grade.jsonl", (J % ("d1", ', "action": "skip"')).encode()),
    ("no-grade.jsonl", b'{"assessor": "a", "query_id": "q1", "doc_id": "d1"}\n'),
    ("two.jsonl", (J % ("d1", "")).strip().encode() + (J % ("d2", "")).encode()),
    ("deep.jsonl", (J % ("d1", ', "x": ' + "[" * 70 + "]" * 70)).encode()),
    ("float.jsonl", b'{"assessor": "a", "query_id": "q1", "doc_id": "d1", "grade": 1.0}\n'),
    ("negative.jsonl", (J % ("d1", ', "duration_ms": -1')).encode()),
    (
        "key-twice.jsonl",
        b'{"assessor": "a", "assessor": "b", "query_id": "q1", "doc_id": "d1", "grade": 1}\n',
    ),
]


@pytest.mark.parametrize(("name", "raw"), DECLINED, ids=[name for name, _ in DECLINED])
def test_the_column_path_declines_what_it_cannot_vouch_for(tmp_path: Path, name: str, raw: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(raw)
    assert fast_judgment_table(path) is None
    slow = outcome(lambda: read_judgment_rows(path))
    both = outcome(lambda: read_judgment_table(path))
    assert (both[0], list(both[1].rows()) if both[0] == "rows" else both[1]) == slow  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("topics", "scale", "text"),
    [({"q1"}, None, "a\tq1\td1\t1\na\tq2\td1\t1\n"), (None, {0, 1}, "a\tq1\td1\t1\na\tq1\td2\t2\n")],
)
def test_the_campaign_checks_decline_too(
    tmp_path: Path, topics: set[str] | None, scale: set[int] | None, text: str
) -> None:
    path = tmp_path / "j.tsv"
    path.write_text(text)
    assert fast_judgment_table(path) is not None
    assert fast_judgment_table(path, topics=topics, scale=scale) is None
    with pytest.raises(FormatError, match=f"^{path}:2: "):
        read_judgment_table(path, topics=topics, scale=scale)


#: Odd but valid files the column path reads itself: what Python strips or lowers, read as Python does.
ACCEPTED = [
    ("kelvin.tsv", "a\tq1\td1\tS\u212aIP\n"),  # the Kelvin sign lowers to k: SKIP
    ("plus.tsv", "a\tq1\td1\t+2\nb\tq1\td1\t-0\n"),
    ("spaces.tsv", "\u3000a\u00a0\tq1 \t d1\x1c\t 2\n"),
    ("crlf.csv", "assessor,query_id,doc_id,grade,note\r\na,q1,d1,2, n \r\n"),
    ("indented.tsv", "  # an indented comment\n\t\n  \na\tq1\td1\t1\n"),
]


def test_jsonl_judgments_are_read_line_by_line(tmp_path: Path) -> None:
    """pyarrow's JSON reader crashed a worker (SIGSEGV) in the property test above: JSONL is declined, and the
    line reader — the format's definition — reads it."""
    path = tmp_path / "j.jsonl"
    path.write_text(
        '{"assessor": "a\U0001f600", "query_id": "q1", "doc_id": "d1", "grade": 1}\n', encoding="utf-8"
    )
    assert fast_judgment_table(path) is None
    assert len(read_judgment_rows(path)) == 1


@pytest.mark.parametrize(("name", "text"), ACCEPTED, ids=[name for name, _ in ACCEPTED])
def test_the_column_path_reads_odd_but_valid_files_as_python_does(
    tmp_path: Path, name: str, text: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    fast = fast_judgment_table(path)
    assert fast is not None
    assert list(fast.rows()) == read_judgment_rows(path)
