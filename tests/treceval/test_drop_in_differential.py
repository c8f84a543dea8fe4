"""Differential test: the drop-in against the trec_eval 10 binary on 1,100 random adversarial cases.

Cases (``tests/trec_adversarial.py``) are batched ten to an invocation under random options (-c, -l, -M, -J,
all_trec plus parameterised measures) and random file layouts; every batch's whole stdout — every topic, every
measure, every summary line — and exit code must equal the binary's. The binary reads the plain files; the
drop-in reads them gzipped or from standard input when the layout says so (trec_eval has no gzip). A second
set of single cases checks where trec_eval stops (exit 4, exit 2) with the same partial output.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from trec_adversarial import make_batch, maybe_gzip, render_qrels, render_run

from toolkit.cli import main

BATCHES = 110
CASES_PER_BATCH = 10


def first_difference(expected: bytes, got: bytes) -> str:
    want, have = expected.decode("latin-1").splitlines(), got.decode("latin-1").splitlines()
    for k, (a, b) in enumerate(zip(want, have, strict=False)):
        if a != b:
            return f"line {k + 1}: trec_eval {a!r}, drop-in {b!r}"
    return f"trec_eval printed {len(want)} lines, the drop-in {len(have)}"


def compare(trec_eval, tmp_path: Path, options: list[str], run: bytes, qrels: bytes, seed: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    plain_run, plain_qrels = tmp_path / f"{seed}.run", tmp_path / f"{seed}.qrels"
    plain_run.write_bytes(run)
    plain_qrels.write_bytes(qrels)
    expected = trec_eval(*options, plain_qrels, plain_run)
    packed_qrels, suffix = maybe_gzip(qrels, rng)
    ours_qrels = tmp_path / f"{seed}.ours.qrels{suffix}"
    ours_qrels.write_bytes(packed_qrels)
    if rng.random() < 0.2:
        got = CliRunner().invoke(
            main, ["trec_eval", *options, str(ours_qrels), "-"], input=maybe_gzip(run, rng)[0]
        )
    else:
        packed_run, suffix = maybe_gzip(run, rng)
        ours_run = tmp_path / f"{seed}.ours.run{suffix}"
        ours_run.write_bytes(packed_run)
        got = CliRunner().invoke(main, ["trec_eval", *options, str(ours_qrels), str(ours_run)])
    context = f"seed {seed}, options {' '.join(options)}, files {plain_qrels} {plain_run}"
    assert expected.returncode >= 0, f"trec_eval crashed ({context})"
    assert got.exit_code == expected.returncode, f"{context}: {got.stderr or expected.stderr!r}"
    assert got.stdout_bytes == expected.stdout, (
        f"{context}: {first_difference(expected.stdout, got.stdout_bytes)}"
    )


@pytest.mark.parametrize("block", range(10))
def test_drop_in_equals_trec_eval_on_random_batches(trec_eval, tmp_path: Path, block: int) -> None:  # type: ignore[no-untyped-def]
    for seed in range(block * BATCHES // 10, (block + 1) * BATCHES // 10):
        batch = make_batch(seed, cases=CASES_PER_BATCH)
        rng = random.Random(seed * 7919)
        compare(trec_eval, tmp_path, batch.options, render_run(batch, rng), render_qrels(batch, rng), seed)


def test_the_differential_test_covers_1000_cases() -> None:
    assert BATCHES * CASES_PER_BATCH >= 1000
    assert sum(make_batch(seed, cases=CASES_PER_BATCH).cases for seed in range(BATCHES)) >= 1000


STOPS = {
    "a qrels topic missing from the run, without -c": (
        "q1 0 a 1\nq2 0 b 1\nq3 0 c 1\n",
        "q1 Q0 a 1 1 t\nq3 Q0 c 1 1 t\n",
    ),
    "a doc twice in an evaluated topic": (
        "q1 0 a 1\nq2 0 b 1\n",
        "q1 Q0 a 1 1 t\nq2 Q0 b 1 1 t\nq2 Q0 b 2 0 t\n",
    ),
    "a doc twice in a topic without qrels": ("q1 0 a 1\n", "q1 Q0 a 1 1 t\nq9 Q0 b 1 1 t\nq9 Q0 b 2 0 t\n"),
    "a doc twice beyond -M": ("q1 0 a 1\n", "q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 b 3 1 t\n"),
    "a judgment twice": ("q1 0 a 1\nq1 0 a 0\n", "q1 Q0 a 1 1 t\n"),
    "the first topic without a grade >= 0": ("a 0 x -1\nb 0 y 1\n", "a Q0 x 1 1 t\nb Q0 y 1 1 t\n"),
    "a later topic with grades -1 only": ("a 0 x 1\nb 0 y -1\nb 0 z -1\n", "a Q0 x 1 1 t\nb Q0 y 1 1 t\n"),
    "a blank line in the qrels": ("q1 0 a 1\n\nq1 0 b 1\n", "q1 Q0 a 1 1 t\n"),
    "an indented comment in the qrels": ("q1 0 a 1\n  # note\n", "q1 Q0 a 1 1 t\n"),
    "two comment lines in a row": ("# one\n# two x y\nq1 0 a 1\n", "q1 Q0 a 1 1 t\n"),
    "five columns in the qrels": ("q1 0 a 1 x\n", "q1 Q0 a 1 1 t\n"),
    "five columns in the run": ("q1 0 a 1\n", "q1 Q0 a 1 1 t\nq1 Q0 b 2 1\n"),
    "NaN scores": (
        "q1 0 a 1\nq1 0 c 2\n",
        "q1 Q0 a 1 nan t\nq1 Q0 b 1 1 t\nq1 Q0 c 1 nan t\nq1 Q0 d 1 1 t\n",
    ),
}


@pytest.mark.parametrize("name", list(STOPS))
@pytest.mark.parametrize("options", [["-q"], ["-q", "-c", "-M2", "-m", "all_trec"]], ids=["q", "qcM-all"])
def test_where_trec_eval_stops_the_drop_in_stops_alike(
    trec_eval, tmp_path: Path, name: str, options: list[str]
) -> None:  # type: ignore[no-untyped-def]
    qrels, run = STOPS[name]
    compare(trec_eval, tmp_path, options, run.encode(), qrels.encode(), seed=1)


CRASHES = {
    "a later topic whose grades are all -2": (
        "a 0 x 1\nb 0 y -2\n",
        "a Q0 x 1 1 t\nb Q0 y 1 1 t\n",
        1,
        "Error: topic 'b': every grade is -2 or lower; trec_eval 10 clears a negative number of bytes for it and "
        "crashes (segmentation fault)\n",
    ),
    "a comment on the qrels' last line": (
        "q1 0 a 1\n# trailing\n",
        "q1 Q0 a 1 1 t\n",
        2,
        "Error: {qrels}:2: a comment on the last line crashes trec_eval 10 (it reads past the end); remove it\n",
    ),
}


@pytest.mark.parametrize("name", list(CRASHES))
def test_where_trec_eval_crashes_the_drop_in_stops_clearly(trec_eval, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    qrels_text, run_text, code, message = CRASHES[name]
    qrels, run = tmp_path / "x.qrels", tmp_path / "x.run"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    assert trec_eval("-q", "-c", qrels, run).returncode < 0  # killed by a signal
    got = CliRunner().invoke(main, ["trec_eval", "-q", "-c", str(qrels), str(run)])
    assert got.exit_code == code
    assert got.stderr == message.format(qrels=qrels)


def test_garbage_trec_eval_would_read_is_refused(tmp_path: Path) -> None:
    qrels, run = tmp_path / "x.qrels", tmp_path / "x.run"
    qrels.write_text("q1 0 a 1\n")
    run.write_bytes(b"q1 Q0 a 1 1 t\nq1 Q0 b 2 \x00 t\n")  # trec_eval stops reading at the NUL, silently
    got = CliRunner().invoke(main, ["trec_eval", str(qrels), str(run)])
    assert (got.exit_code, got.stdout) == (2, "")
    assert (
        got.stderr
        == f"Error: {run}:2: NUL byte: trec_eval 10 would silently ignore the rest of the file; remove it\n"
    )
    run.write_text("# nothing but a comment\n")  # trec_eval prints an uninitialised run tag under -c
    got = CliRunner().invoke(main, ["trec_eval", "-c", str(qrels), str(run)])
    assert (got.exit_code, got.stdout) == (2, "")
    assert "no result lines" in got.stderr
    qrels.write_text("q1 0 a 1\nq1 0 b 16777216\n")
    run.write_text("q1 Q0 a 1 1 t\n")
    got = CliRunner().invoke(main, ["trec_eval", str(qrels), str(run)])
    assert got.exit_code == 1 and "grade 16777216 is above 16777215" in got.stderr
