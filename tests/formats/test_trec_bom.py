"""A UTF-8 byte order mark at the start of a run or qrels file (docs/formats.md).

trec_eval keeps the mark's three bytes as the start of the first line's first column: ``\\ufeff1`` is another
topic than ``1`` (tests/data/trec_eval/corpus.jsonl.xz records what trec_eval 10 prints for such files, and
tests/treceval/test_corpus.py holds the drop-in and ``score`` to it). The toolkit's readers read it the same way
and say so in one warning naming the file; they never strip it silently, which changed a value without a word.
"""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolkit.cli import main
from toolkit.errors import ToolkitWarning
from toolkit.formats import read_qrels, read_run

BOM = b"\xef\xbb\xbf"
WARNING = (
    "the file starts with a UTF-8 byte order mark; as trec_eval does, it is read as part of the first column"
)


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_run_and_qrels_keep_the_mark_in_the_first_topic_id(tmp_path: Path, packed: bool) -> None:
    run, qrels = tmp_path / "bom.run", tmp_path / "bom.qrels"
    run_bytes, qrels_bytes = BOM + b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n", BOM + b"1 0 a 1\n2 0 b 1\n"
    run.write_bytes(gzip.compress(run_bytes) if packed else run_bytes)
    qrels.write_bytes(gzip.compress(qrels_bytes) if packed else qrels_bytes)
    with pytest.warns(ToolkitWarning, match=rf"{run}:1: {WARNING} \('\\ufeff1', not '1'\)"):
        read = read_run(run)
    assert sorted(read.results) == ["2", "\ufeff1"]
    with pytest.warns(ToolkitWarning, match=rf"{qrels}:1: {WARNING}"):
        judged = read_qrels(qrels)
    assert sorted(judged.judgments) == ["2", "\ufeff1"]


def test_score_gives_trec_eval_c_value_and_says_why(tmp_path: Path) -> None:
    """The reported example: P@1 is 0.5 as ``trec_eval -c`` prints it (topic 1 has no results), not 1.0."""
    (tmp_path / "bom.run").write_bytes(BOM + b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    (tmp_path / "two.qrels").write_bytes(b"1 0 a 1\n2 0 b 1\n")
    got = CliRunner().invoke(
        main,
        [
            "score",
            str(tmp_path / "bom.run"),
            "--qrels",
            str(tmp_path / "two.qrels"),
            "--measures",
            "P@1",
            "--format",
            "trec",
        ],
    )
    assert got.exit_code == 0
    assert "P_1                   \tall\t0.5000\n" in got.stdout
    assert f"Warning: {tmp_path / 'bom.run'}:1: {WARNING}" in got.stderr


def test_drop_in_warns_and_prints_trec_eval_bytes(tmp_path: Path) -> None:
    (tmp_path / "bom.run").write_bytes(BOM + b"1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n")
    (tmp_path / "two.qrels").write_bytes(b"1 0 a 1\n2 0 b 1\n")
    got = CliRunner().invoke(
        main, ["trec_eval", "-c", "-m", "P.1", str(tmp_path / "two.qrels"), str(tmp_path / "bom.run")]
    )
    assert (got.exit_code, got.stdout) == (0, "P_1                   \tall\t0.5000\n")
    assert got.stderr.count("Warning: ") == 1 and f"{tmp_path / 'bom.run'}:1: {WARNING}" in got.stderr


def test_a_mark_not_at_the_start_is_just_bytes_of_an_id(tmp_path: Path) -> None:
    run = tmp_path / "mid.run"
    run.write_bytes(b"1 Q0 a 1 1 r\n" + BOM + b"2 Q0 b 1 1 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read = read_run(run)
    assert sorted(read.results) == ["1", "\ufeff2"] and not caught
