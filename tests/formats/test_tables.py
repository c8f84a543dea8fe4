"""The column readers (pyarrow) read every number and every line as the line readers do.

Arrow converts scores itself; the fast path keeps a token only when Arrow's value is finite (strict) or not NaN
(the drop-in), and then it must be exactly the value ``parse_score`` / C's ``atof`` gives — tested here on
random tokens of the number alphabet, whatever Arrow's own grammar is. Grades never go through Arrow's integer
parser (it reads ``0x10`` as 16): each distinct grade text is read by ``parse_grade`` / ``atol``. Qrels read
column-wise must equal the line reader's dict in every layout.
"""

from __future__ import annotations

import contextlib
import gzip
import random
from pathlib import Path

import pytest
from helpers.sizes import scaled_settings
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from toolkit.formats import read_qrels, tables
from toolkit.formats.numbers import NumberError, c_atof, parse_score
from toolkit.formats.qrels import JudgmentsView, read_judgment_columns, read_qrels_lines
from toolkit.formats.ranked import read_ranked


@scaled_settings(max_examples=400, deadline=None)
@given(token=st.text(alphabet="0123456789+-.eExXpPinfaINFAty_ ", min_size=1, max_size=12).map(str.strip))
def test_arrow_reads_a_score_as_c_does_or_not_at_all(token: str) -> None:
    if not token:
        return
    raw = token.encode()
    line = b"q Q0 d 1 " + raw + b" t\n"
    strict = read_ranked("<t>", data=line)
    if strict is not None:
        value = float(strict[0].scores[0])
        assert parse_score(raw) == value  # finite, and the strict grammar's own value
    else:
        with contextlib.suppress(NumberError):  # refused either way: the line reader names the line
            parse_score(raw)
    lenient = read_ranked("<t>", data=line, binary=True)
    if lenient is not None:
        assert float(lenient[0].scores[0]) == c_atof(raw)


def test_grades_are_read_by_the_toolkit_not_by_arrow(tmp_path: Path) -> None:
    path = tmp_path / "q.qrels"
    path.write_text("q 0 a 0x10\n")
    assert read_judgment_columns(path) is None  # strict: refused, the line reader says why
    lenient = read_judgment_columns(path, binary=True)
    assert lenient is not None and lenient.grades.tolist() == [0]  # atol("0x10") == 0


@scaled_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), block=st.sampled_from([8 << 20, 50, 300]))
def test_qrels_columns_equal_the_line_reader(
    seed: int, block: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    lines = []
    for t in range(rng.randint(1, 5)):
        qid = rng.choice([f"q{t}", str(t), f"T-{t}"])
        for d in rng.sample(range(40), rng.randint(1, 12)):
            sep = rng.choice([" ", "\t", "  ", " \t "])
            lines.append(sep.join([qid, "0", f"d{d}", str(rng.choice([-2, -1, 0, 1, 2, 3, 12]))]))
            if rng.random() < 0.1:
                lines.append(rng.choice(["# comment", "", "   ", " # indented"]))
    rng.shuffle(lines)
    data = ("\r\n" if rng.random() < 0.2 else "\n").join(lines) + "\n"
    path = tmp_path / "q.qrels"
    raw = data.encode()
    path.write_bytes(gzip.compress(raw) if rng.random() < 0.2 else raw)
    monkeypatch.setattr(tables, "BLOCK_BYTES", block)
    fast = read_qrels(path)
    slow = read_qrels_lines(path)
    assert isinstance(fast.judgments, JudgmentsView)
    assert list(fast.judgments) == list(slow.judgments)
    assert {q: dict(d) for q, d in fast.judgments.items()} == slow.judgments


def test_a_line_longer_than_a_block_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.run"
    long_doc = "d" * 500
    path.write_text(f"q Q0 {long_doc} 1 2 t\nq Q0 b 2 1 t\n")
    monkeypatch.setattr(tables, "BLOCK_BYTES", 16)
    found = read_ranked(path)
    assert found is not None
    assert found[0].doc_ids(found[0].order[:2] * 0 + [0, 1]) == [long_doc, "b"]


@scaled_settings(max_examples=100, deadline=None)
@given(values=st.lists(st.text(alphabet="ab:/.-_0123456789", max_size=40), min_size=1, max_size=30))
def test_a_value_hashes_the_same_in_any_array(values: list[str]) -> None:
    import pyarrow as pa

    from toolkit.formats.tables import string_hashes

    together = string_hashes(pa.array(values)).tolist()
    alone = [string_hashes(pa.array([v])).tolist()[0] for v in values]
    assert together == alone
    assert len(set(together)) == len(set(values))


@scaled_settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 30), min_size=1, max_size=12),
    seed=st.integers(0, 2**32 - 1),
    planted=st.booleans(),
)
def test_duplicates_are_found_topic_by_topic_as_by_one_sort(
    lengths: list[int], seed: int, planted: bool
) -> None:
    import numpy as np

    from toolkit.formats.ranked import has_duplicates

    rng = np.random.default_rng(seed)
    starts = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    keys = rng.integers(0, 2**63, int(starts[-1])).astype(np.uint64)
    topic = np.repeat(np.arange(len(lengths)), lengths)
    if planted:  # a key repeated, within one topic or across two
        i, j = rng.integers(0, len(keys), 2)
        keys[j] = keys[i]
    docs = keys.copy()  # here a key is its doc: equal keys are the same doc when their topics are equal

    def same(a: int, b: int) -> bool:
        return bool(topic[a] == topic[b] and docs[a] == docs[b])

    assert has_duplicates(keys, same, starts=starts) == has_duplicates(keys, same)


@scaled_settings(max_examples=200, deadline=None)
@given(
    chunks=st.lists(st.lists(st.binary(max_size=6), max_size=6), max_size=6),
    picks=st.lists(st.integers(0, 10**6), max_size=20),
    ascending=st.booleans(),
)
def test_a_take_from_chunks_equals_arrows_take(
    chunks: list[list[bytes]], picks: list[int], ascending: bool
) -> None:
    """``take`` on a chunked column fetches chunk by chunk (Arrow's joins every chunk first): same values."""
    import numpy as np
    import pyarrow as pa

    from toolkit.formats.tables import arrow, take

    column = pa.chunked_array([pa.array(c, pa.binary()) for c in chunks], pa.binary())
    values = [v for c in chunks for v in c]
    if not values:
        return
    indices = [p % len(values) for p in picks]
    if ascending:
        indices.sort()
    got = take(column, arrow(np.array(indices, np.int64)))
    assert isinstance(got, pa.Array)
    assert got.to_pylist() == [values[i] for i in indices]
