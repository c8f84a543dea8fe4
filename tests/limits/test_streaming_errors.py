"""Errors are found as the input streams, and memory follows what the input holds (docs/reliability.md).

A gzip bomb of *valid* lines — ``q1 Q0 d1 1 1.0 r`` repeated, 5 MB expanding to 2 GiB — passed every limit:
``score`` read it whole (14.4 GB) before it saw the duplicate at line 2. The column reader now checks each
block for a repeated (topic, doc) as it parses it, so the file is refused at line 2 having read one block.
Here the bomb is 512 MiB (one 4 MiB gzip member repeated): read whole it would need some 3.5 GB, and the
monitor of ``test_cli_limits.run`` kills a child past 1.5 GiB.

And what a valid file costs: a run of the shortest lines a run has in practice (18 bytes), so the most rows
per byte, read by ``score`` — its peak over the same command on a two-line run stays within
``MEMORY_MULTIPLE`` times the file's size (docs/reliability.md states it).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from test_cli_limits import MIB, run

from toolkit.formats import tables

BOMB = 512 * MIB
#: A block-reading command's working set: the rotation of buffers, the blocks in flight with their copies,
#: and the first block's table, hashes and keys (the block the duplicate is found in).
BLOCK_SLACK = 16 * tables.BLOCK_BYTES
#: Peak memory of ``score`` over its two-line baseline, per byte of a valid run (stated in
#: docs/reliability.md; measured 7.0–7.2 with 18-byte lines, 1.8 with 37-byte ones).
MEMORY_MULTIPLE = 8


def bomb(path: Path, line: bytes) -> Path:
    member = gzip.compress(line * ((4 * MIB) // len(line)), compresslevel=9, mtime=0)
    path.write_bytes(member * (BOMB // (4 * MIB)))
    return path


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("streaming")
    (root / "ok.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    (root / "ok.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    bomb(root / "bomb.run.gz", b"q1 Q0 d1 1 1.0 r\n")
    bomb(root / "bomb.qrels.gz", b"q1 0 d1 1\n")
    return root


@pytest.fixture(scope="module")
def baseline(root: Path) -> int:
    code, err, rss = run(root, ["score", "ok.run", "--qrels", "ok.qrels"])
    assert code == 0, err
    return rss


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["score", "bomb.run.gz", "--qrels", "ok.qrels"],
            "Error: bomb.run.gz:2: duplicate doc 'd1' for query 'q1'; each doc may appear once per query\n",
        ),
        (
            ["score", "ok.run", "--qrels", "bomb.qrels.gz"],
            "Error: bomb.qrels.gz:2: duplicate judgment of doc 'd1' for query 'q1'; keep one line per "
            "(query, doc)\n",
        ),
    ],
    ids=["run", "qrels"],
)
def test_a_bomb_of_valid_lines_is_refused_at_its_line_2_having_read_a_block(
    root: Path, baseline: int, args: list[str], error: str
) -> None:
    code, err, rss = run(root, args)
    assert (code, err) == (1, error)
    assert rss < baseline + BLOCK_SLACK, (rss >> 20, baseline >> 20)


@pytest.mark.slow
def test_a_valid_run_costs_a_stated_multiple_of_its_size(root: Path, baseline: int) -> None:
    path = root / "short.run"
    size = 0
    with open(path, "w") as out:
        topic = 0
        while size < 48 * MIB:
            lines = "".join(f"{topic:x} Q0 {topic * 1000 + r:x} 1 1 r\n" for r in range(1000))
            out.write(lines)
            size += len(lines)
            topic += 1
    code, err, rss = run(root, ["score", "short.run", "--qrels", "ok.qrels"])
    assert code == 0, err
    assert rss - baseline < MEMORY_MULTIPLE * size, ((rss - baseline) / size, rss >> 20, baseline >> 20)


#: The drop-in's reference loop reads a bomb through to its end (trec_eval reports a duplicate only when it
#: evaluates the topic, after reading the whole file): smaller bombs, so that Python's pass over their lines
#: stays short (the monitor kills a child after two minutes), yet read whole — a Python object a line — they
#: would cost several times the slack the drop-in must stay within.
DROP_IN_BOMBS = {"run": 64 * MIB, "qrels": 24 * MIB}


@pytest.mark.slow
@pytest.mark.parametrize("which", ["run", "qrels"])
def test_the_drop_in_streams_a_bomb_of_valid_lines_to_trec_eval_s_answer(  # type: ignore[no-untyped-def]
    trec_eval, tmp_path: Path, which: str
) -> None:
    """The drop-in's reference loop read the whole decompressed file, and a Python object per line,
    before reporting the duplicate — a run of 64 MiB of one repeated line took ~0.6 GB. Now it streams and keeps one
    copy of a topic's repeated doc: its peak stays within a block-reading command's slack of its baseline.
    The exit code and output are trec_eval 10's on the same lines uncompressed (it reads no gzip)."""
    line = b"q1 Q0 d1 1 1.0 r\n" if which == "run" else b"q1 0 d1 1\n"
    member = gzip.compress(line * ((4 * MIB) // len(line)), compresslevel=9, mtime=0)
    repeats = DROP_IN_BOMBS[which] // (4 * MIB)
    (tmp_path / "bomb.gz").write_bytes(member * repeats)
    plain = tmp_path / "bomb"
    with open(plain, "wb") as out:
        for _ in range(repeats):
            out.write(line * ((4 * MIB) // len(line)))
    (tmp_path / "ok.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    (tmp_path / "ok.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    files = ["ok.qrels", "bomb.gz"] if which == "run" else ["bomb.gz", "ok.run"]
    code, err, rss = run(tmp_path, ["trec_eval", *files])
    out = (tmp_path / "stdout").read_bytes()
    _, _, baseline = run(tmp_path, ["trec_eval", "ok.qrels", "ok.run"])
    oracle = trec_eval(*(str(tmp_path / ("bomb" if f == "bomb.gz" else f)) for f in files))
    assert code == oracle.returncode != 0, err
    assert out == oracle.stdout
    what = "listed twice in the run" if which == "run" else "judged twice in the qrels"
    assert f"topic 'q1': doc 'd1' is {what}" in err
    assert rss < baseline + BLOCK_SLACK, (rss >> 20, baseline >> 20)
