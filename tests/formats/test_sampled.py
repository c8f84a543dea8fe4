"""Five-column qrels (TREC Legal's ``.probs``): read, written, read back; errors name the line; the plain
four-column reader ignores the fifth column with one warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.errors import FormatError, ToolkitWarning
from toolkit.formats import read_qrels
from toolkit.formats.sampled import (
    SAMPLED_COLUMNS,
    has_probabilities,
    read_sampled_qrels,
    write_sampled_qrels,
)

# The first lines of TREC 2007 Legal's qrelsL07.probs have this shape (topic, 0, docno, judgment, probability).
LEGAL = "52 0 aaa00a00 1 1.000000\n52 0 aab16e00 0 0.044543\n52 0 zzz99z99 -1 0.25\n"


def test_read_write_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "legal.probs"
    path.write_text(LEGAL)
    sampled = read_sampled_qrels(path)
    assert sampled.qrels.judgments == {"52": {"aaa00a00": 1, "aab16e00": 0, "zzz99z99": -1}}
    assert sampled.probabilities == {"52": {"aaa00a00": 1.0, "aab16e00": 0.044543, "zzz99z99": 0.25}}
    assert has_probabilities(path)
    out = tmp_path / "out.probs"
    write_sampled_qrels(sampled, out)
    assert out.read_text() == "52 0 aaa00a00 1 1\n52 0 aab16e00 0 0.044543\n52 0 zzz99z99 -1 0.25\n"
    again = read_sampled_qrels(out)
    assert again.probabilities == sampled.probabilities


def test_a_probability_reads_back_as_the_same_double(tmp_path: Path) -> None:
    from toolkit.model import Qrels, SampledQrels

    p = 7 / 23
    path = tmp_path / "x.probs"
    write_sampled_qrels(SampledQrels(Qrels({"q": {"d": 1}}), {"q": {"d": p}}), path)
    assert read_sampled_qrels(path).probabilities["q"]["d"] == p


def test_the_plain_reader_ignores_the_fifth_column_with_one_warning(tmp_path: Path) -> None:
    path = tmp_path / "legal.probs"
    path.write_text(LEGAL)
    with pytest.warns(ToolkitWarning) as caught:
        qrels = read_qrels(path)
    assert qrels.judgments == {"52": {"aaa00a00": 1, "aab16e00": 0, "zzz99z99": -1}}
    (warning,) = [w for w in caught if issubclass(w.category, ToolkitWarning)]
    assert str(warning.message) == (
        f"{path}: 3 line(s) have text after column 4 (first: line 1); it is ignored "
        "(a fifth column of inclusion probabilities is read by `score` as sampled qrels)"
    )
    plain = tmp_path / "plain.qrels"
    plain.write_text("q 0 d 1\n")
    assert not has_probabilities(plain)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "q 0 d 1 0.5\nq 0 e 1\n",
            f"x.probs:2: expected 5 columns ({SAMPLED_COLUMNS}), found 4; four-column qrels have no inclusion probabilities: read them as plain qrels",
        ),
        (
            "q 0 d 1 0\n",
            "x.probs:1: inclusion probability 0 is outside (0, 1]; every listed document had a chance to be judged",
        ),
        (
            "q 0 d 1 1.5\n",
            "x.probs:1: inclusion probability 1.5 is outside (0, 1]; every listed document had a chance to be judged",
        ),
        (
            "q 0 d 1 half\n",
            "x.probs:1: expected a probability (a decimal in (0, 1]) in column 5, found 'half'",
        ),
        ("q 0 d x 0.5\n", "x.probs:1: expected an integer relevance in column 4, found 'x'"),
        (
            "q 0 d 1 0.5\nq 0 d 0 0.5\n",
            "x.probs:2: duplicate judgment of doc 'd' for query 'q'; keep one line per (query, doc)",
        ),
        ("# nothing\n", f"x.probs: empty qrels: no judgment lines ({SAMPLED_COLUMNS})"),
    ],
)
def test_errors_name_the_line(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "x.probs"
    path.write_text(body)
    with pytest.raises(FormatError) as err:
        read_sampled_qrels(path)
    assert str(err.value) == f"{tmp_path}/{message}"
